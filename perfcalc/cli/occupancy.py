"""`perfcalc occupancy`: one configuration, the spreadsheet's sweeps, a block-size suggestion,
or every kernel of a ptxas log, with what to change.

Parsing only: every number is checked by the engine (perfcalc.model.occupancy), which names
the value, the limit and the device-file key in its InputError. Core modules are imported
inside the command so the answer stays fast (matplotlib only for --plot).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from perfcalc.cli import occupancy_inputs as opts
from perfcalc.cli.choices import CacheConfig
from perfcalc.cli.common import (
    DpiOption,
    Format,
    FormatOption,
    OutputOption,
    show,
    start_output,
)
from perfcalc.cli.occupancy_inputs import (
    dynamic_bytes,
    parse_bytes,
    parse_carveout,
    parse_count,
    parse_dynamic,
    parse_sweeps,
    require,
)
from perfcalc.cli.occupancy_kernels import compiled_resources, ptxas_command
from perfcalc.cli.relevance import check_plot, refuse_unused
from perfcalc.errors import InputError


def register(app: typer.Typer) -> None:
    app.command("occupancy")(occupancy)


def occupancy(
    cc: opts.CcOpt = None,
    block: opts.BlockOpt = None,
    regs: opts.RegsOpt = None,
    smem: opts.SmemOpt = "0",
    dyn_smem: opts.DynSmemOpt = "0",
    carveout: opts.CarveoutOpt = "default",
    cache_config: opts.CacheConfigOpt = CacheConfig.none,
    barriers: opts.BarriersOpt = "1",
    sweep: opts.SweepOpt = None,
    plot: opts.PlotOpt = None,
    dpi: DpiOption = 200,
    suggest: opts.SuggestOpt = False,
    gpu: opts.GpuOpt = None,
    grid: opts.GridOpt = None,
    ptxas: opts.PtxasOpt = None,
    source: opts.SourceOpt = None,
    kernel: opts.KernelOpt = None,
    define: opts.DefineOpt = None,
    show_limits: opts.ShowLimitsOpt = False,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
    table: opts.TableOpt = None,
) -> None:
    """Theoretical occupancy of a kernel configuration and what limits it.

    Example: perfcalc occupancy --cc 7.0 --block 256 --regs 32
    """
    start_output(output)
    if source is None:
        refuse_unused(["kernel", "define"], "--source", "a configuration without --source")
    gpus = _gpus(gpu, (cc, source, ptxas, plot), bool(sweep) or suggest)
    gpu_one = gpus[0] if len(gpus) == 1 else None
    threads, registers = parse_count(block, "--block"), parse_count(regs, "--regs")
    axes = parse_sweeps(sweep)
    check_plot(plot, dpi)
    static, dynamic_spec = parse_bytes(smem, "--smem"), parse_dynamic(dyn_smem)
    dynamic = (
        dynamic_bytes(dynamic_spec, threads)
        if threads is not None
        else (dynamic_spec if isinstance(dynamic_spec, int) else 0)
    )
    from perfcalc.analysis.occupancy_answers import Settings

    settings = Settings(
        static,
        dynamic,
        parse_carveout(carveout),
        None if cache_config is CacheConfig.none else cache_config.value,
        parse_count(barriers, "--barriers") or 0,
    )
    if source is not None:
        if ptxas is not None or registers is not None or static:
            raise InputError("--regs, --smem and --ptxas come from compiling --source; leave them out")
        if axes or plot is not None:
            raise InputError("--sweep and --plot work on --regs/--smem; use them without --source")
        kernels, cc = compiled_resources(source, kernel, define, cc, gpu_one)
        ptxas_command(None, cc, threads, suggest, settings, fmt, output, table, kernels=kernels)
        return
    if ptxas is not None:
        if registers is not None or static:
            raise InputError(
                "--regs and --smem come from the ptxas file; leave them out with --ptxas (--dyn-smem still applies)"
            )
        if axes or plot is not None:
            raise InputError("--sweep and --plot work on one configuration; use --regs and --smem instead of --ptxas")
        if gpu is not None or grid is not None:
            raise InputError("--gpu and --grid work on one configuration; leave them out with --ptxas")
        ptxas_command(ptxas, cc, threads, suggest, settings, fmt, output, table)
        return
    grid_blocks = _grid_blocks(grid)
    if len(gpus) > 1:
        _per_gpu(gpus, grid_blocks, threads, registers, settings)(fmt, output, table)
        return
    arch, product = _device(cc, gpu_one)
    _single_or_sweeps(
        arch, product, grid_blocks, threads, registers, settings, dynamic_spec, (suggest, axes, plot, dpi, show_limits)
    )(fmt, output, table)


def _single_or_sweeps(
    arch: Any,
    product: Any,
    grid_blocks: int | None,
    threads: int | None,
    registers: int | None,
    settings: Any,
    dynamic_spec: int | str,
    asked: tuple[bool, tuple[str, ...], Path | None, int, bool],
) -> Any:
    """The sections of one configuration (and its sweeps, suggestion, waves); returns the show."""
    suggest, axes, plot, dpi, show_limits = asked
    if grid_blocks is not None and product is None:
        raise InputError(
            "--grid needs a GPU product for its SM count: give --gpu NAME (e.g. --gpu h100-sxm) or a product as --cc"
        )
    registers = require(registers, "--regs", "(registers per thread, from ptxas -v), or give --ptxas FILE")
    sections: list[tuple[str, list[Any], Any]] = []
    if suggest:
        sections.append(_suggest_section(arch, registers, threads, settings, dynamic_spec, product))
    if axes or plot is not None:
        block = _checked_block(threads, "with --sweep/--plot (the current point)")
        sweeps = _sweep_section(
            arch, block, registers, settings, axes or ("block", "regs", "smem"), plot, dynamic_spec, dpi
        )
        if axes:
            sections.append(sweeps)
    if not suggest and not axes:
        section = _single_section(arch, _checked_block(threads, ""), registers, settings)
        for t in section[1]:  # 18 rows that are the CC's, not the kernel's: `devices show` has them too
            t.on_request = t.key == "device_limits" and not show_limits
        sections.append(section)
        if grid_blocks is not None:
            assert product is not None
            sections.append(_waves_section(section[2]["active_blocks_per_sm"], grid_blocks, product))
    elif grid_blocks is not None:
        raise InputError("--grid works on one configuration: leave out --suggest and --sweep")
    return lambda fmt, output, table: _show(sections, fmt, output, table)


def _gpus(gpu: list[str] | None, one_device: tuple[Any, ...], sweep_or_suggest: bool) -> list[str]:
    """The --gpu products; several compare one configuration, so what needs one device is refused."""
    gpus = list(gpu or [])
    if len(gpus) > 1 and (any(x is not None for x in one_device) or sweep_or_suggest):
        raise InputError(
            "several --gpu compare one configuration (--block, --regs, --smem, --grid): leave out --cc, "
            "--source, --ptxas, --sweep, --plot and --suggest, or give one --gpu"
        )
    return gpus


def _per_gpu(
    gpus: list[str], grid_blocks: int | None, threads: int | None, registers: int | None, settings: Any
) -> Any:
    """One configuration on several products: a tidy table, one row per GPU (issue 35)."""
    from perfcalc.analysis.occupancy_answers import configuration, grid_waves
    from perfcalc.report.occupancy_tables import gpus_table, occupancy_document, occupancy_json
    from perfcalc.report.render import to_jsonable

    block = _checked_block(threads, "")
    regs = require(registers, "--regs", "(registers per thread, from ptxas -v), or give --ptxas FILE")
    docs = []
    for name in gpus:
        arch, product = _device(None, name)
        doc = {
            "gpu": product.key,
            "sm_count": product.sm_count,
            **occupancy_document(arch, configuration(arch, block, regs, settings)),
        }
        if grid_blocks is not None:
            doc["waves"] = to_jsonable(grid_waves(grid_blocks, doc["active_blocks_per_sm"], product))
        docs.append(doc)
    twice = sorted({d["gpu"] for d in docs if [e["gpu"] for e in docs].count(d["gpu"]) > 1})
    if twice:
        raise InputError(f"--gpu {twice[0]} is given twice; give each product once")
    data = occupancy_json(gpus=docs)
    return lambda fmt, output, table: show([gpus_table(docs)], fmt, output, data=data, table=table)


def _device(cc: str | None, gpu: str | None) -> tuple[Any, Any]:
    """(Arch, product or None) from --cc (a CC, product or file) and --gpu (a product); with
    neither, the default device's CC (occupancy needs no product)."""
    from perfcalc.specs.target import resolve_target

    target = resolve_target(cc, gpu, default_product=False)
    return target.arch, target.gpu


