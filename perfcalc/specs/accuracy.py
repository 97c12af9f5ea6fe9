"""How far a predicted time can be trusted: the error band of the time model, measured (issue 32).

devices/time_accuracy.yaml holds, per product, bound and size class, the errors of the model on
the held-back half of the HeCBench launches (benchmarks/hw/hecbench_compare.py --bands writes
it): the |predicted / measured - 1| that 90 % of those launches stay within, the median, and how
many launches that is. A prediction takes the band of its own bound and size class where there
are at least MIN_LAUNCHES such launches, else of its size class over every bound, else of all the
product's launches; a product never measured has no band (its time is then unchecked, and says so).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from perfcalc.errors import SpecError
from perfcalc.specs.registry import devices_dir
from perfcalc.specs.yaml_load import read_mapping

MIN_LAUNCHES = 10
SIZE_CLASSES = ("< 20 us", "20 us - 1 ms", ">= 1 ms")


@dataclass(frozen=True)
class ErrorBand:
    """90 % of the held-back launches like this one were within `p90` of the measured time."""

    p90: float
    median: float
    held_back_launches: int
    bound: str  # the bound it is taken over ("any" when pooled)
    size: str  # the size class ("any" when pooled)
    text: str = ""  # the band in words, as tables show it (filled from the fields)

    def __post_init__(self) -> None:
        # the size classes are keyed "< 20 us" in devices/time_accuracy.yaml; shown as tables show times
        what = ", ".join(x for x in (self.bound, self.size.replace(" us", " µs")) if x != "any") or "all launches"
        words = f"±{100 * self.p90:.0f} % ({what}: 90 % of {self.held_back_launches} held-back launches within)"
        object.__setattr__(self, "text", words)


def size_class(seconds: float) -> str:
    return SIZE_CLASSES[0] if seconds < 20e-6 else (SIZE_CLASSES[1] if seconds < 1e-3 else SIZE_CLASSES[2])


@cache
def _bands() -> dict[str, list[dict[str, Any]]]:
    path = devices_dir() / "time_accuracy.yaml"
    if not path.is_file():
        return {}
    data = read_mapping(path)
    bands = data.get("bands") or {}
    if not isinstance(bands, dict):
        raise SpecError("devices/time_accuracy.yaml: `bands` must map products to lists of rows")
    for gpu, rows in bands.items():
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise SpecError(f"devices/time_accuracy.yaml: bands of {gpu} must be a list of rows")
        for r in rows:
            if not {"bound", "size", "p90", "median", "launches"} <= set(r):
                raise SpecError(
                    f"devices/time_accuracy.yaml: a row of {gpu} lacks bound, size, p90, median or launches"
                )
    return bands


def error_band(gpu: str, bound: str, predicted_time_s: float) -> ErrorBand | None:
    """The measured band for a prediction (module docstring), or None for an unmeasured product."""
    rows = _bands().get(gpu)
    if not rows:
        return None
    size = size_class(predicted_time_s)
    for want_bound, want_size in ((bound, size), ("any", size), ("any", "any")):
        for r in rows:
            if r["bound"] == want_bound and r["size"] == want_size and r["launches"] >= MIN_LAUNCHES:
                return ErrorBand(float(r["p90"]), float(r["median"]), int(r["launches"]), want_bound, want_size)
    return None
