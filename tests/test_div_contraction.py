"""ptxas fuses an f32 div.full / div.approx with the add its quotient feeds (sim/ptx/contract.py).

Expected values: an H200's own outputs (benchmarks/hw/div_contraction/: probe.cu, run on the GPU
by run.sh; its SASS shows MUFU.RCP and one FFMA for the fused forms). Triton's LayerNorm
(`1 / tl.sqrt(var / n + eps)`) differed from the GPU in 1,828 of 64,000 outputs before this."""

from __future__ import annotations

import lzma
from pathlib import Path

import numpy as np
import pytest

from perfcalc.sim import run_kernel
from perfcalc.sim.ptx import mufu, toolchain

ROOT = Path(__file__).resolve().parents[1]
PROBE = ROOT / "benchmarks" / "hw" / "div_contraction"
N = 1 << 16

needs_nvcc = pytest.mark.skipif(
    toolchain.route("auto") is None, reason="needs nvcc (cuda extra) and a host C++ compiler"
)


def _probe_inputs() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """probe.cu's inputs, from its xorshift32: random bit patterns for the first half of the
    lanes, then ordinary values m x 2^e (e in -20..20, either sign)."""
    state = 12345

    def draw() -> int:
        nonlocal state
        state ^= (state << 13) & 0xFFFFFFFF
        state ^= state >> 17
        state ^= (state << 5) & 0xFFFFFFFF
        return state

    out = np.zeros((3, N), np.float32)
    for i in range(N):
        for k in range(3):
            if i < N // 2:
                out[k, i] = np.uint32(draw()).view(np.float32)
            else:
                m = 1.0 + (draw() & 0x7FFFFF) / 8388608.0
                e = draw() % 41 - 20
                x = np.float32(m * 2.0**e)
                out[k, i] = -x if draw() & 1 else x
    return out[0], out[1], out[2]


def _gpu(kernel: int) -> np.ndarray:
    bits = np.frombuffer(lzma.decompress((PROBE / "h200" / "gpu.bin.xz").read_bytes()), np.uint32)
    return bits[(kernel - 1) * N : kernel * N]


def _run(kernel: int, cc: str) -> np.ndarray:
    a, b, c = _probe_inputs()
    y = np.zeros(N, np.float32)
    source = (PROBE / "probe.cu").read_text()
    args = {"a": a, "b": b, "c": c, "y": y, "n": N}
    run_kernel(source, f"k{kernel}", N // 256, 256, args, cc, engine="ptx", source_name=str(PROBE / "probe.cu"))
    return y


def _same(got: np.ndarray, want_bits: np.ndarray) -> np.ndarray:
    """Equal bits, or both NaN: the engine's plain add keeps a NaN input's payload where the GPU
    returns the canonical NaN (counted apart by compare.py; not the contraction's matter)."""
    want = want_bits.view(np.float32)
    return (got.view(np.uint32) == want_bits) | (np.isnan(got) & np.isnan(want))


@needs_nvcc
@pytest.mark.parametrize("kernel", range(1, 10))
def test_every_form_gives_the_h200s_bits(kernel: int) -> None:
    """k1-k6 and k9 are fused (add and sub either way round, .ftz, 1 / b), k7 (.ftz on the
    division only) and k8 (quotient read twice) are not: all 65,536 lanes as the H200's."""
    same = _same(_run(kernel, "9.0"), _gpu(kernel))
    assert same.all(), f"k{kernel}: {np.count_nonzero(~same)} of {N} differ"


@needs_nvcc
def test_fused_is_one_rounding_of_the_gpus_reciprocal() -> None:
    """k1 at CC 9.0 is fma(MUFU.RCP(b), a, c) rounded once, which is not the quotient rounded and
    then added: the two differ on about 7 % of the probe's lanes (the engine before
    this change: 4,533 of 65,536 unequal, NaNs aside)."""
    a, b, c = _probe_inputs()
    got = _run(1, "9.0")
    fused = mufu.div_fma_f32(a, b, c, full=True, ftz=False)
    with np.errstate(all="ignore"):
        apart = mufu.div_f32(a, b, full=True, ftz=False) + c
    assert _same(got, fused.view(np.uint32)).all()
    assert 0.03 < np.mean(~_same(got, apart.view(np.uint32))) < 0.15


@needs_nvcc
def test_elsewhere_the_division_and_add_round_apart() -> None:
    """At CC 8.0 (no MUFU table measured) the fused form keeps the PTX's reading: the quotient
    rounded, then the add rounded."""
    a, b, c = _probe_inputs()
    got = _run(1, "8.0")
    with np.errstate(all="ignore"):
        q = (a.astype(np.float64) / b.astype(np.float64)).astype(np.float32)
        want = (q + c).astype(np.float32)
    assert _same(got, want.view(np.uint32)).all()
