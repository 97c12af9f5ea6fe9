"""Whole-chunk global and shared accesses through a separable address register (sim/separable.py),
planned once per address Core.

An access in a loop reads an address register whose Core (per-block and per-lane parts) stays
the same from iteration to iteration while its uniform offset moves. What depends only on the
Core is worked out once and kept on it: the element indices of the gather (as the Core's cached
int64 gather base), the range of uniform offsets for which every lane is inside one array (or the
block's shared memory), aligned and not wrapped, the pricing plan (pricing.py's per-Core memo)
and, for shared memory, the byte indices the race shadow reads. Each execution then checks its
offset against that range and costs one gather or scatter plus a few dictionary look-ups; an
offset outside the range goes the lane-by-lane way, which reports what is wrong.
"""

from __future__ import annotations

from typing import Any, Protocol, cast

import numpy as np

from perfcalc.sim.separable import Core, Sep


class Chunk(Protocol):
    """What an access plan needs of execute.Chunk (which builds on this module)."""

    env: Any
    shared: np.ndarray

    def shared_block_elements(self, size: int) -> np.ndarray: ...


PRICEABLE = (1, 2, 4, 8, 16)  # access sizes some CC's rules price


class AccessPlan:
    """What a whole-chunk access of `size` bytes through one address Core keeps between calls.

    An address value is Core + v (v: the register's uniform offset plus the instruction's
    immediate). For v in [lo, hi] with v - shift a multiple of `size`, lane values are element
    indices `units + (v - shift) // size` of `view`; `flat` is the same in the chunk's storage
    (shared: each block's window added), `bytes` its byte indices (shared: for the race shadow)."""

    __slots__ = (
        "space",
        "size",
        "view",
        "lo",
        "hi",
        "shift",
        "units",
        "flat",
        "bytes",
        "rel",
        "low",
        "core",
        "pricing",
        "least",
        "most",
    )

    def __init__(self, space: str, view: np.ndarray, lo: int, hi: int, shift: int, core: Core, units: Core, flat: Core):
        self.space, self.view, self.core = space, view, core
        self.size = int(view.dtype.itemsize)
        self.lo, self.hi, self.shift = lo, hi, shift
        self.units, self.flat = units, flat
        self.rel, self.low = flat.gather_base()
        self.bytes: Core | None = None
        if space == "shared":
            self.bytes = Core(flat.b * self.size, flat.lane * self.size)
        self.pricing: Any = None  # the pricer's plan for `units` (Pricer.sep_plan), on first use
        bmin, bmax, lmin, lmax = core.bounds()
        self.least, self.most = bmin + lmin, bmax + lmax  # of the Core's values (add v)

    def element(self, v: int) -> int | None:
        """The uniform element offset for address offset v, or None where a lane would be out of
        bounds, misaligned or wrapped (the lane-by-lane path then decides and reports)."""
        if self.lo <= v <= self.hi and not (v - self.shift) % self.size:
            return (v - self.shift) // self.size
        return None

    def take(self, e: int) -> np.ndarray:
        """Every lane's value, a fresh array (Core.take_at: one gather, or a few spread)."""
        return self.flat.take_at(self.view, e)

    def put(self, e: int, values: np.ndarray) -> None:
        """Store every lane's value (two lanes on one element: the higher lane's value stays)."""
        self.view[self.low + e :][self.rel] = values

    def priced(self, pricer: Any, e: int, op: str) -> tuple[int, ...]:
        """The chunk's totals for element offset e (Pricer.planned_total with the plan kept
        here: one dict hit in a loop)."""
        if self.pricing is None:
            self.pricing = pricer.sep_plan(self.space, self.units, self.size, self.size)
        base = self.shift if self.space == "global" else 0
        return cast(
            tuple[int, ...],
            pricer.planned_total(self.pricing, self.space, self.units, e, base, self.size, self.size, None, op),
        )

    def flat_bytes(self, e: int) -> Sep:
        """Shared: each lane's byte index in the chunk's shared storage."""
        assert self.bytes is not None
        return Sep(self.bytes, np.int64(e * self.size))

    def offsets(self, v: int) -> Sep:
        """Shared: each lane's byte offset in its block's window (the address itself)."""
        return Sep(self.core, np.int64(v).astype(self.core.lane.dtype))


def access_plan(ch: Chunk, core: Core, space: str, dtype: np.dtype[Any], v: int) -> AccessPlan | None:
    """The plan for accesses of `dtype` through `core` (made for the array the address Core + v
    falls in, then cached on the Core), or None where no plan applies."""
    found = core.derived(("access", space, dtype.char), lambda: _make(ch, core, space, dtype, v) or False)
    if found is False:
        return None
    assert isinstance(found, AccessPlan)
    return found


def _make(ch: Chunk, core: Core, space: str, dtype: np.dtype[Any], v: int) -> AccessPlan | None:
    size = dtype.itemsize
    if size not in PRICEABLE or core.lane.dtype.kind not in "iu":
        return None
    bmin, bmax, lmin, lmax = core.bounds()
    low, high = bmin + lmin, bmax + lmax
    b, lane = core.b.astype(np.int64), core.lane.astype(np.int64)
    if (b % size).any() or (lane % size).any():
        return None
    env = ch.env
    if space == "global":
        heap = env.heap
        region = heap.region_at(low + v)
        if region is None:
            return None
        start, end = region
        view, shift, per_block = heap.bytes.view(dtype), heap.base, None
    else:
        stride = max(env.shared_bytes, 16)
        if stride % size:
            return None
        start, end = 0, env.shared_bytes
        view, shift, per_block = ch.shared.view(dtype), 0, ch.shared_block_elements(size)
    # every lane's true value b + lane + v inside [start, end - size], and in the register's
    # positive range so that neither its own nor the unsigned reading wraps
    top = (1 << (8 * core.lane.dtype.itemsize - 1)) - 1
    lo = max(start - low, -low)
    hi = min(end - size - high, top - high)
    if lo > hi:
        return None
    units = Core(b // size, lane // size)
    flat = units if per_block is None else Core(units.b + per_block, units.lane)
    return AccessPlan(space, view, lo, hi, shift, core, units, flat)
