"""What ptxas does to a select of a computed float: it predicates the computation instead.

`t = edge ? v + w : t;` is `add.f32 %f1, %fv, %fw; selp.f32 %f2, %f1, %ft, %p;` in PTX, and
ptxas writes it as `@P0 FADD R, Rv, Rw` into the register that already holds t: no select, and
the add runs only in the lanes that keep its result. Nsight Compute's flop counters
(`smsp__sass_thread_inst_executed_op_{fadd,fmul,ffma}_pred_on`) count the lanes whose predicate
is on, so such an add counts where it is selected, not in every lane as the PTX reads.

The shape, read off the SASS of HeCBench's complex, inversek2j and lif and our warp_scan compiled
for sm_90 (benchmarks/hw/flops_sass/, benchmarks/hw/ifconvert_h100/):
- a `selp.f32` whose two values are registers held in registers: with an immediate, or with a value
  that is an `abs`/`neg` of another (ptxas folds those into the reader's operand, `|R5|`, so no
  register holds it: adam's and particlefilter's logf scaling, `FMUL R6, |R5|, 8388608` and an
  FSEL), ptxas keeps the FSEL;
- a value defined once in the function by an unguarded f32 add, sub, mul or fma (contracted or
  not) that nothing else reads, with no label or branch between it and the select;
- if both values qualify, the one defined later (complex's Cabsf: `@P0 FADD` under an unpredicated
  FMUL; inversek2j's sign choice: the second FMUL predicated);
- an f64 select stays two FSELs with its DADD unpredicated (complex_double): not moved.
Only where the flops are counted changes: every value is computed as the PTX says.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from perfcalc.sim.ptx.parse import CONTROL, FLOAT_ARITHMETIC, Function, Instr
from perfcalc.sim.ptx.registers import readers_and_writers
from perfcalc.sim.ptx.values import register_name

_LITERAL = re.compile(r"^[-+]?(0[fdx][0-9a-f]+|\d+(\.\d*)?(e[-+]?\d+)?)$", re.IGNORECASE)
_FOLDED = {"abs", "neg"}  # SASS operand modifiers, not instructions


def select_predications(fn: Function, body: list[Instr]) -> dict[int, tuple[int, bool]]:
    """selp index -> (index of the instruction ptxas predicates on it, whether it is the value
    chosen where the predicate is true)."""
    reads, writes = readers_and_writers(body)
    starts = set(fn.labels.values())
    back_edges = [(i, t) for i, instr in enumerate(body) if (t := fn.branch_target(instr)) is not None and t <= i]
    found: dict[int, tuple[int, bool]] = {}
    for i, instr in enumerate(body):
        if instr.opcode != "selp.f32" or len(instr.operands) != 4:
            continue
        values = [instr.operands[1].strip(), instr.operands[2].strip()]
        if not all(register_name(v) and _in_a_register(body, writes[v]) for v in values):
            continue
        chosen = [
            (writes[v][0], on_true)
            for v, on_true in zip(values, (True, False), strict=True)
            if len(writes[v]) == 1 and len(reads[v]) == 1 and _predicable(body, writes[v][0], i, starts)
        ]
        if not chosen:
            continue
        at, on_true = max(chosen)
        kept = values[1] if on_true else values[0]
        # the kept value dies here, or is the select's own register (`s = p ? s : s + x` in a loop)
        if kept == instr.operands[0].strip() or _dies_at(i, reads[kept], writes[kept], back_edges):
            found[i] = (at, on_true)
    return found


def _dies_at(select: int, reads: list[int], writes: list[int], back_edges: list[tuple[int, int]]) -> bool:
    """Whether the kept value is read no more after the select, so that ptxas can write the
    predicated value over it (s3d's rdsmh_kernel reads its logf argument after the scaling's
    select: an FMUL and an FSEL there, the H100 counting the FMUL in every lane)."""
    if _read_before_written(select + 1, reads, writes):
        return False
    return not any(
        _read_before_written(target, reads, writes) for at, target in back_edges if at > select and target <= select
    )


def _read_before_written(start: int, reads: list[int], writes: list[int]) -> bool:
    """Whether, going on from `start` in the listing, the register is read before it is written."""
    r = bisect_left(reads, start)
    if r == len(reads):
        return False
    w = bisect_left(writes, start)
    return w == len(writes) or reads[r] <= writes[w]


def _in_a_register(body: list[Instr], writes: list[int]) -> bool:
    """Whether ptxas holds the value in a register of its own: not an abs/neg it folds into the
    reader's operand modifiers, nor a moved immediate."""
    if len(writes) != 1:
        return True
    instr = body[writes[0]]
    if instr.base in _FOLDED:
        return False
    return not (instr.base == "mov" and len(instr.operands) == 2 and _LITERAL.match(instr.operands[1].strip()))


def _predicable(body: list[Instr], at: int, select: int, starts: set[int]) -> bool:
    """An unguarded f32 add/sub/mul/fma at `at`, in the select's straight-line stretch."""
    instr = body[at]
    if at >= select or instr.pred is not None or instr.base not in FLOAT_ARITHMETIC or instr.parts[-1] != "f32":
        return False
    return not any(k in starts or body[k].base in CONTROL for k in range(at + 1, select + 1))
