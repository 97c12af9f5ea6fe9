"""What ptxas does to PTX that changes what is counted: merging scalar shared loads into one
vector load (LDS.64, LDS.128).

A register tile's loads `ld.shared.f32 [r]`, `[r+4]`, `[r+8]`, `[r+12]` are one `LDS.128` in the
H100's SASS when ptxas can prove `r + 0` is 16-byte aligned (benchmarks/hw/lds_vectorization_h100/:
the example GEMM's 128 `ld.shared.f32` of a tile are 32 `LDS.128`; at TN = 2 its B loads are
`LDS.64`), and CUB's block reduction's thread 0 reads the other warps' sums as `LDS`, `LDS.128`,
`LDS.64` (HeCBench's attention, benchmarks/hw/ifconvert_h100/). A warp then makes one request, not
four. The rule reproduced here: in one basic block, unpredicated scalar `ld.shared` of one type (4
or 8 bytes) from one base register at consecutive offsets, the first offset a multiple of the
vector's bytes and the base register known to be a multiple of them, are one access of the
vector's bytes at the first load's place, where nothing in between writes shared memory, orders it
(barrier, fence, call) or ends the SASS's basic block (a correctly rounded division or square
root, whose slow path is a branch), or touches the base register or the later loads'
destinations.

Only the counting changes: every load still runs as the PTX says (and keeps the engine's fast
path); the one at the vector's address (its lowest offset) is priced as the whole vector access
(its requests, wavefronts, bank conflicts and issued instruction), the others as nothing. The
engine applies it from CC 7.0 on, the targets
CUDA 13's ptxas builds, whose shared-memory rules are one family (devices/); it was checked on
sm_90's SASS only. Older CCs, whose bank rules for 16-byte accesses differ and were not checked
against a merged kernel, count the PTX's loads.

What the base register is known to be a multiple of comes from a forward analysis of trailing
zero bits: a shared variable's address is its offset in the block's shared memory (the engine's
layout, as ptxas's: declaration order, each at its alignment), and adds, shifts, multiplies and
mads combine their operands' known zeros; anything else (a thread index, a loaded value) knows
none."""

from __future__ import annotations

import re

from perfcalc.sim.ptx.contract import NOP
from perfcalc.sim.ptx.load_schedule import leaders
from perfcalc.sim.ptx.parse import Instr
from perfcalc.sim.ptx.registers import register_reads, register_writes
from perfcalc.sim.ptx.sass_expansion import has_slow_path_branch

_ALL = 64  # "every low bit is zero" (the value 0)
_ADDRESS = re.compile(r"^\[\s*(%?[\w$.]+)\s*(?:\+\s*(-?\d+))?\s*\]$")
_WIDTH = {"f32": 4, "b32": 4, "u32": 4, "s32": 4, "f64": 8, "b64": 8, "u64": 8, "s64": 8}
_ORDERS = frozenset({"st", "atom", "red", "bar", "barrier", "membar", "fence", "call", "wmma", "stmatrix", "cp"})


def _zeros_of_int(value: int) -> int:
    return _ALL if value == 0 else (value & -value).bit_length() - 1


def _operand_zeros(text: str, known: dict[str, int], symbols: dict[str, int]) -> int:
    text = text.strip()
    if text in symbols:
        return _zeros_of_int(symbols[text])
    try:
        return _zeros_of_int(int(text, 0))
    except ValueError:
        return known.get(text, 0) if text.startswith("%") else 0


def _result_zeros(instr: Instr, known: dict[str, int], symbols: dict[str, int]) -> int:
    z = [_operand_zeros(o, known, symbols) for o in instr.operands[1:]]
    base, parts = instr.base, instr.parts
    if base in ("mov", "cvt", "cvta") and len(z) == 1:
        return z[0]
    if base in ("add", "sub") and len(z) == 2 and "f32" not in parts and "f64" not in parts:
        return min(z)
    if base == "shl" and len(z) == 2:
        try:
            return min(_ALL, z[0] + int(instr.operands[2].strip(), 0))
        except ValueError:
            return z[0]
    if base == "mul" and ("lo" in parts or "wide" in parts) and len(z) == 2:
        return min(_ALL, z[0] + z[1])
    if base == "mad" and ("lo" in parts or "wide" in parts) and len(z) == 3:
        return min(min(_ALL, z[0] + z[1]), z[2])
    if base == "and" and len(z) == 2:
        return max(z)
    return 0


