"""Where a warp waits for its global loads: the instructions that first use a loaded value.

A warp issues a load and goes on issuing until an instruction needs the loaded register (the
scoreboard stall). Loads issued back to back before that use are in flight together, so one wait
covers them all: an unrolled loop that issues eight loads and then their eight FMAs waits once,
not eight times. The time model's latency term charges a warp one load latency per wait
(model/time_model.py), so it counts waits, not loads.

The rule, a forward data-flow over the kernel's control-flow graph: a set of registers whose
global load may still be in flight; an instruction that reads or overwrites one of them is a wait
point and empties the set (the loads issued before it have arrived by then, the ones issued just
before to within a few cycles); a global (or generic) load adds its destinations, a `wmma.load`
of a fragment from global memory included (its registers are loaded as `ld`'s are). Where paths
join, the sets are united: a wait that happens on some path is counted wherever the warp takes it.
The executor (program.py) counts a wait point for a warp only if it issued a global load since its
last wait: a warp that runs both sides of a divergent branch waits on the first side only.

The analysis follows the order ptxas issues each basic block in (load_schedule.py: a block's
global loads as early as their operands and the stores before them allow), not PTX's listing: an
unrolled `ld, st, ld, st` copy waits once per iteration, as its SASS (`LDG, LDG, STS, STS`) does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from perfcalc.sim.ptx.load_schedule import (
    GLOBAL,
    SHARED,
    Loads,
    is_global_load,
    is_shared_load,
    leaders,
    scheduled_order,
)
from perfcalc.sim.ptx.parse import Instr
from perfcalc.sim.ptx.registers import reads_and_writes

__all__ = ["SHARED", "is_global_load", "is_shared_load", "reads_and_writes", "successors", "wait_points"]


def successors(
    instrs: Sequence[Instr], labels: dict[str, int], branch_tables: dict[str, list[str]]
) -> list[tuple[int, ...]]:
    """Each instruction's successors in program order (branch targets, fall-through)."""
    out: list[tuple[int, ...]] = []
    for pc, instr in enumerate(instrs):
        falls = (pc + 1,) if pc + 1 < len(instrs) else ()
        if instr.base == "bra":
            target = labels.get(instr.operands[0].strip())
            taken = (target,) if target is not None else ()
            out.append(taken + (falls if instr.pred is not None else ()))
        elif instr.base == "brx":
            table = branch_tables.get(instr.operands[1].strip(), [])
            out.append(tuple(labels[t] for t in table if t in labels) + falls)
        elif instr.base in ("ret", "exit"):
            out.append(falls if instr.pred is not None else ())
        else:
            out.append(falls)
    return out


def wait_points(
    instrs: Sequence[Instr],
    labels: dict[str, int],
    branch_tables: dict[str, list[str]] | None = None,
    loads: Loads = GLOBAL,
) -> list[bool]:
    """Per instruction: is it a point where a warp waits for a global load (or, with `loads`
    SHARED, a shared one: the longest warp's chain, warp_chains.py; module docstring), found on
    the blocks as ptxas schedules them."""
    order = scheduled_order(instrs, labels, loads)
    position = {pc: k for k, pc in enumerate(order)}
    moved = {name: position.get(pc, pc) for name, pc in labels.items()}
    found = _wait_points([instrs[pc] for pc in order], moved, branch_tables or {}, loads[0])
    return [found[position[pc]] for pc in range(len(instrs))]


def _wait_points(
    instrs: Sequence[Instr],
    labels: dict[str, int],
    branch_tables: dict[str, list[str]],
    is_load: Callable[[Instr], bool],
) -> list[bool]:
    """The data flow over basic blocks: a block is walked with a mutable set (a block of
    thousands of hoisted loads stays linear), its out-set joined into its successors' in-sets."""
    waits = [False] * len(instrs)
    if not instrs:
        return waits
    succ = successors(instrs, labels, branch_tables)
    effects = [reads_and_writes(i) for i in instrs]
    loads = [is_load(i) for i in instrs]
    starts = leaders(instrs, labels)
    block_of = {start: k for k, start in enumerate(starts)}
    ends = [*starts[1:], len(instrs)]
    pending_in: list[frozenset[str] | None] = [None] * len(starts)
    pending_in[0] = frozenset()
    work = [0]
    while work:
        k = work.pop()
        state = set(pending_in[k] or ())
        for pc in range(starts[k], ends[k]):
            reads, writes = effects[pc]
            if state and not state.isdisjoint(reads | writes):
                waits[pc] = True
                state.clear()
            if loads[pc]:
                state |= writes
        out = frozenset(state)
        for nxt in succ[ends[k] - 1]:
            b = block_of[nxt]
            before = pending_in[b]
            joined = out if before is None else before | out
            if joined != before:
                pending_in[b] = joined
                work.append(b)
    return waits
