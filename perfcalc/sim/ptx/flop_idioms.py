"""Two places where the SASS's flops differ from reading the PTX one instruction at a time.

- `sin.approx` and `cos.approx` of one value share their range reduction: both MUFU.SIN and
  MUFU.COS read one `FMUL.RZ x, 1/(2 pi)` (our fast_intrinsics for sm_90, `FMUL.RZ R10; MUFU.SIN
  R9, R10; MUFU.COS R11, R10`; HeCBench's fhd, `__cosf(e)` and `__sinf(e)` in its loop: 15 flops
  an iteration on the H100 where counting each reduction gives 16). The second counts none.
- `cvt.sat.f32.f32` (`__saturatef`) is `FADD.SAT R, RZ, x`, one flop, unless x is an add, multiply
  or fma read only there, which then saturates itself (`FFMA.SAT` in expf's range reduction:
  HeCBench's expdist; fast_intrinsics' `__saturatef(v)` of a loaded v is the FADD.SAT).
"""

from __future__ import annotations

from perfcalc.sim.ptx.parse import CONTROL, FLOAT_ARITHMETIC, Function, Instr
from perfcalc.sim.ptx.registers import readers_and_writers, register_writes


def flop_overrides(fn: Function, body: list[Instr]) -> dict[int, int]:
    """Instruction index -> the flops its SASS counts, where that differs from flop_weight."""
    reads, writes = readers_and_writers(body)
    starts = set(fn.labels.values())
    found: dict[int, int] = {}
    reduced: dict[str, int] = {}  # value -> the sin/cos that reduced it, in this stretch
    for i, instr in enumerate(body):
        if i in starts or instr.base in CONTROL:
            reduced.clear()
        if instr.base in ("sin", "cos") and "approx" in instr.parts and instr.pred is None:
            source = instr.operands[1].strip()
            if source in reduced:
                found[i] = 0
            reduced[source] = i
        elif instr.opcode in ("cvt.sat.f32.f32", "cvt.sat.ftz.f32.f32") and instr.pred is None:
            found[i] = 0 if _saturates_itself(body, instr.operands[1].strip(), reads, writes) else 1
        for r in register_writes(instr):  # a register written again holds another value
            reduced.pop(r, None)
    return found


def _saturates_itself(body: list[Instr], value: str, reads: dict[str, list[int]], writes: dict[str, list[int]]) -> bool:
    if len(writes[value]) != 1 or len(reads[value]) != 1:
        return False
    producer = body[writes[value][0]]
    return producer.base in FLOAT_ARITHMETIC and producer.parts[-1] == "f32" and producer.pred is None
