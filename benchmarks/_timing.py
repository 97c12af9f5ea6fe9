"""What the benchmarks share: one timing rule, the fastest of several calls (least disturbed by the
machine's other work), with the last call's result; and one way to publish a results table."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def best_of(fn: Callable[[], Any], repeats: int = 3) -> tuple[float, Any]:
    """Fastest wall time of `repeats` calls, and the last call's result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def publish(lines: list[str], results: Path, write: bool) -> None:
    """Print a benchmark's Markdown table and, with --write, store it as its results file."""
    table = "\n".join(lines)
    print(table)
    if write:
        results.write_text(table)
        print(f"written to {results}")
