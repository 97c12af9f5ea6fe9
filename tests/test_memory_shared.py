"""Shared-memory passes per bank family against reference/memory.md section 3.5 (the stride
table and SV1-SV31), the H100-measured cases of 3.5.2, the seeds, and the section 8 readings.

Expected values are copied from memory.md or the seeds (each cites its id); none come from
perfcalc's own output.
"""

from __future__ import annotations

from math import gcd

import numpy as np
import pytest

from perfcalc.errors import InputError
from perfcalc.memory import shared_access

LANE = np.arange(32)
ALL = None

# memory.md 3.5.1 columns, s = 1..33: 1.x per warp, 2.x, 3.x 4-byte mode, 3.x 8-byte mode,
# 5.x-9.0 (= H100 measured).
STRIDE_TABLE = {
    1: (2, 1, 1, 1, 1),
    2: (4, 2, 1, 1, 2),
    3: (2, 1, 1, 2, 1),
    4: (8, 4, 2, 2, 4),
    5: (2, 1, 1, 2, 1),
    6: (4, 2, 2, 1, 2),
    7: (2, 1, 1, 2, 1),
    8: (16, 8, 4, 4, 8),
    9: (2, 1, 1, 2, 1),
    10: (4, 2, 2, 1, 2),
    11: (2, 1, 1, 2, 1),
    12: (8, 4, 4, 2, 4),
    13: (2, 1, 1, 2, 1),
    14: (4, 2, 2, 1, 2),
    15: (2, 1, 1, 2, 1),
    16: (32, 16, 8, 8, 16),
    17: (2, 1, 1, 2, 1),
    18: (4, 2, 2, 1, 2),
    19: (2, 1, 1, 2, 1),
    20: (8, 4, 4, 2, 4),
    21: (2, 1, 1, 2, 1),
    22: (4, 2, 2, 1, 2),
    23: (2, 1, 1, 2, 1),
    24: (16, 8, 8, 4, 8),
    25: (2, 1, 1, 2, 1),
    26: (4, 2, 2, 1, 2),
    27: (2, 1, 1, 2, 1),
    28: (8, 4, 4, 2, 4),
    29: (2, 1, 1, 2, 1),
    30: (4, 2, 2, 1, 2),
    31: (2, 1, 1, 2, 1),
    32: (32, 32, 16, 16, 32),
    33: (2, 1, 1, 1, 1),
}


@pytest.mark.parametrize("stride", sorted(STRIDE_TABLE))
def test_stride_table(stride):
    """memory.md 3.5.1: lane l reads 32-bit word s*l, all lanes, base 0."""
    addr = 4 * stride * LANE
    got = (
        shared_access("1.0", addr, 4).wavefronts,
        shared_access("2.0", addr, 4).wavefronts,
        shared_access("3.5", addr, 4, bank_mode=4).wavefronts,
        shared_access("3.0", addr, 4, bank_mode=8).wavefronts,
        shared_access("9.0", addr, 4).wavefronts,
    )
    assert got == STRIDE_TABLE[stride]
    for cc in ("1.3", "2.1", "5.2", "6.1", "7.5", "8.6"):
        family_column = {"1": 0, "2": 1}.get(cc[0], 4)
        assert shared_access(cc, addr, 4).wavefronts == STRIDE_TABLE[stride][family_column]


@pytest.mark.parametrize("stride", sorted(STRIDE_TABLE))
def test_stride_table_matches_gcd_rules(stride):
    """memory.md 3.1/3.2/3.4: 1.x per half-warp gcd(s, 16); 2.x and 5.x-9.0 gcd(s, 32); the
    H100 bank-conflict counter is passes - 1 for every row (ideal 1 for 32 x 4 bytes)."""
    addr = 4 * stride * LANE
    assert shared_access("1.1", addr, 4).conflict_degree == gcd(stride, 16)
    assert shared_access("2.0", addr, 4).wavefronts == gcd(stride, 32)
    r = shared_access("9.0", addr, 4)
    assert r.bank_conflicts == gcd(stride, 32) - 1


