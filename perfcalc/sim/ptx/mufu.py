"""The H100's and H200's MUFU.RSQ, EX2, RCP and SQRT, bit for bit, from tables measured on the GPU.

`rsqrt.approx.f32` and `ex2.approx.f32` are not correctly rounded: on sm_90 each is one MUFU
instruction, whose result differs from the correctly rounded one on 22 % (rsqrt) and 50 % (ex2)
of inputs by one or two units in the last place. A kernel whose output goes through them (a
norm's `rsqrtf`, a softmax's `exp2f`) is bit-equal to the GPU only if these are too.

The tables (`mufu_sm90/`) are the GPU's own outputs over each function's whole reduced domain,
measured on an H200 (benchmarks/hw/mufu_tables/: the probe, its raw files, the SASS):
- RSQ of every float32 in [1, 4) (2^24 inputs: every mantissa at both exponent parities); any
  other normal input is m x 4^k, whose result is the table's at m with 2^-k folded into the
  exponent (the result stays normal for every float32).
- EX2 of k / 2^23 for k in [-2^23, 2^23): the unit takes |x| as a fixed-point number with 23
  fraction bits, truncating finer bits, and computes negative inputs on their own path (their
  results are not the positive ones halved), so both signs of every fraction are kept; the
  whole part goes into the exponent.
Also RCP (every mantissa of [1, 2)) and SQRT (the RSQ grid's inputs). Stored as the first
output's bits and the int8 steps between neighbours (the outputs move by at most 3 units a step;
645 KB compressed), each loaded on first use as a byte per entry above the lowest of its block of
64 entries (18 MB for RSQ, SQRT and EX2 each, 9 MB for RCP). The passes for zeros, subnormals,
infinities, NaNs and results out of the normal range run only where a launch has such lanes.

Around MUFU, `ptxas` wraps the non-`.ftz` forms in a rescaling (read from the SASS,
benchmarks/hw/mufu_tables/mufu_probe.sass): rsqrt of a subnormal is MUFU.RSQ(x * 2^24) * 2^12,
ex2 below -126 is MUFU.EX2(x / 2) squared; MUFU itself flushes subnormal inputs and, for EX2,
subnormal results. Checked against the GPU on 2^16 random inputs per form, every output equal
(tests/test_mufu.py), and on 2^24 per form on the GPU itself. Also the divisions: div.full/div.approx are
a x MUFU.RCP(b), with ptxas's rescaling. Measured on sm_90 only: other CCs keep the correctly
rounded results.
"""

from __future__ import annotations

import functools
import lzma
from pathlib import Path

import numpy as np

from perfcalc.sim.ptx.arith import fma_f32

TABLES = Path(__file__).resolve().parent / "mufu_sm90"
BLOCK = 64  # entries per base: 64 steps of at most 3 units fit one byte
_NAN = 0x7FFFFFFF  # the canonical NaN every MUFU returns
_INF = 0x7F800000
_MIN_NORMAL = 0x00800000
EX2_GRID = 1 << 23  # fraction steps per unit of x (and the index of x = 0 in the table)


@functools.cache
def _table(name: str) -> tuple[np.ndarray, np.ndarray]:
    """(lowest output bits of each block of 64 entries, each entry's offset above it)."""
    blob = lzma.decompress((TABLES / f"{name}.i8.xz").read_bytes())
    first = int(np.frombuffer(blob[:8], "<i8")[0])
    steps = np.concatenate([np.zeros(1, np.int8), np.frombuffer(blob[8:], np.int8)]).reshape(-1, BLOCK)
    within = np.cumsum(steps, axis=1, dtype=np.int16)  # from the entry before the block
    start = first + np.concatenate([[0], np.cumsum(within[:, -1], dtype=np.int64)[:-1]])
    low = within.min(axis=1)
    offsets = within - low[:, None]
    if offsets.max() > 255:
        raise ValueError(f"{name}: a MUFU table's outputs must stay within 255 units over {BLOCK} entries")
    return start + low, offsets.astype(np.uint8).ravel()


def _lookup(name: str, index: np.ndarray) -> np.ndarray:
    """The table's output bits at each index, as int64."""
    base, offsets = _table(name)
    return base[index >> 6] + offsets[index].astype(np.int64)


def _float(bits: np.ndarray) -> np.ndarray:
    return bits.astype(np.uint32).view(np.float32)


def _ordinary(b: np.ndarray) -> np.ndarray:
    """Lanes of positive normal inputs (bit patterns), which the square roots' formula covers."""
    return (b - np.uint32(_MIN_NORMAL)) < np.uint32(_INF - _MIN_NORMAL)


