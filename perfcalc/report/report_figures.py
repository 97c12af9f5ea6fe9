"""The figures of `perfcalc report`: the roofline of every product with the timed kernels at their
predicted GFLOPS, and per timed kernel its occupancy graphs and its per-line heat map (each as
PNG and SVG bytes, kept in memory until the whole report is ready)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def add_figure(files: dict[str, str | bytes], stem: str, fig: Any, dpi: int) -> None:
    """The figure as PNG (at `dpi`) and SVG, under its stem."""
    from perfcalc.report.figures import figure_bytes

    files[f"{stem}.png"] = figure_bytes(fig, "png", dpi)
    files[f"{stem}.svg"] = figure_bytes(fig, "svg", dpi)


def roofline_chart(products: Sequence[tuple[str, Any, Sequence[Any], Sequence[dict[str, Any]]]]) -> Any:
    """Every product's roofline in one chart: (product key, its Roofline, its timed launch
    reports, their rows of the times table); each kernel at its predicted GFLOPS, named with its
    product when there are several."""
    from perfcalc.report.roofline_plot import on_product, predicted_points, roofline_figure

    predicted = []
    for key, _roof, reports, rows in products:
        predicted += on_product(predicted_points(reports, rows), key, len(products) > 1)
    return roofline_figure([roof for _, roof, _, _ in products], (), predicted)


def occupancy_figure(r: Any, target: Any, title: str) -> Any:
    """The spreadsheet's three graphs at the launch's block size, registers and shared memory."""
    from perfcalc.analysis.perf_answers import launch_sweeps
    from perfcalc.report.occupancy_plot import sweeps_figure

    return sweeps_figure(launch_sweeps(r, target), title)


def lines_figure(r: Any, title: str) -> Any:
    """run --plot's heat map of the launch's per-line counters (extrapolated when sampled)."""
    from perfcalc.report.run_plot import run_figure
    from perfcalc.results import plain
    from perfcalc.specs.kernels import get_kernel

    sites = [{"line": line, "counters": plain(c)} for line, c in sorted(r.sim.per_site.items())]
    return run_figure(title, get_kernel(r.kernel).source.splitlines(), sites)
