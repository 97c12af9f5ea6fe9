"""One timing rule for the benchmarks: the fastest of several calls (least disturbed by the
machine's other work), with the last call's result."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def best_of(fn: Callable[[], Any], repeats: int = 3) -> tuple[float, Any]:
    """Fastest wall time of `repeats` calls, and the last call's result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result
