"""`perfcalc occupancy`: one configuration, the spreadsheet's sweeps, a block-size suggestion,
or every kernel of a ptxas log, with what to change.

Parsing only: every number is checked by the engine (perfcalc.model.occupancy), which names
the value, the limit and the device-file key in its InputError. Core modules are imported
inside the command so the answer stays fast (matplotlib only for --plot).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import typer

from perfcalc.cli.choices import CacheConfig, SweepAxis
from perfcalc.cli.common import (
    DEFAULT_CC,
    DpiOption,
    Format,
    FormatOption,
    OutputOption,
    device_and_product,
    show,
    start_output,
    table_option,
)
from perfcalc.cli.name_values import defines
from perfcalc.errors import InputError
from perfcalc.expr import shorten

CARVEOUT_NAMES = {"default": None, "max-l1": 0, "max-shared": 100}  # cudaSharedCarveout enum
_BYTES = re.compile(r"^\s*(-?\d+)\s*(k|kb|kib)?\s*$", re.IGNORECASE)


def register(app: typer.Typer) -> None:
    app.command("occupancy")(occupancy)


def parse_bytes(text: str, option: str) -> int:
    """'2048', '2K', '2KB', '2KiB' -> bytes (K = 1024)."""
    match = _BYTES.match(text)
    if not match:
        raise InputError(f"{option} {text!r} is not a byte count; give bytes such as 2048 or 2K")
    return int(match.group(1)) * (1024 if match.group(2) else 1)


def parse_dynamic(text: str) -> int | str:
    """--dyn-smem: bytes ('2K'), or an expression of the block size ('block*8', 'block/32*4 + 1K'
    is not accepted: write 1024), as cudaOccupancyMaxPotentialBlockSizeVariableSMem takes a
    function of the block size. Returns bytes, or the expression for `dynamic_bytes`."""
    if _BYTES.match(text):
        return parse_bytes(text, "--dyn-smem")
    from perfcalc.expr import names_in

    names = names_in(text)
    if not names or names - {"block"}:
        raise InputError(
            f"--dyn-smem {text[:60]!r} is not a byte count (2048, 2K) nor an expression of 'block' such as 'block*8'"
        )
    return text


def dynamic_bytes(dynamic: int | str, block: Any) -> Any:
    """The dynamic shared memory for a block size (scalar or array) from parse_dynamic's value."""
    if isinstance(dynamic, int):
        return dynamic
    import numpy as np

    from perfcalc.expr import evaluate

    value = np.asarray(evaluate(dynamic, {"block": np.asarray(block, dtype=np.int64)}))
    bad = ~np.isfinite(value.astype(float)) | (value < 0) | (value != np.floor(value))
    if bad.any():
        raise InputError(
            f"--dyn-smem {dynamic!r} gives {value[bad].flat[0]!r} bytes for a block size; it must give whole bytes >= 0"
        )
    return value.astype(np.int64) if value.ndim else int(value)


def parse_count(text: str | None, option: str) -> int | None:
    """A whole number as typed (range checks are the engine's, with the CC's limits)."""
    if text is None:
        return None
    if not re.fullmatch(r"\s*-?\d+\s*", text):
        raise InputError(f"{option} {shorten(text)} is not a whole number")
    if len(text.strip().lstrip("-")) > 19:  # int() of 5,000 digits raises; int64 has 19
        raise InputError(f"{option} {shorten(text)} is beyond the limit of 2**63 - 1 (a signed 64-bit integer)")
    return int(text)


def parse_carveout(text: str) -> int | None:
    """'default' | 'max-l1' | 'max-shared' | a percentage -> None or 0..100 (checked later)."""
    name = text.strip().lower()
    if name in CARVEOUT_NAMES:
        return CARVEOUT_NAMES[name]
    if re.fullmatch(r"-?\d+%?", name):
        return int(name.rstrip("%"))
    raise InputError(
        f"--carveout {text!r} is not a percentage 0..100 or one of "
        f"{', '.join(CARVEOUT_NAMES)} (cudaFuncAttributePreferredSharedMemoryCarveout)"
    )


def parse_sweeps(values: list[SweepAxis] | None) -> tuple[str, ...]:
    axes: list[str] = []
    for value in values or []:
        name = value.value
        for axis in ("block", "regs", "smem") if name == "all" else (name,):
            if axis not in axes:
                axes.append(axis)
    return tuple(axes)


