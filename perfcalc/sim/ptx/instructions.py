"""Compile one PTX instruction (everything but memory and control flow) into a closure.

A closure receives the chunk and the mask of lanes that execute it (control flow and the guard
predicate already applied) and writes its destination registers for those lanes only.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from perfcalc.errors import CudaSyntaxError
from perfcalc.sim.ptx import arith, mufu
from perfcalc.sim.ptx.execute import Chunk, Env, Reader, operand, warps_with
from perfcalc.sim.ptx.parse import Instr
from perfcalc.sim.ptx.values import NP, TYPE_NAMES
from perfcalc.sim.separable import Sep, dense

Op = Callable[[Chunk, np.ndarray, bool], None]

_ROUNDING = ("rn", "rz", "rm", "rp")
FLOAT_ROUNDING_REFUSED = ("rz", "rm", "rp")
BOOL_OPS = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}  # setp/set's .BoolOp


def type_of(instr: Instr) -> str:
    """The instruction's operand type: its last type-named part."""
    for part in reversed(instr.parts):
        if part in TYPE_NAMES:
            return part
    raise CudaSyntaxError(f"{instr.opcode} at line {instr.line} names no operand type")


def _dst(instr: Instr) -> str:
    return instr.operands[0].strip()


def _srcs(instr: Instr, t: str, env: Env, first: int = 1, sep_ok: bool = False) -> list[Reader]:
    return [operand(o, t, env, sep_ok) for o in instr.operands[first:]]


def _keeps_sep(instr: Instr, t: str) -> bool:
    """Integer arithmetic whose result stays separable when its operands are (no saturation,
    no carry chain: those read the registers' arrays)."""
    return NP[t].kind in "iu" and not any(p in instr.parts for p in ("sat", "cc", "hi", "24"))


def _result(r: Any, dt: np.dtype) -> Any:
    """An integer operation's result in the instruction's type: a Sep stays one where exact."""
    if isinstance(r, Sep):
        return r if r.core.lane.dtype == dt else r.astype(dt)
    return np.asarray(r).astype(dt, copy=False)


def _widen(v: Any, dt: np.dtype) -> Any:
    """An operand converted to the wider type of mul.wide / mad.wide (a Sep stays one)."""
    if isinstance(v, (Sep, np.generic)):
        return v.astype(dt)
    return np.asarray(v).astype(dt)


def _float_mode(instr: Instr) -> None:
    for r in FLOAT_ROUNDING_REFUSED:
        if r in instr.parts and not ("f32" in instr.parts and instr.base in _DIRECTED_OK):
            raise CudaSyntaxError(
                f"{instr.opcode} at line {instr.line}: directed rounding .{r} on this type or "
                f"operation is not emulated (refused rather than answered wrongly)"
            )


_DIRECTED_OK = ("add", "sub", "mul", "fma", "mad")


def _directed(instr: Instr) -> str | None:
    """The directed rounding mode of an f32 add/sub/mul/fma, or None for round-to-nearest."""
    return next((r for r in FLOAT_ROUNDING_REFUSED if r in instr.parts), None)


def _post(instr: Instr, t: str) -> Callable[[np.ndarray], np.ndarray]:
    ftz = "ftz" in instr.parts and t == "f32"
    sat = "sat" in instr.parts and NP[t].kind == "f"

    def post(v: np.ndarray) -> np.ndarray:
        if ftz:
            v = arith.ftz(np.asarray(v, dtype=np.float32))
        if sat:
            v = arith.saturate(v)
        return v

    return post


_OPERATORS: dict[Any, Callable[[Any, Any], Any]] = {np.add: operator.add, np.subtract: operator.sub}


def _binary(fn: Callable[[Any, Any], Any]) -> Callable[[Instr, Env], Op]:
    def build(instr: Instr, env: Env) -> Op:
        t = type_of(instr)
        if NP[t].kind == "f":
            _float_mode(instr)
        d = _dst(instr)
        keep = _keeps_sep(instr, t) and instr.base in ("add", "sub")
        # integer operands are read as kept (a uniform one as a scalar, so and/or/xor/min/max of
        # uniform values stay uniform); only add and sub keep a Sep as a Sep
        a, b = _srcs(instr, t, env, sep_ok=NP[t].kind in "iu")
        dt = NP[t]
        post = _post(instr, t)
        directed = _directed(instr) if t == "f32" else None
        ftz = NP[t].kind == "f" and "ftz" in instr.parts

        # add/sub through Python's operators, so a Sep operand takes Sep's own (no ufunc dispatch)
        apply = _OPERATORS.get(fn, fn) if keep else fn

        def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
            x, y = a(ch), b(ch)
            if not keep:
                x, y = dense(x), dense(y)
            if ftz:
                x, y = arith.ftz(np.asarray(x)), arith.ftz(np.asarray(y))
            if directed:
                v = arith.directed_f32(instr.base, directed, x, y)
            else:
                v = _result(apply(x, y), dt)
                if isinstance(v, Sep):
                    ch.write(d, v, m, full)
                    return
            ch.write(d, post(v), m, full)

        return run

    return build


def build_mul(instr: Instr, env: Env) -> Op:
    t = type_of(instr)
    d = _dst(instr)
    a, b = _srcs(instr, t, env, sep_ok=_keeps_sep(instr, t))
    parts = instr.parts
    if NP[t].kind == "f":
        return _binary(np.multiply)(instr, env)
    if "wide" in parts:
        wide = "s" + str(2 * int(t[1:])) if t[0] == "s" else "u" + str(2 * int(t[1:]))

        def run_wide(ch: Chunk, m: np.ndarray, full: bool) -> None:
            ch.write(d, _widen(a(ch), NP[wide]) * _widen(b(ch), NP[wide]), m, full)

        return run_wide
    if "hi" in parts:

        def run_hi(ch: Chunk, m: np.ndarray, full: bool) -> None:
            x, y = np.asarray(a(ch)), np.broadcast_to(np.asarray(b(ch)), np.shape(a(ch)))
            ch.write(d, arith.mul_hi(np.asarray(x), np.asarray(y), t), m, full)

        return run_hi
    if "24" in instr.base:  # mul24.lo

        def run24(ch: Chunk, m: np.ndarray, full: bool) -> None:
            x = (np.asarray(a(ch)).astype(np.int64) << 40) >> 40
            y = (np.asarray(b(ch)).astype(np.int64) << 40) >> 40
            ch.write(d, (x * y).astype(NP[t]), m, full)

        return run24

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        r = a(ch) * b(ch)
        ch.write(d, _result(r, NP[t]), m, full)

    return run


