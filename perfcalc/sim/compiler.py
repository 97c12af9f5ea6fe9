"""Compile the pycparser AST of one kernel into Python closures over NumPy lane arrays.

Why closures: the AST is walked once; each statement then costs one Python call per execution
for *all* lanes of a chunk (execution.md §2.3: interpretation overhead is per statement, not per
thread). Values are either a typed NumPy scalar (uniform over the chunk: loop counters,
blockDim, scalar parameters, constants) or a lane array; NumPy broadcasting mixes them, and
uniform loop conditions need no mask work at all.

C semantics (execution.md §2.5, §4.2) are decided statically here: every expression has a C type
(ctype.py), both operands are cast to the usual-arithmetic type before the NumPy call, integer
`/` truncates and `%` takes the dividend's sign, integer division by zero is a fault, literals
are typed by value and suffix, `&&`/`||`/`?:` evaluate their operands only on the lanes that
reach them, assignments touch active lanes only. Divergence follows execution.md §4.2's mask
rules (if/else, loops, break, continue, return; reconvergence at the end of the construct).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from pycparser import c_ast

from perfcalc.sim import counters as C
from perfcalc.sim import ctype as T
from perfcalc.sim.context import ChunkContext, FunctionFrame, LoopFrame
from perfcalc.sim.ctypes_struct import VECTOR_TYPES, StructType, make_struct
from perfcalc.sim.frontend import ParsedSource
from perfcalc.sim.separable import dense

Fn = Callable[[ChunkContext], object]

_MATH_FLOAT = {
    "sqrtf": np.sqrt, "expf": np.exp, "__expf": np.exp, "logf": np.log, "__logf": np.log,
    "fabsf": np.abs, "floorf": np.floor, "ceilf": np.ceil, "sinf": np.sin, "cosf": np.cos,
    "tanhf": np.tanh, "exp2f": np.exp2, "log2f": np.log2, "truncf": np.trunc,
}
_MATH_DOUBLE = {
    "sqrt": np.sqrt, "exp": np.exp, "log": np.log, "fabs": np.abs, "floor": np.floor,
    "ceil": np.ceil, "sin": np.sin, "cos": np.cos, "tanh": np.tanh, "exp2": np.exp2,
    "log2": np.log2, "trunc": np.trunc,
}
_MATH2 = {"fminf": (np.fmin, T.FLOAT), "fmaxf": (np.fmax, T.FLOAT), "fmin": (np.fmin, T.DOUBLE),
          "fmax": (np.fmax, T.DOUBLE), "powf": (np.power, T.FLOAT), "pow": (np.power, T.DOUBLE),
          "__fdividef": (np.divide, T.FLOAT)}


@dataclass
class E:
    """A compiled expression: C type, evaluator, compile-time constant (or None), purity."""

    t: object  # T.CType | StructType
    f: Fn
    const: object = None
    pure: bool = True  # no memory access, no side effect, cannot fault


@dataclass
class Var:
    slot: int
    t: object


@dataclass
class MemSym:
    """A global pointer parameter, a shared array or a constant array."""

    kind: str  # "global" | "shared" | "constant"
    name: str
    key: int
    elem: object  # T.CType | StructType
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
    elem: object
    length: int
    init: list[object] | None
    line: int


@dataclass
class ParamInfo:
    name: str
    kind: str  # "pointer" | "scalar"
    t: object
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
    body: Callable[[ChunkContext], None]
    site_counts: dict[int, list[int]] = field(default_factory=dict)
    line: int = 0


class _FuncInfo:
    def __init__(self, node: c_ast.FuncDef, ret: object, kind: str):
        self.node = node
        self.ret = ret
        self.kind = kind


def _is_float(t: object) -> bool:
    return isinstance(t, T.CType) and t.is_float


def _cast(e: E, to: object) -> E:
    """Convert `e` to type `to` (C conversion; NumPy astype truncates float->int like C)."""
    if e.t is to or not isinstance(to, T.CType):
        return e
    if not isinstance(e.t, T.CType):
        raise TypeError("struct conversion")
    dt = to.dtype
    if e.const is not None:
        v = _convert_const(e.const, e.t, to)
        return E(to, lambda ctx, v=v: v, v, True)
    if to is T.BOOL:
        zero = e.t.dtype.type(0)
        f = e.f
        return E(to, lambda ctx: f(ctx) != zero, None, e.pure)
    f = e.f
    return E(to, lambda ctx: f(ctx).astype(dt), None, e.pure)


def _convert_const(v: object, frm: T.CType, to: T.CType) -> object:
    with np.errstate(all="ignore"):
        if to is T.BOOL:
            return np.bool_(v != 0)
        if to.is_float or frm.is_integer or frm is T.BOOL:
            if to.is_integer and not to.is_float:
                return to.scalar(int(v))
            return to.dtype.type(v)
        return np.asarray(v).astype(to.dtype)[()]


class KernelCompiler:
    """Compiles one __global__ function (and the __device__ functions it calls)."""

    def __init__(self, parsed: ParsedSource, kernel_name: str, iteration_cap: int):
        self.p = parsed
        self.iteration_cap = iteration_cap
        self.nslots = 0
        self.nmem = 0
        self.scopes: list[dict[str, object]] = [{}]
        self.structs: dict[str, StructType] = dict(VECTOR_TYPES)
        self.functions: dict[str, _FuncInfo] = {}
        self.shared: list[SharedDecl] = []
        self.constants: list[ConstantDecl] = []
        self.site_counts: dict[int, list[int]] = {}
        self.call_stack: list[str] = []
        self.func_ret: list[object] = []
        self.loop_depth = 0
        self._collect_file_scope()
        if kernel_name not in self.functions or self.functions[kernel_name].kind != "global":
            kernels = sorted(n for n, f in self.functions.items() if f.kind == "global")
            from perfcalc.errors import InputError

            raise InputError(
                f"kernel '{kernel_name}' not found in {parsed.source_name}: the __global__ "
                f"functions there are {', '.join(kernels) if kernels else 'none'}")
        self.kernel = self.functions[kernel_name]

    # ---- helpers ---------------------------------------------------------------------
    def err(self, msg: str, node: c_ast.Node) -> Exception:
        return self.p.error(msg, node.coord)

    def unsupported(self, what: str, node: c_ast.Node, why: str = "") -> Exception:
        return self.err(f"unsupported construct '{what}'" + (f" ({why})" if why else ""), node)

    def counts(self, node: c_ast.Node) -> list[int]:
        line = node.coord.line if node.coord is not None else 0
        if line not in self.site_counts:
            self.site_counts[line] = C.new_site_counts()
        return self.site_counts[line]

    def new_slot(self) -> int:
        self.nslots += 1
        return self.nslots - 1

    def lookup(self, name: str) -> object | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    # ---- types -----------------------------------------------------------------------
    def base_type(self, node: c_ast.Node) -> object:
        """The type named by a TypeDecl's inner node (IdentifierType or Struct)."""
        if isinstance(node, c_ast.IdentifierType):
            ct = T.ctype_from_names(node.names)
            if ct is not None:
                return ct
            if node.names == ["void"]:
                return None
            if len(node.names) == 1 and node.names[0] in self.structs:
                return self.structs[node.names[0]]
            raise self.unsupported(" ".join(node.names), node, "unknown type")
        if isinstance(node, c_ast.Struct):
            if node.decls is None:
                if node.name in self.structs:
                    return self.structs[node.name]
                raise self.err(f"unknown struct '{node.name}'", node)
            members = []
            for d in node.decls:
                if not isinstance(d.type, c_ast.TypeDecl):
                    raise self.unsupported("struct member that is not a scalar", d,
                                           "only int/float/double-like members")
                mt = self.base_type(d.type.type)
                if not isinstance(mt, T.CType):
                    raise self.unsupported("nested struct member", d)
                members.append((d.name, mt))
            st = make_struct(node.name or "struct", members)
            if node.name:
                self.structs[node.name] = st
            return st
        raise self.unsupported(type(node).__name__, node)

    # ---- file scope --------------------------------------------------------------------
    def _collect_file_scope(self) -> None:
        seen_prelude: set[str] = set()
        for ext in self.p.ast.ext:
            if isinstance(ext, c_ast.Typedef):
                if ext.name in VECTOR_TYPES or ext.name in ("size_t", "bool"):
                    if ext.name not in seen_prelude:
                        seen_prelude.add(ext.name)
                        continue
                    raise self.err(f"redefinition of CUDA type '{ext.name}'", ext)
                if not isinstance(ext.type, c_ast.TypeDecl):
                    raise self.unsupported("typedef of a pointer or array", ext)
                t = self.base_type(ext.type.type)
                if isinstance(t, StructType):
                    self.structs[ext.name] = t
                else:
                    raise self.unsupported(f"typedef {ext.name}", ext,
                                           "only struct typedefs are supported")
            elif isinstance(ext, c_ast.FuncDef):
                decl = ext.decl
                storage = decl.storage or []
                if "extern" in storage:
                    kind = "global"
                elif "static" in storage:
                    kind = "device"
                else:
                    raise self.unsupported(f"host function {decl.name}()", decl,
                                           "only __global__ and __device__ functions are "
                                           "simulated")
                ret = self.base_type(decl.type.type.type) \
                    if isinstance(decl.type.type, c_ast.TypeDecl) else "pointer"
                if ret == "pointer":
                    raise self.unsupported("function returning a pointer", decl)
                if kind == "global" and ret is not None:
                    raise self.err(f"__global__ function '{decl.name}' must return void", decl)
                self.functions[decl.name] = _FuncInfo(ext, ret, kind)
            elif isinstance(ext, c_ast.Decl):
                self._file_decl(ext)
            elif isinstance(ext, c_ast.Pragma):
                continue
            else:
                raise self.unsupported(type(ext).__name__, ext)

    def _file_decl(self, d: c_ast.Decl) -> None:
        storage = d.storage or []
        if isinstance(d.type, c_ast.FuncDecl):
            return  # a prototype
        if isinstance(d.type, c_ast.Struct) and d.name is None:
            self.base_type(d.type)
            return
        if "register" in storage:  # __constant__
            elem, dims = self._array_shape(d.type, d)
            if len(dims) != 1:
                if not dims:
                    raise self.unsupported("scalar __constant__ variable", d,
                                           "declare a 1-element __constant__ array")
                raise self.unsupported("multi-dimensional __constant__ array", d)
            init = None
            if d.init is not None:
                if not isinstance(d.init, c_ast.InitList):
                    raise self.unsupported("__constant__ initializer", d.init)
                init = [self.expr(x).const for x in d.init.exprs]
                if any(v is None for v in init):
                    raise self.err("__constant__ initializer must be constant", d.init)
            key = self.nmem
            self.nmem += 1
            self.constants.append(ConstantDecl(d.name, key, elem, dims[0], init, d.coord.line))
            self.scopes[0][d.name] = MemSym("constant", d.name, key, elem, dims, True)
            return
        if "auto" in storage:
            self._shared_decl(d, file_scope=True)
            return
        if "static" in storage:
            raise self.unsupported(f"__device__ variable {d.name}", d,
                                   "pass the data as a kernel argument")
        raise self.unsupported(f"file-scope variable {d.name}", d,
                               "only __constant__ and __shared__ arrays are simulated")

    def _array_shape(self, t: c_ast.Node, d: c_ast.Node) -> tuple[object, tuple[int, ...]]:
        dims: list[int] = []
        while isinstance(t, c_ast.ArrayDecl):
            if t.dim is None:
                dims.append(-1)
            else:
                e = self.expr(t.dim)
                if e.const is None or not isinstance(e.t, T.CType) or e.t.is_float:
                    raise self.err("array size must be an integer constant expression", t.dim)
                if int(e.const) <= 0:
                    raise self.err(f"array size {int(e.const)} must be positive", t.dim)
                dims.append(int(e.const))
            t = t.type
        if isinstance(t, c_ast.PtrDecl):
            raise self.unsupported("array of pointers", d)
        return self.base_type(t.type), tuple(dims)

    def _shared_decl(self, d: c_ast.Decl, file_scope: bool = False) -> None:
        storage = d.storage or []
        extern = "extern" in storage
        elem, dims = self._array_shape(d.type, d)
        if not isinstance(elem, T.CType):
            raise self.unsupported("__shared__ array of structs", d)
        if d.init is not None:
            raise self.err("__shared__ variables cannot have an initializer", d)
        if extern:
            if dims != (-1,):
                raise self.unsupported("extern __shared__ other than 'T name[]'", d)
            dims = ()
        elif not dims:
            dims = (1,)  # a scalar __shared__ variable is a 1-element array
            scalar = True
        else:
            scalar = False
            if -1 in dims:
                raise self.err(f"__shared__ array '{d.name}' needs a size (or 'extern')", d)
        key = self.nmem
        self.nmem += 1
        self.shared.append(SharedDecl(d.name, key, elem, dims, extern, d.coord.line))
        sym = MemSym("shared", d.name, key, elem, dims)
        if not extern and scalar:
            sym = MemSym("shared_scalar", d.name, key, elem, dims)
        self.scopes[0 if file_scope else -1][d.name] = sym

    # ---- kernel ----------------------------------------------------------------------
    def compile(self) -> CompiledKernel:
        fdef = self.kernel.node
        params = []
        self.scopes.append({})
        plist = fdef.decl.type.args.params if fdef.decl.type.args else []
        for pd in plist:
            if isinstance(pd, c_ast.EllipsisParam):
                raise self.unsupported("...", pd)
            if isinstance(pd.type, c_ast.TypeDecl) and isinstance(pd.type.type,
                                                                    c_ast.IdentifierType) \
                    and pd.type.type.names == ["void"] and pd.name is None:
                continue
            if isinstance(pd.type, c_ast.PtrDecl):
                inner = pd.type.type
                if not isinstance(inner, c_ast.TypeDecl):
                    raise self.unsupported("pointer to pointer", pd)
                elem = self.base_type(inner.type)
                if elem is None:
                    raise self.unsupported("void* parameter", pd, "give the element type")
                readonly = "const" in (inner.quals or [])
                key = self.nmem
                self.nmem += 1
                self.scopes[-1][pd.name] = MemSym("global", pd.name, key, elem, (), readonly)
                params.append(ParamInfo(pd.name, "pointer", elem, readonly, key))
            elif isinstance(pd.type, c_ast.TypeDecl):
                t = self.base_type(pd.type.type)
                if not isinstance(t, T.CType):
                    raise self.unsupported("struct passed by value", pd)
                slot = self.new_slot()
                self.scopes[-1][pd.name] = Var(slot, t)
                params.append(ParamInfo(pd.name, "scalar", t, False, slot))
            else:
                raise self.unsupported("array parameter", pd, "use a pointer")
        self.call_stack.append(fdef.decl.name)
        self.func_ret.append(None)
        body = self.block(fdef.body, new_scope=False)
        self.scopes.pop()
        return CompiledKernel(fdef.decl.name, params, self.shared, self.constants, self.nslots,
                              self.nmem, body, self.site_counts, fdef.decl.coord.line)

    # ---- statements ------------------------------------------------------------------
    def block(self, node: c_ast.Node | None, new_scope: bool = True) -> Callable:
        if node is None:
            return lambda ctx: None
        items = (node.block_items or []) if isinstance(node, c_ast.Compound) else [node]
        if new_scope:
            self.scopes.append({})
        stmts = [s for s in (self.stmt(i) for i in items) if s is not None]
        if new_scope:
            self.scopes.pop()
        if not stmts:
            return lambda ctx: None
        if len(stmts) == 1:
            return stmts[0]
        stmts_t = tuple(stmts)

        def run_seq(ctx: ChunkContext) -> None:
            for s in stmts_t:
                s(ctx)
                if ctx.mask.nact == 0:
                    return

        return run_seq

    def stmt(self, n: c_ast.Node) -> Callable | None:
        if isinstance(n, c_ast.Compound):
            return self.block(n)
        if isinstance(n, c_ast.Decl):
            return self.decl(n)
        if isinstance(n, c_ast.DeclList):
            fs = [self.decl(d) for d in n.decls]
            fs = [f for f in fs if f is not None]

            def run_decls(ctx: ChunkContext) -> None:
                for f in fs:
                    f(ctx)

            return run_decls
        if isinstance(n, c_ast.If):
            return self.if_stmt(n)
        if isinstance(n, (c_ast.For, c_ast.While, c_ast.DoWhile)):
            return self.loop(n)
        if isinstance(n, c_ast.Break):
            if not self.loop_depth:
                raise self.err("'break' outside a loop", n)
            return _run_break
        if isinstance(n, c_ast.Continue):
            if not self.loop_depth:
                raise self.err("'continue' outside a loop", n)
            return _run_continue
        if isinstance(n, c_ast.Return):
            return self.return_stmt(n)
        if isinstance(n, c_ast.EmptyStatement):
            return None
        if isinstance(n, c_ast.Pragma):
            return None
        if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) \
                and n.name.name == "__syncthreads":
            if n.args is not None and n.args.exprs:
                raise self.err("__syncthreads() takes no arguments", n)
            return self.barrier(n)
        if isinstance(n, (c_ast.Switch, c_ast.Case, c_ast.Default)):
            raise self.unsupported("switch", n, "rewrite it with if/else")
        if isinstance(n, (c_ast.Goto, c_ast.Label)):
            raise self.unsupported("goto", n)
        if isinstance(n, (c_ast.Assignment, c_ast.UnaryOp, c_ast.FuncCall, c_ast.ExprList,
                          c_ast.BinaryOp, c_ast.TernaryOp, c_ast.ID, c_ast.Constant,
                          c_ast.ArrayRef, c_ast.StructRef, c_ast.Cast)):
            e = self.expr(n)
            f = e.f
            return lambda ctx: (f(ctx), None)[1]
        raise self.unsupported(type(n).__name__, n)

    def decl(self, d: c_ast.Decl) -> Callable | None:
        storage = d.storage or []
        if "auto" in storage:
            self._shared_decl(d)
            return None
        if "static" in storage:
            raise self.unsupported(f"__device__ variable {d.name}", d)
        if "register" in storage:
            raise self.unsupported("__constant__ inside a function", d)
        if "extern" in storage:
            raise self.unsupported("extern", d)
        if isinstance(d.type, c_ast.ArrayDecl):
            raise self.unsupported(f"local array {d.name}[]", d,
                                   "per-thread arrays are not simulated; use __shared__")
        if isinstance(d.type, c_ast.PtrDecl):
            raise self.unsupported(f"pointer variable {d.name}", d,
                                   "index the kernel's pointer parameters directly")
        if isinstance(d.type, c_ast.Struct):
            self.base_type(d.type)
            return None
        if not isinstance(d.type, c_ast.TypeDecl):
            raise self.unsupported(type(d.type).__name__, d)
        t = self.base_type(d.type.type)
        if t is None:
            raise self.err(f"variable '{d.name}' declared void", d)
        slot = self.new_slot()
        if isinstance(t, StructType):
            return self._struct_local(d, t, slot)
        init = None
        if d.init is not None:
            if isinstance(d.init, c_ast.InitList):
                raise self.unsupported("initializer list", d.init)
            init = _cast(self.expr(d.init), t)
        self.scopes[-1][d.name] = Var(slot, t)
        zero = t.dtype.type(0)
        if init is None:
            def run_decl0(ctx: ChunkContext) -> None:
                ctx.slots[slot] = zero

            return run_decl0
        f = init.f

        def run_decl(ctx: ChunkContext) -> None:
            # Lanes inactive here never read this instance of the variable (its scope is
            # the rest of this block), so a plain store is exact.
            ctx.slots[slot] = f(ctx)

        return run_decl

    def _struct_local(self, d: c_ast.Decl, t: StructType, slot: int) -> Callable:
        self.scopes[-1][d.name] = Var(slot, t)
        zeros = {fname: ft.dtype.type(0) for fname, ft, _ in t.fields}
        if d.init is None:
            def run_sdecl0(ctx: ChunkContext) -> None:
                ctx.slots[slot] = dict(zeros)

            return run_sdecl0
        if isinstance(d.init, c_ast.InitList):
            vals = [self.expr(x) for x in d.init.exprs]
            if len(vals) > len(t.fields):
                raise self.err("too many initializers", d.init)
            fs = [(fname, _cast(v, ft).f) for (fname, ft, _), v in zip(t.fields, vals, strict=False)]

            def run_sinit(ctx: ChunkContext) -> None:
                val = dict(zeros)
                for fname, f in fs:
                    val[fname] = f(ctx)
                ctx.slots[slot] = val

            return run_sinit
        e = self.expr(d.init)
        if e.t is not t:
            raise self.err(f"cannot initialise a {t.name} from a {_tname(e.t)}", d.init)
        f = e.f

        def run_scopy(ctx: ChunkContext) -> None:
            ctx.slots[slot] = dict(f(ctx))

        return run_scopy

    def if_stmt(self, n: c_ast.If) -> Callable:
        cond = self.truth(n.cond)
        then = self.block(n.iftrue)
        els = self.block(n.iffalse) if n.iffalse is not None else None
        jumps = _has_jump(n.iftrue) or (n.iffalse is not None and _has_jump(n.iffalse))
        counts = self.counts(n)
        div_slot = C.DIVERGENT
        br_slot = C.instruction_slot("branch")
        cf = cond.f

        def run_if(ctx: ChunkContext) -> None:
            c = cf(ctx)
            m = ctx.mask
            counts[br_slot] += m.nwarps
            if not isinstance(c, np.ndarray):
                if c:
                    then(ctx)
                elif els is not None:
                    els(ctx)
                return
            if m.arr is None:
                ta = c
                fa = ~c
            else:
                ta = c & m.arr
                fa = m.arr & ~c
            tw = ta.reshape(-1, 32).any(axis=1)
            fw = fa.reshape(-1, 32).any(axis=1)
            counts[div_slot] += int(np.count_nonzero(tw & fw))
            mt = ctx.make_mask(ta, tw)
            out_t = out_f = ctx.empty
            if mt.nact:
                ctx.mask = mt
                then(ctx)
                out_t = ctx.mask
            if els is not None:
                mf = ctx.make_mask(fa, fw)
                if mf.nact:
                    ctx.mask = mf
                    els(ctx)
                    out_f = ctx.mask
            else:
                out_f = ctx.make_mask(fa, fw) if jumps else ctx.empty
            if not jumps:
                ctx.mask = m
            else:
                ctx.mask = ctx.union(out_t, out_f)

        return run_if

    def loop(self, n: c_ast.Node) -> Callable:
        self.scopes.append({})
        init = None
        nxt = None
        if isinstance(n, c_ast.For):
            if n.init is not None:
                init = self.stmt(n.init)
            cond = self.truth(n.cond) if n.cond is not None else None
            if n.next is not None:
                nxt = self.expr(n.next).f
        else:
            cond = self.truth(n.cond)
        self.loop_depth += 1
        body = self.block(n.stmt)
        self.loop_depth -= 1
        self.scopes.pop()
        has_continue = _has_jump(n.stmt, (c_ast.Continue,))
        has_return = _has_jump(n.stmt, (c_ast.Return,))
        test_first = not isinstance(n, c_ast.DoWhile)
        counts = self.counts(n)
        cap = self.iteration_cap
        line = n.coord.line
        cf = cond.f if cond is not None else None
        div_slot = C.DIVERGENT
        br_slot = C.instruction_slot("branch")

        def run_loop(ctx: ChunkContext) -> None:
            if init is not None:
                init(ctx)
            entry = ctx.mask
            frame = LoopFrame()
            ctx.loops.append(frame)
            lm = entry
            it = 0
            first = True
            while True:
                if cf is not None and (test_first or not first):
                    ctx.mask = lm
                    c = cf(ctx)
                    counts[br_slot] += lm.nwarps
                    if isinstance(c, np.ndarray):
                        ta = c if lm.arr is None else c & lm.arr
                        tw = ta.reshape(-1, 32).any(axis=1)
                        if lm.arr is None:
                            fw = (~c).reshape(-1, 32).any(axis=1)
                        else:
                            fw = (lm.arr & ~c).reshape(-1, 32).any(axis=1)
                        counts[div_slot] += int(np.count_nonzero(tw & fw))
                        lm = ctx.make_mask(ta, tw) if fw.any() else lm
                        if lm.nact == 0:
                            break
                    elif not c:
                        break
                first = False
                it += 1
                if it > cap:
                    lane = ctx.first_lane(ctx.active_arr(lm))
                    ctx.loops.pop()
                    raise ctx.fault("iteration_cap", line, lane,
                                    f"Loop did not finish after {cap} iterations "
                                    "(iteration_cap): the kernel would hang")
                ctx.mask = lm
                frame.continued = None
                body(ctx)
                after = ctx.mask
                if has_continue and frame.continued is not None:
                    after = ctx.union(after, ctx.make_mask(frame.continued))
                if after.nact == 0:
                    break
                ctx.mask = after
                if nxt is not None:
                    nxt(ctx)
                lm = after
            ctx.loops.pop()
            if has_return:
                ctx.mask = ctx.minus(entry, ctx.funcs[-1].returned)
            else:
                ctx.mask = entry

        return run_loop

    def return_stmt(self, n: c_ast.Return) -> Callable:
        ret_t = self.func_ret[-1]
        if n.expr is not None and ret_t is None:
            raise self.err("return with a value in a void function", n)
        if n.expr is None and ret_t is not None:
            raise self.err("return without a value in a non-void function", n)
        vf = _cast(self.expr(n.expr), ret_t).f if n.expr is not None else None

        def run_return(ctx: ChunkContext) -> None:
            frame = ctx.funcs[-1]
            m = ctx.mask
            if vf is not None:
                v = vf(ctx)
                if m.arr is None or frame.value is None:
                    frame.value = v
                else:
                    frame.value = np.where(m.arr, v, frame.value)
            lanes = ctx.active_arr(m)
            frame.returned = lanes.copy() if frame.returned is None else frame.returned | lanes
            ctx.mask = ctx.empty

        return run_return

    def barrier(self, n: c_ast.Node) -> Callable:
        counts = self.counts(n)
        line = n.coord.line
        bar_slot = C.instruction_slot("barrier")

        def run_barrier(ctx: ChunkContext) -> None:
            m = ctx.mask
            counts[bar_slot] += m.nwarps
            ret = ctx.kernel_frame.returned
            if m.arr is None and ret is None:
                counts[C.BARRIERS] += ctx.nblocks
            else:
                live = ctx.active_arr(ctx.full)
                if ret is not None:
                    live = live & ~ret
                act = ctx.active_arr(m)
                a2 = act.reshape(ctx.nblocks, -1)
                l2 = live.reshape(ctx.nblocks, -1)
                reached = a2.any(axis=1)
                partial = reached & (a2 != l2).any(axis=1)
                if partial.any():
                    b = int(np.flatnonzero(partial)[0])
                    missing = np.zeros(ctx.nlanes, dtype=bool)
                    lo = b * ctx.lanes_per_block
                    missing[lo:lo + ctx.lanes_per_block] = l2[b] & ~a2[b]
                    lane = ctx.first_lane(missing)
                    raise ctx.fault(
                        "divergent_barrier", line, lane,
                        f"Barrier error: __syncthreads() reached by {int(a2[b].sum())} of "
                        f"{int(l2[b].sum())} live threads of the block (divergent code); "
                        "this thread did not reach it")
                counts[C.BARRIERS] += int(np.count_nonzero(reached))
            ctx.epoch += 1
            for mem in ctx.shared_arrays:
                mem.barrier()

        return run_barrier

    # ---- expressions -----------------------------------------------------------------
    def truth(self, n: c_ast.Node) -> E:
        e = self.expr(n)
        if not isinstance(e.t, T.CType):
            raise self.err("condition must be arithmetic", n)
        return _cast(e, T.BOOL)

    def expr(self, n: c_ast.Node) -> E:
        meth = getattr(self, "x_" + type(n).__name__, None)
        if meth is None:
            raise self.unsupported(type(n).__name__, n)
        return meth(n)

    def x_Constant(self, n: c_ast.Constant) -> E:
        text = n.value
        if n.type in ("char",):
            v = _char_value(text)
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
            return self._mem_load(sym, _const_index(0), n, None, sym.elem)
        raise self.unsupported(f"'{name}' used as a value", n,
                               "arrays and pointers can only be indexed")

    def x_StructRef(self, n: c_ast.StructRef) -> E:
        if n.type == "->":
            raise self.unsupported("->", n, "pointer member access")
        fld = n.field.name
        if isinstance(n.name, c_ast.ID) and n.name.name in ("threadIdx", "blockIdx",
                                                              "blockDim", "gridDim") \
                and self.lookup(n.name.name) is None:
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
        dims = sym.dims if sym.kind in ("shared", "constant") and sym.dims else (None,)
        if len(subs) != len(dims):
            raise self.unsupported(f"{len(subs)} subscript(s) on '{sym.name}'", n,
                                   f"it has {len(dims)} dimension(s); index every dimension")
        idx: E | None = None
        for k, s in enumerate(subs):
            e = self.expr(s)
            if not isinstance(e.t, T.CType) or e.t.is_float:
                raise self.err("array subscript is not an integer", s)
            e = _to_index(e)
            idx = e if idx is None else _index_combine(idx, dims[k], e)
        assert idx is not None
        return sym, idx

    def x_ArrayRef(self, n: c_ast.ArrayRef, fld: str | None = None,
                   outer: c_ast.Node | None = None) -> E:
        sym, idx = self._array_target(n)
        elem = sym.elem
        if fld is not None:
            if not isinstance(elem, StructType):
                raise self.err(f"member '{fld}' of a non-struct element", outer or n)
            info = elem.field(fld)
            if info is None:
                raise self.err(f"'{elem.name}' has no member '{fld}'", outer or n)
            return self._mem_load(sym, idx, outer or n, fld, info[0])
        if isinstance(elem, StructType):
            return self._struct_load(sym, idx, n)
        return self._mem_load(sym, idx, n, None, elem)

    def _mem_load(self, sym: MemSym, idx: E, n: c_ast.Node, fld: str | None, t: object) -> E:
        counts = self.counts(n)
        key = sym.key
        line = n.coord.line
        idf = idx.f

        def load(ctx: ChunkContext) -> object:
            return ctx.mems[key].load(ctx, idf(ctx), fld, line, counts)

        return E(t, load, None, False)

    def _struct_load(self, sym: MemSym, idx: E, n: c_ast.Node) -> E:
        elem = sym.elem
        assert isinstance(elem, StructType)
        counts = self.counts(n)
        key = sym.key
        line = n.coord.line
        idf = idx.f

        def load(ctx: ChunkContext) -> object:
            return ctx.mems[key].load_struct(ctx, idf(ctx), elem, line, counts)

        return E(elem, load, None, False)

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
        return _cast(e, t)

    def x_UnaryOp(self, n: c_ast.UnaryOp) -> E:
        op = n.op
        if op == "sizeof":
            if isinstance(n.expr, c_ast.Typename):
                t = self.base_type(n.expr.type.type) \
                    if isinstance(n.expr.type, c_ast.TypeDecl) else None
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
            b = _cast(e, T.BOOL)
            if b.const is not None:
                v = np.bool_(not b.const)
                return E(T.BOOL, lambda ctx: v, v)
            bf = b.f
            return E(T.BOOL, lambda ctx: ~bf(ctx), None, b.pure)
        t = T.promote(e.t) if e.t is not T.BOOL else T.INT
        if op == "~" and t.is_float:
            raise self.err("operator ~ on a floating-point value", n)
        e = _cast(e, t)
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
                cur = E(sym.t, lambda ctx, s=sym.slot: ctx.slots[s])
                new = _cast(self.binop(op, cur, rhs, n), sym.t)
                return self._assign_var(sym, new, cur if post else None)
        if isinstance(target, (c_ast.ArrayRef, c_ast.ID)) or (
                isinstance(target, c_ast.StructRef) and isinstance(target.name, c_ast.ArrayRef)):
            return self._mem_update(target, op, rhs, n, post)
        if isinstance(target, c_ast.StructRef):
            raise self.unsupported("compound assignment to a struct member", n)
        raise self.err("expression is not assignable", target)

    def _assign_var(self, sym: Var, value: E, ret: E | None = None) -> E:
        slot = sym.slot
        vf = value.f
        rf = ret.f if ret is not None else None

        def assign(ctx: ChunkContext) -> object:
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

    def _resolve_store(self, target: c_ast.Node) -> tuple[MemSym, E, str | None, object]:
        fld = None
        node = target
        if isinstance(target, c_ast.StructRef):
            fld = target.field.name
            node = target.name
        if isinstance(node, c_ast.ID):
            sym = self.lookup(node.name)
            if isinstance(sym, MemSym) and sym.kind == "shared_scalar":
                return sym, _const_index(0), None, sym.elem
            raise self.err(f"'{node.name}' is not assignable", node)
        sym, idx = self._array_target(node)
        if sym.kind == "constant" or sym.readonly:
            raise self.err(f"'{sym.name}' is read-only (const or __constant__)", target)
        t = sym.elem
        if fld is not None:
            if not isinstance(t, StructType) or t.field(fld) is None:
                raise self.err(f"no member '{fld}'", target)
            t = t.field(fld)[0]  # type: ignore[index]
        return sym, idx, fld, t

    def _mem_update(self, target: c_ast.Node, op: str, rhs: E, n: c_ast.Node,
                    post: bool) -> E:
        sym, idx, fld, t = self._resolve_store(target)
        if not isinstance(t, T.CType):
            raise self.unsupported("compound assignment to a struct", n)
        holder: dict[str, object] = {}
        cur = E(t, lambda ctx: holder["old"], None, False)
        new = _cast(self.binop(op, cur, rhs, n), t)
        counts = self.counts(n)
        key = sym.key
        line = n.coord.line
        idf = idx.f
        nf = new.f

        def update(ctx: ChunkContext) -> object:
            mem = ctx.mems[key]
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
                        raise self.err(f"cannot assign a {_tname(value.t)} to a {sym.t.name}", n)
                    return self._assign_struct_var(sym, value)
                return self._assign_var(sym, _cast(self._arith(value, n), sym.t))
        if isinstance(target, c_ast.StructRef) and not isinstance(target.name, c_ast.ArrayRef):
            base = target.name
            if isinstance(base, c_ast.ID):
                sym = self.lookup(base.name)
                if isinstance(sym, Var) and isinstance(sym.t, StructType):
                    info = sym.t.field(target.field.name)
                    if info is None:
                        raise self.err(f"no member '{target.field.name}'", target)
                    return self._assign_struct_field(sym, target.field.name,
                                                     _cast(self._arith(value, n), info[0]))
            raise self.unsupported("assignment to this member", target)
        sym, idx, fld, t = self._resolve_store(target)
        counts = self.counts(n)
        key = sym.key
        line = n.coord.line
        idf = idx.f
        if isinstance(t, StructType):
            if value.t is not t:
                raise self.err(f"cannot assign a {_tname(value.t)} to a {t.name}", n)
            vf = value.f

            def store_struct(ctx: ChunkContext) -> object:
                i = idf(ctx)
                v = vf(ctx)
                ctx.mems[key].store_struct(ctx, i, v, t, line, counts)
                return v

            return E(t, store_struct, None, False)
        vf = _cast(self._arith(value, n), t).f

        def store(ctx: ChunkContext) -> object:
            i = idf(ctx)
            v = vf(ctx)
            ctx.mems[key].store(ctx, i, v, fld, line, counts)
            return v

        return E(t, store, None, False)

    def _assign_struct_var(self, sym: Var, value: E) -> E:
        slot = sym.slot
        vf = value.f

        def assign(ctx: ChunkContext) -> object:
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

        def assign(ctx: ChunkContext) -> object:
            v = vf(ctx)
            m = ctx.mask.arr
            cur = dict(ctx.slots[slot])
            cur[fld] = v if m is None else np.where(m, v, cur[fld])
            ctx.slots[slot] = cur
            return v

        return E(value.t, assign, None, False)

    def _arith(self, e: E, n: c_ast.Node) -> E:
        if not isinstance(e.t, T.CType):
            raise self.err(f"a {_tname(e.t)} value where a number is needed", n)
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
            a, b = _cast(a, t), _cast(b, t)
            ufunc = np.left_shift if op == "<<" else np.right_shift
            if b.const is not None:
                if not 0 <= int(b.const) < 8 * t.size:
                    raise self.err(f"shift count {int(b.const)} is outside 0..{8 * t.size - 1} "
                                   "(undefined behaviour in C)", n)
                return self._ufunc2(ufunc, a, b, t, t, counts, "int")
            return self._checked_shift(ufunc, a, b, t, n, counts)
        t = T.usual_arithmetic(a.t, b.t)  # type: ignore[arg-type]
        a, b = _cast(a, t), _cast(b, t)
        kind = ("fp64" if t is T.DOUBLE else "fp32") if t.is_float else "int"
        if op in ("+", "-", "*"):
            ufunc = {"+": np.add, "-": np.subtract, "*": np.multiply}[op]
            return self._ufunc2(ufunc, a, b, t, t, counts, kind, flop=t.is_float)
        if op in ("<", ">", "<=", ">=", "==", "!="):
            ufunc = {"<": np.less, ">": np.greater, "<=": np.less_equal,
                     ">=": np.greater_equal, "==": np.equal, "!=": np.not_equal}[op]
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

    def _ufunc2(self, ufunc: np.ufunc, a: E, b: E, t: T.CType, rt: T.CType,
                counts: list[int], kind: str, flop: bool = False) -> E:
        if a.const is not None and b.const is not None:
            with np.errstate(all="ignore"):
                v = ufunc(a.const, b.const)
            return E(rt, lambda ctx: v, v)
        af, bf = a.f, b.f
        kslot = C.instruction_slot(kind)
        if flop:
            fl = C.FLOPS

            def f_flop(ctx: ChunkContext) -> object:
                r = ufunc(af(ctx), bf(ctx))
                m = ctx.mask
                counts[fl] += m.nact
                counts[kslot] += m.nwarps
                return r

            return E(rt, f_flop, None, a.pure and b.pure)

        def f_op(ctx: ChunkContext) -> object:
            r = ufunc(af(ctx), bf(ctx))
            counts[kslot] += ctx.mask.nwarps
            return r

        return E(rt, f_op, None, a.pure and b.pure)

    def _checked_shift(self, ufunc: np.ufunc, a: E, b: E, t: T.CType, n: c_ast.Node,
                       counts: list[int]) -> E:
        """A shift by a run-time count: counts outside 0..width-1 are a fault (C: undefined;
        NumPy silently gives 0, execution.md §2.5)."""
        af, bf = a.f, b.f
        width = 8 * t.size
        line = n.coord.line
        kslot = C.instruction_slot("int")

        def shift(ctx: ChunkContext) -> object:
            x = af(ctx)
            y = bf(ctx)
            counts[kslot] += ctx.mask.nwarps
            bad = (y < 0) | (y >= width) if t.signed else (y >= width)
            if isinstance(bad, np.ndarray):
                if ctx.mask.arr is not None:
                    bad &= ctx.mask.arr
                if bad.any():
                    lane = ctx.first_lane(bad)
                    raise ctx.fault("shift_out_of_range", line, lane,
                                    f"Shift count {int(y[lane])} outside 0..{width - 1} "
                                    "(undefined behaviour in C)")
            elif bad and ctx.mask.nact:
                lane = ctx.first_lane(ctx.active_arr())
                raise ctx.fault("shift_out_of_range", line, lane,
                                f"Shift count {int(y)} outside 0..{width - 1} "
                                "(undefined behaviour in C)")
            return ufunc(x, y)

        return E(t, shift, None, False)

    def _int_divide(self, op: str, a: E, b: E, t: T.CType, n: c_ast.Node,
                    counts: list[int]) -> E:
        signed = t.signed
        if b.const is not None and int(b.const) == 0 and a.const is not None:
            raise self.err("division by zero in a constant expression", n)
        if a.const is not None and b.const is not None:
            v = _c_divmod(op, a.const, b.const, signed)
            return E(t, lambda ctx: v, v)
        af, bf = a.f, b.f
        line = n.coord.line
        kslot = C.instruction_slot("int")
        one = t.dtype.type(1)
        zero = t.dtype.type(0)
        imin = np.iinfo(t.dtype).min if signed else 0
        minus_one = t.dtype.type(-1) if signed else zero

        def div(ctx: ChunkContext) -> object:
            x = af(ctx)
            y = dense(bf(ctx))
            counts[kslot] += ctx.mask.nwarps
            if isinstance(y, np.ndarray):
                z = y == zero
                if ctx.mask.arr is not None:
                    z &= ctx.mask.arr
                if z.any():
                    lane = ctx.first_lane(z)
                    raise ctx.fault("division_by_zero", line, lane,
                                    f"Integer {'division' if op == '/' else 'remainder'} by "
                                    "zero (undefined behaviour in C)")
                y = np.where(y == zero, one, y) if ctx.mask.arr is not None else y
            elif y == zero:
                if ctx.mask.nact:
                    lane = ctx.first_lane(ctx.active_arr())
                    raise ctx.fault("division_by_zero", line, lane,
                                    f"Integer {'division' if op == '/' else 'remainder'} by "
                                    "zero (undefined behaviour in C)")
                return x
            if signed and op == "/":
                ovf = (x == imin) & (y == minus_one)
                if isinstance(ovf, np.ndarray):
                    if ctx.mask.arr is not None:
                        ovf = ovf & ctx.mask.arr
                    if ovf.any():
                        lane = ctx.first_lane(ovf)
                        raise ctx.fault("integer_overflow", line, lane,
                                        f"Integer overflow: {imin} / -1 (undefined behaviour "
                                        "in C)")
                elif ovf and ctx.mask.nact:
                    raise ctx.fault("integer_overflow", line, ctx.first_lane(ctx.active_arr()),
                                    f"Integer overflow: {imin} / -1 (undefined behaviour in C)")
            return _c_divmod(op, x, y, signed)

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

        def logical(ctx: ChunkContext) -> object:
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
            t: object = T.usual_arithmetic(x.t, y.t)
            x, y = _cast(x, t), _cast(y, t)
        elif x.t is not y.t:
            raise self.err("?: operands of different types", n)
        else:
            t = x.t
        if c.const is not None:
            return x if c.const else y
        cf, xf, yf = c.f, x.f, y.f
        if x.pure and y.pure:
            return E(t, lambda ctx: np.where(cf(ctx), xf(ctx), yf(ctx)), None, c.pure)

        def ternary(ctx: ChunkContext) -> object:
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
            if isinstance(t, StructType):
                return {k: np.where(cv, xv[k], yv[k]) for k in xv}  # type: ignore[index]
            return np.where(cv, xv, yv)

        return E(t, ternary, None, False)

    def x_ExprList(self, n: c_ast.ExprList) -> E:
        es = [self.expr(x) for x in n.exprs]
        fs = [e.f for e in es]

        def seq(ctx: ChunkContext) -> object:
            v = None
            for f in fs:
                v = f(ctx)
            return v

        return E(es[-1].t, seq, None, all(e.pure for e in es))

    def x_FuncCall(self, n: c_ast.FuncCall) -> E:
        if not isinstance(n.name, c_ast.ID):
            raise self.unsupported("call through an expression", n)
        name = n.name.name
        args = list(n.args.exprs) if n.args is not None else []
        if name == "__syncthreads":
            raise self.err("__syncthreads() must be a statement of its own", n)
        if name == "__syncwarp":
            return E(None, lambda ctx: None, None, False)  # lockstep: warps are in sync
        if name == "atomicAdd":
            return self._atomic_add(n, args)
        if name == "__ldg":  # read-only data cache load: the same load for the counters
            if len(args) != 1 or not (isinstance(args[0], c_ast.UnaryOp) and args[0].op == "&"
                                      and isinstance(args[0].expr, c_ast.ArrayRef)):
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
            fn = _MATH_FLOAT.get(name) or _MATH_DOUBLE[name]
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
        raise self.unsupported(f"{name}()", n, "not a __device__ function of this source "
                               "nor a supported built-in")

    def _fma(self, n: c_ast.Node, name: str, args: list[E]) -> E:
        """fmaf(a, b, c): one rounding. The float32 product is exact in float64 (24 + 24 bits
        <= 53), so a float64 a*b + c rounded once to float32 differs from a true FMA only by a
        rare double rounding; fma (double) uses NumPy's a*b + c (two roundings). 2 flops."""
        t = T.FLOAT if name == "fmaf" else T.DOUBLE
        fa, fb, fc = (_cast(a, t).f for a in args)
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

    def _call_math(self, fn: Callable, args: list[E], t: T.CType, n: c_ast.Node) -> E:
        cargs = [_cast(a, t) for a in args]
        fs = [a.f for a in cargs]
        counts = self.counts(n)
        kslot = C.instruction_slot("fp64" if t is T.DOUBLE else ("fp32" if t.is_float
                                                                  else "int"))
        dt = t.dtype

        def call(ctx: ChunkContext) -> object:
            r = fn(*[f(ctx) for f in fs])
            counts[kslot] += ctx.mask.nwarps
            return r.astype(dt) if r.dtype != dt else r

        return E(t, call, None, all(a.pure for a in cargs))

    def _atomic_add(self, n: c_ast.FuncCall, args: list[c_ast.Node]) -> E:
        if len(args) != 2 or not (isinstance(args[0], c_ast.UnaryOp) and args[0].op == "&"):
            raise self.unsupported("atomicAdd form", n, "write atomicAdd(&array[index], value)")
        target = args[0].expr
        sym, idx, fld, t = self._resolve_store(target)
        if not isinstance(t, T.CType):
            raise self.unsupported("atomicAdd on a struct", n)
        value = _cast(self._arith(self.expr(args[1]), n), t)
        counts = self.counts(n)
        key = sym.key
        line = n.coord.line
        idf, vf = idx.f, value.f
        aslot = C.instruction_slot("atomic")

        def atomic(ctx: ChunkContext) -> object:
            mem = ctx.mems[key]
            i = idf(ctx)
            v = vf(ctx)
            counts[aslot] += ctx.mask.nwarps
            return mem.atomic_add(ctx, i, v, fld, line)

        return E(t, atomic, None, False)

    def _call(self, n: c_ast.FuncCall, name: str, args: list[c_ast.Node]) -> E:
        info = self.functions[name]
        if info.kind == "global":
            raise self.unsupported(f"call of __global__ function {name}()", n,
                                   "dynamic parallelism")
        if name in self.call_stack:
            raise self.unsupported(f"recursive call of {name}()", n)
        fdecl = info.node.decl.type
        params = fdecl.args.params if fdecl.args else []
        params = [p for p in params if not (isinstance(p.type, c_ast.TypeDecl)
                  and isinstance(p.type.type, c_ast.IdentifierType)
                  and p.type.type.names == ["void"] and p.name is None)]
        if len(params) != len(args):
            raise self.err(f"{name}() takes {len(params)} argument(s), {len(args)} given", n)
        scope: dict[str, object] = {}
        inits = []
        for p, a in zip(params, args, strict=False):
            if isinstance(p.type, c_ast.PtrDecl):
                if not isinstance(a, c_ast.ID) or not isinstance(self.lookup(a.name), MemSym):
                    raise self.unsupported("pointer argument that is not an array name", a)
                scope[p.name] = self.lookup(a.name)
                continue
            if not isinstance(p.type, c_ast.TypeDecl):
                raise self.unsupported("array parameter", p)
            pt = self.base_type(p.type.type)
            e = self.expr(a)
            if isinstance(pt, StructType):
                if e.t is not pt:
                    raise self.err(f"argument of type {_tname(e.t)} for a {pt.name}", a)
            else:
                e = _cast(self._arith(e, a), pt)
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


