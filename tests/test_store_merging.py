"""Store merging in the L1 (memory/cache_hierarchy.py, issue #9): a warp's back-to-back store
instructions on at most `store_merge_lines` lines send each sector to the L2 once.

The rule's evidence is the H100's Nsight Compute counts of strided stores
(benchmarks/hw/serialisation_micro.py, serialisation_h100/ncu.csv), checked here where the rule
is right (<= 3 lines per instruction: merged; >= 8: not merged); between those the GPU merges
part of the sectors and the rule, at 6 lines (timing.yaml), merges all (README's misses).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from perfcalc.memory.cache_hierarchy import CacheConfig, CacheHierarchy
from perfcalc.specs import get_arch
from perfcalc.specs.timing import timing_rates

NCU = Path(__file__).resolve().parents[1] / "benchmarks" / "hw" / "serialisation_h100" / "ncu.csv"
LANES = np.arange(32, dtype=np.int64)


def _written_sectors(k: int, size: int, merge_lines: int, load_between: bool = False) -> int:
    """One warp writing out[k * lane + j], j = 0..k-1, one instruction each, elements of
    `size` bytes; L2 sectors written."""
    h = CacheHierarchy(
        CacheConfig(sms=1, blocks_per_sm=1, l1_bytes=256 << 10, l2_bytes=50 << 20, store_merge_lines=merge_lines)
    )
    h.begin_chunk(np.array([0]), 32)
    for j in range(k):
        if load_between and j:
            h.record(1 << 30 | LANES * 4, None, 4, "load")
        h.record((k * LANES + j) * size, None, size, "store")
    return h.report().l2_bytes_written // 32


@pytest.mark.parametrize(
    "k,size,merged",
    [
        (2, 4, 8),
        (3, 4, 12),
        (5, 4, 20),  # <= 6 lines: each sector once (32 lanes x k x 4 / 32)
        (3, 8, 24),  # 6 lines of 8-byte elements
        (8, 4, 256),
        (4, 8, 128),
    ],
)  # 8 lines per instruction: every instruction's sectors again
def test_merge_rule(k, size, merged):
    assert _written_sectors(k, size, 6) == merged
    assert _written_sectors(k, size, 0) == k * min(32, k * size * 32 // 32)


def test_another_access_between_ends_the_group():
    assert _written_sectors(2, 4, 6, load_between=True) == 16


def test_h100_rate_table_names_the_limit():
    assert timing_rates(get_arch("9.0")).store_merge_lines == 6
    assert timing_rates(get_arch("8.0")).store_merge_lines is None


def _ncu_sectors() -> dict[str, float]:
    with NCU.open() as fh:
        rows = list(csv.reader(line for line in fh if line.startswith('"')))
    head = rows[0]
    out = {}
    for r in rows[1:]:
        row = dict(zip(head, r, strict=True))
        if row["Metric Name"] == "lts__t_sectors_srcunit_tex_op_write.sum":
            out[row["Kernel Name"]] = float(row["Metric Value"].replace(",", ""))
    return out


@pytest.mark.parametrize(
    "k,ctype,size,threads,merged",
    [
        (2, "int", 4, 1 << 24, True),
        (3, "int", 4, 1 << 24, True),
        (2, "longlong", 8, 1 << 23, True),
        (8, "int", 4, 1 << 24, False),
        (4, "longlong", 8, 1 << 23, False),
        (5, "longlong", 8, 1 << 23, False),
        (8, "longlong", 8, 1 << 23, False),
    ],
)
def test_rule_against_the_h100(k, ctype, size, threads, merged):
    """Where the rule merges (<= 4 lines per instruction here), the H100's L2 write sectors are
    within 6 % of each sector once; where it does not (>= 8 lines), within 10 % of every
    instruction's sectors (the L1's own count)."""
    hw = _ncu_sectors()[f"st_strided_{k}_{ctype}"]
    warps = threads // 32
    once = threads * k * size / 32
    expected = once if merged else warps * _written_sectors(k, size, 0)
    assert hw == pytest.approx(expected, rel=0.06 if merged else 0.10)