def build_mad(instr: Instr, env: Env) -> Op:
    t = type_of(instr)
    d = _dst(instr)
    parts = instr.parts
    if NP[t].kind == "f":
        _float_mode(instr)
        a, b, c = _srcs(instr, t, env)
        directed = _directed(instr) if t == "f32" else None
        fused = {"f32": arith.fma_f32, "f64": arith.fma_f64, "f16": _half_fma}[t]
        if directed:

            def fused(x, y, z, _mode=directed):  # type: ignore[no-untyped-def]
                return arith.directed_f32("fma", _mode, x, y, z)

        post = _post(instr, t)

        def run_f(ch: Chunk, m: np.ndarray, full: bool) -> None:
            x, y, z = a(ch), b(ch), c(ch)
            if "ftz" in parts and t == "f32":
                x, y, z = (arith.ftz(np.asarray(v, dtype=np.float32)) for v in (x, y, z))
            ch.write(d, post(fused(x, y, z)), m, full, fresh=True)

        return run_f
    if "wide" in parts:
        wide = ("s" if t[0] == "s" else "u") + str(2 * int(t[1:]))
        a, b = (operand(o, t, env, sep_ok=True) for o in instr.operands[1:3])
        c = operand(instr.operands[3], wide, env, sep_ok=True)

        def run_wide(ch: Chunk, m: np.ndarray, full: bool) -> None:
            prod = _widen(a(ch), NP[wide]) * _widen(b(ch), NP[wide])
            ch.write(d, prod + c(ch), m, full)

        return run_wide
    a, b, c = _srcs(instr, t, env, sep_ok=_keeps_sep(instr, t))
    if "hi" in parts:

        def run_hi(ch: Chunk, m: np.ndarray, full: bool) -> None:
            x = np.asarray(a(ch))
            y = np.broadcast_to(np.asarray(b(ch)), x.shape)
            ch.write(d, arith.mul_hi(x, y, t) + c(ch), m, full)

        return run_hi

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        r = a(ch) * b(ch) + c(ch)
        ch.write(d, _result(r, NP[t]), m, full)

    return run


def _quotient_rounded_once(x: np.ndarray, y: np.ndarray, dt: np.dtype) -> np.ndarray:
    """An approximate division where no measured unit gives its bits: the float64 quotient
    rounded once to the instruction's type (within div.approx/div.full's documented 2 ulp)."""
    return (x.astype(np.float64) / y.astype(np.float64)).astype(dt)


def _build_div_fma(instr: Instr, env: Env, t: str, d: str) -> Op:
    """`div.MODE.fma[.ftz].f32 d, a, b, c`: a division whose multiply ptxas fused with the add
    it fed (contract.py). Where MUFU.RCP is measured, one FFMA of MUFU.RCP(b), a and c;
    elsewhere the division and the add rounded apart, as the PTX reads."""
    a, b, c = _srcs(instr, t, env)
    full = "full" in instr.parts
    flush = "ftz" in instr.parts
    measured = env.pricer.arch.cc in mufu.MEASURED_CCS

    def run(ch: Chunk, m: np.ndarray, whole: bool) -> None:
        x, y, z = np.asarray(a(ch)), np.asarray(b(ch)), np.asarray(c(ch))
        if measured:
            r = mufu.div_fma_f32(x, y, z, full, flush)
        else:
            with np.errstate(all="ignore"):
                q = _quotient_rounded_once(x, y, np.dtype(np.float32))
                if flush:
                    q, z = arith.ftz(q), arith.ftz(z.astype(np.float32))
                r = (q + z).astype(np.float32)
                if flush:
                    r = arith.ftz(r)
        ch.write(d, r, m, whole)

    return run


def build_div(instr: Instr, env: Env, rem: bool = False) -> Op:
    t = type_of(instr)
    d = _dst(instr)
    if "fma" in instr.parts:
        return _build_div_fma(instr, env, t, d)
    a, b = _srcs(instr, t, env)
    if NP[t].kind == "f":
        _float_mode(instr)
        post = _post(instr, t)
        exact = "rn" in instr.parts or t == "f64"
        # div.full / div.approx on sm_90: a x MUFU.RCP(b), as the GPU computes it (mufu.py)
        rcp_mode = next((mode for mode in ("full", "approx") if mode in instr.parts), None)
        measured = t == "f32" and rcp_mode is not None and env.pricer.arch.cc in mufu.MEASURED_CCS
        flush = "ftz" in instr.parts

        def run_f(ch: Chunk, m: np.ndarray, full: bool) -> None:
            x, y = np.asarray(a(ch)), np.asarray(b(ch))
            if measured:
                q = mufu.div_f32(x, y, rcp_mode == "full", flush)
            else:  # elsewhere within the documented 2 ulp: computed exactly, rounded once
                q = np.divide(x, y) if exact else _quotient_rounded_once(x, y, NP[t])
            ch.write(d, post(np.asarray(q, dtype=NP[t])), m, full)

        return run_f

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        x = np.broadcast_to(np.asarray(a(ch)), m.shape)
        y = np.broadcast_to(np.asarray(b(ch)), m.shape)
        zero = m & (y == 0)
        if zero.any():
            raise ch.fault(
                "division_by_zero",
                instr,
                zero,
                f"Integer {'remainder' if rem else 'division'} by zero ({instr.opcode})",
            )
        safe = np.where(m, y, 1)
        if NP[t].kind == "i":
            q = (
                np.fmod(x, safe)
                if rem
                else (
                    np.trunc(x.astype(np.float64) / safe).astype(NP[t]) if NP[t].itemsize <= 4 else _trunc_div(x, safe)
                )
            )
        else:
            q = np.fmod(x, safe) if rem else x // safe
        ch.write(d, np.asarray(q).astype(NP[t]), m, full)

    return run


