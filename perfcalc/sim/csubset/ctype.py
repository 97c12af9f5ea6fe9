"""C scalar types of the simulated subset, with C's conversion rules computed statically.

Why a module of its own: NumPy's promotion differs from C's usual arithmetic conversions
(int32 op uint32 -> int64 in NumPy, unsigned int in C; float32 op Python float stays float32 in
NumPy, double in C). Every operator in the compiler asks this module for the C result type and
casts both operands to it *before* the NumPy call, so NumPy never decides a type.
Sizes follow nvcc on 64-bit Linux (LP64): long and size_t are 64-bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np


@dataclass(frozen=True)
class CType:
    """One arithmetic C type: its name, NumPy dtype, integer conversion rank and signedness."""

    name: str
    dtype: np.dtype
    rank: int  # integer conversion rank (C11 6.3.1.1); floats: 100 (float), 101 (double)
    signed: bool

    @property
    def is_float(self) -> bool:
        return self.dtype.kind == "f"

    @property
    def is_integer(self) -> bool:
        return not self.is_float

    @property
    def size(self) -> int:
        return int(self.dtype.itemsize)

    def scalar(self, value: Any) -> np.generic:
        """A typed NumPy scalar holding `value` converted as C would (wrap-around for ints)."""
        if self.is_float:
            return cast(np.generic, self.dtype.type(value))
        wrapped = np.array(int(value) & ((1 << (8 * self.size)) - 1), dtype=np.uint64).astype(self.dtype)
        return cast(np.generic, wrapped[()])


def _t(name: str, dtype: str, rank: int, signed: bool) -> CType:
    return CType(name, np.dtype(dtype), rank, signed)


BOOL = _t("bool", "bool", 1, False)
CHAR = _t("char", "int8", 2, True)
UCHAR = _t("unsigned char", "uint8", 2, False)
SHORT = _t("short", "int16", 3, True)
USHORT = _t("unsigned short", "uint16", 3, False)
INT = _t("int", "int32", 4, True)
UINT = _t("unsigned int", "uint32", 4, False)
LONG = _t("long", "int64", 5, True)
ULONG = _t("unsigned long", "uint64", 5, False)
LLONG = _t("long long", "int64", 6, True)
ULLONG = _t("unsigned long long", "uint64", 6, False)
FLOAT = _t("float", "float32", 100, True)
DOUBLE = _t("double", "float64", 101, True)

_UNSIGNED_OF = {INT: UINT, LONG: ULONG, LLONG: ULLONG, CHAR: UCHAR, SHORT: USHORT}

# Spellings pycparser gives as IdentifierType names (after sorting the specifier words).
_SPELLINGS: dict[tuple[str, ...], CType] = {}


def _spell(ct: CType, *spellings: str) -> None:
    for s in spellings:
        _SPELLINGS[tuple(sorted(s.split()))] = ct


_spell(BOOL, "bool", "_Bool")
_spell(CHAR, "char", "signed char")
_spell(UCHAR, "unsigned char")
_spell(SHORT, "short", "short int", "signed short", "signed short int")
_spell(USHORT, "unsigned short", "unsigned short int")
_spell(INT, "int", "signed", "signed int")
_spell(UINT, "unsigned", "unsigned int")
_spell(LONG, "long", "long int", "signed long", "signed long int")
_spell(ULONG, "unsigned long", "unsigned long int", "size_t")
_spell(LLONG, "long long", "long long int", "signed long long", "signed long long int")
_spell(ULLONG, "unsigned long long", "unsigned long long int")
_spell(FLOAT, "float")
_spell(DOUBLE, "double")


def ctype_from_names(names: list[str]) -> CType | None:
    """The CType for pycparser IdentifierType names, or None if it is not arithmetic."""
    return _SPELLINGS.get(tuple(sorted(names)))


def promote(t: CType) -> CType:
    """Integer promotion (C11 6.3.1.1): everything narrower than int becomes int."""
    if t.is_integer and t.rank < INT.rank:
        return INT
    return t


def usual_arithmetic(a: CType, b: CType) -> CType:
    """The common type of a binary arithmetic operator (C11 6.3.1.8)."""
    if a is DOUBLE or b is DOUBLE:
        return DOUBLE
    if a is FLOAT or b is FLOAT:
        return FLOAT
    a, b = promote(a), promote(b)
    if a == b:
        return a
    if a.signed == b.signed:
        return a if a.rank > b.rank else b
    uns, sig = (a, b) if not a.signed else (b, a)
    if uns.rank >= sig.rank:
        return uns
    if sig.size > uns.size:
        return sig
    return _UNSIGNED_OF[sig]


def integer_literal_type(text: str) -> tuple[int, CType]:
    """Value and type of a C integer literal (C11 6.4.4.1: the first type that holds it)."""
    body = text.rstrip("uUlL")
    suffix = text[len(body) :].lower()
    if body.lower().startswith("0x"):
        value, decimal = int(body, 16), False
    elif body.lower().startswith("0b"):
        value, decimal = int(body, 2), False
    elif len(body) > 1 and body.startswith("0"):
        value, decimal = int(body, 8), False
    else:
        value, decimal = int(body), True
    unsigned = "u" in suffix
    longs = suffix.count("l")
    if unsigned:
        candidates = [UINT, ULONG, ULLONG]
    elif decimal:
        candidates = [INT, LONG, LLONG]
    else:
        candidates = [INT, UINT, LONG, ULONG, LLONG, ULLONG]
    if longs == 1:
        candidates = [c for c in candidates if c.rank >= LONG.rank]
    elif longs == 2:
        candidates = [c for c in candidates if c.rank >= LLONG.rank]
    for c in candidates:
        bits = 8 * c.size - (1 if c.signed else 0)
        if value < (1 << bits):
            return value, c
    return value, ULLONG
