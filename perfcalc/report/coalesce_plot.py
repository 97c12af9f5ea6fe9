"""One warp's global access as a picture: lanes -> the bytes they touch -> the transactions.

One panel per CC family, side by side in a column: the 32 lanes as dots at the byte address
each reads (inactive lanes grey), and under them each transaction the family's rules issue as
a bar over the bytes it moves (32-byte sectors, 64/128-byte segments or lines), coloured by
the request (half-warp, quarter-warp, ...) it belongs to. Everything drawn comes from the
GlobalAccessCost the table shows: nothing is re-derived here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfcalc.memory.global_memory import GlobalAccessCost
from perfcalc.memory.patterns import WarpPattern
from perfcalc.report.figures import DEFAULT_DPI, new_figure, save_figure

_REQUEST_COLOURS = ("#1f5fa8", "#e07b39", "#3a9d5d", "#b8434f", "#7a5bb5", "#8c6d3f", "#d36fb0", "#6f6f6f")


def coalesce_figure(pattern: WarpPattern, results: Sequence[tuple[str, GlobalAccessCost]]) -> Any:
    """The access on each CC family of `results` ((label, cost) as `perfcalc coalesce` lists them)."""
    from matplotlib.patches import Rectangle

    ends = [a + s for _label, r in results for a, s in r.transactions]
    starts = [a for _label, r in results for a, _s in r.transactions]
    lo = min([*pattern.addresses, *starts])
    hi = max([a + pattern.word for a in pattern.addresses] + ends)
    fig = new_figure(9, 1.25 * len(results) + 1.0)
    axes = fig.subplots(len(results), 1, squeeze=False, sharex=True)[:, 0]
    for ax, (label, cost) in zip(axes, results, strict=True):
        rows = _rows(cost.transactions)
        height = 0.5 / (max(rows) + 1 if rows else 1)
        for (address, size), request, row in zip(cost.transactions, cost.transaction_requests, rows, strict=True):
            colour = _REQUEST_COLOURS[request % len(_REQUEST_COLOURS)]
            box = (address, 0.6 - (row + 1) * height)
            ax.add_patch(
                Rectangle(box, size, height * 0.9, facecolor=colour, alpha=0.35, edgecolor=colour, gid="transaction")
            )
        xs = [a + pattern.word / 2 for a in pattern.addresses]
        colours = ["#222222" if on else "#bbbbbb" for on in pattern.active]
        ax.scatter(xs, [0.85] * len(xs), s=10, c=colours, zorder=3)
        efficiency = "-" if cost.efficiency is None else f"{cost.efficiency * 100:.4g} %"
        ax.set_title(
            f"CC {label}: {cost.transaction_count} transactions ({_sizes(cost)}), {cost.requests} "
            f"request(s), one per {cost.request_unit}; efficiency {efficiency}",
            fontsize=8,
            loc="left",
        )
        ax.set_ylim(0, 1)
        ax.set_yticks([0.35, 0.85], ["transactions", "lanes"], fontsize=7)
        ax.grid(True, axis="x", linewidth=0.3)
    axes[-1].set_xlim(lo - 4, hi + 4)
    axes[-1].set_xlabel("byte address")
    fig.suptitle(
        f"{pattern.description}, {pattern.word}-byte words (dots: lanes; bars: transactions by request)", fontsize=9
    )
    return fig


def _rows(transactions: Sequence[tuple[int, int]]) -> list[int]:
    """A row per transaction so that bars over the same bytes stack instead of hiding each
    other (CC 1.0 issues one 32-byte transaction per lane, several on one segment)."""
    ends: list[int] = []  # per row, where its last bar ends
    rows = []
    for address, size in transactions:
        row = next((i for i, end in enumerate(ends) if end <= address), len(ends))
        if row == len(ends):
            ends.append(0)
        ends[row] = address + size
        rows.append(row)
    return rows


def _sizes(cost: GlobalAccessCost) -> str:
    counts: dict[int, int] = {}
    for _address, size in cost.transactions:
        counts[size] = counts.get(size, 0) + 1
    return ", ".join(f"{n} x {size} B" for size, n in sorted(counts.items())) or "none"


def plot_coalesce(
    pattern: WarpPattern, results: Sequence[tuple[str, GlobalAccessCost]], path: str | Path, dpi: int = DEFAULT_DPI
) -> Path:
    """Write the figure to `path` (.png, .svg or .pdf), atomically."""
    return save_figure(coalesce_figure(pattern, results), path, dpi)