def _trunc_div(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    q = np.abs(x) // np.abs(y)
    return np.where((x < 0) ^ (y < 0), -q, q)


def build_minmax(instr: Instr, env: Env) -> Op:
    fn: np.ufunc = np.minimum if instr.base == "min" else np.maximum
    t = type_of(instr)
    if NP[t].kind == "f":  # PTX min/max return the non-NaN input
        fn = np.fmin if instr.base == "min" else np.fmax
    return _binary(fn)(instr, env)


def build_unary(instr: Instr, env: Env) -> Op:
    t = type_of(instr)
    d = _dst(instr)
    (a,) = _srcs(instr, t, env)
    base = instr.base
    width = 8 * NP[t].itemsize
    post = _post(instr, t)
    f64 = np.float64

    def approx(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
        return lambda x: fn(np.asarray(x).astype(f64)).astype(NP[t])

    table: dict[str, Callable[[np.ndarray], np.ndarray]] = {
        "abs": np.abs,
        "neg": np.negative,
        "not": np.invert,
        "cnot": lambda x: (x == 0).astype(NP[t]),
        "popc": arith.popcount,
        "clz": lambda x: arith.count_leading_zeros(x, width),
        "brev": lambda x: arith.bit_reverse(x, width).astype(NP[t]),
        "rcp": (lambda x: np.divide(NP[t].type(1), x)) if "rn" in instr.parts else approx(lambda x: 1.0 / x),
        "sqrt": np.sqrt if "rn" in instr.parts else approx(np.sqrt),
        "rsqrt": approx(lambda x: 1.0 / np.sqrt(x)),
        "ex2": approx(np.exp2),
        "lg2": approx(np.log2),
        "sin": approx(np.sin),
        "cos": approx(np.cos),
        "tanh": approx(np.tanh),
    }
    if base not in table:
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line} is not implemented")
    fn = table[base]
    flush = "ftz" in instr.parts and t == "f32"
    if base in mufu.MEASURED and t == "f32" and env.pricer.arch.cc in mufu.MEASURED_CCS:
        measured, mufu_ftz = mufu.MEASURED[base], flush
        fn = lambda x: measured(x, mufu_ftz)  # noqa: E731  the GPU's own approximation, bit for bit
        flush = False  # MUFU flushes its own input
    if base == "not" and t == "pred":
        fn = np.logical_not

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        x = np.asarray(a(ch))
        if flush:
            x = arith.ftz(x)
        with np.errstate(all="ignore"):
            v = fn(x)
        ch.write(d, post(np.asarray(v)), m, full)

    return run


def build_logic(instr: Instr, env: Env) -> Op:
    t = type_of(instr)
    fn: np.ufunc = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[instr.base]
    if t == "pred":
        fn = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[instr.base]
    return _binary(fn)(instr, env)


def build_shift(instr: Instr, env: Env) -> Op:
    t = type_of(instr)
    d = _dst(instr)
    left = instr.base == "shl"
    a = operand(instr.operands[1], t, env, sep_ok=NP[t].kind in "iu")
    b = operand(instr.operands[2], "u32", env, sep_ok=True)
    width = 8 * NP[t].itemsize

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        raw, by = a(ch), dense(b(ch))
        if isinstance(raw, Sep):
            if left and isinstance(by, np.generic) and 0 <= int(by) < width:  # a ring operation: stays a Sep
                ch.write(d, np.left_shift(raw, raw.dtype.type(int(by))), m, full)
                return
            raw = raw.full()
        x = np.asarray(raw)
        y = np.broadcast_to(np.asarray(by), m.shape) if x.ndim else np.asarray(by)
        x = np.broadcast_to(x, np.shape(y)) if np.ndim(y) else x
        v = arith.shift_left(x, y, width) if left else arith.shift_right(x, y, width)
        ch.write(d, v, m, full)

    return run


def build_setp(instr: Instr, env: Env) -> Op:
    t = type_of(instr)
    cmp_op = instr.parts[1]
    bool_op = instr.parts[2] if instr.parts[2] in ("and", "or", "xor") else None
    dests = [p.strip() for p in instr.operands[0].split("|")]
    # integer operands kept separable are read as they are: uniform ones (a loop counter) as
    # scalars, so the comparison gives one bool (a uniform predicate) without a lane array
    a, b = (operand(o, t, env, sep_ok=True) for o in instr.operands[1:3])
    c = operand(instr.operands[3], "pred", env) if bool_op else None
    combine_op = BOOL_OPS[bool_op] if bool_op is not None else None

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        x, y = dense(a(ch)), dense(b(ch))
        with np.errstate(invalid="ignore"):
            r = arith.compare(cmp_op, x, y)
        if np.ndim(r) == 0 and c is None:
            ch.write(dests[0], np.bool_(r), m, full)
            if len(dests) > 1:
                ch.write(dests[1], ~np.bool_(r), m, full)
            return
        r = np.broadcast_to(r, m.shape)
        q = ~r
        if c is not None and combine_op is not None:
            cv = c(ch)
            r = combine_op(r, cv)
            q = combine_op(q, cv)
        ch.write(dests[0], r, m, full)
        if len(dests) > 1:
            ch.write(dests[1], q, m, full)

    return run


def build_set(instr: Instr, env: Env) -> Op:
    """set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, {!}c} (PTX ISA, set): the comparison as a
    number: 1.0 / 0.0 for a float dtype (f32, f16), all ones / 0 for an integer one; with
    packed halves (f16x2) each half compared apart (a half 1.0 / 0.0, or 0xFFFF / 0 in an
    integer dtype). bf16 results are refused by name."""
    types = [p for p in instr.parts[1:] if p in NP]
    if len(types) == 2 and types[1] == "f16x2" and types[0] in ("f16x2", "u32", "s32"):
        return _set_f16x2(instr, env, types[0])
    if len(types) != 2 or types[0] not in ("u32", "s32", "f32", "f16") or types[1] in ("f16x2", "bf16x2", "bf16"):
        raise CudaSyntaxError(
            f"PTX instruction {instr.opcode} at line {instr.line} is not implemented by the PTX engine"
        )
    dtype, stype = NP[types[0]], types[1]
    cmp_op = instr.parts[1]
    bool_op = instr.parts[2] if instr.parts[2] in ("and", "or", "xor") else None
    d = _dst(instr)
    a, b = (operand(o, stype, env) for o in instr.operands[1:3])
    c = operand(instr.operands[3], "pred", env) if bool_op else None
    on = dtype.type(1.0) if dtype.kind == "f" else np.array(-1).astype(dtype)[()]
    off = dtype.type(0)

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        with np.errstate(invalid="ignore"):
            r = np.broadcast_to(arith.compare(cmp_op, dense(a(ch)), dense(b(ch))), m.shape)
        if c is not None and bool_op is not None:
            r = BOOL_OPS[bool_op](r, c(ch))
        ch.write(d, np.where(r, on, off).astype(dtype), m, full)

    return run


def _set_f16x2(instr: Instr, env: Env, dtype: str) -> Op:
    cmp_op = instr.parts[1]
    bool_op = instr.parts[2] if instr.parts[2] in ("and", "or", "xor") else None
    d = _dst(instr)
    a, b = (operand(o, "b32", env) for o in instr.operands[1:3])
    c = operand(instr.operands[3], "pred", env) if bool_op else None
    on = np.float16(1.0).view(np.uint16) if dtype == "f16x2" else np.uint16(0xFFFF)

    def halves(v: Any, shape: tuple[int, ...]) -> np.ndarray:
        return np.ascontiguousarray(np.broadcast_to(np.asarray(dense(v), dtype=np.uint32), shape)).view(np.float16)

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        with np.errstate(invalid="ignore"):
            r = arith.compare(cmp_op, halves(a(ch), m.shape), halves(b(ch), m.shape))
        if c is not None and bool_op is not None:
            r = BOOL_OPS[bool_op](r, np.repeat(np.broadcast_to(c(ch), m.shape), 2))
        bits = np.where(r, on, np.uint16(0)).astype(np.uint16)
        ch.write(d, np.ascontiguousarray(bits).view(np.uint32), m, full)

    return run


def build_dp4a(instr: Instr, env: Env) -> Op:
    """dp4a.atype.btype d, a, b, c (PTX ISA, dp4a): c plus the four products of a's and b's
    bytes, each byte sign-extended for .s32 and zero-extended for .u32; 32-bit, wrapping."""
    types = [p for p in instr.parts[1:] if p in ("u32", "s32")]
    if len(types) != 2:
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: dp4a needs two of .u32/.s32")
    d = _dst(instr)
    a, b = (operand(o, "u32", env) for o in instr.operands[1:3])
    c = operand(instr.operands[3], "u32", env)
    lanes = [np.int8 if t == "s32" else np.uint8 for t in types]

    def bytes_of(v: Any, kind: Any, shape: tuple[int, ...]) -> np.ndarray:
        raw = np.ascontiguousarray(np.broadcast_to(np.asarray(v, dtype=np.uint32), shape))
        return raw.view(np.uint8).reshape(*shape, 4).view(kind).astype(np.int64)

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        x, y = bytes_of(dense(a(ch)), lanes[0], m.shape), bytes_of(dense(b(ch)), lanes[1], m.shape)
        acc = np.broadcast_to(np.asarray(dense(c(ch)), dtype=np.uint32), m.shape).astype(np.int64)
        total = acc + (x * y).sum(axis=-1)
        ch.write(d, (total & 0xFFFFFFFF).astype(np.uint32), m, full)

    return run


def build_selp(instr: Instr, env: Env) -> Op:
    t = type_of(instr)
    d = _dst(instr)
    a, b = (operand(o, t, env) for o in instr.operands[1:3])
    p = operand(instr.operands[3], "pred", env)

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        chosen = cast(np.ndarray, np.where(p(ch), a(ch), b(ch)))
        ch.write(d, chosen.astype(NP[t]), m, full)

    return run


def build_mov(instr: Instr, env: Env) -> Op:
    t = type_of(instr)
    dst, src = instr.operands[0].strip(), instr.operands[1].strip()
    if src.startswith("{"):  # pack: mov.b64 d, {lo, hi}
        pieces = [s.strip() for s in src.strip("{}").split(",")]
        each = NP[t].itemsize // len(pieces)
        ptype = {1: "b8", 2: "b16", 4: "b32", 8: "b64"}[each]
        readers = [operand(p, ptype, env) for p in pieces]

        def pack(ch: Chunk, m: np.ndarray, full: bool) -> None:
            out = np.zeros(m.shape, dtype=NP["b" + str(8 * NP[t].itemsize)])
            for i, r in enumerate(readers):
                out |= np.asarray(r(ch)).astype(out.dtype) << out.dtype.type(8 * each * i)
            ch.write(dst, out, m, full)

        return pack
    if dst.startswith("{"):  # unpack: mov.b64 {lo, hi}, s
        pieces = [s.strip() for s in dst.strip("{}").split(",")]
        each = NP[t].itemsize // len(pieces)
        src_r = operand(src, "b" + str(8 * NP[t].itemsize), env)
        mask_bits = (1 << (8 * each)) - 1

        def unpack(ch: Chunk, m: np.ndarray, full: bool) -> None:
            v = np.asarray(src_r(ch)).astype(np.uint64)
            for i, p in enumerate(pieces):
                if p == "_":
                    continue
                part = (v >> np.uint64(8 * each * i)) & np.uint64(mask_bits)
                ch.write(p, part.astype(NP["b" + str(8 * each)]), m, full)

        return unpack
    a = operand(src, t, env, sep_ok=True)

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        ch.write(dst, a(ch), m, full)

    return run


def build_cvt(instr: Instr, env: Env) -> Op:
    from perfcalc.sim.ptx import lowprec

    low = lowprec.build_cvt(instr, env)
    if low is not None:
        return low
    parts = instr.parts
    if "f16x2" in parts and len(instr.operands) == 3:  # cvt.rn.f16x2.f32 d, a, b: a high, b low
        d = _dst(instr)
        hi, lo = (operand(o, "f32", env) for o in instr.operands[1:3])
        if not ("rn" in parts or not any(r in parts for r in ("rz", "rm", "rp"))):
            raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: only .rn is emulated")

        def pack(ch: Chunk, m: np.ndarray, full: bool) -> None:
            h = np.broadcast_to(np.asarray(hi(ch), dtype=np.float32), m.shape).astype(np.float16)
            lo_ = np.broadcast_to(np.asarray(lo(ch), dtype=np.float32), m.shape).astype(np.float16)
            bits = (h.view(np.uint16).astype(np.uint32) << np.uint32(16)) | lo_.view(np.uint16)
            ch.write(d, bits.astype(np.uint32), m, full)

        return pack
    types = [p for p in parts if p in TYPE_NAMES]
    if len(types) != 2:
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: expected two types")
    dt_name, st_name = types
    d = _dst(instr)
    sat = "sat" in parts
    dkind, skind = NP[dt_name].kind, NP[st_name].kind
    plain_int = dkind in "iu" and skind in "iu" and not sat  # widen, narrow or reinterpret
    a = operand(instr.operands[1], st_name, env, sep_ok=plain_int)
    irnd = next((p for p in parts if p in arith.TO_INTEGRAL), None)
    frnd = next((p for p in parts if p in _ROUNDING), None)
    directed = frnd if frnd in FLOAT_ROUNDING_REFUSED and dkind == "f" else None
    if directed is not None and skind == "f" and NP[st_name].itemsize <= NP[dt_name].itemsize:
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: directed rounding to a float type is not emulated")

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        raw = a(ch)
        if plain_int and isinstance(raw, Sep):
            ch.write(d, raw.astype(NP[dt_name]), m, full)  # a Sep where exact, else the array
            return
        x = np.asarray(raw)
        if "ftz" in parts and st_name == "f32":
            x = arith.ftz(x)
        with np.errstate(all="ignore"):
            if skind == "f" and dkind in "iu":
                v = arith.float_to_int(x, irnd or "rzi", dt_name)
            elif skind == "f" and dkind == "f" and irnd:
                v = arith.TO_INTEGRAL[irnd](x).astype(NP[dt_name])
            elif sat and dkind in "iu":
                info = np.iinfo(NP[dt_name])
                v = np.clip(
                    x.astype(np.float64) if skind == "u" and x.dtype.itemsize == 8 else x.astype(np.int64),
                    info.min,
                    info.max,
                ).astype(NP[dt_name])
            elif directed is not None:
                v = directed_round(x, NP[dt_name], directed)
            else:
                v = x.astype(NP[dt_name])
            if sat and dkind == "f":
                v = arith.saturate(v)
        ch.write(d, v, m, full)

    return run


def directed_round(x: np.ndarray, dt: np.dtype[Any] | type, mode: str) -> np.ndarray:
    """`x` (an integer, or a wider float) to float type `dt` rounded toward -inf (rm), +inf (rp)
    or zero (rz), as cvt.rm/.rp/.rz do: NumPy's nearest value, moved one step where it lies on
    the wrong side of the exact value (compared exactly: floats widened, integers as integers)."""
    r = x.astype(dt)
    if x.dtype.kind == "f":
        back = r.astype(x.dtype)
        above, below = back > x, back < x
    elif x.dtype.itemsize <= 4:  # every int32 is exact in float64
        wide = r.astype(np.float64)
        above, below = wide > x, wide < x
    else:  # 64-bit integers: the rounded value as an integer, where it is one in range
        limit = float(np.iinfo(x.dtype).max) + 1.0  # 2^63 or 2^64, exact as a float
        out = r.astype(np.float64) >= limit
        whole = np.where(out, 0, r).astype(x.dtype)
        above = out | (~out & (whole > x))
        below = ~out & (whole < x)
    toward = {"rm": -np.inf, "rp": np.inf, "rz": 0.0}[mode]
    step = {"rm": above, "rp": below, "rz": (x > 0) & above | (x < 0) & below}[mode]
    return np.where(step, np.nextafter(r, np.asarray(toward, dtype=r.dtype)), r).astype(dt)


def build_cvta(instr: Instr, env: Env) -> Op:
    from perfcalc.sim.ptx.memory import LOCAL_WINDOW, SHARED_WINDOW

    parts = instr.parts
    t = type_of(instr)
    d = _dst(instr)
    a = operand(instr.operands[1], t, env, sep_ok=True)
    spaces = {p.split("::")[0] for p in parts}  # cvta.to.shared::cta as cvta.to.shared
    window = SHARED_WINDOW if "shared" in spaces else LOCAL_WINDOW if "local" in spaces else 0
    to = "to" in parts

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        raw = a(ch)
        if isinstance(raw, Sep) and raw.dtype == np.uint64:
            ch.write(d, raw - np.uint64(window) if to else raw + np.uint64(window), m, full)
            return
        v = np.asarray(raw).astype(np.uint64)
        v = v - np.uint64(window) if to else v + np.uint64(window)
        ch.write(d, v.astype(NP[t]), m, full)

    return run


def build_shf(instr: Instr, env: Env) -> Op:
    """shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel shift of the 64-bit b:a by c."""
    d = _dst(instr)
    lo, hi = (operand(o, "b32", env) for o in instr.operands[1:3])
    amount = operand(instr.operands[3], "u32", env)
    left = "l" in instr.parts
    clamp = "clamp" in instr.parts

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        a = np.broadcast_to(np.asarray(lo(ch)).astype(np.uint64), m.shape)
        b = np.broadcast_to(np.asarray(hi(ch)).astype(np.uint64), m.shape)
        n = np.broadcast_to(np.asarray(amount(ch)).astype(np.uint64), m.shape)
        n = np.minimum(n, np.uint64(32)) if clamp else n & np.uint64(31)
        both = (b << np.uint64(32)) | a
        shifted = (both << n) >> np.uint64(32) if left else both >> n
        out = shifted & np.uint64(0xFFFFFFFF)
        ch.write(d, out.astype(np.uint32), m, full)

    return run


def _field_bounds(pos: Any, length: Any, width: int) -> tuple[np.ndarray, np.ndarray]:
    """bfe/bfi's position and length: their low 8 bits, clamped to the operand width (PTX ISA)."""
    top = np.uint64(width)
    p = np.minimum(np.asarray(pos).astype(np.uint64) & np.uint64(0xFF), top)
    n = np.minimum(np.asarray(length).astype(np.uint64) & np.uint64(0xFF), top)
    return p, n


def build_bfe(instr: Instr, env: Env) -> Op:
    t = type_of(instr)
    d = _dst(instr)
    a = operand(instr.operands[1], t, env)
    pos = operand(instr.operands[2], "u32", env)
    ln = operand(instr.operands[3], "u32", env)
    width = 8 * NP[t].itemsize

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        x = np.asarray(a(ch)).astype(np.uint64)
        p, n = _field_bounds(pos(ch), ln(ch), width)
        field = (x >> p) & ((np.uint64(1) << n) - np.uint64(1))
        if NP[t].kind == "i":  # sign-extend from bit n-1
            sign = (field >> np.maximum(n, np.uint64(1)) - np.uint64(1)) & np.uint64(1)
            fill = np.where((sign == 1) & (n > 0) & (n < width), ~((np.uint64(1) << n) - np.uint64(1)), np.uint64(0))
            field = field | fill
        ch.write(d, field.astype(NP["b" + str(width)]), m, full)

    return run


def build_bmsk(instr: Instr, env: Env) -> Op:
    """bmsk.mode.b32 d, a, b: a mask of b ones starting at bit a (PTX ISA 9.7.1 `bmsk`): .clamp
    takes a and b up to 32, .wrap takes them modulo 32; bits past 31 fall off."""
    d = _dst(instr)
    pos = operand(instr.operands[1], "u32", env)
    ln = operand(instr.operands[2], "u32", env)
    wrap = "wrap" in instr.parts

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        p = np.asarray(pos(ch)).astype(np.uint64)
        n = np.asarray(ln(ch)).astype(np.uint64)
        p, n = (p & np.uint64(31), n & np.uint64(31)) if wrap else (np.minimum(p, 32), np.minimum(n, 32))
        mask = (((np.uint64(1) << n) - np.uint64(1)) << p) & np.uint64(0xFFFFFFFF)
        ch.write(d, mask.astype(np.uint32), m, full)

    return run


def build_bfi(instr: Instr, env: Env) -> Op:
    t = type_of(instr)
    d = _dst(instr)
    f = operand(instr.operands[1], t, env)
    b = operand(instr.operands[2], t, env)
    pos = operand(instr.operands[3], "u32", env)
    ln = operand(instr.operands[4], "u32", env)
    width = 8 * NP[t].itemsize

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        p, n = _field_bounds(pos(ch), ln(ch), width)
        mask = (((np.uint64(1) << n) - np.uint64(1)) << p) & np.uint64((1 << width) - 1)
        out = (np.asarray(b(ch)).astype(np.uint64) & ~mask) | ((np.asarray(f(ch)).astype(np.uint64) << p) & mask)
        ch.write(d, out.astype(NP[t]), m, full)

    return run


def build_lop3(instr: Instr, env: Env) -> Op:
    """lop3.b32 d, a, b, c, immLut: any logic function of three inputs, bit by bit (PTX ISA
    "lop3"): bit i of d is bit (a_i b_i c_i, read as a 3-bit number) of immLut, the function's
    truth table (immLut = F(0xF0, 0xCC, 0xAA))."""
    if "|" in instr.operands[0] or len(instr.parts) > 2:
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: lop3 with a predicate output is not implemented")
    d = _dst(instr)
    a, b, c = (operand(o, "b32", env) for o in instr.operands[1:4])
    lut = int(instr.operands[4].strip(), 0) & 0xFF

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        x, y, z = (np.broadcast_to(np.asarray(r(ch)).astype(np.uint32), m.shape) for r in (a, b, c))
        out = np.zeros(m.shape, dtype=np.uint32)
        for k in range(8):  # each minterm of the table that is set
            if lut >> k & 1:
                out |= (x if k & 4 else ~x) & (y if k & 2 else ~y) & (z if k & 1 else ~z)
        ch.write(d, out, m, full)

    return run


def build_vabsdiff(instr: Instr, env: Env) -> Op:
    """vabsdiff4 / vabsdiff2 .u32.u32.u32 d, a, b, c (PTX ISA, SIMD video instructions): the
    absolute difference of each unsigned byte (4) or half-word (2) of a and b; without a
    secondary op each lands in its place of d (the default mask: all of them), with `.add` d =
    c + their sum. What CUDA's __vabsdiffu4, __vsadu4 and __vsadu2 compile to; selectors,
    masks, signed types and .sat are refused by name."""
    lanes = 4 if instr.base == "vabsdiff4" else 2
    types, rest = instr.parts[1:4], instr.parts[4:]
    if types != ("u32", "u32", "u32") or rest not in ((), ("add",)) or any("." in o for o in instr.operands):
        raise CudaSyntaxError(
            f"{instr.opcode} at line {instr.line}: only {instr.base}.u32.u32.u32 (optionally .add), without "
            "selectors or masks, is implemented"
        )
    d = _dst(instr)
    a, b, c = (operand(o, "b32", env) for o in instr.operands[1:4])
    bits = 32 // lanes
    field = np.uint64((1 << bits) - 1)

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        x, y, z = (np.broadcast_to(np.asarray(r(ch)).astype(np.uint64), m.shape) for r in (a, b, c))
        out = z.copy() if rest else np.zeros(m.shape, dtype=np.uint64)
        for i in range(lanes):
            shift = np.uint64(bits * i)
            xi, yi = (x >> shift) & field, (y >> shift) & field
            diff = np.where(xi > yi, xi - yi, yi - xi)
            out = out + diff if rest else out | (diff << shift)
        ch.write(d, (out & np.uint64(0xFFFFFFFF)).astype(np.uint32), m, full)

    return run


def build_prmt(instr: Instr, env: Env) -> Op:
    d = _dst(instr)
    a, b = (operand(o, "b32", env) for o in instr.operands[1:3])
    c = operand(instr.operands[3], "b32", env)
    if len(instr.parts) > 2:
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: prmt modes are not implemented")

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        x = np.broadcast_to(np.asarray(a(ch)).astype(np.uint64), m.shape)
        y = np.broadcast_to(np.asarray(b(ch)).astype(np.uint64), m.shape)
        sel = np.broadcast_to(np.asarray(c(ch)).astype(np.uint64), m.shape)
        both = x | (y << np.uint64(32))
        out = np.zeros(m.shape, dtype=np.uint64)
        for i in range(4):
            s = (sel >> np.uint64(4 * i)) & np.uint64(0xF)
            byte = (both >> ((s & np.uint64(7)) * np.uint64(8))) & np.uint64(0xFF)
            byte = np.where(s & np.uint64(8), np.where(byte & np.uint64(0x80), np.uint64(0xFF), np.uint64(0)), byte)
            out |= byte << np.uint64(8 * i)
        ch.write(d, out.astype(np.uint32), m, full)

    return run


def build_shfl(instr: Instr, env: Env) -> Op:
    """shfl.sync.{up,down,bfly,idx}.b32 d[|p], a, b, c, membermask (c: clamp | segmask << 8)."""
    mode = instr.parts[2] if instr.parts[1] == "sync" else instr.parts[1]
    dests = [s.strip() for s in instr.operands[0].split("|")]
    a = operand(instr.operands[1], "b32", env)
    b = operand(instr.operands[2], "u32", env)
    c = operand(instr.operands[3], "u32", env)

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        lane = ch.special["%laneid"].astype(np.int64)
        bb = np.broadcast_to(np.asarray(b(ch)).astype(np.int64), lane.shape) & 31
        cc = np.broadcast_to(np.asarray(c(ch)).astype(np.int64), lane.shape)
        clamp = cc & 31
        segmask = (cc >> 8) & 31
        max_lane = (lane & segmask) | (clamp & ~segmask)
        min_lane = lane & segmask
        if mode == "up":
            j = lane - bb
            ok = j >= max_lane
        elif mode == "down":
            j = lane + bb
            ok = j <= max_lane
        elif mode == "bfly":
            j = lane ^ bb
            ok = j <= max_lane
        else:
            j = min_lane | (bb & ~segmask)
            ok = j <= max_lane
        j = np.where(ok, j, lane)
        src = np.broadcast_to(np.asarray(a(ch)), lane.shape).reshape(-1, 32)
        rows = np.arange(src.shape[0])[:, None]
        value = src[rows, j.reshape(-1, 32)].reshape(-1)
        ch.write(dests[0], value, m, full)
        if len(dests) > 1:
            ch.write(dests[1], ok, m, full)

    return run


_LANE_BITS = np.uint64(1) << np.arange(32, dtype=np.uint64)


def _ballot(rows: np.ndarray) -> np.ndarray:
    """Each warp's row of 32 flags as one 32-bit word, repeated for its 32 lanes."""
    return np.repeat((rows.astype(np.uint64) * _LANE_BITS).sum(axis=1).astype(np.uint32), 32)


def _takers(instr: Instr, env: Env, at: int) -> Callable[[Chunk, np.ndarray], np.ndarray]:
    """Per lane, the lanes of its warp that take part in a .sync collective, as a 32-bit word:
    the active ones within its own membermask (operand `at`; PTX ISA: a thread outside the
    membermask takes no part, and its ballot bit is 0). Without a membermask, every active lane."""
    member = operand(instr.operands[at], "u32", env) if len(instr.operands) > at else None

    def takers(ch: Chunk, m: np.ndarray) -> np.ndarray:
        active = _ballot(m.reshape(-1, 32))
        if member is None:
            return active
        return active & np.broadcast_to(np.asarray(member(ch), dtype=np.uint32), m.shape)

    return takers


def _members(instr: Instr, env: Env, at: int) -> Callable[[Chunk, np.ndarray], np.ndarray]:
    """_takers as a (warps, 32, 32) boolean array: [warp, lane, other lane]."""
    takers = _takers(instr, env, at)
    lanes = np.arange(32, dtype=np.uint32)

    def members(ch: Chunk, m: np.ndarray) -> np.ndarray:
        words = takers(ch, m).reshape(-1, 32)
        return ((words[:, :, None] >> lanes[None, None, :]) & np.uint32(1)) == 1

    return members


def build_redux(instr: Instr, env: Env) -> Op:
    """redux.sync.{add,min,max,and,or,xor}.{u32,s32,b32} d, a, membermask: over the lanes that
    execute it within the lane's membermask."""
    t = type_of(instr)
    op = instr.parts[2]
    d = _dst(instr)
    a = operand(instr.operands[1], t, env)
    members = _members(instr, env, 2)
    dt = NP[t]

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        v = np.broadcast_to(np.asarray(a(ch)), m.shape).reshape(-1, 32).astype(np.int64)
        sel = members(ch, m)
        vs = np.broadcast_to(v[:, None, :], sel.shape)
        if op == "add":
            r = np.where(sel, vs, 0).sum(axis=2)
        elif op in ("min", "max"):
            big = np.iinfo(np.int64).max
            fill = big if op == "min" else -big
            r = (np.min if op == "min" else np.max)(np.where(sel, vs, fill), axis=2)
        else:
            ident = -1 if op == "and" else 0
            red = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[op]
            r = red.reduce(np.where(sel, vs, ident), axis=2)
        r = r.reshape(-1)
        out = (r & 0xFFFFFFFF).astype(np.uint64).astype(np.uint32).view(dt) if dt.itemsize == 4 else r.astype(dt)
        ch.write(d, out, m, full)

    return run


def build_match(instr: Instr, env: Env) -> Op:
    """match.sync.any/all.b32|b64 d[|p], a, membermask: among the lanes that execute it within
    the lane's membermask."""
    t = type_of(instr)
    mode = instr.parts[2]
    dests = [s.strip() for s in instr.operands[0].split("|")]
    a = operand(instr.operands[1], t, env)
    members = _members(instr, env, 2)

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        v = np.broadcast_to(np.asarray(a(ch)), m.shape).reshape(-1, 32)
        sel = members(ch, m)
        same = (v[:, :, None] == v[:, None, :]) & sel
        masks = (same.astype(np.uint64) * _LANE_BITS).sum(axis=2)
        if mode == "all":
            allsame = masks == (sel.astype(np.uint64) * _LANE_BITS).sum(axis=2)
            out = np.where(allsame, masks, 0)
            pred = allsame
        else:
            out, pred = masks, np.ones(masks.shape, dtype=bool)
        ch.write(dests[0], out.reshape(-1).astype(np.uint32), m, full)
        if len(dests) > 1:
            ch.write(dests[1], pred.reshape(-1), m, full)

    return run


def build_activemask(instr: Instr, env: Env) -> Op:
    d = _dst(instr)

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        ch.write(d, _ballot(m.reshape(-1, 32)), m, full)

    return run


def build_elect(instr: Instr, env: Env) -> Op:
    """elect.sync d|p, membermask (PTX ISA 8.0, sm_90): one leader among the active lanes the
    mask names, the lowest; d is the leader's lane id in every lane ('_' discards it), p is
    true in the leader alone."""
    dests = [p.strip() for p in instr.operands[0].split("|")]
    member = operand(instr.operands[1], "u32", env)

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        bits = np.broadcast_to(np.asarray(dense(member(ch)), dtype=np.uint32), m.shape)
        lane = np.broadcast_to(ch.special["%laneid"], m.shape).astype(np.uint32)
        rows = (((bits >> lane) & np.uint32(1)).astype(bool) & m).reshape(-1, 32)
        found = rows.any(axis=1)
        leader = np.repeat(np.where(found, rows.argmax(axis=1), 0).astype(np.uint32), 32)
        if dests[0] != "_":
            ch.write(dests[0], leader, m, full)
        if len(dests) > 1 and dests[1] != "_":
            ch.write(dests[1], (lane == leader) & np.repeat(found, 32), m, full)

    return run


def build_bfind(instr: Instr, env: Env) -> Op:
    t = type_of(instr)
    d = _dst(instr)
    a = operand(instr.operands[1], t, env)
    width = 8 * NP[t].itemsize
    shiftamt = "shiftamt" in instr.parts

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        x = np.broadcast_to(np.asarray(a(ch)), m.shape)
        v = np.where(x < 0, ~x, x).astype(np.uint64) if NP[t].kind == "i" else x.astype(np.uint64)
        pos = np.full(m.shape, -1, dtype=np.int64)
        for i in range(width):
            pos = np.where((v >> np.uint64(i)) & np.uint64(1), i, pos)
        out = np.where(pos < 0, 0xFFFFFFFF, (width - 1 - pos) if shiftamt else pos)
        ch.write(d, out.astype(np.uint32), m, full)

    return run


def _packed_half(fn: Callable[..., Any], arity: int) -> Callable[[Instr, Env], Op]:
    """f16x2 arithmetic: each 32-bit register holds two IEEE halves, operated on separately."""

    def build(instr: Instr, env: Env) -> Op:
        if "bf16x2" in instr.parts:
            raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: bfloat16 is not emulated")
        d = _dst(instr)
        srcs = [operand(o, "b32", env) for o in instr.operands[1 : 1 + arity]]

        def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
            halves = [
                np.ascontiguousarray(np.broadcast_to(np.asarray(s(ch), dtype=np.uint32), m.shape)).view(np.float16)
                for s in srcs
            ]
            with np.errstate(all="ignore"):
                out = np.asarray(fn(*halves), dtype=np.float16)
            ch.write(d, np.ascontiguousarray(out).view(np.uint32), m, full)

        return run

    return build


def _half_fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """fma.rn for halves: the float64 a*b+c is exact for binary16 inputs; one rounding."""
    return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float16)


