"""`perfcalc tune --plot`: predicted time over the space, one line per product, each product's
best point marked and labelled with its configuration.

With one axis the x axis is that axis's values; with several it is the point number (the axes'
product, the last axis fastest), ticks where the first axis changes value. Points that could
not launch on a product leave a gap in its line. Time is drawn on a log scale: a space's
times span orders of magnitude, and the best points are at the bottom where it matters.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from perfcalc.report.figures import DEFAULT_DPI, new_figure, save_figure


def tune_figure(report: Any) -> Any:
    fig = new_figure(9, 5.5)
    ax = fig.add_subplot()
    one_axis = len(report.names) == 1 and all(not isinstance(r[report.names[0]], str) for r in report.rows)
    for gpu in report.gpus:
        rows = [r for r in report.rows if r["gpu"] == gpu]
        xs = [r[report.names[0]] if one_axis else r["point"] for r in rows]
        ys = [r["time_s"] * 1e6 if r["status"] == "ok" and r["time_s"] else float("nan") for r in rows]
        (line,) = ax.plot(xs, ys, marker="." if len(rows) <= 200 else None, linewidth=1, label=gpu)
        best = next((b for b in report.best if b.gpu == gpu and b.point >= 0), None)
        if best is not None:
            bx = best.values[report.names[0]] if one_axis else best.point
            ax.plot([bx], [best.time_s * 1e6], marker="*", markersize=12, color=line.get_color())
            label = " ".join(f"{k}={v}" for k, v in best.values.items())
            ax.annotate(label, (bx, best.time_s * 1e6), textcoords="offset points", xytext=(6, -12), fontsize=8)
    ax.set_yscale("log")
    from matplotlib.ticker import FuncFormatter

    plain = FuncFormatter(lambda v, _pos: f"{v:g}")
    ax.yaxis.set_major_formatter(plain)
    ax.yaxis.set_minor_formatter(plain)
    ax.set_ylabel("predicted time (µs)")
    if one_axis:
        ax.set_xlabel(report.names[0])
        values = [r[report.names[0]] for r in report.rows]
        if min(values) > 0 and max(values) / min(values) >= 16:
            ax.set_xscale("log", base=2)
    else:
        ax.set_xlabel(f"point ({' x '.join(report.names)}; {report.names[-1]} fastest)")
        first = report.names[0]
        ticks = [r["point"] for i, r in enumerate(report.rows) if i == 0 or r[first] != report.rows[i - 1][first]]
        ax.set_xticks(sorted(set(ticks)))
        ax.set_xticklabels(
            [f"{first}={report.rows[_row_of(report, t)][first]}" for t in sorted(set(ticks))], fontsize=8
        )
    ax.set_title(f"perfcalc tune: {report.points} points on {len(report.gpus)} products (★ best)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig


def _row_of(report: Any, point: int) -> int:
    return next(i for i, r in enumerate(report.rows) if r["point"] == point)


def save_tune_plot(report: Any, path: str | Path, dpi: int = DEFAULT_DPI) -> Path:
    return save_figure(tune_figure(report), path, dpi)
