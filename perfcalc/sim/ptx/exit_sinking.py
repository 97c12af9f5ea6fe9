"""What ptxas does with a float value read only past an early exit: it computes it there.

A warp reduction's last step, `v += __shfl_down_sync(m, v, 1); if (lane == 0) out[w] = v;`, is in
PTX an add, then `@%p bra` to the function's `ret`, then the store. ptxas makes the branch an early
`@P0 EXIT` and moves the add below it (our gemv_warp and HeCBench's logprob for sm_90:
`SHFL.DOWN; @P0 EXIT; FADD; STG`), so only the lanes that stay issue it and Nsight Compute's flop
counters count 31 fewer lanes a warp than the PTX's order gives.

The shape (benchmarks/hw/ifconvert_h100/, benchmarks/hw/flops_sass/): an unguarded f32/f64 add,
sub, mul or fma, written once and read once, by an unguarded instruction after a guarded branch to
an instruction that returns, with no label, other branch, barrier or call between the two. A
region that ptxas predicates instead (if_conversion.py) keeps its value where it is: logprob's
`@!P0 STS` of a reduction's sum is preceded by an unpredicated FADD.
"""

from __future__ import annotations

from perfcalc.sim.ptx.parse import CONTROL, FLOAT_ARITHMETIC, Function, Instr
from perfcalc.sim.ptx.registers import readers_and_writers, register_writes


def sunk_past_exits(fn: Function, body: list[Instr]) -> dict[int, int]:
    """Index of a value's instruction -> index of its one reader, past an early exit."""
    reads, writes = readers_and_writers(body)
    starts = set(fn.labels.values())
    found: dict[int, int] = {}
    for i, instr in enumerate(body):
        if instr.base not in FLOAT_ARITHMETIC or instr.parts[-1] not in ("f32", "f64") or instr.pred is not None:
            continue
        written = register_writes(instr)
        if len(written) != 1 or len(writes[written[0]]) != 1 or len(reads[written[0]]) != 1:
            continue
        reader = reads[written[0]][0]
        if reader > i and body[reader].pred is None and _past_one_early_exit(fn, body, i, reader, starts):
            found[i] = reader
    return found


def _past_one_early_exit(fn: Function, body: list[Instr], at: int, reader: int, starts: set[int]) -> bool:
    between = range(at + 1, reader)
    if any(k in starts for k in range(at + 1, reader + 1)):
        return False
    control = [k for k in between if body[k].base in CONTROL]
    if len(control) != 1:
        return False
    branch = body[control[0]]
    target = fn.branch_target(branch) if branch.pred is not None else None
    return target is not None and target < len(body) and body[target].base in ("ret", "exit")