# ---- statement helpers used by closures -------------------------------------------------
def _run_break(ctx: ChunkContext) -> None:
    ctx.mask = ctx.empty


def _run_continue(ctx: ChunkContext) -> None:
    frame = ctx.loops[-1]
    lanes = ctx.active_arr()
    frame.continued = lanes.copy() if frame.continued is None else frame.continued | lanes
    ctx.mask = ctx.empty


def _has_jump(node: c_ast.Node | None,
              kinds: tuple = (c_ast.Break, c_ast.Continue, c_ast.Return)) -> bool:
    """Whether `node` contains a jump of `kinds` that leaves it: a nested loop owns its break
    and continue, only a return leaves it."""
    if node is None:
        return False
    if isinstance(node, kinds):
        return True
    for _, child in node.children():
        if isinstance(child, (c_ast.For, c_ast.While, c_ast.DoWhile)):
            if c_ast.Return in kinds and _has_jump(child, (c_ast.Return,)):
                return True
            continue
        if _has_jump(child, kinds):
            return True
    return False


def _tname(t: object) -> str:
    if isinstance(t, T.CType):
        return t.name
    if isinstance(t, StructType):
        return t.name
    return "void"


def _char_value(text: str) -> int | None:
    body = text[1:-1]
    escapes = {"\\n": 10, "\\t": 9, "\\0": 0, "\\\\": 92, "\\'": 39, '\\"': 34, "\\r": 13}
    if len(body) == 1:
        return ord(body)
    return escapes.get(body)


