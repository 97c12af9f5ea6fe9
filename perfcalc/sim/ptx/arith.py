"""PTX arithmetic on NumPy arrays with PTX's semantics: wrap-around integers, clamped shifts,
truncating division, IEEE float32/float64 with round-to-nearest, and `fma.rn` with one rounding.

How `.approx` instructions are emulated: on CC 9.0, the float32 rsqrt, ex2, rcp and sqrt
`.approx` forms and div.full/div.approx give the H100's own bits (mufu.py, tables measured on the
GPU). Elsewhere, and for lg2, sin, cos, tanh and the 16-bit forms, they are computed in float64
and rounded once to the instruction's type, so their results lie within the maximum error the PTX
ISA documents for each (at least as accurate as the hardware, not bit-identical to it).
"""

from __future__ import annotations

import numpy as np

from perfcalc.sim.ptx.values import NP

_TINY32 = np.float32(2.0**-126)
_LOW28 = np.int64((1 << 28) - 1)


def ftz(x: np.ndarray) -> np.ndarray:
    """Flush float32 subnormals to sign-preserving zero (.ftz)."""
    return np.where(np.abs(x) < _TINY32, np.copysign(np.float32(0), x), x).astype(x.dtype)


def saturate(x: np.ndarray) -> np.ndarray:
    """.sat: clamp to [0, 1], NaN -> 0."""
    return np.where(np.isnan(x), 0, np.clip(x, 0, 1)).astype(x.dtype)


