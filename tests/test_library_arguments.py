"""Issue 37: the library's entry points check their arguments' types where a call enters
(perfcalc/arguments.py) and raise perfcalc's InputError naming the argument, what it takes and
what came; the sweep of the issue found 61 calls ending in AttributeError or TypeError from
inside. Expected values: the annotations of the public functions (what mypy checks inside)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import perfcalc
from perfcalc.arguments import checked_arguments
from perfcalc.errors import InputError
from perfcalc.specs.target import resolve_target


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: perfcalc.run_kernel(None, "k", 1, 32, {}, "9.0"), "source"),  # type: ignore[arg-type]
        (lambda: perfcalc.run_kernel("__global__ void k(){}", "k", 1, 32, [], "9.0"), "args"),  # type: ignore[arg-type]
        (lambda: perfcalc.occupancy("9.0", "256", 32), "block_size"),  # type: ignore[arg-type]
        (lambda: perfcalc.occupancy("9.0", True, 32), "block_size"),
        (lambda: perfcalc.occupancy([], 256, 32), "cc"),  # type: ignore[arg-type]
        (lambda: perfcalc.global_access("9.0", np.arange(32) * 4, "4"), "size"),  # type: ignore[arg-type]
        (lambda: perfcalc.analyze(perfcalc.CatalogKernel("copy_stride"), "9.0"), "targets"),  # type: ignore[arg-type]
        (lambda: perfcalc.analyze("copy_stride", resolve_target("9.0")), "kernel"),  # type: ignore[arg-type]
        (lambda: perfcalc.CatalogKernel(3), "name"),  # type: ignore[arg-type]
        (lambda: perfcalc.CatalogKernel("copy_stride", params=[("n", 1)]), "params"),  # type: ignore[arg-type]
        (lambda: perfcalc.RunOptions(engine=None), "engine"),  # type: ignore[arg-type]
        (lambda: perfcalc.RunOptions(budget_s="2"), "budget_s"),  # type: ignore[arg-type]
        (lambda: perfcalc.SourceKernel(3, "k", 1, 32), "path"),  # type: ignore[arg-type]
        (lambda: perfcalc.demangle(b"_Z1kv"), "name"),  # type: ignore[arg-type]
        (lambda: perfcalc.read_ptxas(None), "log"),  # type: ignore[arg-type]
        (lambda: perfcalc.occupancy("9.0", 256, 32, 0, 0, None, None, 1, 0), "occupancy"),  # too many positionals
    ],
)
def test_a_wrong_type_is_perfcalcs_error_naming_the_argument(call, argument):
    with pytest.raises(InputError, match=argument):
        call()


def test_numpy_numbers_and_paths_are_what_they_stand_for(tmp_path: Path):
    """NumPy integers are integers and a str is a path, as Python callers pass them."""
    assert perfcalc.occupancy("9.0", np.int64(256), np.int32(32)).active_blocks_per_sm == 8
    kernel = perfcalc.SourceKernel(str(tmp_path / "k.cu"), "k", 1, 32)  # type: ignore[arg-type]
    assert kernel.path == tmp_path / "k.cu"


def test_the_check_follows_the_annotation():
    def f(n: int, xs: tuple[str, ...] = (), m: dict[str, float] | None = None) -> int:
        return n

    g = checked_arguments(f)
    assert g(3, ("a",), {"x": 1}) == 3  # an int is a float
    assert g(3.0) == 3.0  # a whole float for an int: the function's own check says what it takes
    for bad in (("3",), (None,), (3, ["a"]), (3, (1,)), (3, (), {"x": "1"}), (3, (), {1: 1.0})):
        with pytest.raises(InputError):
            g(*bad)


def test_analyze_takes_a_time_limit_and_checks_it():
    """RunOptions.max_seconds bounds the whole analysis as --max-seconds bounds a command
    (limits.py); 10**400 seconds was an OverflowError inside time_limit."""
    with pytest.raises(InputError, match="max_seconds"):
        perfcalc.RunOptions(max_seconds=10**400)
    with pytest.raises(InputError, match="max_seconds"):
        perfcalc.RunOptions(max_seconds=0)
    from perfcalc.errors import TimeLimitExceeded

    # 2**28 inputs and threads: past 0.1 s while the inputs are made or before a block runs
    big = perfcalc.CatalogKernel("copy_offset", {"n": 2**28})
    with pytest.raises(TimeLimitExceeded, match="limit of 0.1 s"):
        perfcalc.analyze(big, perfcalc.target("9.0"), perfcalc.RunOptions(max_seconds=0.1))


def test_arrays_past_the_free_memory_are_refused_before_they_are_made(monkeypatch):
    """A run needs more than its arrays (the reference's results, the engine's per-chunk arrays):
    past the free memory the machine swaps or the OOM killer ends perfcalc (seen in the fuzz run)."""
    import perfcalc.limits

    monkeypatch.setattr(perfcalc.limits, "free_memory_bytes", lambda: 2**30)
    # copy_offset at n = 2**26, offset 1: in (n + 1 floats) and out (n floats), 4 bytes each: just
    # over 512 MiB, twice that just over the 1 GiB free
    with pytest.raises(
        InputError, match=r"512 MiB, and a run more \(twice that is the bound\); this machine has 1 GiB free"
    ):
        perfcalc.analyze(perfcalc.CatalogKernel("copy_offset", {"n": 2**26, "offset": 1}), perfcalc.target("9.0"))


def test_target_takes_a_device_as_the_cli_does():
    """perfcalc.target(cc, gpu) reads --cc and --gpu's spellings: a product named as the device
    brings the product (its time), as `run --cc h100-sxm` does (specs/target.py)."""
    assert perfcalc.target("h100-sxm").name == "h100-sxm"
    assert perfcalc.target(perfcalc.product("a100")).name == "a100"
    assert perfcalc.target(90).name == "CC 9.0" and perfcalc.target("9.0").gpu is None
    assert perfcalc.target("9.0", "h100-sxm").name == "h100-sxm"
