"""What ptxas does to PTX that changes what is counted: merging scalar shared loads into one
vector load (LDS.64, LDS.128), and scalar shared stores into one vector store (STS.64, STS.128).

A register tile's loads `ld.shared.f32 [r]`, `[r+4]`, `[r+8]`, `[r+12]` are one `LDS.128` in the
H100's SASS when ptxas can prove `r + 0` is 16-byte aligned (benchmarks/hw/lds_vectorization_h100/:
the example GEMM's 128 `ld.shared.f32` of a tile are 32 `LDS.128`; at TN = 2 its B loads are
`LDS.64`), and CUB's block reduction's thread 0 reads the other warps' sums as `LDS`, `LDS.128`,
`LDS.64` (HeCBench's attention, benchmarks/hw/ifconvert_h100/). A warp then makes one request, not
four. The rule reproduced here: in one basic block, scalar `ld.shared` of one width (4 or 8
bytes) under one guard (or none: an if-converted arm's pair is one `@!P1 LDS.64`) from one base
(a register, or the block's shared memory for a variable's name: two variables side by side are
one base) at consecutive offsets, the first offset a multiple of the vector's bytes and the base
known to be a multiple of them, are one access of the vector's bytes at the first load's place,
where nothing in between writes shared memory (a global store does not), orders it (barrier,
fence, call) or ends the SASS's basic block (a correctly rounded division or square root, whose
slow path is a branch), or touches the base register, the guard or the later loads'
destinations.

Only the counting changes: every load still runs as the PTX says (and keeps the engine's fast
path); the one at the vector's address (its lowest offset) is priced as the whole vector access
(its requests, wavefronts, bank conflicts and issued instruction), the others as nothing. The
engine applies it from CC 7.0 on, the targets
CUDA 13's ptxas builds, whose shared-memory rules are one family (devices/); it was checked on
sm_90's SASS only. Older CCs, whose bank rules for 16-byte accesses differ and were not checked
against a merged kernel, count the PTX's loads.

Stores merge by the same rule mirrored (16-bit ones too: a pair of shorts is one 32-bit STS,
where 16-bit loads stay LDS.U16): scalar `st.shared` of one width and guard from one base
at consecutive offsets, aligned as above, are one vector store issued at the last one's place
(its values are all computed there: HeCBench's scan, benchmarks/hw/remaining_sass/, stores
`temp[2*thid]` and `temp[2*thid+1]` as one `STS.64` where the PTX has two `st.shared.u32`), where
nothing in between reads shared memory or orders it, stores to shared memory through another base
(it might alias) or to one of the vector's words, ends the SASS's basic block, or writes the base
register or an earlier store's value.

What the base register is known to be a multiple of comes from a forward analysis of trailing
zero bits: a shared variable's address is its offset in the block's shared memory (the engine's
layout, as ptxas's: declaration order, each at its alignment), and adds, shifts, multiplies and
mads combine their operands' known zeros; anything else (a thread index, a loaded value) knows
none."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from perfcalc.sim.ptx.contract import NOP
from perfcalc.sim.ptx.load_schedule import leaders
from perfcalc.sim.ptx.parse import Instr
from perfcalc.sim.ptx.registers import register_reads, register_writes
from perfcalc.sim.ptx.sass_expansion import has_slow_path_branch

_ALL = 64  # "every low bit is zero" (the value 0)
SHARED = "<shared>"  # the base of an access through a shared variable's name: the window's start, 0
_ADDRESS = re.compile(r"^\[\s*(%?[\w$.]+)\s*(?:\+\s*(-?\d+))?\s*\]$")
_LOAD_WIDTH = {"f32": 4, "b32": 4, "u32": 4, "s32": 4, "f64": 8, "b64": 8, "u64": 8, "s64": 8}
# ptxas packs 16-bit stores too (scan<short>'s pair is one 32-bit STS) but loads each 16-bit
# value on its own (LDS.U16): benchmarks/hw/remaining_sass/scan-cuda
_STORE_WIDTH = {**_LOAD_WIDTH, "u16": 2, "s16": 2, "b16": 2}
_ORDERS = frozenset({"bar", "barrier", "membar", "fence", "call", "wmma", "ldmatrix", "stmatrix", "cp"})
_OTHER_SPACES = frozenset({"global", "local", "const", "param", "tex"})


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


def _scalar_shared_load(instr: Instr, symbols: dict[str, int]) -> tuple[str, int, int] | None:
    """(base register, or SHARED for a shared variable's address; offset; bytes) of a scalar
    ld.shared [reg+off] or [var+off] (CUB's block reduction reads its temp storage by name),
    else None."""
    if instr.base != "ld" or not instr.operands[0].strip().startswith("%"):
        return None
    return _scalar_shared(instr, 1, symbols, _LOAD_WIDTH)


def _scalar_shared_store(instr: Instr, symbols: dict[str, int]) -> tuple[str, int, int] | None:
    """(base, offset, bytes) of a scalar st.shared [reg+off] or [var+off], else None."""
    return _scalar_shared(instr, 0, symbols, _STORE_WIDTH) if instr.base == "st" else None


def _scalar_shared(
    instr: Instr, address_at: int, symbols: dict[str, int], widths: dict[str, int]
) -> tuple[str, int, int] | None:
    """(base, offset, bytes) of a scalar, non-volatile shared access of a type in `widths`, its
    address the operand at `address_at`. A variable's address is its place in the block's shared
    memory, so two variables side by side are one base, SHARED (adamw's `absmax_exp` and
    `absmax_sq`, at 32 and 36, are one STS.64 at 32 in its SASS, benchmarks/hw/remaining_sass/)."""
    parts = instr.parts
    if "shared" not in parts or len(instr.operands) != 2:
        return None
    if any(p.startswith("v") and p[1:].isdigit() for p in parts) or "volatile" in parts:
        return None
    width = widths.get(parts[-1])
    m = _ADDRESS.match(instr.operands[address_at].strip())
    if width is None or m is None:
        return None
    if m.group(1) in symbols:
        return SHARED, symbols[m.group(1)] + int(m.group(2) or 0), width
    return m.group(1), int(m.group(2) or 0), width


def merged_shared_loads(body: list[Instr], labels: dict[str, int], symbols: dict[str, int]) -> dict[int, int]:
    """Index of each merged load -> the bytes a lane's access is priced as: the vector's at the
    load of its lowest offset (the vector's own address), 0 at the others."""
    found: dict[int, int] = {}
    known = known_zeros(body, symbols)
    # loads never merge across a shared store, barrier or fence: each stretch between them on its
    # own (an unrolled loop's second tile reads the same offsets again after its barrier), nor
    # across a division or square root whose slow-path branch ends the SASS's block
    for start, end in _stretches(body, labels, _cuts_loads):
        # (base, bytes, guard) -> offset -> position: loads of one width merge whatever their
        # types (CUB's temp storage of a u32 and four f32s is read as LDS.64 pairs of both in
        # kurtosis's SASS)
        loads: dict[tuple[str, int, tuple[str, bool] | None], dict[int, int]] = {}
        for pc in range(start, end):
            scalar = _scalar_shared_load(body[pc], symbols)
            if scalar is not None:
                base, offset, width = scalar
                loads.setdefault((base, width, _guard(body[pc])), {}).setdefault(offset, pc)
        for (base, width, guard), at in loads.items():
            _merge(body, at, (base, width, guard), _base_zeros(base, known), found, _movable)
    return found


def _stretches(body: list[Instr], labels: dict[str, int], cut: Callable[[Instr], bool]) -> Iterator[tuple[int, int]]:
    """Each basic block's stretches [start, end) between the instructions no merge may cross."""
    starts = leaders(body, labels)
    for start, end in zip(starts, [*starts[1:], len(body)], strict=True):
        cuts = [pc for pc in range(start, end) if cut(body[pc])]
        for a, b in zip([start, *[c + 1 for c in cuts]], [*cuts, end], strict=True):
            if b > a:
                yield a, b


def _base_zeros(base: str, known: dict[str, int]) -> int:
    """The low bits known zero in a base: all for SHARED (offsets are then absolute), the
    register's known zeros, none for anything else (an extern variable's unknown place)."""
    return _ALL if base == SHARED else known.get(base, 0)


def _merge(
    body: list[Instr],
    at: dict[int, int],
    group: tuple[str, int, tuple[str, bool] | None],
    zeros: int,
    found: dict[int, int],
    movable: Callable[[list[Instr], list[int], str], bool],
) -> None:
    """The vectors of one (base, width, guard), whose base has `zeros` low bits known zero,
    widest first from each lowest offset: `at` maps an offset to its access's position; a
    vector's bytes go to its lowest offset, 0 to the others; `movable` says whether the accesses
    may be issued together."""
    base, width, guard = group
    taken: set[int] = set()
    for offset in sorted(at):
        if offset in taken:
            continue
        for lanes in (4, 2):
            size = lanes * width
            if size > 16 or offset % size or zeros < size.bit_length() - 1:
                continue
            offsets = [offset + k * width for k in range(lanes)]
            if any(o not in at or o in taken for o in offsets):
                continue
            positions = [at[o] for o in offsets]
            if movable(body, positions, base) and _guard_kept(body, positions, guard):
                found.update({p: 0 for p in positions})
                found[at[offset]] = size  # priced at the vector's own address, its lowest
                taken.update(offsets)
                break


def _guard(instr: Instr) -> tuple[str, bool] | None:
    """The access's guard (predicate, negated), None for an unguarded one: only accesses under
    the same guard merge (scan's and blelloch's `@!P1 LDS.64`, `@!P6 STS.64` of if-converted
    arms, benchmarks/hw/remaining_sass/, ifconvert_h100/)."""
    return None if instr.pred is None else (instr.pred, instr.pred_negated)


def _guard_kept(out: list[Instr], positions: list[int], guard: tuple[str, bool] | None) -> bool:
    """Nothing between the first and the last access writes their guard."""
    if guard is None:
        return True
    return not any(guard[0] in register_writes(out[k]) for k in range(min(positions) + 1, max(positions)))


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


def _may_reach_shared(instr: Instr) -> bool:
    """A memory instruction in the shared space, or a generic one (its address may be shared)."""
    return any(p.startswith("shared") for p in instr.parts) or not _OTHER_SPACES.intersection(instr.parts)


def _cut(instr: Instr, other_side: tuple[str, ...]) -> bool:
    """What no merged access moves past: a memory operation of the other side (for loads, a
    shared store or atomic; for stores, a shared load or atomic) that may reach shared memory, an
    order (barrier, fence, call, a matrix or asynchronous copy), a slow-path branch. A global
    store does not cut loads (the corpus's blelloch scan reads its two results as one LDS.64
    between which the PTX stores the first to global memory), nor a global load stores."""
    if instr.base in other_side:
        return _may_reach_shared(instr)
    return instr.base in _ORDERS or has_slow_path_branch(instr)


def _cuts_loads(instr: Instr) -> bool:
    return _cut(instr, ("st", "atom", "red"))


def _cuts_stores(instr: Instr) -> bool:
    return _cut(instr, ("ld", "ldu", "atom", "red"))


def merged_shared_stores(body: list[Instr], labels: dict[str, int], symbols: dict[str, int]) -> dict[int, int]:
    """Index of each merged store -> the bytes a lane's access is priced as: the vector's at the
    store of its lowest offset (the vector's own address), 0 at the others."""
    found: dict[int, int] = {}
    known = known_zeros(body, symbols)
    for start, end in _stretches(body, labels, _cuts_stores):
        stores: dict[tuple[str, int, tuple[str, bool] | None], dict[int, int]] = {}
        every: dict[tuple[str, int], int] = {}  # stores to a word whatever their guard: one only merges
        for pc in range(start, end):
            scalar = _scalar_shared_store(body[pc], symbols)
            if scalar is not None:
                base, offset, width = scalar
                stores.setdefault((base, width, _guard(body[pc])), {})[offset] = pc
                every[(base, offset)] = every.get((base, offset), 0) + 1
        for (base, width, guard), at in stores.items():
            alone = {o: pc for o, pc in at.items() if every[(base, o)] == 1}
            _merge(body, alone, (base, width, guard), _base_zeros(base, known), found, _stores_movable)
    return found


def _stores_movable(out: list[Instr], positions: list[int], base: str) -> bool:
    """Can every store wait for the last one's place? Nothing between the first and the last may
    write the base register or an earlier store's value, or store to shared memory other than
    these stores (through another base it might alias; through this one it could only be one of
    their words, which merged_shared_stores already left out)."""
    first, last = min(positions), max(positions)
    members = set(positions)
    for k in range(first + 1, last):
        between = out[k]
        if between.opcode == NOP or k in members:
            continue
        if between.base == "st" and _may_reach_shared(between):
            return False  # another shared store, or a generic one that may reach shared memory
        writes = register_writes(between)
        if base in writes:
            return False
        for q in positions:
            if q < k and out[q].operands[1].strip() in writes:
                return False
    return True
