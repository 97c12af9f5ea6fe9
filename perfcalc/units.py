"""Every number a person reads, formatted in one place: plain values to 4 significant digits,
fractions as %, times, rates and counts with engineering prefixes, never `1.567e+04`.

For the terminal, Markdown, figures, notes and advice; CSV and JSON keep full precision and the
base unit in their key names (`_gbs`, `_gflops`, `_s`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

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


def binary_bytes(value: float) -> str:
    """A size in bytes with the binary prefix that keeps 1 to 1023: 2**29 -> '512 MiB'."""
    steps = ((2.0**40, "TiB"), (2.0**30, "GiB"), (2.0**20, "MiB"), (2.0**10, "KiB"), (1.0, "B"))
    if not math.isfinite(value) or value == 0:
        return f"{value:g} B"
    scale, unit = next(((s, u) for s, u in steps if abs(value) >= s), steps[-1])
    return f"{_digits(value / scale)} {unit}"


def count(value: float) -> str:
    """A count with an SI prefix past 9999: 1048576 -> '1.049M', 512 -> '512', 2.5 -> '2.5'."""
    for scale, prefix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= max(scale, 1e4):
            return f"{_digits(value / scale)}{prefix}"
    return _digits(value)


def format_value(value: Any) -> str:
    """Human rounding for table/Markdown only: 4 significant digits, percent kept readable."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if value == int(value) and abs(value) < 1e15:
            return str(int(value))
        if 1e4 <= abs(value) < 1e15:  # 15667.2 -> '15667', not '1.567e+04' beside '14400'
            return f"{value:.0f}"
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(format_value(v) for v in value)
    if value is None:
        return "-"
    return str(value)


def percent(fraction: float) -> str:
    """0.625 -> '62.5 %' (sentences and notes; tables keep the raw number)."""
    return f"{format_value(float(fraction) * 100)} %"


def shortened(text: str, limit: int = 24) -> str:
    """A value for a one-line message: as given up to `limit` characters, else its start and its
    length ('10000000... (401 characters)': a 400-digit integer)."""
    return text if len(text) <= limit else f"{text[:8]}... ({len(text)} characters)"
