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
