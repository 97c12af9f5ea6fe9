"""What ptxas does to short branches: it predicates them (if-conversion).

A guarded access such as `if (t < stride) s[t] += s[t + stride];` is a branch around a few
instructions in PTX, but ptxas turns a short one into predicated SASS (`@!P1 LDS`, `@!P1 STS`)
with no branch at all. Every warp that reaches it then issues those instructions, its lanes off or
not, and the H100's instruction counters count them (`smsp__inst_executed_op_shared_ld`/`_st`
count a predicated LDS/STS of a warp whose lanes are all off; the data-pipe wavefronts do not).
Counted on the PTX's branch instead, a tree reduction's shared requests come out 3-5x too few.

The shapes converted here, read off the SASS of our PTX corpus and of HeCBench's calibration half
compiled for sm_90 (benchmarks/hw/ifconvert_sass.sh; raw listings in benchmarks/hw/ifconvert_h100/):
- a triangle, `@p bra J; A; J:` -> A guarded by !p;
- a diamond, `@p bra T; A; bra J; T: B; J:` -> A guarded by !p, B by p;
- the same diamond laid out `@p bra T; bra F; T: B; bra J; F: A; J:`;
- an arm that ends jumping back to the branch's own target, `J: ... @p bra J; A; bra J` (an `if`
  at the end of a loop body whose join is the loop's head) -> A guarded by !p, where J is not a
  barrier (HeCBench entropy's arm and our probe's, volatile or not, are predicated in their SASS,
  benchmarks/hw/loop_tail_h200/; merge's `if (t == 127)` update before its loop's `bar.sync`
  stays a branch, and so does its `switch` case that jumps forward to the switch's end);
where each arm is straight-line code entered only from the branch (no label inside it, no other
branch into it), holding no barrier, call, return, warp-collective `.sync` operation, guarded
instruction, write of the guard itself, or correctly rounded division / square root (which
ptxas emits with a slow-path branch of its own), and the arms together come to at most
`MAX_SASS_INSTRUCTIONS` machine instructions. A branch that skips to the function's `ret` is left
alone: ptxas makes it an early `@P EXIT`, which counts like the branch.

The transformation keeps the body's length (the removed branches become no-ops), so label indices
stay valid, and its results are the PTX's: a guarded instruction does nothing for a lane whose
guard is false.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from perfcalc.sim.ptx.contract import NOP
from perfcalc.sim.ptx.parse import CONTROL, Function, Instr
from perfcalc.sim.ptx.registers import register_writes
from perfcalc.sim.ptx.sass_expansion import has_slow_path_branch

# The longest region ptxas predicated in the SASS listings, in PTX instructions (both arms, and a
# second region under the same guard right after): see benchmarks/hw/ifconvert_h100/README.md.
MAX_INSTRUCTIONS = 13

_COLLECTIVE = {"shfl", "vote", "redux", "match", "elect", "activemask", "wgmma", "mbarrier"}


def if_convert(fn: Function, body: list[Instr]) -> list[Instr]:
    """`body` (a function's instructions, same indexing as fn.body) with ptxas's if-conversions."""
    body = list(body)
    label_at = set(fn.labels.values())
    entries: Counter[int] = Counter()
    for instr in body:
        to = fn.branch_target(instr)
        if to is not None:
            entries[to] += 1
        elif instr.base == "brx":
            for name in fn.branch_tables.get(instr.operands[1].strip(), []):
                entries[fn.labels[name]] += 1
    for i, instr in enumerate(body):
        target = _guarded_target(fn, body, i)
        if target is None:
            continue
        arms = _arm_to_the_target(fn, body, i, target, label_at)
        if arms is None and target > i + 1:
            arms = _arms(fn, body, i, target, label_at, entries)
        if arms is None:
            continue
        removed, guarded = arms
        size = sum(_counted(body[j]) for j, _ in guarded) + _same_guard_after(fn, body, instr, guarded[-1][0] + 1)
        if size > MAX_INSTRUCTIONS:
            continue
        if any(not _predicable(body[j], instr.pred or "") for j, _ in guarded):
            continue
        for j in removed:
            body[j] = Instr(NOP, (), body[j].line, body[j].column, inlined_at=body[j].inlined_at)
        for j, taken in guarded:
            negated = instr.pred_negated if taken else not instr.pred_negated
            body[j] = replace(body[j], pred=instr.pred, pred_negated=negated)
    return body


def _next_real(body: list[Instr], k: int) -> int:
    """The first instruction at or after k that is not a no-op (len(body) past the end)."""
    while k < len(body) and body[k].opcode == NOP:
        k += 1
    return k


def _guarded_target(fn: Function, body: list[Instr], i: int) -> int | None:
    """The target of a guarded `bra` at i (None for anything else)."""
    return fn.branch_target(body[i]) if body[i].pred is not None else None


def _arm_to_the_target(
    fn: Function, body: list[Instr], i: int, target: int, label_at: set[int]
) -> tuple[list[int], list[tuple[int, bool]]] | None:
    """`J: ... @p bra J; A; bra J` (A straight, ending in an unguarded jump back to the branch's
    own target): A guarded by !p, the jump kept, so every lane goes on to J as before. The shape
    of an `if` at the end of a loop body whose join is the loop's head (HeCBench entropy's
    unrolled 5 x 5 window: its SASS predicates the arm, `@!P3 LDS ... @!P3 STS`, and jumps back),
    where a branch to the head would split the warp for the next iteration. Not where J is a
    barrier (module docstring)."""
    fall = i + 1
    if fall in label_at:
        return None
    end = fall
    while end < len(body) and end not in label_at and body[end].base not in CONTROL:
        end += 1
    if end == fall or end == len(body) or end in label_at:
        return None
    last = body[end]
    if last.base != "bra" or last.pred is not None or fn.branch_target(last) != target or _exits(body, target):
        return None
    if target > i or body[_next_real(body, target)].base in ("bar", "barrier"):
        return None  # a loop's head only, and not a barrier (module docstring)
    return [i], [(k, False) for k in range(fall, end)]


def _arms(
    fn: Function, body: list[Instr], i: int, target: int, label_at: set[int], entries: Counter[int]
) -> tuple[list[int], list[tuple[int, bool]]] | None:
    """(branches to remove, [(instruction, runs where the branch is taken)]) for a triangle or
    diamond at the branch i, or None where the code has another shape."""

    def straight(start: int, end: int) -> bool:  # no label inside (start itself may be one)
        return start < end and not any(k in label_at for k in range(start + 1, end))

    def jump(k: int) -> int | None:  # an unguarded forward bra at k: its target
        to = fn.branch_target(body[k]) if body[k].pred is None else None
        return to if to is not None and to > k else None

    fall = i + 1
    if fall in label_at:
        return None
    first = jump(fall)
    if first is not None and target == fall + 1:
        # @p bra T; bra F; T: B; bra J; F: A; J:
        f = first
        if entries[target] != 1 or entries[f] != 1 or not (target < f - 1):
            return None
        join = jump(f - 1)
        if join is None or join < f or not straight(target, f - 1) or not straight(f, join):
            return None
        if _exits(body, join):
            return None
        return [i, fall, f - 1], [(k, True) for k in range(target, f - 1)] + [(k, False) for k in range(f, join)]
    join = jump(target - 1)
    if join is not None and join > target and entries[target] == 1:
        # @p bra T; A; bra J; T: B; J:
        if not straight(fall, target - 1) or not straight(target, join) or _exits(body, join):
            return None
        return [i, target - 1], [(k, False) for k in range(fall, target - 1)] + [(k, True) for k in range(target, join)]
    # @p bra J; A; J:
    if not straight(fall, target) or _exits(body, target):
        return None
    return [i], [(k, False) for k in range(fall, target)]


def _exits(body: list[Instr], join: int) -> bool:
    """Whether the join point is the function's return (ptxas guards the arm by an early EXIT)."""
    k = _next_real(body, join)
    return k == len(body) or body[k].base in ("ret", "exit")


def _predicable(instr: Instr, guard: str) -> bool:
    if instr.opcode == NOP:
        return True
    if instr.pred is not None or instr.base in CONTROL or instr.base in _COLLECTIVE:
        return False
    if guard in register_writes(instr):
        return False
    return not has_slow_path_branch(instr)


def _counted(instr: Instr) -> int:
    return 0 if instr.opcode == NOP else 1


def _same_guard_after(fn: Function, body: list[Instr], branch: Instr, join: int) -> int:
    """The length of a second region that the same condition skips right after the join (`if
    (t == 0) {...} ... if (t == 0) {...}` with nothing between): ptxas guards the two as one."""
    k = _next_real(body, join)
    if k == len(body) or body[k].pred != branch.pred or body[k].pred_negated != branch.pred_negated:
        return 0
    end = fn.branch_target(body[k])
    return sum(_counted(i) for i in body[k + 1 : end]) if end is not None and end > k else 0