def _require(value: Any, option: str, why: str) -> Any:
    if value is None:
        raise InputError(f"{option} is required {why}")
    return value


def occupancy(
    cc: Annotated[
        str | None,
        typer.Option(
            "--cc",
            metavar="CC",
            help=f"Compute capability (7.0, 70, sm_70), GPU name, or a device YAML file [default: {DEFAULT_CC}].",
        ),
    ] = None,
    block: Annotated[str | None, typer.Option("--block", "-b", metavar="THREADS", help="Threads per block.")] = None,
    regs: Annotated[
        str | None, typer.Option("--regs", "-r", metavar="N", help="Registers per thread (ptxas 'Used N registers').")
    ] = None,
    smem: Annotated[
        str, typer.Option("--smem", metavar="BYTES", help="Static shared memory per block, bytes (2K = 2048).")
    ] = "0",
    dyn_smem: Annotated[
        str,
        typer.Option(
            "--dyn-smem",
            metavar="BYTES|EXPR",
            help="Dynamic shared memory per block, bytes (the launch's 3rd argument), or an "
            "expression of the block size such as 'block*8' (used by --suggest and --sweep block).",
        ),
    ] = "0",
    carveout: Annotated[
        str,
        typer.Option(
            "--carveout",
            metavar="PCT",
            help="Shared-memory carveout 0-100 %, or default, max-l1, max-shared (CC 7.0+).",
        ),
    ] = "default",
    cache_config: Annotated[
        CacheConfig,
        typer.Option(
            "--cache-config", help="cudaFuncSetCacheConfig's preference (CC 2.x/3.x splits).", case_sensitive=False
        ),
    ] = CacheConfig.none,
    barriers: Annotated[
        str,
        typer.Option(
            "--barriers", metavar="N", help="Barriers per block (CC 9.0 barrier limit; the runtime assumes 1)."
        ),
    ] = "1",
    sweep: Annotated[
        list[SweepAxis] | None,
        typer.Option("--sweep", help="The spreadsheet's graphs as tables (repeatable).", case_sensitive=False),
    ] = None,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            metavar="FILE",
            help="Draw the sweeps to a .png, .svg or .pdf, current point marked (needs the 'plot' extra).",
            dir_okay=False,
        ),
    ] = None,
    dpi: DpiOption = 200,
    suggest: Annotated[
        bool,
        typer.Option(
            "--suggest",
            help="Best block size by NVIDIA's rule, and the ranking (with a GPU: the "
            "minimum grid size, blocks per SM x SMs).",
        ),
    ] = False,
    gpu: Annotated[
        str | None,
        typer.Option(
            "--gpu",
            metavar="GPU",
            help="A GPU product (b200, rtx5090) or product YAML: its CC, SM count for --grid and --suggest.",
        ),
    ] = None,
    grid: Annotated[
        str | None,
        typer.Option(
            "--grid",
            metavar="BLOCKS",
            help="Blocks in the grid (N or X,Y,Z): with a GPU, the waves and the last wave's fill.",
        ),
    ] = None,
    ptxas: Annotated[
        Path | None,
        typer.Option(
            "--ptxas",
            metavar="FILE",
            help="A saved 'nvcc -Xptxas -v' log ('-': piped in): occupancy of every kernel in it at --block.",
            dir_okay=False,
        ),
    ] = None,
    source: Annotated[
        Path | None,
        typer.Option(
            "--source",
            metavar="FILE.cu",
            help="Compile a real .cu file (PTX engine: NVRTC + ptxas) and use its kernel's registers "
            "and shared memory.",
            dir_okay=False,
        ),
    ] = None,
    kernel: Annotated[
        str | None, typer.Option("--kernel", help="Kernel in --source, as C++ names it (templates: 'k<16>').")
    ] = None,
    define: Annotated[
        list[str] | None, typer.Option("--define", "-D", help="NAME or NAME=VALUE for --source, as nvcc takes it.")
    ] = None,
    show_limits: Annotated[
        bool,
        typer.Option(
            "--show-limits", help="Also print the CC's physical limits, each with its device-file key (in JSON always)."
        ),
    ] = False,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
    table: Annotated[
        str | None,
        table_option(
            "occupancy, inputs, device_limits (with --show-limits), allocation, block_limits, waves (with --grid); "
            "with --suggest: suggestion, ranking; with --sweep: sweep_block_size, sweep_registers_per_thread, "
            "sweep_shared_memory_per_block_bytes; with --ptxas or --source: kernels (suggestions with --suggest)"
        ),
    ] = None,
) -> None:
    """Theoretical occupancy of a kernel configuration and what limits it.

    Example: perfcalc occupancy --cc 7.0 --block 256 --regs 32
    """
    start_output(output)
    threads, registers = parse_count(block, "--block"), parse_count(regs, "--regs")
    axes = parse_sweeps(sweep)
    if plot is not None:
        from perfcalc.report.figures import check_figure_path

        check_figure_path(plot)
    static, dynamic_spec = parse_bytes(smem, "--smem"), parse_dynamic(dyn_smem)
    dynamic = (
        dynamic_bytes(dynamic_spec, threads)
        if threads is not None
        else (dynamic_spec if isinstance(dynamic_spec, int) else 0)
    )
    settings = {
        "static_shared_memory_bytes": static,
        "dynamic_shared_memory_bytes": dynamic,
        "carveout": parse_carveout(carveout),
        "cache_config": None if cache_config is CacheConfig.none else cache_config.value,
        "block_barriers": parse_count(barriers, "--barriers"),
    }
    if source is not None:
        if ptxas is not None or registers is not None or static:
            raise InputError("--regs, --smem and --ptxas come from compiling --source; leave them out")
        if axes or plot is not None:
            raise InputError("--sweep and --plot work on --regs/--smem; use them without --source")
        kernels, cc = _compiled_resources(source, kernel, define, cc, gpu)
        _ptxas_command(None, cc, threads, suggest, settings, fmt, output, table, kernels=kernels)
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
        _ptxas_command(ptxas, cc, threads, suggest, settings, fmt, output, table)
        return
    arch, product = _device(cc, gpu)
    grid_blocks = _grid_blocks(grid)
    if grid_blocks is not None and product is None:
        raise InputError(
            "--grid needs a GPU product for its SM count: give --gpu NAME (e.g. --gpu h100-sxm) or a product as --cc"
        )
    registers = _require(registers, "--regs", "(registers per thread, from ptxas -v), or give --ptxas FILE")
    sections: list[tuple[str, list[Any], Any]] = []
    if suggest:
        sections.append(_suggest_section(arch, registers, threads, settings, dynamic_spec, product))
    if axes or plot is not None:
        inputs = _inputs(threads, registers, settings, "with --sweep/--plot (the current point)")
        sweeps = _sweep_section(arch, inputs, axes or ("block", "regs", "smem"), plot, dynamic_spec, dpi)
        if axes:
            sections.append(sweeps)
    if not suggest and not axes:
        section = _single_section(arch, _inputs(threads, registers, settings, ""))
        for t in section[1]:  # 18 rows that are the CC's, not the kernel's: `devices show` has them too
            t.on_request = t.key == "device_limits" and not show_limits
        sections.append(section)
        if grid_blocks is not None:
            assert product is not None
            sections.append(_waves_section(section[2]["active_blocks_per_sm"], grid_blocks, product))
    elif grid_blocks is not None:
        raise InputError("--grid works on one configuration: leave out --suggest and --sweep")
    _show(sections, fmt, output, table)


