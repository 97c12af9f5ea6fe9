"""Nsight Compute's CSV (`ncu --csv --print-units base`), as the tests read the committed runs."""

from __future__ import annotations

import csv
from pathlib import Path


def launch_metrics(path: Path) -> list[dict[str, float]]:
    """Each profiled launch's metrics by name, in launch order (the log lines before the table and
    the thousands separators left out)."""
    text = path.read_text()
    by: dict[int, dict[str, float]] = {}
    for r in csv.DictReader(text[text.index('"ID"') :].splitlines()):
        by.setdefault(int(r["ID"]), {})[r["Metric Name"]] = float(r["Metric Value"].replace(",", "") or 0)
    return [by[i] for i in sorted(by)]
