"""Compile an entry function's instructions once, then run them chunk by chunk with the
divergence scheduler described in execute.py, counting flops, branches and barriers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from perfcalc.errors import CudaSyntaxError
from perfcalc.limits import past_time_limit, time_limit_seconds
from perfcalc.sim import counters as C
from perfcalc.sim.ptx.contract import NOP, contract
from perfcalc.sim.ptx.copy_guards import GUARD_LOADS, guarded_copies
from perfcalc.sim.ptx.execute import Chunk, Env, Guard, guarded, operand, predicate, warps_with
from perfcalc.sim.ptx.exit_sinking import sunk_past_exits
from perfcalc.sim.ptx.flop_idioms import flop_overrides
from perfcalc.sim.ptx.if_conversion import if_convert
from perfcalc.sim.ptx.instructions import BUILDERS, NOOPS, PACKED_HALF, flop_weight
from perfcalc.sim.ptx.load_waits import SHARED as SHARED_LOADS
from perfcalc.sim.ptx.load_waits import is_global_load, is_shared_load, wait_points
from perfcalc.sim.ptx.lowprec import build_bf16_arith
from perfcalc.sim.ptx.matrix_memops import build_cp_async, build_ldmatrix, build_wmma_memory
from perfcalc.sim.ptx.memops import build_atom, build_ld, build_st
from perfcalc.sim.ptx.packed_int import PACKED_INT_TYPES, build_packed_int16
from perfcalc.sim.ptx.parse import Function, Instr
from perfcalc.sim.ptx.sass_expansion import sass_instructions
from perfcalc.sim.ptx.select_predication import select_predications
from perfcalc.sim.ptx.shared_merge import merged_shared_loads, merged_shared_stores
from perfcalc.sim.ptx.tensor import build_mma, build_wmma_mma
from perfcalc.sim.ptx.warp_chains import ISSUED, SHARED, WAITS, WarpChains, longest

# Refused by name (issue #8): things this engine does not execute.
REFUSED = {
    "wgmma": "Hopper wgmma",
    "tex": "textures",
    "tld4": "textures",
    "suld": "surfaces",
    "sust": "surfaces",
    "stmatrix": "stmatrix",
    "tcgen05": "Blackwell tensor memory",
    "mbarrier": "mbarrier objects",
    "setmaxnreg": "setmaxnreg",
}


@dataclass
class Step:
    """One compiled instruction: kind is op | bra | exit | bar."""

    instr: Instr
    kind: str
    run: Callable[..., None] | None = None
    target: int = -1
    pred: Callable[[Chunk], Guard] | None = None
    flops: int = 0
    flop_kind: str | None = None
    # a select whose value ptxas computes under its predicate (select_predication.py): the lanes
    # that count that value's flops
    flop_lanes: Callable[[Chunk], Guard] | None = None
    inst_kind: str = "int"
    memory: bool = False
    targets: tuple[int, ...] = ()
    waits: bool = False  # a warp here waits for a global load still in flight (load_waits.py)
    global_load: bool = False
    counts: Any = None  # its source line's counts, looked up on first execution
    slot: int = -1  # counts index of its instruction kind (-1: not counted there)
    weight: int = 1  # machine instructions of that kind per warp (a wmma.mma is several HMMA)
    sync_mask: Any = None  # a warp-collective .sync op: reads its membermask (see _lagging)


def compile_steps(env: Env) -> list[Step]:
    """One step per instruction, after ptxas's mul+add contraction (contract.py) and if-conversion
    (if_conversion.py), each marked where a warp waits for its global loads (load_waits.py), its
    flops counted where and as the SASS has them (flop_idioms.py, select_predication.py,
    exit_sinking.py)."""
    body, wait_at, loads, flops, selects, sunk = _analysed(env.fn)
    merged = _merged(env, body)
    guarded = _copy_guards(env, body)
    steps = [_step(instr, env, merged.get(i), i in guarded) for i, instr in enumerate(body)]
    for at, n in flops.items():
        steps[at].flops = n
    for at, (value, on_true) in selects.items():  # ptxas predicates the value on the select
        steps[at].flops, steps[value].flops = steps[value].flops, 0
        name = body[at].operands[3].strip()
        steps[at].flop_lanes = predicate(name if on_true else "!" + name, env)
    for value, reader in sunk.items():  # ptxas computes the value past the early exit
        if steps[reader].flop_lanes is None:
            steps[reader].flops, steps[value].flops = steps[reader].flops + steps[value].flops, 0
    for step, waits, load in zip(steps, wait_at, loads, strict=True):
        step.waits = waits
        step.global_load = load
        if step.kind == "op" and not step.memory and step.inst_kind in C.INSTRUCTION_KINDS:
            step.slot = C.instruction_slot(step.inst_kind)
        if _WARP_SYNC.get(step.instr.base) in step.instr.parts and step.instr.operands:
            step.sync_mask = operand(step.instr.operands[-1], "b32", env)
    return steps


# Warp-collective instructions that name the lanes they wait for (PTX ISA: "membermask"): the
# base and the part that marks the form with a membermask, its last operand.
_WARP_SYNC = {"shfl": "sync", "vote": "sync", "redux": "sync", "match": "sync", "elect": "sync", "bar": "warp"}


class _Analysis(NamedTuple):
    """What the steps of a function take from ptxas's view of it, derived once per function."""

    body: list[Instr]  # after contraction and if-conversion
    wait_at: list[bool]  # where a warp waits for its global loads
    loads: list[bool]  # the global loads
    flops: dict[int, int]  # flops the SASS counts where it differs from the PTX (flop_idioms.py)
    selects: dict[int, tuple[int, bool]]  # select -> the value predicated on it
    sunk: dict[int, int]  # value -> its reader past an early exit


