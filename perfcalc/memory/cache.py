"""A sectored LRU cache: the building block of the L1/L2 model (issue #9, part 1).

Geometry (reference/memory.md 1.4-1.6, cache-models.md point 2): lines of 128 bytes made of four
32-byte sectors that share one tag. A lookup names a line and the sectors it wants; sectors
already present hit, the others miss and are filled (a sectored cache fetches only what was
asked, memory.md 1.5). A non-sectored cache (the 2.x/3.x L1, memory.md 1.4: "a miss on one
sector is promoted to the whole 128 B line") fills all four sectors on a miss; an L2 whose DRAM
fetch is 64 bytes fills the missed sector's aligned pair.

Replacement is least-recently-used over the whole cache (fully associative). NVIDIA publishes
no set count, associativity or hash for any L1 or L2; a fully associative LRU of the right
capacity is the documented approximation here (its hit rates are compared with the H100's
counters in benchmarks/hw, not fitted to them). `tests/test_cache_model.py` proves this
implementation equal to a brute-force list model on random streams.

Writes (`write=True`) mark sectors dirty; an evicted dirty sector is written back, which is
how the L2 turns stores into DRAM writes (what is dirty at the end stays there). With
`writes_hit` (the L2) a write allocates its sectors without reading and counts as hits. A cache
of no capacity passes everything through, counting no lookups: reads are fetched (filled) and
writes written back at once.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

LINE_BYTES = 128
SECTOR_BYTES = 32
SECTORS_PER_LINE = LINE_BYTES // SECTOR_BYTES
FULL_LINE = (1 << SECTORS_PER_LINE) - 1
SECTOR_COUNT = tuple(  # sectors in each 4-bit sector mask
    bin(m).count("1") for m in range(1 << SECTORS_PER_LINE)
)


def _expand(group: int) -> tuple[int, ...]:
    """For each sector mask, the aligned groups of `group` sectors it touches, as a mask."""
    pieces = [((1 << group) - 1) << (k * group) for k in range(SECTORS_PER_LINE // group)]
    return tuple(sum(p for p in pieces if m & p) for m in range(1 << SECTORS_PER_LINE))


@dataclass
class CacheStats:
    """Sector counts of one cache: lookups that hit or missed, sectors filled from below
    (reads the next level sees) and dirty sectors written back to it."""

    hit_sectors: int = 0
    miss_sectors: int = 0
    filled_sectors: int = 0
    written_back_sectors: int = 0

    @property
    def lookups(self) -> int:
        return self.hit_sectors + self.miss_sectors

    @property
    def hit_rate(self) -> float | None:
        """Hits over lookups (None: the cache saw no lookup)."""
        return self.hit_sectors / self.lookups if self.lookups else None


class SectoredLRU:
    """One cache: `capacity_bytes` of 128-byte lines, LRU over the whole cache."""

    def __init__(
        self,
        capacity_bytes: int,
        fill_sectors: int = 1,
        writes_hit: bool = False,
        pending_miss: bool = False,
        stats: CacheStats | None = None,
    ):
        self.max_lines = max(0, int(capacity_bytes) // LINE_BYTES)
        # a miss fills the aligned group of `fill_sectors` around each missed sector: 1 for a
        # sectored cache, 4 (the line) for the 2.x/3.x L1, 2 for an L2 whose DRAM fetches 64 B
        if fill_sectors not in (1, 2, 4):
            raise ValueError(f"fill_sectors {fill_sectors}: must be 1, 2 or 4")
        self._fill = _expand(fill_sectors)
        # a write validates its sectors without a fetch and is counted as a hit (the H100's L2:
        # lts__t_sectors_srcunit_tex_op_write_lookup_hit equals ..._op_write on every launch
        # of benchmarks/hw/caches_run)
        self.writes_hit = writes_hit
        # sectors a fill brought in unasked are still in flight when the lock-step warps ask
        # for them: their first lookup counts as a miss that costs no second fetch (the H100's
        # L2 with 64-byte DRAM fetches: a copy misaligned by 4 bytes reads exactly its size
        # from DRAM but hits no more than the aligned copy, benchmarks/hw/caches_run)
        self.pending_miss = pending_miss
        self.pending: dict[int, int] = {}  # line -> sectors filled but not yet asked for
        self.present: OrderedDict[int, int] = OrderedDict()  # line -> sector bits present
        self.dirty: dict[int, int] = {}  # line -> dirty sector bits
        self.stats = CacheStats() if stats is None else stats  # may be shared by several caches

    def access(self, line: int, sectors: int, write: bool = False) -> int:
        """Look up `sectors` (a 4-bit mask) of `line`; return the sectors the next level must
        supply: a read's fill (the missed sectors' fill groups), a write's missed sectors."""
        st = self.stats
        if self.max_lines == 0:  # no cache (CC 1.x has no L2 for global data): pass through
            if write:
                st.written_back_sectors += SECTOR_COUNT[sectors]
                return sectors
            fill = self._fill[sectors]
            st.filled_sectors += SECTOR_COUNT[fill]
            return fill
        have = self.present.get(line)
        if write and self.writes_hit:
            if have is None:
                if len(self.present) >= self.max_lines:
                    self._evict()
                have = 0
            else:
                self.present.move_to_end(line)
                self._settle(line, sectors)
            st.hit_sectors += SECTOR_COUNT[sectors]
            self.present[line] = have | sectors
            self.dirty[line] = self.dirty.get(line, 0) | sectors
            return 0
        if have is None:
            have = 0
            st.miss_sectors += SECTOR_COUNT[sectors]
            if len(self.present) >= self.max_lines:
                self._evict()
            missed = sectors
        else:
            self.present.move_to_end(line)
            missed = sectors & ~have
            valid = have & ~self._settle(line, sectors)
            st.hit_sectors += SECTOR_COUNT[sectors & valid]
            st.miss_sectors += SECTOR_COUNT[sectors & ~valid]
        fill = self._fill[missed] & ~have
        if write:  # a written sector needs no read; the rest of its fill group does
            need = fill & ~sectors
            self.dirty[line] = self.dirty.get(line, 0) | sectors
        else:
            need = fill
        self.present[line] = have | fill
        st.filled_sectors += SECTOR_COUNT[need]
        if self.pending_miss and fill & ~sectors:
            self.pending[line] = self.pending.get(line, 0) | (fill & ~sectors)
        return need if not write else missed

    def _settle(self, line: int, sectors: int) -> int:
        """The line's pending sectors before this lookup; those it asks for arrive now."""
        pend = self.pending.get(line, 0)
        if pend & sectors:
            rest = pend & ~sectors
            if rest:
                self.pending[line] = rest
            else:
                del self.pending[line]
        return pend

    def mark_dirty(self, line: int, sectors: int) -> None:
        """Record a write to sectors already looked up (an atomic's read-modify-write)."""
        if self.max_lines == 0:
            self.stats.written_back_sectors += SECTOR_COUNT[sectors]
        elif line in self.present:
            self.dirty[line] = self.dirty.get(line, 0) | sectors

    def _evict(self) -> None:
        victim, _bits = self.present.popitem(last=False)
        self.pending.pop(victim, None)
        dirty = self.dirty.pop(victim, 0)
        if dirty:
            self.stats.written_back_sectors += SECTOR_COUNT[dirty]

    def invalidate(self, line: int) -> None:
        """Drop a line without writing it back (a 2.x store invalidating its L1 copy)."""
        self.present.pop(line, None)
        self.dirty.pop(line, None)
        self.pending.pop(line, None)
