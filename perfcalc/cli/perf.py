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
    device_and_product,
    show,
    start_output,
    table_option,
)

# Execution-core cost of the two seed kernels, seconds per W^3 (one thread-iteration of the
# inner product), measured at W=1024 (CC 1.0 and 9.0 alike) on the 2-core x86-64 sandbox
# (benchmarks/bench_matmul.py, benchmarks/RESULTS.md). Used only to warn before a long simulation.
SIM_SECONDS_PER_W3 = {"naive": 2.0e-9, "tiled": 2.5e-9}
# The PTX engine's, measured at W = 1024 (benchmarks/results_ptx_engine.md: 4.36 s and 6.37 s).
PTX_SECONDS_PER_W3 = {"naive": 4.1e-9, "tiled": 5.9e-9}
WARN_ABOVE_S = 5.0
REFUSE_ABOVE_S = 600.0  # beyond this a simulation is refused: use --no-simulate

GpuOption = Annotated[
    str | None,
    typer.Option("--gpu", help=f"GPU product (g80, v100, h100-sxm, ...; see 'perfcalc devices') [{DEFAULT_NOTE}]."),
]
CcOption = Annotated[
    str | None, typer.Option("--cc", help="Compute capability (7.0, 70, sm_70), a product name, or a device YAML.")
]

if TYPE_CHECKING:  # imported where used: the roofline model is not needed at start-up
    from perfcalc.report.roofline_charts import RooflineChart


def register(app: typer.Typer) -> None:
    app.command("matmul")(matmul)
    app.command("roofline")(roofline)


def gpu_target(gpu: str | None, cc: str | None) -> tuple[Any, Any]:
    """(Arch, Gpu | None) from --gpu / --cc (default: the default product); a product named in
    --cc brings its figures too."""
    return device_and_product(cc, gpu)


def _simulate(kernel: str, params: dict[str, int], arch: Any, engine: str = "source") -> tuple[dict[str, int], str]:
    """Run a catalog kernel on the execution core: its counters and the result check."""
    from perfcalc.sim.references import run_catalog_kernel
    from perfcalc.specs.counters import COUNTER_NAMES
    from perfcalc.specs.kernels import get_kernel

    run = run_catalog_kernel(get_kernel(kernel), params, arch, engine=engine, progress=_bar(kernel, engine))
    counters = {n: getattr(run.result.counters, n) for n in COUNTER_NAMES}
    return counters, _verdict(run.result_check)


def _simulate_on_product(
    kernel: str, params: dict[str, int], arch: Any, engine: str, product: Any, regs: int
) -> tuple[dict[str, int], str, Any]:
    """Run a catalog kernel with the product's L1/L2 model, sampled when large
    (analysis.launch_report): its counters (extrapolated), the result check (none when
    sampled) and the time model's prediction."""
    from perfcalc.analysis.launch_report import analyze_catalog_kernel
    from perfcalc.specs.counters import COUNTER_NAMES
    from perfcalc.specs.kernels import get_kernel

    report = analyze_catalog_kernel(
        get_kernel(kernel), params, product, arch, registers=regs, engine=engine, progress=_bar(kernel, engine)
    )
    counters = {n: getattr(report.counters, n) for n in COUNTER_NAMES}
    if report.result_check is not None:
        verdict = _verdict(report.result_check)
    else:
        verdict = (
            f"not checked: {report.simulated_blocks} of {report.launch_blocks} blocks sampled, counts extrapolated"
        )
    return counters, verdict, report.time


def _bar(kernel: str, engine: str) -> Any:
    """A progress bar (on a terminal, after a second) for one simulation."""
    from perfcalc.cli.progress import Progress

    return Progress(f"simulating {kernel} ({engine})")


def _verdict(check: Any) -> str:
    if check.passed:
        return "pass"
    if check.unwritten:
        return f"fail: {check.unwritten} output elements never written"
    return f"fail: max relative error {check.max_rel_error:.3g} > tolerance {check.tolerance:g} {check.worst}".rstrip()


