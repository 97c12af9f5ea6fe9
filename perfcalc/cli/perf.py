"""`perfcalc matmul`, `perfcalc roofline`: CGMA, roofline and time on a GPU (report: cli/report.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from perfcalc.cli.choices import MatmulEngine
from perfcalc.cli.common import (
    DEFAULT_NOTE,
    DpiOption,
    Format,
    FormatOption,
    MaxSecondsOption,
    OutputOption,
    effective_format,
    show,
    start_output,
    table_option,
)
from perfcalc.cli.relevance import check_plot

WARN_ABOVE_S = 5.0

GpuOption = Annotated[
    list[str] | None,
    typer.Option(
        "--gpu",
        help=f"GPU product (g80, v100, h100-sxm, ...; see 'perfcalc devices') [{DEFAULT_NOTE}]; repeat it to "
        "compare products (CSV: one row per product and variant).",
    ),
]
CcOption = Annotated[
    str | None, typer.Option("--cc", help="Compute capability (7.0, 70, sm_70), a product name, or a device YAML.")
]

if TYPE_CHECKING:  # imported where used: the roofline model is not needed at start-up
    from perfcalc.report.roofline_charts import RooflineChart


def register(app: typer.Typer) -> None:
    app.command("matmul")(matmul)
    app.command("roofline")(roofline)


def gpu_target(gpu: str | None, cc: str | None) -> Any:
    """The Target of --gpu / --cc (default: the default product); a product named in --cc
    brings its figures too."""
    from perfcalc.specs.target import resolve_target

    return resolve_target(cc, gpu)


def _bar(kernel: str, engine: str) -> Any:
    """A progress bar (on a terminal, after a second) for one simulation."""
    from perfcalc.cli.progress import Progress

    return Progress(f"simulating {kernel} ({engine})")


def matmul(
    width: Annotated[int, typer.Option("--width", "-w", help="Matrix width W (W x W).")] = 1024,
    tile: Annotated[int, typer.Option("--tile", "-t", help="TILE_WIDTH: block edge and tile.")] = 16,
    gpu: GpuOption = None,
    cc: CcOption = None,
    regs: Annotated[
        int | None,
        typer.Option(
            "--regs",
            help="Registers per thread for occupancy (default: ptxas -v of the lecture notes' kernels, see --explain).",
        ),
    ] = None,
    latency: Annotated[
        float | None,
        typer.Option(
            "--latency-cycles",
            help="DRAM latency in cycles for Little's law (default: the CC's "
            "measured figure in devices/timing.yaml, else lecture notes 003's 400).",
        ),
    ] = None,
    no_simulate: Annotated[
        bool, typer.Option("--no-simulate", help="Skip the execution-core run (predictions only).")
    ] = False,
    engine: Annotated[
        MatmulEngine,
        typer.Option(
            "--engine",
            help="Which engine counts: source (the C subset as written), ptx (as "
            "NVRTC compiles it), auto (ptx where NVRTC works), or both side by side.",
            case_sensitive=False,
        ),
    ] = MatmulEngine.source,
    explain: Annotated[bool, typer.Option("--explain", help="Print every figure with its formula and inputs.")] = False,
    max_seconds: MaxSecondsOption = 600.0,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
    table: Annotated[
        str | None,
        table_option(
            "variants (one row per variant in CSV), counters, engines (with --engine both), explain (with --explain)"
        ),
    ] = None,
) -> None:
    """The lecture notes' naive vs tiled matrix-multiply analysis for any width, tile and GPU.

    Example: perfcalc matmul --width 1024 --tile 16 --gpu g80 --no-simulate
    """
    from perfcalc.analysis.perf_answers import engines_differ
    from perfcalc.errors import InputError
    from perfcalc.report.perf_tables import matmul_rows, matmul_tables

    start_output(output)
    engines = _engines(engine.value)
    gpus = list(gpu or [])
    if len(gpus) > 1 and cc is not None:
        raise InputError("several --gpu each bring their CC: leave out --cc, or give one --gpu")
    if len({g.lower() for g in gpus}) < len(gpus):
        twice = next(g for g in gpus if gpus.count(g) > 1)
        raise InputError(f"--gpu {twice} is given twice; give each product once")
    shape = effective_format(fmt, output).value
    settings = (width, tile, regs, latency, engines, not no_simulate)
    names: list[str | None] = [*gpus] or [None]
    analyses = [_matmul_on(name, cc, settings) for name in names]
    rows = [row for a in analyses for row in matmul_rows(a)]
    data = {"rows": rows} if fmt == Format.json else None
    tables = [matmul_tables(a, shape, explain, engines_differ()) for a in analyses]
    if len(tables) > 1 and shape == "csv":  # one frame: every product's variant rows under one header
        first = tables[0][0]
        first.rows = [r for t in tables for r in t[0].rows]
        shown = [first, *[t for per in tables for t in per[1:]]]
    else:
        shown = [t for per in tables for t in per]
    show(shown, fmt, output, data=data, table=table)


def _matmul_on(name: str | None, cc: str | None, settings: tuple[Any, ...]) -> Any:
    """The seed's matmul analysis on one product (or --cc), announcing a long simulation first."""
    from perfcalc.analysis.perf_answers import REFUSE_ABOVE_S, simulation_seconds
    from perfcalc.analysis.perf_answers import matmul as analyze_matmul
    from perfcalc.units import seconds as seconds_text

    width, tile, regs, latency, engines, simulate = settings
    target = gpu_target(name, cc)
    seconds = simulation_seconds(width, tuple(engines))
    if simulate and target.gpu is None and seconds > WARN_ABOVE_S:
        analyze_matmul(width, tile, target, simulate=False)  # a shape the device refuses fails first
        if seconds <= REFUSE_ABOVE_S:
            typer.echo(
                f"simulating naive and tiled at width {width} on the execution core: about "
                f"{seconds_text(seconds)} at the benchmarked rate (on a terminal, the progress bar's ETA is measured "
                "from this run's blocks; --no-simulate skips it)",
                err=True,
            )
    return analyze_matmul(
        width, tile, target, registers=regs, latency_cycles=latency, engines=engines, simulate=simulate, bar=_bar
    )


