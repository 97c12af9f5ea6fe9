"""Shared-memory races between warps on the PTX engine (issue #8 point 7).

The C engine's rule (sim/csubset/memories.py, execution.md 4.2), per 4-byte word of a block's
shared memory: within one barrier interval, a read of a word another warp wrote (RAW), or a
write of a word another warp read (WAR) or wrote (WAW, also within one instruction), is a fault.
Accesses within one warp are ordered by lockstep and not reported. The interval is per chunk of
blocks: it ends when the chunk passes a bar.sync.

No false reports, possible misses: accesses under 4 bytes, atomics, and blocks whose shared size
is not a multiple of 4 are not checked (a word-granular shadow could mistake two warps' bytes of
one word for a race).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

import numpy as np

from perfcalc.sim.safety import FaultSignal
from perfcalc.sim.separable import Sep


class Chunk(Protocol):
    """What the race shadow needs of execute.Chunk (which builds on this module)."""

    n: int

    def fault(
        self, kind: str, instr: Instr, lanes: np.ndarray, what: str, array: str | None = None, index: int | None = None
    ) -> FaultSignal: ...

    def race_found(self, signal: FaultSignal) -> bool: ...


if TYPE_CHECKING:
    from perfcalc.sim.ptx.parse import Instr
    from perfcalc.sim.ptx.sep_access import AccessPlan

_WARP_BITS = 32
_WARP = (1 << _WARP_BITS) - 1
_MANY = _WARP  # several warps read the word in this interval


_LANES: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # chunk lanes -> (lane numbers, warp + 1)


def _all_lanes(n: int) -> tuple[np.ndarray, np.ndarray]:
    found = _LANES.get(n)
    if found is None:
        lanes = np.arange(n, dtype=np.int64)
        found = _LANES[n] = (lanes, lanes // 32 + 1)
    return found


def _words(
    flat: np.ndarray | Sep, mask: np.ndarray, size: int, full: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(active lanes, the lane of each word touched, the words, their warps + 1) of an access.
    `full` with a separable 4-byte access: from the Core's cached indices, no per-lane search."""
    if full and size == 4 and isinstance(flat, Sep):
        lanes, warp = _all_lanes(mask.size)
        return lanes, lanes, flat.index64() >> 2, warp
    lanes = np.flatnonzero(mask)
    per = size // 4
    lane_of = np.tile(lanes, per) if per > 1 else lanes
    words = ((flat[lanes] >> 2)[None, :] + np.arange(per, dtype=np.int64)[:, None]).reshape(-1)
    warp = (lane_of // 32 + 1).astype(np.int64)
    return lanes, lane_of, words, warp


def _span(offset: np.ndarray | Sep, size: int) -> tuple[int, int]:
    """Block-local bytes [lo, hi) an access may touch: exact for a Sep, everything otherwise."""
    if isinstance(offset, Sep):
        lo, hi = offset.bounds()
        return lo, hi + size
    return 0, 1 << 62


def _overlaps(span: tuple[int, int], other: tuple[int, int] | None) -> bool:
    return other is not None and span[0] < other[1] and other[0] < span[1]


def _cover(span: tuple[int, int] | None, more: tuple[int, int]) -> tuple[int, int]:
    """The smallest span holding both (a cover can only send later accesses down the full
    check, never skip one that needs it)."""
    if span is None:
        return more
    return (min(span[0], more[0]), max(span[1], more[1]))


class SharedRaces:
    """Shadows of one chunk's shared memory: (interval, warp) of the last writer and reader."""

    def __init__(self, nbytes: int, stride: int, width: int):
        self.enabled = stride % 4 == 0 and nbytes > 0
        words = nbytes // 4 if self.enabled else 0
        self.wtag = np.zeros(words, dtype=np.int64)
        self.wline = np.zeros(words, dtype=np.int32)
        self.rtag = np.zeros(words, dtype=np.int64)
        self.rline = np.zeros(words, dtype=np.int32)
        self.width = width  # lanes per block in the chunk layout
        self.epoch = 1
        self.wrote = False  # a write happened in this interval (else reads cannot race yet)
        # reads of this interval not yet in rtag: (flat byte index, lane mask, size, line), turned
        # into words and warps only when a write comes in the same interval (most intervals only
        # read: a tiled loop's body), so a read before any write costs nothing here. The arrays
        # are the access's own (never written to afterwards).
        self.pending: list[tuple[np.ndarray | Sep | tuple[AccessPlan, int], np.ndarray, int, int]] = []
        # whole-chunk separable writes of this interval not yet in wtag: each touched bytes no
        # earlier access of the interval touched (byte spans within a block, below) and no two
        # lanes of a block share a word, so it cannot have raced yet; its tags are written only
        # when a later access overlaps it (a tiled loop's stores never are)
        self.deferred: list[tuple[Sep, np.ndarray, int]] = []  # (flat bytes, lanes, line)
        # block-local bytes [lo, hi) covering this interval's accesses, and its deferred writes
        self.span: tuple[int, int] | None = None
        self.deferred_span: tuple[int, int] | None = None

    def barrier(self) -> None:
        self.epoch += 1
        self.wrote = False
        self.pending.clear()
        self.deferred.clear()
        self.span = self.deferred_span = None

    def read_planned(self, ch: Chunk, instr: Instr, plan: AccessPlan, e: int, at: int, mask: np.ndarray) -> None:
        """`access` for a whole-chunk planned read (sep_access.py) at element offset e, address
        offset `at`: while no write of the interval is recorded, only its span and a pending
        entry are noted (its byte indices made only if a write of the interval needs them)."""
        if not self.enabled or plan.size < 4:
            return
        span = (plan.least + at, plan.most + at + plan.size)
        self._meet_deferred(span)
        if self.wrote:
            self.access(ch, instr, plan.flat_bytes(e), plan.offsets(at), mask, plan.size, False, full=True)
            return
        self.span = _cover(self.span, span)
        self.pending.append(((plan, e), mask, plan.size, instr.line))

    def _meet_deferred(self, span: tuple[int, int]) -> None:
        """Before an access that may touch the deferred writes' bytes: write their tags (they
        were checked when they happened)."""
        if not self.deferred or not _overlaps(span, self.deferred_span):
            return
        now = np.int64(self.epoch << _WARP_BITS)
        for flat, mask, line in self.deferred:
            _, _, words, warp = _words(flat, mask, 4, full=True)
            self.wtag[words] = now | warp
            self.wline[words] = line
        self.wrote = True
        self.deferred.clear()
        self.deferred_span = None

    def access(
        self,
        ch: Chunk,
        instr: Instr,
        flat: np.ndarray | Sep,
        offset: np.ndarray | Sep,
        mask: np.ndarray,
        size: int,
        write: bool,
        full: bool = False,
    ) -> None:
        """Check and record one shared access: `flat` byte index in the chunk's storage,
        `offset` the byte offset in the block, for the lanes of `mask` (either may be a Sep:
        a read before any write keeps it as it is). `full`: every lane of the chunk is in it."""
        if not self.enabled or size < 4:
            return
        span = _span(offset, size)
        self._meet_deferred(span)
        if (
            write
            and full
            and size == 4
            and isinstance(flat, Sep)
            and not _overlaps(span, self.span)
            and flat.lanes_distinct()
        ):
            self.deferred.append((flat, mask, instr.line))
            self.deferred_span = _cover(self.deferred_span, span)
            self.span = _cover(self.span, span)
            return
        self.span = _cover(self.span, span)
        if not write and not self.wrote:
            self.pending.append((flat, mask, size, instr.line))
            return
        lanes, lane_of, words, warp = _words(flat, mask, size, full)
        if lanes.size == 0:
            return
        if self.wrote:  # RAW / WAW: another warp wrote the word in this interval
            w = self.wtag[words]
            hit = ((w >> _WARP_BITS) == self.epoch) & ((w & _WARP) != warp)
            if hit.any():
                self._fault(
                    ch, instr, lane_of, hit, offset, size, "write" if write else "read", "write", self.wline[words], w
                )
        if not write:
            self.pending.append((flat, mask, size, instr.line))
            return
        self._absorb_reads()
        now = np.int64(self.epoch << _WARP_BITS)
        r = self.rtag[words]
        hit = ((r >> _WARP_BITS) == self.epoch) & ((r & _WARP) != warp)
        if hit.any():
            self._fault(ch, instr, lane_of, hit, offset, size, "write", "read", self.rline[words], r)
        tag = now | warp
        self.wtag[words] = tag
        # lanes of a block on distinct words (blocks never share shared memory): no two lanes of
        # the chunk wrote one word in this instruction
        if full and isinstance(flat, Sep) and flat.lanes_distinct():
            self.wline[words] = instr.line
            self.wrote = True
            return
        clash = self.wtag[words] != tag  # two warps wrote one word in this instruction
        if clash.any():
            self._fault(
                ch,
                instr,
                lane_of,
                clash,
                offset,
                size,
                "write",
                "write",
                np.full(words.size, instr.line, np.int32),
                self.wtag[words],
            )
        self.wline[words] = instr.line
        self.wrote = True

    def _absorb_reads(self) -> None:
        """Turn this interval's pending reads into reader tags (several warps: _MANY)."""
        now = np.int64(self.epoch << _WARP_BITS)
        for flat, mask, size, line in self.pending:
            if isinstance(flat, tuple):  # a planned read: (plan, element offset)
                flat = flat[0].flat_bytes(flat[1])
            _, _, words, warp = _words(flat, mask, size)
            r = self.rtag[words]
            other = ((r >> _WARP_BITS) == self.epoch) & ((r & _WARP) != warp)
            tag = np.where(other, now | _MANY, now | warp)
            self.rtag[words] = tag
            several = self.rtag[words] != tag  # read by two warps in one instruction
            if several.any():
                self.rtag[words[several]] = now | _MANY
            self.rline[words] = line
        self.pending.clear()

    def _fault(
        self,
        ch: Chunk,
        instr: Instr,
        lane_of: np.ndarray,
        hit: np.ndarray,
        offset: np.ndarray | Sep,
        size: int,
        now: str,
        before: str,
        lines: np.ndarray,
        tags: np.ndarray,
    ) -> None:
        k = int(np.flatnonzero(hit)[0])
        lane = int(lane_of[k])
        other = int(tags[k] & _WARP)
        who = "several warps" if other == _MANY else f"warp {(other - 1) % (self.width // 32)}"
        mine = (lane % self.width) // 32
        lanes = np.zeros(ch.n, dtype=bool)
        lanes[lane] = True
        start = int(offset[lane])
        signal = ch.fault(
            "shared_race",
            instr,
            lanes,
            f"Race on __shared__ bytes {start}..{start + size - 1}: {now} by warp "
            f"{mine} after a {before} by {who} at line {int(lines[k])} with no "
            f"__syncthreads() between",
        )
        if not ch.race_found(signal):
            raise signal
        self.enabled = False  # kept: this chunk runs on unchecked (its first race is the report)