def _root(x: np.ndarray, name: str) -> np.ndarray:
    """MUFU.RSQ (`name` "rsqrt") or MUFU.SQRT ("sqrt"): a positive normal x is m x 4^k with m in
    [1, 4), whose result is the table's at m with 2^-k (RSQ) or 2^k (SQRT) in the exponent.
    Zeros and subnormals (flushed), negatives, infinities and NaNs take their fixed results."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    b = x.view(np.uint32)
    exponent = (b >> 23).astype(np.int32)  # with the sign bit: any lane outside is fixed below
    parity = (exponent + 1) & 1  # of the unbiased exponent
    index = (parity << 23) | (b & np.uint32(0x7FFFFF)).astype(np.int32)
    half = ((exponent - 127 - parity) >> 1).astype(np.int64) << 23
    out = _float(_lookup(name, index) + (half if name == "sqrt" else -half))
    ordinary = _ordinary(b)
    if not ordinary.all():
        rest = b[~ordinary]
        negative, zero, infinite = rest >> 31 == 1, rest & np.uint32(_INF) == 0, rest == np.uint32(_INF)
        if name == "sqrt":  # +-0 -> +-0, +inf -> +inf
            fixed = np.where(zero, rest & np.uint32(0x80000000), np.where(infinite, _INF, _NAN))
        else:  # +-0 -> +-inf, +inf -> +0
            fixed = np.where(zero, (rest & np.uint32(0x80000000)) | _INF, np.where(infinite, 0, _NAN))
        out[~ordinary] = _float(np.where(negative & ~zero, _NAN, fixed))  # negative, -inf, NaN
    return out


def mufu_rsq(x: np.ndarray) -> np.ndarray:
    """MUFU.RSQ (rsqrt.approx.ftz.f32): subnormal inputs flushed to zero."""
    return _root(x, "rsqrt")


def mufu_sqrt(x: np.ndarray) -> np.ndarray:
    """MUFU.SQRT (sqrt.approx.ftz.f32): the RSQ table's inputs, m x 4^k -> sqrt(m) x 2^k."""
    return _root(x, "sqrt")


def mufu_rcp(x: np.ndarray) -> np.ndarray:
    """MUFU.RCP (rcp.approx.ftz.f32): every mantissa of [1, 2), m x 2^e -> (1/m) x 2^-e; results
    below the smallest normal flushed to zero, 1/+-0 = +-inf, 1/+-inf = +-0."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    b = x.view(np.uint32)
    exponent = ((b >> 23) & np.uint32(255)).astype(np.int32)
    mantissa = b & np.uint32(0x7FFFFF)
    out = _lookup("rcp", mantissa.astype(np.int32)) - ((exponent - 127).astype(np.int64) << 23)
    ordinary = (exponent - 1).astype(np.uint32) < np.uint32(252)  # 1/x stays normal
    if not ordinary.all():
        out = np.where(out < _MIN_NORMAL, 0, out)
        out = np.where(exponent == 0, _INF, np.where(exponent == 255, 0, out))
    out = out | (b & np.uint32(0x80000000))
    if not ordinary.all():
        out = np.where((exponent == 255) & (mantissa != 0), _NAN, out)
    return _float(out)


def mufu_ex2(x: np.ndarray) -> np.ndarray:
    """MUFU.EX2 (ex2.approx.ftz.f32): |x| as fixed point with 23 fraction bits (truncated), the
    whole part into the exponent; subnormal inputs and results flushed to zero."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    b = x.view(np.uint32)
    magnitude = np.abs(x)
    ordinary = (magnitude < np.float32(126.0)) & ((b & np.uint32(_INF)) != 0)  # normal in and out
    if not ordinary.all():  # subnormals and NaNs as 0; past 2^9 every result over- or underflows
        magnitude = np.where(((b & np.uint32(_INF)) == 0) | np.isnan(x), np.float32(0.0), magnitude)
        magnitude = np.minimum(magnitude, np.float32(512.0))
    whole = np.floor(magnitude)
    fraction = ((magnitude - whole) * np.float32(EX2_GRID)).astype(np.int32)  # exact, truncated
    negative = b >> 31 == 1
    index = np.where(negative, EX2_GRID - fraction, EX2_GRID + fraction)
    shift = whole.astype(np.int64) << 23
    out = _lookup("ex2", index) + np.where(negative, -shift, shift)
    if not ordinary.all():
        out = np.where(negative, np.where(out < _MIN_NORMAL, 0, out), np.minimum(out, _INF))
        out = np.where(np.isnan(x), _NAN, out)
    return _float(out)


def rsqrt_approx_f32(x: np.ndarray, ftz: bool) -> np.ndarray:
    """rsqrt.approx[.ftz].f32 as sm_90 runs it: without .ftz, a subnormal is scaled by 2^24
    first and the result by 2^12 (both exact)."""
    x = np.asarray(x, dtype=np.float32)
    if ftz:
        return mufu_rsq(x)
    small = np.abs(x) < np.float32(2.0**-126)  # FSETP.GEU's complement: NaN is not small
    with np.errstate(all="ignore"):
        y = mufu_rsq(np.where(small, x * np.float32(2.0**24), x))
        return np.where(small, y * np.float32(4096.0), y).astype(np.float32)


