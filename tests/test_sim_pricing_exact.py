"""The execution core's pricing shortcuts change no count.

The core prices one representative block per address-shift class, reuses prices across loop
iterations and launches, and shifts shared accesses by whole words (sim/pricing.py explains why
each is exact). Here the shortcuts are replaced by brute force — every lane of every warp priced
through memory/ — and every total and per-line counter must come out identical.
"""

from __future__ import annotations

import numpy as np
import pytest

from perfcalc.sim import pricing, run_kernel
from perfcalc.sim.references import run_catalog_kernel
from perfcalc.specs import get_arch
from perfcalc.specs.kernels import catalog


def _brute_blocks(self, space, addr0, shift_bytes, size, act0, op):
    addr = (addr0[None, :] + shift_bytes[:, None]).ravel()
    mask = None if act0 is None else np.tile(act0, shift_bytes.size)
    return self.price_lanes(space, addr, size, mask, op)


def _brute_sep(self, space, sep, base, itemsize, size, act0, op):
    addr = base + sep.index64() * itemsize
    mask = None if act0 is None else np.tile(act0, sep.b.size)
    return self.price_lanes(space, addr, size, mask, op)


def _both(monkeypatch, run, *args, **kwargs):
    fast = run(*args, **kwargs)
    with monkeypatch.context() as m:
        m.setattr(pricing.Pricer, "price_blocks", _brute_blocks)
        m.setattr(pricing.Pricer, "price_sep", _brute_sep)
        brute = run(*args, **kwargs)
    return fast, brute


SMALL = {"matmul_naive": {"Width": 64}, "matmul_tiled": {"Width": 64}}


@pytest.mark.parametrize("cc", ["1.0", "2.0", "3.5", "9.0"])
def test_catalog_counts_equal_brute_force_pricing(monkeypatch, cc):
    arch = get_arch(cc)
    for name, spec in catalog().items():
        if arch.max_threads_per_block < 1024 and name.startswith("transpose"):
            continue  # 32x32 blocks cannot launch on CC 1.x
        fast, brute = _both(monkeypatch, run_catalog_kernel, spec, SMALL.get(name), arch)
        assert fast.result.counters == brute.result.counters, (cc, name)
        assert fast.result.per_site == brute.result.per_site, (cc, name)


STRIDED = """
__global__ void K(const T* in, T* out, int stride, int off) {
    __shared__ T s[2048];
    int tx = threadIdx.x;
    for (int j = tx; j < 2048; j += blockDim.x) s[j] = in[j];
    __syncthreads();
    T acc = 0;
    for (int k = 0; k < 9; ++k) {
        acc += s[(tx * stride + k * 3 + off) % 2048];
        acc += in[blockIdx.x * 37 + tx * stride + k + off];
    }
    if (tx % 3 != 0) acc += s[tx * stride + 1];
    out[blockIdx.x * blockDim.x + tx] = acc;
}
"""


@pytest.mark.parametrize(
    "cc,bank_mode", [("1.0", None), ("1.3", None), ("2.0", None), ("3.5", 4), ("3.5", 8), ("5.0", None), ("9.0", None)]
)
@pytest.mark.parametrize("ctype", ["float", "double"])
def test_strided_and_offset_accesses_equal_brute_force_pricing(monkeypatch, cc, bank_mode, ctype):
    """Strides 1-32 and misaligned offsets, masked reads, shared and global, every family."""
    dtype = np.float32 if ctype == "float" else np.float64
    source = np.arange(8192, dtype=dtype) % 7 + 1
    for stride in (1, 2, 17, 32):
        for off in (0, 1):
            args = {"in": source, "out": np.zeros(512, dtype), "stride": stride, "off": off}
            fast, brute = _both(
                monkeypatch,
                run_kernel,
                STRIDED,
                "K",
                8,
                64,
                args,
                get_arch(cc),
                defines={"T": ctype},
                bank_mode=bank_mode,
            )
            assert (fast.counters, fast.per_site) == (brute.counters, brute.per_site), (stride, off)
