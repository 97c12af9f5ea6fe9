"""Atomics that wait for each other: the work each 128-byte line's atomics put on the L2.

The L2 applies the atomics to one line one request at a time, so a line that every thread
updates (a counter, a sum, a few histogram bins) takes time in proportion to its requests,
however many SMs send them. How much each request costs depends on its kind, as measured on an
H100 (benchmarks/hw/dispatch_atomics_micro.py): integer reductions (add, min, max, and, or, xor)
of a warp's lanes on one sector are combined into one request per warp and sector; float and
double adds and the exchanges (compare-and-swap, exch, inc, dec) are applied lane by lane.

The tally keeps, per line, (warp-sector requests of combinable kinds, float-add lanes,
exchange lanes); to stay small it keeps the lines that carry the most work of each call.
"""

from __future__ import annotations

import numpy as np

from perfcalc.memory.lanes import active_lanes, warp_address_pairs

KINDS = ("combined", "float", "exchange")
LINE_SHIFT = 7
SECTOR_SHIFT = 5
# lines kept per call (the hot ones); scattered atomics spread over many lines wait for no one
KEEP_PER_CALL = 64


def atomic_kind(op: str, is_float: bool) -> str:
    """Which cost class an atomic belongs to (module docstring)."""
    if op in ("cas", "exch", "inc", "dec"):
        return "exchange"
    if is_float:
        return "float" if op == "add" else "exchange"
    return "combined"


class ContentionTally:
    """Per-line atomic work over a run (lines are byte address >> 7)."""

    def __init__(self) -> None:
        self.lines: dict[int, list[float]] = {}

    def record(self, addr: np.ndarray, mask: np.ndarray | None, kind: str) -> None:
        """One atomic warp instruction over a chunk's lanes (lane order; 32 lanes a warp)."""
        addr, lane = active_lanes(addr, mask)
        if addr.size == 0:
            return
        if kind == "combined":  # one request per warp and sector
            _, sectors, _ = warp_address_pairs(addr >> SECTOR_SHIFT, lane)
            lines = sectors >> (LINE_SHIFT - SECTOR_SHIFT)
        else:  # one per lane
            lines = addr >> LINE_SHIFT
        where, counts = np.unique(lines, return_counts=True)
        if where.size > KEEP_PER_CALL:
            top = np.argpartition(counts, -KEEP_PER_CALL)[-KEEP_PER_CALL:]
            where, counts = where[top], counts[top]
        slot = KINDS.index(kind)
        for line, count in zip(where.tolist(), counts.tolist(), strict=True):
            self.lines.setdefault(line, [0.0, 0.0, 0.0])[slot] += count

    def hottest(self, keep: int = 8) -> tuple[tuple[float, float, float], ...]:
        """The `keep` lines with the most requests of any kind, as (combined, float, exchange)."""
        ranked = sorted(self.lines.values(), key=sum, reverse=True)[:keep]
        return tuple((a, b, c) for a, b, c in ranked)
