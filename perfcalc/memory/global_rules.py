"""Global-memory rules per coalescing family (reference/memory.md section 1), over many warps.

Each family function takes (W, 32) int64 byte addresses, a (W, 32) bool mask or None (all
active), the access size and the cache mode, and returns a `Priced`: per-warp requests,
transactions and bytes moved, plus (when `records=True`) one row per transaction so a single
warp can be explained transaction by transaction in issue order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from perfcalc.memory.runs import (
    any_rows,
    argsort_rows,
    distinct_fast,
    fill_inactive,
    full_rows,
    masked,
    narrow_keys,
    row_counts,
    row_sums,
    run_starts,
)


@dataclass(frozen=True)
class Records:
    """One entry per transaction: warp, request within the warp, first lane, address, size."""

    warp: np.ndarray
    request: np.ndarray
    lane: np.ndarray
    address: np.ndarray
    size: np.ndarray


@dataclass(frozen=True)
class Priced:
    requests: np.ndarray
    transactions: np.ndarray
    bytes_moved: np.ndarray
    records: Records | None


_NO_LANE = 1 << 20


def _active_rows(mask: np.ndarray | None, warps: int, group: int) -> np.ndarray:
    """(W, 32 // group) True where the group has an active lane."""
    if mask is None:
        return np.ones((warps, 32 // group), dtype=bool)
    return any_rows(mask.reshape(warps * 32 // group, group)).reshape(warps, 32 // group)


def _runs(keys: np.ndarray, mask: np.ndarray | None, group: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Stable sort of each group of `group` lanes by key (records path). Returns (sorted keys
    (R, group), the lane of each sorted entry, run-start flags)."""
    warps = keys.shape[0]
    k = masked(keys, mask).reshape(warps * 32 // group, group)
    s, perm = argsort_rows(k)
    lanes = perm + (np.arange(s.shape[0]) % (32 // group) * group)[:, None]
    lanes = np.where(s >= 0, lanes, _NO_LANE)  # sentinels never win a minimum
    return s, lanes, run_starts(s)


def _fast_keys(addr: np.ndarray, mask: np.ndarray | None, shift: int, group: int) -> np.ndarray:
    """addr >> shift as rows of `group` lanes, inactive lanes filled (fast path)."""
    rows = addr.shape[0] * 32 // group
    keys = narrow_keys(addr, shift).reshape(rows, group)
    return fill_inactive(keys, None if mask is None else mask.reshape(rows, group))


def distinct_groups(addr: np.ndarray, mask: np.ndarray | None, group: int, records: bool, shift: int) -> Priced:
    """Transactions = distinct (addr >> shift) per lane group (the 2.x/3.x line/segment rule)."""
    warps = addr.shape[0]
    per_row = 32 // group
    size_of_run = 1 << shift
    req = _active_rows(mask, warps, group).sum(axis=1)
    if not records:
        count = distinct_fast(_fast_keys(addr, mask, shift, group))
        tx = count.reshape(warps, per_row).sum(axis=1)
        return Priced(req, tx, tx * size_of_run, None)
    s, lanes, starts = _runs(addr >> shift, mask, group)
    tx = starts.sum(axis=1).reshape(warps, per_row).sum(axis=1)
    rows, cols = np.nonzero(starts)
    rec = Records(
        rows // per_row,
        rows % per_row,
        lanes[rows, cols],
        s[rows, cols] << shift,
        np.full(rows.size, size_of_run, dtype=np.int64),
    )
    return Priced(req, tx, tx * size_of_run, rec)


def cc10(addr: np.ndarray, mask: np.ndarray | None, size: int, records: bool) -> Priced:
    """CC 1.0/1.1 (memory.md 1.1): a half-warp coalesces into one 64 B (4-byte words), one 128 B
    (8-byte) or two 128 B (16-byte) transactions iff lane k of the half-warp reads word k of an
    aligned segment (inactive lanes may be skipped); otherwise one 32 B transaction per active
    lane. Inactive lanes of a non-coalesced half-warp cost nothing (memory.md 8.2 reading)."""
    warps = addr.shape[0]
    a = addr.reshape(warps * 2, 16)
    m = None if mask is None else mask.reshape(warps * 2, 16)
    n_active = np.full(a.shape[0], 16) if m is None else row_counts(m)
    # Lane k coalesces iff its address minus k words is the same segment start S for every
    # active lane: compare with S of the first active lane.
    base = a - size * np.arange(16, dtype=np.int64)
    lo = base[:, 0].copy()
    if m is not None:
        partial = np.flatnonzero(~full_rows(m))
        lo[partial] = base[partial, np.argmax(m[partial], axis=1)]
    same = base == lo[:, None]
    if m is not None:
        same |= ~m
    align = 64 if size == 4 else 128
    coalesced = (size >= 4) & (n_active > 0) & full_rows(same) & (lo % align == 0)
    per_coalesced = 2 if size == 16 else 1
    bytes_coalesced = {4: 64, 8: 128, 16: 256}.get(size, 0)
    tx_row = np.where(coalesced, per_coalesced, n_active)
    bytes_row = np.where(coalesced, bytes_coalesced, 32 * n_active)
    tx = tx_row.reshape(warps, 2).sum(axis=1)
    moved = bytes_row.reshape(warps, 2).sum(axis=1)
    req = (n_active > 0).reshape(warps, 2).sum(axis=1)
    rec = None
    if records:
        lanes_hw = np.arange(16)
        parts = []
        for row in np.flatnonzero(n_active > 0):
            warp, hw = divmod(int(row), 2)
            if coalesced[row]:
                seg = int(lo[row])
                for i in range(per_coalesced):
                    parts.append((warp, hw, 16 * hw, seg + 128 * i, 128 if size >= 8 else 64))
            else:
                for lane in lanes_hw if m is None else lanes_hw[m[row]]:
                    parts.append((warp, hw, 16 * hw + int(lane), int(a[row, lane]) & ~31, 32))
        rec = _records(parts)
    return Priced(req, tx, moved, rec)


# Size of a CC 1.2/1.3 transaction from the mask of 32 B sectors it must cover inside its
# 128 B-aligned segment (memory.md 1.2 step 3): both 64 B halves -> 128, two sectors of one half
# -> 64, one sector -> 32. Index = 4-bit sector mask.
_SHRUNK = np.array([0, 32, 32, 64, 32, 128, 128, 128, 32, 128, 128, 128, 64, 128, 128, 128], dtype=np.int64)


def cc12(addr: np.ndarray, mask: np.ndarray | None, size: int, records: bool) -> Priced:
    """CC 1.2/1.3 (memory.md 1.2): per half-warp, one transaction per distinct segment of 32 B
    (1-byte words), 64 B (2-byte) or 128 B (larger), shrunk to the 64 B or 32 B it uses."""
    warps = addr.shape[0]
    seg_shift = {1: 0, 2: 1}.get(size, 2)  # sectors per segment = 1 << seg_shift
    if not records:
        return _cc12_fast(addr, mask, seg_shift)
    req = _active_rows(mask, warps, 16).sum(axis=1)
    # Sort 32 B sector ids; a segment id is a sector id without its low seg_shift bits, so
    # sorting sectors also groups segments, and sub-sectors come in order inside each.
    s, lanes, _ = _runs(addr >> 5, mask, 16)
    seg = np.where(s >= 0, s >> seg_shift, -1)
    starts = np.flatnonzero(run_starts(seg))
    rows = starts // 16
    sub_mask = np.where(s >= 0, 1 << (s & ((1 << seg_shift) - 1)), 0).ravel()
    used = np.bitwise_or.reduceat(sub_mask, starts) if starts.size else starts
    sizes = _SHRUNK[used] if seg_shift == 2 else np.where(used == 3, 64, 32)
    tx = np.bincount(rows, minlength=warps * 2).reshape(warps, 2).sum(axis=1)
    moved = np.bincount(rows, weights=sizes, minlength=warps * 2).astype(np.int64)
    seg_base = seg.ravel()[starts] << (5 + seg_shift)
    low_sector = _lowest_bit(used)
    # A 64 B transaction starts at its half, a 32 B one at its sector (memory.md 1.2 step 3).
    offset = np.where(sizes == 128, 0, np.where(sizes == 64, (low_sector >> 1) << 6, low_sector << 5))
    first_lane = np.minimum.reduceat(lanes.ravel(), starts) if starts.size else starts
    rec = Records(rows // 2, rows % 2, first_lane, seg_base + offset, sizes)
    return Priced(req, tx, moved.reshape(warps, 2).sum(axis=1), rec)


# Size of a 1.2/1.3 transaction from the first and last sector (0-3) it covers in its 128 B
# segment: different 64 B halves -> 128, two sectors of one half -> 64, one sector -> 32.
_FIRST_LAST = np.array(
    [[32 if a == b else 64 if a >> 1 == b >> 1 else 128 for b in range(4)] for a in range(4)], dtype=np.int64
).ravel()


def _cc12_fast(addr: np.ndarray, mask: np.ndarray | None, seg_shift: int) -> Priced:
    """Batch pricing without records. After `fill_inactive` a half-warp row is either all
    sentinels (no active lane: no request, nothing moved) or holds only real sector ids; rows
    are sorted only where they are not already nondecreasing (coalesced, strided, column and
    broadcast rows already are), and only rows whose first and last sector lie in different
    segments are looked at lane by lane."""
    k = _fast_keys(addr, mask, 5, 16)
    _sort_unsorted_rows(k)
    first, last = k[:, 0].copy(), k[:, -1].copy()  # contiguous: strided columns are slow
    active = first >= 0
    tx_row = active.astype(np.int64)
    if seg_shift == 2:  # one 128 B segment spans its first to its last sector
        moved_row = _FIRST_LAST.take(((first & 3) << 2) | (last & 3))
    elif seg_shift == 1:  # a 64 B segment costs 32 B per sector it uses
        moved_row = np.where(first == last, 32, 64)
    else:
        moved_row = np.full(k.shape[0], 32, dtype=np.int64)
    moved_row *= tx_row
    first >>= seg_shift
    last >>= seg_shift
    multi = np.flatnonzero(first != last)
    if multi.size:
        km = k[multi]
        seg = km >> seg_shift if seg_shift else km
        starts = _row_steps(np.not_equal, seg)
        starts[:, 0] = False
        tx_multi = row_counts(starts) + 1
        tx_row[multi] = tx_multi
        if seg_shift == 0:
            moved_row[multi] = 32 * tx_multi
        else:
            changes = _row_steps(np.not_equal, km)
            changes[:, 0] = False
            sectors_used = row_counts(changes) + 1
            moved_row[multi] = 32 * sectors_used
            if seg_shift == 2:
                # Segments with several sectors may use both 64 B halves (128 B, not 32 B x n).
                rest = np.flatnonzero(sectors_used != tx_multi)
                if rest.size:
                    moved_row[multi[rest]] = _multi_segment_bytes(km[rest])
    return Priced(_pair_sums(active), _pair_sums(tx_row), _pair_sums(moved_row), None)


def _pair_sums(per_half: np.ndarray) -> np.ndarray:
    """Per-warp totals of per-half-warp values (two adjacent entries), as int64."""
    pairs = per_half.reshape(-1, 2)
    return pairs[:, 0].astype(np.int64) + pairs[:, 1]


def _sort_unsorted_rows(k: np.ndarray) -> None:
    """In place: sort the rows that are not already nondecreasing."""
    ordered = _row_steps(np.greater_equal, k)
    ordered[:, 0] = True
    rows = np.flatnonzero(~full_rows(ordered))
    if rows.size:
        k[rows] = np.sort(k[rows], axis=1)


def _row_steps(op: np.ufunc, k: np.ndarray) -> np.ndarray:
    """(R, n) bool: op(k[:, j], k[:, j - 1]) for j >= 1; column 0 is left for the caller to set.
    One pass over the flat contiguous array (column 0 compares across rows) is several times
    faster than the same comparison on strided (R, n - 1) views."""
    flat = k.ravel()
    out = np.empty(flat.size, dtype=bool)
    op(flat[1:], flat[:-1], out=out[1:])
    return out.reshape(k.shape)


def _multi_segment_bytes(k: np.ndarray) -> np.ndarray:
    """Bytes of sorted half-warp rows of sector ids that touch several 128 B segments.

    A segment costs 32 B per distinct sector, except one that uses both 64 B halves, which
    costs 128 B. Repeated sectors are pushed to the end of each row by a second sort; then a
    segment is a run of at most 4 distinct sectors, and the one step where a run crosses from
    its lower to its upper half sees the whole run within 2 places back and 1 ahead.
    """
    top = np.iinfo(k.dtype).max
    repeated = np.zeros(k.shape, dtype=bool)
    np.equal(k[:, 1:], k[:, :-1], out=repeated[:, 1:])
    d = k.copy()
    np.copyto(d, top, where=repeated)
    d.sort(axis=1)
    distinct = k.shape[1] - row_counts(repeated)
    seg = d >> 2
    upper = (d & 2) != 0  # sector in the upper 64 B half of its segment (sentinels: True)
    width = k.shape[1]
    same1 = np.zeros((d.shape[0], width + 1), dtype=bool)  # same1[:, j]: seg[j] == seg[j-1]
    np.equal(seg[:, 1:], seg[:, :-1], out=same1[:, 1:width])
    same2 = np.zeros(d.shape, dtype=bool)  # same2[:, j]: seg[j] == seg[j-2]
    np.equal(seg[:, 2:], seg[:, :-2], out=same2[:, 2:])
    crossing = np.zeros(d.shape, dtype=bool)  # lower -> upper half inside one segment at j
    np.logical_and(same1[:, 1:width], upper[:, 1:], out=crossing[:, 1:])
    crossing[:, 1:] &= ~upper[:, :-1]
    # 128 B instead of 32 B x n: n = 2 + (seg[j-2] == seg[j]) + (seg[j+1] == seg[j]).
    extra = crossing.astype(np.int8) * (2 - same2.astype(np.int8) - same1[:, 1:].astype(np.int8))
    return 32 * (distinct + row_sums(extra))


def _lowest_bit(x: np.ndarray) -> np.ndarray:
    low = x & -x
    return np.where(low > 0, np.log2(np.maximum(low, 1)).astype(np.int64), 0)


def cached(addr: np.ndarray, mask: np.ndarray | None, size: int, line_cache: bool, records: bool) -> Priced:
    """CC 2.x/3.x (memory.md 1.3-1.4): the warp is split into requests by word size (one warp
    for <= 4 bytes, half-warps for 8, quarter-warps for 16); each request costs one 128 B line
    per distinct line it touches (L1-cached loads) or one 32 B segment per distinct segment
    (L2-only loads and all stores). Requests without an active lane are dropped (memory.md 8.5)."""
    group = {8: 16, 16: 8}.get(size, 32)
    shift = 7 if line_cache else 5
    return distinct_groups(addr, mask, group, records, shift)


def sectors(addr: np.ndarray, mask: np.ndarray | None, size: int, request_lanes: int, records: bool) -> Priced:
    """CC >= 5.0 (memory.md 1.5-1.6): transactions are the distinct 32 B sectors of the whole
    instruction; requests are 1 per instruction on 7.x-9.0 (H100-measured) and, on 5.x/6.x,
    the forum's t-stage requests of `request_lanes` lanes (8/4/2 for <=4/8/16-byte words)."""
    warps = addr.shape[0]
    req = _active_rows(mask, warps, request_lanes).sum(axis=1)
    if not records:
        tx = distinct_fast(_fast_keys(addr, mask, 5, 32))
        return Priced(req, tx, tx * 32, None)
    s, lanes, starts = _runs(addr >> 5, mask, 32)
    tx = starts.sum(axis=1)
    rows, cols = np.nonzero(starts)
    rec = Records(
        rows,
        lanes[rows, cols] // request_lanes,
        lanes[rows, cols],
        s[rows, cols] << 5,
        np.full(rows.size, 32, dtype=np.int64),
    )
    return Priced(req, tx, tx * 32, rec)


def _records(parts: list[tuple[int, int, int, int, int]]) -> Records:
    arr = np.array(parts, dtype=np.int64).reshape(-1, 5)
    return Records(*(arr[:, i] for i in range(5)))
