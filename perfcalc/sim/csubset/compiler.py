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

This module holds the driver (types, file scope, declarations of shared/constant memory, the
kernel's parameters); the statement, expression and call parts are mixins in compile_stmts.py,
compile_exprs.py and compile_calls.py, and the compiled form is in ir.py.
"""

from __future__ import annotations

from pycparser import c_ast

from perfcalc.sim.csubset import ctype as T
from perfcalc.sim.csubset.compile_calls import CallsMixin
from perfcalc.sim.csubset.compile_exprs import ExpressionsMixin
from perfcalc.sim.csubset.compile_stmts import StatementsMixin
from perfcalc.sim.csubset.ctypes_struct import VECTOR_TYPES, StructType
from perfcalc.sim.csubset.frontend import ParsedSource
from perfcalc.sim.csubset.ir import (
    CompiledKernel,
    ConstantDecl,
    FuncInfo,
    MemSym,
    ParamInfo,
    SharedDecl,
    ValueType,
    Var,
)


class KernelCompiler(StatementsMixin, ExpressionsMixin, CallsMixin):
    """Compiles one __global__ function (and the __device__ functions it calls)."""

    def __init__(self, parsed: ParsedSource, kernel_name: str | None, iteration_cap: int):
        super().__init__(parsed, iteration_cap)
        self._collect_file_scope()
        kernels = sorted(n for n, f in self.functions.items() if f.kind == "global")
        if kernel_name is None:  # the file's only kernel, as the PTX engine does
            from perfcalc.errors import InputError

            if len(kernels) != 1:
                raise InputError(
                    f"{parsed.source_name} has {len(kernels)} __global__ functions"
                    f"{' (' + ', '.join(kernels) + ')' if kernels else ''}: name the one to run"
                )
            kernel_name = kernels[0]
        if kernel_name not in self.functions or self.functions[kernel_name].kind != "global":
            from perfcalc.errors import InputError

            raise InputError(
                f"kernel '{kernel_name}' not found in {parsed.source_name}: the __global__ "
                f"functions there are {', '.join(kernels) if kernels else 'none'}"
            )
        self.kernel = self.functions[kernel_name]

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
                    raise self.unsupported(f"typedef {ext.name}", ext, "only struct typedefs are supported")
            elif isinstance(ext, c_ast.FuncDef):
                decl = ext.decl
                storage = decl.storage or []
                if "extern" in storage:
                    kind = "global"
                elif "static" in storage:
                    kind = "device"
                else:
                    raise self.unsupported(
                        f"host function {decl.name}()", decl, "only __global__ and __device__ functions are simulated"
                    )
                if not isinstance(decl.type.type, c_ast.TypeDecl):
                    raise self.unsupported("function returning a pointer", decl)
                ret = self.base_type(decl.type.type.type)
                if kind == "global" and ret is not None:
                    raise self.err(f"__global__ function '{decl.name}' must return void", decl)
                self.functions[decl.name] = FuncInfo(ext, ret, kind)
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
            if elem is None:
                raise self.unsupported("__constant__ array of void", d)
            if len(dims) != 1:
                if not dims:
                    raise self.unsupported("scalar __constant__ variable", d, "declare a 1-element __constant__ array")
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
            raise self.unsupported(f"__device__ variable {d.name}", d, "pass the data as a kernel argument")
        raise self.unsupported(
            f"file-scope variable {d.name}", d, "only __constant__ and __shared__ arrays are simulated"
        )

    def _array_shape(self, t: c_ast.Node, d: c_ast.Node) -> tuple[ValueType | None, tuple[int, ...]]:
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
            if (
                isinstance(pd.type, c_ast.TypeDecl)
                and isinstance(pd.type.type, c_ast.IdentifierType)
                and pd.type.type.names == ["void"]
                and pd.name is None
            ):
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
        return CompiledKernel(
            fdef.decl.name,
            params,
            self.shared,
            self.constants,
            self.nslots,
            self.nmem,
            body,
            self.site_counts,
            fdef.decl.coord.line,
        )
