"""What ptxas does to PTX that changes results: contracting a multiply and an add into one FFMA.

The PTX ISA lets the code generator fuse `mul` and `add`/`sub` that carry no rounding modifier
into a fused multiply-add; ptxas does so by default (nvcc/NVRTC `--fmad=true`), so the GPU rounds
once where the PTX, read literally, rounds twice. The rule reproduced here, checked bit for bit
against an H100 (benchmarks/hw/ptx_corpus_run/): an `add`/`sub` of type f32 or f64 without a
rounding modifier whose first (else second) source is the result of such a `mul` in the same
basic block, read nowhere else and with its sources unchanged in between, becomes
`fma.rn` -- and the `mul` disappears (`sub d, m1, m2` fuses m1: fma(a1, b1, -m2)).

The same holds for an f32 `div.full` / `div.approx`, which ptxas lowers to MUFU.RCP and a
multiply: that multiply and the add become one FFMA (read off the SASS of every form,
benchmarks/hw/div_contraction/; Triton's `1 / tl.sqrt(var / n + eps)` is one). The add becomes
`div.MODE.fma[.ftz].f32 d, a, b, c` (a / b + c with the division's own multiply fused), which
the engine computes as the GPU does where MUFU.RCP is measured (mufu.py).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from perfcalc.sim.ptx.parse import Function, Instr
from perfcalc.sim.ptx.registers import register_reads, register_writes

_ROUNDINGS = ("rn", "rz", "rm", "rp")
NOP = "perfcalc.nop"


def _fusable(instr: Instr, base: str) -> bool:
    parts = instr.parts
    return (
        instr.base == base
        and instr.pred is None
        and len(parts) >= 2
        and parts[-1] in ("f32", "f64")
        and not any(r in parts for r in _ROUNDINGS)
        and "sat" not in parts
    )


def _fusable_division(instr: Instr) -> str | None:
    """The mode ("full" or "approx") of an unguarded f32 division, which ptxas ends with a
    multiply; None for any other instruction."""
    parts = instr.parts
    if instr.base != "div" or instr.pred is not None or parts[-1] != "f32" or "fma" in parts:
        return None
    return next((mode for mode in ("full", "approx") if mode in parts), None)


def contract(fn: Function) -> list[Instr]:
    """The body with ptxas's mul+add contractions applied (same length: fused muls become
    no-ops, so label indices stay valid)."""
    body = list(fn.body)
    uses: Counter[str] = Counter()
    for instr in body:
        for r in register_reads(instr):  # a store's address included
            uses[r] += 1
    block_starts = set(fn.labels.values())
    for i, instr in enumerate(body):
        if instr.base not in ("add", "sub") or not _fusable(instr, instr.base):
            continue
        t = instr.parts[-1]
        ftz = "ftz" in instr.parts
        for position in (1, 2):
            reg = instr.operands[position].strip()
            if not reg.startswith("%") or uses[reg] != 1:
                continue
            j = _definition(body, i, reg, block_starts)
            if j is None:
                continue
            product = body[j]  # a mul, or a division ending in one
            division = _fusable_division(product)
            if not (division or _fusable(product, "mul")) or product.parts[-1] != t or ("ftz" in product.parts) != ftz:
                continue
            if _redefined(body, j, i, register_reads(product)):
                continue
            a, b = (s.strip() for s in product.operands[1:3])
            other = instr.operands[3 - position].strip()
            if instr.base == "add":
                fused = (a, b, other)
            elif position == 1:  # (a*b) - other
                fused = (a, b, _negate(other))
            else:  # other - (a*b)
                fused = (_negate(a), b, other)
            opcode = f"fma.rn{'.ftz' if ftz else ''}.{t}"
            if division:
                opcode = f"div.{division}.fma{'.ftz' if ftz else ''}.{t}"
            body[i] = replace(instr, opcode=opcode, operands=(instr.operands[0], *fused))
            body[j] = replace(product, opcode=NOP, operands=())
            break
    return body


def _definition(body: list[Instr], i: int, reg: str, block_starts: set[int]) -> int | None:
    """Index of the instruction that last wrote `reg` before i within i's basic block."""
    if i in block_starts:
        return None
    for j in range(i - 1, -1, -1):
        if reg in register_writes(body[j]):
            return j
        if j in block_starts or body[j].base in ("bra", "ret", "exit", "bar", "call"):
            return None
    return None


def _redefined(body: list[Instr], j: int, i: int, regs: list[str]) -> bool:
    return any(set(register_writes(body[k])) & set(regs) for k in range(j + 1, i))


def _negate(operand: str) -> str:
    return operand[1:] if operand.startswith("-") else "-" + operand
