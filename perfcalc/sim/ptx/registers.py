"""Which registers a PTX instruction reads and which it writes: what ptxas's contraction
(contract.py) and the load-wait analysis (load_waits.py) both follow through the code."""

from __future__ import annotations

import re
from collections import defaultdict

from perfcalc.sim.ptx.parse import Instr
from perfcalc.sim.ptx.values import register_name

_REGISTER = re.compile(r"%[A-Za-z_$][\w$]*")
# opcodes whose first operand is read (an address, a predicate, a label), not written
_NO_DESTINATION = frozenset(
    {
        "st",
        "red",
        "bar",
        "barrier",
        "membar",
        "fence",
        "prefetch",
        "prefetchu",
        "bra",
        "brx",
        "ret",
        "exit",
        "trap",
        "call",
        "discard",
        "applypriority",
    }
)


def _registers(text: str) -> list[str]:
    return [r for r in _REGISTER.findall(text) if register_name(r)]


def register_reads(instr: Instr) -> list[str]:
    """The registers an instruction reads, its predicate included, once per mention (a value
    read twice by one instruction is listed twice)."""
    ops = instr.operands
    sources = ops if instr.base in _NO_DESTINATION else ops[1:]
    found = [r for op in sources for r in _registers(op)]
    return found + (_registers(instr.pred) if instr.pred is not None else [])


def register_writes(instr: Instr) -> list[str]:
    """The registers an instruction writes: its first operand's (`{a, b}` of a vector load and
    `p|q` of a setp included), none for the opcodes without a destination."""
    if instr.base in _NO_DESTINATION or not instr.operands:
        return []
    return _registers(instr.operands[0])


def reads_and_writes(instr: Instr) -> tuple[set[str], set[str]]:
    """The registers an instruction reads and those it writes, as sets."""
    return set(register_reads(instr)), set(register_writes(instr))


def readers_and_writers(body: list[Instr]) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """Per register, the indices of the instructions that read it and of those that write it, in
    order (the flop-placement analyses follow a value from its one writer to its readers)."""
    reads: dict[str, list[int]] = defaultdict(list)
    writes: dict[str, list[int]] = defaultdict(list)
    for i, instr in enumerate(body):
        for r in register_writes(instr):
            writes[r].append(i)
        for r in register_reads(instr):
            reads[r].append(i)
    return reads, writes