def _analysed(fn: Function) -> _Analysis:
    def make() -> _Analysis:
        body = if_convert(fn, contract(fn))
        return _Analysis(
            body,
            wait_points(body, fn.labels, fn.branch_tables),
            [is_global_load(i) for i in body],
            flop_overrides(fn, body),
            select_predications(fn, body),
            sunk_past_exits(fn, body),
        )

    return fn.derived("steps", make)


class _ChainSteps(NamedTuple):
    """Where a warp's own chain (warp_chains.py) grows beyond its counted instructions."""

    shared_loads: frozenset[int]  # the steps that load shared memory
    shared_waits: frozenset[int]  # where a warp waits for one (loads issued together wait once)
    params: frozenset[int]  # ld/st.param: constant-bank operands or call arguments, no instruction


def _chain_steps(fn: Function) -> _ChainSteps:
    """_ChainSteps of the function's steps, once per function (load_waits.py's analysis with
    shared loads as the ones waited for)."""

    def make() -> _ChainSteps:
        body = _analysed(fn).body
        at = wait_points(body, fn.labels, fn.branch_tables, SHARED_LOADS)
        return _ChainSteps(
            frozenset(i for i, instr in enumerate(body) if is_shared_load(instr)),
            frozenset(i for i, w in enumerate(at) if w),
            frozenset(i for i, ins in enumerate(body) if ins.base in ("ld", "ldu", "st") and ins.space == "param"),
        )

    return fn.derived("chain steps", make)


def _merged(env: Env, body: list[Instr]) -> dict[int, int]:
    """ptxas's shared-load and shared-store merges (shared_merge.py) for this function and
    shared-memory layout, from CC 7.0 on (checked on sm_90's SASS); older CCs count the PTX's."""
    if env.pricer.arch.major < 7:
        return {}
    return env.fn.derived(
        "shared merges " + repr(sorted(env.shared_offsets.items())),
        lambda: (
            merged_shared_loads(body, env.fn.labels, env.shared_offsets)
            | merged_shared_stores(body, env.fn.labels, env.shared_offsets)
        ),
    )


def _copy_guards(env: Env, body: list[Instr]) -> frozenset[int]:
    """The cp.async copies ptxas puts three never-executed shared loads ahead of
    (copy_guards.py), on sm_90 where that was read off the SASS."""
    if env.pricer.arch.major != 9:
        return frozenset()
    return env.fn.derived("copy guards", lambda: guarded_copies(env.fn, body))


