"""The one place where sim/ asks memory/ what a warp-level access costs, and asks it rarely.

Every global and shared access of a simulated kernel is priced by
``perfcalc.memory.global_access_batch`` / ``shared_access_batch``. Pricing every warp of every
access directly costs 10-16x the bare kernel (execution.md §2.2), so this module prices
*representative* warps and multiplies, exactly:

* **Translation by a quantum.** Every rule of memory.md groups addresses into aligned units of
  at most 256 bytes (32 B sectors, 32/64/128 B segments and lines, half-warp windows of 16*w
  <= 256 B on CC 1.0, banks of 4 or 8 bytes repeating every 64-256 B), so shifting all lanes
  of a warp by the same multiple of 256 bytes never changes its cost. Finer quanta hold where
  the rules only see smaller units: global CC 5.x-9.0 counts requests from active lanes and
  transactions/bytes from distinct 32 B sectors only (memory.md §1.5-1.7) -> 32 bytes; shared
  banks on CC 2.x and 5.x-9.0 are floor(addr/4) mod 32 (§3.2, §3.4), and their rule only asks
  which words share a bank and how many distinct words a bank gets; shifting every lane by
  one 4-byte word maps banks one-to-one (b -> b+1 mod 32) and keeps distinct words distinct,
  so the quantum there is max(4, access size) (the access size keeps lanes aligned). When every
  block of a chunk issues the same pattern as the chunk's first block shifted by one constant
  per block (the usual case: indices affine in threadIdx plus block-dependent offsets), the
  blocks fall into classes by (shift mod quantum), and only the first block's warps are
  priced for each class.
* **Memo.** The first block's pattern relative to its lane 0, lane 0's address modulo the
  quantum and the active lanes form a key into a memo shared by every run on the same device
  with the same options; a loop that walks an array in steps therefore prices each distinct
  alignment once, and a repeated launch prices nothing.
* Anything else (block-dependent masks, data-dependent indices) is priced warp by warp, only
  for warps with an active lane.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Protocol, TypeVar

import numpy as np

from perfcalc.memory import global_access_batch, shared_access_batch
from perfcalc.specs import Arch
from perfcalc.specs.families import WIDE_QUANTUM

if TYPE_CHECKING:
    from perfcalc.memory.cache_hierarchy import CacheHierarchy


_T = TypeVar("_T")


class SeparableCore(Protocol):
    """What pricing needs of a front end's separable index (sim/separable.py's Core):
    the lane part and the block part of each element index, and its cache of derived values."""

    lane: np.ndarray
    b: np.ndarray

    def dense64(self) -> np.ndarray: ...

    def derived(self, key: Hashable, make: Callable[[], _T]) -> _T: ...


class SeparableIndex(Protocol):
    """A separable element index: its Core plus a uniform offset (separable.py's Sep)."""

    @property
    def core(self) -> SeparableCore: ...

    @property
    def off(self) -> np.generic: ...


MemoKey = tuple[object, ...]
Cost = tuple[int, ...]
Totals = dict[MemoKey, Cost]
# What sep_plan derives from a Core once (its docstring names the fields).
SepPlan = tuple[np.ndarray, bytes, list[tuple[int, int]], int, Totals, int]


QUANTUM = WIDE_QUANTUM
_MEMOS: dict[MemoKey, Totals] = {}  # per (arch, cache, bank_mode)
_MEMO_LIMIT = 20_000  # entries per memo (a key holds one block's pattern: <= ~9 KB)


def _shared_memo(arch: object, cache: str | None, bank_mode: int | None) -> Totals:
    """The memo every run with the same device and options shares: a cost is a function of
    the Arch's fields (a frozen dataclass, compared by value), the options and the memo key,
    so a later launch of the same kernel prices nothing again. Unhashable archs get their own."""
    try:
        key = (arch, cache, bank_mode)
        memo = _MEMOS.get(key)
    except TypeError:
        return {}
    if memo is None:
        if len(_MEMOS) >= 8:
            _MEMOS.clear()
        memo = _MEMOS[key] = {}
    return memo


_HASH = np.random.default_rng(20261123).integers(1, 2**62, 65, dtype=np.int64) | 1


def _unique_rows(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows and how often each occurs: grouped by a 64-bit hash of the row, then
    verified exactly (a collision falls back to NumPy's row-wise unique)."""
    with np.errstate(over="ignore"):
        h = (keys * _HASH[: keys.shape[1]]).sum(axis=1)
    uh, first, inverse, counts = np.unique(h, return_index=True, return_inverse=True, return_counts=True)
    unique = keys[first]
    if not np.array_equal(unique[inverse.reshape(-1)], keys):
        unique, counts = np.unique(keys, axis=0, return_counts=True)
    return unique, counts


class Pricer:
    """Prices accesses of one run (holds the memo)."""

    def __init__(self, arch: Arch, cache: str | None, bank_mode: int | None):
        self.arch = arch
        self.cache = cache
        self.bank_mode = bank_mode
        self.memo: Totals = _shared_memo(arch, cache, bank_mode)
        self.quantum = {
            "global": arch.global_family.pricing_quantum,
            "shared": arch.shared_family.pricing_quantum,
        }
        # the L1/L2 model, fed every global access's addresses when caches are modelled
        self._trace: CacheHierarchy | None = None
        self.site = 0  # the source line the engine is pricing now (the cache model's per-line)

    @property
    def trace(self) -> CacheHierarchy | None:
        """The cache model while it follows the launch; None past its request budget (the later
        waves run exactly, outside it: memory/cache_hierarchy.CacheHierarchy.stop_recording)."""
        t = self._trace
        return t if t is not None and t.recording else None

    @trace.setter
    def trace(self, model: CacheHierarchy | None) -> None:
        self._trace = model

    def observe(self, addr: np.ndarray, mask: np.ndarray | None, size: int, op: str, atomic: str | None = None) -> None:
        """Hand a global access's lane addresses (the chunk's lane order) to the cache model;
        engines call it for accesses the pricing methods do not see (atomics, with their cost
        class from memory/atomic_contention.atomic_kind)."""
        if self.trace is not None:
            self.trace.record(addr, mask, size, op, self.site)
            if atomic is not None:
                self.trace.contention.record(addr, mask, atomic)

    def _observe_core(
        self, core: SeparableCore, off: int, base: int, itemsize: int, size: int, act0: np.ndarray | None, op: str
    ) -> None:
        """observe for a separable element index `core` + `off` (every block of the chunk)."""
        if self.trace is None:
            return
        full = base + (core.dense64() + off) * itemsize
        self.observe(full, None if act0 is None else np.tile(act0, core.b.size), size, op)

    def _quantum(self, space: str, size: int) -> int:
        """Shift (bytes) under which every warp's cost is invariant (module docstring)."""
        q = self.quantum[space]
        return max(q, size) if q < QUANTUM else q

    def _raw(self, space: str, addr: np.ndarray, size: int, active: np.ndarray | None, op: str) -> tuple[int, ...]:
        if space == "global":
            r = global_access_batch(self.arch, addr, size, active, op=op, cache=self.cache)
            return (int(r.total_requests), int(r.total_transactions), int(r.total_bytes_moved))
        s = shared_access_batch(self.arch, addr, size, active, op=op, bank_mode=self.bank_mode)
        return int(s.total_wavefronts), int(s.total_bank_conflicts)

    def _block_cost(
        self, space: str, addr0: np.ndarray, size: int, act0: np.ndarray | None, op: str
    ) -> tuple[int, ...]:
        """Cost of one block's warps (warps with no active lane issue nothing)."""
        warps = addr0.shape[0] // 32
        a2 = addr0.reshape(warps, 32)
        if act0 is None:
            return self._raw(space, a2, size, None, op)
        m2 = act0.reshape(warps, 32)
        rows = m2.any(axis=1)
        if not rows.any():
            return (0, 0, 0) if space == "global" else (0, 0)
        return self._raw(space, a2[rows], size, m2[rows], op)

    def price_blocks(
        self, space: str, addr0: np.ndarray, shift_bytes: np.ndarray, size: int, act0: np.ndarray | None, op: str
    ) -> tuple[int, ...]:
        """Totals over every block of a chunk whose lanes use the first block's addresses
        `addr0` (lanes of one block, int64) shifted by `shift_bytes[b]`, with the same active
        lanes `act0` (None: all).

        The memo key is the lane pattern relative to lane 0, lane 0's address modulo the
        quantum and the active lanes: equal keys mean patterns that differ by a multiple of the
        quantum."""
        if self.trace is not None and space == "global":
            full = (shift_bytes.astype(np.int64)[:, None] + addr0[None, :]).reshape(-1)
            self.observe(full, None if act0 is None else np.tile(act0, shift_bytes.size), size, op)
        quantum = self._quantum(space, size)
        residues = shift_bytes % quantum
        if residues.size == 1 or not (residues != residues[0]).any():
            pairs = [(int(residues[0]), int(residues.size))]
        else:
            hist = np.bincount(residues, minlength=quantum)
            classes = np.flatnonzero(hist)
            pairs = list(zip(classes.tolist(), hist[classes].tolist(), strict=True))
        first = int(addr0[0])
        pattern = (addr0 - first).tobytes()
        active = None if act0 is None else act0.tobytes()
        total: tuple[int, ...] = (0, 0, 0) if space == "global" else (0, 0)
        for shift, count in pairs:
            key = (space, size, op, pattern, (first + shift) % quantum, active)
            cost = self.memo.get(key)
            if cost is None:
                cost = self._block_cost(space, addr0 + shift, size, act0, op)
                if len(self.memo) > _MEMO_LIMIT:
                    self.memo.clear()
                self.memo[key] = cost
            total = tuple(x + y * count for x, y in zip(total, cost, strict=True))
        return total

    def price_sep(
        self, space: str, sep: SeparableIndex, base: int, itemsize: int, size: int, act0: np.ndarray | None, op: str
    ) -> tuple[int, ...]:
        """price_blocks for a separable element index (separable.py) whose values are all in
        bounds: the lane pattern and the blocks' residue classes depend only on its Core and are
        computed once per Core; only the uniform offset changes from call to call."""
        plan = self.sep_plan(space, sep.core, itemsize, size)
        return self.planned_total(plan, space, sep.core, int(sep.off), base, itemsize, size, act0, op)

    def planned_total(
        self,
        plan: SepPlan,
        space: str,
        core: SeparableCore,
        off: int,
        base: int,
        itemsize: int,
        size: int,
        act0: np.ndarray | None,
        op: str,
    ) -> tuple[int, ...]:
        """price_sep for `core` + `off` with the Core's plan (sep_plan) given, which a caller in
        a loop keeps: each access is then one dict hit (plus the cache model's observation)."""
        if self.trace is not None and space == "global":
            self._observe_core(core, off, base, itemsize, size, act0, op)
        pattern, pbytes, pairs, start, totals, quantum = plan
        first = base + (start + off) * itemsize
        active = None if act0 is None else act0.tobytes()
        # the chunk's total depends on nothing else: one dict hit per access in a loop
        tkey = (space, size, op, first % quantum, active)
        total = totals.get(tkey)
        if total is None:
            total = self._sep_total(space, size, op, pattern, pbytes, pairs, first, act0, active, quantum)
            if len(totals) > 4096:
                totals.clear()
            totals[tkey] = total
        return total

    def sep_plan(self, space: str, core: SeparableCore, itemsize: int, size: int) -> SepPlan:
        """What price_sep derives from a Core once: (pattern, its bytes, residue classes of
        the blocks, lane 0's element, the totals dict keyed (space, size, op, first address
        mod quantum, active lanes), quantum)."""
        quantum = self._quantum(space, size)

        def make() -> SepPlan:
            lane = core.lane.astype(np.int64)
            b = core.b.astype(np.int64)
            pattern = (lane - lane[0]) * itemsize
            residues = ((b - b[0]) * itemsize) % quantum
            hist = np.bincount(residues, minlength=quantum)
            classes = np.flatnonzero(hist)
            pairs = list(zip(classes.tolist(), hist[classes].tolist(), strict=True))
            return pattern, pattern.tobytes(), pairs, int(b[0]) + int(lane[0]), {}, quantum

        return core.derived(("price", itemsize, quantum), make)

    def _sep_total(
        self,
        space: str,
        size: int,
        op: str,
        pattern: np.ndarray,
        pbytes: bytes,
        pairs: list[tuple[int, int]],
        first: int,
        act0: np.ndarray | None,
        active: bytes | None,
        quantum: int,
    ) -> tuple[int, ...]:
        total: tuple[int, ...] = (0, 0, 0) if space == "global" else (0, 0)
        for shift, count in pairs:
            key = (space, size, op, pbytes, (first + shift) % quantum, active)
            cost = self.memo.get(key)
            if cost is None:
                cost = self._block_cost(space, pattern + (first + shift), size, act0, op)
                if len(self.memo) > _MEMO_LIMIT:
                    self.memo.clear()
                self.memo[key] = cost
            total = tuple(x + y * count for x, y in zip(total, cost, strict=True))
        return total

    def price_lanes(self, space: str, addr: np.ndarray, size: int, mask: np.ndarray | None, op: str) -> tuple[int, ...]:
        """Totals over every warp of a chunk, priced warp by warp (warps with an active lane)."""
        if self.trace is not None and space == "global":
            self.observe(addr, mask, size, op)
        a2 = addr.reshape(-1, 32)
        if mask is None:
            return self._raw(space, a2, size, None, op)
        m2 = mask.reshape(-1, 32)
        rows = m2.any(axis=1)
        if not rows.any():
            return (0, 0, 0) if space == "global" else (0, 0)
        return self._raw(space, a2[rows], size, m2[rows], op)

    def price_rows(self, space: str, addr: np.ndarray, size: int, mask: np.ndarray | None, op: str) -> tuple[int, ...]:
        """Totals over the warps of a chunk (rows of 32 lanes), each distinct warp pattern priced
        once: a warp's cost depends only on its lanes' offsets from its first active lane, which
        lanes are active, and that lane's address modulo 256 (no family's rule looks at higher
        address bits), so warps that agree on those share one price (and the run's memo).
        `mask` None: every lane is active."""
        if self.trace is not None and space == "global":
            self.observe(addr, mask, size, op)
        a2 = addr.reshape(-1, 32).astype(np.int64, copy=False)
        empty = (0, 0, 0) if space == "global" else (0, 0)
        m2: np.ndarray | None = None  # None: every lane active
        if mask is not None:
            m2 = mask.reshape(-1, 32)
            rows = m2.any(axis=1)
            if not rows.any():
                return empty
            if not rows.all():
                a2, m2 = a2[rows], m2[rows]
            if m2.all():
                m2 = None
        if m2 is None:
            first = a2[:, 0]
            rel = a2 - first[:, None]
            phase = first % QUANTUM
            if (rel == rel[0]).all():  # one lane pattern (the usual case): only phases differ
                hist = np.bincount(phase, minlength=QUANTUM)  # phases ascending, as np.unique
                phases = np.flatnonzero(hist)
                counts = hist[phases]
                unique = np.empty((phases.size, 65), dtype=np.int64)
                unique[:, :32] = rel[0]
                unique[:, 32:64] = 1
                unique[:, 64] = phases
                return self._total(space, size, op, unique, counts, empty)
        else:
            first = a2[np.arange(a2.shape[0]), m2.argmax(axis=1)]
            rel = np.where(m2, a2 - first[:, None], 0)
            phase = first % QUANTUM
        active = np.ones(a2.shape, dtype=np.int64) if m2 is None else m2.astype(np.int64)
        keys = np.concatenate([rel, active, phase[:, None]], axis=1)
        unique, counts = _unique_rows(keys)
        return self._total(space, size, op, unique, counts, empty)

    def _total(
        self, space: str, size: int, op: str, unique: np.ndarray, counts: np.ndarray, empty: tuple[int, ...]
    ) -> tuple[int, ...]:
        """Sum of count x cost over distinct warp keys (offsets, active lanes, phase)."""
        total = [0] * len(empty)
        todo: list[int] = []
        costs: list[tuple[int, ...] | None] = []
        for i in range(unique.shape[0]):
            key = (space, size, op, unique[i].tobytes())
            cost = self.memo.get(key)
            costs.append(cost)
            if cost is None:
                todo.append(i)
        if todo:
            sel = unique[todo]
            lowest = int(sel[:, :32].min())  # lanes below the first active one: shift up by
            lift = -(-max(-lowest, 0) // QUANTUM) * QUANTUM  # whole quanta (price unchanged)
            addr_rows = sel[:, :32] + sel[:, 64:65] + lift
            act = sel[:, 32:64].astype(bool)
            if space == "global":
                r = global_access_batch(self.arch, addr_rows, size, act, op=op, cache=self.cache)
                per = np.stack([r.requests, r.transactions, r.bytes_moved], axis=1)
            else:
                r2 = shared_access_batch(self.arch, addr_rows, size, act, op=op, bank_mode=self.bank_mode)
                per = np.stack([r2.wavefronts, r2.bank_conflicts], axis=1)
            if len(self.memo) > _MEMO_LIMIT:
                self.memo.clear()
            for j, i in enumerate(todo):
                cost = tuple(int(v) for v in per[j])
                self.memo[(space, size, op, unique[i].tobytes())] = cost
                costs[i] = cost
        for cost, count in zip(costs, counts, strict=True):
            assert cost is not None
            for k, v in enumerate(cost):
                total[k] += v * int(count)
        return tuple(total)
