"""bfloat16, tf32 and fp8 (e4m3 / e5m2): conversions and packed bf16x2 arithmetic.

Registers hold these as raw bits (.b16 / .b32); every operation here decodes to float64 (exact:
each format's values are float64 values), computes, and rounds once to the destination format
with the rounding the PTX ISA names (`cvt`: "Floating-point rounding: .rn nearest-even, .rna
nearest ties away, .rz toward zero"; `.satfinite`: clamp to the largest finite value, NaN kept).
The fp8 formats are OCP FP8's (E4M3: bias 7, no infinities, max 448, NaN S.1111.111; E5M2:
bias 15, IEEE-like, max 57344).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfcalc.errors import CudaSyntaxError
from perfcalc.sim.ptx import arith
from perfcalc.sim.ptx.execute import Chunk, Env, operand
from perfcalc.sim.ptx.parse import Instr
from perfcalc.sim.ptx.values import NP
from perfcalc.sim.separable import dense

Op = Callable[[Chunk, np.ndarray, bool], None]


@dataclass(frozen=True)
class Format:
    mbits: int  # fraction bits
    emin: int  # smallest normal exponent
    max_finite: float
    bias: int
    ebits: int
    has_inf: bool


BF16 = Format(7, -126, float(np.float32(3.3895313892515355e38)), 127, 8, True)
E4M3 = Format(3, -6, 448.0, 7, 4, False)
E5M2 = Format(2, -14, 57344.0, 15, 5, True)
TF32 = Format(10, -126, float(np.finfo(np.float32).max), 127, 8, True)  # float32's range, 10 fraction bits
FP8 = {"e4m3": E4M3, "e5m2": E5M2}


def quantize(x: np.ndarray, f: Format, mode: str = "rn") -> np.ndarray:
    """float64 values rounded to f's precision (subnormals included), not yet range-checked."""
    x = np.asarray(x, dtype=np.float64)
    finite = np.isfinite(x) & (x != 0)
    _, e = np.frexp(np.where(finite, x, 1.0))
    q = np.ldexp(1.0, np.maximum(e.astype(np.int64) - 1, f.emin) - f.mbits)
    scaled = x / q
    if mode == "rn":
        r = np.rint(scaled)
    elif mode == "rna":
        r = np.trunc(scaled + np.copysign(0.5, scaled))
    else:  # rz
        r = np.trunc(scaled)
    return np.where(finite, r * q, x)


def encode(v: np.ndarray, f: Format, satfinite: bool) -> np.ndarray:
    """Rounded float64 values -> the format's bit patterns (uint16 holding 8 or 16 bits)."""
    v = np.asarray(v, dtype=np.float64)
    nan = np.isnan(v)
    big = np.abs(v) > f.max_finite
    if satfinite:
        v = np.where(big & ~nan, np.copysign(f.max_finite, v), v)
        big = np.zeros_like(big)
    sign = np.signbit(v).astype(np.int64)
    a = np.abs(np.where(nan | big, 1.0, v))
    _, e = np.frexp(np.where(a == 0, 1.0, a))
    e = e.astype(np.int64) - 1
    normal = (a != 0) & (e >= f.emin)
    exp_field = np.where(normal, e + f.bias, 0)
    frac = np.where(normal, np.ldexp(a, f.mbits - e) - (1 << f.mbits), np.ldexp(a, f.mbits - f.emin)).astype(np.int64)
    bits = (sign << (f.ebits + f.mbits)) | (exp_field << f.mbits) | frac
    top = (1 << f.ebits) - 1
    # a NaN result is the canonical one the H100 writes: sign 0, every exponent and fraction bit
    # set (bf16 0x7FFF, fp8 0x7F: benchmarks/hw/tensor_run/lowprec_conversions.bin)
    canonical_nan = (top << f.mbits) | ((1 << f.mbits) - 1)
    if f.has_inf:
        inf_bits = (sign << (f.ebits + f.mbits)) | (top << f.mbits)
        nan_bits = np.full_like(sign, canonical_nan)
    else:  # E4M3: overflow without .satfinite gives NaN too
        inf_bits = nan_bits = np.full_like(sign, canonical_nan)
    bits = np.where(big, inf_bits, bits)
    bits = np.where(nan, nan_bits, bits)
    return bits.astype(np.uint16)


def decode(bits: np.ndarray, f: Format) -> np.ndarray:
    """Bit patterns -> float64 values."""
    b = np.asarray(bits).astype(np.int64)
    sign = np.where((b >> (f.ebits + f.mbits)) & 1, -1.0, 1.0)
    ef = (b >> f.mbits) & ((1 << f.ebits) - 1)
    frac = b & ((1 << f.mbits) - 1)
    top = (1 << f.ebits) - 1
    mag = np.where(ef == 0, np.ldexp(frac.astype(np.float64), f.emin - f.mbits), 0.0)
    mag = np.where(ef > 0, np.ldexp((frac + (1 << f.mbits)).astype(np.float64), ef - f.bias - f.mbits), mag)
    if f.has_inf:
        mag = np.where(ef == top, np.where(frac == 0, np.inf, np.nan), mag)
    else:
        mag = np.where((ef == top) & (frac == (1 << f.mbits) - 1), np.nan, mag)
    return sign * mag


