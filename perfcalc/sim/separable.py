"""Separable integer lane values: value[block, lane] = per_block[block] + per_lane[lane] + off.

Why: index arithmetic in CUDA kernels is almost always threadIdx and blockIdx combined by
+, - and multiplication by uniform values (`Row*Width + k` with Row = by*16 + ty). Kept in this
form, such arithmetic costs O(blocks + lanes per block) instead of O(threads), and an access
with a separable index has its bounds, its block-translation structure and its pricing
representatives (pricing.py) for free. Integer +, -, *, << and unary - are ring operations
modulo 2^n, so applying them to the parts separately gives exactly the wrapped C result; every
other operation (comparisons, division, conversions to another width, floats, NumPy functions)
sees a materialised ordinary array through `__array__` / `__array_ufunc__`.

The two arrays live in a `Core` shared by every value that differs only in the uniform offset
`off` (a loop counter added to an index changes `off` only), and a Core caches what is derived
from it (products by a uniform factor, conversions, bounds, pricing patterns), so an access
inside a loop recomputes almost nothing per iteration.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeAlias, TypeVar, cast

import numpy as np
from numpy.typing import DTypeLike

_LINEAR = {np.add, np.subtract}
_RANGE = {
    np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
    for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64)
}
_CACHE_LIMIT = 64
_T = TypeVar("_T")

Value: TypeAlias = Any
"""A C value while a kernel runs: an ndarray (one element per lane), a NumPy scalar (the same in
every lane) or a Sep. Any to the type checker on purpose: NumPy's stubs give arithmetic mixing
these three (Sep takes part through `__array_ufunc__`) no type mypy can resolve, so operands are
left to NumPy's own run-time promotion rules, which the engine's tests pin down."""


class Core:
    """The per-block and per-lane parts (same dtype) and what is derived from them."""

    __slots__ = ("b", "lane", "cache", "_bounds")

    def __init__(self, b: np.ndarray, lane: np.ndarray):
        self.b = b
        self.lane = lane
        self.cache: dict[Hashable, object] = {}
        self._bounds: tuple[int, int, int, int] | None = None

    def bounds(self) -> tuple[int, int, int, int]:
        """(min, max) of the block part and of the lane part, as Python ints."""
        if self._bounds is None:
            self._bounds = (int(self.b.min()), int(self.b.max()), int(self.lane.min()), int(self.lane.max()))
        return self._bounds

    def dense(self) -> np.ndarray:
        """b[block] + lane[lane] for every lane, computed once per Core (an access inside a
        loop then costs one plain add of its uniform offset, like hand-written NumPy)."""
        return self.derived("dense", lambda: np.add.outer(self.b, self.lane).reshape(-1))

    def dense64(self) -> np.ndarray:
        """b + lane in int64, computed once per Core (exact when the value fits its dtype)."""
        return self.derived(
            "dense64", lambda: np.add.outer(self.b.astype(np.int64), self.lane.astype(np.int64)).reshape(-1)
        )

    def gather_base(self) -> tuple[np.ndarray, int]:
        """(b + lane - low as int64, low), low = the smallest b + lane: indices >= 0 that
        take_from shifts by low + off."""

        def make() -> tuple[np.ndarray, int]:
            bmin, _, lmin, _ = self.bounds()
            return (
                np.add.outer(self.b.astype(np.int64) - bmin, self.lane.astype(np.int64) - lmin).reshape(-1),
                bmin + lmin,
            )

        return self.derived("gather", make)

    def take_at(self, view: np.ndarray, off: int) -> np.ndarray:
        """view[b + lane + off] for every block and lane, a fresh array (the caller has
        bounds-checked the indices): one gather with the cached int64 indices, or, where a
        block's lanes repeat a few values -- runs of equal lanes (`Mds[ty][k]`) or one row of
        lanes again and again (`Nds[k][tx]`) -- a gather of those few, spread over the lanes
        (at 2^17 lanes 89 -> 42 us and 87 -> 66 us: benchmarks/results_ptx_engine.md)."""
        rel, low = self.gather_base()
        base = view[low + off :]
        (kind, k), few = self.derived("repetition", lambda: _repetition(self, low))
        if few is None:
            return base.take(rel, mode="clip")
        values = base.take(few, mode="clip")
        if kind == "runs":
            return np.repeat(values, k)
        out = np.empty((self.b.size, self.lane.size // k, k), dtype=values.dtype)
        out[...] = values.reshape(self.b.size, 1, k)
        return out.reshape(-1)

    def derived(self, key: Hashable, make: Callable[[], _T]) -> _T:
        """A cached derived value (`make()` on a miss; a key always maps to one kind of value)."""
        hit = self.cache.get(key)
        if hit is None:
            if len(self.cache) >= _CACHE_LIMIT:
                self.cache.clear()
            hit = make()
            self.cache[key] = hit
        return cast(_T, hit)


def _repetition(core: Core, low: int) -> tuple[tuple[str, int], np.ndarray | None]:
    """How a block's lane part repeats: ('runs', g) where each g consecutive lanes hold one
    value, ('period', p) where the lanes repeat their first p; with the gather indices of those
    few lanes in every block (relative to `low`, the full gather's smallest value, which they
    contain), or None where nothing repeats enough to pay for the second step."""
    lane = core.lane.astype(np.int64)
    width = lane.size
    b = core.b.astype(np.int64)
    for g in (32, 16, 8, 4):
        if width % g == 0 and width > g and bool((lane.reshape(-1, g) == lane[::g, None]).all()):
            return ("runs", g), np.add.outer(b - low, lane[::g]).reshape(-1)
    for p in (4, 8, 16, 32, 64):
        if width % p == 0 and width >= 4 * p and bool((lane.reshape(-1, p) == lane[:p]).all()):
            return ("period", p), np.add.outer(b - low, lane[:p]).reshape(-1)
    return ("none", 0), None


def _direct(ufunc: np.ufunc, reflected: bool = False) -> Callable[[Sep, Value], Value]:
    """A binary operator that applies the separable rule first (`_separable`) and NumPy's
    ufunc, with its override dispatch, only where the rule does not apply."""

    def op(self: Sep, other: Value) -> Value:
        args = (other, self) if reflected else (self, other)
        r = _separable(ufunc, args)
        return ufunc(*args) if r is None else r

    return op


class Sep(np.lib.mixins.NDArrayOperatorsMixin):
    """An integer lane array stored as Core (per-block + per-lane parts) plus a uniform offset."""

    __slots__ = ("core", "off", "_full", "_index", "_memo")
    __array_priority__ = 100

    def __init__(self, core: Core, off: np.generic | None = None):
        self.core = core
        self.off = core.lane.dtype.type(0) if off is None else off
        self._full: np.ndarray | None = None
        self._index: np.ndarray | None = None
        # conversions and products of this very value (a loop-invariant variable such as
        # `ty` in `Mds[ty][k]` is converted and scaled once, not once per iteration)
        self._memo: dict[Hashable, Sep] | None = None

    def _remember(self, key: Hashable, value: Sep) -> Sep:
        if self._memo is None:
            self._memo = {}
        self._memo[key] = value
        return value

    @classmethod
    def of(cls, b: np.ndarray, lane: np.ndarray) -> Sep:
        return cls(Core(b, lane))

    @property
    def b(self) -> np.ndarray:
        return self.core.b

    @property
    def lane(self) -> np.ndarray:
        return self.core.lane

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.core.lane.dtype

    @property
    def size(self) -> int:
        return self.core.b.size * self.core.lane.size

    def bare(self) -> Sep:
        """The same value without its materialised array (cheap to keep around)."""
        return Sep(self.core, self.off)

    def full(self) -> np.ndarray:
        """The ordinary lane array (computed once; never modified in place by anyone)."""
        if self._full is None:
            base = self.core.dense()
            self._full = base if self.off == 0 else base + self.off
        return self._full

    def index64(self) -> np.ndarray:
        """The values as int64 (NumPy's take is several times slower with int32 indices);
        only valid when `fits()`, which every caller (a bounds-checked access) ensures."""
        if self._index is None:
            base = self.core.dense64()
            self._index = base if int(self.off) == 0 else base + np.int64(int(self.off))
        return self._index

    def take_from(self, view: np.ndarray) -> np.ndarray:
        """view[b + lane + off], for a value whose every element is an index into `view` (the
        caller has bounds-checked it). One gather from `view` shifted by the offset, with the
        Core's cached int64 indices, so an access in a loop builds no index array at all
        (one pass fewer than hand-written NumPy's `view.take(base + k)`)."""
        return self.core.take_at(view, int(self.off))

    def bounds(self) -> tuple[int, int]:
        """(min, max) of b + lane + off without wrap-around, as Python ints."""
        bmin, bmax, lmin, lmax = self.core.bounds()
        o = int(self.off)
        return bmin + lmin + o, bmax + lmax + o

    def lanes_distinct(self) -> bool:
        """Whether the lane part takes distinct values on the lanes of a block (cached per Core):
        then no two lanes of one block hold the same value, whatever the uniform offset."""
        core = self.core
        return bool(core.derived("injective", lambda: np.unique(core.lane).size == core.lane.size))

    def fits(self) -> bool:
        """No element of b + lane + off leaves the dtype's range (so none wrapped)."""
        lo_t, hi_t = _RANGE[self.dtype]
        lo, hi = self.bounds()
        return lo_t <= lo and hi <= hi_t

    def __array__(self, dtype: DTypeLike | None = None, copy: bool | None = None) -> np.ndarray:
        f = self.full()
        return f if dtype is None else f.astype(dtype)

    def __getitem__(self, key: Any) -> Value:
        return self.full()[key]

    def __len__(self) -> int:
        return self.size

    def astype(self, dtype: DTypeLike, copy: bool = True) -> Sep | np.ndarray:
        memo = self._memo
        if memo is not None:
            hit = memo.get(("astype", dtype))
            if hit is not None:
                return hit
        core = self.core
        fast = cast("Core | None", core.cache.get(("widen", dtype)))
        if fast is not None and self.fits():  # the usual int -> long of every subscript
            return self._remember(("astype", dtype), Sep(fast, fast.lane.dtype.type(int(self.off))))
        dt = np.dtype(dtype)
        if dt == self.dtype:
            return self
        same_width = dt.kind in "iu" and dt.itemsize == self.dtype.itemsize
        widening = dt.kind in "iu" and dt.itemsize > self.dtype.itemsize and self.fits()
        if same_width or widening:  # reinterpretation, or exact (no element wraps)
            core = self.core
            if widening and dt.kind == "u" and self.dtype.kind == "i":
                return self.full().astype(dt)
            new = core.derived(("astype", dt.str), lambda: Core(core.b.astype(dt), core.lane.astype(dt)))
            if widening and isinstance(dtype, np.dtype | type):
                # exact whenever the value fits its dtype (checked on every later use)
                core.cache[("widen", dtype)] = new
            return Sep(new, cast(np.generic, np.asarray(self.off).astype(dt)[()]))
        return self.full().astype(dt)

    # the operators index arithmetic uses, without NumPy's override dispatch
    __add__ = _direct(np.add)
    __radd__ = _direct(np.add, reflected=True)
    __sub__ = _direct(np.subtract)
    __rsub__ = _direct(np.subtract, reflected=True)
    __mul__ = _direct(np.multiply)
    __rmul__ = _direct(np.multiply, reflected=True)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Value, **kwargs: Any) -> Value:
        if method == "__call__" and not kwargs:
            r = _separable(ufunc, inputs)
            if r is not None:
                return r
        args = [x.full() if isinstance(x, Sep) else x for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(o.full() if isinstance(o, Sep) else o for o in kwargs["out"])
        return getattr(ufunc, method)(*args, **kwargs)


def _is_scalar(x: Value, dtype: np.dtype[Any]) -> bool:
    return isinstance(x, np.generic) and x.dtype == dtype


def _scaled(s: Sep, ufunc: np.ufunc, c: np.generic) -> Sep:
    key = (ufunc.__name__, c.item())
    memo = s._memo
    if memo is not None:
        hit = memo.get(key)
        if hit is not None:
            return hit
    core = s.core
    new = core.derived(key, lambda: Core(ufunc(core.b, c), ufunc(core.lane, c)))
    return s._remember(key, Sep(new, ufunc(s.off, c)))


def _negated(s: Sep) -> Sep:
    core = s.core
    new = core.derived("neg", lambda: Core(-core.b, -core.lane))
    return Sep(new, -cast(Any, s.off))


def _separable(ufunc: np.ufunc, inputs: tuple[Value, ...]) -> Sep | None:
    if ufunc is np.negative and len(inputs) == 1:
        return _negated(inputs[0])
    if len(inputs) != 2:
        return None
    a, c = inputs
    if ufunc in _LINEAR:
        if isinstance(a, Sep) and isinstance(c, Sep) and a.dtype == c.dtype:
            ca, cc = a.core, c.core
            # keyed by the other Core itself (kept alive by the key, so never confused with
            # a later one): `Row*Width + (m*16 + tx)` in a loop reuses one Core per phase
            new = ca.derived((ufunc.__name__, cc), lambda: Core(ufunc(ca.b, cc.b), ufunc(ca.lane, cc.lane)))
            return Sep(new, ufunc(a.off, c.off))
        if isinstance(a, Sep) and _is_scalar(c, a.dtype):
            return Sep(a.core, ufunc(a.off, c))
        if isinstance(c, Sep) and _is_scalar(a, c.dtype):
            if ufunc is np.add:
                return Sep(c.core, a + c.off)
            neg = _negated(c)
            return Sep(neg.core, a + neg.off)
        return None
    if ufunc is np.multiply or ufunc is np.left_shift:
        if isinstance(a, Sep) and _is_scalar(c, a.dtype):
            return _scaled(a, ufunc, c)
        if ufunc is np.multiply and isinstance(c, Sep) and _is_scalar(a, c.dtype):
            return _scaled(c, ufunc, a)
    return None


def dense(v: Value) -> Value:
    """An ordinary value (Sep materialised)."""
    return v.full() if isinstance(v, Sep) else v
