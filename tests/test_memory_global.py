"""Global-memory transactions per family against reference/memory.md section 2 (GV1-GV28,
the H100 store vectors), the seeds' examples and the readings memory.md section 8 leaves open.

Expected values are copied from memory.md (each row cites its id) or the seeds; none come from
perfcalc's own output.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from perfcalc.errors import InputError
from perfcalc.memory import global_access

LANE = np.arange(32)
ALL = None


def tx(spec: str) -> list[tuple[int, int]]:
    """'7x32@128, 1x32@256' -> [(128, 32)] * 7 + [(256, 32)] (memory.md's 'N×SB@A')."""
    out: list[tuple[int, int]] = []
    for part in spec.split(","):
        count, rest = part.strip().split("x")
        size, addr = rest.split("@")
        out += [(int(addr), int(size))] * int(count)
    return out


def mask(hex_mask: str) -> np.ndarray:
    bits = int(hex_mask, 16)
    return np.array([(bits >> lane) & 1 for lane in range(32)], dtype=bool)


def swap(values: np.ndarray, pairs: list[tuple[int, int]]) -> np.ndarray:
    out = values.copy()
    for a, b in pairs:
        out[a], out[b] = values[b], values[a]
    return out


# id, word size, addresses, active mask,
#   1.0/1.1 transactions (multiset), 1.2/1.3 transactions (issue order),
#   2.x/3.x L1 (requests, lines), 2.x/3.x L2-only segments, 5.x-9.0 (sectors, lines)
GV = [
    ("GV1", 4, 128 + 4 * LANE, ALL, "1x64@128, 1x64@192", "1x64@128, 1x64@192", (1, 1), 4, (4, 1)),
    (
        "GV2",
        4,
        128 + 4 * (16 * (LANE // 16) + (5 * (LANE % 16) + 3) % 16),
        ALL,
        "8x32@128, 8x32@160, 8x32@192, 8x32@224",
        "1x64@128, 1x64@192",
        (1, 1),
        4,
        (4, 1),
    ),
    (
        "GV3",
        4,
        132 + 4 * LANE,
        ALL,
        "7x32@128, 8x32@160, 8x32@192, 8x32@224, 1x32@256",
        "1x128@128, 1x64@192, 1x32@256",
        (1, 2),
        5,
        (5, 2),
    ),
    ("GV4", 4, 128 + 4 * LANE, mask("ffe7ffe7"), "1x64@128, 1x64@192", "1x64@128, 1x64@192", (1, 1), 4, (4, 1)),
    (
        "GV5",
        4,
        128 + 4 * swap(LANE, [(3, 4), (19, 20)]),
        ALL,
        "8x32@128, 8x32@160, 8x32@192, 8x32@224",
        "1x64@128, 1x64@192",
        (1, 1),
        4,
        (4, 1),
    ),
    (
        "GV6",
        4,
        4 * (LANE + (LANE > 3)),
        ALL,
        "7x32@0, 8x32@32, 8x32@64, 8x32@96, 1x32@128",
        "1x128@0, 1x64@64, 1x32@128",
        (1, 2),
        5,
        (5, 2),
    ),
    ("GV7", 4, 12 * LANE, ALL, None, "1x128@0, 1x64@128, 1x64@192, 1x128@256", (1, 3), 12, (12, 3)),
    ("GV8", 4, 64 + 4 * LANE, ALL, "1x64@64, 1x64@128", "1x64@64, 1x64@128", (1, 2), 4, (4, 2)),
    ("GV9", 4, 68 + 4 * LANE, ALL, None, "1x64@64, 1x32@128, 1x128@128", (1, 2), 5, (5, 2)),
    ("GV10", 4, 4 * (31 - LANE), ALL, None, "1x64@64, 1x64@0", (1, 1), 4, (4, 1)),
    ("GV11", 4, 4 * ((5 * (LANE % 16) + 1) % 16), ALL, None, "1x64@0, 1x64@0", (1, 1), 2, (2, 1)),
    ("GV12", 4, 8 * LANE, ALL, None, "1x128@0, 1x128@128", (1, 2), 8, (8, 2)),
    ("GV13", 4, 128 * LANE, ALL, None, ", ".join(f"1x32@{128 * i}" for i in range(32)), (1, 32), 32, (32, 32)),
    ("GV14", 4, 0 * LANE, ALL, None, "1x32@0, 1x32@0", (1, 1), 1, (1, 1)),
    ("GV15", 4, 4 * LANE, mask("1"), "1x64@0", "1x32@0", (1, 1), 1, (1, 1)),
    ("GV16", 4, 4 * LANE, mask("55555555"), "1x64@0, 1x64@64", "1x64@0, 1x64@64", (1, 1), 4, (4, 1)),
    ("GV17", 1, LANE, ALL, None, "1x32@0, 1x32@0", (1, 1), 1, (1, 1)),
    ("GV18", 1, 4 * LANE, ALL, None, "1x32@0, 1x32@32, 1x32@64, 1x32@96", (1, 1), 4, (4, 1)),
    ("GV19", 2, 2 * LANE, ALL, None, "1x32@0, 1x32@32", (1, 1), 2, (2, 1)),
    ("GV20", 8, 8 * LANE, ALL, "1x128@0, 1x128@128", "1x128@0, 1x128@128", (2, 2), 8, (8, 2)),
    ("GV21", 8, 8 + 8 * LANE, ALL, None, "1x128@0, 1x32@128, 1x128@128, 1x32@256", (2, 4), 10, (9, 3)),
    ("GV22", 8, 16 * LANE + 8, ALL, None, "4x128@0", (2, 4), 16, (16, 4)),
    ("GV23", 4, 16 * LANE, ALL, None, "4x128@0", (1, 4), 16, (16, 4)),
    ("GV24", 16, 16 * LANE, ALL, "1x128@0, 1x128@128, 1x128@256, 1x128@384", "4x128@0", (4, 4), 16, (16, 4)),
    (
        "GV25",
        16,
        16 + 16 * LANE,
        ALL,
        None,
        "1x128@0, 1x128@128, 1x32@256, 1x128@256, 1x128@384, 1x32@512",
        (4, 8),
        20,
        (17, 5),
    ),
    ("GV26", 8, 0 * LANE, ALL, None, "1x32@0, 1x32@0", (2, 2), 2, (1, 1)),
    (
        "GV27",
        4,
        np.where(LANE < 16, 4 * LANE, 4096 + 4 * (LANE - 16)),
        ALL,
        "1x64@0, 1x64@4096",
        "1x64@0, 1x64@4096",
        (1, 2),
        4,
        (4, 2),
    ),
    ("GV28", 4, 4 * LANE, mask("0"), "", "", (0, 0), 0, (0, 0)),
]
# The GV22/GV23 1.2/1.3 lists give only sizes; their addresses follow from memory.md 1.2.
_ADDRESSES_ONLY_BY_SIZE = {"GV22", "GV23", "GV24"}
IDS = [row[0] for row in GV]


def _expect_list(spec: str) -> list[tuple[int, int]]:
    return tx(spec) if spec else []


@pytest.mark.parametrize("cc", ["1.0", "1.1"])
@pytest.mark.parametrize("row", GV, ids=IDS)
def test_gv_cc10(row, cc):
    """memory.md 1.1: coalesced half-warps give one 64/128 B (two for 16 B words) transaction,
    every other half-warp one 32 B transaction per active lane; None = '32x32B' (16 per
    half-warp)."""
    gid, size, addr, active, c10, *_ = row
    r = global_access(cc, addr, size, active)
    if c10 is None:
        assert r.transaction_count == 32
        assert all(t[1] == 32 for t in r.transactions)
        assert Counter(r.transaction_requests) == {0: 16, 1: 16}
    else:
        assert Counter(r.transactions) == Counter(_expect_list(c10))


@pytest.mark.parametrize("cc", ["1.2", "1.3"])
@pytest.mark.parametrize("row", GV, ids=IDS)
def test_gv_cc12(row, cc):
    """memory.md 1.2: one transaction per distinct segment per half-warp, shrunk to 64/32 B,
    issued lowest lane first."""
    gid, size, addr, active, _, c12, *_ = row
    r = global_access(cc, addr, size, active)
    expected = _expect_list(c12)
    if gid in _ADDRESSES_ONLY_BY_SIZE:
        assert [t[1] for t in r.transactions] == [t[1] for t in expected]
        assert r.bytes_moved == sum(t[1] for t in expected)
    else:
        assert list(r.transactions) == expected
    assert r.bytes_moved == sum(t[1] for t in expected)


@pytest.mark.parametrize("cc,cache", [("2.0", None), ("2.1", "l1"), ("3.5", "l1")])
@pytest.mark.parametrize("row", GV, ids=IDS)
def test_gv_l1_lines(row, cc, cache):
    """memory.md 1.3/1.4 L1-cached: requests split by word size, one 128 B line per distinct
    line per request."""
    _, size, addr, active, _, _, (requests, lines), *_ = row
    r = global_access(cc, addr, size, active, cache=cache)
    assert (r.requests, r.transaction_count, r.bytes_moved) == (requests, lines, 128 * lines)
    assert all(t[1] == 128 and t[0] % 128 == 0 for t in r.transactions)


@pytest.mark.parametrize("cc,cache", [("2.0", "l2"), ("3.0", None), ("3.5", None), ("3.7", "l2")])
@pytest.mark.parametrize("row", GV, ids=IDS)
def test_gv_l2_segments(row, cc, cache):
    """memory.md 1.3/1.4 L2-only: one 32 B segment per distinct segment per request."""
    _, size, addr, active, _, _, _, segments, _ = row
    r = global_access(cc, addr, size, active, cache=cache)
    assert (r.transaction_count, r.bytes_moved) == (segments, 32 * segments)


@pytest.mark.parametrize("cc", ["5.0", "6.1", "7.0", "8.6", "9.0"])
@pytest.mark.parametrize("row", GV, ids=IDS)
def test_gv_sectors(row, cc):
    """memory.md 1.5/1.6: distinct 32 B sectors of the instruction, and its 128 B lines."""
    _, size, addr, active, *_, (sectors, lines) = row
    r = global_access(cc, addr, size, active)
    assert (r.transaction_count, r.lines, r.bytes_moved) == (sectors, lines, 32 * sectors)


# H100-measured requests / sectors / L2 requests (= lines) [/ tag wf / data wf] (memory.md 2).
H100 = [
    ("GV1", 4, 128 + 4 * LANE, ALL, 1, 4, 1, None, None),
    ("GV3 at base 0", 4, 4 + 4 * LANE, ALL, 1, 5, 2, None, None),
    ("GV4 lanes 3,4 off", 4, 128 + 4 * LANE, ~np.isin(LANE, [3, 4]), 1, 4, 1, None, None),
    ("GV6", 4, 4 * (LANE + (LANE > 3)), ALL, 1, 5, 2, None, 2),
    ("GV7", 4, 12 * LANE, ALL, 1, 12, 3, None, 1),
    ("GV8", 4, 64 + 4 * LANE, ALL, 1, 4, 2, None, None),
    ("GV13", 4, 128 * LANE, ALL, 1, 32, 32, 8, 32),
    ("GV20", 8, 8 * LANE, ALL, 1, 8, 2, None, 2),
    ("GV21", 8, 8 + 8 * LANE, ALL, 1, 9, 3, None, None),
    ("GV22", 8, 16 * LANE + 8, ALL, 1, 16, 4, None, 4),
    ("GV23", 4, 16 * LANE, ALL, 1, 16, 4, None, 4),
    ("GV24", 16, 16 * LANE, ALL, 1, 16, 4, None, 4),
    ("GV25", 16, 16 + 16 * LANE, ALL, 1, 17, 5, 2, 5),
    ("GV26", 8, 0 * LANE, ALL, 1, 1, 1, None, 2),
    ("GV27", 4, np.where(LANE < 16, 4 * LANE, 4096 + 4 * (LANE - 16)), ALL, 1, 4, 2, None, 2),
    ("GV28", 4, 4 * LANE, mask("0"), 0, 0, 0, None, None),
]


@pytest.mark.parametrize("row", H100, ids=[r[0] for r in H100])
def test_h100_measured(row):
    """memory.md 2 H100 column (Nsight Compute 2025.3.1 on an H100, memory.md 7)."""
    _, size, addr, active, requests, sectors, lines, tag_wf, data_wf = row
    r = global_access("9.0", addr, size, active)
    assert (r.requests, r.transaction_count, r.lines) == (requests, sectors, lines)
    assert r.tag_wavefronts == -(-lines // 4)  # memory.md 1.6 step 4: ceil(lines / 4)
    if tag_wf is not None:
        assert r.tag_wavefronts == tag_wf
    if data_wf is not None:
        assert r.data_wavefronts == data_wf


STORES = [  # memory.md 2, "Global store vectors [H100]": (word, addresses, mask, sectors)
    ("4-byte sequential", 4, 4 * LANE, ALL, 4),
    ("+4", 4, 4 + 4 * LANE, ALL, 5),
    ("stride 2", 4, 8 * LANE, ALL, 8),
    ("stride 32", 4, 128 * LANE, ALL, 32),
    ("same word", 4, 0 * LANE, ALL, 1),
    ("even lanes at 8l", 4, 8 * LANE, LANE % 2 == 0, 8),
    ("char sequential", 1, LANE, ALL, 1),
    ("short sequential", 2, 2 * LANE, ALL, 2),
    ("double sequential", 8, 8 * LANE, ALL, 8),
    ("float4 sequential", 16, 16 * LANE, ALL, 16),
]


@pytest.mark.parametrize("row", STORES, ids=[r[0] for r in STORES])
def test_h100_stores(row):
    """Stores: always 1 request; sectors = distinct 32 B sectors written (memory.md 1.6.6)."""
    _, size, addr, active, sectors = row
    r = global_access("9.0", addr, size, active, op="store")
    assert (r.requests, r.transaction_count) == (1, sectors)


def test_h100_stride32_store_wavefronts():
    """memory.md 1.6.6: 4-byte stride-32 store: tag wf 8, data write wf 32."""
    r = global_access("9.0", 128 * LANE, 4, op="store")
    assert (r.tag_wavefronts, r.data_wavefronts) == (8, 32)


def test_gv_data_bank_conflicts_counter():
    """memory.md 1.6.5: data-stage conflicts = data wf - sum over tag wavefronts of the size
    groups present. GV13: 8 tag wavefronts x 1 group, 32 data wf -> 24; GV20: 2 - 2 = 0."""
    assert global_access("9.0", 128 * LANE, 4).data_bank_conflicts == 24
    assert global_access("9.0", 8 * LANE, 8).data_bank_conflicts == 0


# ---- seeds ----

SEED_002 = {  # seed 002 tables, base 128: (pattern, {CC: transactions})
    "aligned and sequential": (
        128 + 4 * LANE,
        {"1.0": "1x64@128, 1x64@192", "1.2": "1x64@128, 1x64@192", "2.0": "1x128@128"},
    ),
    "aligned and non-sequential": (
        128 + 4 * (16 * (LANE // 16) + (5 * (LANE % 16) + 3) % 16),
        {"1.0": "8x32@128, 8x32@160, 8x32@192, 8x32@224", "1.2": "1x64@128, 1x64@192", "2.0": "1x128@128"},
    ),
    "misaligned and sequential": (
        132 + 4 * LANE,
        {
            "1.0": "7x32@128, 8x32@160, 8x32@192, 8x32@224, 1x32@256",
            "1.2": "1x128@128, 1x64@192, 1x32@256",
            "2.0": "1x128@128, 1x128@256",
        },
    ),
}


@pytest.mark.parametrize("name", list(SEED_002))
@pytest.mark.parametrize("cc", ["1.0", "1.1", "1.2", "1.3", "2.0"])
def test_seed_002_tables(name, cc):
    """Seed 002 'Coalescing' tables for 1.0/1.1 (uncached), 1.2/1.3 (uncached), 2.0 (cached).

    memory.md 8.1 could not find the text of the Programming Guide's Figure F-1 and derived
    GV1-GV3 from the algorithms; seed 002 reproduces that figure's labels, and they agree."""
    addr, table = SEED_002[name]
    expected = tx(table[{"1.1": "1.0", "1.3": "1.2"}.get(cc, cc)])
    r = global_access(cc, addr, 4)
    assert Counter(r.transactions) == Counter(expected)


SEED_000 = [  # seed 000 figure captions for CC 1.0/1.1: transactions per half-warp
    ("coalesced float", 4, 128 + 4 * LANE, ALL, (1, 1)),
    ("coalesced, divergent warp", 4, 128 + 4 * LANE, mask("ffe7ffe7"), (1, 1)),
    ("non-sequential float", 4, 128 + 4 * swap(LANE, [(3, 4), (19, 20)]), ALL, (16, 16)),
    ("misaligned starting address", 4, 132 + 4 * LANE, ALL, (16, 16)),
    ("non-contiguous float", 4, 4 * (LANE + (LANE > 3)), ALL, (16, 16)),
    ("float3 (.x, 12-byte stride)", 4, 12 * LANE, ALL, (16, 16)),
]


@pytest.mark.parametrize("row", SEED_000, ids=[r[0] for r in SEED_000])
def test_seed_000_cc10_half_warps(row):
    """Seed 000 'Coalescing on devices with CC 1.0 and 1.1': 1 or 16 transactions per half-warp
    (memory.md 2.2 gives the concrete addresses)."""
    _, size, addr, active, per_half = row
    r = global_access("1.1", addr, size, active)
    counts = Counter(r.transaction_requests)
    assert (counts[0], counts[1]) == per_half


SEED_000_CC12 = [  # seed 000 CC 1.2+ captions: transactions of one half-warp
    ("random float access within a 64B segment", 4 * ((5 * LANE[:16] + 3) % 16), 1),
    ("misaligned, one transaction", 132 + 4 * LANE[:16], 1),
    ("misaligned, two transactions", 196 + 4 * LANE[:16], 2),
]


@pytest.mark.parametrize("row", SEED_000_CC12, ids=[r[0] for r in SEED_000_CC12])
def test_seed_000_cc12_half_warp(row):
    """Seed 000 'Coalescing on devices with CC 1.2 and higher' (one half-warp; memory.md GV3:
    hw0 at 132 is one 128 B transaction, hw1 at 196 is 64 B + 32 B)."""
    _, addr, count = row
    assert global_access("1.3", addr, 4).transaction_count == count


@pytest.mark.parametrize("cc", ["1.2", "2.0", "3.5", "5.2", "9.0"])
def test_seed_003_stride_2_is_half_efficient(cc):
    """Seed 003 'Example 4: Strided Access': a stride of 2 gives 50 % load efficiency."""
    assert global_access(cc, 8 * LANE, 4).efficiency == pytest.approx(0.5)


def test_broadcast_efficiency_counts_distinct_bytes():
    """GTC 2011 'Memory Bandwidth Limited Kernels' (memory.md 6): all lanes on one word of an
    L1-cached load use 4 of 128 bytes, 3.125 %."""
    assert global_access("2.0", 0 * LANE, 4).efficiency == pytest.approx(0.03125)


# ---- readings taken where memory.md section 8 is uncertain ----


def test_cc10_inactive_lanes_of_uncoalesced_half_warp_cost_nothing():
    """memory.md 8.2: assumed that only active lanes of a non-coalesced half-warp cost a 32 B
    transaction. Lanes 0-7 of the misaligned GV3: 7 at 128 + 1 at 160 = 8, not 16."""
    r = global_access("1.0", 132 + 4 * LANE, 4, LANE < 8)
    assert r.transactions == tuple(tx("7x32@128, 1x32@160"))


def test_cc2_stores_use_32_byte_segments_and_drop_empty_requests():
    """memory.md 8.5 (and 1.3): 2.x stores are written to L2 in 32 B segments even with the L1
    mode, and a request without an active lane is dropped: an 8-byte store by lanes 0-15 is one
    request of four segments."""
    r = global_access("2.0", 8 * LANE, 8, LANE < 16, op="store", cache="l1")
    assert (r.cache, r.requests, r.transaction_count) == ("l2", 1, 4)


def test_cc30_defaults_to_l2_only():
    """memory.md 8.6: the CUDA 6+ guides make L2-only the 3.x default; taken for 3.0 too."""
    assert global_access("3.0", 4 * LANE, 4).cache == "l2"


@pytest.mark.parametrize("size,requests", [(4, 4), (8, 8), (16, 16)])
def test_cc5_requests_are_forum_t_stage_groups(size, requests):
    """memory.md 8.8 / 1.5: Maxwell/Pascal t-stage requests of 8 / 4 / 2 lanes; the sectors are
    still the union over the warp (the L2-traffic reading)."""
    r = global_access("6.0", size * LANE, size)
    assert r.requests == requests
    assert r.transaction_count == size  # 32 lanes x size bytes / 32-byte sectors


@pytest.mark.parametrize("cc", ["7.0", "7.5", "8.0", "8.9"])
def test_h100_model_carries_over_to_7x_8x(cc):
    """memory.md 8.9: the H100 model is assumed for 7.x/8.x (GV25: 1 / 17 / 5, tag 2, data 5)."""
    r = global_access(cc, 16 + 16 * LANE, 16)
    assert (r.requests, r.transaction_count, r.lines, r.tag_wavefronts, r.data_wavefronts) == (1, 17, 5, 2, 5)


# ---- bad input ----


@pytest.mark.parametrize(
    "kwargs,needle",
    [
        (dict(cc="9.0", addresses=[0, 6], size=4), "lane 1: global address 6 is not a multiple"),
        (dict(cc="9.0", addresses=[0, 4], size=3), "access size 3 bytes is not allowed"),
        (dict(cc="9.0", addresses=list(range(0, 132, 4)), size=4), "33 lane addresses"),
        (dict(cc="1.2", addresses=[0], size=4, cache="l1"), "has no global-memory cache"),
        (dict(cc="9.0", addresses=[0], size=4, cache="l2"), "always moves 32-byte sectors"),
        (dict(cc="2.0", addresses=[0], size=4, cache="tex"), "is not 'l1'"),
        (dict(cc="9.0", addresses=[-4], size=4), "negative"),
        (dict(cc="9.0", addresses=[0, 1 << 50], size=4), r"lane 1: .* beyond 2\*\*47 bytes"),
        (dict(cc="9.0", addresses=[0], size=4, op="atomic"), "op 'atomic'"),
    ],
)
def test_bad_input(kwargs, needle):
    with pytest.raises(InputError, match=needle):
        global_access(**kwargs)


def test_misaligned_inactive_lane_is_ignored():
    """Only active lanes access memory, so an inactive lane's address cannot fault."""
    r = global_access("9.0", [0, 6], 4, [True, False])
    assert r.transaction_count == 1


# ---- the batch form equals the single-warp form ----

BATCH_CCS = ["1.0", "1.2", "2.0", "3.5", "5.2", "9.0"]


def _random_warps(rng: np.random.Generator, warps: int, size: int) -> tuple[np.ndarray, ...]:
    """Seeded mix of sequential, strided, clustered and scattered rows, with random masks."""
    lane = np.arange(32)
    stride = rng.integers(0, 5, size=(warps, 1))
    base = rng.integers(0, 64, size=(warps, 1)) * size
    addr = base + size * stride * lane
    scattered = rng.random(warps) < 0.4
    addr[scattered] = rng.integers(0, 600, size=(int(scattered.sum()), 32)) * size
    shuffled = rng.random(warps) < 0.2
    addr[shuffled] = rng.permuted(addr[shuffled], axis=1)
    active = rng.random((warps, 32)) < rng.choice([0.0, 0.3, 0.9, 1.0], size=(warps, 1))
    return addr, active


@pytest.mark.parametrize("cc", BATCH_CCS)
@pytest.mark.parametrize("size", [1, 2, 4, 8, 16])
def test_batch_equals_single(cc, size):
    """global_access_batch (fast path, no transaction list) and global_access (transaction
    records) are computed by different code; they must agree warp by warp."""
    from perfcalc.memory import global_access_batch

    rng = np.random.default_rng(1000 * size + int(float(cc) * 10))
    addr, active = _random_warps(rng, 60, size)
    caches = [None, "l1", "l2"] if cc in ("2.0", "3.5") else [None]
    for cache in caches:
        for op in ("load", "store"):
            batch = global_access_batch(cc, addr, size, active, op=op, cache=cache, detail=True)
            for w in range(addr.shape[0]):
                one = global_access(cc, addr[w], size, active[w], op=op, cache=cache)
                assert (one.requests, one.transaction_count, one.bytes_moved) == (
                    batch.requests[w],
                    batch.transactions[w],
                    batch.bytes_moved[w],
                )
                assert one.transaction_count == len(one.transactions)
                assert one.bytes_moved == sum(s for _, s in one.transactions)
                assert one.bytes_used == batch.bytes_used[w]
            assert batch.total_transactions == int(batch.transactions.sum())


def test_batch_chunks_join_exactly(monkeypatch):
    """Large batches are priced in chunks; the joined arrays equal one unchunked call."""
    from perfcalc.memory import global_access_batch, global_memory

    rng = np.random.default_rng(7)
    addr, active = _random_warps(rng, 50, 4)
    whole = global_access_batch("1.2", addr, 4, active)
    monkeypatch.setattr(global_memory, "CHUNK_WARPS", 7)
    parts = global_access_batch("1.2", addr, 4, active)
    assert np.array_equal(whole.transactions, parts.transactions)
    assert np.array_equal(whole.bytes_moved, parts.bytes_moved)


def test_batch_rejects_bad_shapes_and_names_the_warp():
    from perfcalc.memory import global_access_batch

    with pytest.raises(InputError, match="shape"):
        global_access_batch("9.0", np.zeros((2, 16), dtype=np.int64), 4)
    addr = np.zeros((3, 32), dtype=np.int64)
    addr[2, 5] = 4
    with pytest.raises(InputError, match="warp 2 lane 5"):
        global_access_batch("9.0", addr, 8)


def test_empty_batch_costs_nothing():
    from perfcalc.memory import global_access_batch

    for cc in ("1.0", "1.2", "2.0", "5.0", "9.0"):
        r = global_access_batch(cc, np.zeros((0, 32), dtype=np.int64), 4, detail=True)
        assert (r.total_requests, r.total_transactions, r.requests.shape) == (0, 0, (0,))
