"""Statements: blocks, declarations, if/else, loops, return and __syncthreads, compiled into
closures that run all lanes of a chunk under the active mask (execution.md §4.2 rules:
branches run under cond & mask, loops while any lane is active, break/continue/return remove
lanes until the construct they leave ends; reconvergence at the end of each construct)."""

from __future__ import annotations

import numpy as np
from pycparser import c_ast

from perfcalc.limits import past_time_limit, time_limit_seconds
from perfcalc.sim import counters as C
from perfcalc.sim.csubset.compiler_state import CompilerState, Stmt
from perfcalc.sim.csubset.context import ChunkContext, LoopFrame, Mask
from perfcalc.sim.csubset.ctypes_struct import StructType
from perfcalc.sim.csubset.ir import Var, cast, type_name
from perfcalc.sim.safety import FaultSignal


class StatementsMixin(CompilerState):
    """KernelCompiler's statement part (err, counts, scopes... live in compiler_state.py)."""

    def block(self, node: c_ast.Node | None, new_scope: bool = True) -> Stmt:
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

    def stmt(self, n: c_ast.Node) -> Stmt | None:
        if isinstance(n, c_ast.Compound):
            return self.block(n)
        if isinstance(n, c_ast.Decl):
            return self.decl(n)
        if isinstance(n, c_ast.DeclList):
            fs = [f for f in (self.decl(d) for d in n.decls) if f is not None]

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
        if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID) and n.name.name == "__syncthreads":
            if n.args is not None and n.args.exprs:
                raise self.err("__syncthreads() takes no arguments", n)
            return self.barrier(n)
        if isinstance(n, (c_ast.Switch, c_ast.Case, c_ast.Default)):
            raise self.unsupported("switch", n, "rewrite it with if/else")
        if isinstance(n, (c_ast.Goto, c_ast.Label)):
            raise self.unsupported("goto", n)
        if isinstance(
            n,
            (
                c_ast.Assignment,
                c_ast.UnaryOp,
                c_ast.FuncCall,
                c_ast.ExprList,
                c_ast.BinaryOp,
                c_ast.TernaryOp,
                c_ast.ID,
                c_ast.Constant,
                c_ast.ArrayRef,
                c_ast.StructRef,
                c_ast.Cast,
            ),
        ):
            e = self.expr(n)
            f = e.f
            return lambda ctx: (f(ctx), None)[1]
        raise self.unsupported(type(n).__name__, n)

    def decl(self, d: c_ast.Decl) -> Stmt | None:
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
            raise self.unsupported(f"local array {d.name}[]", d, "per-thread arrays are not simulated; use __shared__")
        if isinstance(d.type, c_ast.PtrDecl):
            raise self.unsupported(f"pointer variable {d.name}", d, "index the kernel's pointer parameters directly")
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
            init = cast(self.expr(d.init), t)
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

    def _struct_local(self, d: c_ast.Decl, t: StructType, slot: int) -> Stmt:
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
            fs = [(fname, cast(v, ft).f) for (fname, ft, _), v in zip(t.fields, vals, strict=False)]

            def run_sinit(ctx: ChunkContext) -> None:
                val = dict(zeros)
                for fname, f in fs:
                    val[fname] = f(ctx)
                ctx.slots[slot] = val

            return run_sinit
        e = self.expr(d.init)
        if e.t is not t:
            raise self.err(f"cannot initialise a {t.name} from a {type_name(e.t)}", d.init)
        f = e.f

        def run_scopy(ctx: ChunkContext) -> None:
            ctx.slots[slot] = dict(f(ctx))

        return run_scopy

    def if_stmt(self, n: c_ast.If) -> Stmt:
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

    def loop(self, n: c_ast.Node) -> Stmt:
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
        frozen = self._frozen_condition(n, cond)
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
                if frozen is not None and it == 2:
                    raise _leave_loop(ctx, lm, "endless_loop", line, frozen)
                if it > cap:
                    raise _leave_loop(
                        ctx,
                        lm,
                        "iteration_cap",
                        line,
                        f"Loop did not finish after {cap} iterations (iteration_cap): the kernel would hang",
                    )
                if not it & 63 and past_time_limit():
                    raise _leave_loop(
                        ctx,
                        lm,
                        "time_limit",
                        line,
                        f"Loop still running after {it} iterations when the simulation "
                        f"reached its limit of {time_limit_seconds():g} s "
                        "(--max-seconds): the kernel may never finish, or needs longer (--max-seconds N gives it N s)",
                    )
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

    def _frozen_condition(self, n: c_ast.Node, cond: object) -> str | None:
        """A message when the loop provably never ends (else None): no break or return leaves
        it, and its condition is a pure expression of variables that neither the body nor the
        increment assigns (so each lane's condition never changes), e.g. seed 003's
        `for (...; stride > 1; stride >> 1)`. Checked after the first iteration, so faults
        of that iteration are reported first, as on the GPU."""
        if _has_jump(n.stmt, (c_ast.Break, c_ast.Return)):
            return None
        if cond is None:
            return "Loop can never finish: it has no condition and no break or return (the kernel would hang)"
        if not cond.pure:  # type: ignore[attr-defined]
            return None
        names = sorted(
            {x.name for x in _walk(n.cond) if isinstance(x, c_ast.ID) and isinstance(self.lookup(x.name), Var)}
        )
        changed = _assigned_names(n.stmt) | _assigned_names(getattr(n, "next", None))
        if set(names) & changed:
            return None
        what = ", ".join(names) if names else "nothing that changes"
        return (
            f"Loop can never finish: its condition depends on {what}, which the loop "
            "never assigns, and no break or return leaves it (the kernel would hang)"
        )

    def return_stmt(self, n: c_ast.Return) -> Stmt:
        ret_t = self.func_ret[-1]
        if n.expr is not None and ret_t is None:
            raise self.err("return with a value in a void function", n)
        if n.expr is None and ret_t is not None:
            raise self.err("return without a value in a non-void function", n)
        vf = cast(self.expr(n.expr), ret_t).f if n.expr is not None else None

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

    def barrier(self, n: c_ast.Node) -> Stmt:
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
                    missing[lo : lo + ctx.lanes_per_block] = l2[b] & ~a2[b]
                    lane = ctx.first_lane(missing)
                    raise ctx.fault(
                        "divergent_barrier",
                        line,
                        lane,
                        f"Barrier error: __syncthreads() reached by {int(a2[b].sum())} of "
                        f"{int(l2[b].sum())} live threads of the block (divergent code; the source "
                        "engine cannot tell whether the others exit first, which lets a GPU go on: "
                        "--engine ptx runs it as a GPU does); this thread did not reach it",
                    )
                counts[C.BARRIERS] += int(np.count_nonzero(reached))
            ctx.epoch += 1
            for mem in ctx.shared_arrays:
                mem.barrier()

        return run_barrier


