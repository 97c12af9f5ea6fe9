"""The state and helpers every part of the C-subset compiler shares, typed in one place.

KernelCompiler (compiler.py) is this state plus three parts, each a class of its own module
(statements, expressions, calls); each part derives from CompilerState, so a type checker sees
the fields and the methods one part calls in another (declared here, defined in that part).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pycparser import c_ast

from perfcalc.sim import counters as C
from perfcalc.sim.csubset import ctype as T
from perfcalc.sim.csubset.context import ChunkContext
from perfcalc.sim.csubset.ctypes_struct import VECTOR_TYPES, StructType, make_struct
from perfcalc.sim.csubset.frontend import ParsedSource
from perfcalc.sim.csubset.ir import ConstantDecl, E, FuncInfo, MemSym, SharedDecl, ValueType, Var

Symbol = Var | MemSym
Stmt = Callable[[ChunkContext], object]


class CompilerState:
    """Scopes, declarations, per-line counters and error helpers of one kernel's compilation."""

    def __init__(self, parsed: ParsedSource, iteration_cap: int):
        self.p = parsed
        self.iteration_cap = iteration_cap
        self.nslots = 0
        self.nmem = 0
        self.scopes: list[dict[str, Symbol]] = [{}]
        self.structs: dict[str, StructType] = dict(VECTOR_TYPES)
        self.functions: dict[str, FuncInfo] = {}
        self.shared: list[SharedDecl] = []
        self.constants: list[ConstantDecl] = []
        self.site_counts: dict[int, list[int]] = {}
        self.call_stack: list[str] = []
        self.func_ret: list[T.CType | StructType | None] = []
        self.loop_depth = 0

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

    def lookup(self, name: str) -> Symbol | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    # ---- types -----------------------------------------------------------------------
    def base_type(self, node: c_ast.Node) -> T.CType | StructType | None:
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
                    raise self.unsupported(
                        "struct member that is not a scalar", d, "only int/float/double-like members"
                    )
                mt = self.base_type(d.type.type)
                if not isinstance(mt, T.CType):
                    raise self.unsupported("nested struct member", d)
                members.append((d.name, mt))
            st = make_struct(node.name or "struct", members)
            if node.name:
                self.structs[node.name] = st
            return st
        raise self.unsupported(type(node).__name__, node)

    # ---- defined by the parts (compile_exprs.py, compile_stmts.py, compiler.py) --------------
    if TYPE_CHECKING:  # signatures only: at run time the parts' own methods are found

        def expr(self, n: c_ast.Node) -> E: ...

        def truth(self, n: c_ast.Node) -> E: ...

        def _arith(self, e: E, n: c_ast.Node) -> E: ...

        def x_ArrayRef(self, n: c_ast.ArrayRef, fld: str | None = None, outer: c_ast.Node | None = None) -> E: ...

        def _resolve_store(self, target: c_ast.Node) -> tuple[MemSym, E, str | None, ValueType]: ...

        def block(self, node: c_ast.Node | None, new_scope: bool = True) -> Stmt: ...

        def _shared_decl(self, d: c_ast.Decl, file_scope: bool = False) -> None: ...
