"""`perfcalc tune`: the predicted time of every configuration of a kernel on every product, and
the best per product (issue 34). `tune()` is the library's call; the CLI is cli/tune.py.

A sweep is a `Sweep` (the launch, with the space's names in its expressions) over a `Space`;
each point runs through `analyze` once per product, on the backend asked for, and lands in the
results file as it finishes. The report sorts rows by point and product, so it is the same
whatever ran it and in whatever order the points finished.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfcalc.tune.point import Sweep, run_point
from perfcalc.tune.space import Space, space_from

__all__ = ["Best", "Space", "Sweep", "TuneReport", "run_point", "space_from", "tune"]

COLUMNS = ("point", "gpu", "status", "time_s", "bound", "error_band", "occupancy", "registers", "limiters", "note")


@dataclass(frozen=True)
class Best:
    """A product's fastest point, and how much slower the runner-up is (margin 0.08 = 8 %)."""

    gpu: str
    point: int
    values: dict[str, Any]
    time_s: float
    bound: str | None
    runner_up: int | None
    margin: float | None
    launched: int  # points that could launch and ran on this product
    error_band: float | None = None  # 90 % of held-back launches like this one were within it


@dataclass(frozen=True)
class TuneReport:
    """Every row (point x product) in order, the axis names, and the best point per product."""

    names: tuple[str, ...]
    gpus: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]
    best: tuple[Best, ...]
    points: int
    resumed: int  # points read back from the results file rather than run

    def columns(self) -> tuple[str, ...]:
        return ("point", *self.names, *COLUMNS[1:])

    def to_dict(self) -> dict[str, Any]:
        return {
            "axes": list(self.names),
            "gpus": list(self.gpus),
            "points": self.points,
            "best": [b.__dict__ for b in self.best],
            "rows": [dict(r) for r in self.rows],
        }


def tune(
    sweep: Sweep,
    space: Space,
    backend: str = "process",
    workers: int | None = None,
    address: str | None = None,
    results: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> TuneReport:
    """Run every point of `space` for `sweep` (skipping those already in `results`)."""
    from perfcalc.tune.backends import run_points
    from perfcalc.tune.point import check_sweep
    from perfcalc.tune.results import ResultsFile

    points = space.points()
    check_sweep(sweep, points[0])
    store = ResultsFile(results, sweep.fingerprint(space.names))
    resumed = sum(1 for i in store.done if i < len(points))
    todo = [(i, p) for i, p in enumerate(points) if i not in store.done]
    finished = [resumed]

    def done(index: int, rows: list[dict[str, Any]]) -> None:
        store.add(index, rows)
        finished[0] += 1
        if progress is not None:
            progress(finished[0], len(points))

    try:
        run_points(sweep, todo, done, backend, workers, address)
    finally:
        store.close()
    return report_of(sweep, space, points, store.done, resumed)


def report_of(
    sweep: Sweep,
    space: Space,
    points: Sequence[Mapping[str, Any]],
    done: Mapping[int, list[dict[str, Any]]],
    resumed: int,
) -> TuneReport:
    """The rows in (point, product) order and the best point per product."""
    order = {gpu: i for i, gpu in enumerate(sweep.gpus)}
    rows = [row for i in range(len(points)) for row in done[i]]
    rows.sort(key=lambda r: (r["point"], order.get(r["gpu"], len(order)), r["gpu"]))
    gpus = tuple(dict.fromkeys(r["gpu"] for r in rows))
    return TuneReport(
        space.names, gpus, tuple(rows), tuple(_best(rows, g, space.names) for g in gpus), len(points), resumed
    )


def _best(rows: Sequence[dict[str, Any]], gpu: str, names: tuple[str, ...]) -> Best:
    ran = sorted(
        (r for r in rows if r["gpu"] == gpu and r["status"] == "ok" and r["time_s"] is not None),
        key=lambda r: (r["time_s"], r["point"]),
    )
    if not ran:
        return Best(gpu, -1, {}, float("nan"), None, None, None, 0)
    first = ran[0]
    second = ran[1] if len(ran) > 1 else None
    return Best(
        gpu,
        first["point"],
        {n: first[n] for n in names},
        first["time_s"],
        first["bound"],
        None if second is None else second["point"],
        None if second is None else second["time_s"] / first["time_s"] - 1,
        len(ran),
        first.get("error_band"),
    )