def _grid_blocks(text: str | None) -> int | None:
    """--grid as blocks in the grid: N, X,Y(,Z), XxY or (X,Y,Z), as every command reads it."""
    if text is None:
        return None
    from perfcalc.specs.dims import count, launch_dims

    return count(launch_dims(text, "--grid"))


def _waves_section(active_blocks: int, grid_blocks: int, product: Any) -> tuple[str, list[Any], Any]:
    from perfcalc.analysis.occupancy_answers import grid_waves
    from perfcalc.report.occupancy_tables import waves_table
    from perfcalc.report.render import to_jsonable

    found = grid_waves(grid_blocks, active_blocks, product)
    return "waves", [waves_table(found, product)], to_jsonable(found)


def _checked_block(block: int | None, why: str) -> int:
    return int(require(block, "--block", why or "(threads per block)"))


def _single_section(arch: Any, block: int, regs: int, settings: Any) -> tuple[str, list[Any], Any]:
    from perfcalc.analysis.occupancy_answers import configuration
    from perfcalc.report.occupancy_tables import occupancy_document, occupancy_tables

    advice = configuration(arch, block, regs, settings)
    return "occupancy", occupancy_tables(arch, advice), occupancy_document(arch, advice)


def _sweep_section(
    arch: Any, block: int, regs: int, settings: Any, axes: Any, plot: Path | None, dynamic_spec: int | str, dpi: int
) -> tuple[str, list[Any], Any]:
    from perfcalc.analysis.occupancy_answers import sweeps as compute_sweeps
    from perfcalc.report.occupancy_tables import occupancy_context, sweep_document, sweep_table

    per_block = None if isinstance(dynamic_spec, int) else (lambda blocks: dynamic_bytes(dynamic_spec, blocks))
    inputs, sweeps = compute_sweeps(arch, block, regs, settings, axes, per_block)
    if plot is not None:
        from perfcalc.report.occupancy_plot import draw_sweeps

        draw_sweeps(
            sweeps,
            plot,
            f"CC {arch.cc}: {inputs.block_size} threads, "
            f"{inputs.registers_per_thread} registers, "
            f"{inputs.shared_memory} B shared memory per block",
            dpi,
        )
    tables = [sweep_table(s) for s in sweeps]
    swept = {"block": "block_size", "regs": "registers_per_thread", "smem": "static_shared_memory_bytes"}
    for t, sweep in zip(tables, sweeps, strict=True):  # each row is about the CC and the inputs held fixed
        t.context = {k: v for k, v in occupancy_context(arch, inputs).items() if k != swept[sweep.axis]}
    return "sweeps", tables, sweep_document(arch, inputs, sweeps)


