"""CC 1.x shared memory (memory.md 3.1): 16 banks, half-warps, one broadcast word per step.

Each half-warp is an independent request; accesses wider than 32 bits are split into separate
32-bit requests (a double = two, a float4 = four). A request is serviced in steps: each step
broadcasts one word to every pending lane that reads it and serves one pending lane of every
other bank. The guide leaves open which word is broadcast and which lane a bank serves; perfcalc
takes the lowest-numbered pending lane for both (the choice the 1.2/1.3 coalescer documents for
global memory), which can give one step more than the best choice (SV11: 3 where the range is
[2, 3]; memory.md 8.3). Without repeated words the choice never matters: passes = the largest
number of lanes in one bank.
"""

from __future__ import annotations

import numpy as np

from perfcalc.memory.runs import bank_passes, distinct, distinct_banks

_LOWER = np.tri(16, k=-1, dtype=bool)  # _LOWER[i, j]: lane j comes before lane i


def half_warp_rows(addr: np.ndarray, mask: np.ndarray | None, size: int) -> tuple[np.ndarray, np.ndarray | None, int]:
    """(W*2*k, 16) 32-bit word indices and masks, one row per (warp, half-warp, sub-request)."""
    warps = addr.shape[0]
    k = max(1, size // 4)
    words = (addr >> 2).reshape(warps, 2, 1, 16) + np.arange(k).reshape(1, 1, k, 1)
    words = words.reshape(-1, 16)
    valid = None
    if mask is not None:
        valid = np.broadcast_to(mask.reshape(warps, 2, 1, 16), (warps, 2, k, 16)).reshape(-1, 16)
    return words, valid, 2 * k


def steps(words: np.ndarray, valid: np.ndarray | None) -> np.ndarray:
    """Service steps of each 16-lane request row."""
    rows = words.shape[0]
    active = np.full(rows, 16) if valid is None else valid.sum(axis=1)
    out = np.zeros(rows, dtype=np.int64)
    easy = distinct_banks(words & 15, valid, 16)  # all banks different: one step if any lane
    out[easy] = active[easy] > 0
    repeated = np.zeros(rows, dtype=bool)
    hard = np.flatnonzero(~easy)
    if hard.size:
        repeated[hard] = distinct(words[hard], None if valid is None else valid[hard]) < active[hard]
    plain = np.flatnonzero(~easy & ~repeated)
    if plain.size:  # every lane its own word: one lane per bank per step
        v = None if valid is None else valid[plain]
        w = words[plain]
        out[plain] = bank_passes(w & 15, w >> 4, 0, v)[0]
    hard = np.flatnonzero(repeated)
    if hard.size:
        v = np.ones((hard.size, 16), dtype=bool) if valid is None else valid[hard]
        out[hard] = _simulate(words[hard], v)
    return out


def _simulate(words: np.ndarray, pending: np.ndarray) -> np.ndarray:
    """Step-by-step service of rows with repeated words (at most 16 steps, vectorised over rows)."""
    pending = pending.copy()
    rows = np.arange(words.shape[0])
    bank = words & 15
    same_bank_before = (bank[:, :, None] == bank[:, None, :]) & _LOWER
    count = np.zeros(words.shape[0], dtype=np.int64)
    while True:
        live = pending.any(axis=1)
        if not live.any():
            return count
        count += live
        first = np.argmax(pending, axis=1)
        broadcast = words[rows, first]
        head = pending & ~(same_bank_before & pending[:, None, :]).any(axis=2)
        served = head | (pending & (words == broadcast[:, None]))
        pending &= ~served


def passes(addr: np.ndarray, mask: np.ndarray | None, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Per warp (passes of all its half-warp requests, largest steps of one request)."""
    warps = addr.shape[0]
    words, valid, per_warp = half_warp_rows(addr, mask, size)
    per_row = steps(words, valid).reshape(warps, per_warp)
    return per_row.sum(axis=1), per_row.max(axis=1)
