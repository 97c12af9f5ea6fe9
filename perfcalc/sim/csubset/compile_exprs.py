"""Expressions: literals, variables, thread indices, array and struct accesses, casts,
unary/binary/logical/ternary operators and assignments, each typed statically by C's rules
(ctype.py) and compiled into a closure; `&&`, `||` and `?:` evaluate an operand only on the
lanes that reach it."""

from __future__ import annotations

import numpy as np
from pycparser import c_ast

from perfcalc.sim import counters as C
from perfcalc.sim.csubset import ctype as T
from perfcalc.sim.csubset.compiler_state import CompilerState
from perfcalc.sim.csubset.context import ChunkContext
from perfcalc.sim.csubset.ctypes_struct import StructType
from perfcalc.sim.csubset.ir import (
    E,
    MemSym,
    ValueType,
    Var,
    c_divmod,
    cast,
    char_value,
    const_index,
    index_combine,
    member_fn,
    slot_fn,
    to_index,
    type_name,
)
from perfcalc.sim.csubset.memories import global_array, readable, with_structs, writable
from perfcalc.sim.separable import Value, dense


class ExpressionsMixin(CompilerState):
    """KernelCompiler's expression part."""

    def truth(self, n: c_ast.Node) -> E:
        e = self.expr(n)
        if not isinstance(e.t, T.CType):
            raise self.err("condition must be arithmetic", n)
        return cast(e, T.BOOL)

    def expr(self, n: c_ast.Node) -> E:
        meth = getattr(self, "x_" + type(n).__name__, None)
        if meth is None:
            raise self.unsupported(type(n).__name__, n)
        return meth(n)

    def x_Constant(self, n: c_ast.Constant) -> E:
        text = n.value
        if n.type in ("char",):
            v = char_value(text)
            if v is None:
                raise self.unsupported(f"character constant {text}", n)
            s = np.int32(v)
            return E(T.INT, lambda ctx: s, s)
        if n.type == "string":
            raise self.unsupported("string literal", n)
        if n.type in ("float", "double", "long double"):
            body = text.rstrip("fFlL")
            ct = T.FLOAT if text[-1] in "fF" else T.DOUBLE
            s = ct.dtype.type(float.fromhex(body) if "p" in body.lower() else float(body))
            return E(ct, lambda ctx: s, s)
        value, ct = T.integer_literal_type(text)
        s = ct.scalar(value)
        return E(ct, lambda ctx: s, s)

    def x_ID(self, n: c_ast.ID) -> E:
        name = n.name
        if name == "warpSize":
            s = np.int32(32)
            return E(T.INT, lambda ctx: s, s)
        if name in ("true", "false") and self.lookup(name) is None:
            b = np.bool_(name == "true")  # C++/CUDA bool literals
            return E(T.BOOL, lambda ctx: b, b)
        sym = self.lookup(name)
        if sym is None:
            if name in ("threadIdx", "blockIdx", "blockDim", "gridDim"):
                raise self.err(f"'{name}' must be used with .x, .y or .z", n)
            raise self.err(f"'{name}' is not declared", n)
        if isinstance(sym, Var):
            slot = sym.slot
            return E(sym.t, lambda ctx: ctx.slots[slot])
        if isinstance(sym, MemSym) and sym.kind == "shared_scalar":
            return self._mem_load(sym, const_index(0), n, None, sym.elem)
        raise self.unsupported(f"'{name}' used as a value", n, "arrays and pointers can only be indexed")

    def x_StructRef(self, n: c_ast.StructRef) -> E:
        if n.type == "->":
            raise self.unsupported("->", n, "pointer member access")
        fld = n.field.name
        if (
            isinstance(n.name, c_ast.ID)
            and n.name.name in ("threadIdx", "blockIdx", "blockDim", "gridDim")
            and self.lookup(n.name.name) is None
        ):
            if fld not in ("x", "y", "z"):
                raise self.err(f"'{n.name.name}' has no member '{fld}'", n.field)
            axis = "xyz".index(fld)
            which = n.name.name
            if which == "threadIdx":
                return E(T.UINT, lambda ctx: ctx.tid_xyz[axis])
            if which == "blockIdx":
                return E(T.UINT, lambda ctx: ctx.bid_xyz[axis])
            if which == "blockDim":
                return E(T.UINT, lambda ctx: ctx.block_dim[axis])
            return E(T.UINT, lambda ctx: ctx.grid_dim[axis])
        if isinstance(n.name, c_ast.ArrayRef):
            return self.x_ArrayRef(n.name, fld, n)
        base = self.expr(n.name)
        if not isinstance(base.t, StructType):
            raise self.err(f"member '{fld}' of a non-struct value", n)
        info = base.t.field(fld)
        if info is None:
            raise self.err(f"'{base.t.name}' has no member '{fld}'", n.field)
        bf = base.f
        return E(info[0], lambda ctx: bf(ctx)[fld], None, base.pure)

    def _array_target(self, n: c_ast.ArrayRef) -> tuple[MemSym, E]:
        """The memory symbol and the linear element index (int64) of an ArrayRef chain."""
        subs = []
        node: c_ast.Node = n
        while isinstance(node, c_ast.ArrayRef):
            subs.append(node.subscript)
            node = node.name
        subs.reverse()
        if not isinstance(node, c_ast.ID):
            raise self.unsupported("indexing of an expression", n)
        sym = self.lookup(node.name)
        if not isinstance(sym, MemSym) or sym.kind == "shared_scalar":
            raise self.err(f"'{node.name}' is not an array or pointer", node)
        dims: tuple[int | None, ...] = sym.dims if sym.kind in ("shared", "constant") and sym.dims else (None,)
        if len(subs) != len(dims):
            raise self.unsupported(
                f"{len(subs)} subscript(s) on '{sym.name}'",
                n,
                f"it has {len(dims)} dimension(s); index every dimension",
            )
        idx: E | None = None
        for k, s in enumerate(subs):
            e = self.expr(s)
            if not isinstance(e.t, T.CType) or e.t.is_float:
                raise self.err("array subscript is not an integer", s)
            e = to_index(e)
            if idx is None:
                idx = e
            else:
                dim = dims[k]
                assert dim is not None  # only a pointer has an unknown extent, and it has one dimension
                idx = index_combine(idx, dim, e)
        assert idx is not None
        return sym, idx

    def x_ArrayRef(self, n: c_ast.ArrayRef, fld: str | None = None, outer: c_ast.Node | None = None) -> E:
        sym, idx = self._array_target(n)
        elem = sym.elem
        if fld is not None:
            if not isinstance(elem, StructType):
                raise self.err(f"member '{fld}' of a non-struct element", outer or n)
            info = elem.field(fld)
            if info is None:
                raise self.err(f"'{elem.name}' has no member '{fld}'", outer or n)
            return self._mem_load(sym, idx, outer or n, fld, info[0])
        return self._mem_load(sym, idx, n, None, elem)

    def _mem_load(self, sym: MemSym, idx: E, n: c_ast.Node, fld: str | None, t: ValueType) -> E:
        """Read one element (or one member, or a whole struct) of an array in memory."""
        counts = self.counts(n)
        key = sym.key
        line = n.coord.line
        idf = idx.f
        if isinstance(t, StructType):
            elem = t

            def load(ctx: ChunkContext) -> Value:
                return with_structs(ctx.mems[key]).load_struct(ctx, idf(ctx), elem, line, counts)

        else:

            def load(ctx: ChunkContext) -> Value:
                return readable(ctx.mems[key]).load(ctx, idf(ctx), fld, line, counts)

        return E(t, load, None, False)

    def x_Cast(self, n: c_ast.Cast) -> E:
        tn = n.to_type.type
        if not isinstance(tn, c_ast.TypeDecl):
            raise self.unsupported("pointer cast", n)
        t = self.base_type(tn.type)
        if not isinstance(t, T.CType):
            raise self.unsupported("cast to a non-arithmetic type", n)
        e = self.expr(n.expr)
        if not isinstance(e.t, T.CType):
            raise self.err("cast of a struct value", n)
        return cast(e, t)

    def x_UnaryOp(self, n: c_ast.UnaryOp) -> E:
        op = n.op
        if op == "sizeof":
            if isinstance(n.expr, c_ast.Typename):
                t = self.base_type(n.expr.type.type) if isinstance(n.expr.type, c_ast.TypeDecl) else None
                if t is None:
                    raise self.unsupported("sizeof of this type", n)
            else:
                t = self.expr(n.expr).t
            size = 4 if t is T.BOOL else t.size  # type: ignore[union-attr]
            s = np.uint64(size)
            return E(T.ULONG, lambda ctx: s, s)
        if op in ("++", "--", "p++", "p--"):
            return self._incdec(n)
        if op == "&":
            raise self.unsupported("&", n, "address-of is only supported as atomicAdd(&a[i], v)")
        if op == "*":
            raise self.unsupported("*", n, "pointer dereference; index the pointer instead")
        e = self.expr(n.expr)
        if not isinstance(e.t, T.CType):
            raise self.err(f"operator {op} on a struct", n)
        if op == "!":
            b = cast(e, T.BOOL)
            if b.const is not None:
                v = np.bool_(not b.const)
                return E(T.BOOL, lambda ctx: v, v)
            bf = b.f
            return E(T.BOOL, lambda ctx: ~bf(ctx), None, b.pure)
        t = T.promote(e.t) if e.t is not T.BOOL else T.INT
        if op == "~" and t.is_float:
            raise self.err("operator ~ on a floating-point value", n)
        e = cast(e, t)
        if op == "+":
            return e
        ufunc = np.negative if op == "-" else np.invert
        if e.const is not None:
            with np.errstate(all="ignore"):
                v = ufunc(e.const)
            return E(t, lambda ctx: v, v)
        f = e.f
        return E(t, lambda ctx: ufunc(f(ctx)), None, e.pure)

    def _incdec(self, n: c_ast.UnaryOp) -> E:
        target = n.expr
        one = self.expr(c_ast.Constant("int", "1", n.coord))
        op = "+" if "+" in n.op else "-"
        post = n.op.startswith("p")
        return self._update(target, op, one, n, post=post)

    def x_Assignment(self, n: c_ast.Assignment) -> E:
        if n.op == "=":
            value = self.expr(n.rvalue)
            return self._store(n.lvalue, value, n)
        op = n.op[:-1]
        return self._update(n.lvalue, op, self.expr(n.rvalue), n, post=False)

    def _update(self, target: c_ast.Node, op: str, rhs: E, n: c_ast.Node, post: bool) -> E:
        """`target op= rhs` (and ++/--): read, combine in C's types, convert back, store."""
        if isinstance(target, c_ast.ID):
            sym = self.lookup(target.name)
            if isinstance(sym, Var) and isinstance(sym.t, T.CType):
                cur = E(sym.t, slot_fn(sym.slot))
                new = cast(self.binop(op, cur, rhs, n), sym.t)
                return self._assign_var(sym, new, cur if post else None)
        if isinstance(target, (c_ast.ArrayRef, c_ast.ID)) or (
            isinstance(target, c_ast.StructRef) and isinstance(target.name, c_ast.ArrayRef)
        ):
            return self._mem_update(target, op, rhs, n, post)
        if isinstance(target, c_ast.StructRef) and target.type == "." and isinstance(target.name, c_ast.ID):
            sym = self.lookup(target.name.name)
            if isinstance(sym, Var) and isinstance(sym.t, StructType):
                fld = target.field.name
                info = sym.t.field(fld)
                if info is None:
                    raise self.err(f"'{sym.t.name}' has no member '{fld}'", target.field)
                cur = E(info[0], member_fn(sym.slot, fld))
                new = cast(self.binop(op, cur, rhs, n), info[0])
                assign = self._assign_struct_field(sym, fld, new)
                if not post:
                    return assign
                af, cf = assign.f, cur.f

                def post_update(ctx: ChunkContext) -> Value:
                    old = cf(ctx)
                    af(ctx)
                    return old

                return E(info[0], post_update, None, False)
        if isinstance(target, c_ast.StructRef):
            raise self.unsupported("compound assignment to this member", n)
        raise self.err("expression is not assignable", target)

    def _assign_var(self, sym: Var, value: E, ret: E | None = None) -> E:
        slot = sym.slot
        vf = value.f
        rf = ret.f if ret is not None else None

        def assign(ctx: ChunkContext) -> Value:
            old = rf(ctx) if rf is not None else None
            v = vf(ctx)
            m = ctx.mask.arr
            if m is None:
                ctx.slots[slot] = v
            else:
                v = np.where(m, v, ctx.slots[slot])
                ctx.slots[slot] = v
            return v if rf is None else old

        return E(sym.t, assign, None, False)

    def _resolve_store(self, target: c_ast.Node) -> tuple[MemSym, E, str | None, ValueType]:
        fld = None
        node = target
        if isinstance(target, c_ast.StructRef):
            fld = target.field.name
            node = target.name
        if isinstance(node, c_ast.ID):
            sym = self.lookup(node.name)
            if isinstance(sym, MemSym) and sym.kind == "shared_scalar":
                return sym, const_index(0), None, sym.elem
            raise self.err(f"'{node.name}' is not assignable", node)
        sym, idx = self._array_target(node)
        if sym.kind == "constant" or sym.readonly:
            raise self.err(f"'{sym.name}' is read-only (const or __constant__)", target)
        t = sym.elem
        if fld is not None:
            member = t.field(fld) if isinstance(t, StructType) else None
            if member is None:
                raise self.err(f"no member '{fld}'", target)
            t = member[0]
        return sym, idx, fld, t

    def _mem_update(self, target: c_ast.Node, op: str, rhs: E, n: c_ast.Node, post: bool) -> E:
        sym, idx, fld, t = self._resolve_store(target)
        if not isinstance(t, T.CType):
            raise self.unsupported("compound assignment to a struct", n)
        holder: dict[str, Value] = {}
        cur = E(t, lambda ctx: holder["old"], None, False)
        new = cast(self.binop(op, cur, rhs, n), t)
        counts = self.counts(n)
        key = sym.key
        line = n.coord.line
        idf = idx.f
        nf = new.f

        def update(ctx: ChunkContext) -> Value:
            mem = writable(ctx.mems[key])
            i = idf(ctx)
            holder["old"] = old = mem.load(ctx, i, fld, line, counts)
            v = nf(ctx)
            mem.store(ctx, i, v, fld, line, counts)
            return old if post else v

        return E(t, update, None, False)

    def _store(self, target: c_ast.Node, value: E, n: c_ast.Node) -> E:
        if isinstance(target, c_ast.StructRef) and target.type == "->":
            raise self.unsupported("->", target, "pointer member access")
        if isinstance(target, c_ast.ID):
            sym = self.lookup(target.name)
            if isinstance(sym, Var):
                if isinstance(sym.t, StructType):
                    if value.t is not sym.t:
                        raise self.err(f"cannot assign a {type_name(value.t)} to a {sym.t.name}", n)
                    return self._assign_struct_var(sym, value)
                return self._assign_var(sym, cast(self._arith(value, n), sym.t))
        if isinstance(target, c_ast.StructRef) and not isinstance(target.name, c_ast.ArrayRef):
            base = target.name
            if isinstance(base, c_ast.ID):
                sym = self.lookup(base.name)
                if isinstance(sym, Var) and isinstance(sym.t, StructType):
                    info = sym.t.field(target.field.name)
                    if info is None:
                        raise self.err(f"no member '{target.field.name}'", target)
                    return self._assign_struct_field(sym, target.field.name, cast(self._arith(value, n), info[0]))
            raise self.unsupported("assignment to this member", target)
        sym, idx, fld, t = self._resolve_store(target)
        counts = self.counts(n)
        key = sym.key
        line = n.coord.line
        idf = idx.f
        if isinstance(t, StructType):
            if value.t is not t:
                raise self.err(f"cannot assign a {type_name(value.t)} to a {t.name}", n)
            vf = value.f
            whole = t

            def put(ctx: ChunkContext, i: Value, v: Value) -> None:
                global_array(ctx.mems[key]).store_struct(ctx, i, v, whole, line, counts)

        else:
            vf = cast(self._arith(value, n), t).f

            def put(ctx: ChunkContext, i: Value, v: Value) -> None:
                writable(ctx.mems[key]).store(ctx, i, v, fld, line, counts)

        def store(ctx: ChunkContext) -> Value:
            i = idf(ctx)
            v = vf(ctx)
            put(ctx, i, v)
            return v

        return E(t, store, None, False)

    def _assign_struct_var(self, sym: Var, value: E) -> E:
        slot = sym.slot
        vf = value.f

        def assign(ctx: ChunkContext) -> Value:
            v = vf(ctx)
            m = ctx.mask.arr
            if m is None:
                ctx.slots[slot] = dict(v)
            else:
                old = ctx.slots[slot]
                ctx.slots[slot] = {k: np.where(m, v[k], old[k]) for k in v}
            return v

        return E(sym.t, assign, None, False)

    def _assign_struct_field(self, sym: Var, fld: str, value: E) -> E:
        slot = sym.slot
        vf = value.f

        def assign(ctx: ChunkContext) -> Value:
            v = vf(ctx)
            m = ctx.mask.arr
            cur = dict(ctx.slots[slot])
            cur[fld] = v if m is None else np.where(m, v, cur[fld])
            ctx.slots[slot] = cur
            return v

        return E(value.t, assign, None, False)

    def _arith(self, e: E, n: c_ast.Node) -> E:
        if not isinstance(e.t, T.CType):
            raise self.err(f"a {type_name(e.t)} value where a number is needed", n)
        return e

    def x_BinaryOp(self, n: c_ast.BinaryOp) -> E:
        op = n.op
        if op in ("&&", "||"):
            return self._logical(n)
        a = self._arith(self.expr(n.left), n.left)
        b = self._arith(self.expr(n.right), n.right)
        return self.binop(op, a, b, n)

    def binop(self, op: str, a: E, b: E, n: c_ast.Node) -> E:
        counts = self.counts(n)
        if op in ("<<", ">>"):
            if a.t.is_float or b.t.is_float:  # type: ignore[union-attr]
                raise self.err(f"operator {op} on a floating-point value", n)
            t = T.promote(a.t)  # type: ignore[arg-type]
            a, b = cast(a, t), cast(b, t)
            ufunc: np.ufunc = np.left_shift if op == "<<" else np.right_shift
            if b.const is not None:
                if not 0 <= int(b.const) < 8 * t.size:
                    raise self.err(
                        f"shift count {int(b.const)} is outside 0..{8 * t.size - 1} (undefined behaviour in C)", n
                    )
                return self._ufunc2(ufunc, a, b, t, t, counts, "int")
            return self._checked_shift(ufunc, a, b, t, n, counts)
        t = T.usual_arithmetic(a.t, b.t)  # type: ignore[arg-type]
        a, b = cast(a, t), cast(b, t)
        kind = ("fp64" if t is T.DOUBLE else "fp32") if t.is_float else "int"
        if op in ("+", "-", "*"):
            ufunc = {"+": np.add, "-": np.subtract, "*": np.multiply}[op]
            return self._ufunc2(ufunc, a, b, t, t, counts, kind, flop=t.is_float)
        if op in ("<", ">", "<=", ">=", "==", "!="):
            ufunc = {
                "<": np.less,
                ">": np.greater,
                "<=": np.less_equal,
                ">=": np.greater_equal,
                "==": np.equal,
                "!=": np.not_equal,
            }[op]
            return self._ufunc2(ufunc, a, b, t, T.BOOL, counts, kind)
        if op in ("&", "|", "^"):
            if t.is_float:
                raise self.err(f"operator {op} on a floating-point value", n)
            ufunc = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}[op]
            return self._ufunc2(ufunc, a, b, t, t, counts, kind)
        if op in ("/", "%"):
            if t.is_float:
                if op == "%":
                    raise self.err("operator % on a floating-point value (use fmodf)", n)
                return self._ufunc2(np.true_divide, a, b, t, t, counts, kind)
            return self._int_divide(op, a, b, t, n, counts)
        raise self.unsupported(op, n)

    def _ufunc2(
        self, ufunc: np.ufunc, a: E, b: E, t: T.CType, rt: T.CType, counts: list[int], kind: str, flop: bool = False
    ) -> E:
        if a.const is not None and b.const is not None:
            with np.errstate(all="ignore"):
                v = ufunc(a.const, b.const)
            return E(rt, lambda ctx: v, v)
        af, bf = a.f, b.f
        kslot = C.instruction_slot(kind)
        if flop:
            fl = C.FLOPS

            def f_flop(ctx: ChunkContext) -> Value:
                r = ufunc(af(ctx), bf(ctx))
                m = ctx.mask
                counts[fl] += m.nact
                counts[kslot] += m.nwarps
                return r

            return E(rt, f_flop, None, a.pure and b.pure)

        def f_op(ctx: ChunkContext) -> Value:
            r = ufunc(af(ctx), bf(ctx))
            counts[kslot] += ctx.mask.nwarps
            return r

        return E(rt, f_op, None, a.pure and b.pure)

    def _checked_shift(self, ufunc: np.ufunc, a: E, b: E, t: T.CType, n: c_ast.Node, counts: list[int]) -> E:
        """A shift by a run-time count: counts outside 0..width-1 are a fault (C: undefined;
        NumPy silently gives 0, execution.md §2.5)."""
        af, bf = a.f, b.f
        width = 8 * t.size
        line = n.coord.line
        kslot = C.instruction_slot("int")

        def shift(ctx: ChunkContext) -> Value:
            x = af(ctx)
            y = bf(ctx)
            counts[kslot] += ctx.mask.nwarps
            lane = ctx.first_active((y < 0) | (y >= width) if t.signed else (y >= width))
            if lane is not None:
                shifts = dense(y)  # a separable count (row + column part) as one array
                count = int(shifts[lane] if isinstance(shifts, np.ndarray) else shifts)
                raise ctx.fault(
                    "shift_out_of_range",
                    line,
                    lane,
                    f"Shift count {count} outside 0..{width - 1} (undefined behaviour in C)",
                )
            return ufunc(x, y)

        return E(t, shift, None, False)

    def _int_divide(self, op: str, a: E, b: E, t: T.CType, n: c_ast.Node, counts: list[int]) -> E:
        signed = t.signed
        if b.const is not None and int(b.const) == 0 and a.const is not None:
            raise self.err("division by zero in a constant expression", n)
        if a.const is not None and b.const is not None:
            v = c_divmod(op, a.const, b.const, signed)
            return E(t, lambda ctx: v, v)
        af, bf = a.f, b.f
        line = n.coord.line
        # a constant divisor compiles to a multiply and shifts; a variable one to a sequence
        kslot = C.instruction_slot("int" if b.const is not None else "int_divide")
        one = t.dtype.type(1)
        zero = t.dtype.type(0)
        imin = np.iinfo(t.dtype).min if signed else 0
        minus_one = t.dtype.type(-1) if signed else zero

        def div(ctx: ChunkContext) -> Value:
            x = af(ctx)
            y = dense(bf(ctx))
            counts[kslot] += ctx.mask.nwarps
            lane = ctx.first_active(y == zero)
            if lane is not None:
                what = "division" if op == "/" else "remainder"
                raise ctx.fault("division_by_zero", line, lane, f"Integer {what} by zero (undefined behaviour in C)")
            if isinstance(y, np.ndarray):
                y = np.where(y == zero, one, y) if ctx.mask.arr is not None else y
            elif y == zero:
                return x
            if signed and op == "/":
                lane = ctx.first_active((x == imin) & (y == minus_one))
                if lane is not None:
                    raise ctx.fault(
                        "integer_overflow", line, lane, f"Integer overflow: {imin} / -1 (undefined behaviour in C)"
                    )
            return c_divmod(op, x, y, signed)

        return E(t, div, None, False)

    def _logical(self, n: c_ast.BinaryOp) -> E:
        a = self.truth(n.left)
        b = self.truth(n.right)
        is_and = n.op == "&&"
        if a.const is not None:
            if bool(a.const) == (not is_and):
                v = np.bool_(not is_and)
                return E(T.BOOL, lambda ctx: v, v)
            return b
        af, bf = a.f, b.f
        if b.pure:
            op = np.logical_and if is_and else np.logical_or
            return E(T.BOOL, lambda ctx: op(af(ctx), bf(ctx)), None, a.pure)

        def logical(ctx: ChunkContext) -> Value:
            va = af(ctx)
            if not isinstance(va, np.ndarray):
                if bool(va) == (not is_and):
                    return va
                return bf(ctx)
            m = ctx.mask
            need = va if is_and else ~va
            sub = ctx.make_mask(need if m.arr is None else need & m.arr)
            if sub.nact == 0:
                return va
            ctx.mask = sub
            try:
                vb = bf(ctx)
            finally:
                ctx.mask = m
            return (va & vb) if is_and else (va | vb)

        return E(T.BOOL, logical, None, False)

    def x_TernaryOp(self, n: c_ast.TernaryOp) -> E:
        c = self.truth(n.cond)
        x = self.expr(n.iftrue)
        y = self.expr(n.iffalse)
        if isinstance(x.t, T.CType) and isinstance(y.t, T.CType):
            t: ValueType | None = T.usual_arithmetic(x.t, y.t)
            x, y = cast(x, t), cast(y, t)
        elif x.t is not y.t:
            raise self.err("?: operands of different types", n)
        else:
            t = x.t
        if c.const is not None:
            return x if c.const else y
        cf, xf, yf = c.f, x.f, y.f
        if x.pure and y.pure:  # both sides evaluated for every lane, then selected per lane
            return E(t, lambda ctx: _select(cf(ctx), xf(ctx), yf(ctx)), None, c.pure)

        def ternary(ctx: ChunkContext) -> Value:
            cv = cf(ctx)
            if not isinstance(cv, np.ndarray):
                return xf(ctx) if cv else yf(ctx)
            m = ctx.mask
            ta = cv if m.arr is None else cv & m.arr
            fa = ~cv if m.arr is None else m.arr & ~cv
            mt, mf = ctx.make_mask(ta), ctx.make_mask(fa)
            xv = yv = None
            try:
                if mt.nact:
                    ctx.mask = mt
                    xv = xf(ctx)
                if mf.nact:
                    ctx.mask = mf
                    yv = yf(ctx)
            finally:
                ctx.mask = m
            if yv is None:
                return xv
            if xv is None:
                return yv
            return _select(cv, xv, yv)

        return E(t, ternary, None, False)

    def x_ExprList(self, n: c_ast.ExprList) -> E:
        es = [self.expr(x) for x in n.exprs]
        fs = [e.f for e in es]

        def seq(ctx: ChunkContext) -> Value:
            v = None
            for f in fs:
                v = f(ctx)
            return v

        return E(es[-1].t, seq, None, all(e.pure for e in es))


def _select(cond: Value, xv: Value, yv: Value) -> Value:
    """cond ? x : y per lane; a struct value (a dict of fields) is selected field by field (a
    whole-dict np.where made an object array of field names)."""
    if isinstance(xv, dict) and isinstance(yv, dict):
        return {k: np.where(cond, xv[k], yv[k]) for k in xv}
    return np.where(cond, xv, yv)