# ---- statement helpers used by closures -------------------------------------------------
def _leave_loop(ctx: ChunkContext, lm: Mask, kind: str, line: int, what: str) -> FaultSignal:
    """The fault that stops a loop which would not end, named at its first active lane; the
    loop's frame is popped first so the fault unwinds cleanly."""
    lane = ctx.first_lane(ctx.active_arr(lm))
    ctx.loops.pop()
    return ctx.fault(kind, line, lane, what)


def _run_break(ctx: ChunkContext) -> None:
    ctx.mask = ctx.empty


def _run_continue(ctx: ChunkContext) -> None:
    frame = ctx.loops[-1]
    lanes = ctx.active_arr()
    frame.continued = lanes.copy() if frame.continued is None else frame.continued | lanes
    ctx.mask = ctx.empty


def _walk(node: c_ast.Node | None) -> list[c_ast.Node]:
    """Every node under `node` (itself included)."""
    if node is None:
        return []
    out = [node]
    for _, child in node.children():
        out.extend(_walk(child))
    return out


def _assigned_names(node: c_ast.Node | None) -> set[str]:
    """Names a statement or expression may write: assignment targets, ++/-- operands and
    declarations (which shadow)."""
    names: set[str] = set()
    for x in _walk(node):
        target = None
        if isinstance(x, c_ast.Assignment):
            target = x.lvalue
        elif isinstance(x, c_ast.UnaryOp) and x.op in ("++", "--", "p++", "p--"):
            target = x.expr
        elif isinstance(x, c_ast.Decl) and x.name:
            names.add(x.name)
        while isinstance(target, (c_ast.StructRef, c_ast.ArrayRef)):
            target = target.name  # v.x = ... writes v
        if isinstance(target, c_ast.ID):
            names.add(target.name)
    return names


def _has_jump(
    node: c_ast.Node | None, kinds: tuple[type[c_ast.Node], ...] = (c_ast.Break, c_ast.Continue, c_ast.Return)
) -> bool:
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
