"""CC 7.x-9.0 L1TEX tag and data stages of one global instruction (memory.md 1.6 steps 3-5).

An empirical model fitted to 40 H100 global-load cases (memory.md 8.11): lines are grouped by
first appearance (lowest lane first) into tag wavefronts of up to 4 lines; inside each, lanes are
split into size groups (whole warp for <= 4-byte words, half-warps for 8, quarter-warps for 16)
and each (tag wavefront, size group) costs the shared-memory bank rule on the L1 data array.
"""

from __future__ import annotations

import numpy as np

from perfcalc.memory.runs import argsort_rows, bank_passes, masked, run_starts


def line_ranks(addr: np.ndarray, mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """Per warp the number of distinct 128 B lines, and per lane the rank of its line in order
    of first appearance (0 for the line of the lowest active lane)."""
    warps = addr.shape[0]
    s, perm = argsort_rows(masked(addr >> 7, mask))
    starts = run_starts(s)
    lines = starts.sum(axis=1)
    rows, cols = np.nonzero(starts)
    first_lane = perm[rows, cols]  # stable sort: each run begins at its lowest lane
    is_first = np.zeros((warps, 32), dtype=bool)
    is_first[rows, first_lane] = True
    order = np.cumsum(is_first, axis=1) - 1
    run_rank = order[rows, first_lane]
    run_id = np.cumsum(starts.ravel()) - 1
    entry_rank = np.where(s.ravel() >= 0, run_rank[np.maximum(run_id, 0)] if rows.size else 0, 0)
    rank = np.zeros((warps, 32), dtype=np.int64)
    np.put_along_axis(rank, perm, entry_rank.reshape(warps, 32), axis=1)
    return lines, rank


def data_wavefronts(
    addr: np.ndarray, mask: np.ndarray | None, size: int, rank: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per warp (data-stage wavefronts, data-stage bank conflicts) of memory.md 1.6 step 5."""
    warps = addr.shape[0]
    group_lanes = {8: 16, 16: 8}.get(size, 32)
    size_group = np.arange(32, dtype=np.int64) // group_lanes
    group = (rank // 4) * 4 + size_group  # at most 8 tag wavefronts x 4 size groups
    words_per_lane = max(1, size // 4)
    step = np.arange(words_per_lane, dtype=np.int64)
    words = ((addr >> 2)[:, :, None] + step).reshape(warps, 32 * words_per_lane)
    group = np.repeat(group, words_per_lane, axis=1)
    valid = None if mask is None else np.repeat(mask, words_per_lane, axis=1)
    passes, _, groups = bank_passes(words & 31, words >> 5, group, valid)
    return passes, passes - groups
