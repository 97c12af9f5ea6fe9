"""Each warp's own chain of work: the instructions it issued, the times it waited for global
loads, and the times it waited for shared loads (loads issued before a use wait together, as
global ones: load_waits.py). The time model's latency term spreads a launch's chains evenly over
its warps; where the work is not even (one thread summing an array, a few blocks of thousands
doing the work), the launch cannot end before its longest warp does, whatever the mean. The
engine keeps, over all chunks, the few warps that are longest under a set of nominal weightings
of the three (LONGEST_BY); the model prices them with its own latencies and takes the longest."""

from __future__ import annotations

from typing import Protocol

import numpy as np

# (issued instruction, global-load wait, shared-load wait) in cycles: nominal figures of the time
# model's dependent issue (4), shared latency (29) and global latencies from an L1 hit (44) to
# DRAM (600; the H100's pointer chase is 687 idle and more under load: devices/timing.yaml), and
# each part alone. The warp longest under the model's own weights is one
# of these where its weights are one of them, and otherwise close to the longest of them.
LONGEST_BY: tuple[tuple[float, float, float], ...] = (
    (1.0, 0.0, 0.0),
    (0.0, 1.0, 0.0),
    (0.0, 0.0, 1.0),
    (4.0, 44.0, 29.0),
    (4.0, 150.0, 29.0),
    (4.0, 300.0, 29.0),
    (4.0, 600.0, 29.0),
)

ISSUED, WAITS, SHARED = 0, 1, 2

Chain = tuple[int, int, int]


class _HasWarps(Protocol):
    def nwarps(self) -> int: ...

    def warps(self) -> np.ndarray: ...


class WarpChains:
    """Per warp of a chunk: (issued, global-load waits, shared-load waits). While every warp of the chunk takes
    part, one number for all (`common`); per-warp counts only once warps diverge."""

    __slots__ = ("n", "each", "common")

    def __init__(self, nwarps: int):
        self.n = nwarps
        self.each: np.ndarray | None = None
        self.common = [0, 0, 0]

    def warps_of(self, facts: _HasWarps) -> np.ndarray | None:
        """The warps with an active lane in `facts` (program.py's _Facts), or None where that is
        every warp of the chunk (the common count)."""
        return None if facts.nwarps() == self.n else facts.warps()

    def add(self, part: int, warps: np.ndarray | None, k: int = 1) -> None:
        """`k` more of `part` for the warps marked in `warps` (None: every warp of the chunk)."""
        if warps is None:
            self.common[part] += k
            return
        if self.each is None:
            self.each = np.zeros((self.n, 3), dtype=np.int64)
        self.each[:, part] += warps * k if k != 1 else warps

    def totals(self) -> np.ndarray:
        """(warps, 3): each warp's chain."""
        out = np.zeros((self.n, 3), dtype=np.int64) if self.each is None else self.each.copy()
        out += np.asarray(self.common, dtype=np.int64)
        return out


def longest(chains: np.ndarray, kept: tuple[Chain, ...] = ()) -> tuple[Chain, ...]:
    """The chains (and those `kept` from earlier chunks) longest under each of LONGEST_BY, each
    once: what the time model needs of every warp of a launch."""
    rows = chains if not kept else np.vstack([chains, np.asarray(kept, dtype=np.int64)])
    if rows.shape[0] == 0:
        return kept
    weights = np.asarray(LONGEST_BY, dtype=np.float64)
    best = np.argmax(rows.astype(np.float64) @ weights.T, axis=0)
    found: list[Chain] = []
    for i in best:
        chain = (int(rows[i, 0]), int(rows[i, 1]), int(rows[i, 2]))
        if chain not in found:
            found.append(chain)
    return tuple(found)
