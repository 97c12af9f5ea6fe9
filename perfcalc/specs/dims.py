"""Launch dimensions, read one way by every command and the library (issue 29): `256`, `16,16`,
`16x16`, `(16,16,1)`, `dim3(16,16)`, an int, or a tuple/list of 1 to 3 ints -> (x, y, z)."""

from __future__ import annotations

import re

import numpy as np

from perfcalc.errors import InputError

_TEXT = re.compile(r"^\s*(?:dim3\s*)?\(?\s*(\d{1,10}(?:\s*[,xX*]\s*\d{1,10}){0,2})\s*\)?\s*$")
EXAMPLE = "256, 16,16, 16x16 or (16,16,1)"


def launch_dims(value: object, what: str) -> tuple[int, int, int]:
    """(x, y, z), each >= 1 (the CUDA launch rule); `what` names the option in errors."""
    if isinstance(value, str):
        m = _TEXT.match(value)
        if m is None:
            raise InputError(f"{what} {value[:60]!r}: expected 1 to 3 whole numbers such as {EXAMPLE}")
        vals = [int(p) for p in re.split(r"\s*[,xX*]\s*", m.group(1))]
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        vals = [int(value)]
    elif (
        isinstance(value, (tuple, list))
        and 1 <= len(value) <= 3
        and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)
    ):
        vals = [int(v) for v in value]
    else:
        raise InputError(f"{what} = {value!r}: give an int, a tuple of 1 to 3 ints, or text such as {EXAMPLE}")
    for axis, v in zip("xyz", vals, strict=False):
        if v < 1:
            raise InputError(f"{what}.{axis} = {v} must be at least 1 (CUDA launch rule)")
    x, y, z = vals + [1] * (3 - len(vals))
    return x, y, z


def dims_as_given(value: object, what: str) -> tuple[int, ...]:
    """The 1 to 3 numbers as written (`16,16` -> (16, 16)), checked as launch_dims checks them."""
    x, y, z = launch_dims(value, what)
    if isinstance(value, str):
        return tuple(int(p) for p in re.split(r"\s*[,xX*]\s*", _TEXT.match(value).group(1)))  # type: ignore[union-attr]
    if isinstance(value, (tuple, list)):
        return tuple(int(v) for v in value)
    return (x,)


def count(dims: tuple[int, int, int]) -> int:
    """x * y * z: threads in a block, or blocks in a grid."""
    return dims[0] * dims[1] * dims[2]
