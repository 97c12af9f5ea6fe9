"""Every CUDA atomic both front ends reach, on one machine (issue 29: the C engine knew atomicAdd
only; the read-modify-write is now sim/atomics.py for both). Expected values: the same requests
applied one at a time in thread order by plain Python (CUDA Programming Guide, "Atomic
Functions": each function's old/new rule), and the two engines' instruction counts equal."""

from __future__ import annotations

import numpy as np
import pytest

from perfcalc.sim import run_kernel
from perfcalc.sim.ptx import nvrtc

SRC = r"""
__global__ void k(int *a, unsigned int *u, float *f, int *cas, int *old) {
    int t = threadIdx.x;
    old[t] = atomicAdd(&a[0], 1);
    atomicSub(&a[1], t);
    atomicMax(&a[2], t * 3 - 40);
    atomicMin(&a[3], 100 - t);
    atomicExch(&a[4], t);
    atomicAnd(&a[5], ~(1 << (t % 8)));
    atomicOr(&a[6], 1 << (t % 16));
    atomicXor(&a[7], t);
    atomicInc(&u[0], 9u);
    atomicDec(&u[1], 5u);
    atomicAdd(&f[0], 0.1f);
    atomicCAS(&cas[0], t, t + 1);
}
"""
THREADS = 64


def _expected() -> dict[str, np.ndarray]:
    a = [0, 0, 0, 0, 0, -1, 0, 0]
    u = [0, 3]
    f = np.float32(0)
    cas = 0
    old = []
    for t in range(THREADS):
        old.append(a[0])
        a[0] += 1
        a[1] -= t
        a[2] = max(a[2], t * 3 - 40)
        a[3] = min(a[3], 100 - t)
        a[4] = t
        a[5] &= ~(1 << (t % 8))
        a[6] |= 1 << (t % 16)
        a[7] ^= t
        u[0] = 0 if u[0] >= 9 else u[0] + 1
        u[1] = 5 if u[1] == 0 or u[1] > 5 else u[1] - 1
        f = np.float32(f + np.float32(0.1))
        cas = t + 1 if cas == t else cas
    return {
        "a": np.array(a, np.int32),
        "u": np.array(u, np.uint32),
        "f": np.array([f], np.float32),
        "cas": np.array([cas], np.int32),
        "old": np.array(old, np.int32),
    }


ENGINES = ["source", pytest.param("ptx", marks=pytest.mark.skipif(not nvrtc.available(), reason="needs NVRTC"))]


@pytest.mark.parametrize("engine", ENGINES)
def test_every_atomic_in_thread_order(engine):
    args = {
        "a": np.array([0, 0, 0, 0, 0, -1, 0, 0], np.int32),
        "u": np.array([0, 3], np.uint32),
        "f": np.zeros(1, np.float32),
        "cas": np.zeros(1, np.int32),
        "old": np.zeros(THREADS, np.int32),
    }
    result = run_kernel(SRC, "k", 1, THREADS, args, "9.0", engine=engine)
    for name, want in _expected().items():
        assert args[name].tobytes() == want.tobytes(), (name, args[name], want)
    assert result.counters.warp_instructions["atomic"] == 12 * THREADS // 32


def test_atomic_on_a_type_cuda_does_not_declare_is_refused_by_name():
    from perfcalc.errors import CudaSyntaxError

    src = "__global__ void k(float *f) { atomicInc(&f[0], 1); }"
    with pytest.raises(CudaSyntaxError, match="atomicInc on float"):
        run_kernel(src, "k", 1, 32, {"f": np.zeros(1, np.float32)}, "9.0", engine="source")
