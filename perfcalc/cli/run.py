"""`perfcalc run` (simulate a kernel, check it, compare with the model) and `perfcalc kernels`:
parse the options, one call to analysis.analyze, render the RunReport."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from perfcalc.cli.choices import RunEngine
from perfcalc.cli.common import (
    DpiOption,
    Format,
    FormatOption,
    MaxSecondsOption,
    OutputOption,
    show,
    start_output,
    table_option,
)
from perfcalc.cli.name_values import defines, name_values
from perfcalc.cli.options import (
    DEFAULT_REGISTERS,
    ArrayOption,
    BankModeOption,
    BlockOption,
    CatalogOption,
    CcOption,
    CompilerOption,
    DefineOption,
    DynamicSharedOption,
    ExactOption,
    GlobalCacheOption,
    GpusOption,
    GridOption,
    IncludeOption,
    IterationCapOption,
    KernelOption,
    NvccOption,
    ParamOption,
    RegsOption,
    RunEngineOption,
    RunPlotOption,
    SourceOption,
    TritonOption,
)
from perfcalc.cli.relevance import check_plot

RUN_TABLES = (
    "counters, summary, time and caches and cache_lines (with --gpu), lines (per source line); with several --gpu: gpus"
)


def register(app: typer.Typer) -> None:
    app.command("run")(run)
    app.command("kernels")(kernels)


def run(
    kernel_name: Annotated[
        str | None,
        typer.Argument(metavar="[KERNEL]", help="Catalog kernel (see `perfcalc kernels`); omit with --source."),
    ] = None,
    cc: CcOption = None,
    gpu: GpusOption = None,
    param: ParamOption = None,
    catalog_file: CatalogOption = None,
    source: SourceOption = None,
    triton: TritonOption = None,
    kernel: KernelOption = None,
    grid: GridOption = None,
    block: BlockOption = None,
    array: ArrayOption = None,
    define: DefineOption = None,
    include: IncludeOption = None,
    dynamic_shared: DynamicSharedOption = 0,
    cache: GlobalCacheOption = None,
    bank_mode: BankModeOption = None,
    regs: RegsOption = DEFAULT_REGISTERS,
    iteration_cap: IterationCapOption = 1_000_000,
    engine: RunEngineOption = None,
    compiler: CompilerOption = None,
    nvcc: NvccOption = None,
    exact: ExactOption = False,
    max_seconds: MaxSecondsOption = 600.0,
    plot: RunPlotOption = None,
    dpi: DpiOption = 200,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
    table: Annotated[str | None, table_option(RUN_TABLES)] = None,
) -> None:
    """Run a kernel on the execution core, check its result, compare its counters with the model.

    Examples: perfcalc run matmul_tiled --cc 2.0 --param Width=128;
    perfcalc run --source k.cu --kernel scale --grid 4 --block 256 --array x=float32:1024 -p n=1024;
    perfcalc run --triton add.py::add --grid 4 --array x_ptr=float32:1000 ... -p n=1000 -p BLOCK=256
    """
    from perfcalc.analysis.analyze import RunOptions, analyze, engine_choice
    from perfcalc.errors import InputError
    from perfcalc.specs.target import resolve_targets

    start_output(output)
    if triton is not None:
        source, kernel = _triton_reference(triton, source, kernel, define, include, engine)
    _check_kind(kernel_name, source, catalog_file, kernel, grid, block, array, define, dynamic_shared)
    default = RunEngine.source if source is None else RunEngine.auto  # a real .cu needs no option
    chosen, engine_note = engine_choice((engine or default).value) if triton is None else ("triton", None)
    if engine_note:
        typer.echo(engine_note, err=True)
    if include and chosen != "ptx":
        raise InputError("--include-dir works with --engine ptx (the C engine takes no headers)")
    if exact and not gpu:
        raise InputError("--exact goes with --gpu (only a run on a product's caches is sampled)")
    targets = resolve_targets(cc, gpu, default_product=False)
    check_plot(plot, dpi)
    params = name_values(param, "--param")
    what: Any = _kernel(kernel_name, catalog_file, params, source, kernel, grid, block, array, chosen, define, include)
    what = what if source is None else _with_source_options(what, dynamic_shared)
    options = RunOptions(
        chosen,
        None if cache is None else cache.value,
        bank_mode,
        regs,
        iteration_cap,
        exact,
        _progress(),
        None if compiler is None else compiler.value,
        nvcc,
    )
    report = analyze(what, targets, options)
    if plot is not None:
        _plot(report, plot, dpi)
    _show_report(report, fmt, output, table)


def _triton_reference(
    triton: str, source: Any, kernel: Any, define: Any, include: Any, engine: Any
) -> tuple[Path, str]:
    """--triton FILE.py::KERNEL as the file and kernel to run (what goes with it checked)."""
    from perfcalc.errors import InputError

    if source is not None or kernel is not None:
        raise InputError("--triton FILE.py::KERNEL names the file and the kernel: leave out --source and --kernel")
    if define or include or engine is not None:
        raise InputError("--define, --include-dir and --engine go with --source (Triton compiles the Python file)")
    path, sep, name = triton.partition("::")
    if not sep or not name or not path.endswith(".py"):
        raise InputError(f"--triton {triton[:200]!r}: give FILE.py::KERNEL (the @triton.jit function in a Python file)")
    return Path(path), name


def _check_kind(kernel_name: Any, source: Any, catalog_file: Any, *source_only: Any) -> None:
    from perfcalc.errors import InputError

    if (kernel_name is None) == (source is None):
        raise InputError("give either a catalog KERNEL (see `perfcalc kernels`) or --source FILE.cu")
    if source is not None and catalog_file is not None:
        raise InputError("--catalog goes with a catalog KERNEL; --source runs your file instead")
    if source is None and any(source_only):
        raise InputError(
            "--kernel, --grid, --block, --array, --define and --dynamic-shared "
            "go with --source; a catalog kernel takes --param"
        )


def _kernel(
    name: str | None,
    catalog_file: Path | None,
    params: dict[str, Any],
    source: Path | None,
    kernel: str | None,
    grid: str | None,
    block: str | None,
    array: list[str] | None,
    engine: str,
    define: list[str] | None,
    include: list[Path] | None,
) -> Any:
    """The kernel to analyze: a catalog entry, or the user's file with its launch and inputs."""
    from perfcalc.analysis.analyze import CatalogKernel, SourceKernel
    from perfcalc.errors import InputError

    if source is None:
        assert name is not None  # one of KERNEL and --source, checked before
        return CatalogKernel(name, params, catalog_file)
    triton = str(source).endswith(".py")
    for value, option in ((grid, "--grid"), (block, "--block")):
        if value is None and not (triton and option == "--block"):  # a Triton block is 32 x num_warps
            raise InputError(f"{option} is required with --source (e.g. {option} 16,16)")
    return SourceKernel(
        source,
        kernel,
        grid,
        block,
        tuple(array or ()),
        params,
        defines(define, numbers_only=engine != "ptx"),
        include_dirs=tuple(str(d) for d in include or ()),
    )