def _device(cc: str | None, gpu: str | None) -> tuple[Any, Any]:
    """(Arch, product or None) from --cc (a CC, product or file) and --gpu (a product); with
    neither, the default device's CC (occupancy needs no product)."""
    return device_and_product(cc, gpu, default_product=False)


def _grid_blocks(text: str | None) -> int | None:
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",")]
    if not 1 <= len(parts) <= 3 or not all(re.fullmatch(r"\d{1,10}", p) for p in parts):
        raise InputError(f"--grid {text[:40]!r} is not a block count N or X,Y,Z")
    total = 1
    for p in parts:
        total *= int(p)
    return total


def _waves_section(active_blocks: int, grid_blocks: int, product: Any) -> tuple[str, list[Any], Any]:
    from perfcalc.model.waves import waves
    from perfcalc.report.occupancy_tables import waves_table
    from perfcalc.report.render import to_jsonable

    found = waves(grid_blocks, active_blocks, product)
    return "waves", [waves_table(found, product)], to_jsonable(found)


def _inputs(block: int | None, regs: int, settings: dict[str, Any], why: str) -> Any:
    from perfcalc.model.occupancy import OccupancyInputs

    block = _require(block, "--block", why or "(threads per block)")
    return OccupancyInputs(block_size=block, registers_per_thread=regs, **settings)