def simulation_seconds(width: int, engines: tuple[str, ...] = ("source",)) -> float:
    """Expected execution-core time for naive + tiled at this width (measured rates)."""
    rates = {"source": SIM_SECONDS_PER_W3, "ptx": PTX_SECONDS_PER_W3}
    return sum(rate * width**3 for e in engines for rate in rates[e].values())


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
    from perfcalc.errors import InputError
    from perfcalc.model.matmul import (
        CATALOG_KERNELS,
        VARIANTS,
        analyze_matmul,
        catalog_counts,
        check_shape,
        with_prediction,
        with_simulation,
    )
    from perfcalc.report.perf_tables import matmul_rows, matmul_tables
    from perfcalc.specs.kernels import get_kernel

    start_output(output)
    engines = _engines(engine.value)
    arch, product = gpu_target(gpu, cc)
    check_shape(width, tile, arch)
    params = {"Width": width, "TILE_WIDTH": tile}
    analysis = analyze_matmul(width, tile, arch, product, regs, catalog_counts(width, tile, arch), latency)
    if not no_simulate and product is not None:
        for v in VARIANTS:
            vregs = analysis.variant(v).registers_per_thread
            runs = {e: _simulate_on_product(CATALOG_KERNELS[v], params, arch, e, product, vregs) for e in engines}
            counters, verdict, timing = runs[engines[0]]
            if any(not r[1].startswith(("pass", "not checked")) for r in runs.values()):
                verdict = "; ".join(f"{e}: {r[1]}" for e, r in runs.items())
            analysis = with_simulation(
                analysis,
                v,
                counters,
                verdict,
                engines[0],
                {e: r[0] for e, r in runs.items()} if len(engines) > 1 else None,
            )
            analysis = with_prediction(analysis, v, timing)
    elif not no_simulate:
        seconds = simulation_seconds(width, tuple(engines))
        if seconds > REFUSE_ABOVE_S:
            raise InputError(
                f"simulating width {width} would take about {seconds:.0f} s on the execution core "
                f"(limit {REFUSE_ABOVE_S:.0f} s, at the execution core's measured rate); "
                "add --no-simulate for the analytic model alone"
            )
        if seconds > WARN_ABOVE_S:
            typer.echo(
                f"simulating naive and tiled at width {width} on the execution core: about "
                f"{seconds:.0f} s at the benchmarked rate (on a terminal, the progress bar's ETA is measured "
                "from this run's blocks; --no-simulate skips it)",
                err=True,
            )
        for v in VARIANTS:
            checked = {e: _simulate(CATALOG_KERNELS[v], params, arch, e) for e in engines}
            counters, verdict = checked[engines[0]]
            if any(r[1] != "pass" for r in checked.values()):
                verdict = "; ".join(f"{e}: {r[1]}" for e, r in checked.items())
            analysis = with_simulation(
                analysis,
                v,
                counters,
                verdict,
                engines[0],
                {e: r[0] for e, r in checked.items()} if len(engines) > 1 else None,
            )
    data = {"rows": matmul_rows(analysis)} if fmt == Format.json else None
    why = {v: dict(get_kernel(CATALOG_KERNELS[v]).engines_differ) for v in VARIANTS}
    show(matmul_tables(analysis, fmt.value, explain, why), fmt, output, data=data, table=table)


def _engines(engine: str) -> list[str]:
    """--engine: the engines to count with, first the one whose counts the tables compare."""
    from perfcalc.sim.launch import resolve_engine

    choice = engine.strip().lower()
    if choice == "both":
        resolve_engine("ptx")  # one clear line where NVRTC is missing
        return ["source", "ptx"]
    chosen, note = resolve_engine(choice)
    if note:
        typer.echo(note, err=True)
    return [chosen]


def kernel_params(kernels: list[str], param: list[str]) -> tuple[list[Any], dict[str, int]]:
    """Catalog specs and the --param overrides (each must belong to at least one kernel)."""
    from perfcalc.errors import InputError
    from perfcalc.specs.kernels import get_kernel

    specs = [get_kernel(k) for k in kernels]
    overrides: dict[str, int] = {}
    for text in param:
        name, sep, value = text.partition("=")
        try:
            overrides[name.strip()] = int(value)
        except ValueError:
            sep = ""
        if not sep:
            raise InputError(f"--param {text!r}: expected NAME=INTEGER, e.g. Width=1024")
        if not any(name.strip() in s.defaults for s in specs):
            raise InputError(
                f"--param {text!r}: no kernel given with --kernel has a parameter "
                f"{name.strip()!r} (kernels.yaml params)"
            )
    return specs, overrides


