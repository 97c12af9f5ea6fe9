"""Inputs and the result check work in chunks (issue #13's footprint) and give what a
whole-array version gives: the same random values, the same worst element, the same count of
unwritten outputs."""

from __future__ import annotations

import numpy as np
import pytest

from perfcalc.sim import references
from perfcalc.specs.kernels import get_kernel


@pytest.fixture
def tiny_chunks(monkeypatch):
    monkeypatch.setattr(references, "CHUNK_ELEMENTS", 7)  # 20 elements: chunks of 7, 7 and 6


@pytest.mark.parametrize(
    "dtype", [np.float32, np.float64, np.int32, np.dtype([("index", np.int32), ("v", np.float32)])]
)
def test_chunked_inputs_are_the_values_one_draw_gives(tiny_chunks, dtype):
    """A Generator's uniform doubles and int64 integers take one output each, in order, so 3
    chunks of draws equal one draw of 20 (then converted to the array's dtype)."""
    out = np.empty(20, dtype=dtype)
    references._fill_random(out, np.random.default_rng(5))
    rng = np.random.default_rng(5)
    fields = out.dtype.names or (None,)
    for name in fields:
        got = out if name is None else out[name]
        if np.issubdtype(got.dtype, np.floating):
            want = rng.uniform(0.5, 1.5, size=20).astype(got.dtype)
        else:
            want = rng.integers(1, 101, size=20).astype(got.dtype)
        assert np.array_equal(got, want)


def test_chunked_check_finds_the_worst_element_and_every_unwritten_one(tiny_chunks):
    """copy_stride's out (tolerance 0): one wrong value at index 15 (the third chunk) is the
    worst, named by its index in the whole array; NaNs in two chunks are all counted."""
    spec = get_kernel("copy_stride")
    want = np.arange(1, 21, dtype=np.float32)
    got = want.copy()
    got[15] = 17.0  # 16 expected: relative error 1/16
    check = references.check_result(spec, {"out": got}, {"out": want})
    assert (check.passed, check.max_rel_error, check.worst) == (False, pytest.approx(1 / 16), "out[15]")
    got[[2, 9, 19]] = np.nan
    check = references.check_result(spec, {"out": got}, {"out": want})
    assert check.passed is False and check.unwritten == 3
    assert references.check_result(spec, {"out": want.copy()}, {"out": want}).passed is True