def _single_section(arch: Any, inputs: Any) -> tuple[str, list[Any], Any]:
    from perfcalc.model.hints import advise
    from perfcalc.report.occupancy_tables import occupancy_document, occupancy_tables

    advice = advise(arch, inputs)
    return "occupancy", occupancy_tables(arch, advice), occupancy_document(arch, advice)


def _sweep_section(
    arch: Any, inputs: Any, axes: Any, plot: Path | None, dynamic_spec: int | str = 0, dpi: int = 200
) -> tuple[str, list[Any], Any]:
    from perfcalc.model.occupancy import occupancy
    from perfcalc.report.occupancy_tables import compute_sweep, occupancy_context, sweep_document, sweep_table

    occupancy(arch, **_engine_args(inputs))  # the current point must itself be legal
    per_block = None if isinstance(dynamic_spec, int) else (lambda blocks: dynamic_bytes(dynamic_spec, blocks))
    sweeps = [compute_sweep(arch, inputs, axis, dynamic_of_block=per_block) for axis in axes]
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
    arch: Any,
    regs: int,
    block: int | None,
    settings: dict[str, Any],
    dynamic_spec: int | str = 0,
    product: Any = None,
) -> tuple[str, list[Any], Any]:
    from perfcalc.model.occupancy_suggest import suggest_block_size
    from perfcalc.model.waves import min_grid_size
    from perfcalc.report.occupancy_tables import suggestion_tables
    from perfcalc.report.render import to_jsonable

    dynamic = (
        settings["dynamic_shared_memory_bytes"]
        if isinstance(dynamic_spec, int)
        else (lambda b: int(dynamic_bytes(dynamic_spec, b)))
    )
    suggestion = suggest_block_size(
        arch,
        regs,
        settings["static_shared_memory_bytes"],
        dynamic,
        settings["carveout"],
        settings["cache_config"],
        block_barriers=settings["block_barriers"],
    )
    grid = None if product is None else min_grid_size(suggestion.active_blocks_per_sm, product)
    doc = {"cc": arch.cc, **to_jsonable(suggestion)}
    for rank, entry in enumerate(doc["ranking"], start=1):  # the table's rank column
        entry["rank"] = rank
    if product is not None:
        doc.update(gpu=product.key, sm_count=product.sm_count, min_grid_size=grid)
    tables = suggestion_tables(arch, suggestion, current=block, product=product, min_grid=grid)
    return "suggestion", tables, doc


def _engine_args(inputs: Any) -> dict[str, Any]:
    from dataclasses import asdict

    return asdict(inputs)


def _show(
    sections: list[tuple[str, list[Any], Any]], fmt: Format, output: str | Path | None, table: str | None
) -> None:
    tables = [t for _name, section_tables, _doc in sections for t in section_tables]
    data = sections[0][2] if len(sections) == 1 else {name: doc for name, _t, doc in sections}
    show(tables, fmt, output, data=data, table=table)


def _compiled_resources(
    source: Path, kernel: str | None, define: list[str] | None, cc: str | None, gpu: str | None
) -> tuple[tuple[Any, ...], str]:
    """ptxas's report for the kernel of a .cu file compiled as the PTX engine compiles it."""
    from perfcalc.errors import InputError as Err
    from perfcalc.model.ptxas import entry_resources
    from perfcalc.sim.ptx.ptxas import PACKAGE
    from perfcalc.sim.ptx.run import compile_kernel

    arch, _product = _device(cc, gpu)
    from perfcalc.files import read_text

    text = read_text(source, "--source", latin1_fallback=True, error=Err)
    ck = compile_kernel(text, kernel, arch, defines(define, numbers_only=False), str(source))
    if ck.ptxas_log is None:
        raise Err(
            f"--source needs NVIDIA's ptxas to know the kernel's registers: pip install "
            f"{PACKAGE} (the nvcc wheel of NVRTC's version)"
        )
    found = entry_resources(ck.ptxas_log, ck.fn.name, str(source))
    return (() if found is None else (found,)), arch.source_file or arch.cc


