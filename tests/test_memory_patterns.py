"""Named warp patterns: each builds the addresses memory.md's vectors use (so their costs are
the memory.md figures), and rejects bad parameters with an InputError naming the value."""

from __future__ import annotations

import numpy as np
import pytest

from perfcalc.errors import InputError
from perfcalc.memory import global_access, shared_access
from perfcalc.memory.patterns import PATTERNS, parse_lane_mask, warp_pattern

LANE = np.arange(32)


def addrs(*args, **kwargs) -> np.ndarray:
    return warp_pattern(*args, **kwargs).arrays()[0]


def test_stride_offset_base():
    """Definition: address = base + word x (offset + stride x lane). GV3 = base 128, offset 1."""
    assert np.array_equal(addrs("stride", 4, base=128, offset=1), 132 + 4 * LANE)
    assert np.array_equal(addrs("stride", 8, stride=3), 24 * LANE)


def test_reversed_is_gv10():
    """memory.md GV10 (4*(31-l)): 1.2/1.3 gives 64 B at 64 then 64 B at 0."""
    addr = addrs("reversed", 4)
    assert np.array_equal(addr, 4 * (31 - LANE))
    assert global_access("1.2", addr, 4).transactions == ((64, 64), (0, 64))


def test_permuted_is_a_seeded_permutation():
    """A permutation of the 32 sequential words: same multiset, reproducible per seed; inside
    one 128 B line it is one L1 transaction on 2.x (memory.md GV2: any order is free)."""
    a = addrs("permuted", 4, seed=5)
    assert sorted(a.tolist()) == (4 * LANE).tolist()
    assert np.array_equal(a, addrs("permuted", 4, seed=5))
    assert not np.array_equal(a, addrs("permuted", 4, seed=6))
    assert global_access("2.0", a, 4).transactions == ((0, 128),)


def test_broadcast_is_gv14():
    """memory.md GV14: all lanes on one word -> 1.2/1.3 32 B per half-warp, 1 sector on 9.0."""
    addr = addrs("broadcast", 4, base=256)
    assert set(addr.tolist()) == {256}
    assert global_access("1.3", addr, 4).transactions == ((256, 32), (256, 32))


def test_aos_fields_are_gv22_gv23():
    """Seed 002 'array of structures' {int index; double value}: 16-byte structs; .value is
    memory.md GV22 (16l+8), .index is GV23 (16l); both 16 sectors on 9.0."""
    value = addrs("aos", 8, struct_size=16, field_offset=8)
    index = addrs("aos", 4, struct_size=16, field_offset=0)
    assert np.array_equal(value, 16 * LANE + 8) and np.array_equal(index, 16 * LANE)
    assert global_access("9.0", value, 8).transaction_count == 16


def test_tile_column_padding_is_sv4_sv5():
    """tile[x][y] of a 32-wide float tile: stride 32 words (SV4, 32 passes on 5.x-9.0); padded
    to 33 (SV5) conflict-free."""
    assert np.array_equal(addrs("tile-column", 4), 128 * LANE)
    assert np.array_equal(addrs("tile-column", 4, pad=1), 132 * LANE)
    assert shared_access("9.0", addrs("tile-column", 4, pad=1), 4).wavefronts == 1


def test_tile_row_of_a_16_wide_block_spans_two_rows():
    """memory.md 0: with blockDim.x = 16 a warp covers two tile rows. tile[y][x] with rows of
    16 + 1: lane 31 reads word 17 + 15 = 32, the same bank as lane 0's word 0 -> 2 passes on
    5.x-9.0, though each row alone is conflict-free."""
    addr = addrs("tile-row", 4, tile_width=16, pad=1)
    assert addr[16] == 4 * 17 and addr[31] == 4 * 32
    assert shared_access("9.0", addr, 4).wavefronts == 2


def test_random_within_segment():
    """Seeded, word-aligned, inside [base, base + segment); 128 B -> at most 4 sectors, 1 line."""
    a = addrs("random", 4, base=512, segment=128, seed=3)
    assert np.array_equal(a, addrs("random", 4, base=512, segment=128, seed=3))
    assert a.min() >= 512 and a.max() < 640 and not (a % 4).any()
    r = global_access("9.0", a, 4)
    assert r.lines == 1 and r.transaction_count <= 4


def test_index_expression_equals_stride():
    """'lane*2+1' is stride 2 with offset 1 by definition."""
    assert np.array_equal(addrs("index", 4, index="lane*2+1"), addrs("stride", 4, stride=2, offset=1))
    assert np.array_equal(addrs("index", 4, index="7"), np.full(32, 28))


def test_active_mask_hex_is_gv4():
    """memory.md GV4 mask ffe7ffe7: lanes 3, 4, 19, 20 inactive."""
    mask = parse_lane_mask("0xffe7ffe7")
    assert np.flatnonzero(~mask).tolist() == [3, 4, 19, 20]
    assert warp_pattern("stride", 4, active="ffe7ffe7").active == tuple(mask.tolist())


def test_every_pattern_builds_32_aligned_lanes():
    extra = {"aos": {"struct_size": 16}, "index": {"index": "lane"}}
    for name in PATTERNS:
        p = warp_pattern(name, 4, **extra.get(name, {}))
        assert len(p.addresses) == 32 and all(a % 4 == 0 for a in p.addresses), name


@pytest.mark.parametrize(
    "args,kwargs,needle",
    [
        (("zigzag",), {}, "pattern 'zigzag'"),
        (("aos", 4), {}, "struct size"),
        (("aos", 8), {"struct_size": 12, "field_offset": 8}, "does not fit a 12-byte struct"),
        (("tile-row", 4), {"tile_width": 0}, "tile width 0"),
        (("tile-column", 4), {"pad": -1}, "padding -1"),
        (("random", 8), {"segment": 12}, "segment 12 bytes"),
        (("index", 4), {}, "needs an expression"),
        (("index", 4), {"index": "lane > 3"}, "true/false"),
        (("stride", 6), {}, "access size 6"),
        (("stride", 4), {"active": "1ffffffff"}, "does not fit the 32 lanes"),
    ],
)
def test_bad_parameters(args, kwargs, needle):
    with pytest.raises(InputError, match=needle):
        warp_pattern(*args, **kwargs)
