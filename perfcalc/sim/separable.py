"""Separable integer lane values: value[block, lane] = per_block[block] + per_lane[lane].

Why: index arithmetic in CUDA kernels is almost always threadIdx and blockIdx combined by
+, - and multiplication by uniform values (`Row*Width + k` with Row = by*16 + ty). Kept in this
form, such arithmetic costs O(blocks + lanes per block) instead of O(threads), and an access
with a separable index has its block-translation structure, its bounds and its pricing
representatives (pricing.py) for free. Integer +, -, *, << and unary - are ring operations
modulo 2^n, so applying them to the two parts separately gives exactly the wrapped C result;
every other operation (comparisons, division, conversions to another width, floats, NumPy
functions) sees a materialised ordinary array through `__array__` / `__array_ufunc__`.
"""

from __future__ import annotations

import numpy as np

_LINEAR = {np.add, np.subtract}
_RANGE = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
          for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64,
                    np.uint64)}


class Sep(np.lib.mixins.NDArrayOperatorsMixin):
    """An integer lane array stored as per-block + per-lane parts (same dtype)."""

    __slots__ = ("b", "lane", "_full", "_bounds")
    __array_priority__ = 100

    def __init__(self, b: np.ndarray, lane: np.ndarray):
        self.b = b
        self.lane = lane
        self._full: np.ndarray | None = None
        self._bounds: tuple[int, int, int, int] | None = None

    def bounds(self) -> tuple[int, int, int, int]:
        """(min, max) of the block part and of the lane part, as Python ints (cached)."""
        if self._bounds is None:
            self._bounds = (int(self.b.min()), int(self.b.max()), int(self.lane.min()),
                            int(self.lane.max()))
        return self._bounds

    @property
    def dtype(self) -> np.dtype:
        return self.lane.dtype

    @property
    def size(self) -> int:
        return self.b.size * self.lane.size

    def full(self) -> np.ndarray:
        """The ordinary lane array (computed once)."""
        if self._full is None:
            self._full = np.add.outer(self.b, self.lane).reshape(-1)
        return self._full

    def __array__(self, dtype: object = None, copy: object = None) -> np.ndarray:
        f = self.full()
        return f if dtype is None else f.astype(dtype)

    def __getitem__(self, key: object) -> object:
        return self.full()[key]

    def __len__(self) -> int:
        return self.size

    def astype(self, dtype: object, copy: bool = True) -> object:
        dt = np.dtype(dtype)
        if dt == self.dtype:
            return self
        if dt.kind in "iu" and dt.itemsize == self.dtype.itemsize:
            return Sep(self.b.astype(dt), self.lane.astype(dt))  # same width: reinterpretation
        if dt.kind in "iu" and dt.itemsize > self.dtype.itemsize and self._fits():
            wide = Sep(self.b.astype(dt), self.lane.astype(dt))  # no element wraps
            if dt.kind == "i" or self.dtype.kind == "u":
                wide._bounds = self._bounds  # same values, same bounds
            return wide
        return self.full().astype(dt)

    def _fits(self) -> bool:
        """No element of b + lane leaves the dtype's range (so no element wrapped)."""
        lo_t, hi_t = _RANGE[self.dtype]
        bmin, bmax, lmin, lmax = self.bounds()
        return lo_t <= bmin + lmin and bmax + lmax <= hi_t

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: object,
                        **kwargs: object) -> object:
        if method == "__call__" and not kwargs:
            r = _separable(ufunc, inputs)
            if r is not None:
                return r
        args = [x.full() if isinstance(x, Sep) else x for x in inputs]
        if "out" in kwargs:
            kwargs["out"] = tuple(o.full() if isinstance(o, Sep) else o
                                  for o in kwargs["out"])  # type: ignore[union-attr]
        return getattr(ufunc, method)(*args, **kwargs)


def _is_scalar(x: object) -> bool:
    return isinstance(x, np.generic)


def _separable(ufunc: np.ufunc, inputs: tuple[object, ...]) -> Sep | None:
    if ufunc is np.negative and len(inputs) == 1:
        s = inputs[0]
        return Sep(-s.b, -s.lane)  # type: ignore[union-attr]
    if len(inputs) != 2:
        return None
    a, c = inputs
    if ufunc in _LINEAR:
        if isinstance(a, Sep) and isinstance(c, Sep) and a.dtype == c.dtype:
            return Sep(ufunc(a.b, c.b), ufunc(a.lane, c.lane))
        if isinstance(a, Sep) and _is_scalar(c) and c.dtype == a.dtype:
            return Sep(ufunc(a.b, c), a.lane)
        if isinstance(c, Sep) and _is_scalar(a) and a.dtype == c.dtype:
            if ufunc is np.add:
                return Sep(a + c.b, c.lane)
            return Sep(a - c.b, -c.lane)
        return None
    if ufunc is np.multiply or ufunc is np.left_shift:
        if isinstance(a, Sep) and _is_scalar(c) and c.dtype == a.dtype:
            return Sep(ufunc(a.b, c), ufunc(a.lane, c))
        if ufunc is np.multiply and isinstance(c, Sep) and _is_scalar(a) and a.dtype == c.dtype:
            return Sep(a * c.b, a * c.lane)
    return None


def dense(v: object) -> object:
    """An ordinary value (Sep materialised)."""
    return v.full() if isinstance(v, Sep) else v
