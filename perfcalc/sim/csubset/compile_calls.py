"""Calls: __device__ functions (inlined, with their own return mask), atomicAdd, __ldg,
fmaf and the math built-ins."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from pycparser import c_ast

from perfcalc.sim import counters as C
from perfcalc.sim.csubset import ctype as T
from perfcalc.sim.csubset.compiler_state import CompilerState, Symbol
from perfcalc.sim.csubset.context import ChunkContext, FunctionFrame
from perfcalc.sim.csubset.ctypes_struct import StructType
from perfcalc.sim.csubset.ir import E, MemSym, Var, cast, type_name
from perfcalc.sim.csubset.memories import writable
from perfcalc.sim.separable import Value

_MATH_FLOAT = {
    "sqrtf": np.sqrt,
    "expf": np.exp,
    "__expf": np.exp,
    "logf": np.log,
    "__logf": np.log,
    "fabsf": np.abs,
    "floorf": np.floor,
    "ceilf": np.ceil,
    "sinf": np.sin,
    "cosf": np.cos,
    "tanhf": np.tanh,
    "exp2f": np.exp2,
    "log2f": np.log2,
    "truncf": np.trunc,
}
_MATH_DOUBLE = {
    "sqrt": np.sqrt,
    "exp": np.exp,
    "log": np.log,
    "fabs": np.abs,
    "floor": np.floor,
    "ceil": np.ceil,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "exp2": np.exp2,
    "log2": np.log2,
    "trunc": np.trunc,
}
_MATH2 = {
    "fminf": (np.fmin, T.FLOAT),
    "fmaxf": (np.fmax, T.FLOAT),
    "fmin": (np.fmin, T.DOUBLE),
    "fmax": (np.fmax, T.DOUBLE),
    "powf": (np.power, T.FLOAT),
    "pow": (np.power, T.DOUBLE),
    "__fdividef": (np.divide, T.FLOAT),
}


# CUDA's atomic functions: the machine's operation and the element kinds CUDA declares them for
ATOMICS = {
    "atomicAdd": ("add", ("signed", "unsigned", "float")),
    "atomicSub": ("add", ("signed", "unsigned")),
    "atomicExch": ("exch", ("signed", "unsigned", "float")),
    "atomicMin": ("min", ("signed", "unsigned")),
    "atomicMax": ("max", ("signed", "unsigned")),
    "atomicInc": ("inc", ("unsigned",)),
    "atomicDec": ("dec", ("unsigned",)),
    "atomicCAS": ("cas", ("signed", "unsigned")),
    "atomicAnd": ("and", ("signed", "unsigned")),
    "atomicOr": ("or", ("signed", "unsigned")),
    "atomicXor": ("xor", ("signed", "unsigned")),
}


def _type_decl(t: T.CType) -> c_ast.TypeDecl:
    """A C type name as pycparser spells it in a cast, `(unsigned int)x`."""
    return c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(t.name.split()))


class CallsMixin(CompilerState):
    """KernelCompiler's call part."""

    def x_FuncCall(self, n: c_ast.FuncCall) -> E:
        if not isinstance(n.name, c_ast.ID):
            raise self.unsupported("call through an expression", n)
        name = n.name.name
        args = list(n.args.exprs) if n.args is not None else []
        if name == "__syncthreads":
            raise self.err("__syncthreads() must be a statement of its own", n)
        if name == "__syncwarp":
            return E(None, lambda ctx: None, None, False)  # lockstep: warps are in sync
        if name in ATOMICS:
            return self._atomic(n, name, args)
        if name == "__ldg":  # read-only data cache load: the same load for the counters
            if len(args) != 1 or not (
                isinstance(args[0], c_ast.UnaryOp) and args[0].op == "&" and isinstance(args[0].expr, c_ast.ArrayRef)
            ):
                raise self.unsupported("__ldg form", n, "write __ldg(&array[index])")
            return self.x_ArrayRef(args[0].expr)
        if name in ("fmaf", "fma"):
            if len(args) != 3:
                raise self.err(f"{name}() takes three arguments", n)
            return self._fma(n, name, [self._arith(self.expr(a), n) for a in args])
        if name in self.functions:
            return self._call(n, name, args)
        if name in _MATH_FLOAT or name in _MATH_DOUBLE:
            if len(args) != 1:
                raise self.err(f"{name}() takes one argument", n)
            t = T.FLOAT if name in _MATH_FLOAT else T.DOUBLE
            fn: Callable[..., Value] = _MATH_FLOAT.get(name) or _MATH_DOUBLE[name]
            return self._call_math(fn, [self._arith(self.expr(args[0]), n)], t, n)
        if name in _MATH2:
            fn, t = _MATH2[name]
            if len(args) != 2:
                raise self.err(f"{name}() takes two arguments", n)
            return self._call_math(fn, [self._arith(self.expr(a), n) for a in args], t, n)
        if name in ("min", "max"):
            if len(args) != 2:
                raise self.err(f"{name}() takes two arguments", n)
            a, b = (self._arith(self.expr(x), n) for x in args)
            t = T.usual_arithmetic(a.t, b.t)  # type: ignore[arg-type]
            fn = np.minimum if name == "min" else np.maximum
            return self._call_math(fn, [a, b], t, n)
        if name in ("abs", "rsqrtf"):
            if len(args) != 1:
                raise self.err(f"{name}() takes one argument", n)
            a = self._arith(self.expr(args[0]), n)
            if name == "abs":
                return self._call_math(np.abs, [a], T.promote(a.t), n)  # type: ignore[arg-type]
            return self._call_math(lambda v: np.float32(1) / np.sqrt(v), [a], T.FLOAT, n)
        raise self.unsupported(f"{name}()", n, "not a __device__ function of this source nor a supported built-in")

    def _fma(self, n: c_ast.Node, name: str, args: list[E]) -> E:
        """fmaf(a, b, c): one rounding. The float32 product is exact in float64 (24 + 24 bits
        <= 53), so a float64 a*b + c rounded once to float32 differs from a true FMA only by a
        rare double rounding; fma (double) uses NumPy's a*b + c (two roundings). 2 flops."""
        t = T.FLOAT if name == "fmaf" else T.DOUBLE
        fa, fb, fc = (cast(a, t).f for a in args)
        counts = self.counts(n)
        kslot = C.instruction_slot("fp32" if t is T.FLOAT else "fp64")
        fl = C.FLOPS

        def fma(ctx: ChunkContext) -> object:
            a, b, c = fa(ctx), fb(ctx), fc(ctx)
            m = ctx.mask
            counts[fl] += 2 * m.nact
            counts[kslot] += m.nwarps
            if t is T.FLOAT:
                r = np.multiply(a, b, dtype=np.float64) + np.asarray(c, dtype=np.float64)
                return r.astype(np.float32) if isinstance(r, np.ndarray) else np.float32(r)
            return a * b + c

        return E(t, fma, None, all(a.pure for a in args))

    def _call_math(self, fn: Callable[..., Value], args: list[E], t: T.CType, n: c_ast.Node) -> E:
        cargs = [cast(a, t) for a in args]
        fs = [a.f for a in cargs]
        counts = self.counts(n)
        kslot = C.instruction_slot("fp64" if t is T.DOUBLE else ("fp32" if t.is_float else "int"))
        dt = t.dtype

        def call(ctx: ChunkContext) -> object:
            r = fn(*[f(ctx) for f in fs])
            counts[kslot] += ctx.mask.nwarps
            return r.astype(dt) if r.dtype != dt else r

        return E(t, call, None, all(a.pure for a in cargs))

    def _atomic(self, n: c_ast.FuncCall, name: str, args: list[c_ast.Node]) -> E:
        """atomicAdd/Sub/Exch/Min/Max/Inc/Dec/CAS/And/Or/Xor(&array[index], value[, new]): the
        shared machine's read-modify-write (sim/atomics.py), in thread order."""
        op, kinds = ATOMICS[name]
        wanted = 3 if op == "cas" else 2
        if len(args) != wanted or not (isinstance(args[0], c_ast.UnaryOp) and args[0].op == "&"):
            form = "&array[index], compare, value" if op == "cas" else "&array[index], value"
            raise self.unsupported(f"{name} form", n, f"write {name}({form})")
        sym, idx, fld, t = self._resolve_store(args[0].expr)
        if not isinstance(t, T.CType):
            raise self.unsupported(f"{name} on a struct", n)
        kind = "float" if t.is_float else ("unsigned" if not t.signed else "signed")
        if kind not in kinds:
            raise self.unsupported(f"{name} on {t.name}", n, f"CUDA's {name} takes {' or '.join(kinds)} elements")
        operands = list(args[1:])
        if name == "atomicSub":  # what the compiler writes: an add of the negated value
            operands[0] = c_ast.UnaryOp("-", c_ast.Cast(c_ast.Typename(None, [], None, _type_decl(t)), operands[0]))
        values = [cast(self._arith(self.expr(a), n), t) for a in operands]
        counts = self.counts(n)
        key, line = sym.key, n.coord.line
        idf, vf = idx.f, values[0].f
        cf = values[1].f if len(values) > 1 else None
        aslot = C.instruction_slot("atomic")

        def atomic(ctx: ChunkContext) -> object:
            mem = writable(ctx.mems[key])
            i = idf(ctx)
            v = vf(ctx)
            c = None if cf is None else cf(ctx)
            counts[aslot] += ctx.mask.nwarps
            return mem.atomic(ctx, i, v, c, op, fld, line, counts)

        return E(t, atomic, None, False)

    def _call(self, n: c_ast.FuncCall, name: str, args: list[c_ast.Node]) -> E:
        info = self.functions[name]
        if info.kind == "global":
            raise self.unsupported(f"call of __global__ function {name}()", n, "dynamic parallelism")
        if name in self.call_stack:
            raise self.unsupported(f"recursive call of {name}()", n)
        fdecl = info.node.decl.type
        params = fdecl.args.params if fdecl.args else []
        params = [
            p
            for p in params
            if not (
                isinstance(p.type, c_ast.TypeDecl)
                and isinstance(p.type.type, c_ast.IdentifierType)
                and p.type.type.names == ["void"]
                and p.name is None
            )
        ]
        if len(params) != len(args):
            raise self.err(f"{name}() takes {len(params)} argument(s), {len(args)} given", n)
        scope: dict[str, Symbol] = {}
        inits = []
        for p, a in zip(params, args, strict=False):
            if isinstance(p.type, c_ast.PtrDecl):
                array = self.lookup(a.name) if isinstance(a, c_ast.ID) else None
                if not isinstance(array, MemSym):
                    raise self.unsupported("pointer argument that is not an array name", a)
                scope[p.name] = array
                continue
            if not isinstance(p.type, c_ast.TypeDecl):
                raise self.unsupported("array parameter", p)
            pt = self.base_type(p.type.type)
            if pt is None:
                raise self.unsupported("void parameter", p)
            e = self.expr(a)
            if isinstance(pt, StructType):
                if e.t is not pt:
                    raise self.err(f"argument of type {type_name(e.t)} for a {pt.name}", a)
            else:
                e = cast(self._arith(e, a), pt)
            slot = self.new_slot()
            scope[p.name] = Var(slot, pt)
            inits.append((slot, e.f))
        saved_scopes = self.scopes
        self.scopes = [self.scopes[0], scope]
        self.call_stack.append(name)
        self.func_ret.append(info.ret)
        saved_depth = self.loop_depth
        self.loop_depth = 0
        try:
            body = self.block(info.node.body, new_scope=False)
        finally:
            self.scopes = saved_scopes
            self.call_stack.pop()
            self.func_ret.pop()
            self.loop_depth = saved_depth
        ret = info.ret
        zero = ret.dtype.type(0) if isinstance(ret, T.CType) else None
        counts = self.counts(n)
        cslot = C.instruction_slot("call")

        def call(ctx: ChunkContext) -> object:
            vals = [(s, f(ctx)) for s, f in inits]
            for s, v in vals:
                ctx.slots[s] = v
            counts[cslot] += ctx.mask.nwarps
            entry = ctx.mask
            frame = FunctionFrame(value=zero)
            ctx.funcs.append(frame)
            saved_loops = ctx.loops
            ctx.loops = []
            try:
                body(ctx)
            finally:
                ctx.funcs.pop()
                ctx.loops = saved_loops
                ctx.mask = entry
            return frame.value

        return E(ret, call, None, False)
