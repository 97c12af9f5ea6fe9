"""Numbers with units for people: engineering prefixes and 4 significant digits, never `1.567e+04`.

For the terminal, Markdown and figures only; CSV and JSON keep full precision and the base unit
their key names (`_gbs`, `_gflops`, `_s`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

# (scale, suffix), largest first; the last also takes anything smaller
_GIGA = ((1e3, "T"), (1.0, "G"), (1e-3, "M"), (1e-6, "k"))  # of a value in giga-units
_SECONDS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


def _digits(x: float) -> str:
    text = f"{x:.4g}"
    return text if "e" not in text else f"{x:.0f}"


def _scaled(value: float, steps: Sequence[tuple[float, str]], unit: str) -> str:
    if not math.isfinite(value) or value == 0:
        return f"{value:g} {dict((s, p) for s, p in steps)[1.0]}{unit}"
    scale, prefix = next(((s, p) for s, p in steps if abs(value) >= s), steps[-1])
    return f"{_digits(value / scale)} {prefix}{unit}"


def giga_rate(value: float, unit: str) -> str:
    """A rate given in giga-units (GB/s, GFLOPS) with the prefix that keeps 1 to 999.9:
    15667.2 GFLOPS -> '15.67 TFLOPS', 900 GB/s -> '900 GB/s'."""
    return _scaled(value, _GIGA, unit)


def seconds(value: float) -> str:
    """9.709e-05 -> '97.09 µs'."""
    return _scaled(value, _SECONDS, "")


def count(value: float) -> str:
    """A count with an SI prefix past 9999: 1048576 -> '1.049M', 512 -> '512', 2.5 -> '2.5'."""
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= max(scale, 1e4):
            return f"{_digits(value / scale)}{prefix}"
    return _digits(value)