PACKED_HALF = {
    "add": _packed_half(np.add, 2),
    "sub": _packed_half(np.subtract, 2),
    "mul": _packed_half(np.multiply, 2),
    "fma": _packed_half(_half_fma, 3),
    "neg": _packed_half(np.negative, 1),
    "abs": _packed_half(np.abs, 1),
    "min": _packed_half(np.fmin, 2),
    "max": _packed_half(np.fmax, 2),
}


def build_vote(instr: Instr, env: Env) -> Op:
    """vote[.sync].{ballot,any,all,uni}: with .sync, each lane votes over the lanes of its own
    membermask only (_takers), so a ballot under a lane's `%lanemask_lt` is its exclusive prefix
    (HeCBench bscan)."""
    mode = instr.parts[2] if instr.parts[1] == "sync" else instr.parts[1]
    d = _dst(instr)
    p = operand(instr.operands[1], "pred", env)
    takers = _takers(instr, env, 2)

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        among = takers(ch, m)
        votes = _ballot(np.broadcast_to(np.asarray(p(ch)), m.shape).reshape(-1, 32)) & among
        if mode == "ballot":
            ch.write(d, votes, m, full)
            return
        if mode == "any":
            r = votes != 0
        elif mode == "all":
            r = votes == among
        else:  # uni
            r = (votes == among) | (votes == 0)
        ch.write(d, r, m, full)

    return run


