"""The PTX engine keeps integer registers in separable form (per-block + per-lane parts, uniform
values as scalars) and resolves a whole-chunk memory access from its address's parts alone
(memops._sep_access, with the per-Core plan of sep_access.py). That is a shortcut, not a second
semantics: with it switched off every access takes the lane-by-lane path, and the written arrays
and every counter, per source line, must come out identical. Checked on the whole PTX corpus
(72 launches written here, whose outputs and counters are compared with an H100's in
test_ptx_corpus.py / test_h100_counters.py).
"""

from __future__ import annotations

import pytest

from perfcalc.sim.ptx import memops
from tests.corpus import manifest, run_on_ptx_engine, source, written_arrays

LAUNCHES = manifest()


def open_source(name: str) -> str:
    return source(LAUNCHES[name])


def _run(name: str, monkeypatch: pytest.MonkeyPatch, separable: bool) -> tuple[dict, dict, int]:
    taken = 0
    original = memops._sep_access

    def counted(*args: object) -> object:
        nonlocal taken
        found = original(*args)  # type: ignore[arg-type]
        taken += found is not None
        return found if separable else None

    monkeypatch.setattr(memops, "_sep_access", counted)
    result, args = run_on_ptx_engine(name, LAUNCHES[name])
    arrays = {k: v.tobytes() for k, v in written_arrays(LAUNCHES[name], args).items()}
    counts = {
        "total": result.counters,
        "lines": dict(result.per_site),
        "inlined": dict(result.inlined),
        "faults": [f.message for f in result.faults],
    }
    return arrays, counts, taken


@pytest.mark.parametrize("name", sorted(LAUNCHES))
def test_separable_accesses_change_nothing(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast_arrays, fast_counts, taken = _run(name, monkeypatch, separable=True)
    slow_arrays, slow_counts, _ = _run(name, monkeypatch, separable=False)
    assert fast_arrays == slow_arrays
    assert fast_counts == slow_counts
    if name.startswith("matmul"):  # index arithmetic of threadIdx/blockIdx: the shortcut is used
        assert taken > 0


def test_the_tiled_matmul_takes_the_shortcut_for_every_access() -> None:
    """Control: every global and shared access of the corpus's tiled matmul (all lanes active,
    aligned, in bounds) resolves from its parts, so the test above compares two different paths."""
    names = ["matmul_template"]
    assert "__shared__" in open_source(names[0])
    calls = {"fast": 0, "slow": 0}
    original_fast, original_slow = memops._sep_access, memops._resolve

    def fast(*args: object) -> object:
        found = original_fast(*args)  # type: ignore[arg-type]
        calls["fast" if found is not None else "slow"] += found is not None
        return found

    def slow(*args: object) -> object:
        calls["slow"] += 1
        return original_slow(*args)  # type: ignore[arg-type]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(memops, "_sep_access", fast)
        mp.setattr(memops, "_resolve", slow)
        run_on_ptx_engine(names[0], LAUNCHES[names[0]])
    assert calls["fast"] > 0 and calls["slow"] == 0, calls


@pytest.mark.parametrize(
    ("lane", "shape"),
    [
        ((lambda t: (t // 16) * 1024), ("runs", 16)),  # Md[Row*W + k]: 16 lanes (tx) share a row
        ((lambda t: t % 16), ("period", 16)),  # Nd[k*W + Col]: each row of 16 lanes reads the same 16
        ((lambda t: t * 3 % 7), ("none", 0)),  # no repetition: the full gather
        ((lambda t: (t // 32) * 5), ("runs", 32)),  # one value per warp
    ],
)
def test_a_gather_of_repeated_lanes_equals_the_full_gather(lane, shape) -> None:
    """Core.take_at (sim/separable.py, both engines' loads) gathers a block's few distinct lanes
    once and spreads them where the lane part repeats; its values must be the full gather's."""
    import numpy as np

    from perfcalc.sim.separable import Core

    t = np.arange(256, dtype=np.int64)
    core = Core(np.arange(0, 40 * 4096, 4096, dtype=np.int64), lane(t).astype(np.int64))
    view = np.random.default_rng(1).standard_normal(200_000).astype(np.float32)
    rel, low = core.gather_base()
    for e in (0, 3, 17):
        got = core.take_at(view, e)
        assert got.flags.c_contiguous and got.flags.writeable  # bound as a register as it is
        assert np.array_equal(got, view[low + e :].take(rel))
    assert core.derived("repetition", lambda: None)[0] == shape  # the shape take_at used
