"""Atomic read-modify-writes, one implementation for both front ends (issue 29: the machine owns
its atomics). Requests to one element are applied one at a time in thread order, so float sums
round as one-at-a-time updates do and come out in a fixed, reproducible order (the hardware's
order is unspecified); each request gets the value it replaced.

The operations are PTX's (`atom.add/min/max/exch/and/or/xor/cas/inc/dec`); CUDA's atomicSub is
an add of the negated value, as the compiler writes it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

# (old value, operand, compare-or-None) -> new value, per lane
ATOMIC_OPS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "add": lambda old, v, c: old + v,
    "min": lambda old, v, c: np.minimum(old, v),
    "max": lambda old, v, c: np.maximum(old, v),
    "exch": lambda old, v, c: v,
    "and": lambda old, v, c: old & v,
    "or": lambda old, v, c: old | v,
    "xor": lambda old, v, c: old ^ v,
    "cas": lambda old, v, c: np.where(old == v, c, old),
    "inc": lambda old, v, c: np.where(old >= v, 0, old + 1).astype(old.dtype),
    "dec": lambda old, v, c: np.where((old == 0) | (old > v), v, old - 1).astype(old.dtype),
}


# ops whose serial result is a running fold: the r-th requester's old value is the fold of the
# initial value and the r - 1 values before it (numpy's accumulate is sequential, so float sums
# round exactly as one-at-a-time updates do)
_FOLDS = {
    "add": np.add,
    "min": np.minimum,
    "max": np.maximum,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
}
# above this many requesters of one address, per-round steps cost more than per-address work
_ROUNDS_AT_MOST = 32
# element-by-element paths (compare-and-swap, inc, dec) only for this few elements
_ELEMENTS_AT_MOST = 256


def requester_ranks(idx: np.ndarray) -> np.ndarray:
    """Each request's place among the requests to its element (`idx` sorted): 0, 1, 2, ..."""
    first = np.ones(idx.size, dtype=bool)
    first[1:] = idx[1:] != idx[:-1]
    return np.arange(idx.size) - np.maximum.accumulate(np.where(first, np.arange(idx.size), 0))


def serialise_atomics(
    view: np.ndarray, idx: np.ndarray, v: np.ndarray, c: np.ndarray | None, op_name: str
) -> np.ndarray:
    """Apply requests (sorted by element `idx`, then thread) one at a time in that order;
    return each request's old value. Few
    requesters per element: one NumPy step per round. Many: folds as one accumulate over a
    (element x requester) table, exchanges by shifting, and on few elements compare-and-swaps
    by jumping from one success to the next, inc/dec by their wrap-around; the result is the
    rounds' (tests/test_ptx_atomics.py checks every path against one-at-a-time updates)."""
    fn = ATOMIC_OPS[op_name]
    rank = requester_ranks(idx)
    rounds = int(rank.max()) + 1
    starts = np.flatnonzero(rank == 0)
    per_element = op_name in ("cas", "inc", "dec")
    if (
        rounds <= _ROUNDS_AT_MOST
        or (per_element and starts.size > _ELEMENTS_AT_MOST)
        or (op_name in _FOLDS and starts.size * (rounds + 1) > 8 * rank.size + 4096)
    ):
        old_all = np.zeros(rank.size, dtype=view.dtype)
        for r in range(rounds):
            sel = rank == r
            i = idx[sel]
            old = view[i]
            view[i] = np.asarray(fn(old, v[sel], None if c is None else c[sel])).astype(view.dtype)
            old_all[sel] = old
        return old_all
    elements = idx[starts]
    if op_name in _FOLDS:
        group = np.cumsum(rank == 0) - 1
        table = np.zeros((starts.size, rounds + 1), dtype=view.dtype)
        table[:, 0] = view[elements]
        table[group, rank + 1] = v
        folded = _FOLDS[op_name].accumulate(table, axis=1, dtype=view.dtype)
        counts = np.diff(np.append(starts, rank.size))
        view[elements] = folded[np.arange(starts.size), counts]
        return folded[group, rank]
    if op_name == "exch":
        old_all = np.empty(rank.size, dtype=view.dtype)
        old_all[1:] = v[:-1]
        old_all[starts] = view[elements]
        ends = np.append(starts[1:], rank.size) - 1
        view[elements] = v[ends]
        return old_all
    old_all = np.empty(rank.size, dtype=view.dtype)
    bounds = np.append(starts, rank.size)
    for g, element in enumerate(elements):
        lo, hi = int(bounds[g]), int(bounds[g + 1])
        if op_name == "cas":
            assert c is not None
            view[element] = _cas_run(view[element], v[lo:hi], c[lo:hi], old_all[lo:hi])
        else:
            view[element] = _wrap_run(view[element], v[lo:hi], old_all[lo:hi], op_name)
    return old_all


def _cas_run(state: np.generic, compare: np.ndarray, new: np.ndarray, old: np.ndarray) -> np.generic:
    """Compare-and-swaps on one element in order: the value changes only where a request finds
    its compare value, so jump from one such request to the next."""
    at, hi = 0, compare.size
    while at < hi:
        hits = np.flatnonzero(compare[at:] == state)
        stop = hi if hits.size == 0 else at + int(hits[0])
        old[at:stop] = state
        if stop == hi:
            break
        old[stop] = state
        state, at = new[stop], stop + 1
    return state


def _wrap_run(state: np.generic, limit: np.ndarray, old: np.ndarray, op_name: str) -> np.generic:
    """atomicInc / atomicDec on one element in order. With one limit v for all requests (the
    usual case) the values wrap modulo v + 1: inc from s <= v gives (s + k) mod (v + 1) after k
    requests, from s > v first 0; dec from 1 <= s <= v gives (s - k) mod (v + 1), from 0 or
    s > v first v. Mixed limits go one at a time."""
    fn = ATOMIC_OPS[op_name]
    if not np.all(limit == limit[0]):
        for i in range(limit.size):
            old[i] = state
            state = np.asarray(fn(np.array([state]), limit[i : i + 1], None)).astype(old.dtype)[0]
        return state
    v, s0, n = int(limit[0]), int(state), limit.size
    k = np.arange(n + 1, dtype=np.int64)
    if op_name == "inc":
        seq = (s0 + k) % (v + 1) if s0 <= v else np.where(k == 0, s0, (k - 1) % (v + 1))
    else:
        seq = (s0 - k) % (v + 1) if 1 <= s0 <= v else np.where(k == 0, s0, v - (k - 1) % (v + 1))
    old[:] = seq[:n].astype(old.dtype)
    return cast(np.generic, np.asarray(seq[n]).astype(old.dtype)[()])


def atomic_rmw(
    view: np.ndarray, index: np.ndarray, lanes: np.ndarray, value: np.ndarray, compare: np.ndarray | None, op: str
) -> np.ndarray:
    """Apply the requests of `lanes` (thread order) to `view[index]` in (element, thread) order;
    return each lane's old value, in the order of `lanes`. `value` (and `compare`, for cas:
    PTX's `atom.cas b, [a], cmp, new` takes cmp as `value` and new as `compare`) per lane."""
    order = np.lexsort((lanes, index))
    with np.errstate(all="ignore"):
        old = serialise_atomics(
            view, index[order], value[order].astype(view.dtype), None if compare is None else compare[order], op
        )
    out = np.empty_like(old)
    out[order] = old
    return out