def fma_f32(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a*b + c rounded once to float32 (fma.rn.f32).

    The float64 product of two float32 is exact; the float64 sum s = p + c is rounded, and
    rounding that again to float32 could round twice. Where TwoSum's exact error of s is not zero
    and s is even, s is nudged to odd (round-to-odd), after which one rounding to float32 is
    correct, because float64 carries more than 2 x 24 + 2 bits (Boldo & Melquiond, 'When double
    rounding is odd'). The nudge can change the float32 only where s itself is a float32 value
    or a midpoint between two (an odd neighbour is neither, and no float64 lies between), and
    every such point has its low 28 mantissa bits zero (subnormal float32s: more of them); so
    only lanes with those bits zero are looked at, usually none. The common case is four passes
    over the lanes and one reduction: widening multiply, add in place, mask, minimum, narrow.
    """
    s = np.multiply(a, b, dtype=np.float64)  # a new array (or scalar) of the product's shape
    if type(s) is np.ndarray and s.ndim and (type(c) is not np.ndarray or c.shape == s.shape):
        s += c
    else:
        s = np.array(s + np.asarray(c, dtype=np.float64))  # an array even where all are scalars
    bits = np.bitwise_and(s.view(np.int64), _LOW28)
    if bits.min() != 0:
        return s.astype(np.float32)
    near = bits == 0
    if s.ndim and 8 * np.count_nonzero(near) > s.size:  # many (exact data, say): whole arrays
        ps = np.multiply(a, b, dtype=np.float64)
        bb = s - ps
        err = (ps - (s - bb)) + (np.asarray(c, dtype=np.float64) - bb)
        at = np.flatnonzero(near & (err != 0))
        ss, err = s.reshape(-1)[at], err.reshape(-1)[at]
    else:  # a few lanes: gathered
        at = np.flatnonzero(near) if s.ndim else np.zeros(1, dtype=np.intp)
        ps = _lanes(a, at) * _lanes(b, at)
        ss = s.reshape(-1)[at]
        bb = ss - ps
        err = (ps - (ss - bb)) + (_lanes(c, at) - bb)
    fix = (err != 0) & np.isfinite(ss)  # s is even here: its low bit is zero
    if fix.any():
        out = s.reshape(-1) if s.ndim else s.reshape(1)
        out[at[fix]] = np.nextafter(ss[fix], np.where(err[fix] > 0, np.inf, -np.inf))
    return s.astype(np.float32)


def _lanes(x: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Lanes `at` of an operand (a scalar stays one) as float64."""
    x = np.asarray(x)
    return (x.reshape(-1)[at] if x.ndim else x).astype(np.float64)


def two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(s, e) with s = fl(a + b) and a + b = s + e exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def round_f32_directed(hi: np.ndarray, lo: np.ndarray, mode: str) -> np.ndarray:
    """The float32 of the exact value hi + lo (float64s, |lo| tiny) rounded toward -inf (rm),
    +inf (rp) or zero (rz): the nearest float32, stepped one ulp where it lies on the wrong side
    of the exact value (the float64 difference has the right sign)."""
    r = hi.astype(np.float32)
    d = (hi - r.astype(np.float64)) + lo
    if mode == "rm":
        step = d < 0
        toward = np.float32(-np.inf)
    elif mode == "rp":
        step = d > 0
        toward = np.float32(np.inf)
    else:  # rz
        step = ((r > 0) & (d < 0)) | ((r < 0) & (d > 0))
        toward = np.float32(0)
    return np.where(step & np.isfinite(r), np.nextafter(r, toward), r).astype(np.float32)


def directed_f32(op: str, mode: str, a: np.ndarray, b: np.ndarray, c: np.ndarray | None = None) -> np.ndarray:
    """add/sub/mul/fma on float32 with .rm/.rp/.rz rounding, from exact float64 pieces."""
    a64, b64 = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if op == "mul":
        hi, lo = a64 * b64, np.zeros_like(a64 * b64)  # a float32 product is exact in float64
    elif op in ("add", "sub"):
        hi, lo = two_sum(a64, b64 if op == "add" else -b64)
    else:  # fma: exact product, then an exact sum pair
        hi, lo = two_sum(a64 * b64, np.asarray(c, dtype=np.float64))
    return round_f32_directed(np.asarray(hi), np.asarray(lo), mode)


def _split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = x * 134217729.0  # 2**27 + 1 (Dekker)
    hi = t - (t - x)
    return hi, x - hi


def fma_f64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """a*b + c for float64 from an error-free product (Dekker) and TwoSum: the exact value rounded
    once except in rare ties between the two residual terms (at most 1 ulp off there)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    c = np.asarray(c, dtype=np.float64)
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    ep = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = p + c
    bb = s - p
    es = (p - (s - bb)) + (c - bb)
    out = s + (ep + es)
    return np.where(np.isfinite(p) & np.isfinite(s), out, p + c)


def mul_hi(a: np.ndarray, b: np.ndarray, t: str) -> np.ndarray:
    """High half of the double-width product (mul.hi / mad.hi)."""
    dt = NP[t]
    if dt.itemsize <= 4:
        wide = np.int64 if dt.kind == "i" else np.uint64
        prod = a.astype(wide) * b.astype(wide)
        return (prod >> (8 * dt.itemsize)).astype(dt)
    # 64 x 64 -> 128 through 32-bit halves
    ua, ub = a.astype(np.uint64), b.astype(np.uint64)
    m32 = np.uint64(0xFFFFFFFF)
    a0, a1, b0, b1 = ua & m32, ua >> np.uint64(32), ub & m32, ub >> np.uint64(32)
    lo = a0 * b0
    mid1 = a1 * b0 + (lo >> np.uint64(32))
    mid2 = a0 * b1 + (mid1 & m32)
    hi = a1 * b1 + (mid1 >> np.uint64(32)) + (mid2 >> np.uint64(32))
    if dt.kind == "i":  # signed correction: hi -= (a<0)*b + (b<0)*a
        hi = hi - np.where(a < 0, ub, 0).astype(np.uint64) - np.where(b < 0, ua, 0).astype(np.uint64)
    return hi.astype(np.uint64).view(dt) if dt.kind == "i" else hi


def shift_left(a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    """shl: counts >= the width give 0 (PTX clamps the count)."""
    count = np.asarray(b).astype(np.uint64)
    over = count >= width
    safe = np.where(over, 0, count).astype(a.dtype if a.dtype.kind == "u" else np.uint64)
    out = (a.astype(np.uint64) << safe.astype(np.uint64)).astype(a.dtype)
    return np.where(over, np.zeros((), dtype=a.dtype), out)


def shift_right(a: np.ndarray, b: np.ndarray, width: int) -> np.ndarray:
    """shr: counts >= the width give 0, or all sign bits for signed types."""
    count = np.asarray(b).astype(np.int64)
    clamped = np.minimum(count, width - 1) if a.dtype.kind == "i" else np.minimum(count, width)
    if a.dtype.kind == "i":
        return (a >> clamped.astype(a.dtype)).astype(a.dtype)
    wide = a.astype(np.uint64) >> clamped.astype(np.uint64)
    return np.where(count >= width, 0, wide).astype(a.dtype)


_CMP = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "lo": np.less,
    "ls": np.less_equal,
    "hi": np.greater,
    "hs": np.greater_equal,
}


def compare(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """setp comparisons; the 'u' float forms are true when either side is NaN."""
    if op in _CMP:
        return _CMP[op](a, b)
    if op == "num":
        return ~(np.isnan(a) | np.isnan(b))
    if op == "nan":
        return np.isnan(a) | np.isnan(b)
    if op.endswith("u") and op[:-1] in _CMP:
        return _CMP[op[:-1]](a, b) | np.isnan(a) | np.isnan(b)
    raise KeyError(op)


# cvt's rounding to an integral value: nearest even, toward zero, toward -inf, toward +inf
TO_INTEGRAL = {"rni": np.rint, "rzi": np.trunc, "rmi": np.floor, "rpi": np.ceil}


def float_to_int(x: np.ndarray, rounding: str, t: str) -> np.ndarray:
    """cvt.rni/rzi/rmi/rpi from float to an integer type: round, saturate to the range, NaN 0."""
    rounded = TO_INTEGRAL[rounding](x.astype(np.float64))
    info = np.iinfo(NP[t])
    clamped = np.clip(np.nan_to_num(rounded, nan=0.0), info.min, info.max)
    return clamped.astype(NP[t])


def bit_reverse(a: np.ndarray, width: int) -> np.ndarray:
    out = np.zeros_like(a.astype(np.uint64))
    v = a.astype(np.uint64)
    for i in range(width):
        out |= ((v >> np.uint64(i)) & np.uint64(1)) << np.uint64(width - 1 - i)
    return out


def popcount(a: np.ndarray) -> np.ndarray:
    v = a.astype(np.uint64)
    count = np.zeros(v.shape, dtype=np.uint32)
    while np.any(v):
        count += (v & np.uint64(1)).astype(np.uint32)
        v = v >> np.uint64(1)
    return count


def count_leading_zeros(a: np.ndarray, width: int) -> np.ndarray:
    v = a.astype(np.uint64)
    out = np.full(v.shape, width, dtype=np.uint32)
    for i in range(width):
        out = np.where((v >> np.uint64(i)) & np.uint64(1), np.uint32(width - 1 - i), out)
    return out
