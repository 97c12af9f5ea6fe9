"""The L1/L2 cache model (issue #9 part 1): the LRU against a brute-force reference, and whole
launches against closed-form derivations, identical whichever engine produced the stream."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from perfcalc.memory.cache import FULL_LINE, SectoredLRU
from perfcalc.memory.cache_hierarchy import CacheConfig, CacheHierarchy
from perfcalc.sim.engine import run_kernel
from perfcalc.sim.ptx import nvrtc
from perfcalc.specs import resolve_arch


class BruteForceCache:
    """The definition, written as plainly as possible: a list of [line, present, dirty] in
    recency order (last = most recent), scanned linearly."""

    def __init__(self, capacity_bytes: int, group: int, writes_hit: bool, pending_miss: bool = False):
        self.max_lines = capacity_bytes // 128
        self.group = group
        self.pending_miss = pending_miss
        self.writes_hit = writes_hit
        self.entries: list[list[int]] = []
        self.hits = self.misses = self.filled = self.written_back = 0

    def access(self, line: int, sectors: int, write: bool) -> int:
        wanted = [s for s in range(4) if sectors >> s & 1]
        if self.max_lines == 0:  # no cache: reads fetched (their fill group), writes passed on
            if write:
                self.written_back += len(wanted)
                return sectors
            fill = 0
            for s in wanted:
                first = s - s % self.group
                fill |= ((1 << self.group) - 1) << first
            self.filled += bin(fill).count("1")
            return fill
        for i, e in enumerate(self.entries):
            if e[0] == line:
                entry = self.entries.pop(i)
                break
        else:
            entry = None
        have = 0 if entry is None else entry[1]
        pending = 0 if entry is None else entry[3]
        if entry is not None:
            entry[3] &= ~sectors  # pending sectors asked for now have arrived
        if write and self.writes_hit:  # allocate without reading; every sector counts as hit
            self.hits += len(wanted)
            if self.max_lines == 0:
                return 0
            if entry is None:
                if len(self.entries) == self.max_lines:
                    self.written_back += bin(self.entries.pop(0)[2]).count("1")
                entry = [line, 0, 0, 0]
            entry[1] |= sectors
            entry[2] |= sectors
            self.entries.append(entry)
            return 0
        valid = have & ~pending
        self.hits += len([s for s in wanted if valid >> s & 1])
        self.misses += len([s for s in wanted if not valid >> s & 1])
        miss = [s for s in wanted if not have >> s & 1]
        if entry is None:
            if self.max_lines == 0:
                return sectors
            if len(self.entries) == self.max_lines:
                victim = self.entries.pop(0)
                self.written_back += bin(victim[2]).count("1")
            entry = [line, 0, 0, 0]
        missed = sum(1 << s for s in miss)
        fill = 0
        for s in miss:  # the whole aligned group of `group` sectors around each missed one
            first = s - s % self.group
            for t in range(first, first + self.group):
                if not have >> t & 1:
                    fill |= 1 << t
        entry[1] = have | fill
        if self.pending_miss:
            entry[3] |= fill & ~sectors
        if write:
            entry[2] |= sectors
            need = fill & ~sectors
            self.filled += bin(need).count("1")
            result = missed
        else:
            self.filled += bin(fill).count("1")
            result = fill
        self.entries.append(entry)
        return result


@pytest.mark.parametrize(
    "group, writes_hit, pending",
    [(1, False, False), (4, False, False), (1, True, False), (2, True, True), (4, False, True)],
)
@pytest.mark.parametrize("capacity_lines", [0, 1, 3, 16])
def test_lru_equals_brute_force_on_random_streams(group, writes_hit, pending, capacity_lines):
    rng = random.Random(1000 * capacity_lines + 10 * group + 2 * writes_hit + pending)
    fast = SectoredLRU(capacity_lines * 128, group, writes_hit, pending)
    slow = BruteForceCache(capacity_lines * 128, group, writes_hit, pending)
    for _ in range(5000):
        line = rng.randrange(40)
        sectors = rng.randrange(1, FULL_LINE + 1)
        write = rng.random() < 0.3
        assert fast.access(line, sectors, write) == slow.access(line, sectors, write)
    st = fast.stats
    assert (st.hit_sectors, st.miss_sectors, st.filled_sectors, st.written_back_sectors) == (
        slow.hits,
        slow.misses,
        slow.filled,
        slow.written_back,
    )
    assert slow.hits > 0 or capacity_lines == 0  # the stream really exercised reuse


MATMUL = r"""
__global__ void mm(const float* a, const float* b, float* c, int w) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  float s = 0.0f;
  for (int k = 0; k < w; ++k) s += a[row * w + k] * b[k * w + col];
  c[row * w + col] = s;
}
"""

W = 64  # 16 blocks of 16x16: one per SM of a 132-SM H100, each block's working set fits in L1


def _matmul_caches(engine: str, cc: str = "9.0", sms: int = 132):
    rng = np.random.default_rng(7)
    a = rng.random(W * W, dtype=np.float32)
    b = rng.random(W * W, dtype=np.float32)
    c = np.zeros(W * W, np.float32)
    arch = resolve_arch(cc)
    fam = arch.global_family
    model = CacheHierarchy(
        CacheConfig(
            sms=sms, blocks_per_sm=8, l1_bytes=128 * 1024, l2_bytes=50 << 20, l1_caches_loads=fam.l1_caches_loads(None)
        )
    )
    r = run_kernel(
        MATMUL, "mm", (W // 16, W // 16), (16, 16), {"a": a, "b": b, "c": c, "w": W}, arch, engine=engine, caches=model
    )
    np.testing.assert_allclose(c.reshape(W, W), a.reshape(W, W) @ b.reshape(W, W), rtol=1e-4)
    return r.caches


def test_naive_matmul_caches_match_the_derivation():
    """Per warp (two rows of 16 threads) and k: a[row*w+k] touches 2 sectors (one per row),
    b[k*w+col] 2 sectors (64 contiguous bytes): 4 lookups. A block alone on its SM misses each
    distinct sector once: 16 rows of A (16W/8 = 2W sectors) and W rows x 2 sectors of B (2W):
    4W misses against 8 warps x W x 4 lookups, so the L1 hit rate is 1 - 1/8. The L2 sees the
    misses; DRAM reads each input once (2 W^2 x 4 bytes) and writes C once (W^2 x 4)."""
    rep = _matmul_caches("source")
    nblocks = (W // 16) ** 2
    assert rep.l1_load_hit_rate == pytest.approx(1 - 1 / 8)
    assert rep.l2_bytes_read == nblocks * 4 * W * 32
    assert rep.dram_bytes_read == 2 * W * W * 4
    assert rep.dram_bytes_written == 0
    assert rep.l2_dirty_bytes_at_end == W * W * 4
    assert rep.l2_bytes_written == W * W * 4
    # L2: the sectors of A and B miss once (cold), every other lookup hits
    misses = 2 * W * W * 4 // 32
    looks = rep.l2_bytes_read // 32 + W * W * 4 // 32
    assert rep.l2_hit_rate == pytest.approx(1 - misses / looks)


def test_pascal_loads_bypass_l1():
    """memory.md 1.5: 5.x/6.x cache global loads in L2 only: every load sector goes to L2."""
    rep = _matmul_caches("source", cc="6.0", sms=56)
    warps = (W // 16) ** 2 * 8
    assert rep.l1_load_hit_rate is None
    assert rep.l2_bytes_read == warps * W * 4 * 32
    assert rep.dram_bytes_read == 2 * W * W * 4


@pytest.mark.skipif(not nvrtc.available(), reason="NVRTC (pip install nvidia-cuda-nvrtc) is not installed")
def test_both_engines_feed_the_same_stream():
    """The model sits in the shared machine: the compiled kernel gives the same report."""
    assert _matmul_caches("ptx") == _matmul_caches("source")


def test_l1_capacity_is_what_the_carveout_leaves():
    """cc_9_0.yaml: a 256 KB unified array, carveouts 0, 8, 16, 32, ... KB and 1 KB reserved
    per block. No shared memory: carveout 0, all 256 KB is L1. Eight resident blocks of the
    tiled matmul (two 16x16 float tiles = 2 KB, +1 KB reserved = 24 KB): the 32 KB carveout,
    224 KB of L1. 2.0's default split [48 KB shared, 16 KB L1]."""
    from perfcalc.analysis.caches import l1_bytes

    assert l1_bytes(resolve_arch("9.0"), 8, 0) == 256 * 1024
    assert l1_bytes(resolve_arch("9.0"), 8, 2048) == 224 * 1024
    assert l1_bytes(resolve_arch("2.0"), 8, 2048) == 16 * 1024
    assert l1_bytes(resolve_arch("6.0"), 8, 0) == 0


