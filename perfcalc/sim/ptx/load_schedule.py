"""The order in which ptxas issues a basic block's instructions, as far as load waits care.

PTX lists an unrolled copy loop as `ld, st, ld, st, ...`; ptxas's list scheduler issues the
block's independent global loads first and their uses after them (`LDG, LDG, LDG, LDG, STS, STS,
STS, STS` in the H100's SASS of tests/data/cuda/tensor/ldmatrix_variants.cu,
benchmarks/hw/tensor_run/ldmatrix_variants.sass.txt), so the four loads are in flight together
and the warp waits once, not four times. load_waits.py runs its analysis on this order.

The model is list scheduling inside each basic block (a block's first instruction stays first,
its branch last): the block's global loads whose addresses come from no other load of it go
first, with the arithmetic that computes their addresses (a list scheduler's priority for
long-latency loads; `_loads_first`); everything else as soon as possible, an instruction moving up
to just after the last one it must follow, ties kept in program order. It must follow
- the writer of a register it reads, the earlier readers of a register it writes, the earlier
  writer of a register it writes (data dependences as in registers.py);
- for a global (or generic) load: the last earlier instruction that may write global memory or
  order it (st and red to a global or generic address, atom, bar, membar, fence, call, wmma.store,
  cp.async): a load is not moved above a store it may alias;
- for any instruction with a side effect (a store, an atomic, a barrier, a shared load's order
  against shared stores, ...): the last earlier instruction with a side effect, so memory
  operations other than global loads keep their order.
Register pressure, which can stop ptxas from hoisting every load, is not modelled.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence

from perfcalc.sim.ptx.parse import Instr
from perfcalc.sim.ptx.registers import reads_and_writes

_TERMINATORS = frozenset({"bra", "brx", "ret", "exit", "trap"})
# order every memory access after them, whatever its space (cp: cp.async, which writes shared)
_ORDERING = frozenset({"bar", "barrier", "membar", "fence", "call", "cp"})
_GLOBAL_FENCES = _ORDERING | frozenset({"atom", "red", "st"})
_SIDE_EFFECTS = _GLOBAL_FENCES | frozenset({"ld", "ldu", "ldmatrix", "stmatrix", "wmma", "tex", "suld", "sust"})


def is_global_load(instr: Instr) -> bool:
    """ld/ldu (or wmma.load of a fragment) of global memory, or of a generic address (which is
    global in NVRTC's output unless its space is named)."""
    fragment = instr.base == "wmma" and len(instr.parts) > 1 and instr.parts[1] == "load"
    return (instr.base in ("ld", "ldu") or fragment) and instr.space in ("global", "generic")


def is_shared_load(instr: Instr) -> bool:
    """ld of shared memory (an LDS)."""
    return instr.base == "ld" and instr.space == "shared"


def _may_order_shared(instr: Instr) -> bool:
    """Could this instruction write shared memory, or order the shared loads after it?"""
    if instr.base in ("st", "red", "atom"):
        return instr.space in ("shared", "generic")
    return instr.base in _ORDERING or instr.base in ("stmatrix", "wmma")


def _may_order_global(instr: Instr) -> bool:
    """Could this instruction write global memory, or order the loads after it?"""
    if instr.base in ("st", "red"):
        return instr.space in ("global", "generic")
    if instr.base == "wmma":
        return len(instr.parts) > 1 and instr.parts[1] == "store" and instr.space in ("global", "generic")
    return instr.base in _GLOBAL_FENCES


def leaders(instrs: Sequence[Instr], labels: dict[str, int]) -> list[int]:
    """The first instruction of every basic block, in order."""
    first = {0, *labels.values()}
    first |= {pc + 1 for pc, i in enumerate(instrs) if i.base in _TERMINATORS}
    return sorted(pc for pc in first if 0 <= pc < len(instrs))


Loads = tuple[Callable[[Instr], bool], Callable[[Instr], bool]]  # the loads hoisted, what orders them
GLOBAL: Loads = (is_global_load, _may_order_global)
SHARED: Loads = (is_shared_load, _may_order_shared)


def _block_order(instrs: Sequence[Instr], start: int, end: int, loads: Loads) -> list[int]:
    is_load, may_order = loads
    earliest: dict[int, int] = {}
    writer: dict[str, int] = {}
    readers: dict[str, list[int]] = {}
    last_fence = last_effect = -1  # positions (in `earliest` units) to stay after
    effects = [reads_and_writes(instrs[pc]) for pc in range(start, end)]
    for pc in range(start, end):
        instr = instrs[pc]
        reads, writes = effects[pc - start]
        after = -1
        for r in reads:
            if r in writer:
                after = max(after, earliest[writer[r]])
        for r in writes:
            if r in writer:
                after = max(after, earliest[writer[r]])
            for j in readers.get(r, ()):
                after = max(after, earliest[j] - 1)  # may issue beside an earlier reader, not before
        if is_load(instr):
            after = max(after, last_fence)
        elif instr.base in _SIDE_EFFECTS:
            after = max(after, last_effect)
        slot = 0 if pc == start else after + 1
        earliest[pc] = slot
        for r in reads:
            readers.setdefault(r, []).append(pc)
        for r in writes:
            writer[r] = pc
            readers[r] = []
        if may_order(instr):
            last_fence = max(last_fence, slot)
        if instr.base in _SIDE_EFFECTS:  # a global load too: a later store stays after it
            last_effect = max(last_effect, slot)
    last = end - 1 if instrs[end - 1].base in _TERMINATORS and end - 1 > start else end
    first = _loads_first(instrs, start, last, effects, loads)
    order = sorted(range(start, last), key=lambda pc: (pc not in first, earliest[pc], pc))
    return order + list(range(last, end))  # the block's branch stays last


def _loads_first(
    instrs: Sequence[Instr], start: int, end: int, effects: list[tuple[set[str], set[str]]], loads: Loads
) -> set[int]:
    """The block's global loads that ptxas issues ahead of every use of a loaded value, with the
    arithmetic that computes their addresses: a load whose address does not come from another
    load of the block, after no instruction that may write global memory, its address computed
    without side effects and without overwriting a register an earlier instruction still needs.
    A list scheduler puts long-latency loads first; as-soon-as-possible alone leaves a load whose
    address takes longer to compute than the previous load's store after that store (the example
    GEMM's tile copy, unrolled by 4: `LDG` x 4, then `STS` x 4 in its SASS). `effects`: each
    instruction's (reads, writes) from `start` on."""
    writers: dict[str, list[int]] = {}
    for pc in range(start, end):
        for r in effects[pc - start][1]:
            writers.setdefault(r, []).append(pc)
    is_load, may_order = loads
    kept: set[int] = set()
    fenced = False
    for pc in range(start, end):
        instr = instrs[pc]
        if is_load(instr) and not fenced:
            chosen = _address_slice(instrs, pc, start, effects, writers)
            if chosen is not None and _movable_above(start, chosen | kept, effects):
                kept |= chosen
        fenced = fenced or may_order(instr)
    return kept


def _address_slice(
    instrs: Sequence[Instr],
    load: int,
    start: int,
    effects: list[tuple[set[str], set[str]]],
    writers: dict[str, list[int]],
) -> set[int] | None:
    """The load and the block's instructions its address comes from, or None where one of them
    is a load or has a side effect (it cannot move ahead of the block's memory operations)."""
    chosen: set[int] = set()
    todo = [load]
    while todo:
        pc = todo.pop()
        if pc in chosen:
            continue
        if pc != load and instrs[pc].base in _SIDE_EFFECTS:
            return None
        chosen.add(pc)
        for r in effects[pc - start][0]:
            before = writers.get(r, [])
            k = bisect_left(before, pc)
            if k:
                todo.append(before[k - 1])
    return chosen


def _movable_above(start: int, chosen: set[int], effects: list[tuple[set[str], set[str]]]) -> bool:
    """Can `chosen` run before the block's other instructions? None of them may write a register
    that an earlier instruction left behind reads or writes (an anti- or output dependence)."""
    used: set[str] = set()
    for pc in range(start, max(chosen) + 1):
        reads, writes = effects[pc - start]
        if pc in chosen:
            if writes & used:
                return False
        else:
            used |= reads | writes
    return True


def scheduled_order(instrs: Sequence[Instr], labels: dict[str, int], loads: Loads = GLOBAL) -> list[int]:
    """The function's instructions (their indices) in issue order: blocks in program order, each
    block's instructions as the module docstring schedules them, with `loads` (global ones, or
    for the shared-load waits of the longest warp, shared ones: SHARED) as the loads hoisted."""
    starts = leaders(instrs, labels)
    bounds = list(zip(starts, [*starts[1:], len(instrs)], strict=True))
    return [pc for start, end in bounds for pc in _block_order(instrs, start, end, loads)]
