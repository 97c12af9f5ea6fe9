"""How many machine (SASS) instructions one PTX instruction becomes, where it is a sequence.

The PTX engine counts PTX instructions; the GPU issues SASS. Most PTX arithmetic is one SASS
instruction, but a 64-bit integer multiply is four (IMAD.WIDE.U32 and IMADs), a correctly rounded
division, reciprocal or square root is a Newton-Raphson sequence around a MUFU approximation, and
the non-flush-to-zero MUFU forms add denormal handling. The counts below were measured on an
H100 (sm_90, CUDA 13.0): each form 32 times in a dependent chain, Nsight Compute's
`smsp__inst_executed` of the probe minus a baseline, per warp and instruction
(benchmarks/hw/sass_expansion_on_gpu.py; raw files in benchmarks/hw/sass_expansion_h100/), on
normal operands (the slow paths for special values are not taken). The engine weights a step's
instruction count by them on CC 9.x, where they were measured; other CCs count one per PTX
instruction, as before. Integer division by a variable is the time model's own rule (its
`int_divide` kind), not this table's.
"""

from __future__ import annotations

from perfcalc.sim.ptx.parse import Instr

# opcode -> SASS instructions per PTX instruction (measured, rounded down from e.g. 4.12)
_MEASURED_SM90: dict[str, int] = {
    "mul.lo.u64": 4,
    "mul.lo.s64": 4,
    "mad.lo.u64": 4,
    "mad.lo.s64": 4,
    "mul.hi.u64": 7,
    "mul.hi.s64": 7,
    "shl.b64": 2,
    "div.rn.f32": 10,
    "div.full.f32": 3,
    "rcp.rn.f32": 10,
    "sqrt.rn.f32": 10,
    "sqrt.approx.f32": 4,
    "rsqrt.approx.f32": 4,
    "lg2.approx.f32": 4,
    "sin.approx.f32": 2,
    "cos.approx.f32": 2,
    "div.rn.f64": 16,
    "rcp.rn.f64": 11,
    "sqrt.rn.f64": 18,
}


def sass_instructions(instr: Instr, cc_major: int) -> int:
    """Machine instructions the GPU issues for one execution of `instr` (1 where not measured)."""
    if cc_major != 9:
        return 1
    # a division fused with the add it fed (contract.py) issues what the division did: its
    # FMUL became the FFMA that absorbed the add
    return _MEASURED_SM90.get(instr.opcode.replace(".fma.", "."), 1)


def has_slow_path_branch(instr: Instr) -> bool:
    """Whether ptxas emits the instruction with a branch of its own: a correctly rounded division,
    reciprocal or square root checks its operands (FCHK, or an exponent test) and calls a slow
    path for special values, which ends the SASS's basic block there (if_conversion.py leaves
    such an arm a branch; shared_merge.py merges no loads across it: surfel's tile kernel)."""
    return instr.base in ("div", "rcp", "sqrt") and ("f64" in instr.parts or "rn" in instr.parts)