def _ptxas_command(
    path: Path | None,
    cc: str | None,
    block: int | None,
    suggest: bool,
    settings: dict[str, Any],
    fmt: Format,
    output: str | Path | None,
    table_name: str | None,
    kernels: tuple[Any, ...] = (),
) -> None:
    from perfcalc.model.ptxas import read_ptxas_file

    if path is not None:
        kernels = _ptxas_from_stdin() if str(path) == "-" else read_ptxas_file(path)
    pairs, note = _kernel_archs(kernels, cc)
    if suggest:
        from perfcalc.model.occupancy_suggest import suggest_block_size
        from perfcalc.report.occupancy_tables import ptxas_suggestion_document, ptxas_suggestion_table

        found = [
            (
                k,
                arch,
                suggest_block_size(
                    arch,
                    k.registers_per_thread,
                    k.static_shared_memory_bytes,
                    settings["dynamic_shared_memory_bytes"],
                    settings["carveout"],
                    settings["cache_config"],
                    block_barriers=_barriers(k, settings),
                ),
            )
            for k, arch in pairs
        ]
        table = ptxas_suggestion_table(found)
        table.notes.extend(note)
        show([table], fmt, output, data=ptxas_suggestion_document(found, note), table=table_name)
        return
    from perfcalc.model.hints import advise
    from perfcalc.model.occupancy import OccupancyInputs
    from perfcalc.report.occupancy_tables import ptxas_document, ptxas_table

    block = _require(block, "--block", "with --ptxas (the block size to evaluate), or use --suggest")
    entries = []
    for kernel, arch in pairs:
        inputs = OccupancyInputs(
            block_size=block,
            registers_per_thread=kernel.registers_per_thread,
            static_shared_memory_bytes=kernel.static_shared_memory_bytes,
            dynamic_shared_memory_bytes=settings["dynamic_shared_memory_bytes"],
            carveout=settings["carveout"],
            cache_config=settings["cache_config"],
            block_barriers=_barriers(kernel, settings),
        )
        entries.append((kernel, arch, advise(arch, inputs)))
    table = ptxas_table(entries, block)
    table.notes[:0] = note
    show([table], fmt, output, data=ptxas_document(entries, block, note), table=table_name)


def _ptxas_from_stdin() -> tuple[Any, ...]:
    """`--ptxas -`: the log piped in (`nvcc -Xptxas -v k.cu 2>&1 | perfcalc occupancy --ptxas -`)."""
    from perfcalc.files import read_stdin
    from perfcalc.model.ptxas import parse_ptxas

    data = read_stdin("--ptxas -")
    return parse_ptxas(data.decode("utf-8", errors="replace"), source="ptxas log on standard input")


def _barriers(kernel: Any, settings: dict[str, Any]) -> int:
    """ptxas's barrier count where it printed one (0 skips the 9.0 limit, as H13 does for a
    kernel without barriers); otherwise --barriers (default 1, the runtime's assumption)."""
    return settings["block_barriers"] if kernel.block_barriers is None else kernel.block_barriers


def _kernel_archs(kernels: Any, cc: str | None) -> tuple[list[Any], list[str]]:
    """Pair each kernel with the CC to evaluate it on.

    With --cc: the kernels compiled for that CC if the log has any, else all of them (with a
    note that ptxas may allocate differently for the other target). Without --cc: each kernel
    on the CC it was compiled for.
    """
    from perfcalc.specs import get_arch, known_ccs, resolve_arch

    if cc is not None:
        arch = resolve_arch(cc)
        same = [k for k in kernels if k.cc == arch.cc]
        if same:
            return [(k, arch) for k in same], []
        targets = sorted({k.compiled_for or "an unnamed target" for k in kernels})
        return [(k, arch) for k in kernels], [
            f"registers and shared memory were compiled for {', '.join(targets)}; ptxas may "
            f"allocate differently for CC {arch.cc}"
        ]
    pairs = []
    for k in kernels:
        if k.cc not in known_ccs():
            raise InputError(
                f"kernel {k.display_name} was compiled for "
                f"{k.compiled_for or 'an unnamed target'}, which is not a known compute "
                f"capability ({', '.join(known_ccs())}); pass --cc"
            )
        pairs.append((k, get_arch(k.cc)))
    return pairs, []
