"""The compiled form shared by the compiler's parts: typed expressions (E), symbols, the
compiled kernel, and the C conversion/division helpers every part uses."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np
from pycparser import c_ast

from perfcalc.sim.csubset import ctype as T
from perfcalc.sim.csubset.context import ChunkContext
from perfcalc.sim.csubset.ctypes_struct import StructType
from perfcalc.sim.separable import Value

ValueType: TypeAlias = T.CType | StructType
"""The C type of a value: a scalar type or a struct (vector types included)."""
Fn = Callable[[ChunkContext], Value]


@dataclass
class E:
    """A compiled expression: C type (None: void), evaluator, compile-time constant (or None),
    purity. `const` is a NumPy scalar of the type's dtype where the value is known at compile
    time."""

    t: ValueType | None
    f: Fn
    const: Any = None
    pure: bool = True  # no memory access, no side effect, cannot fault


@dataclass
class Var:
    slot: int
    t: ValueType


@dataclass
class MemSym:
    """A global pointer parameter, a shared array or a constant array."""

    kind: str  # "global" | "shared" | "constant"
    name: str
    key: int
    elem: ValueType
    dims: tuple[int, ...] = ()
    readonly: bool = False


@dataclass
class SharedDecl:
    name: str
    key: int
    elem: T.CType
    dims: tuple[int, ...]  # () for extern (sized at launch)
    extern: bool
    line: int


@dataclass
class ConstantDecl:
    name: str
    key: int
    elem: ValueType
    length: int
    init: list[Any] | None  # the initialiser's values (numbers, or per-member tuples of a struct)
    line: int


@dataclass
class ParamInfo:
    name: str
    kind: str  # "pointer" | "scalar"
    t: ValueType
    readonly: bool
    slot_or_key: int


@dataclass
class CompiledKernel:
    name: str
    params: list[ParamInfo]
    shared: list[SharedDecl]
    constants: list[ConstantDecl]
    nslots: int
    nmem: int
    body: Callable[[ChunkContext], object]  # a statement (what it returns is not used)
    site_counts: dict[int, list[int]] = field(default_factory=dict)
    line: int = 0


class FuncInfo:
    def __init__(self, node: c_ast.FuncDef, ret: ValueType | None, kind: str):
        self.node = node
        self.ret = ret
        self.kind = kind


def constant_fn(v: Any) -> Fn:
    """An evaluator that returns `v` in every chunk (a compile-time constant)."""
    return lambda ctx: v


def slot_fn(slot: int) -> Fn:
    """An evaluator that reads a variable's slot."""
    return lambda ctx: ctx.slots[slot]


def member_fn(slot: int, member: str) -> Fn:
    """An evaluator that reads one member of a struct variable's slot."""
    return lambda ctx: ctx.slots[slot][member]


def cast(e: E, to: ValueType | None) -> E:
    """Convert `e` to type `to` (C conversion; NumPy astype truncates float->int like C)."""
    if e.t is to or not isinstance(to, T.CType):
        return e
    if not isinstance(e.t, T.CType):
        raise TypeError("struct conversion")
    dt = to.dtype
    if e.const is not None:
        v = _convert_const(e.const, e.t, to)
        return E(to, constant_fn(v), v, True)
    if to is T.BOOL:
        zero = e.t.dtype.type(0)
        f = e.f
        return E(to, lambda ctx: f(ctx) != zero, None, e.pure)
    f = e.f
    return E(to, lambda ctx: f(ctx).astype(dt), None, e.pure)


def _convert_const(v: Any, frm: T.CType, to: T.CType) -> Any:
    with np.errstate(all="ignore"):
        if to is T.BOOL:
            return np.bool_(v != 0)
        if to.is_float or frm.is_integer or frm is T.BOOL:
            if to.is_integer and not to.is_float:
                return to.scalar(int(v))
            return to.dtype.type(v)
        return np.asarray(v).astype(to.dtype)[()]


def type_name(t: ValueType | None) -> str:
    if isinstance(t, T.CType):
        return t.name
    if isinstance(t, StructType):
        return t.name
    return "void"


def char_value(text: str) -> int | None:
    body = text[1:-1]
    escapes = {"\\n": 10, "\\t": 9, "\\0": 0, "\\\\": 92, "\\'": 39, '\\"': 34, "\\r": 13}
    if len(body) == 1:
        return ord(body)
    return escapes.get(body)


def const_index(i: int) -> E:
    s = np.int64(i)
    return E(T.LONG, lambda ctx: s, s)


def to_index(e: E) -> E:
    """An integer subscript as int64, keeping its C value (unsigned stays non-negative)."""
    t = e.t
    assert isinstance(t, T.CType)
    if e.const is not None:
        v = np.int64(int(e.const))
        return E(T.LONG, lambda ctx: v, v)
    if t.dtype == np.int64:
        return e
    f = e.f  # uint64 values >= 2**63 turn negative here, and fail the bounds check
    return E(T.LONG, lambda ctx: f(ctx).astype(np.int64), None, e.pure)


def index_combine(outer: E, dim: int, inner: E) -> E:
    d = np.int64(dim)
    if outer.const is not None and inner.const is not None:
        v = np.int64(outer.const * d + inner.const)
        return E(T.LONG, lambda ctx: v, v)
    of, inf = outer.f, inner.f
    return E(T.LONG, lambda ctx: of(ctx) * d + inf(ctx), None, outer.pure and inner.pure)


def c_divmod(op: str, x: Value, y: Value, signed: bool) -> Value:
    """C's truncating `/` and `%` (execution.md §2.5: NumPy's // floors)."""
    with np.errstate(all="ignore"):
        if not signed:
            return x // y if op == "/" else x % y
        r = np.fmod(x, y)
        if op == "%":
            return r
        return (x - r) // y