def _step(instr: Instr, env: Env, priced_as: int | None = None, copy_guard: bool = False) -> Step:
    if instr.opcode == NOP:
        return Step(instr, "op", run=lambda ch, m, full: None, inst_kind="none")
    base = instr.base
    pred = None
    if instr.pred is not None:
        pred = predicate(("!" if instr.pred_negated else "") + instr.pred, env)
    if base == "brx":
        table = instr.operands[1].strip()
        if table not in env.fn.branch_tables:
            raise CudaSyntaxError(f"brx.idx at line {instr.line} names no .branchtargets table")
        targets = [env.fn.labels[t] for t in env.fn.branch_tables[table]]
        index = operand(instr.operands[0], "u32", env)
        return Step(
            instr,
            "brx",
            pred=pred,
            inst_kind="branch",
            run=index,
            targets=tuple(targets),
        )
    if base == "bra":
        target = instr.operands[0].strip()
        if target not in env.fn.labels:
            raise CudaSyntaxError(f"bra at line {instr.line} jumps to unknown label {target}")
        return Step(instr, "bra", target=env.fn.labels[target], pred=pred, inst_kind="branch")
    if base in ("ret", "exit"):
        return Step(instr, "exit", pred=pred, inst_kind="branch")
    if base in ("bar", "barrier"):
        if "warp" in instr.parts:
            return Step(instr, "op", run=lambda ch, m, full: None, pred=pred)
        if "red" in instr.parts:
            return Step(instr, "bar", pred=pred, inst_kind="barrier", run=_barrier_reduction(instr, env))
        if len(instr.parts) > 1 and instr.parts[1] not in ("sync", "cta", "aligned"):
            raise CudaSyntaxError(
                f"{instr.opcode} at line {instr.line}: only bar.sync / barrier.sync and bar.red are implemented"
            )
        if len(instr.operands) > 1:
            raise CudaSyntaxError(
                f"{instr.opcode} at line {instr.line}: barriers with a thread count are not implemented"
            )
        return Step(instr, "bar", pred=pred, inst_kind="barrier")
    if base in ("trap", "brkpt"):
        return Step(instr, "trap", pred=pred)
    if base == "call":
        return _call(instr, pred)
    if base in REFUSED:
        raise CudaSyntaxError(
            f"{REFUSED[base]} ({instr.opcode}) at line {instr.line} are not executed by the PTX engine"
        )
    tensor = _tensor_step(instr, env, pred, copy_guard)
    if tensor is not None:
        return tensor
    if base == "ld" or base == "ldu":
        return Step(instr, "op", run=build_ld(instr, env, priced_as), pred=pred, memory=True, inst_kind="load")
    if base == "st":
        return Step(instr, "op", run=build_st(instr, env, priced_as), pred=pred, memory=True, inst_kind="store")
    if base in ("atom", "red"):
        return Step(instr, "op", run=build_atom(instr, env), pred=pred, memory=True, inst_kind="atomic")
    if instr.opcode.startswith(NOOPS) or base in NOOPS:
        return Step(instr, "op", run=lambda ch, m, full: None, pred=pred)
    if "bf16" in instr.parts or "bf16x2" in instr.parts:
        bf16 = build_bf16_arith(instr, env) if base != "cvt" else None
        if bf16 is not None:
            return Step(instr, "op", run=bf16, pred=pred, inst_kind="fp32")
        if base not in ("cvt", "mov", "ld", "st"):
            raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: this bfloat16 operation is not emulated")
    if any(p in ("f16x2", "bf16x2") for p in instr.parts) and base in PACKED_HALF:
        kind, flops = flop_weight(instr)
        return Step(instr, "op", run=PACKED_HALF[base](instr, env), pred=pred, inst_kind="fp32")
    if any(p in PACKED_INT_TYPES for p in instr.parts):
        return Step(instr, "op", run=build_packed_int16(instr, env), pred=pred, inst_kind="int")
    if base not in BUILDERS:
        raise CudaSyntaxError(
            f"PTX instruction {instr.opcode} at line {instr.line} is not implemented by the PTX engine"
        )
    kind, flops = flop_weight(instr)
    # integer division is a sequence of machine instructions: counted as its own kind
    int_div = base in ("div", "rem") and any(p in _INT_TYPES for p in instr.parts)
    kind_name = "int_divide" if int_div else kind or "int"
    weight = sass_instructions(instr, env.pricer.arch.major)
    return Step(
        instr,
        "op",
        run=BUILDERS[base](instr, env),
        pred=pred,
        flops=flops,
        flop_kind=kind,
        inst_kind=kind_name,
        weight=weight,
    )