BUILDERS: dict[str, Callable[[Instr, Env], Op]] = {
    "add": _binary(np.add),
    "sub": _binary(np.subtract),
    "mul": build_mul,
    "mul24": build_mul,
    "mad": build_mad,
    "fma": build_mad,
    "mad24": build_mad,
    "div": build_div,
    "rem": lambda i, e: build_div(i, e, rem=True),
    "min": build_minmax,
    "max": build_minmax,
    "abs": build_unary,
    "neg": build_unary,
    "not": build_unary,
    "cnot": build_unary,
    "popc": build_unary,
    "clz": build_unary,
    "brev": build_unary,
    "rcp": build_unary,
    "sqrt": build_unary,
    "rsqrt": build_unary,
    "ex2": build_unary,
    "lg2": build_unary,
    "sin": build_unary,
    "cos": build_unary,
    "tanh": build_unary,
    "and": build_logic,
    "or": build_logic,
    "xor": build_logic,
    "shl": build_shift,
    "shr": build_shift,
    "setp": build_setp,
    "set": build_set,
    "dp4a": build_dp4a,
    "selp": build_selp,
    "mov": build_mov,
    "cvt": build_cvt,
    "cvta": build_cvta,
    "bfe": build_bfe,
    "bfi": build_bfi,
    "bmsk": build_bmsk,
    "prmt": build_prmt,
    "lop3": build_lop3,
    "vabsdiff4": build_vabsdiff,
    "vabsdiff2": build_vabsdiff,
    "shfl": build_shfl,
    "vote": build_vote,
    "redux": build_redux,
    "shf": build_shf,
    "match": build_match,
    "activemask": build_activemask,
    "elect": build_elect,
    "bfind": build_bfind,
    "copysign": _binary(lambda a, b: np.copysign(b, a)),
}