def known_zeros(body: list[Instr], symbols: dict[str, int]) -> dict[str, int]:
    """Per register: how many low bits are known zero in every value it takes (a fixed point
    over all its definitions, from 'all' down)."""
    writes = [(i, register_writes(i)) for i in body if i.opcode != NOP]
    known = {r: _ALL for _, regs in writes for r in regs}
    changed = True
    while changed:
        changed = False
        for instr, regs in writes:
            value = _result_zeros(instr, known, symbols) if len(regs) == 1 else 0
            for r in regs:
                if value < known[r]:
                    known[r] = value
                    changed = True
    return known


def _scalar_shared_load(instr: Instr) -> tuple[str, int, int] | None:
    """(base register or shared variable, offset, bytes) of an unpredicated scalar ld.shared
    [reg+off] or [var+off] (CUB's block reduction reads its temp storage by name), else None."""
    parts = instr.parts
    if instr.base != "ld" or instr.pred is not None or "shared" not in parts or len(instr.operands) != 2:
        return None
    if any(p.startswith("v") and p[1:].isdigit() for p in parts) or "volatile" in parts:
        return None
    width = _WIDTH.get(parts[-1])
    m = _ADDRESS.match(instr.operands[1].strip())
    if width is None or m is None or not instr.operands[0].strip().startswith("%"):
        return None
    return m.group(1), int(m.group(2) or 0), width


def merged_shared_loads(body: list[Instr], labels: dict[str, int], symbols: dict[str, int]) -> dict[int, int]:
    """Index of each merged load -> the bytes a lane's access is priced as: the vector's at the
    load of its lowest offset (the vector's own address), 0 at the others."""
    found: dict[int, int] = {}
    known = known_zeros(body, symbols)
    starts = leaders(body, labels)
    for start, end in zip(starts, [*starts[1:], len(body)], strict=True):
        # loads never merge across a store, barrier or fence: each stretch between them on its own
        # (an unrolled loop's second tile reads the same offsets again after its barrier)
        # nor across a division or square root whose slow-path branch ends the SASS's block
        cuts = [pc for pc in range(start, end) if body[pc].base in _ORDERS or has_slow_path_branch(body[pc])]
        for a, b in zip([start, *[c + 1 for c in cuts]], [*cuts, end], strict=True):
            if b > a:
                _merge_block(body, a, b, known, symbols, found)
    return found


def _merge_block(
    out: list[Instr], start: int, end: int, known: dict[str, int], symbols: dict[str, int], found: dict[int, int]
) -> None:
    """The merges of one stretch (no store, barrier, fence or slow-path branch inside it)."""
    # (base, bytes) -> offset -> position: loads of one width merge whatever their types (CUB's
    # temp storage of a u32 and four f32s is read as LDS.64 pairs of both in kurtosis's SASS)
    loads: dict[tuple[str, int], dict[int, int]] = {}
    for pc in range(start, end):
        scalar = _scalar_shared_load(out[pc])
        if scalar is not None:
            base, offset, width = scalar
            loads.setdefault((base, width), {}).setdefault(offset, pc)
    for (base, width), at in loads.items():
        taken: set[int] = set()
        for offset in sorted(at):
            if offset in taken:
                continue
            for lanes in (4, 2):
                size = lanes * width
                if size > 16 or offset % size or _operand_zeros(base, known, symbols) < size.bit_length() - 1:
                    continue
                offsets = [offset + k * width for k in range(lanes)]
                if any(o not in at or o in taken for o in offsets):
                    continue
                positions = [at[o] for o in offsets]
                if _movable(out, positions, base):
                    found.update({p: 0 for p in positions})
                    found[at[offset]] = size  # priced at the vector's own address, its lowest
                    taken.update(offsets)
                    break


def _movable(out: list[Instr], positions: list[int], base: str) -> bool:
    """Can every load be issued at the first one's place? Nothing between may write the base
    register, or read or write a later load's destination (nothing in the stretch writes shared
    memory or orders it: merged_shared_loads cut the stretches there)."""
    first = min(positions)
    for q in positions:
        dest = out[q].operands[0].strip()
        for k in range(first + 1, q):
            between = out[k]
            if between.opcode == NOP:
                continue
            writes = register_writes(between)
            if base in writes or dest in writes or dest in register_reads(between):
                return False
    return True