def _engines(engine: str) -> list[str]:
    """--engine: the engines to count with, first the one whose counts the tables compare."""
    from perfcalc.analysis.analyze import engine_choice as resolve_engine

    choice = engine.strip().lower()
    if choice == "both":
        resolve_engine("ptx")  # one clear line where NVRTC is missing
        return ["source", "ptx"]
    chosen, note = resolve_engine(choice)
    if note:
        typer.echo(note, err=True)
    return [chosen]


def roofline(
    gpu: Annotated[
        list[str] | None,
        typer.Option(
            "--gpu",
            help=f"GPU product (g80, v100, h100-sxm, ...; see 'perfcalc devices') [{DEFAULT_NOTE}]; repeat it to "
            "compare products in one chart and one table.",
        ),
    ] = None,
    kernel: Annotated[
        list[str] | None, typer.Option("--kernel", "-k", help="Catalog kernel to place (repeatable).")
    ] = None,
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="Kernel parameter NAME=VALUE (repeatable).")
    ] = None,
    intensity_values: Annotated[
        list[float] | None,
        typer.Option("--intensity", "-i", help="Arithmetic intensity (flop/byte) to place (repeatable)."),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            help="Also draw the roofline to FILE.png, .svg or .pdf, kernels at their predicted performance "
            "(needs perfcalc[plot]).",
            dir_okay=False,
        ),
    ] = None,
    dpi: DpiOption = 200,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
    table: Annotated[
        str | None, table_option("ceilings, curve, points (with --kernel or --intensity), predicted (with --kernel)")
    ] = None,
) -> None:
    """The roofline of a GPU (or several) as a table: ceilings, the curve, and kernels placed on it.

    Example: perfcalc roofline --gpu v100 --kernel matmul_tiled --param Width=1024
    """
    from perfcalc.errors import InputError

    start_output(output)
    check_plot(plot, dpi)
    if param and not kernel:
        raise InputError("--param needs --kernel (the catalog kernel it applies to)")
    keys: list[str | None] = list(gpu) if gpu else [None]
    if len(set(keys)) != len(keys):
        raise InputError(f"--gpu repeats a product ({', '.join(str(k) for k in keys)}): name each once")
    charts = [_chart(key, kernel or [], param or [], intensity_values or []) for key in keys]
    from perfcalc.report.roofline_charts import compared

    merged, data = compared(charts)  # JSON: one shape, whatever the number of --gpu (issue 35)
    tables = charts[0].tables if len(charts) == 1 else merged
    show(tables, fmt, output, data=data if fmt == Format.json else None, table=table)
    if plot is not None:
        from perfcalc.report.roofline_plot import on_product, plot_roofline

        several = len(charts) > 1
        plot_roofline(
            [c.roof for c in charts],
            [p for c in charts for p in on_product(c.points, c.gpu, several)],
            plot,
            dpi,
            predicted=[q for c in charts for q in on_product(c.predicted_points, c.gpu, several)],
        )


def _chart(gpu: str | None, kernels: list[str], param: list[str], intensities: list[float]) -> RooflineChart:
    """One product's roofline: its tables, its JSON document and what the figure draws."""
    from perfcalc.analysis.perf_answers import roofline_answer
    from perfcalc.report.perf_tables import ceilings_table, launch_reports_table, points_table, roofline_curve_table
    from perfcalc.report.roofline_charts import RooflineChart

    answer = roofline_answer(gpu_target(gpu, None), kernels, param, intensities)
    roof, product, reports = answer.roof, answer.target.product(), answer.reports
    predicted_tables = []
    if kernels:
        predicted_tables.append(
            launch_reports_table(
                reports,
                roof,
                f"Kernels at their predicted performance on {product.name}",
                [
                    "Predicted by the time model on a simulated run with the product's L1/L2 model "
                    "(perfcalc run --gpu explains each term); the roof is the one at the kernel's "
                    "intensity against the DRAM bytes that model leaves."
                ],
            )
        )
    samples = [2.0**e for e in range(-4, 11)]
    ceilings, curve = ceilings_table(roof), roofline_curve_table(roof, samples)
    tables = [ceilings, curve]
    if answer.points or answer.notes:
        tables.append(points_table(answer.points, answer.notes))
    tables += predicted_tables
    data = {  # the roofline, then every table under its name (JSON = table)
        "roofline": roof,
        "ceilings": ceilings.rows,
        "curve": curve.rows,
        "points": answer.points,
        # each launch's report with its table row (the roof there and the fraction of it)
        "predicted": [{**row, **r.to_dict()} for r, row in zip(reports, predicted_tables[0].rows, strict=True)]
        if kernels
        else [],
    }
    if kernels:
        from perfcalc.report.roofline_plot import predicted_points

        drawn = predicted_points(reports, predicted_tables[0].rows)
    else:
        drawn = []
    return RooflineChart(product.key, roof, tables, data, answer.points, drawn)