def test_run_with_gpu_reports_the_caches():
    """`perfcalc run matmul_naive --gpu h100-sxm -p Width=128`: 64 blocks on 132 SMs, one per SM,
    so the derivation above holds: L1 hit rate 7/8, DRAM reads both inputs once (2 x 128^2 x 4
    bytes), C (65,536 bytes) stays dirty in the L2."""
    from typer.testing import CliRunner

    from perfcalc.cli import app

    res = CliRunner().invoke(app, ["run", "matmul_naive", "--gpu", "h100-sxm", "-p", "Width=128", "--format", "json"])
    assert res.exit_code == 0, res.output
    caches = __import__("json").loads(res.stdout)["caches"]
    assert caches["sms"] == 132 and caches["l2_bytes"] == 50 * 1024 * 1024
    assert caches["l1_hit_rate"] == pytest.approx(7 / 8)
    assert caches["dram_bytes_read"] == 2 * 128 * 128 * 4
    assert caches["l2_dirty_bytes_at_end"] == 128 * 128 * 4


def test_run_gpu_and_cc_must_agree():
    from typer.testing import CliRunner

    from perfcalc.cli import app

    res = CliRunner().invoke(app, ["run", "matmul_naive", "--gpu", "h100-sxm", "--cc", "8.0"])
    assert res.exit_code == 2
    assert res.output.strip() == (
        "error: --gpu h100-sxm is CC 9.0 (devices/products.yaml) but --cc 8.0 means CC 8.0; "
        "give one of them, or a device file of CC 9.0"
    )