def _tensor_step(
    instr: Instr, env: Env, pred: Callable[[Chunk], Guard] | None, copy_guard: bool = False
) -> Step | None:
    """mma.sync, wmma, ldmatrix and cp.async (tensor.py, matrix_memops.py), or None;
    `copy_guard`: a cp.async ptxas puts its guard loads ahead of (copy_guards.py)."""
    base = instr.base
    if base == "mma":
        run, kind, weight = build_mma(instr, env)
        return Step(instr, "op", run=run, pred=pred, inst_kind=kind, weight=weight)
    if base == "wmma" and instr.parts[1] == "mma":
        run, kind, weight = build_wmma_mma(instr, env)
        return Step(instr, "op", run=run, pred=pred, inst_kind=kind, weight=weight)
    if base == "wmma" and instr.parts[1] in ("load", "store"):
        kind = "load" if instr.parts[1] == "load" else "store"
        return Step(instr, "op", run=build_wmma_memory(instr, env), pred=pred, memory=True, inst_kind=kind)
    if base == "ldmatrix":
        return Step(instr, "op", run=build_ldmatrix(instr, env), pred=pred, memory=True, inst_kind="load")
    if base == "cp" and len(instr.parts) > 1 and instr.parts[1] == "async":
        guards = GUARD_LOADS if copy_guard else 0
        return Step(instr, "op", run=build_cp_async(instr, env, guards), pred=pred, memory=True, inst_kind="store")
    if base in ("cp", "wmma"):
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line} is not executed by the PTX engine")
    return None


_INT_TYPES = ("s16", "u16", "s32", "u32", "s64", "u64")


# Calls of CUDA's own device-runtime functions that NVRTC leaves in the PTX.
_PRINTF = ("vprintf",)
_ASSERT = ("__assertfail", "__assert_fail")
_CUDA_OUT_OF_LINE = "__internal_"  # CUDA's math headers' out-of-line functions


def _call(instr: Instr, pred: Callable[[Chunk], Guard] | None) -> Step:
    names = [o.strip() for o in instr.operands if o.strip() and not o.strip().startswith("(")]
    target = names[0] if names else "?"
    if target in _PRINTF:  # device printf: output is not reproduced; the call costs nothing here
        return Step(instr, "op", run=lambda ch, m, full: None, pred=pred, inst_kind="call")
    if target in _ASSERT:
        return Step(instr, "assert", pred=pred, inst_kind="call")
    if target.startswith(_CUDA_OUT_OF_LINE):
        # CUDA's math library calls some of its code out of line: the slow path of trig functions
        # (huge arguments, almost never taken), pow's core: refused only if a lane gets there
        def reached(ch: Chunk, m: np.ndarray, full: bool) -> None:
            raise CudaSyntaxError(
                f"a lane reached {target} at line {instr.line}, a function of CUDA's math library that "
                "it calls out of line; the PTX engine does not execute calls"
            )

        return Step(instr, "op", run=reached, pred=pred, inst_kind="call")
    raise CudaSyntaxError(
        f"call of the non-inlined device function {target} at line "
        f"{instr.line} is not executed by the PTX engine (compile with the "
        f"function inlined, e.g. __forceinline__)"
    )


class _Facts:
    """Reductions of one active-lane mask, each computed once: a mask array is never modified in
    place (every change makes a new one), and without divergence one mask stays current for many
    steps, so most steps reduce nothing."""

    __slots__ = ("mask", "_any", "_all", "_warps", "_nwarps", "_count")

    def __init__(self, mask: np.ndarray):
        self.mask = mask
        self._any: bool | None = None
        self._all: bool | None = None
        self._warps: np.ndarray | None = None
        self._nwarps: int | None = None
        self._count: int | None = None

    def any(self) -> bool:
        if self._any is None:
            self._any = bool(self.mask.any())
        return self._any

    def all(self) -> bool:
        if self._all is None:
            self._all = bool(self.mask.all())
        return self._all

    def warps(self) -> np.ndarray:
        """Per warp: has it an active lane."""
        if self._warps is None:
            self._warps = warps_with(self.mask)
        return self._warps

    def nwarps(self) -> int:
        if self._nwarps is None:
            self._nwarps = int(self.warps().sum())
        return self._nwarps

    def count(self) -> int:
        if self._count is None:
            self._count = int(np.count_nonzero(self.mask))
        return self._count