def _kernel_point(spec: Any, overrides: dict[str, int], arch: Any) -> tuple[Any, str]:
    """A catalog kernel's flops and transaction bytes -> its intensity, with a label."""
    from perfcalc.model.predict import predict

    params = {k: v for k, v in overrides.items() if k in spec.defaults}
    p = predict(spec, params, arch)
    moved = p.global_load_bytes + p.global_store_bytes
    label = spec.name + ("(" + ", ".join(f"{k}={v}" for k, v in p.params.items()) + ")" if p.params else "")
    return (p.flops, moved), label


def catalog_launch_report(
    spec: Any, overrides: dict[str, int], product: Any, arch: Any, budget_s: float | None = None
) -> Any:
    """analysis.launch_report for a catalog kernel with the overrides that are its own."""
    from perfcalc.analysis.launch_report import analyze_catalog_kernel
    from perfcalc.analysis.sampling import DEFAULT_BUDGET_S

    own = {k: v for k, v in overrides.items() if k in spec.defaults}
    return analyze_catalog_kernel(spec, own, product, arch, budget_s=DEFAULT_BUDGET_S if budget_s is None else budget_s)


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
    if plot is not None:
        from perfcalc.report.figures import check_figure_path

        check_figure_path(plot)
    if param and not kernel:
        raise InputError("--param needs --kernel (the catalog kernel it applies to)")
    keys: list[str | None] = list(gpu) if gpu else [None]
    if len(set(keys)) != len(keys):
        raise InputError(f"--gpu repeats a product ({', '.join(str(k) for k in keys)}): name each once")
    charts = [_chart(key, kernel or [], param or [], intensity_values or []) for key in keys]
    if len(charts) == 1:
        tables, data = charts[0].tables, charts[0].data
    else:
        from perfcalc.report.roofline_charts import compared

        tables, data = compared(charts)
    show(tables, fmt, output, data=data if fmt == Format.json else None, table=table)
    if plot is not None:
        from dataclasses import replace

        from perfcalc.report.roofline_plot import plot_roofline

        def named(chart: RooflineChart, points: list[Any]) -> list[Any]:  # several products: whose each is
            return [replace(p, label=f"{p.label} on {chart.gpu}") for p in points] if len(charts) > 1 else points

        plot_roofline(
            [c.roof for c in charts],
            [p for c in charts for p in named(c, c.points)],
            plot,
            dpi,
            predicted=[q for c in charts for q in named(c, c.predicted_points)],
        )


def _chart(gpu: str | None, kernels: list[str], param: list[str], intensities: list[float]) -> RooflineChart:
    """One product's roofline: its tables, its JSON document and what the figure draws."""
    from perfcalc.model.roofline import intensity, place
    from perfcalc.model.roofline import roofline as build_roofline
    from perfcalc.report.perf_tables import ceilings_table, launch_reports_table, points_table, roofline_curve_table
    from perfcalc.report.roofline_charts import RooflineChart

    arch, product = gpu_target(gpu, None)
    roof = build_roofline(product, arch)
    points = [place(roof, x, f"I = {x:g}") for x in intensities]
    notes: list[str] = []
    predicted_tables, reports = [], []
    if kernels:
        specs, overrides = kernel_params(kernels, param)
        reports = [catalog_launch_report(spec, overrides, product, arch) for spec in specs]
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
        for spec in specs:
            (flops, moved), label = _kernel_point(spec, overrides, arch)
            if not flops:  # a copy or transpose has no place on a flops roofline
                notes.append(
                    f"{label}: no floating-point operations, so no point on the roofline "
                    f"(it is bound by memory alone: {moved} bytes moved)."
                )
                continue
            points.append(place(roof, intensity(flops, moved), label))
        notes.append(
            "Kernel intensity = predicted flops / bytes moved by the predicted global "
            "transactions for this CC (DRAM traffic if no cache reuses them)."
        )
    samples = [2.0**e for e in range(-4, 11)]
    ceilings, curve = ceilings_table(roof), roofline_curve_table(roof, samples)
    tables = [ceilings, curve]
    if points or notes:
        tables.append(points_table(points, notes))
    tables += predicted_tables
    data = {  # the roofline, then every table under its name (JSON = table)
        "roofline": roof,
        "ceilings": ceilings.rows,
        "curve": curve.rows,
        "points": points,
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
    return RooflineChart(product.key, roof, tables, data, points, drawn)