def ex2_approx_f32(x: np.ndarray, ftz: bool) -> np.ndarray:
    """ex2.approx[.ftz].f32 as sm_90 runs it: without .ftz, x below -126 is halved first and the
    result squared (one float32 rounding, subnormal results kept)."""
    x = np.asarray(x, dtype=np.float32)
    if ftz:
        return mufu_ex2(x)
    low = x < np.float32(-126.0)
    with np.errstate(all="ignore"):
        y = mufu_ex2(np.where(low, x * np.float32(0.5), x))
        return np.where(low, y * y, y).astype(np.float32)


def sqrt_approx_f32(x: np.ndarray, ftz: bool) -> np.ndarray:
    """sqrt.approx[.ftz].f32 as sm_90 runs it: without .ftz, a subnormal is scaled by 2^24 first
    and the result by 2^-12."""
    x = np.asarray(x, dtype=np.float32)
    if ftz:
        return mufu_sqrt(x)
    small = np.abs(x) < np.float32(2.0**-126)
    with np.errstate(all="ignore"):
        y = mufu_sqrt(np.where(small, x * np.float32(2.0**24), x))
        return np.where(small, y * np.float32(2.0**-12), y).astype(np.float32)


def rcp_approx_f32(x: np.ndarray, ftz: bool) -> np.ndarray:
    """rcp.approx[.ftz].f32 as sm_90 runs it: without .ftz, x and the result are both scaled by
    2^24 where x is subnormal and by 1/4 where |x| > 2^126 (so a result below 2^-126 comes out
    subnormal, not flushed)."""
    x = np.asarray(x, dtype=np.float32)
    if ftz:
        return mufu_rcp(x)
    scale = np.where(np.abs(x) < np.float32(2.0**-126), np.float32(2.0**24), np.float32(1.0))
    scale = np.where(np.abs(x) > np.float32(2.0**126), np.float32(0.25), scale).astype(np.float32)
    with np.errstate(all="ignore"):
        return (scale * mufu_rcp(x * scale)).astype(np.float32)


def div_f32(a: np.ndarray, b: np.ndarray, full: bool, ftz: bool) -> np.ndarray:
    """div.full / div.approx [.ftz] .f32 as sm_90 runs them (mufu_probe_divide.sass): a x
    MUFU.RCP(b), one float32 multiply. div.full scales both by 1/4 where |b| > 2^126, which keeps
    1/b normal (div.approx's quotient flushes there, as its documented range [2^-126, 2^126]
    allows); without .ftz both are scaled by 2^24 where b is subnormal. A NaN comes out as the
    canonical NaN, as from every float unit."""
    a, r = _reciprocal_and_numerator(a, b, full, ftz)
    with np.errstate(all="ignore"):
        return _finish((a * r).astype(np.float32), ftz)


def div_fma_f32(a: np.ndarray, b: np.ndarray, c: np.ndarray, full: bool, ftz: bool) -> np.ndarray:
    """A div.full / div.approx whose quotient only feeds an add: ptxas fuses the division's
    multiply and the add into one FFMA, MUFU.RCP(b) x a + c rounded once (contract.py; SASS of
    every form in benchmarks/hw/div_contraction/)."""
    a, r = _reciprocal_and_numerator(a, b, full, ftz)
    c = np.asarray(c, dtype=np.float32)
    if ftz:
        c = _flush(c)
    with np.errstate(all="ignore"):
        return _finish(fma_f32(r, a, c), ftz)


def _reciprocal_and_numerator(a: np.ndarray, b: np.ndarray, full: bool, ftz: bool) -> tuple[np.ndarray, np.ndarray]:
    """MUFU.RCP of the rescaled divisor and the numerator rescaled alike (div_f32's docstring)."""
    a = np.asarray(a, dtype=np.float32)
    b = np.asarray(b, dtype=np.float32)
    with np.errstate(all="ignore"):
        if ftz:
            a, b = _flush(a), _flush(b)
        scale = np.ones_like(b)
        if full:
            scale = np.where(np.abs(b) > np.float32(2.0**126), np.float32(0.25), scale)
        if not ftz:
            scale = np.where(np.abs(b) < np.float32(2.0**-126), np.float32(2.0**24), scale)
        a, b = a * scale, b * scale
        if ftz:
            a = _flush(a)
        return a, mufu_rcp(b)


def _finish(q: np.ndarray, ftz: bool) -> np.ndarray:
    """A float unit's result: flushed under .ftz, any NaN the canonical one."""
    if ftz:
        q = _flush(q)
    return np.where(np.isnan(q), _float(np.array(_NAN)), q).astype(np.float32)


def _flush(x: np.ndarray) -> np.ndarray:
    return np.where(np.abs(x) < np.float32(2.0**-126), np.copysign(np.float32(0.0), x), x).astype(np.float32)


# the .approx instructions whose sm_90 results these tables give, and the CCs they were measured on
MEASURED = {"rsqrt": rsqrt_approx_f32, "ex2": ex2_approx_f32, "sqrt": sqrt_approx_f32, "rcp": rcp_approx_f32}
MEASURED_CCS = frozenset({"9.0"})
