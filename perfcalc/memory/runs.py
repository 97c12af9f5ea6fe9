"""Row-wise building blocks shared by every family: sorted rows, distinct counts, bank maxima.

All functions work on 2-D arrays whose rows are independent (one warp, half-warp or quarter-warp
per row) and never loop in Python over rows. Invalid (inactive) entries are marked with the
sentinel -1, which sorts before every real key (keys are >= 0).
"""

from __future__ import annotations

import numpy as np

SENTINEL = -1
# Key layout for the bank kernel: group (bits 45+) | bank (bits 40-44) | row (bits 0-39).
_ROW_BITS = 40


def masked(keys: np.ndarray, valid: np.ndarray | None) -> np.ndarray:
    """Keys with invalid entries replaced by the sentinel (no copy when every entry is valid)."""
    return keys if valid is None else np.where(valid, keys, SENTINEL)


def sort_rows(keys: np.ndarray) -> np.ndarray:
    """Each row ascending. Rows that are already nondecreasing (sequential, strided or uniform
    accesses: the common case) are left alone, so only the scattered rows pay for a sort."""
    if keys.shape[1] < 2:
        return keys
    ordered = (keys[:, 1:] >= keys[:, :-1]).all(axis=1)
    if ordered.all():
        return keys
    out = keys.copy()
    rows = np.flatnonzero(~ordered)
    out[rows] = np.sort(keys[rows], axis=1)
    return out


def argsort_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stable row-wise sort that also returns where each sorted entry came from (for lane order)."""
    perm = np.argsort(keys, axis=1, kind="stable")
    return np.take_along_axis(keys, perm, axis=1), perm


def run_starts(sorted_keys: np.ndarray) -> np.ndarray:
    """True where a sorted row starts a new run of a real (non-sentinel) key."""
    starts = np.empty(sorted_keys.shape, dtype=bool)
    starts[:, 0] = True
    np.not_equal(sorted_keys[:, 1:], sorted_keys[:, :-1], out=starts[:, 1:])
    starts &= sorted_keys >= 0
    return starts


def distinct(keys: np.ndarray, valid: np.ndarray | None) -> np.ndarray:
    """Number of distinct keys among the valid entries of each row."""
    return run_starts(sort_rows(masked(keys, valid))).sum(axis=1)


def bank_passes(
    bank: np.ndarray, row: np.ndarray, group: np.ndarray | int, valid: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: sum over groups of (max over banks of distinct rows in that bank), the largest
    group term, and the number of groups with a valid entry.

    `bank` (< 32), `row` (< 2**40) and `group` (< 2**17) describe one bank-array word per entry;
    two entries conflict when they hit the same bank of the same group with different rows.
    This is the shared-memory bank rule of every CC >= 2.0 and the H100 L1 data-stage rule.
    """
    n_rows, width = bank.shape
    key = np.asarray(group, dtype=np.int64) << (_ROW_BITS + 5)
    key = key | (bank.astype(np.int64) << _ROW_BITS) | row
    s = sort_rows(masked(key, valid))
    new_word = run_starts(s).ravel()
    prefix = s >> _ROW_BITS  # (group, bank); the sentinel stays -1
    new_bank = np.empty(s.shape, dtype=bool)
    new_bank[:, 0] = True
    np.not_equal(prefix[:, 1:], prefix[:, :-1], out=new_bank[:, 1:])
    new_bank &= s >= 0
    starts = np.flatnonzero(new_bank)
    passes = np.zeros(n_rows, dtype=np.int64)
    largest = np.zeros(n_rows, dtype=np.int64)
    groups = np.zeros(n_rows, dtype=np.int64)
    if starts.size == 0:
        return passes, largest, groups
    per_bank = np.add.reduceat(new_word.astype(np.int64), starts)
    run_row = starts // width
    run_group = prefix.ravel()[starts] >> 5
    new_group = np.ones(starts.size, dtype=bool)
    new_group[1:] = (run_row[1:] != run_row[:-1]) | (run_group[1:] != run_group[:-1])
    gstarts = np.flatnonzero(new_group)
    per_group = np.maximum.reduceat(per_bank, gstarts)
    group_row = run_row[gstarts]
    rstarts = np.flatnonzero(np.r_[True, group_row[1:] != group_row[:-1]])
    rows_present = group_row[rstarts]
    passes[rows_present] = np.add.reduceat(per_group, rstarts)
    largest[rows_present] = np.maximum.reduceat(per_group, rstarts)
    groups[rows_present] = np.diff(np.r_[rstarts, group_row.size])
    return passes, largest, groups


# ---- fast paths for the many-warp pricing (no records, as few full passes as possible) ----

