"""The active lanes of a warp instruction over a chunk, as the memory models take them."""

from __future__ import annotations

import numpy as np


def active_lanes(addr: np.ndarray, mask: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """(byte addresses, lane numbers in the chunk) of the active lanes (mask None: all)."""
    addr = np.asarray(addr, dtype=np.int64).reshape(-1)
    lane = np.arange(addr.size, dtype=np.int64)
    if mask is not None:
        m = np.asarray(mask, dtype=bool).reshape(-1)
        addr, lane = addr[m], lane[m]
    return addr, lane


def warp_address_pairs(addr: np.ndarray, lane: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (warp, address) pairs of active lanes (32 lanes a warp; addresses below
    2^40): (warp of each pair, its address, how many lanes share it), sorted by warp."""
    keys, counts = np.unique((lane >> 5) * (1 << 40) + addr, return_counts=True)
    return keys >> 40, keys & ((1 << 40) - 1), counts


def distinct_per_warp(addr: np.ndarray, mask: np.ndarray | None) -> int:
    """Distinct addresses of each warp's active lanes, summed over warps."""
    addr, lane = active_lanes(addr, mask)
    if addr.size == 0:
        return 0
    if (addr == addr[0]).all():  # one address (a uniform index): one per warp
        return int(np.count_nonzero(np.diff(lane >> 5))) + 1
    return int(warp_address_pairs(addr, lane)[0].size)