def _with_source_options(kernel: Any, dynamic_shared: int) -> Any:
    from dataclasses import replace

    return replace(kernel, dynamic_shared_memory_bytes=dynamic_shared)


def _plot(report: Any, plot: Path, dpi: int) -> None:
    """The heat map of the first run's per-line counters (the counts are the run's, whichever
    product's caches it ran on)."""
    from perfcalc.report.run_plot import plot_run

    first = report.run
    doc = first.to_dict()
    title = f"{doc['kernel']} on CC {doc['cc']}: memory work per source line"
    plot_run(title, _source_text(first).splitlines(), doc["per_site"], plot, dpi)


def _source_text(run: Any) -> str:
    from perfcalc.files import read_text
    from perfcalc.specs.kernels import get_kernel

    name = run.source_name
    if name.startswith("kernels.yaml:") or ":" in name and not Path(name).is_file():
        catalog, _, kernel = name.rpartition(":")
        return get_kernel(kernel, None if catalog == "kernels.yaml" else Path(catalog)).source
    return read_text(name, "--source")


def _show_report(report: Any, fmt: Format, output: str | Path | None, table: str | None) -> None:
    from perfcalc.report.run_tables import advice_table, gpu_comparison_table, run_tables

    if len(report.runs) == 1:
        doc = report.to_dict()
        show(run_tables(doc), fmt, output, data=doc, table=table)
        return
    docs = [r.to_dict() for r in report.runs]
    show([gpu_comparison_table(docs), advice_table(docs)], fmt, output, data=report.to_dict(), table=table)


def _progress() -> Any:
    """A progress bar (elapsed time and ETA after one second) when stderr is a terminal."""
    import sys

    if not sys.stderr.isatty():
        return None
    from perfcalc.cli.progress import Progress

    return Progress("simulating")


def kernels(
    name: Annotated[str | None, typer.Argument(metavar="[KERNEL]", help="Show one kernel in full.")] = None,
    catalog_file: Annotated[
        Path | None,
        typer.Option("--catalog", help="Your own kernel catalog (kernels.yaml schema).", dir_okay=False),
    ] = None,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
    table: Annotated[str | None, table_option("kernels (the list); for one kernel: kernel, source")] = None,
) -> None:
    """List the kernel catalog, or show one kernel's source, parameters and model.

    Example: perfcalc kernels matmul_tiled
    """
    from perfcalc.report.run_tables import kernel_detail_tables, kernels_document, kernels_table
    from perfcalc.specs.kernels import catalog, get_kernel, load_kernel_file

    start_output(output)
    if name is not None:
        spec = get_kernel(name, catalog_file)
        show(kernel_detail_tables(spec), fmt, output, data=spec, table=table)
        return
    specs = catalog() if catalog_file is None else load_kernel_file(catalog_file)
    listed = list(specs.values())
    show(kernels_table(listed), fmt, output, data=kernels_document(listed), table=table)