def _suggest_section(
    arch: Any, regs: int, block: int | None, settings: Any, dynamic_spec: int | str, product: Any
) -> tuple[str, list[Any], Any]:
    from perfcalc.analysis.occupancy_answers import suggestion as suggest
    from perfcalc.report.occupancy_tables import suggestion_tables
    from perfcalc.report.render import to_jsonable

    dynamic = (
        settings.dynamic_shared_memory_bytes
        if isinstance(dynamic_spec, int)
        else (lambda b: int(dynamic_bytes(dynamic_spec, b)))
    )
    found, grid = suggest(arch, regs, settings, dynamic, product)
    doc = {"cc": arch.cc, **to_jsonable(found)}
    for rank, entry in enumerate(doc["ranking"], start=1):  # the table's rank column
        entry["rank"] = rank
    if product is not None:
        doc.update(gpu=product.key, sm_count=product.sm_count, min_grid_size=grid)
    tables = suggestion_tables(arch, found, current=block, product=product, min_grid=grid)
    return "suggestion", tables, doc


def _show(
    sections: list[tuple[str, list[Any], Any]], fmt: Format, output: str | Path | None, table: str | None
) -> None:
    from perfcalc.report.occupancy_tables import sections_json

    tables = [t for _name, section_tables, _doc in sections for t in section_tables]
    show(tables, fmt, output, data=sections_json({name: doc for name, _t, doc in sections}), table=table)
