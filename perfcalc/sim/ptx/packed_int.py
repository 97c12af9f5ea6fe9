"""Packed 16-bit integer arithmetic (.u16x2 / .s16x2, PTX ISA 8.0, sm_90): what CUDA's
__vadd2, __vsub2, __vmins2, __vmaxu2 and their relatives compile to on Hopper. Each 32-bit
register holds two half-words, operated on separately; add and sub wrap, min and max compare as
signed or unsigned, and `.relu` (s16x2 min/max only) clamps a negative result to zero."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from perfcalc.errors import CudaSyntaxError
from perfcalc.sim.ptx.execute import Chunk, Env, operand
from perfcalc.sim.ptx.instructions import Op
from perfcalc.sim.ptx.parse import Instr

PACKED_INT_TYPES = ("u16x2", "s16x2")
_OPS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "sub": np.subtract,
    "min": np.minimum,
    "max": np.maximum,
}


def build_packed_int16(instr: Instr, env: Env) -> Op:
    """add / sub / min / max{.relu} on .u16x2 or .s16x2; anything else is refused by name."""
    t = next(p for p in instr.parts if p in PACKED_INT_TYPES)
    extra = [p for p in instr.parts[1:] if p != t]
    relu = extra == ["relu"] and t == "s16x2" and instr.base in ("min", "max")
    if instr.base not in _OPS or (extra and not relu):
        raise CudaSyntaxError(
            f"{instr.opcode} at line {instr.line}: of the packed 16-bit integer operations only "
            "add, sub, min and max (.relu on s16x2 min/max) are implemented"
        )
    fn = _OPS[instr.base]
    half = np.int16 if t == "s16x2" else np.uint16
    d = instr.operands[0].strip()
    a, b = (operand(o, "b32", env) for o in instr.operands[1:3])

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        x, y = (np.ascontiguousarray(np.broadcast_to(np.asarray(r(ch), dtype=np.uint32), m.shape)) for r in (a, b))
        # each uint32 viewed as two half-words: element 0 is bits 0-15 (little-endian, as on the GPU)
        hx, hy = x.view(half), y.view(half)
        with np.errstate(over="ignore"):
            out = fn(hx, hy).astype(half)
        if relu:
            out = np.maximum(out, half(0))
        ch.write(d, np.ascontiguousarray(out).view(np.uint32), m, full)

    return run