def bf16_round(x: np.ndarray, mode: str = "rn", satfinite: bool = False) -> np.ndarray:
    """float64 -> bfloat16 bits with one rounding (overflow to infinity unless .satfinite)."""
    return encode(quantize(x, BF16, mode), BF16, satfinite)


def bf16_decode(bits: np.ndarray) -> np.ndarray:
    return (np.asarray(bits).astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)


def _u32(reader: Callable[[Chunk], Any], ch: Chunk, shape: tuple[int, ...]) -> np.ndarray:
    return np.broadcast_to(np.asarray(dense(reader(ch))), shape).astype(np.uint32)


def _mode(instr: Instr) -> str:
    for r in ("rna", "rn", "rz"):
        if r in instr.parts:
            return r
    if any(r in instr.parts for r in ("rm", "rp")):
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: directed rounding .rm/.rp is not emulated")
    return "rn"


INTS = ("s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64")


def _bf16_int(instr: Instr, env: Env, dst_t: str, src_t: str) -> Op:
    """cvt between bf16 and an integer type: __bfloat162int_rn and kin (the value, not the bits:
    rounded to an integer by .rni/.rzi/.rmi/.rpi, saturated to the type, NaN to 0, as cvt
    from f16 is), and __int2bfloat16_rn (one rounding to bf16)."""
    d = instr.operands[0].strip()
    if dst_t in INTS:
        src = operand(instr.operands[1], "b16", env)
        irnd = next((r for r in arith.TO_INTEGRAL if r in instr.parts), "rzi")

        def to_int(ch: Chunk, m: np.ndarray, full: bool) -> None:
            x = bf16_decode(_u32(src, ch, m.shape) & np.uint32(0xFFFF))
            ch.write(d, arith.float_to_int(x, irnd, dst_t), m, full)

        return to_int
    src = operand(instr.operands[1], src_t, env)
    mode = _mode(instr)

    def from_int(ch: Chunk, m: np.ndarray, full: bool) -> None:
        x = np.broadcast_to(np.asarray(dense(src(ch))), m.shape).astype(NP[src_t])
        ch.write(d, bf16_round(x.astype(np.float64), mode), m, full)

    return from_int


