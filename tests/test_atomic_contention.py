"""memory/atomic_contention.py: what each 128-byte line's atomics cost the L2, counted as the
H100 microbenchmarks (benchmarks/hw/dispatch_atomics_micro.py) say requests are formed: integer
reductions one per warp and sector, float adds and exchanges one per lane."""

from __future__ import annotations

import numpy as np

from perfcalc.memory.atomic_contention import ContentionTally, atomic_kind


def test_kinds():
    assert atomic_kind("add", is_float=False) == "combined"
    assert atomic_kind("max", is_float=False) == "combined"
    assert atomic_kind("add", is_float=True) == "float"
    assert [atomic_kind(op, False) for op in ("cas", "exch", "inc", "dec")] == ["exchange"] * 4


def test_one_address_two_warps():
    """64 lanes on address 4096: combined 2 requests (one per warp), float 64 lanes."""
    addr = np.full(64, 4096)
    t = ContentionTally()
    t.record(addr, None, "combined")
    t.record(addr, None, "float")
    assert t.lines == {32: [2.0, 64.0, 0.0]}


def test_one_warp_on_the_words_of_a_line_is_four_sector_requests():
    """A warp's 32 lanes on the 32 words of one line touch its 4 sectors: 4 combined requests;
    masked-off lanes count nothing; exchanges one per active lane."""
    addr = 8192 + 4 * np.arange(32)
    mask = np.ones(32, bool)
    mask[:8] = False  # sector 0 untouched
    t = ContentionTally()
    t.record(addr, None, "combined")
    t.record(addr, mask, "combined")
    t.record(addr, mask, "exchange")
    assert t.lines == {64: [4.0 + 3.0, 0.0, 24.0]}
    assert t.hottest(1) == ((7.0, 0.0, 24.0),)


def test_only_the_hottest_lines_of_a_scattered_call_are_kept():
    addr = 128 * np.arange(1000)
    addr[1:10] = 0  # line 0 gets 10 lanes
    t = ContentionTally()
    t.record(addr, None, "exchange")
    assert len(t.lines) == 64 and t.lines[0] == [0.0, 0.0, 10.0]