class _Waits:
    """Per warp: global (or shared) loads it issued since it last waited (load_waits.py). While
    every warp of the chunk takes part (no divergence) that is one number for all; an array
    otherwise. Each wait goes to the warp's chain as `part` (warp_chains.py)."""

    __slots__ = ("n", "each", "common", "part")

    def __init__(self, nwarps: int, part: int = WAITS):
        self.n = nwarps
        self.part = part
        self.each: np.ndarray | None = None  # per warp, on top of `common`
        self.common = 0

    def issue(self, facts: _Facts) -> None:
        if facts.nwarps() == self.n:
            self.common += 1
        else:
            self._lanes()[:] += facts.warps()

    def wait(self, facts: _Facts, chains: WarpChains) -> int:
        """The warps of `facts` that stall here (and from now on have nothing in flight), each
        added to its chain."""
        if facts.nwarps() == self.n:
            if self.each is None:
                stalled = self.n if self.common > 0 else 0
                if stalled:
                    chains.add(self.part, None)
            else:
                stalls = (self.each + self.common) > 0
                stalled = int(np.count_nonzero(stalls))
                chains.add(self.part, stalls)
            self.each, self.common = None, 0
            return stalled
        each = self._lanes()
        stalls = facts.warps() & (each > 0)
        each[stalls] = 0
        chains.add(self.part, stalls)
        return int(np.count_nonzero(stalls))

    def _lanes(self) -> np.ndarray:
        if self.each is None:
            self.each = np.full(self.n, self.common, dtype=np.int64)
        elif self.common:
            self.each += self.common
        self.common = 0
        return self.each


def _state_repeats(
    ch: Chunk,
    pc: int,
    iteration: int,
    writes: int,
    mask: np.ndarray,
    waiting: dict[int, np.ndarray],
    seen: dict[int, tuple[int, int, bytes]],
) -> bool:
    """At a loop's back edge, every 1,024th iteration: whether the whole chunk's state (masks,
    every register of every lane, shared and local memory) is what it was one iteration before,
    with no store or atomic run since. The chunk's blocks run alone (other blocks run before or
    after them), so global memory cannot change either: the loop repeats that iteration forever
    (issue 36: an endless loop recognised in seconds, not at --max-seconds)."""
    import hashlib

    h = hashlib.blake2b(mask.tobytes(), digest_size=16)
    for at in sorted(waiting):
        h.update(at.to_bytes(8, "little", signed=True) + waiting[at].tobytes())
    for name in sorted(set(ch.regs) | set(ch.seps) | set(ch.flags)):
        h.update(name.encode() + ch.reg(name).tobytes())
    h.update(ch.shared.tobytes())
    if "local" in ch.__dict__:
        h.update(ch.local.tobytes())
    digest = h.digest()
    before = seen.get(pc)
    seen[pc] = (iteration, writes, digest)
    return before is not None and before[0] == iteration - 1 and before[1] == writes and before[2] == digest