# Opcodes that are no-ops for a sequential-consistent simulation of one launch.
NOOPS = (
    "membar",
    "fence",
    "bar.warp",
    "prefetch",
    "prefetchu",
    "pmevent",
    "nanosleep",
    "discard",
    "applypriority",
    "createpolicy",
    # programmatic dependent launch: `.wait` waits for the grids this one depends on, which the
    # engine has always finished (it runs launches one after another); `.launch_dependents` only
    # lets the next grid start early
    "griddepcontrol",
)


# Flops Nsight Compute counts for one PTX instruction that ptxas expands into a sequence, per
# thread on normal operands (the fast path; a slow path for denormals, infinities or overflow is
# not counted): measured on an H100 (sm_90) by benchmarks/hw/sass_flops_on_gpu.py, raw files in
# benchmarks/hw/sass_flops_h100/ (FFMA/DFMA 2, FADD/FMUL/DADD/DMUL 1; div.rn.f64 includes one
# FFMA of its own). Keyed by opcode, rounding or approximation, type; .ftz counts the same
# except where listed. Forms measured as 0 (ex2/lg2/rsqrt/tanh.approx, sqrt.approx) are absent.
SASS_FLOPS: dict[tuple[str, str, str], int] = {
    ("div", "rn", "f32"): 10,  # MUFU.RCP + 5 FFMA
    ("div", "full", "f32"): 1,  # MUFU.RCP + FMUL
    ("div", "approx", "f32"): 1,
    ("rcp", "rn", "f32"): 5,  # 2 FFMA + FADD
    ("rcp", "approx", "f32"): 2,  # denormal scaling FMULs; .ftz: none (below)
    ("sqrt", "rn", "f32"): 6,  # MUFU.RSQ + 2 FFMA + 2 FMUL
    ("sin", "approx", "f32"): 1,  # range reduction FMUL before MUFU.SIN
    ("cos", "approx", "f32"): 1,
    ("div", "rn", "f64"): 17,  # 7 DFMA + DMUL, and an FFMA
    ("rcp", "rn", "f64"): 10,  # 5 DFMA
    ("sqrt", "rn", "f64"): 13,  # 5 DFMA + 3 DMUL
    ("rsqrt", "approx", "f64"): 8,  # 3 DFMA + 2 DMUL
}
_SASS_FLOPS_FTZ_NONE = {("rcp", "approx", "f32")}  # .ftz drops the denormal scaling


