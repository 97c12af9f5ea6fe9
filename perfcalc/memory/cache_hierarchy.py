"""The L1/L2 model over a launch's global address stream (issue #9, part 1).

Fed by the instrumented machine (`sim/pricing.Pricer`), whichever front end ran: every global
warp access arrives with its lanes' byte addresses, active lanes, size and kind, one chunk of
resident blocks at a time.

Schedule (documented, cache-models.md: PPT-GPU's round-robin dispatch and interleaving):
- Blocks go to SMs in waves: block b runs on SM b mod S; a wave is S x (blocks per SM from the
  occupancy model) consecutive blocks, and the engines run one wave per chunk while caches are
  modelled, in lock-step as the hardware's resident blocks progress together.
- Within one warp instruction of a wave, warps are taken slot by slot (warp 0 of every block,
  then warp 1, ...), so SMs interleave at the shared L2.

Policies per CC family (specs/families.GlobalFamily, memory.md 1.3-1.6):
- Loads allocate in the SM's L1 when the family caches loads there (7.x+ by default; 2.x and
  3.x per cache mode; 5.x/6.x L2 only); otherwise they go to the L2 directly.
- Stores write through to L2 without allocating in L1 (2.x: they also invalidate the L1 line);
  the L2 is write-back and allocates on writes without reading (a write counts as an L2 hit,
  as the H100's lookup counters show); dirty sectors become DRAM writes when evicted.
- A warp's store instructions that follow each other (no other global access of the warp
  between them, as the engines issue them) and touch at most `store_merge_lines` 128-byte
  lines in all are merged in the L1: only sectors the group has not yet written go to the L2
  again (the H100 writes a warp's stride-2 and stride-3 4-byte stores to L2 as whole sectors,
  benchmarks/hw/serialisation_h100). What reaches the L2 is still written there in full.
- Atomics and reductions are performed at the L2 (read-modify-write, bypassing L1).
- A miss in L2 fetches the aligned piece of `dram_fetch_bytes` around each missed sector (64 on
  the H100 and H200, by their drivers and a stride-32 copy); DRAM reads are those fills.
Reported L1 hit rates are of global loads (Nsight Compute's
l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate); L2 hit rates of every lookup the SMs make.
The L1's capacity is what the unified L1/shared array leaves after the shared-memory carveout
the occupancy model chose; the L2's is the product's `l2_cache_kb`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .atomic_contention import ContentionTally
from .block_sample import BlockSample
from .cache import SECTOR_BYTES, SECTOR_COUNT, CacheStats, SectoredLRU
from .lanes import active_lanes

_SECTOR_SHIFT = 5  # log2(SECTOR_BYTES)


@dataclass(frozen=True)
class CacheConfig:
    """What the model needs about the GPU and the launch."""

    sms: int
    blocks_per_sm: int
    l1_bytes: int
    l2_bytes: int
    l1_sectored: bool = True
    l1_caches_loads: bool = True
    stores_invalidate_l1: bool = False
    # bytes the DRAM delivers per L2 miss: the aligned 32-, 64- or 128-byte piece of the line
    # around each missed sector (devices/ l2_fetch_granularity_bytes); the unasked sectors are
    # in flight, so their first lookup still counts as a miss but fetches nothing more
    dram_fetch_bytes: int = SECTOR_BYTES
    # a warp's back-to-back store instructions on at most this many lines in all merge in the
    # L1 before the L2 (0: never; devices/timing.yaml store_merge_lines, measured)
    store_merge_lines: int = 0

    @property
    def blocks_per_wave(self) -> int:
        return self.sms * max(1, self.blocks_per_sm)


@dataclass(frozen=True)
class SiteCaches:
    """One source line's share: its accesses' hit rates and the traffic they caused (DRAM
    writes are evictions, which belong to no one line)."""

    l1_load_hit_rate: float | None
    l2_hit_rate: float | None
    l2_bytes_read: int
    l2_bytes_written: int
    dram_bytes_read: int


@dataclass(frozen=True)
class CacheReport:
    """Hit rates (fractions 0..1, None when nothing was looked up) and bytes per level."""

    l1_load_hit_rate: float | None
    l2_hit_rate: float | None
    l2_bytes_read: int
    l2_bytes_written: int
    dram_bytes_read: int
    dram_bytes_written: int
    l2_dirty_bytes_at_end: int
    config: CacheConfig
    per_site: dict[int, SiteCaches]
    # L1 wavefronts of global accesses: one per warp instruction and 128-byte line it touches
    global_wavefronts: int = 0
    # totals (TOTAL_FIELDS) when each chunk of blocks began, then at the end, and each chunk's
    # block count: what block sampling extrapolates from (analysis/sampling.py)
    chunk_totals: tuple[tuple[int, ...], ...] = ()
    chunk_blocks: tuple[int, ...] = ()
    # wall-clock seconds at each chunk's start and at the end (what a chunk costs to simulate)
    chunk_clock: tuple[float, ...] = field(default=(), compare=False)
    # the lines atomics contend for most: (combined requests, float lanes, exchange lanes) each
    # (memory/atomic_contention.py), hottest first
    atomic_hot_lines: tuple[tuple[float, float, float], ...] = ()


# the running totals CacheHierarchy keeps, in order (sectors, except wavefronts)
TOTAL_FIELDS = (
    "l1_hits",
    "l1_lookups",
    "l2_hits",
    "l2_lookups",
    "l2_read",
    "l2_write",
    "dram_read",
    "dram_write",
    "wavefronts",
)


def _rate(hits: int, lookups: int) -> float | None:
    return hits / lookups if lookups else None


class CacheHierarchy:
    """Per-SM L1 caches and one shared L2, fed warp access by warp access."""

    def __init__(self, config: CacheConfig, sample: BlockSample | None = None, request_budget: int | None = None):
        self.config = config
        self.contention = ContentionTally()
        # with a sample, the run simulates only its blocks (sim/sampling.py)
        self.sample = sample
        # without one, a run of every block (whole programs) may stop feeding the model at the
        # first wave boundary past this many requests (global wavefronts): the later waves run
        # exactly, outside the model, and analysis/sampling.extrapolate_caches extrapolates
        self.request_budget = request_budget
        self.recording = True
        l1_fill = 1 if config.l1_sectored else 4
        self.l1_stats = CacheStats()  # one tally for every SM's L1: only totals are reported
        self.l1 = [SectoredLRU(config.l1_bytes, l1_fill, stats=self.l1_stats) for _ in range(config.sms)]
        self.l2 = SectoredLRU(
            config.l2_bytes, config.dram_fetch_bytes // SECTOR_BYTES, writes_hit=True, pending_miss=True
        )
        self.l2_read_sectors = 0
        self.l2_write_sectors = 0
        # per source line: L1 hits, L1 lookups, L2 hits, L2 lookups, L2 sectors read and
        # written, sectors filled from DRAM
        self.sites: dict[int, list[int]] = {}
        self.wavefronts = 0
        self.chunk_totals: list[tuple[int, ...]] = []
        self.chunk_blocks: list[int] = []
        self.chunk_clock: list[float] = []
        self._block_ids = np.zeros(1, dtype=np.int64)
        self._lanes_per_block = 32
        # store merging: per warp (block id, warp slot), the serial number of its last store
        # instruction and the sector bits its merge group has written, by line
        self._serial = 0
        self._groups: dict[tuple[int, int], tuple[int, dict[int, int]]] = {}

    def stop_recording(self) -> None:
        """Follow no more of the launch: what follows is neither fed nor snapshotted, so the
        report covers the chunks so far (chunk_blocks says how many blocks)."""
        self.recording = False

    def past_budget(self) -> bool:
        """Whether a run of every block should stop feeding the model here (a wave boundary)."""
        return self.recording and self.request_budget is not None and self.wavefronts >= self.request_budget

    def begin_chunk(self, block_ids: np.ndarray, lanes_per_block: int) -> None:
        """The blocks (in lane order) the following accesses' lanes belong to."""
        if not self.recording:
            return
        self.chunk_totals.append(tuple(self._totals()))
        self.chunk_blocks.append(int(np.asarray(block_ids).size))
        self.chunk_clock.append(time.perf_counter())
        self._block_ids = np.asarray(block_ids, dtype=np.int64)
        self._lanes_per_block = int(lanes_per_block)
        self._groups.clear()  # the chunk's warps are new ones

    def record(self, addr: np.ndarray, mask: np.ndarray | None, size: int, op: str, site: int = 0) -> None:
        """One warp instruction over the chunk's lanes: byte addresses `addr` (lane order of
        the chunk), active lanes `mask` (None: all), access size in bytes, op load | store |
        atomic, from source line `site`."""
        addr, lane = active_lanes(addr, mask)
        if addr.size == 0:
            return
        first = addr >> _SECTOR_SHIFT
        last = (addr + (size - 1)) >> _SECTOR_SHIFT
        warp = lane >> 5
        sectors, warps = first, warp
        spans = last > first
        if spans.any():  # a lane's bytes cross a sector boundary (size > alignment)
            extra = [first[spans] + k for k in range(1, int((last - first).max()) + 1)]
            ws = [warp[spans]] * len(extra)
            keep = [e <= last[spans] for e in extra]
            sectors = np.concatenate([first] + [e[k] for e, k in zip(extra, keep, strict=True)])
            warps = np.concatenate([warp] + [w[k] for w, k in zip(ws, keep, strict=True)])
        wpb = self._lanes_per_block >> 5
        block_local = warps // wpb
        slot = warps % wpb
        line = sectors >> 2
        bit = np.left_shift(1, sectors & 3)
        order = np.lexsort((line, block_local, slot))
        line, bit, block_local, slot = line[order], bit[order], block_local[order], slot[order]
        # one request per (warp, line): OR the sector bits of equal neighbours
        start = np.ones(line.size, dtype=bool)
        start[1:] = (line[1:] != line[:-1]) | (block_local[1:] != block_local[:-1]) | (slot[1:] != slot[:-1])
        idx = np.flatnonzero(start)
        bits = np.bitwise_or.reduceat(bit, idx)
        self.wavefronts += int(idx.size)
        sm = self._block_ids[block_local[idx]] % self.config.sms
        self._serial += 1
        before = self._totals()
        lines = line[idx]
        if op == "store" and self.config.store_merge_lines:
            bits = self._merge_stores(block_local[idx], slot[idx], lines, bits)
            sent = bits != 0
            sm, lines, bits = sm[sent], lines[sent], bits[sent]
        self._feed(sm.tolist(), lines.tolist(), bits.tolist(), op)
        after = self._totals()
        acc = self.sites.setdefault(site, [0] * len(after))
        for k, (x, y) in enumerate(zip(before, after, strict=True)):
            acc[k] += y - x

    def _merge_stores(
        self, block_local: np.ndarray, slot: np.ndarray, line: np.ndarray, bits: np.ndarray
    ) -> np.ndarray:
        """The sector bits of each (warp, line) request that still go to the L2 (module
        docstring): a warp's request joins its merge group when the group was formed by the
        warp's previous instruction and the lines of both fit the limit."""
        out = bits.copy()
        limit, serial = self.config.store_merge_lines, self._serial
        blocks = self._block_ids[block_local].tolist()
        slots, lines, bl = slot.tolist(), line.tolist(), bits.tolist()
        k, n = 0, len(lines)
        while k < n:
            end = k + 1
            while end < n and slots[end] == slots[k] and blocks[end] == blocks[k]:
                end += 1
            key = (blocks[k], slots[k])
            group = self._groups.get(key)
            mine = lines[k:end]
            if group is not None and group[0] == serial - 1 and len(set(group[1]).union(mine)) <= limit:
                written = group[1]
                for j in range(k, end):
                    old = written.get(lines[j], 0)
                    out[j] = bl[j] & ~old
                    written[lines[j]] = old | bl[j]
                self._groups[key] = (serial, written)
            elif end - k <= limit:
                self._groups[key] = (serial, dict(zip(mine, bl[k:end], strict=True)))
            else:
                self._groups.pop(key, None)
            k = end
        return out

    def _totals(self) -> list[int]:
        l1, l2 = self.l1_stats, self.l2.stats
        return [
            l1.hit_sectors,
            l1.lookups,
            l2.hit_sectors,
            l2.lookups,
            self.l2_read_sectors,
            self.l2_write_sectors,
            l2.filled_sectors,
            l2.written_back_sectors,
            self.wavefronts,
        ]

    def _feed(self, sms: list[int], lines: list[int], bits: list[int], op: str) -> None:
        l1, l2, count = self.l1, self.l2, SECTOR_COUNT
        if op == "load":
            if self.config.l1_caches_loads:
                for s, ln, b in zip(sms, lines, bits, strict=True):
                    need = l1[s].access(ln, b)
                    if need:
                        self.l2_read_sectors += count[need]
                        l2.access(ln, need)
            else:
                for ln, b in zip(lines, bits, strict=True):
                    self.l2_read_sectors += count[b]
                    l2.access(ln, b)
        elif op == "store":
            invalidate = self.config.stores_invalidate_l1
            for s, ln, b in zip(sms, lines, bits, strict=True):
                if invalidate:
                    l1[s].invalidate(ln)
                self.l2_write_sectors += count[b]
                l2.access(ln, b, write=True)
        else:  # atomic / reduction: read-modify-write at the L2
            for ln, b in zip(lines, bits, strict=True):
                self.l2_read_sectors += count[b]
                self.l2_write_sectors += count[b]
                l2.access(ln, b)
                l2.mark_dirty(ln, b)

    def report(self) -> CacheReport:
        """Totals. DRAM writes are the dirty sectors the L2 evicted during the kernel; what is
        still dirty at its end stays in L2 (the H100 shows no DRAM writes for kernels whose
        output fits in L2: dram__bytes_write.sum = 0 in benchmarks/hw/caches_run)."""
        dirty = sum(SECTOR_COUNT[bits] for bits in self.l2.dirty.values())
        l2 = self.l2.stats
        return CacheReport(
            l1_load_hit_rate=self.l1_stats.hit_rate,
            l2_hit_rate=l2.hit_rate,
            l2_bytes_read=self.l2_read_sectors * SECTOR_BYTES,
            l2_bytes_written=self.l2_write_sectors * SECTOR_BYTES,
            dram_bytes_read=l2.filled_sectors * SECTOR_BYTES,
            dram_bytes_written=l2.written_back_sectors * SECTOR_BYTES,
            l2_dirty_bytes_at_end=dirty * SECTOR_BYTES,
            config=self.config,
            global_wavefronts=self.wavefronts,
            chunk_totals=(*self.chunk_totals, tuple(self._totals())),
            chunk_blocks=tuple(self.chunk_blocks),
            chunk_clock=(*self.chunk_clock, time.perf_counter()),
            atomic_hot_lines=self.contention.hottest(),
            per_site={
                line: SiteCaches(
                    l1_load_hit_rate=_rate(v[0], v[1]),
                    l2_hit_rate=_rate(v[2], v[3]),
                    l2_bytes_read=v[4] * SECTOR_BYTES,
                    l2_bytes_written=v[5] * SECTOR_BYTES,
                    dram_bytes_read=v[6] * SECTOR_BYTES,
                )
                for line, v in sorted(self.sites.items())
            },
        )
