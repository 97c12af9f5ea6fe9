"""`perfcalc tune`'s tables: every point on every product (one row each, the tidy form a data
frame reads), and the best point per product with its margin over the runner-up."""

from __future__ import annotations

from typing import Any

from perfcalc.report.table import Table


def points_table(report: Any) -> Table:
    columns = list(report.columns())
    return Table(
        columns,
        [dict(r) for r in report.rows],
        title=f"{report.points} points x {len(report.gpus)} products (predicted)",
        headers={"time_s": "predicted time", "error_band": "±"},
        name="points",
        main=True,
        percent=("occupancy", "error_band"),
        none_text={"time_s": "-", "bound": "-", "note": ""},
    )


def best_table(report: Any) -> Table:
    rows = []
    for b in report.best:
        rows.append(
            {
                "gpu": b.gpu,
                "point": b.point if b.point >= 0 else None,
                "configuration": " ".join(f"{k}={v}" for k, v in b.values.items()) or "none could launch",
                "time_s": None if b.point < 0 else b.time_s,
                "bound": b.bound,
                "runner_up": b.runner_up,
                "margin": b.margin,
                "error_band": b.error_band,
                "launched": b.launched,
            }
        )
    return Table(
        ["gpu", "point", "configuration", "time_s", "bound", "runner_up", "margin", "error_band", "launched"],
        rows,
        title="Best configuration per product",
        headers={
            "time_s": "predicted time",
            "runner_up": "runner-up",
            "launched": "points run",
            "error_band": "± (90 % of held-back launches)",
        },
        name="best",
        percent=("margin", "error_band"),
        notes=[
            "margin: how much slower the runner-up point is predicted to be; a margin inside the time "
            "model's error (benchmarks/RESULTS.md) means both points are worth timing on the GPU"
        ],
    )