def _sv11_words() -> np.ndarray:
    words = LANE.copy()
    words[[3, 4, 6, 7, 9]] = 5
    return words


# id, size, addresses, mask, 1.x, 2.x, 3.x (4-byte mode, 8-byte mode), 5.x-9.0 (load, store)
# None = not given in memory.md. 2.x 128-bit entries are the degree (see test below).
SV = [
    ("SV1", 1, LANE, ALL, 8, 1, (1, 1), (1, 1)),
    ("SV2", 1, 4 * LANE, ALL, 2, 1, (1, 1), (1, 1)),
    ("SV3", 1, 2 * LANE, ALL, 4, 1, (1, 1), (1, None)),
    ("SV4", 4, 128 * LANE, ALL, 32, 32, (16, 16), (32, 32)),
    ("SV5", 4, 132 * LANE, ALL, 2, 1, (1, 1), (1, 1)),
    ("SV6", 4, 0 * LANE, ALL, 2, 1, (1, 1), (1, 1)),
    ("SV7", 4, 4 * (LANE // 16), ALL, 2, 1, (1, 1), (1, None)),
    ("SV8", 4, 128 * (LANE // 16), ALL, 2, 2, (1, 1), (2, None)),
    ("SV9", 4, 128 * (LANE // 8), ALL, 4, 4, (2, 2), (4, 4)),
    ("SV10", 4, 4 * (LANE % 2), ALL, 4, 1, (1, 1), (1, None)),
    ("SV11", 4, 4 * _sv11_words(), ALL, 3, 1, (1, 1), (1, None)),
    ("SV12", 4, 4 * ((5 * LANE + 3) % 32), ALL, 2, 1, (1, 1), (1, None)),
    ("SV13", 4, 4 * (LANE % 16 + 32 * (LANE // 16)), ALL, 2, 2, (1, 1), (2, None)),
    ("SV14", 4, 128 * LANE, LANE < 16, 16, 16, (8, 8), (16, None)),
    ("SV15", 8, 8 * LANE, ALL, 8, 2, (1, 1), (2, 2)),
    ("SV16", 8, 16 * LANE, ALL, 16, 4, (2, 2), (4, 4)),
    ("SV17", 8, 256 * LANE, ALL, 64, 32, (32, 32), (32, None)),
    ("SV18", 8, 264 * LANE, ALL, 8, 2, (2, 1), (2, None)),
    ("SV19", 8, 0 * LANE, ALL, 4, 2, (1, 1), (1, 2)),
    ("SV20", 8, 8 * (LANE % 16), ALL, 8, 2, (1, 1), (2, None)),
    ("SV21", 8, 8 * (LANE // 2), ALL, 8, 2, (1, 1), (1, 2)),
    ("SV22", 8, 8 * ((LANE % 16) * 16 + LANE // 16), ALL, 64, 32, (8, 8), (32, None)),
    ("SV23", 16, 16 * LANE, ALL, 32, 2, (2, 2), (4, 4)),
    ("SV24", 16, 32 * LANE, ALL, 64, 3, (4, 4), (8, None)),
    ("SV25", 16, 0 * LANE, ALL, 8, 2, (2, 2), (2, 4)),
    ("SV26", 16, 16 * (LANE // 2), ALL, 32, 2, (2, 2), (2, None)),
    ("SV27", 16, 16 * ((LANE % 8) * 8 + LANE // 8), ALL, 64, 9, (8, 8), (32, 32)),
    ("SV28", 16, 144 * LANE, ALL, 32, 2, (4, 2), (4, None)),
    ("SV29", 16, 128 * LANE, ALL, 128, 9, (16, 16), (32, None)),
    ("SV30", 4, 12 * LANE, ALL, 2, 1, (1, 2), (1, None)),
    ("SV31", 4, 8 * LANE, ALL, 4, 2, (1, 1), (2, None)),
]
SV_IDS = [row[0] for row in SV]


@pytest.mark.parametrize("row", SV, ids=SV_IDS)
def test_sv_cc1(row):
    """memory.md 3.1: two independent half-warps on 16 banks, one broadcast word per step,
    accesses wider than 32 bits split into 32-bit requests."""
    _, size, addr, active, cc1, *_ = row
    assert shared_access("1.0", addr, size, active).wavefronts == cc1
    assert shared_access("1.3", addr, size, active, op="store").wavefronts == cc1


@pytest.mark.parametrize("row", SV, ids=SV_IDS)
def test_sv_cc2(row):
    """memory.md 3.2: 32 banks, multicast; 64-bit by half-warps; 128-bit by quarter-warps with
    the guide's degree 1 + (most lanes of a quarter on different addresses of one bank)."""
    _, size, addr, active, _, cc2, *_ = row
    r = shared_access("2.0", addr, size, active)
    if size == 16:
        assert r.conflict_degree == cc2
        # memory.md 8.4 reading: every quarter-warp costs the degree, so 4 x degree here.
        assert r.wavefronts == 4 * cc2
    else:
        assert r.wavefronts == cc2


@pytest.mark.parametrize("row", SV, ids=SV_IDS)
def test_sv_cc3(row):
    """memory.md 3.3: 4-byte mode (words i and i+32 of a 64-word segment share a row) and
    8-byte mode (bank = address / 8 mod 32); 128-bit by half-warps (memory.md 8.7 reading)."""
    _, size, addr, active, _, _, (mode4, mode8), _ = row
    assert shared_access("3.5", addr, size, active, bank_mode=4).wavefronts == mode4
    assert shared_access("3.7", addr, size, active, bank_mode=8).wavefronts == mode8


@pytest.mark.parametrize("cc", ["5.0", "6.1", "7.0", "9.0"])
@pytest.mark.parametrize("row", SV, ids=SV_IDS)
def test_sv_cc5_to_90(row, cc):
    """memory.md 3.4: 32 banks x 4 bytes; warp / half-warp / quarter-warp groups; uniform-pair
    loads on 16 representative lanes; stores never merge pairs."""
    _, size, addr, active, _, _, _, (load, store) = row
    assert shared_access(cc, addr, size, active).wavefronts == load
    if store is not None:
        assert shared_access(cc, addr, size, active, op="store").wavefronts == store


# memory.md 3.5.2 "More H100-measured shared cases": (name, size, addresses, mask, op, passes)
H100_MORE = [
    (
        "bank 0 three words, bank 1 two",
        4,
        4 * np.select([LANE < 10, LANE < 20, LANE < 26, LANE < 29], [0, 32, 64, 1], 33),
        ALL,
        "load",
        3,
    ),
    ("bytes of two words in one bank", 1, LANE % 4 + 128 * (LANE // 16), ALL, "load", 2),
    ("64-bit l^2 pairs", 8, 8 * ((LANE >> 2) * 2 + (LANE & 1)), ALL, "load", 1),
    ("64-bit 4 addresses", 8, 8 * (LANE // 8), ALL, "load", 1),
    ("64-bit 2 addresses", 8, 8 * (LANE // 16), ALL, "load", 1),
    ("64-bit stride 4 elements", 8, 32 * LANE, ALL, "load", 8),
    ("64-bit 16 lanes at stride 2", 8, 16 * LANE, LANE < 16, "load", 2),
    ("64-bit even lanes at 8l", 8, 8 * LANE, LANE % 2 == 0, "load", 2),
    ("128-bit l^2 pairs", 16, 16 * ((LANE >> 2) * 2 + (LANE & 1)), ALL, "load", 2),
    ("128-bit 4 addresses", 16, 16 * (LANE // 8), ALL, "load", 2),
    ("128-bit groups of 4 equal", 16, 16 * (LANE // 4), ALL, "load", 2),
    ("128-bit even lanes at 16l", 16, 16 * LANE, LANE % 2 == 0, "load", 4),
    ("128-bit stride 4 elements", 16, 64 * LANE, ALL, "load", 16),
    ("128-bit lanes 0-7 only", 16, 16 * LANE, LANE < 8, "load", 1),
    ("store 64-bit same address", 8, 0 * LANE, ALL, "store", 2),
    ("store 128-bit same address", 16, 0 * LANE, ALL, "store", 4),
    ("store 64-bit stride 2", 8, 16 * LANE, ALL, "store", 4),
    ("4 words in one bank by groups of 8 (store)", 4, 128 * (LANE // 8), ALL, "store", 4),
]


@pytest.mark.parametrize("row", H100_MORE, ids=[r[0] for r in H100_MORE])
def test_h100_more_cases(row):
    _, size, addr, active, op, passes = row
    assert shared_access("9.0", addr, size, active, op=op).wavefronts == passes


def test_nsight_ideal_is_byte_based():
    """memory.md 3.4: conflicts = max(0, passes - ideal), ideal = max(1, ceil(active x size /
    128)). A 64-bit load by 8 lanes of each half-warp takes 2 passes and reports 1 conflict; a
    uniform LDS.128 (2 passes, byte ideal 4) reports 0."""
    half = (LANE % 16) < 8
    r = shared_access("9.0", 8 * LANE, 8, half)
    assert (r.wavefronts, r.ideal_wavefronts, r.bank_conflicts) == (2, 1, 1)
    r = shared_access("9.0", 0 * LANE, 16)
    assert (r.wavefronts, r.ideal_wavefronts, r.bank_conflicts) == (2, 4, 0)


# ---- seeds ----


@pytest.mark.parametrize("cc,column,padded", [("1.0", 32, 2), ("2.0", 32, 1), ("5.0", 32, 1), ("9.0", 32, 1)])
def test_seed_003_tile_padding(cc, column, padded):
    """Seed 003 'Avoiding Bank Conflicts': a 32x32 float tile read by column is a 32-way
    conflict (on 32 banks); padding to 32x33 removes it. 1.x: 16 per half-warp, 1 padded."""
    assert shared_access(cc, 4 * 32 * LANE, 4).wavefronts == column
    assert shared_access(cc, 4 * 33 * LANE, 4).wavefronts == padded


def test_seed_000_char_and_odd_strides_on_cc1():
    """Seed 000 'Beware of data size!': char shared[tid] conflicts (4 lanes per bank),
    shared[4*tid] does not. Seed 000 calls s=1 'the only safe stride'; the Programming Guide
    (memory.md 3.1) says any odd stride is conflict-free on 16 banks, which is what is modelled."""
    assert shared_access("1.1", LANE, 1).conflict_degree == 4
    assert shared_access("1.1", 4 * LANE, 1).wavefronts == 2
    assert shared_access("1.1", 12 * LANE, 4).wavefronts == 2  # stride 3


def test_seed_003_bank_counts():
    """Seed 003 'Shared Memory Banks': 16 banks on 1.x, 32 on 2.x, 3.x, 5.x and 7.x."""
    assert [shared_access(cc, [0], 4).banks for cc in ("1.0", "2.0", "3.0", "5.0", "7.0")] == [16, 32, 32, 32, 32]


# ---- readings taken where memory.md section 8 is uncertain ----


def test_cc1_broadcast_choice_takes_lowest_lane():
    """memory.md 8.3 / SV11: the broadcast word is unspecified, so the count is 2 or 3. perfcalc
    broadcasts the word of the lowest pending lane (lane 0, word 0), which leaves five lanes on
    word 5 for a second step in half-warp 0: 2 + 1 = 3, the upper end of [2, 3]."""
    r = shared_access("1.2", 4 * _sv11_words(), 4)
    assert r.wavefronts == 3


def test_cc2_128_bit_partial_quarters():
    """memory.md 8.4: 2.x 128-bit passes taken as the degree of each active quarter-warp: only
    lanes 0-7 active on float4 f[tid] -> one quarter of degree 2 -> 2 passes."""
    assert shared_access("2.0", 16 * LANE, 16, LANE < 8).wavefronts == 2


def test_cc3_8_byte_mode_odd_strides():
    """memory.md 8.7: the plain 8-byte-mode mapping gives 2-way conflicts for odd strides >= 3
    (word 3l: lanes 1 and 22 share bank 1), against the guide's 'as many or fewer'."""
    assert shared_access("3.5", 12 * LANE, 4, bank_mode=8).wavefronts == 2


def test_uniform_pairs_group_16_representatives_as_one():
    """memory.md 8.10: with uniform l^1 pairs a 64-bit load runs as one group of 16 lanes, even
    when they conflict: pairs of lanes 0-15 read doubles 256 B apart (bank 0, 8 rows), pairs of
    lanes 16-31 the same + 8 (bank 2): one group -> 8 passes (two half-warps would be 16)."""
    addr = 256 * ((LANE % 16) // 2) + 8 * (LANE // 16)
    assert shared_access("9.0", addr, 8).wavefronts == 8
    assert shared_access("9.0", addr, 8, op="store").wavefronts == 16


def test_uniform_pairs_l16_do_not_count():
    """memory.md 3.4: pairs l <-> l^16 do not qualify (SV20: 2 passes, not 1)."""
    r = shared_access("9.0", 8 * (LANE % 16), 8)
    assert (r.uniform_pairs, r.wavefronts) == (False, 2)


# ---- bad input ----


@pytest.mark.parametrize(
    "kwargs,needle",
    [
        (dict(cc="9.0", addresses=[0, 2], size=4), "lane 1: shared address 2 is not a multiple"),
        (dict(cc="9.0", addresses=[0], size=32), "access size 32 bytes"),
        (dict(cc="9.0", addresses=[0], size=4, bank_mode=8), "bank mode 8 bytes is not available"),
        (dict(cc="2.0", addresses=[0], size=4, bank_mode=8), "cc_2_0.yaml"),
        (dict(cc="3.5", addresses=[0], size=4, bank_mode=2), "4 or 8 bytes wide"),
        (dict(cc="9.0", addresses=[0] * 40, size=4), "40 lane addresses"),
    ],
)
def test_bad_input(kwargs, needle):
    with pytest.raises(InputError, match=needle):
        shared_access(**kwargs)


# ---- the batch form ----


@pytest.mark.parametrize(
    "cc,mode", [("1.0", None), ("2.0", None), ("3.5", 4), ("3.5", 8), ("6.1", None), ("9.0", None)]
)
@pytest.mark.parametrize("size", [1, 2, 4, 8, 16])
def test_batch_agrees_with_an_independent_reference(cc, mode, size):
    """Seeded random warps priced in one batch vs a plain per-warp loop written from memory.md
    3.2-3.4 (max distinct bank words per group, computed with Python sets). 1.x rows are checked
    against its own rule only where no word repeats (then passes = most lanes in one bank)."""
    from perfcalc.memory import shared_access_batch
    from perfcalc.specs import get_arch

    rng = np.random.default_rng(size * 31 + len(cc))
    warps = 40
    addr = rng.integers(0, 96, size=(warps, 32)) * size
    addr[::3] = np.arange(32) * size * rng.integers(1, 6)
    active = rng.random((warps, 32)) < 0.8
    batch = shared_access_batch(cc, addr, size, active, op="store", bank_mode=mode)
    arch = get_arch(cc)
    for w in range(warps):
        expected = _reference_store_passes(arch.shared_memory_family, addr[w], active[w], size, mode)
        if expected is not None:
            assert batch.wavefronts[w] == expected, (cc, w)
        assert batch.wavefronts[w] == shared_access(cc, addr[w], size, active[w], op="store", bank_mode=mode).wavefronts


def _reference_store_passes(family, addr, active, size, mode):
    """Per memory.md: the bank-word units and lane groups of each family, by brute force."""
    if family == "cc1":
        total = 0
        for half in (range(16), range(16, 32)):
            for j in range(max(1, size // 4)):
                words = [int(addr[lane]) // 4 + j for lane in half if active[lane]]
                if len(set(words)) != len(words):
                    return None  # broadcast steps: covered by the SV table instead
                banks = [w % 16 for w in words]
                total += max((banks.count(b) for b in set(banks)), default=0)
        return total
    unit = 8 if (family == "cc3" and mode == 8) else 4
    lanes_per_group = (
        16 if (family == "cc3" and size == 16) else 32 if family == "cc3" else {8: 16, 16: 8}.get(size, 32)
    )
    total = 0
    for first in range(0, 32, lanes_per_group):
        banks: dict[int, set[int]] = {}
        for lane in range(first, first + lanes_per_group):
            if not active[lane]:
                continue
            for j in range(max(1, size // unit)):
                u = int(addr[lane]) // unit + j
                row = u // 64 if (family == "cc3" and mode == 4) else u // 32
                banks.setdefault(u % 32, set()).add(row)
        if banks:
            total += max(len(v) for v in banks.values()) + (family == "cc2" and size == 16)
    return total


def test_batch_chunks_join_exactly(monkeypatch):
    from perfcalc.memory import shared_access_batch, shared_memory

    rng = np.random.default_rng(3)
    addr = rng.integers(0, 64, size=(45, 32)) * 8
    whole = shared_access_batch("9.0", addr, 8)
    monkeypatch.setattr(shared_memory, "CHUNK_WARPS", 8)
    parts = shared_access_batch("9.0", addr, 8)
    assert np.array_equal(whole.wavefronts, parts.wavefronts)
    assert np.array_equal(whole.uniform_pairs, parts.uniform_pairs)


def test_empty_batch_costs_nothing():
    from perfcalc.memory import shared_access_batch

    for cc in ("1.0", "2.0", "3.5", "9.0"):
        r = shared_access_batch(cc, np.zeros((0, 32), dtype=np.int64), 8)
        assert (r.total_wavefronts, r.wavefronts.shape) == (0, (0,))


def _bank_words_cases():
    """Strides 1..33 (with the classic 2-, 16-, 32-way conflicts and the padded 33), a broadcast,
    pairs of lanes on one word, a random gather, and half the lanes inactive; 4/8/16 bytes."""
    rng = np.random.default_rng(7)
    patterns = {f"stride {s}": [lane * s * 4 for lane in range(32)] for s in (1, 2, 3, 4, 8, 16, 17, 32, 33)}
    patterns["broadcast"] = [0] * 32
    patterns["pairs"] = [(lane // 2) * 4 for lane in range(32)]
    patterns["gather"] = [int(x) * 4 for x in rng.integers(0, 256, 32)]
    for name, words in patterns.items():
        for size in (4, 8, 16):
            for active in (None, [lane % 2 == 0 for lane in range(32)]):
                yield name, [w * size // 4 for w in words], size, active


def test_bank_words_passes_equal_the_priced_passes_where_the_rule_is_distinct_words():
    """memory/bank_words.py draws each lane in its bank word and pass; where the family's rule is
    'distinct words per bank' (marked exact) its passes are shared_access's wavefronts, on every
    CC, for 2 x 3 x 12 accesses; each word's pass is below the warp's passes."""
    from perfcalc.memory.bank_words import bank_words
    from perfcalc.specs import all_archs

    inexact = 0
    for arch in all_archs():
        for name, addresses, size, active in _bank_words_cases():
            words = bank_words(arch, addresses, size, active)
            cost = shared_access(arch, addresses, size, active)
            assert all(0 <= w.pass_index < max(words.passes, 1) for w in words.words)
            assert {w.lane for w in words.words} == {lane for lane in range(32) if active is None or active[lane]}
            if words.exact:
                assert words.passes == cost.wavefronts, (arch.cc, name, size, active)
            else:
                inexact += 1
    assert inexact > 0  # the exceptions exist (1.x repeated words, 2.x 128-bit, uniform pairs)


def test_bank_words_of_a_16_way_conflict():
    """Stride 16 floats on CC 7.0 (32 banks of 4 bytes): lanes l and l+2 fall in banks 0 and 16
    alternately, 16 lanes per bank, 16 distinct words each: 16 passes; lane 2 in bank 0's pass 2."""
    from perfcalc.memory.bank_words import bank_words

    words = bank_words("7.0", [lane * 16 * 4 for lane in range(32)], 4)
    assert words.passes == 16 and {w.bank for w in words.words} == {0, 16}
    lane2 = next(w for w in words.words if w.lane == 2)
    assert (lane2.bank, lane2.pass_index) == (0, 1)