_ONES = np.uint64(0x0101010101010101)  # eight True bytes viewed as one uint64


def _words(flags: np.ndarray) -> np.ndarray | None:
    """(R, 8k) bool -> (R, k) uint64 view, or None where a view is not possible."""
    if flags.shape[1] % 8 or not flags.flags.c_contiguous:
        return None
    return flags.view(np.uint64)


def row_counts(flags: np.ndarray) -> np.ndarray:
    """Number of True entries per row of a bool array, counted eight at a time through a uint64
    view and summed column by column (NumPy reduces tiny rows slowly)."""
    words = _words(flags)
    if words is None or not hasattr(np, "bitwise_count"):
        return flags.sum(axis=1)
    bits = np.bitwise_count(words)
    total = bits[:, 0].astype(np.int64)
    for j in range(1, bits.shape[1]):
        total += bits[:, j]
    return total


def _pairwise(op: np.ufunc, values: np.ndarray) -> np.ndarray:
    """op-reduce each row by halving (NumPy reduces tiny rows slowly); returns shape (R,)."""
    while values.shape[1] > 1:
        half = values.shape[1] // 2
        folded = op(values[:, :half], values[:, half : 2 * half])
        if values.shape[1] % 2:
            folded = np.concatenate([folded, values[:, 2 * half :]], axis=1)
        values = folded
    return values[:, 0]


def row_sums(values: np.ndarray) -> np.ndarray:
    """Row sums as int64; the dtype of `values` must hold a row's total."""
    return _pairwise(np.add, values).astype(np.int64)


def full_rows(mask: np.ndarray) -> np.ndarray:
    """True for rows of a bool mask whose entries are all True."""
    words = _words(mask)
    if words is None:
        return np.asarray(mask.all(axis=1))
    out = words[:, 0] == _ONES
    for j in range(1, words.shape[1]):
        out &= words[:, j] == _ONES
    return out


def any_rows(mask: np.ndarray) -> np.ndarray:
    """True for rows of a bool mask with at least one True entry."""
    words = _words(mask)
    if words is None:
        return np.asarray(mask.any(axis=1))
    out = words[:, 0].copy()
    for j in range(1, words.shape[1]):
        out |= words[:, j]
    return out != 0


def narrow_keys(addr: np.ndarray, shift: int) -> np.ndarray:
    """addr >> shift as a fresh array, in int32 when every key fits (halves memory traffic)."""
    top = int(addr.max(initial=0)) >> shift if addr.size else 0
    if top < 1 << 30:  # headroom: sentinels and shifted segment ids stay distinct
        out = np.empty(addr.shape, dtype=np.int32)
        return np.right_shift(addr, shift, out=out, casting="unsafe")
    return addr >> shift


def fill_inactive(keys: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """In place: inactive entries take the largest active key of their row, so they add no
    distinct key and keep sorted rows sorted; rows with no active entry become the sentinel."""
    if mask is None:
        return keys
    rows = np.flatnonzero(~full_rows(mask))
    if rows.size:
        sub, m = keys[rows], mask[rows]
        top = np.where(m, sub, SENTINEL).max(axis=1)
        keys[rows] = np.where(m, sub, top[:, None])
    return keys


def distinct_fast(keys: np.ndarray) -> np.ndarray:
    """Distinct keys per row after `fill_inactive` (sorts `keys` in place)."""
    keys.sort(axis=1)
    changes = np.zeros(keys.shape, dtype=bool)
    np.not_equal(keys[:, 1:], keys[:, :-1], out=changes[:, 1:])
    return row_counts(changes) + (keys[:, 0] >= 0)


def distinct_banks(bank: np.ndarray, valid: np.ndarray | None, group_units: int) -> np.ndarray:
    """Per row: True when, inside every block of `group_units` consecutive entries, no two valid
    entries share a bank, so each block with a valid entry costs exactly one pass (a cheap
    test that settles most real rows before the sorting kernel)."""
    rows, width = bank.shape
    groups = width // group_units
    onehot = np.left_shift(np.uint32(1), bank.astype(np.uint32))
    if valid is not None:
        onehot = np.where(valid, onehot, 0)
    seen = _pairwise(np.bitwise_or, onehot.reshape(rows * groups, group_units))
    seen = seen.reshape(rows, groups)
    if valid is None:
        counts = np.full((rows, groups), group_units)
    else:
        counts = row_counts(np.ascontiguousarray(valid).reshape(rows * groups, group_units))
        counts = counts.reshape(rows, groups)
    ok = (
        np.bitwise_count(seen) == counts
        if hasattr(np, "bitwise_count")
        else np.array([[bin(int(v)).count("1") for v in r] for r in seen]) == counts
    )
    return ok.all(axis=1)