def run_chunk(env: Env, steps: list[Step], block_ids: np.ndarray) -> None:
    """Every thread of these blocks through the program (raises FaultSignal on a fault)."""
    ch = Chunk(env, block_ids)
    mask = ch.live.copy()
    facts = _Facts(mask)
    pc = 0
    waiting: dict[int, np.ndarray] = {}
    back_edges: dict[int, int] = {}
    nsteps = len(steps)
    width = ch.warps_per_block * 32
    # a warp that waited on one side of a divergent branch does not wait again on the other
    waits = _Waits(ch.n // 32)
    chains = WarpChains(ch.n // 32)  # each warp's own work, for the longest warp (warp_chains.py)
    shared_loads, shared_waits, params = _chain_steps(env.fn)
    swaits = _Waits(ch.n // 32, SHARED)  # the same for shared loads, kept in the chains only
    writes = 0  # stores and atomics run with an active lane: a loop that writes is not a repeat
    repeats: dict[int, tuple[int, int, bytes]] = {}
    # lanes held at a barrier that part of their block has not reached yet (see _release)
    parked: dict[int, np.ndarray] = {}
    # lanes at a warp-collective .sync op that lanes of their membermask have not reached yet
    held: dict[int, np.ndarray] = {}
    forced = -1  # a held op released because nothing else could run: it runs as it is
    while True:
        if facts.mask is not mask:
            facts = _Facts(mask)
        if pc >= nsteps or not facts.any():
            if pc >= nsteps:
                ch.live &= ~mask
            if not waiting and held:
                pc = forced = min(held)
                mask = held.pop(pc)
                continue
            if not waiting and parked:
                _release(ch, parked, width, waiting, steps)
                if not waiting:  # held at barriers that the rest of their blocks never reach
                    at = min(parked)
                    raise ch.fault(
                        "divergent_barrier",
                        steps[at].instr,
                        parked[at],
                        "Barrier error: __syncthreads() (bar.sync) waits for threads of the block "
                        "that wait at another barrier: the block would hang",
                    )
            if not waiting:
                break
            pc = min(waiting)
            mask = waiting.pop(pc)
            continue
        step = steps[pc]
        if step.sync_mask is not None and pc != forced and (waiting or held):
            if pc in held:
                mask = mask | held.pop(pc)
            late = _lagging(ch, step, mask, waiting, held)
            if late is not None:
                held[pc] = mask & late
                mask = mask & ~late
            if facts.mask is not mask:  # lanes joined or left: the counts below read these facts
                facts = _Facts(mask)
                if not facts.any():
                    continue
        forced = -1
        counts = step.counts
        if counts is None:
            counts = step.counts = env.site(step.instr.line, step.instr.inlined_at)
        if step.waits:
            counts[C.GLD_WAIT] += waits.wait(facts, chains)
        if step.global_load:
            waits.issue(facts)
        if pc in shared_waits:
            swaits.wait(facts, chains)
        if pc in shared_loads:
            swaits.issue(facts)
        if step.kind == "op":
            m = mask if step.pred is None else guarded(mask, step.pred(ch))
            mf = facts if m is mask else _Facts(m)
            if step.slot >= 0:
                counts[step.slot] += facts.nwarps() * step.weight
                chains.add(ISSUED, chains.warps_of(facts), step.weight)
            if step.memory:  # run with no active lane too: its requests are counted as issued
                if pc not in params:
                    chains.add(ISSUED, chains.warps_of(facts))
                step.run(ch, m, mf.all(), mask)  # type: ignore[misc]
                if step.inst_kind != "load" and mf.any():
                    writes += 1
            elif mf.any():
                step.run(ch, m, mf.all())  # type: ignore[misc]
            if step.flops:
                lanes = mf if step.flop_lanes is None else _Facts(guarded(m, step.flop_lanes(ch)))
                counts[C.FLOPS] += step.flops * lanes.count()
            pc += 1
            mask = _merge(pc, mask, waiting)
            continue
        if step.kind == "bra":
            guard = True if step.pred is None else step.pred(ch)
            counts[C.instruction_slot("branch")] += facts.nwarps()
            chains.add(ISSUED, chains.warps_of(facts))
            if guard is True or guard is False:  # uniform: every lane goes one way
                taken, rest = (mask, None) if guard else (None, mask)
            else:
                taken, rest = mask & guard, mask & ~guard
                if not taken.any():
                    taken = None
                elif not rest.any():
                    rest = None
                else:  # some warp may split
                    split = warps_with(taken) & warps_with(rest)
                    counts[C.DIVERGENT] += int(split.sum())
            if step.target <= pc and taken is not None:
                back_edges[pc] = back_edges.get(pc, 0) + 1
                if back_edges[pc] > env.iteration_cap:
                    raise ch.fault(
                        "iteration_cap",
                        step.instr,
                        taken,
                        f"Loop ran more than {env.iteration_cap} iterations (the iteration cap): the kernel would hang",
                    )
                if back_edges[pc] & 1023 in (0, 1) and _state_repeats(
                    ch, pc, back_edges[pc], writes, mask, {**waiting, **{-1 - k: v for k, v in held.items()}}, repeats
                ):
                    raise ch.fault(
                        "endless_loop",
                        step.instr,
                        taken,
                        f"Loop never ends: after {back_edges[pc]} iterations an iteration changed no register, "
                        "predicate or shared value of any thread and wrote no memory, so every later one repeats it",
                    )
                if past_time_limit():  # every back edge: a chunk iteration costs far more than the check
                    raise ch.fault(
                        "time_limit",
                        step.instr,
                        taken,
                        f"Loop still running after {back_edges[pc]} iterations when the "
                        f"simulation reached its limit of {time_limit_seconds():g} s "
                        "(--max-seconds): the kernel may never finish, or needs longer (--max-seconds N gives it N s)",
                    )
            if taken is not None:
                _wait(waiting, step.target, taken)
            if rest is not None:
                _wait(waiting, pc + 1, rest)
            pc = min(waiting)
            mask = waiting.pop(pc)
            continue
        if step.kind == "brx":
            index = np.broadcast_to(np.asarray(step.run(ch)).astype(np.int64), mask.shape)  # type: ignore[misc]
            active = mask if step.pred is None else guarded(mask, step.pred(ch))
            bad = active & ((index < 0) | (index >= len(step.targets)))
            if bad.any():
                raise ch.fault("bad_branch", step.instr, bad, "brx.idx index outside its table")
            counts[C.instruction_slot("branch")] += int(warps_with(mask).sum())
            chains.add(ISSUED, warps_with(mask))
            distinct = np.zeros(mask.shape[0] // 32, dtype=np.int64)
            for k, target in enumerate(step.targets):
                go = active & (index == k)
                if go.any():
                    _wait(waiting, target, go)
                    distinct += warps_with(go)
            counts[C.DIVERGENT] += int((distinct > 1).sum())
            rest = mask & ~active
            if rest.any():
                _wait(waiting, pc + 1, rest)
            if not waiting:
                break
            pc = min(waiting)
            mask = waiting.pop(pc)
            continue
        if step.kind == "exit":
            done = mask if step.pred is None else guarded(mask, step.pred(ch))
            ch.live &= ~done
            mask = mask & ~done
            if mask.any():
                pc += 1
                mask = _merge(pc, mask, waiting)
            continue
        if step.kind in ("trap", "assert"):
            hit = mask if step.pred is None else guarded(mask, step.pred(ch))
            if hit.any():
                what = "Device-side assertion failed" if step.kind == "assert" else "The kernel executed trap (__trap)"
                raise ch.fault(step.kind, step.instr, hit, what)
            pc += 1
            mask = _merge(pc, mask, waiting)
            continue
        # barrier: every live thread of each block in `mask` must be here
        if facts.all():  # every lane of the chunk: every block is here, whole
            arrived = ch.nblocks
        else:
            blocks = mask.reshape(-1, width).any(axis=1)
            expected = ch.live & np.repeat(blocks, width)
            missing = expected & ~mask
            if missing.any() and parked:  # lanes held at a barrier count as arrived (barrier 0 is one)
                missing &= ~_held(ch, parked)
            if missing.any() or parked:
                if step.run is not None or not waiting and missing.any():  # bar.red, or a hang
                    raise ch.fault(
                        "divergent_barrier",
                        step.instr,
                        missing if missing.any() else mask,
                        "Barrier error: __syncthreads() (bar.sync) was reached by only part "
                        "of the block; this thread is elsewhere",
                    )
                _wait(parked, pc, mask)
                counts[C.instruction_slot("barrier")] += facts.nwarps()
                chains.add(ISSUED, facts.warps())
                _release(ch, parked, width, waiting, steps)
                if not waiting:  # nothing can move: the loop's top reports the hang
                    mask = np.zeros_like(mask)
                    continue
                pc = min(waiting)
                mask = waiting.pop(pc)
                continue
            arrived = int(blocks.sum())
        if step.run is not None:  # bar.red: the block's reduction, given to every thread
            step.run(ch, mask, width, facts.all())
        ch.races.barrier()
        counts[C.BARRIERS] += arrived
        counts[C.instruction_slot("barrier")] += facts.nwarps()
        chains.add(ISSUED, chains.warps_of(facts))
        pc += 1
        mask = _merge(pc, mask, waiting)
    env.longest_warps = longest(chains.totals(), env.longest_warps)


def _barrier_reduction(instr: Instr, env: Env) -> Callable[[Chunk, np.ndarray, int, bool], None]:
    """bar.red.{popc.u32, and.pred, or.pred} d, a{, b}, {!}c (__syncthreads_count/_and/_or): once
    the block has arrived, d of every thread is the block's count of threads whose c is on, or
    whether all / any of them have it on (PTX ISA, bar.red). A thread count (b) is refused."""
    ops = [p for p in instr.parts if p in ("popc", "and", "or")]
    if len(ops) != 1 or len(instr.operands) != 3:
        raise CudaSyntaxError(
            f"{instr.opcode} at line {instr.line}: only bar.red.popc/and/or with a whole block are implemented"
        )
    op, d = ops[0], instr.operands[0].strip()
    c = predicate(instr.operands[2], env)

    def run(ch: Chunk, mask: np.ndarray, width: int, full: bool) -> None:
        on = guarded(mask, c(ch)).reshape(-1, width)
        if op == "popc":
            value: np.ndarray = on.sum(axis=1).astype(np.uint32)
        elif op == "and":
            value = np.asarray((on | ~mask.reshape(-1, width)).all(axis=1))
        else:
            value = np.asarray(on.any(axis=1))
        ch.write(d, np.repeat(value, width), mask, full)

    return run


def _release(
    ch: Chunk, parked: dict[int, np.ndarray], width: int, waiting: dict[int, np.ndarray], steps: list[Step]
) -> None:
    """Let the blocks whose every live lane is held at a barrier go on past it (every lane to
    the instruction after the barrier it waits at); the rest stay held.

    Lanes are held where part of their block reached a barrier and the rest runs on, as on a
    GPU: bar.sync waits for every thread of the block that has not exited, at whichever
    bar.sync 0 it reaches. Measured on an H100 (benchmarks/hw/barriers_overrun_h100/): threads
    that exit without reaching it let the block go on and compute-sanitizer's synccheck reports
    nothing; threads waiting at different barrier instructions go on too, and synccheck reports
    "Divergent thread(s) in block": a fault here, or, in a whole program (race_faults False),
    kept with the launch's races and run through."""
    held = _held(ch, parked)
    live = ch.live.reshape(-1, width)
    whole = ~(live & ~held.reshape(-1, width)).any(axis=1)
    if not whole.any():
        return
    go = np.repeat(whole, width)
    places = sum(((parked[at] & go).reshape(-1, width).any(axis=1)).astype(np.int64) for at in parked)
    split = np.asarray(places) > 1
    if split.any():
        lanes = np.repeat(split, width)
        at = max(k for k in parked if (parked[k] & lanes).any())  # the later barrier's lanes
        signal = ch.fault(
            "divergent_barrier",
            steps[at].instr,
            parked[at] & lanes,
            "Barrier error: threads of the block wait at different __syncthreads() (bar.sync) "
            "instructions (compute-sanitizer's synccheck: divergent thread(s) in block)",
        )
        if not ch.race_found(signal):
            raise signal
    for at in list(parked):
        free = parked[at] & go
        if free.any():
            _wait(waiting, at + 1, free)
            counts = steps[at].counts
            if counts is not None:
                counts[C.BARRIERS] += int(free.reshape(-1, width).any(axis=1).sum())
            rest = parked[at] & ~go
            if rest.any():
                parked[at] = rest
            else:
                del parked[at]
    ch.races.barrier()


def _lagging(
    ch: Chunk, step: Step, mask: np.ndarray, waiting: dict[int, np.ndarray], held: dict[int, np.ndarray]
) -> np.ndarray | None:
    """The lanes of the warps that must wait at this .sync op (None: none): a lane of their
    membermask is live and elsewhere (waiting at another PC or held at another .sync op). A warp
    runs shfl.sync, vote.sync and their kind together with its whole membermask (CUDA
    Programming Guide, warp shuffle functions): after code laid out out of line (a short-circuit
    `||` placed after the loop that jumps back), the smallest-PC rule alone would run it with
    part of the warp and split a ballot in two (HeCBench gc, benchmarks/hw/hecbench_gc_h100)."""
    members = np.broadcast_to(np.asarray(step.sync_mask(ch)).astype(np.uint32).astype(np.uint64), mask.shape)
    per_warp = np.bitwise_or.reduce(np.where(mask, members, 0).reshape(-1, 32), axis=1)
    wanted = ((per_warp[:, None] >> np.arange(32, dtype=np.uint64)) & 1).astype(bool).ravel()
    elsewhere = np.zeros_like(mask)
    for m in (*waiting.values(), *held.values()):
        elsewhere |= m
    late = wanted & elsewhere & ~mask
    if not late.any():
        return None
    return np.repeat(warps_with(late), 32)


def _held(ch: Chunk, parked: dict[int, np.ndarray]) -> np.ndarray:
    held = np.zeros_like(ch.live)
    for m in parked.values():
        held |= m
    return held


def _wait(waiting: dict[int, np.ndarray], pc: int, mask: np.ndarray) -> None:
    if pc in waiting:
        waiting[pc] = waiting[pc] | mask
    else:
        waiting[pc] = mask


def _merge(pc: int, mask: np.ndarray, waiting: dict[int, np.ndarray]) -> np.ndarray:
    if pc in waiting:
        return mask | waiting.pop(pc)
    return mask
