"""`perfcalc report`: every table for the catalog kernels on a GPU (or several: each table one long
table with a `gpu` column), the figures, and a front page (index.md, index.html) with one
paragraph per kernel, written into one directory or not at all."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NamedTuple

import typer

from perfcalc.cli.common import DEFAULT_NOTE, DpiOption, MaxSecondsOption

ReportGpuOption = Annotated[
    list[str] | None,
    typer.Option(
        "--gpu",
        help=f"GPU product (g80, v100, h100-sxm, ...; see 'perfcalc devices') [{DEFAULT_NOTE}]; repeat it to "
        "compare products: each table one long table with a gpu column, one roofline chart of them all.",
    ),
]
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


class _Part(NamedTuple):
    """One product's share of the report: its Target, its roofline, its timed launches and its
    tables (file stem -> the CSV table and the Markdown one), filled as the jobs run. (Not a
    dataclass: `dataclasses` is not imported at start-up.)"""

    target: Any
    roof: Any
    reports: list[Any]
    tables: dict[str, tuple[Any, Any]]

    @property
    def key(self) -> str:
        return str(self.target.product().key)


def report(
    gpu: ReportGpuOption = None,
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
    from perfcalc.specs.target import resolve_targets

    _check_directory(output)
    targets = resolve_targets(None, gpu)
    specs = kernel_params(kernel, [])[0] if kernel else list(catalog().values())
    if times:
        from perfcalc.analysis.sampling import check_budget

        check_budget(sample_budget)
    for target in targets:
        analyze_matmul(width, tile, target, simulate=False)  # the shape, checked before any work
    check_dpi(dpi)
    parts = [_Part(target, product_roofline(target), [], {}) for target in targets]
    budget = sample_budget if times else None
    jobs = [(part, _jobs(part.target, part.roof, specs, (width, tile), budget, part.reports)) for part in parts]
    figures = _have_matplotlib()
    steps = sum(len(j) for _, j in jobs) + (len(parts) * (1 + len(specs)) if figures and times else 0)
    progress = Progress("report", total=steps, unit="steps")
    files, sections = _table_files(jobs, progress)
    _front_page(files, sections, parts, figures, dpi, progress)
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


def _table_files(jobs: list[tuple[_Part, list[Job]]], progress: Any) -> tuple[dict[str, str | bytes], list[Any]]:
    """Every table as CSV and Markdown, built before the first file is written: no partial report.
    Several products: each table once, its rows from every product under a `gpu` column."""
    from perfcalc.report import render
    from perfcalc.report.report_index import ReportSection
    from perfcalc.report.roofline_charts import stacked

    for part, part_jobs in jobs:
        for stem, build in part_jobs:
            part.tables[stem] = build()
            progress.step(stem if len(jobs) == 1 else f"{stem} on {part.key}")
    files: dict[str, str | bytes] = {}
    sections = []
    for stem in jobs[0][0].tables:
        csv_table, md_table = jobs[0][0].tables[stem]
        if len(jobs) > 1:
            csv_table = stacked([(p.key, p.roof, p.tables[stem][0]) for p, _ in jobs])
            md_table = stacked([(p.key, p.roof, p.tables[stem][1]) for p, _ in jobs])
        files[f"{stem}.csv"] = render(csv_table, "csv")
        files[f"{stem}.md"] = render(md_table, "markdown")
        sections.append(ReportSection(stem, md_table))
    return files, sections


def _front_page(
    files: dict[str, str | bytes],
    sections: list[Any],
    parts: list[_Part],
    figures: bool,
    dpi: int,
    progress: Any,
) -> None:
    """The figures (when matplotlib is installed) and index.md/index.html, added to `files`."""
    from perfcalc.analysis.launch_advice import advise_launch
    from perfcalc.report.report_figures import add_figure, lines_figure, occupancy_figure, roofline_chart
    from perfcalc.report.report_index import KernelEntry, ReportFigure, ReportPage, index_html, index_markdown

    several = len(parts) > 1
    drawn: list[ReportFigure] = []
    kernels = []
    notes = [
        f"{p.target.product().name} (CC {p.target.arch.cc}): {p.target.product().peak_fp32_gflops:g} GFLOPS "
        f"FP32 peak, {p.target.product().memory_bandwidth_gbs:g} GB/s DRAM."
        for p in parts
    ]
    notes[-1] += " Every number comes from perfcalc's models and its execution core, not from a measurement on " + (
        "these GPUs." if several else "this GPU."
    )
    names = ", ".join(p.target.product().name for p in parts)
    if figures:
        rows = [(p.key, p.roof, p.reports, p.tables["times"][1].rows if "times" in p.tables else []) for p in parts]
        add_figure(files, "roofline-chart", roofline_chart(rows), dpi)
        drawn.append(ReportFigure("roofline-chart", f"Roofline of {names}, kernels at their predicted GFLOPS"))
        for p in parts:
            if p.reports:
                progress.step("roofline figure")
    else:
        notes.append("No figures: they need matplotlib, the 'plot' extra (pip install 'perfcalc[plot]').")
    for p in parts:
        on = f"-{p.key}" if several else ""
        for r in p.reports:
            shown: tuple[ReportFigure, ...] = ()
            if figures:
                where = f" on {p.key}" if several else ""
                shown = (
                    ReportFigure(
                        f"occupancy-{r.kernel}{on}",
                        f"{r.kernel}{where}: occupancy against block size, registers, shared memory",
                    ),
                    ReportFigure(f"lines-{r.kernel}{on}", f"{r.kernel}{where}: memory work per source line"),
                )
                add_figure(files, shown[0].stem, occupancy_figure(r, p.target, shown[0].title), dpi)
                add_figure(files, shown[1].stem, lines_figure(r, shown[1].title), dpi)
                progress.step(f"{r.kernel} figures")
            advice = advise_launch(r, p.target.arch)
            kernels.append(KernelEntry(r.params, r.grid, r.block, advice, shown, p.key if several else None))
    page = ReportPage(f"perfcalc report: {names}", notes, drawn, sections, kernels)
    files["index.md"] = index_markdown(page)
    files["index.html"] = index_html(page)