ATOMIC_SUM = r"""
__global__ void total(const int* x, int* sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&sum[0], x[i]);
}
"""


@pytest.mark.parametrize(
    "engine",
    [
        "source",
        pytest.param(
            "ptx",
            marks=pytest.mark.skipif(
                not nvrtc.available(), reason="NVRTC (pip install nvidia-cuda-nvrtc) is not installed"
            ),
        ),
    ],
)
def test_atomics_go_to_l2_per_source_line(engine):
    """4096 ints summed into one counter by 128 warps. Line 4's load reads 512 sectors once from
    DRAM (16 KiB, no L1 reuse); its atomicAdd is one sector per warp performed at the L2 (read
    and written), the first a miss that fetches the 64-byte pair (H100), the other 127 hits."""
    x = np.arange(4096, dtype=np.int32)
    s = np.zeros(1, np.int32)
    model = CacheHierarchy(
        CacheConfig(sms=132, blocks_per_sm=8, l1_bytes=256 * 1024, l2_bytes=50 << 20, dram_fetch_bytes=64)
    )
    r = run_kernel(ATOMIC_SUM, "total", 16, 256, {"x": x, "sum": s, "n": 4096}, "9.0", engine=engine, caches=model)
    assert int(s[0]) == int(x.sum())
    site = r.caches.per_site[4]  # the load and the atomic share line 4: their sums
    assert site.l2_bytes_read == 512 * 32 + 128 * 32
    assert site.l2_bytes_written == 128 * 32
    assert site.dram_bytes_read == 4096 * 4 + 64
    assert site.l2_hit_rate == pytest.approx(127 / (512 + 128))
    assert site.l1_load_hit_rate == 0.0


def test_l2_fetch_granularity_comes_from_the_device_file(tmp_path):
    """cc_9_0.yaml carries the H100 driver's 64-byte L2 fetch granularity (the cache model's
    DRAM fetch); a device file without the optional key gets the 32-byte sector, and a value
    the hardware cannot have is refused naming the key."""
    from perfcalc.errors import SpecError
    from perfcalc.specs import get_arch

    assert get_arch("9.0").l2_fetch_granularity_bytes == 64
    assert get_arch("8.0").l2_fetch_granularity_bytes is None
    text = (Path(__file__).resolve().parents[1] / "devices" / "cc_9_0.yaml").read_text()
    bad = tmp_path / "cc_9_0.yaml"
    bad.write_text(text.replace("l2_fetch_granularity_bytes: 64", "l2_fetch_granularity_bytes: 48"))
    with pytest.raises(SpecError, match="l2_fetch_granularity_bytes"):
        resolve_arch(str(bad))


def test_no_caches_on_cc1_everything_reaches_dram():
    """CC 1.x has no L1 and no L2 for global data (memory.md 1.1-1.2; products.yaml l2_cache_kb
    0 for the G80): both hit rates are absent, every sector read below the SM is a DRAM sector,
    and the 32 x 32 output floats reach DRAM once (4,096 bytes)."""
    from typer.testing import CliRunner

    from perfcalc.cli import app

    res = CliRunner().invoke(app, ["run", "matmul_naive", "--gpu", "g80", "-p", "Width=32", "--format", "json"])
    assert res.exit_code == 0, res.output
    c = __import__("json").loads(res.stdout)["caches"]
    assert c["l1_hit_rate"] is None and c["l2_hit_rate"] is None
    assert c["dram_bytes_read"] == c["l2_bytes_read"] > 0
    assert c["dram_bytes_written"] == c["l2_bytes_written"] == 32 * 32 * 4
