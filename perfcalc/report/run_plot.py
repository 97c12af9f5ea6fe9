"""A kernel's source with a heat map beside it: per line, global requests, sectors per request,
shared requests and bank conflicts, as `perfcalc run` counted them.

Each column is coloured against its own largest value (a line with many requests and one with
many conflicts both stand out); the number is printed in the cell. A source of up to MAX_LINES
lines is drawn whole, so the code reads as written; a longer one keeps the span of counted
lines, or, if that is still too long, the counted lines and one line around each.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from perfcalc.report.figures import DEFAULT_DPI, new_figure, save_figure
from perfcalc.units import count

MAX_LINES = 60
COLUMNS = ("global requests", "sectors per request", "shared requests", "bank conflicts")


def line_values(counters: Mapping[str, int]) -> tuple[float | None, ...]:
    """One source line's four columns (None where the line has no such access)."""
    requests = counters.get("global_load_requests", 0) + counters.get("global_store_requests", 0)
    sectors = counters.get("global_load_transactions", 0) + counters.get("global_store_transactions", 0)
    shared = counters.get("shared_load_requests", 0) + counters.get("shared_store_requests", 0)
    return (
        requests or None,
        sectors / requests if requests else None,
        shared or None,
        counters.get("bank_conflicts", 0) if shared else None,
    )


def shown_lines(source_lines: Sequence[str], counted: Sequence[int]) -> list[int]:
    """The 1-based line numbers drawn: a short source whole, else the counted span, else the
    counted lines with one line of context each."""
    if not counted:
        return []
    if len(source_lines) <= MAX_LINES:
        return [n for n in range(1, len(source_lines) + 1) if n <= max(counted) or source_lines[n - 1].strip()]
    span = list(range(min(counted), max(counted) + 1))
    if len(span) <= MAX_LINES:
        return span
    near = {n + d for n in counted for d in (-1, 0, 1)}
    return sorted(n for n in near if 1 <= n <= len(source_lines))


def run_figure(title: str, source_lines: Sequence[str], per_site: Sequence[Mapping[str, Any]]) -> Any:
    """The heat map of `per_site` rows (line, code, counters), as `perfcalc run` puts them in JSON."""
    import numpy as np

    by_line: dict[int, tuple[float | None, ...]] = {}
    for site in per_site:
        if not site.get("inlined"):
            by_line[site["line"]] = line_values(site["counters"])
    lines = shown_lines(source_lines, sorted(by_line))
    values = np.array(
        [[np.nan if v is None else v for v in by_line.get(n, (None,) * len(COLUMNS))] for n in lines], dtype=float
    ).reshape(len(lines), len(COLUMNS))
    peak = np.nanmax(np.where(np.isnan(values), 0, values), axis=0) if lines else np.zeros(len(COLUMNS))
    shade = np.where(np.isnan(values), np.nan, values / np.where(peak > 0, peak, 1))

    fig = new_figure(12, 0.24 * max(len(lines), 4) + 1.6)
    code_ax, heat_ax = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]}, sharey=True)
    for row, n in enumerate(lines):
        code = source_lines[n - 1].rstrip() if 0 < n <= len(source_lines) else ""
        code_ax.text(0, row, f"{n:4d}  {code.expandtabs(4)[:90]}", family="monospace", fontsize=7, va="center")
    code_ax.set_xlim(0, 1)
    code_ax.axis("off")
    heat_ax.imshow(shade, cmap="Reds", vmin=0, vmax=1.6, aspect="auto", interpolation="nearest")
    for (row, col), v in np.ndenumerate(values):
        if not np.isnan(v):
            heat_ax.text(col, row, count(float(v)), ha="center", va="center", fontsize=7)
    heat_ax.set_xticks(range(len(COLUMNS)), list(COLUMNS), fontsize=7)
    heat_ax.xaxis.tick_top()
    heat_ax.set_yticks([])
    heat_ax.set_ylim(len(lines) - 0.5, -0.5)
    fig.suptitle(title, fontsize=9)
    return fig


def plot_run(
    title: str,
    source_lines: Sequence[str],
    per_site: Sequence[Mapping[str, Any]],
    path: str | Path,
    dpi: int = DEFAULT_DPI,
) -> Path:
    """Write the figure to `path` (.png, .svg or .pdf), atomically."""
    return save_figure(run_figure(title, source_lines, per_site), path, dpi)
