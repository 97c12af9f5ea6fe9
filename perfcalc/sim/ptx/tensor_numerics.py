"""Tensor-core arithmetic as the hardware does it, not as IEEE 754 would: a block FMA.

An `mma` does not round after every product. Per Khattak & Mikaitis, "Accurate Models of NVIDIA
Tensor Cores" (arXiv 2512.07004; parameters as published in their MATLAB models,
github north-numerical-computing/MATLAB-tensor-core, models/A100TC.m and H100TC.m), a tensor
core sums a block of `fma` exact products and the accumulator in one step: every term's
significand is aligned to the largest exponent with `neab` extra bits (one more when the largest
product's significand carries out, >= 2) and truncated there, the integers are added exactly, and
the sum is rounded once: toward zero for a float32 result, to nearest-even for a float16 one. A
K longer than the block is accumulated block after block, each result the next one's C.

This module is that model written from the published parameters (no code taken), vectorised
over any leading shape; `benchmarks/hw/tensor_run/` holds the H100's own outputs it is checked
against.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from perfcalc.errors import CudaSyntaxError


@dataclass(frozen=True)
class BlockFma:
    """One generation's block FMA for one input format."""

    fma: int  # products summed per block
    neab: int  # extra alignment bits beyond float32's 23 fraction bits
    source: str


# (generation, input format) -> model. f16/bf16/tf32 inputs; float32 or float16 accumulators.
_MODELS = {
    ("ampere", "f16"): BlockFma(8, 1, "Khattak & Mikaitis 2025, A100 model"),
    ("ampere", "bf16"): BlockFma(8, 1, "Khattak & Mikaitis 2025, A100 model"),
    ("ampere", "tf32"): BlockFma(4, 1, "Khattak & Mikaitis 2025, A100 model"),
    ("hopper", "f16"): BlockFma(16, 2, "Khattak & Mikaitis 2025, H100 model"),
    ("hopper", "bf16"): BlockFma(16, 2, "Khattak & Mikaitis 2025, H100 model"),
    ("hopper", "tf32"): BlockFma(8, 2, "Khattak & Mikaitis 2025, H100 model"),
}

# Smallest normal exponent of each input format (a subnormal input is taken at this exponent).
_IN_EMIN = {"f16": -14, "bf16": -126, "tf32": -126}


def generation(cc: str) -> str:
    """The published model a compute capability's tensor cores follow: the A100's for 8.x (the
    method paper 2510.15884 finds an RTX 3060's features equal to the A100's), the H100's for 9.0
    and later (B200's own model is not yet ported here: its fp16/bf16 results are taken as the
    H100's, a documented approximation)."""
    major = int(cc.split(".")[0])
    if major < 8:
        raise CudaSyntaxError(f"mma.sync shapes m16n8k* need compute capability 8.0 or later; the target is {cc}")
    return "ampere" if major == 8 else "hopper"


def model(cc: str, fmt: str) -> BlockFma:
    found = _MODELS.get((generation(cc), fmt))
    if found is None:
        raise CudaSyntaxError(f"tensor-core arithmetic on {fmt} inputs is not modelled for compute capability {cc}")
    return found


def _exponent(x: np.ndarray, emin: int) -> np.ndarray:
    """floor(log2|x|), never below emin (a subnormal keeps the format's smallest exponent)."""
    _, e = np.frexp(x)
    return np.maximum(e.astype(np.int64) - 1, emin)


_ZERO_EXPONENT = -(1 << 20)  # a zero input's exponent: its products never set the alignment


def block_fma(a: np.ndarray, b: np.ndarray, c: np.ndarray, fmt: str, m: BlockFma, out: str) -> np.ndarray:
    """One block: sum(a*b, axis=-1) + c as the tensor core rounds it. a, b: float64 holding exact
    input values, broadcastable to (..., k) (pass them unbroadcast: their exponents are found
    once), c: (...) float64 holding the accumulator; returns float64 values exactly
    representable in `out` ('f32' or 'f16').

    Every term is aligned by truncation to the block's top exponent with 23 + neab fraction
    bits, which for a product p and top exponent E is trunc(p * 2**(23 + neab - E)) (the integer
    form of the published model; the significand normalisation it does first loses no bit)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    emin = _IN_EMIN[fmt]
    ea, eb = _exponent(a, emin), _exponent(b, emin)
    sa, sb = np.abs(np.ldexp(a, -ea)), np.abs(np.ldexp(b, -eb))  # significands (0 for a zero)
    # per product 2 * exponent + (significand >= 2): its maximum gives the largest product
    # exponent before normalising (top_pre) and whether such a product carries out (odd)
    key = 2 * (np.where(a == 0, _ZERO_EXPONENT, ea) + np.where(b == 0, _ZERO_EXPONENT, eb)) + (sa * sb >= 2)
    kmax = key.max(axis=-1)
    top_pre, carries = kmax >> 1, (kmax & 1).astype(bool)
    cnz = c != 0
    ce = _exponent(c, -126)
    carry = carries & (~cnz | (top_pre >= ce))  # one more alignment bit where a product leads and carries
    top = np.maximum(top_pre + carries, np.where(cnz, ce, _ZERO_EXPONENT))
    scale = np.ldexp(1.0, 23 + m.neab + carry.astype(np.int64) - top)
    p = a * b  # exact: at most 22 significant bits
    total = np.trunc(p * scale[..., None]).sum(axis=-1) + np.trunc(c * scale)  # exact: |terms| < 2**28
    value = np.where(top > _ZERO_EXPONENT // 2, total / scale, 0.0)
    if out == "f32":
        result = _truncate(value, 23 + min(m.neab, 0), -126)
        result = np.where(np.abs(result) >= 2.0**128, np.copysign(np.inf, result), result)
    else:
        with np.errstate(over="ignore"):
            result = value.astype(np.float16).astype(np.float64)
    if not (np.isfinite(a).all() and np.isfinite(b).all() and np.isfinite(c).all()):
        with np.errstate(invalid="ignore"):
            naive = p.sum(axis=-1) + c
        result = np.where(np.isfinite(naive) & np.isfinite(p).all(axis=-1), result, naive)
    return result


def _truncate(v: np.ndarray, bits: int, emin: int) -> np.ndarray:
    """v rounded toward zero to `bits` fraction bits (subnormals at emin's spacing)."""
    e = _exponent(np.where(v == 0, 1.0, v), emin)
    q = np.ldexp(1.0, e - bits)
    return np.trunc(v / q) * q


def matmul(
    a: np.ndarray, b: np.ndarray, c: np.ndarray, fmt: str, cc: str, out: str, machine_k: int | None = None
) -> np.ndarray:
    """D = A B + C for stacks of tiles: a (..., M, K), b (..., K, N), c (..., M, N), all float64
    holding exact values; blocks of the model's size along K, in order, never longer than the K
    of the machine instruction the PTX instruction becomes (`machine_k`: each one rounds)."""
    m = model(cc, fmt)
    k = a.shape[-1]
    d = np.asarray(c, dtype=np.float64)
    step = min(m.fma, k, machine_k or k)
    for k0 in range(0, k, step):
        aa = a[..., :, None, k0 : k0 + step]  # (..., M, 1, s)
        bb = np.swapaxes(b[..., k0 : k0 + step, :], -1, -2)[..., None, :, :]  # (..., 1, N, s)
        d = block_fma(aa, bb, d, fmt, m, out)
    return d


def tf32_value(bits: np.ndarray) -> np.ndarray:
    """The tf32 a tensor core reads from a 32-bit register: its low 13 fraction bits ignored."""
    return (np.asarray(bits, dtype=np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