def _const_index(i: int) -> E:
    s = np.int64(i)
    return E(T.LONG, lambda ctx: s, s)


def _to_index(e: E) -> E:
    """An integer subscript as int64, keeping its C value (unsigned stays non-negative)."""
    t = e.t
    assert isinstance(t, T.CType)
    if e.const is not None:
        v = np.int64(int(e.const))
        return E(T.LONG, lambda ctx: v, v)
    if t.dtype == np.int64:
        return e
    f = e.f
    if t.dtype == np.uint64:
        return E(T.LONG, lambda ctx: f(ctx).astype(np.int64), None, e.pure)
    return E(T.LONG, lambda ctx: f(ctx).astype(np.int64), None, e.pure)


def _index_combine(outer: E, dim: int, inner: E) -> E:
    d = np.int64(dim)
    if outer.const is not None and inner.const is not None:
        v = np.int64(outer.const * d + inner.const)
        return E(T.LONG, lambda ctx: v, v)
    of, inf = outer.f, inner.f
    return E(T.LONG, lambda ctx: of(ctx) * d + inf(ctx), None, outer.pure and inner.pure)


def _c_divmod(op: str, x: object, y: object, signed: bool) -> object:
    """C's truncating `/` and `%` (execution.md §2.5: NumPy's // floors)."""
    with np.errstate(all="ignore"):
        if not signed:
            return x // y if op == "/" else x % y
        r = np.fmod(x, y)
        if op == "%":
            return r
        return (x - r) // y
