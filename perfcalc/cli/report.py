"""`perfcalc report`: every table for the catalog kernels on a GPU, the figures, and a front page
(index.md, index.html) with one paragraph per kernel, written into one directory or not at all."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

from perfcalc.cli.common import DpiOption, MaxSecondsOption
from perfcalc.cli.perf import OneGpuOption, gpu_target

ReportDirOption = Annotated[
    str,
    typer.Option(
        "--output",
        "-o",
        help="Directory to write the tables, figures and index.md/index.html into (all of them, or none).",
    ),
]
ReportKernelOption = Annotated[
    list[str] | None,
    typer.Option("--kernel", "-k", help="Catalog kernel to include (repeatable; default: every one)."),
]
WidthOption = Annotated[int, typer.Option("--width", help="Matrix width for the matmul table.")]
TileOption = Annotated[int, typer.Option("--tile", help="TILE_WIDTH for the matmul table.")]
TimesOption = Annotated[
    bool,
    typer.Option(
        "--times/--no-times",
        help="Also simulate each kernel at its realistic size (kernels.yaml 'realistic') for occupancy, "
        "predicted time, bound and the per-kernel paragraphs (a few seconds each).",
    ),
]
SampleBudgetOption = Annotated[
    float,
    typer.Option("--sample-budget", help="Seconds of simulation per kernel before a launch is sampled.", min=0.01),
]


def register(app: typer.Typer) -> None:
    app.command("report")(report)


def _check_directory(output: str) -> None:
    from perfcalc.errors import OutputError

    if not output:
        raise OutputError("cannot write to an empty path: name a directory")
    from perfcalc.report.output import NAME_MAX

    longest = max((len(os.fsencode(part)) for part in Path(output).parts), default=0)
    if longest > NAME_MAX:
        raise OutputError(f"cannot create {output[:40]}...: a name of {longest} bytes, over the limit of {NAME_MAX}")
    if Path(output).exists() and not Path(output).is_dir():
        raise OutputError(f"cannot write the report into {output}: it is a file, not a directory")
    if not Path(output).parent.is_dir():
        raise OutputError(f"cannot create {output}: directory {Path(output).parent} does not exist")


def _have_matplotlib() -> bool:
    """Whether the 'plot' extra is installed (the report is written without figures if not)."""
    from perfcalc.errors import OutputError
    from perfcalc.report.figures import matplotlib_module

    try:
        matplotlib_module()
    except OutputError:
        return False
    return True


def report(
    gpu: OneGpuOption = None,
    output: ReportDirOption = "perfcalc-report",
    kernel: ReportKernelOption = None,
    width: WidthOption = 1024,
    tile: TileOption = 16,
    times: TimesOption = True,
    sample_budget: SampleBudgetOption = 5.0,
    dpi: DpiOption = 200,
    max_seconds: MaxSecondsOption = 600.0,
) -> None:
    """A report on a GPU: tables (CSV, Markdown), figures (PNG, SVG) and index.md/index.html.

    Example: perfcalc report --gpu v100 --output report/
    """
    from perfcalc.analysis.perf_answers import kernel_params, product_roofline
    from perfcalc.analysis.perf_answers import matmul as analyze_matmul
    from perfcalc.cli.progress import Progress
    from perfcalc.report.figures import check_dpi
    from perfcalc.specs.kernels import catalog

    _check_directory(output)
    target = gpu_target(gpu, None)
    specs = kernel_params(kernel, [])[0] if kernel else list(catalog().values())
    if times:
        from perfcalc.analysis.sampling import check_budget

        check_budget(sample_budget)
    analyze_matmul(width, tile, target, simulate=False)  # the shape, checked before any work
    check_dpi(dpi)
    roof = product_roofline(target)
    reports: list[Any] = []
    jobs = _jobs(target, roof, specs, (width, tile), sample_budget if times else None, reports)
    figures = _have_matplotlib()
    progress = Progress("report", total=len(jobs) + (1 + len(specs) if figures and times else 0), unit="steps")
    files, sections = _table_files(jobs, progress)
    _front_page(files, sections, reports, roof, target, figures, dpi, progress)
    progress.close()  # kernels that could not launch leave steps undone: the bar must not stay

    from perfcalc.report.output import make_directory, write_atomic

    directory = make_directory(output)  # removed again if a file fails (all_or_nothing)
    for file_name, content in files.items():
        write_atomic(directory / file_name, content, follow_link=False)  # a planted link is replaced
    typer.echo(f"wrote {len(files)} files to {output}: index.html, index.md and {len(files) - 2} tables and figures")


Job = tuple[str, Callable[[], tuple[Any, Any]]]


def _jobs(
    target: Any, roof: Any, specs: list[Any], shape: tuple[int, int], budget: float | None, reports: list[Any]
) -> list[Job]:
    """(file stem, a builder of its CSV table and its Markdown table); the Markdown one is the one
    shown on the page. With a sample `budget`, the kernels are also timed (into `reports`)."""
    from perfcalc.analysis.perf_answers import catalog_launch_report, catalog_rows
    from perfcalc.analysis.perf_answers import matmul as analyze_matmul
    from perfcalc.errors import InputError
    from perfcalc.report.perf_tables import (
        ceilings_table,
        kernels_table,
        launch_reports_table,
        matmul_flat_table,
        matmul_side_by_side,
        roofline_curve_table,
    )

    product = target.product()

    def kernels() -> Any:
        rows, notes = catalog_rows(roof, target, specs)
        return kernels_table(rows, f"Catalog kernels on {product.name} (default parameters)", notes)

    def timed() -> Any:
        skipped = []
        for spec in specs:
            try:
                reports.append(catalog_launch_report(spec, dict(spec.realistic), target, budget))
            except InputError as exc:  # e.g. a grid too large for CC 1.x
                skipped.append(f"{spec.name} not timed at its realistic size: {exc}")
        return launch_reports_table(
            reports,
            roof,
            f"Catalog kernels on {product.name} at realistic sizes: occupancy, predicted time, bound",
            [
                "Each kernel at its kernels.yaml 'realistic' parameters, run on the execution core "
                "with the product's L1/L2 model (sampled where large) and timed by the time model "
                "(model/time_model.py); registers assumed 32 per thread (the C engine does not "
                "compile).",
                *skipped,
            ],
        )

    matmul = analyze_matmul(shape[0], shape[1], target, simulate=False)
    return [
        ("ceilings", lambda: (ceilings_table(roof),) * 2),
        ("roofline", lambda: (roofline_curve_table(roof, [2.0**e for e in range(-4, 11)]),) * 2),
        ("kernels", lambda: (kernels(),) * 2),
        ("matmul", lambda: (matmul_flat_table(matmul), matmul_side_by_side(matmul))),
        *([("times", lambda: (timed(),) * 2)] if budget is not None else []),
    ]


def _table_files(jobs: list[Job], progress: Any) -> tuple[dict[str, str | bytes], list[Any]]:
    """Every table as CSV and Markdown, built before the first file is written: no partial report."""
    from perfcalc.report import render
    from perfcalc.report.report_index import ReportSection

    files: dict[str, str | bytes] = {}
    sections = []
    for stem, build in jobs:
        csv_table, md_table = build()
        files[f"{stem}.csv"] = render(csv_table, "csv")
        files[f"{stem}.md"] = render(md_table, "markdown")
        sections.append(ReportSection(stem, md_table))
        progress.step(stem)
    return files, sections


def _front_page(
    files: dict[str, str | bytes],
    sections: list[Any],
    reports: list[Any],
    roof: Any,
    target: Any,
    figures: bool,
    dpi: int,
    progress: Any,
) -> None:
    """The figures (when matplotlib is installed) and index.md/index.html, added to `files`."""
    arch, product = target.arch, target.product()
    from perfcalc.analysis.launch_advice import advise_launch
    from perfcalc.report.report_index import KernelEntry, ReportFigure, ReportPage, index_html, index_markdown

    drawn: list[ReportFigure] = []
    kernels = []
    notes = [
        f"{product.name} (CC {arch.cc}): {product.peak_fp32_gflops:g} GFLOPS FP32 peak, "
        f"{product.memory_bandwidth_gbs:g} GB/s DRAM. Every number comes from perfcalc's models and its "
        "execution core, not from a measurement on this GPU."
    ]
    if figures:
        from perfcalc.report.roofline_plot import predicted_points, roofline_figure

        timed = next((s.table for s in sections if s.stem == "times"), None)
        predicted = predicted_points(reports, timed.rows) if timed is not None else []
        _add_figure(files, "roofline-chart", roofline_figure(roof, (), predicted), dpi)
        drawn.append(ReportFigure("roofline-chart", f"Roofline of {product.name}, kernels at their predicted GFLOPS"))
        if reports:
            progress.step("roofline figure")
    else:
        notes.append("No figures: they need matplotlib, the 'plot' extra (pip install 'perfcalc[plot]').")
    for r in reports:
        shown: tuple[ReportFigure, ...] = ()
        if figures:
            shown = (
                ReportFigure(
                    f"occupancy-{r.kernel}", f"{r.kernel}: occupancy against block size, registers, shared memory"
                ),
                ReportFigure(f"lines-{r.kernel}", f"{r.kernel}: memory work per source line"),
            )
            _add_figure(files, shown[0].stem, _occupancy_figure(r, target, shown[0].title), dpi)
            _add_figure(files, shown[1].stem, _lines_figure(r, shown[1].title), dpi)
            progress.step(f"{r.kernel} figures")
        kernels.append(KernelEntry(r.params, r.grid, r.block, advise_launch(r, arch), shown))
    page = ReportPage(f"perfcalc report: {product.name}", notes, drawn, sections, kernels)
    files["index.md"] = index_markdown(page)
    files["index.html"] = index_html(page)


def _add_figure(files: dict[str, str | bytes], stem: str, fig: Any, dpi: int) -> None:
    """The figure as PNG (at `dpi`) and SVG, under its stem."""
    from perfcalc.report.figures import figure_bytes

    files[f"{stem}.png"] = figure_bytes(fig, "png", dpi)
    files[f"{stem}.svg"] = figure_bytes(fig, "svg", dpi)


def _occupancy_figure(r: Any, target: Any, title: str) -> Any:
    """The spreadsheet's three graphs at the launch's block size, registers and shared memory."""
    from perfcalc.analysis.perf_answers import launch_sweeps
    from perfcalc.report.occupancy_plot import sweeps_figure

    return sweeps_figure(launch_sweeps(r, target), title)


def _lines_figure(r: Any, title: str) -> Any:
    """run --plot's heat map of the launch's per-line counters (extrapolated when sampled)."""
    from perfcalc.report.run_plot import run_figure
    from perfcalc.results import plain
    from perfcalc.specs.kernels import get_kernel

    sites = [{"line": line, "counters": plain(c)} for line, c in sorted(r.sim.per_site.items())]
    return run_figure(title, get_kernel(r.kernel).source.splitlines(), sites)
