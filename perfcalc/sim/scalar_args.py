"""A number passed to a floating-point kernel parameter, rounded to its type, checked the same
way by both engines: a finite value past the type's range is refused by name (C leaves its
conversion undefined; NumPy gives inf with a warning, or an OverflowError for a huge integer).
An infinity or NaN given as such is passed on: a C float holds them."""

from __future__ import annotations

import math

import numpy as np

from perfcalc.errors import InputError
from perfcalc.units import shortened


def float_scalar(name: str, ctype: str, value: int | float | np.integer | np.floating, dtype: np.dtype) -> np.generic:
    try:
        wide = float(value)
    except OverflowError:  # an integer past float64
        wide = math.inf if value > 0 else -math.inf
    with np.errstate(over="ignore"):
        narrow: np.generic = dtype.type(wide)
    if np.isinf(narrow) and not (isinstance(value, float | np.floating) and np.isinf(value)):
        largest = float(np.finfo(dtype).max)
        raise InputError(
            f"argument {name} = {shortened(str(value))} does not fit the parameter's C type {ctype} "
            f"(largest {largest:.6g})"
        )
    return narrow