def flop_weight(instr: Instr) -> tuple[str | None, int]:
    """(instruction kind, flops per thread) as Nsight Compute counts them: FADD/FMUL 1, FFMA 2,
    and the same for double (smsp__sass_thread_inst_executed_op_{f,d}{add,mul,fma}); an
    instruction ptxas expands into FFMA/FMUL sequences (division, sqrt, reciprocal) counts the
    sequence's flops (SASS_FLOPS)."""
    try:
        t = type_of(instr)
    except CudaSyntaxError:
        return None, 0
    if t not in ("f32", "f64"):
        return None, 0
    kind = "fp32" if t == "f32" else "fp64"
    if instr.base in ("add", "sub", "mul"):
        return kind, 1
    if instr.base in ("fma", "mad"):
        return kind, 2
    mode = next((m for m in ("rn", "full", "approx") if m in instr.parts), "")
    key = (instr.base, mode, t)
    if key in _SASS_FLOPS_FTZ_NONE and "ftz" in instr.parts:
        return kind, 0
    # a division fused with the add it fed (contract.py): its FMUL became an FFMA, one flop more
    fused = 1 if instr.base == "div" and "fma" in instr.parts else 0
    return kind, SASS_FLOPS.get(key, 0) + fused


def active_warps(m: np.ndarray) -> int:
    return int(warps_with(m).sum())
