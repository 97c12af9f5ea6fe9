"""Instrumented memories: global (arrays bound to pointer parameters), shared (per block) and
constant. Each access is bounds-checked on its active lanes, priced per warp through memory/
(via `pricing`), counted at its source line, and (shared memory) checked for races.

Addresses: every global array gets a base aligned to 256 bytes (cudaMalloc's alignment,
memory.md §0) in a simulated address space, arrays never overlapping. Each static shared array
starts at a 128-byte-aligned offset of the block's shared space (declaration order), so its bank
pattern is the one memory.md's vectors assume (base 0); all `extern __shared__` arrays alias one
buffer placed after the static ones, as in CUDA.

Race detection (execution.md §4.2 "Detecting a missing __syncthreads"): per shared element a
shadow holds (barrier epoch, writer warp); reads in the current barrier interval are remembered
lazily and only turned into a reader shadow when a store happens in the same interval. A read
of an element written in this interval by another warp (RAW), a write of an element read (WAR)
or written (WAW) in this interval by another warp is a fault. Accesses within one warp are
ordered by lockstep and not reported. The epoch is per chunk of blocks: a block that skips a
barrier other blocks execute only loses checks (no false reports).

Not checked (no false reports, possible misses): races on global memory (between blocks or
within one), atomics racing with plain accesses, and intra-warp shared races that Volta's
independent thread scheduling allows without __syncwarp (execution.md §4.2 suggests an optional
per-thread mode for those).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfcalc.memory.atomic_contention import atomic_kind
from perfcalc.memory.lanes import distinct_per_warp
from perfcalc.memory.shared_atomics import serial_steps
from perfcalc.sim import counters as C
from perfcalc.sim.atomics import atomic_rmw
from perfcalc.sim.csubset.context import BoundArray, ChunkContext
from perfcalc.sim.csubset.ctypes_struct import StructType
from perfcalc.sim.pricing import SepPlan
from perfcalc.sim.separable import _RANGE, Core, Sep, Value, dense

SPACE_BASE = 1 << 40
_GLOBAL_LOAD = C.instruction_slot("global_load")
_GLOBAL_STORE = C.instruction_slot("global_store")
_CONSTANT_LOAD = C.instruction_slot("constant_load")
_SHARED_LOAD = C.instruction_slot("shared_load")
_SHARED_STORE = C.instruction_slot("shared_store")
_TAG_WARP_BITS = 6
_WARP_FIELD = (1 << _TAG_WARP_BITS) - 1
_MANY = _WARP_FIELD  # several warps read the element in this interval


class Lanes:
    """The checked index of one access: `safe` (inactive lanes -> 0), `bad` (active lanes out of
    range, or None) and, when every block of the chunk uses the first block's indices shifted
    by one constant, `i0` (first block's indices, int64) and `shifts` (per block)."""

    __slots__ = ("_safe", "bad", "i0", "shifts", "sep")

    def __init__(
        self,
        safe: np.ndarray | int | None,
        bad: np.ndarray | None,
        i0: np.ndarray | None = None,
        shifts: np.ndarray | None = None,
        sep: Sep | None = None,
    ):
        self._safe = safe  # None only with `sep` (materialised on first use)
        self.bad = bad
        self.i0 = i0
        self.shifts = shifts
        self.sep = sep  # set when every lane is in bounds and the index is separable

    @property
    def safe(self) -> np.ndarray | int:
        if self._safe is None:
            assert self.sep is not None
            self._safe = self.sep.index64()
        return self._safe


_SIGNED_VIEW = {
    np.dtype(np.uint32): np.int32,
    np.dtype(np.uint64): np.int64,
    np.dtype(np.uint16): np.int16,
    np.dtype(np.uint8): np.int8,
}


def _separable_index(ctx: ChunkContext, idx: Sep, n: int) -> Lanes | None:
    """Bounds and block structure of a separable index from its parts alone (None: no
    shortcut; the caller checks the materialised lanes)."""
    if not idx.fits():
        return None
    m = ctx.mask
    lo, hi = idx.bounds()
    all_ok = lo >= 0 and hi < n
    if all_ok:
        return Lanes(None, None, None, None, idx)
    if m.arr is None or not ctx.mask_block_uniform():
        return None
    bmin, bmax, _, _ = idx.core.bounds()
    o = int(idx.off)
    act = idx.lane[m.arr[: ctx.lanes_per_block]]
    if act.size and not (bmin + int(act.min()) + o >= 0 and bmax + int(act.max()) + o < n):
        return None
    b = idx.b.astype(np.int64)
    lane = idx.lane.astype(np.int64) + o
    return Lanes(np.where(m.arr, idx.full(), 0), None, b[0] + lane, b - b[0])


class SepLoad:
    """What a load through one separable index Core needs, derived once per (Core, array):
    the range of uniform offsets for which every lane is in bounds and no lane wrapped (the
    checks `_separable_index` makes), the pricing plan (Pricer.sep_plan, for
    Pricer.planned_total) and the Core whose cached indices gather from the storage
    (Core.take_at). A load in a loop then costs a range test, one dict hit for its price and
    one gather."""

    __slots__ = ("off_lo", "off_hi", "plan", "flat", "gather")

    def __init__(self, core: Core, dtype: np.dtype[Any], n: int, plan: SepPlan, gather: Core, flat: Core | None = None):
        bmin, bmax, lmin, lmax = core.bounds()
        lo_t, hi_t = _RANGE[dtype]
        self.off_lo = max(lo_t - (bmin + lmin), -(bmin + lmin))
        self.off_hi = min(hi_t - (bmax + lmax), n - 1 - (bmax + lmax))
        self.plan = plan
        self.flat = flat
        self.gather = gather  # Core.take_at gathers through it


def _checked_index(ctx: ChunkContext, idx: Value, n: int) -> Lanes:
    """Bounds-check the active lanes of an index; detect the block-translation structure."""
    m = ctx.mask
    if isinstance(idx, Sep):
        fast = _separable_index(ctx, idx, n)
        if fast is not None:
            return fast
        idx = idx.full()
    if not isinstance(idx, np.ndarray):
        i = int(idx)
        if 0 <= i < n:
            return Lanes(i, None)
        return Lanes(0, ctx.active_arr())
    safe = idx if m.arr is None else np.where(m.arr, idx, 0)
    nb = ctx.nblocks
    if nb > 1 and ctx.mask_block_uniform():
        s3 = safe.reshape(nb, ctx.lanes_per_block)
        d = s3 - s3[0]
        if bool((d == d[:, :1]).all()):
            first = d[:, 0]
            if first.dtype in _SIGNED_VIEW:  # unsigned wrap: |difference| < 2**31 in bounds
                first = first.view(_SIGNED_VIEW[first.dtype])
            shifts = first.astype(np.int64)
            i0 = s3[0].astype(np.int64)
            act0 = None if m.arr is None else m.arr[: ctx.lanes_per_block]
            vals = i0 if act0 is None else i0[act0]
            if vals.size == 0 or (int(vals.min()) + int(shifts.min()) >= 0 and int(vals.max()) + int(shifts.max()) < n):
                return Lanes(safe, None, i0, shifts)
    elif safe.size and (int(safe.min()) >= 0 and int(safe.max()) < n):
        return Lanes(safe, None)
    bad = (safe < 0) | (safe >= n)
    if m.arr is not None:
        bad &= m.arr
    if bad.any():
        return Lanes(np.where(bad, 0, safe), bad)
    return Lanes(safe, None)


def _price(
    ctx: ChunkContext, space: str, lanes: Lanes, base: int, itemsize: int, size: int, op: str
) -> tuple[int, ...]:
    """Price one access through the run's Pricer (structured fast path when available)."""
    pricer = ctx.run.pricer
    act0 = None if ctx.mask.arr is None else ctx.mask.arr[: ctx.lanes_per_block]
    uniform = act0 is None or ctx.mask_block_uniform()
    if lanes.sep is not None and uniform:
        return pricer.price_sep(space, lanes.sep, base, itemsize, size, act0, op)
    if lanes.i0 is not None and lanes.shifts is not None and uniform:
        return pricer.price_blocks(space, base + lanes.i0 * itemsize, lanes.shifts * itemsize, size, act0, op)
    safe = lanes.safe
    if not isinstance(safe, np.ndarray):
        if ctx.nblocks == 1 or ctx.mask_block_uniform():
            addr0 = np.full(ctx.lanes_per_block, base + int(safe) * itemsize, dtype=np.int64)
            return pricer.price_blocks(space, addr0, np.zeros(ctx.nblocks, np.int64), size, act0, op)
        safe = np.full(ctx.nlanes, int(safe), dtype=np.int64)
    addr = base + safe.astype(np.int64) * itemsize
    if ctx.nblocks == 1:
        return pricer.price_blocks(space, addr, np.zeros(1, np.int64), size, act0, op)
    return pricer.price_lanes(space, addr, size, ctx.mask.arr, op)


class GlobalArray:
    """A pointer parameter bound to a caller's 1-D NumPy array."""

    def __init__(self, name: str, array: np.ndarray, base: int, readonly: bool):
        self.name = name
        self.array = array
        self.base = base
        self.readonly = readonly
        self.n = int(array.shape[0])
        self.itemsize = int(array.dtype.itemsize)
        self.fields: dict[str, tuple[np.ndarray, int, int]] = {}  # member -> (view, byte offset, size)
        members = array.dtype.fields
        for fname in array.dtype.names or ():
            assert members is not None  # a dtype with names has fields
            fdtype, offset = members[fname][:2]
            self.fields[fname] = (array[fname], int(offset), int(fdtype.itemsize))

    def view(self, field: str | None) -> tuple[np.ndarray, int, int]:
        if field is None:
            return self.array, 0, self.itemsize
        return self.fields[field]

    def _bounds_fault(
        self, ctx: ChunkContext, idx: Value, bad: np.ndarray, line: int, op: str, size: int, field: str | None
    ) -> Exception:
        lane = ctx.first_lane(bad)
        i = int(idx[lane]) if isinstance(idx, (np.ndarray, Sep)) else int(idx)
        what = f"{self.name}[{i}]" + (f".{field}" if field else "")
        return ctx.fault(
            "out_of_bounds",
            line,
            lane,
            f"Invalid __global__ {op} of size {size} bytes: {what} is out of bounds "
            f"('{self.name}' has {self.n} elements)",
            self.name,
            i,
        )

    def access(
        self, ctx: ChunkContext, idx: Value, field: str | None, line: int, counts: list[int], op: str
    ) -> tuple[np.ndarray, np.ndarray | int, int]:
        """Bounds-check, price and count one access; returns (view, safe index, size)."""
        view, lanes, size = self.access_lanes(ctx, idx, field, line, counts, op)
        return view, lanes.safe, size

    def access_lanes(
        self, ctx: ChunkContext, idx: Value, field: str | None, line: int, counts: list[int], op: str
    ) -> tuple[np.ndarray, Lanes, int]:
        """access, returning the checked Lanes (whose index may still be separable)."""
        view, offset, size = self.view(field)
        lanes = _checked_index(ctx, idx, self.n)
        if lanes.bad is not None:
            raise self._bounds_fault(ctx, idx, lanes.bad, line, op, size, field)
        ctx.run.pricer.site = line
        req, tx, nbytes = _price(
            ctx, "global", lanes, self.base + offset, self.itemsize, size, "load" if op == "read" else "store"
        )
        if op == "read":
            counts[C.GLD_REQ] += req
            counts[C.GLD_TX] += tx
            counts[C.GLD_B] += nbytes
            counts[_GLOBAL_LOAD] += ctx.mask.nwarps
        else:
            counts[C.GST_REQ] += req
            counts[C.GST_TX] += tx
            counts[C.GST_B] += nbytes
            counts[_GLOBAL_STORE] += ctx.mask.nwarps
        return view, lanes, size

    def load(self, ctx: ChunkContext, idx: Value, field: str | None, line: int, counts: list[int]) -> Value:
        if type(idx) is Sep and ctx.mask.arr is None:
            ctx.run.pricer.site = line
            fast = self._load_sep(ctx, idx, field, counts)
            if fast is not None:
                return fast
        view, lanes, _ = self.access_lanes(ctx, idx, field, line, counts, "read")
        if lanes.sep is not None and lanes._safe is None:
            return lanes.sep.take_from(view)
        safe = lanes.safe
        if isinstance(safe, np.ndarray):
            return _take(view, safe)
        return view[safe]

    def _load_sep(self, ctx: ChunkContext, idx: Sep, field: str | None, counts: list[int]) -> np.ndarray | None:
        """load() of every lane through a separable index, exactly as the general path
        counts it (None: not in bounds, or not representable: the general path decides)."""
        view, offset, size = self.view(field)
        core = idx.core
        pricer = ctx.run.pricer

        def make() -> SepLoad:
            return SepLoad(core, idx.dtype, self.n, pricer.sep_plan("global", core, self.itemsize, size), core)

        p = core.derived((self, field), make)
        off = int(idx.off)
        if not p.off_lo <= off <= p.off_hi:
            return None
        base = self.base + offset
        total = pricer.planned_total(p.plan, "global", core, off, base, self.itemsize, size, None, "load")
        counts[C.GLD_REQ] += total[0]
        counts[C.GLD_TX] += total[1]
        counts[C.GLD_B] += total[2]
        counts[_GLOBAL_LOAD] += ctx.mask.nwarps
        return p.gather.take_at(view, off)

    def store(
        self, ctx: ChunkContext, idx: Value, value: Value, field: str | None, line: int, counts: list[int]
    ) -> None:
        if self.readonly:
            raise ctx.fault(
                "read_only", line, ctx.first_lane(ctx.active_arr()), f"Write to const array '{self.name}'", self.name
            )
        view, safe, _ = self.access(ctx, idx, field, line, counts, "write")
        store_lanes(ctx, view, safe, value)

    def load_struct(
        self, ctx: ChunkContext, idx: Value, st: StructType, line: int, counts: list[int]
    ) -> dict[str, Value]:
        """A whole struct element: one vector access for 8/16-byte CUDA vector types,
        otherwise one access per member (memory.md §0: float3 is three 4-byte loads)."""
        if _single_access(st):
            _, safe, _ = self.access(ctx, idx, None, line, counts, "read")
            return {
                f: (_take(v, safe) if isinstance(safe, np.ndarray) else v[safe]) for f, (v, _, _) in self.fields.items()
            }
        return {f: self.load(ctx, idx, f, line, counts) for f in self.fields}

    def store_struct(
        self, ctx: ChunkContext, idx: Value, value: dict[str, Value], st: StructType, line: int, counts: list[int]
    ) -> None:
        if _single_access(st):
            _, safe, _ = self.access(ctx, idx, None, line, counts, "write")
            for f, (v, _, _) in self.fields.items():
                store_lanes(ctx, v, safe, value[f])
            return
        for f in self.fields:
            self.store(ctx, idx, value[f], f, line, counts)

    def atomic(
        self,
        ctx: ChunkContext,
        idx: Value,
        value: Value,
        compare: Value | None,
        op: str,
        field: str | None,
        line: int,
        counts: list[int] | None = None,
    ) -> Value:
        """atomicAdd, atomicExch, atomicCAS, ... (sim/atomics.py's `op`) on one element per lane."""
        view, offset, size = self.view(field)
        lanes = _checked_index(ctx, idx, self.n)
        if lanes.bad is not None:
            raise self._bounds_fault(ctx, idx, lanes.bad, line, "atomic", size, field)
        pricer = ctx.run.pricer
        if pricer.trace is not None:  # atomics are not priced, but the caches see them
            pricer.site = line
            safe = np.broadcast_to(np.asarray(lanes.safe, dtype=np.int64), (ctx.nlanes,))
            pricer.observe(
                self.base + offset + safe * self.itemsize,
                ctx.mask.arr,
                size,
                "atomic",
                atomic_kind(op, view.dtype.kind == "f"),
            )
        return atomic_lanes(ctx, view, lanes.safe, value, compare, op)


def _single_access(st: StructType) -> bool:
    return bool(getattr(st, "vector", False)) and getattr(st, "size", 0) in (8, 16)


def atomic_lanes(
    ctx: ChunkContext, view: np.ndarray, safe: np.ndarray | int, value: Value, compare: Value | None, op: str
) -> Value:
    """An atomic for the active lanes, one at a time per element in lane order (sim/atomics.py,
    the PTX engine's own); returns each lane's old value."""
    lanes = np.flatnonzero(ctx.active_arr())
    index = safe[lanes] if isinstance(safe, np.ndarray) else np.full(lanes.size, safe, np.int64)
    out = np.zeros(ctx.nlanes, dtype=view.dtype)
    if lanes.size == 0:
        return out
    vals = _lanes_of(value, lanes, view.dtype)
    cmp = None if compare is None else _lanes_of(compare, lanes, view.dtype)
    out[lanes] = atomic_rmw(view, index.astype(np.int64), lanes, vals, cmp, op)
    return out


def _lanes_of(value: Value, lanes: np.ndarray, dtype: np.dtype[Any]) -> np.ndarray:
    value = dense(value)
    if isinstance(value, np.ndarray):
        return np.asarray(value[lanes]).astype(dtype)
    return np.full(lanes.size, value).astype(dtype)


def _injective(lanes: Lanes) -> bool:
    """True when the index is separable with a lane part that takes distinct values on the
    lanes of a block: then no two lanes of one block address the same element (blocks have
    disjoint shared memory), whatever the uniform offset."""
    return lanes.sep is not None and lanes.sep.lanes_distinct()


def _span(flat: Sep) -> slice | None:
    """The slice that a separable flat index covers when its lanes, in order, are one
    contiguous run (b + lane == low + lane number), else None."""
    core = flat.core
    rel, low = core.gather_base()
    if not core.derived("contiguous", lambda: bool(rel[0] == 0 and (rel.size < 2 or (np.diff(rel) == 1).all()))):
        return None
    start = low + int(flat.off)
    return slice(start, start + rel.size)


def _take(view: np.ndarray, safe: np.ndarray) -> np.ndarray:
    """Gather with in-bounds indices (checked before); int64 indices, because NumPy's take
    is several times slower with int32 ones."""
    if safe.dtype != np.intp:
        safe = safe.astype(np.intp)
    return view.take(safe, mode="clip")


def store_lanes(ctx: ChunkContext, view: np.ndarray, safe: np.ndarray | int | slice, value: Value) -> None:
    """Write `value` at `safe` for the active lanes only.

    Several lanes writing one element: the Programming Guide leaves undefined which write
    lands ("which thread performs the final write is undefined"); here the highest-numbered
    lane of the chunk does (NumPy assigns in lane order), on both engines.
    """
    value = dense(value)
    m = ctx.mask.arr
    if m is None:
        if isinstance(safe, (int, np.integer)) and isinstance(value, np.ndarray):
            view[safe] = value[-1]  # every lane to one element (`x[0] = threadIdx.x`)
        else:
            view[safe] = value
        return
    if isinstance(safe, np.ndarray):
        view[safe[m]] = value[m] if isinstance(value, np.ndarray) else value
    else:
        lanes = np.flatnonzero(m)
        view[safe] = value[lanes[-1]] if isinstance(value, np.ndarray) else value


class ConstantArray:
    """A __constant__ array: read-only, bounds-checked, counted as constant loads."""

    def __init__(self, name: str, array: np.ndarray):
        self.name = name
        self.array = array
        self.n = int(array.shape[0])
        self.fields = array.dtype.names or ()

    def load_struct(
        self, ctx: ChunkContext, idx: Value, st: StructType, line: int, counts: list[int]
    ) -> dict[str, Value]:
        return {f: self.load(ctx, idx, f, line, counts) for f in self.fields}

    def load(self, ctx: ChunkContext, idx: Value, field: str | None, line: int, counts: list[int]) -> Value:
        lanes = _checked_index(ctx, idx, self.n)
        safe = lanes.safe
        if lanes.bad is not None:
            lane = ctx.first_lane(lanes.bad)
            i = int(idx[lane]) if isinstance(idx, (np.ndarray, Sep)) else int(idx)
            raise ctx.fault(
                "out_of_bounds",
                line,
                lane,
                f"Invalid __constant__ read of size {self.array.dtype.itemsize} "
                f"bytes: {self.name}[{i}] is out of bounds ('{self.name}' has "
                f"{self.n} elements)",
                self.name,
                i,
            )
        counts[_CONSTANT_LOAD] += ctx.mask.nwarps
        if isinstance(safe, np.ndarray):  # an index that varies by lane
            counts[C.CONST_REQ] += distinct_per_warp(safe, ctx.active_arr())
        else:
            counts[C.CONST_REQ] += ctx.mask.nwarps
        view = self.array if field is None else self.array[field]
        return _take(view, safe) if isinstance(safe, np.ndarray) else view[safe]


class SharedArray:
    """One __shared__ array of every block of a chunk, stored flat as (block, element)."""

    def __init__(
        self,
        ctx: ChunkContext,
        name: str,
        storage: np.ndarray,
        nelems: int,
        dims: tuple[int, ...],
        byte_offset: int,
        stride: int | None = None,
    ):
        self.name = name
        self.storage = storage  # flat, nblocks * nelems
        self.nelems = nelems
        self.dims = dims
        self.byte_offset = byte_offset
        self.itemsize = int(storage.dtype.itemsize)
        self.stride = nelems if stride is None else stride
        self.block_offsets = np.arange(ctx.nblocks, dtype=np.int64) * self.stride
        self.block_base = ctx.lane_block * (nelems if stride is None else stride)
        self.wshadow = np.zeros(storage.shape[0], dtype=np.int64)
        self.wline = np.zeros(storage.shape[0], dtype=np.int32)
        self.rshadow = np.zeros(storage.shape[0], dtype=np.int64)
        self.rline = np.zeros(storage.shape[0], dtype=np.int32)
        self.last_write_epoch = -1
        self.read_epoch = -1  # epoch of the reads in rshadow
        self.pending_reads: list[tuple[np.ndarray | Sep, np.ndarray, int]] = []  # (flat index, lanes, line)

    def describe(self, i: int) -> str:
        if len(self.dims) <= 1:
            return f"{self.name}[{i}]"
        parts = []
        for d in reversed(self.dims[1:]):
            parts.append(i % d)
            i //= d
        parts.append(i)
        return self.name + "".join(f"[{p}]" for p in reversed(parts))

    def _flat(self, ctx: ChunkContext, idx: Value, line: int, op: str) -> Lanes:
        lanes = _checked_index(ctx, idx, self.nelems)
        if lanes.bad is not None:
            lane = ctx.first_lane(lanes.bad)
            i = int(idx[lane]) if isinstance(idx, (np.ndarray, Sep)) else int(idx)
            raise ctx.fault(
                "out_of_bounds",
                line,
                lane,
                f"Invalid __shared__ {op} of size {self.itemsize} bytes: {self.describe(i)} "
                f"(element {i}) is out of bounds ('{self.name}' has {self.nelems} elements "
                "per block)",
                self.name,
                i,
            )
        return lanes

    def _price(self, ctx: ChunkContext, lanes: Lanes, op: str, counts: list[int]) -> None:
        wavefronts, conflicts = _price(ctx, "shared", lanes, self.byte_offset, self.itemsize, self.itemsize, op)
        if op == "load":
            counts[C.SLD_REQ] += ctx.mask.nwarps
            counts[C.SLD_WF] += wavefronts
            counts[_SHARED_LOAD] += ctx.mask.nwarps
        else:
            counts[C.SST_REQ] += ctx.mask.nwarps
            counts[C.SST_WF] += wavefronts
            counts[_SHARED_STORE] += ctx.mask.nwarps
        counts[C.BANK] += conflicts

    def _flat_lanes(self, ctx: ChunkContext, lanes: Lanes) -> Value:
        """Flat storage index (block * stride + element): a Sep when the index is one."""
        if lanes.sep is not None and lanes._safe is None:
            sep = lanes.sep
            core = sep.core
            flat = core.derived(
                ("flat64", self.stride, ctx.nblocks),
                lambda: Core(core.b.astype(np.int64) + self.block_offsets, core.lane.astype(np.int64)),
            )
            return Sep(flat, np.int64(int(sep.off)))
        safe = lanes.safe
        if isinstance(safe, np.ndarray):
            return self.block_base + safe
        return self.block_base + np.int64(safe)

    def _race(
        self,
        ctx: ChunkContext,
        lanes: np.ndarray,
        flat: np.ndarray,
        line: int,
        other_line: int,
        other_warp: int,
        now: str,
        before: str,
    ) -> Exception:
        lane = ctx.first_lane(lanes)
        elem = int(flat[lane] - self.block_base[lane])
        mine = int(ctx.lane_warp[lane])
        who = "several warps" if other_warp == _MANY else f"warp {other_warp - 1}"
        return ctx.fault(
            "shared_race",
            line,
            lane,
            f"Race on __shared__ {self.describe(elem)}: {now} by warp {mine} after a {before} "
            f"by {who} at line {other_line} with no __syncthreads() between",
            self.name,
            elem,
        )

    def _check_raw(self, ctx: ChunkContext, flat: np.ndarray, act: np.ndarray, line: int) -> None:
        if self.last_write_epoch != ctx.epoch:
            return
        w = self.wshadow[flat]
        mine = ctx.lane_warp1
        hit = ((w >> _TAG_WARP_BITS) == ctx.epoch) & ((w & _WARP_FIELD) != mine) & act
        if hit.any():
            lane = ctx.first_lane(hit)
            raise self._race(
                ctx, hit, flat, line, int(self.wline[flat[lane]]), int(w[lane] & _WARP_FIELD), "read", "write"
            )

    def load(self, ctx: ChunkContext, idx: Value, field: str | None, line: int, counts: list[int]) -> Value:
        if type(idx) is Sep and ctx.mask.arr is None and self.last_write_epoch != ctx.epoch:
            fast = self._load_sep(ctx, idx, line, counts)
            if fast is not None:
                return fast
        lanes = self._flat(ctx, idx, line, "read")
        self._price(ctx, lanes, "load", counts)
        flat = self._flat_lanes(ctx, lanes)
        act = ctx.active_arr()
        if self.last_write_epoch == ctx.epoch:
            self._check_raw(ctx, flat.index64() if isinstance(flat, Sep) else flat, act, line)
        if isinstance(flat, Sep):
            # remember the read (a Sep keeps only its small parts, not the lane array)
            self.pending_reads.append((flat.bare(), act, line))
            return flat.take_from(self.storage)
        self.pending_reads.append((flat, act, line))
        return _take(self.storage, flat)

    def _load_sep(self, ctx: ChunkContext, idx: Sep, line: int, counts: list[int]) -> np.ndarray | None:
        """load() of every lane through a separable index with no write in this barrier
        interval (so no read-after-write check), exactly as the general path counts and
        remembers it (None: not in bounds or not representable: the general path decides)."""
        core = idx.core
        pricer = ctx.run.pricer
        isz = self.itemsize

        def make() -> SepLoad:
            plan = pricer.sep_plan("shared", core, isz, isz)
            flat = core.derived(
                ("flat64", self.stride, ctx.nblocks),
                lambda: Core(core.b.astype(np.int64) + self.block_offsets, core.lane.astype(np.int64)),
            )
            return SepLoad(core, idx.dtype, self.nelems, plan, flat, flat)

        p = core.derived((self, "load"), make)
        assert p.flat is not None
        off = int(idx.off)
        if not p.off_lo <= off <= p.off_hi:
            return None
        total = pricer.planned_total(p.plan, "shared", core, off, self.byte_offset, isz, isz, None, "load")
        nwarps = ctx.mask.nwarps
        counts[C.SLD_REQ] += nwarps
        counts[C.SLD_WF] += total[0]
        counts[_SHARED_LOAD] += nwarps
        counts[C.BANK] += total[1]
        self.pending_reads.append((Sep(p.flat, np.int64(off)), ctx.all_lanes, line))
        return p.gather.take_at(self.storage, off)

    def _absorb_reads(self, ctx: ChunkContext) -> None:
        """Turn this interval's remembered reads into the reader shadow (several warps: MANY)."""
        tag_base = ctx.epoch << _TAG_WARP_BITS
        for flat, act, line in self.pending_reads:
            f = dense(flat)[act]
            tags = tag_base + ctx.lane_warp1[act]
            old = self.rshadow[f]
            several = ((old >> _TAG_WARP_BITS) == ctx.epoch) & (old != tags)
            self.rshadow[f] = tags
            self.rline[f] = line
            back = self.rshadow[f]
            several |= back != tags
            if several.any():
                self.rshadow[f[several]] = tag_base + _MANY
        self.pending_reads.clear()
        self.read_epoch = ctx.epoch

    def store(
        self, ctx: ChunkContext, idx: Value, value: Value, field: str | None, line: int, counts: list[int]
    ) -> None:
        lanes = self._flat(ctx, idx, line, "write")
        self._price(ctx, lanes, "store", counts)
        flat = self._flat_lanes(ctx, lanes)
        # `at` indexes storage and shadows: a slice when every lane writes one contiguous
        # run in lane order (Mds[ty][tx] = ...), so scatters become copies
        span = _span(flat) if isinstance(flat, Sep) and ctx.mask.arr is None else None
        at: slice | np.ndarray
        if span is None:
            flat = at = flat.index64() if isinstance(flat, Sep) else flat
        else:
            at = span
        act = ctx.active_arr()
        mine = ctx.lane_warp1
        epoch = ctx.epoch
        if self.last_write_epoch == epoch:  # write after write
            w = self.wshadow[at]
            hit = ((w >> _TAG_WARP_BITS) == epoch) & ((w & _WARP_FIELD) != mine) & act
            if hit.any():
                lane = ctx.first_lane(hit)
                raise self._race(
                    ctx, hit, flat, line, int(self.wline[flat[lane]]), int(w[lane] & _WARP_FIELD), "write", "write"
                )
        if self.pending_reads:
            self._absorb_reads(ctx)
        if self.read_epoch == epoch:  # write after read
            r = self.rshadow[at]
            hit = ((r >> _TAG_WARP_BITS) == epoch) & ((r & _WARP_FIELD) != mine) & act
            if hit.any():
                lane = ctx.first_lane(hit)
                raise self._race(
                    ctx, hit, flat, line, int(self.rline[flat[lane]]), int(r[lane] & _WARP_FIELD), "write", "read"
                )
        tags = ctx.write_tags(_TAG_WARP_BITS)
        if ctx.mask.arr is None:
            f, t = at, tags
        else:
            f, t = flat[act], tags[act]
        self.wshadow[f] = t
        if not _injective(lanes):  # could two lanes of a block write one element?
            self._check_same_instruction(ctx, f, t, act, flat, line)
        self.wline[f] = line
        self.last_write_epoch = epoch
        store_lanes(ctx, self.storage, at, value)

    def _check_same_instruction(
        self, ctx: ChunkContext, f: np.ndarray | slice, t: np.ndarray, act: np.ndarray, flat: Value, line: int
    ) -> None:
        back = self.wshadow[f]
        clash = back != t
        if clash.any():  # two warps write one element in the same instruction
            lanes_hit = np.zeros(ctx.nlanes, dtype=bool)
            lanes_hit[np.flatnonzero(act)[clash]] = True
            raise self._race(ctx, lanes_hit, flat, line, line, int(back[clash][0] & _WARP_FIELD), "write", "write")

    def atomic(
        self,
        ctx: ChunkContext,
        idx: Value,
        value: Value,
        compare: Value | None,
        op: str,
        field: str | None,
        line: int,
        counts: list[int] | None = None,
    ) -> Value:
        lanes = self._flat(ctx, idx, line, "atomic")
        flat = dense(self._flat_lanes(ctx, lanes))
        if counts is not None:
            flat_all = np.broadcast_to(np.asarray(flat, dtype=np.int64), (ctx.nlanes,))
            cls, steps = serial_steps(op, self.storage.dtype.kind == "f", True, flat_all, ctx.active_arr())
            counts[C.SHARED_ATOMIC_SLOT[cls]] += steps
        return atomic_lanes(ctx, self.storage, flat, value, compare, op)

    def barrier(self) -> None:
        self.pending_reads.clear()


MemoryArray = GlobalArray | SharedArray | ConstantArray


def readable(mem: BoundArray) -> MemoryArray:
    """A chunk's bound array as the class it is (context.BoundArray names it by its name only)."""
    assert isinstance(mem, (GlobalArray, SharedArray, ConstantArray)), mem.name
    return mem


def writable(mem: BoundArray) -> GlobalArray | SharedArray:
    """`mem` as an array a kernel may store to (the compiler refuses stores to __constant__)."""
    assert isinstance(mem, (GlobalArray, SharedArray)), mem.name
    return mem


def with_structs(mem: BoundArray) -> GlobalArray | ConstantArray:
    """`mem` as an array of structs (the compiler refuses struct elements in __shared__)."""
    assert isinstance(mem, (GlobalArray, ConstantArray)), mem.name
    return mem


def global_array(mem: BoundArray) -> GlobalArray:
    """`mem` as a global array (struct stores go to pointer parameters only)."""
    assert isinstance(mem, GlobalArray), mem.name
    return mem