def build_cvt(instr: Instr, env: Env) -> Op | None:
    """cvt to or from bf16, bf16x2, tf32, e4m3x2, e5m2x2 (None: not one of these)."""
    parts = instr.parts
    types = [p for p in parts[1:] if p in ("bf16", "bf16x2", "tf32", "e4m3x2", "e5m2x2", "f32", "f16", "f16x2", *INTS)]
    if not any(t in ("bf16", "bf16x2", "tf32", "e4m3x2", "e5m2x2") for t in types) or len(types) != 2:
        return None
    dst_t, src_t = types
    if "bf16" in types and (dst_t in INTS or src_t in INTS):
        return _bf16_int(instr, env, dst_t, src_t)
    d = instr.operands[0].strip()
    mode = _mode(instr)
    sat = "satfinite" in parts
    what = f"{instr.opcode} at line {instr.line}"
    srcs = [
        operand(o, "b32" if src_t == "f16x2" else "f32" if src_t == "f32" else "b32", env) for o in instr.operands[1:]
    ]

    def values(ch: Chunk, m: np.ndarray) -> list[np.ndarray]:
        if src_t == "f32":
            return [
                np.broadcast_to(np.asarray(dense(s(ch)), dtype=np.float32), m.shape).astype(np.float64) for s in srcs
            ]
        if src_t == "f16":
            bits = _u32(srcs[0], ch, m.shape) & np.uint32(0xFFFF)
            return [bits.astype(np.uint16).view(np.float16).astype(np.float64)]
        if src_t == "bf16":
            return [bf16_decode(_u32(srcs[0], ch, m.shape) & np.uint32(0xFFFF))]
        raise CudaSyntaxError(f"{what}: this conversion is not implemented")

    if dst_t == "tf32" and src_t == "f32":

        def tf32(ch: Chunk, m: np.ndarray, full: bool) -> None:
            x = values(ch, m)[0]
            bits = np.asarray(quantize(x, TF32, mode), dtype=np.float32)
            ch.write(d, bits.view(np.uint32), m, full)

        return tf32
    if dst_t in ("bf16", "bf16x2") and src_t in ("f32", "f16"):

        def to_bf16(ch: Chunk, m: np.ndarray, full: bool) -> None:
            xs = values(ch, m)
            if dst_t == "bf16":
                ch.write(d, bf16_round(xs[0], mode, sat), m, full)
                return
            hi, lo = (bf16_round(x, mode, sat).astype(np.uint32) for x in xs)  # a high, b low
            ch.write(d, (hi << np.uint32(16)) | lo, m, full)

        return to_bf16
    integral = next((r for r in arith.TO_INTEGRAL if r in parts), None)
    if dst_t == "bf16" and src_t == "bf16" and integral is not None:  # cvt.rmi.bf16.bf16: floor, ...
        rounding = arith.TO_INTEGRAL[integral]

        def to_integer(ch: Chunk, m: np.ndarray, full: bool) -> None:
            # an integer of a bf16's magnitude is a bf16 (8 significant bits cover every one
            # below 2^8, and from 2^8 up every bf16 is an integer): the encoding is exact
            x = values(ch, m)[0]
            ch.write(d, bf16_round(rounding(x), "rn"), m, full)

        return to_integer
    if dst_t in ("f32", "f16") and src_t == "bf16":

        def from_bf16(ch: Chunk, m: np.ndarray, full: bool) -> None:
            x = values(ch, m)[0]
            ch.write(d, x.astype(np.float32) if dst_t == "f32" else x.astype(np.float16), m, full)

        return from_bf16
    if dst_t in ("e4m3x2", "e5m2x2") and src_t in ("f32", "f16x2"):
        f = FP8[dst_t[:4]]
        if mode != "rn" or not sat:
            raise CudaSyntaxError(f"{what}: only cvt.rn.satfinite to fp8 exists in PTX")

        def to_fp8(ch: Chunk, m: np.ndarray, full: bool) -> None:
            if src_t == "f32":
                xs = values(ch, m)
            else:
                w = _u32(srcs[0], ch, m.shape)
                xs = [
                    (w >> np.uint32(16)).astype(np.uint16).view(np.float16).astype(np.float64),
                    (w & np.uint32(0xFFFF)).astype(np.uint16).view(np.float16).astype(np.float64),
                ]
            hi, lo = (encode(quantize(x, f), f, True).astype(np.uint32) for x in xs)
            ch.write(d, ((hi << np.uint32(8)) | lo).astype(np.uint16), m, full)

        return to_fp8
    if dst_t == "f16x2" and src_t in ("e4m3x2", "e5m2x2"):
        f = FP8[src_t[:4]]
        src = operand(instr.operands[1], "b16", env)

        def from_fp8(ch: Chunk, m: np.ndarray, full: bool) -> None:
            w = np.broadcast_to(np.asarray(dense(src(ch))), m.shape).astype(np.uint32)
            lo, hi = (_half_bits(decode((w >> np.uint32(s)) & np.uint32(0xFF), f)) for s in (0, 8))
            ch.write(d, (hi << np.uint32(16)) | lo, m, full)

        return from_fp8
    raise CudaSyntaxError(f"{what}: this conversion is not implemented")


def _half_bits(v: np.ndarray) -> np.ndarray:
    """float64 values (exact halves) as float16 bit patterns; NaN as the H100's canonical 0x7FFF."""
    bits = v.astype(np.float16).view(np.uint16).astype(np.uint32)
    return np.where(np.isnan(v), np.uint32(0x7FFF), bits)


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    return a * b + c  # exact in float64 for bfloat16 inputs (16-bit products) unless far apart


_BF16_OPS: dict[str, tuple[Callable[..., np.ndarray], int]] = {
    "add": (np.add, 2),
    "sub": (np.subtract, 2),
    "mul": (np.multiply, 2),
    "fma": (_fma, 3),
    "neg": (np.negative, 1),
    "abs": (np.abs, 1),
    "min": (np.fmin, 2),
    "max": (np.fmax, 2),
}


def build_bf16_arith(instr: Instr, env: Env) -> Op | None:
    """add/sub/mul/fma/neg/abs/min/max on .bf16 or .bf16x2 (None: another opcode)."""
    found = _BF16_OPS.get(instr.base)
    if found is None:
        return None
    fn, arity = found
    packed = "bf16x2" in instr.parts
    relu = "relu" in instr.parts
    if "sat" in instr.parts:
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: .sat on bf16 is not emulated")
    mode = _mode(instr)
    d = instr.operands[0].strip()
    srcs = [operand(o, "b32", env) for o in instr.operands[1 : 1 + arity]]
    lanes = (0, 16) if packed else (0,)

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        words = [_u32(s, ch, m.shape) for s in srcs]
        out = np.zeros(m.shape, dtype=np.uint32)
        for shift in lanes:
            xs = [bf16_decode((w >> np.uint32(shift)) & np.uint32(0xFFFF)) for w in words]
            with np.errstate(all="ignore"):
                r = fn(*xs)
            if relu:
                r = np.where(r < 0, 0.0, r)
            out |= bf16_round(r, mode).astype(np.uint32) << np.uint32(shift)  # neg/abs/min/max: exact
        ch.write(d, out if packed else out.astype(np.uint16), m, full)

    return run
