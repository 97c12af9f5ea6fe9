"""The PTX engine's atomic serialisation (sim/atomics.serialise_atomics) against the
definition it implements: requests to one element applied one at a time, in thread order.

The reference below is that definition written as a plain Python loop; the engine takes faster
paths when many threads hit one element (folds, shifts, compare-and-swap jumps), and each path
must give the same old values and the same final memory, bit for bit (float sums included).
"""

from __future__ import annotations

import numpy as np
import pytest

from perfcalc.sim.atomics import ATOMIC_OPS as _ATOMIC_OPS
from perfcalc.sim.atomics import serialise_atomics


def _reference(memory: np.ndarray, idx: np.ndarray, v: np.ndarray, c: np.ndarray | None, op: str) -> np.ndarray:
    old = np.empty(idx.size, dtype=memory.dtype)
    for k in range(idx.size):
        before = memory[idx[k]]
        cv = None if c is None else c[k : k + 1]
        with np.errstate(all="ignore"):
            memory[idx[k]] = np.asarray(_ATOMIC_OPS[op](np.array([before]), v[k : k + 1], cv)).astype(memory.dtype)[0]
        old[k] = before
    return old


def _requests(rng: np.random.Generator, elements: int, count: int) -> np.ndarray:
    return np.sort(rng.integers(0, elements, count), kind="stable")


CASES = (
    [(op, dt) for op in ("add", "min", "max", "exch", "cas", "inc", "dec") for dt in (np.int32, np.uint32)]
    + [(op, dt) for op in ("and", "or", "xor") for dt in (np.int32, np.uint64)]
    + [("add", np.float32), ("add", np.float64), ("min", np.float32), ("exch", np.float32), ("cas", np.float32)]
)


@pytest.mark.parametrize("elements", [1, 3, 40, 5000])
@pytest.mark.parametrize(("op", "dtype"), CASES)
def test_serialised_atomics_equal_one_at_a_time(op: str, dtype: type, elements: int) -> None:
    rng = np.random.default_rng(elements * 31 + len(op))
    count = 4000
    idx = _requests(rng, elements, count)
    if np.dtype(dtype).kind == "f":
        memory = rng.uniform(-1, 1, elements).astype(dtype)
        v = rng.uniform(-1, 1, count).astype(dtype)
    else:
        memory = rng.integers(0, 8, elements).astype(dtype)
        v = rng.integers(0, 8, count).astype(dtype)
    c = None
    if op == "cas":  # compare values that often match, so some swaps succeed
        c = rng.integers(0, 8, count).astype(dtype)
        if np.dtype(dtype).kind == "f":
            v = rng.integers(0, 3, count).astype(dtype)
            memory = rng.integers(0, 3, elements).astype(dtype)
            c = rng.integers(0, 3, count).astype(dtype)
    expected_memory = memory.copy()
    expected_old = _reference(expected_memory, idx, v, c, op)
    old = serialise_atomics(memory, idx, v, c, op)
    assert old.tobytes() == expected_old.tobytes()
    assert memory.tobytes() == expected_memory.tobytes()


@pytest.mark.parametrize("op", ["inc", "dec"])
@pytest.mark.parametrize("limit", [0, 1, 5, 100, 2**32 - 1])
@pytest.mark.parametrize("start", [0, 3, 7, 200, 2**32 - 1])
def test_inc_dec_with_one_limit_wrap_as_one_at_a_time(op: str, limit: int, start: int) -> None:
    """atomicInc(&x, v) / atomicDec(&x, v) from every thread on a few counters (the corpus's
    atomics_int): the closed form for one limit, against the loop, starting below, at and
    above the limit."""
    rng = np.random.default_rng(limit + start)
    idx = _requests(rng, 3, 1500)
    memory = np.array([start, 0, limit], dtype=np.uint32)
    v = np.full(idx.size, limit, dtype=np.uint32)
    expected_memory = memory.copy()
    expected_old = _reference(expected_memory, idx, v, None, op)
    old = serialise_atomics(memory, idx, v, None, op)
    assert old.tobytes() == expected_old.tobytes()
    assert memory.tobytes() == expected_memory.tobytes()


_SHARED_FLOAT_ADD = """
__global__ void bins(float* out) {
    __shared__ float s[4];
    if (threadIdx.x < 4) s[threadIdx.x] = 0.f;
    __syncthreads();
    atomicAdd(&s[threadIdx.x % 4], 1.0f);
    __syncthreads();
    if (threadIdx.x < 4) out[threadIdx.x] = s[threadIdx.x];
}
"""


def test_a_shared_float_add_counts_the_retry_loop_sm90_issues():
    """sm_90 compiles a shared float atomicAdd into LDS, FADD, ATOMS.CAST.SPIN and a branch back
    (benchmarks/hw/flops_sass/, scatterAdd), one lane per word succeeding an iteration. Two warps,
    each with 8 lanes on each of 4 words: 8 iterations a warp, each loading (one broadcast
    wavefront) and adding for the lanes still waiting (8, 7, ..., 1 per word): shared load
    requests 2 x 8 + 1 (the final read, warp 0), flops 2 x 4 x 36. Other CCs: no loop counted."""
    from perfcalc.sim import run_kernel
    from perfcalc.sim.ptx import nvrtc

    if not nvrtc.available():
        pytest.skip("NVRTC (pip install nvidia-cuda-nvrtc) is not installed")
    out = np.zeros(4, dtype=np.float32)
    r = run_kernel(_SHARED_FLOAT_ADD, "bins", 1, 64, {"out": out}, "9.0", engine="ptx")
    assert out.tolist() == [16.0] * 4
    assert r.counters.shared_load_requests == 2 * 8 + 1
    assert r.counters.shared_load_wavefronts == 2 * 8 + 1
    assert r.counters.flops == 2 * 4 * (8 * 9 // 2)
    older = run_kernel(_SHARED_FLOAT_ADD, "bins", 1, 64, {"out": np.zeros(4, np.float32)}, "8.0", engine="ptx")
    assert older.counters.shared_load_requests == 1 and older.counters.flops == 0
