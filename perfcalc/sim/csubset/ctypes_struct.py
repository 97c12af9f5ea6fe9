"""Struct and CUDA vector types (float2/3/4, int2/4, ...) with C layout, and their NumPy dtypes.

Layout follows C (each field at the next multiple of its alignment, size rounded up to the
largest alignment) except that CUDA's vector types carry the alignment the CUDA headers give
them (vector_types.h, through specs/types.py: float2 8, float4 16, double2 16, float3 only 4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from perfcalc.sim.csubset import ctype as T
from perfcalc.specs.types import ELEMENT_TYPES


@dataclass(frozen=True)
class StructType:
    """A struct: ordered fields (name, type, byte offset), size, alignment."""

    name: str
    fields: tuple[tuple[str, T.CType, int], ...]
    size: int
    align: int
    vector: bool = False

    def field(self, name: str) -> tuple[T.CType, int] | None:
        for fname, ftype, offset in self.fields:
            if fname == name:
                return ftype, offset
        return None

    @property
    def dtype(self) -> np.dtype:
        """The NumPy structured dtype with exactly this layout."""
        return np.dtype(
            {
                "names": [f[0] for f in self.fields],
                "formats": [f[1].dtype for f in self.fields],
                "offsets": [f[2] for f in self.fields],
                "itemsize": self.size,
            }
        )


def make_struct(
    name: str, members: list[tuple[str, T.CType]], align: int | None = None, vector: bool = False
) -> StructType:
    """Lay out `members` by C rules (alignment override for CUDA vector types)."""
    offset = 0
    fields = []
    max_align = 1
    for fname, ftype in members:
        a = ftype.size
        max_align = max(max_align, a)
        offset = -(-offset // a) * a
        fields.append((fname, ftype, offset))
        offset += ftype.size
    al = align or max_align
    size = -(-offset // al) * al
    return StructType(name, tuple(fields), size, al, vector)


def _vec(name: str, t: T.CType, n: int, align: int) -> StructType:
    return make_struct(name, [(c, t) for c in "xyzw"[:n]], align, vector=True)


def _component(scalar: str) -> T.CType:
    """The C type of one vector component, by its NumPy name (long long for 64-bit ints)."""
    for ct in (T.BOOL, T.CHAR, T.UCHAR, T.SHORT, T.USHORT, T.INT, T.UINT, T.LLONG, T.ULLONG, T.FLOAT, T.DOUBLE):
        if ct.dtype == np.dtype(scalar):
            return ct
    raise KeyError(scalar)


# CUDA's vector types from the one type table (specs/types.py), plus dim3.
VECTOR_TYPES: dict[str, StructType] = {
    t.name: _vec(t.name, _component(t.scalar), t.components, t.alignment) for t in ELEMENT_TYPES.values() if t.is_vector
}
VECTOR_TYPES["dim3"] = _vec("dim3", T.UINT, 3, 4)


def dtype_matches(expected: StructType, actual: np.dtype) -> bool:
    """True when a NumPy structured dtype has exactly the struct's fields, offsets and size."""
    if actual.names is None or actual.fields is None or actual.itemsize != expected.size:
        return False
    if tuple(actual.names) != tuple(f[0] for f in expected.fields):
        return False
    for fname, ftype, offset in expected.fields:
        fdtype, foff = actual.fields[fname][:2]
        if fdtype != ftype.dtype or foff != offset:
            return False
    return True
