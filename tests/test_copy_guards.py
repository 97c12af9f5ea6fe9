"""ptxas's three never-executed shared loads ahead of a cp.async (sim/ptx/copy_guards.py, issue 33).

Expected values: the sm_90 SASS and Nsight Compute counts of the tensor corpus
(benchmarks/hw/tensor_run/: `@!PT LDS RZ, [RZ]` x3 before the first LDGSTS of a run,
smsp__inst_executed_op_shared_ld) and of a probe of five further shapes whose counts were
predicted before the GPU ran it (benchmarks/hw/copy_guards_probe/h200/)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pytest
from ptx_entry import ptx_entry

from perfcalc.sim.ptx import toolchain
from perfcalc.sim.ptx.copy_guards import guarded_copies

ROOT = Path(__file__).resolve().parents[1]
HW = ROOT / "benchmarks" / "hw"
TENSOR = HW / "tensor_run"
PROBE = HW / "copy_guards_probe"
sys.path.insert(0, str(HW))
from ptx_corpus_compare import ncu_values  # noqa: E402

needs_nvcc = pytest.mark.skipif(
    toolchain.route("auto") is None, reason="needs nvcc (cuda extra) and a host C++ compiler"
)

COPY = "cp.async.ca.shared.global [%r1], [%rd1], 4;"


def _guarded(body: str) -> list[int]:
    """The body lines (0-based, labels not counted) of the guarded copies."""
    fn = ptx_entry(body)
    return sorted(guarded_copies(fn, fn.body))


def test_a_run_of_copies_is_guarded_once() -> None:
    """mma_gemm's prologue pair and cp_async_sizes' three copies (a commit between) in the SASS:
    three guard loads before the first LDGSTS only."""
    assert _guarded(f"{COPY}\n{COPY}\ncp.async.commit_group;\n{COPY}\nret;") == [0]


def test_a_shared_access_or_a_barrier_starts_a_new_run() -> None:
    """The probe's after_shared_store (STS between two copies) and across_barrier (BAR.SYNC
    between): both copies guarded. Its after_global_load (an LDG between): the second is not."""
    assert _guarded(f"{COPY}\nst.shared.u32 [%r2], %r3;\n{COPY}\nret;") == [0, 2]
    assert _guarded(f"{COPY}\nbar.sync 0;\n{COPY}\nret;") == [0, 2]
    assert _guarded(f"{COPY}\nld.global.u32 %r4, [%rd2];\n{COPY}\nret;") == [0]


def test_a_copy_that_starts_a_block_is_guarded_each_time() -> None:
    """A loop whose body starts with the copy (mma_gemm's and flash_attention's loops: three
    guard loads an iteration) and a copy in its own block after a branch."""
    loop = f"LOOP:\n{COPY}\nadd.s32 %r5, %r5, 1;\nsetp.lt.s32 %p1, %r5, %r6;\n@%p1 bra LOOP;\nret;"
    assert _guarded(loop) == [0]
    fn = ptx_entry(f"{COPY}\n@%p1 bra SKIP;\n{COPY}\nSKIP:\n{COPY}\nret;")
    assert sorted(guarded_copies(fn, fn.body)) == [0, 2, 3]


def _app(source: Path, *args: str) -> object:
    import perfcalc.app

    report = perfcalc.app.app([str(source)], list(args), gpu="h100-sxm")
    assert report.exit_status == 0, report.stderr
    return report


@needs_nvcc
@pytest.mark.usefixtures("ptx_cache")
@pytest.mark.parametrize(
    ("name", "args"),
    [("mma_gemm", ("128",)), ("flash_attention", ("256",)), ("sgemm_cp_async", ("100",)), ("cp_async_sizes", ("16",))],
)
def test_cp_async_programs_count_the_h100s_shared_load_instructions(name: str, args: tuple[str, ...]) -> None:
    """Shared-load instructions (the guard loads included) and global-load requests (one a
    zero-filling copy whose lanes read whole and partial rows) equal the H100's, per launch."""
    with tempfile.TemporaryDirectory() as tmp:
        report = _app(ROOT / "tests" / "data" / "cuda" / "tensor" / f"{name}.cu", str(Path(tmp) / "o.bin"), *args)
    for launch, metrics in zip(report.launches, ncu_values(TENSOR / f"ncu_small_{name}.csv"), strict=True):  # type: ignore[attr-defined]
        assert launch.counters["shared_load_requests"] == metrics["smsp__inst_executed_op_shared_ld.sum"]
        assert launch.counters["global_load_requests"] == metrics["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]


@needs_nvcc
@pytest.mark.usefixtures("ptx_cache")
def test_the_probes_five_shapes_count_the_gpus_shared_load_instructions() -> None:
    report = _app(PROBE / "probe.cu", "8", "7")
    measured = ncu_values(PROBE / "h200" / "ncu.csv")
    for launch, metrics in zip(report.launches, measured, strict=True):  # type: ignore[attr-defined]
        assert launch.counters["shared_load_requests"] == metrics["smsp__inst_executed_op_shared_ld.sum"], launch.kernel
