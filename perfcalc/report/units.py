"""Numbers with units for people: engineering prefixes and 4 significant digits, never `1.567e+04`.

For the terminal, Markdown and figures only; CSV and JSON keep full precision and the base unit
their key names (`_gbs`, `_gflops`, `_s`).
"""

from __future__ import annotations

import math

_UP = ((1e3, "T"), (1.0, "G"), (1e-3, "M"), (1e-6, "k"))  # from a giga-unit value
_SECONDS = ((1.0, "s"), (1e-3, "ms"), (1e-6, "µs"), (1e-9, "ns"))


def _digits(x: float) -> str:
    text = f"{x:.4g}"
    return text if "e" not in text else f"{x:.0f}"


def giga_rate(value: float, unit: str) -> str:
    """A rate given in giga-units (GB/s, GFLOPS) with the prefix that keeps 1 to 999.9:
    15667.2 GFLOPS -> '15.67 TFLOPS', 900 GB/s -> '900 GB/s'."""
    if not math.isfinite(value) or value == 0:
        return f"{value:g} G{unit}"
    for scale, prefix in _UP:
        if abs(value) >= scale:
            return f"{_digits(value / scale)} {prefix}{unit}"
    return f"{_digits(value / 1e-6)} k{unit}"


def seconds(value: float) -> str:
    """9.709e-05 -> '97.09 µs'."""
    if not math.isfinite(value) or value == 0:
        return f"{value:g} s"
    for scale, unit in _SECONDS:
        if abs(value) >= scale:
            return f"{_digits(value / scale)} {unit}"
    return f"{_digits(value / 1e-9)} ns"
