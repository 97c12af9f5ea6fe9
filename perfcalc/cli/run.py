"""`perfcalc run` (simulate a kernel, check it, compare with the model) and `perfcalc kernels`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

import typer

from perfcalc.cli.choices import GlobalCache, RunEngine
from perfcalc.cli.common import (
    DEFAULT_CC,
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

DEFAULT_REGISTERS = 32
_REGS_HELP = (
    f"Registers per thread for the occupancy figure (the simulator cannot know the "
    f"compiler's allocation; default {DEFAULT_REGISTERS})."
)


def register(app: typer.Typer) -> None:
    app.command("run")(run)
    app.command("kernels")(kernels)


def _dims(text: str | None, option: str) -> tuple[int, ...]:
    from perfcalc.errors import InputError

    if text is None:
        raise InputError(f"{option} is required with --source (e.g. {option} 16,16)")
    try:
        dims = tuple(int(p) for p in text.replace("x", ",").split(","))
    except ValueError:
        raise InputError(f"{option} {text!r}: expected 1 to 3 integers like 16,16") from None
    if not 1 <= len(dims) <= 3:
        raise InputError(f"{option} {text!r}: expected 1 to 3 integers like 16,16")
    return dims


def run(
    kernel_name: Annotated[
        str | None,
        typer.Argument(metavar="[KERNEL]", help="Catalog kernel (see `perfcalc kernels`); omit with --source."),
    ] = None,
    cc: Annotated[
        str | None,
        typer.Option("--cc", help=f"Compute capability, product name or device YAML [default: {DEFAULT_CC}]."),
    ] = None,
    gpu: Annotated[
        list[str] | None,
        typer.Option(
            "--gpu",
            help="Product (see `perfcalc devices`): also model its L1/L2 "
            "caches over the run's addresses (hit rates, DRAM bytes) and predict the "
            "time. Repeat it to compare products side by side.",
        ),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            "-p",
            help="NAME=VALUE: a catalog parameter, or a scalar argument of --source.",
        ),
    ] = None,
    catalog_file: Annotated[
        Path | None,
        typer.Option(
            "--catalog",
            help="Your own kernel catalog (kernels.yaml schema) instead of the shipped one.",
            dir_okay=False,
        ),
    ] = None,
    source: Annotated[
        Path | None,
        typer.Option("--source", help="Run your own CUDA C file instead of a catalog kernel.", dir_okay=False),
    ] = None,
    kernel: Annotated[str | None, typer.Option("--kernel", help="__global__ function in --source.")] = None,
    grid: Annotated[str | None, typer.Option("--grid", help="Grid for --source, e.g. 64,64.")] = None,
    block: Annotated[str | None, typer.Option("--block", help="Block for --source, e.g. 16,16.")] = None,
    array: Annotated[
        list[str] | None,
        typer.Option(
            "--array",
            help="A pointer argument of --source: NAME=DTYPE:ELEMENTS (random, seeded, never "
            "zero; any scalar type such as float16, bool, int8, uint64, a vector type such as "
            "float4 or double2, or bytesN for an opaque N-byte record) or NAME=@FILE.npy (your "
            "own 1-D array, as stored).",
        ),
    ] = None,
    define: Annotated[
        list[str] | None,
        typer.Option(
            "--define",
            "-D",
            help="NAME=VALUE #define for --source (e.g. TILE_WIDTH=16); with "
            "--engine ptx as nvcc takes it (NAME, or NAME=any tokens).",
        ),
    ] = None,
    include: Annotated[
        list[Path] | None,
        typer.Option("--include-dir", "-I", help="Header folder for --source (--engine ptx).", file_okay=False),
    ] = None,
    dynamic_shared: Annotated[
        int, typer.Option("--dynamic-shared", help="Dynamic shared memory bytes for --source.")
    ] = 0,
    cache: Annotated[
        GlobalCache | None,
        typer.Option(
            "--cache",
            help="Global caching mode on CC 2.x/3.x: l1 (128-byte lines) or l2 (32-byte).",
            case_sensitive=False,
        ),
    ] = None,
    bank_mode: Annotated[
        int | None, typer.Option("--bank-mode", help="Shared bank width on CC 3.x: 4 or 8 bytes.")
    ] = None,
    regs: Annotated[int, typer.Option("--regs", help=_REGS_HELP)] = DEFAULT_REGISTERS,
    iteration_cap: Annotated[
        int,
        typer.Option(
            "--iteration-cap",
            help="Loop iterations after which a loop counts as endless (a fault).",
        ),
    ] = 1_000_000,
    engine: Annotated[
        RunEngine,
        typer.Option(
            "--engine",
            help="source: the CUDA C subset as written (portable); ptx: the file as NVIDIA's "
            "compiler compiles it (needs the nvidia-cuda-nvrtc wheel); auto: ptx where NVRTC "
            "works, else source.",
            case_sensitive=False,
        ),
    ] = RunEngine.source,
    exact: Annotated[
        bool,
        typer.Option(
            "--exact",
            help="With --gpu: simulate every block even when the launch is "
            "large (by default a launch that would take more than a few seconds is "
            "sampled: the first waves of every k-th SM, extrapolated).",
        ),
    ] = False,
    max_seconds: MaxSecondsOption = 600.0,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            help="Also draw the kernel's source with a heat map of each line's global requests, sectors per "
            "request, shared requests and bank conflicts to FILE.png, .svg or .pdf (needs perfcalc[plot]).",
            dir_okay=False,
        ),
    ] = None,
    dpi: DpiOption = 200,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
    table: Annotated[
        str | None,
        table_option(
            "counters, summary, time and caches and cache_lines (with --gpu), lines (per source line); "
            "with several --gpu: gpus"
        ),
    ] = None,
) -> None:
    """Run a kernel on the execution core, check its result, compare its counters with the model.

    Examples: perfcalc run matmul_tiled --cc 2.0 --param Width=128;
    perfcalc run --source k.cu --kernel scale --grid 4 --block 256 --array x=float32:1024 -p n=1024
    """
    from perfcalc.errors import InputError

    start_output(output)
    if (kernel_name is None) == (source is None):
        raise InputError("give either a catalog KERNEL (see `perfcalc kernels`) or --source FILE.cu")
    if source is not None and catalog_file is not None:
        raise InputError("--catalog goes with a catalog KERNEL; --source runs your file instead")
    if source is None and (kernel or grid or block or array or define or dynamic_shared):
        raise InputError(
            "--kernel, --grid, --block, --array, --define and --dynamic-shared "
            "go with --source; a catalog kernel takes --param"
        )
    from perfcalc.sim.launch import resolve_engine

    chosen, engine_note = resolve_engine(engine.value)
    if engine_note:
        import sys

        print(engine_note, file=sys.stderr)
    options: dict[str, Any] = {
        "cache": None if cache is None else cache.value,
        "bank_mode": bank_mode,
        "regs": regs,
        "iteration_cap": iteration_cap,
        "engine": chosen,
        "gpu": None,
        "exact": exact,
    }
    gpus = list(gpu or [])
    if exact and not gpus:
        raise InputError("--exact goes with --gpu (only a run on a product's caches is sampled)")
    if len(set(gpus)) != len(gpus):
        raise InputError(f"--gpu repeats a product ({', '.join(gpus)}): name each once")
    if include and chosen != "ptx":
        raise InputError("--include-dir works with --engine ptx (the C engine takes no headers)")
    options["include_dirs"] = tuple(str(d) for d in include or ())
    if plot is not None:
        from perfcalc.report.figures import check_dpi, check_figure_path

        check_figure_path(plot)
        check_dpi(dpi)
    docs = []
    choices: list[str | None] = list(gpus) or [None]
    for one in choices:
        each = dict(options)
        arch_cc = _cc_and_gpu(cc, one, each)
        if source is None:
            assert kernel_name is not None  # one of KERNEL and --source, checked above
            docs.append(run_catalog(kernel_name, name_values(param, "--param"), arch_cc, catalog_file, each))
        else:
            docs.append(
                run_source(
                    source,
                    kernel,
                    _dims(grid, "--grid"),
                    _dims(block, "--block"),
                    array or [],
                    name_values(param, "--param"),
                    defines(define, numbers_only=chosen != "ptx"),
                    dynamic_shared,
                    arch_cc,
                    each,
                )
            )
    if plot is not None:  # the counts are the run's, whichever product's caches it ran on
        from perfcalc.files import read_text
        from perfcalc.report.run_plot import plot_run
        from perfcalc.specs.kernels import get_kernel

        if source is None:
            assert kernel_name is not None  # one of KERNEL and --source, checked above
            text = get_kernel(kernel_name, catalog_file).source
        else:
            text = read_text(source, "--source")
        title = f"{docs[0]['kernel']} on CC {docs[0]['cc']}: memory work per source line"
        plot_run(title, text.splitlines(), docs[0]["per_site"], plot, dpi)
    if len(docs) == 1:
        _show_run(docs[0], fmt, output, table)
    else:
        from perfcalc.report.run_tables import gpu_comparison_table

        show(
            [gpu_comparison_table(docs)],
            fmt,
            output,
            data={"kernel": docs[0]["kernel"], "params": docs[0]["params"], "runs": docs},
            table=table,
        )


def _cc_and_gpu(cc: str | None, gpu: str | None, options: dict[str, Any]) -> str:
    """The CC to run at: --cc, else the --gpu product's, else the default device's; they must
    agree. The product is used only when named: it adds the cache model and the time."""
    if gpu is None:
        return cc or DEFAULT_CC
    from perfcalc.errors import InputError
    from perfcalc.specs import get_gpu, resolve_arch

    product = get_gpu(gpu)
    if cc is not None and resolve_arch(cc).cc != product.cc:
        raise InputError(f"--cc {cc} is not --gpu {gpu}'s compute capability {product.cc}")
    options["gpu"] = product
    return product.cc


def _sample_notes(report: Any) -> list[str]:
    """The sampling note of a --gpu run, if it was sampled."""
    return [report.sample_note] if report is not None and report.sample_note else []


def _time_fields(report: Any) -> dict[str, Any]:
    """run's JSON time fields (issue #9 part 5) from a LaunchReport; {} without --gpu."""
    if report is None:
        return {}
    t, sample = report.time, report.sample
    return {
        "gpu": t.gpu,
        "cc": t.cc,
        "predicted_time_s": t.predicted_time_s,
        "bound": t.bound,
        "bound_detail": t.bound_detail,
        "dram_bytes_read": t.dram_bytes_read,
        "dram_bytes_written": t.dram_bytes_written,
        "l1_hit_rate": t.l1_hit_rate,
        "l2_hit_rate": t.l2_hit_rate,
        "predicted_gflops": t.predicted_gflops,
        "predicted_dram_gbs": t.predicted_dram_gbs,
        "time": {
            "launch_overhead_s": t.launch_overhead_s,
            "waves": t.waves,
            "terms": [{"name": x.name, "time_s": x.time_s, "formula": x.formula} for x in t.terms],
            "omitted": list(t.omitted),
            "sampled": None
            if sample is None
            else {
                "simulated_blocks": report.simulated_blocks,
                "launch_blocks": report.launch_blocks,
                "sm_stride": sample.sm_stride,
                "waves": sample.waves,
            },
        },
    }


def _caches_dict(result: Any, options: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON `caches` object: the model's report and the configuration it ran with."""
    rep = result.caches
    if rep is None:
        return None
    cfg = rep.config
    return {
        "gpu": options["gpu"].key,
        "gpu_name": options["gpu"].name,
        "sms": cfg.sms,
        "l1_bytes": cfg.l1_bytes,
        "l2_bytes": options["gpu"].l2_cache_kb * 1024,
        "l1_hit_rate": rep.l1_load_hit_rate,
        "l2_hit_rate": rep.l2_hit_rate,
        "l2_bytes_read": rep.l2_bytes_read,
        "l2_bytes_written": rep.l2_bytes_written,
        "dram_bytes_read": rep.dram_bytes_read,
        "dram_bytes_written": rep.dram_bytes_written,
        "l2_dirty_bytes_at_end": rep.l2_dirty_bytes_at_end,
        "per_line": [
            {
                "line": line,
                "l1_hit_rate": c.l1_load_hit_rate,
                "l2_hit_rate": c.l2_hit_rate,
                "l2_bytes_read": c.l2_bytes_read,
                "l2_bytes_written": c.l2_bytes_written,
                "dram_bytes_read": c.dram_bytes_read,
            }
            for line, c in rep.per_site.items()
        ],
    }


def _show_run(doc: dict[str, Any], fmt: Format, output: str | Path | None, table: str | None) -> None:
    from perfcalc.report.run_tables import (
        cache_lines_table,
        caches_table,
        counters_table,
        sites_table,
        summary_table,
    )
    from perfcalc.specs.counters import COUNTER_NAMES, SITE_COUNTER_NAMES

    names = [n for n in doc["counters"] if n != "warp_instructions"] or list(COUNTER_NAMES)
    tables = [
        summary_table(doc),
        counters_table(doc["counters"], doc["predicted"], names),
        sites_table(doc["per_site"], SITE_COUNTER_NAMES),
    ]
    if doc.get("caches"):
        tables[1:1] = [caches_table(doc["caches"]), cache_lines_table(doc["caches"])]
    if doc.get("time"):
        from perfcalc.report.run_tables import time_table

        tables[1:1] = [time_table(doc)]
    show(tables, fmt, output, data=doc, table=table)


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


# ---------------------------------------------------------------------------------------------
# The two run paths: each makes the core calls and assembles `run_document`'s object.


def _launch_info(grid: tuple[int, ...], block: tuple[int, ...], dyn: int, warp_size: int) -> dict[str, Any]:
    blocks = 1
    for g in grid:
        blocks *= g
    threads_per_block = 1
    for b in block:
        threads_per_block *= b
    warps_per_block = -(-threads_per_block // warp_size)
    return {
        "grid": list(grid),
        "block": list(block),
        "dynamic_shared_memory_bytes": dyn,
        "blocks": blocks,
        "threads_per_block": threads_per_block,
        "threads": blocks * threads_per_block,
        "warps": blocks * warps_per_block,
    }


def _occupancy(arch: Any, block: tuple[int, ...], regs: int, static_smem: int, dyn: int) -> dict[str, Any]:
    from perfcalc.model.occupancy import occupancy
    from perfcalc.report import to_jsonable

    threads = 1
    for b in block:
        threads *= b
    result = occupancy(arch, threads, regs, static_shared_memory_bytes=static_smem, dynamic_shared_memory_bytes=dyn)
    return {
        **to_jsonable(result),
        "registers_per_thread": regs,
        "static_shared_memory_bytes": static_smem,
    }


def _site_rows(
    source: str,
    sim_sites: Mapping[int, Any],
    predicted_sites: Mapping[int, Any] | None,
    inlined: Mapping[int, Any] | None = None,
) -> list[dict[str, Any]]:
    """Per source line: its counters (and prediction); then, for a line that calls an inlined
    __device__ function, the inlined code's counters as their own row (`inlined: true`)."""
    from perfcalc.report import to_jsonable
    from perfcalc.specs.counters import SITE_COUNTER_NAMES

    lines = source.splitlines()
    rows = _line_rows(lines, sim_sites, predicted_sites)
    for line, counters in sorted((inlined or {}).items()):
        sim = {n: getattr(counters, n, 0) for n in SITE_COUNTER_NAMES}
        if any(sim.values()):
            rows.append(
                {
                    "line": line,
                    "code": (lines[line - 1].strip() if 0 < line <= len(lines) else "") + "  [inlined calls]",
                    "counters": to_jsonable(counters),
                    "predicted": None,
                    "inlined": True,
                }
            )
    return sorted(rows, key=lambda r: (r["line"], r.get("inlined", False)))


def _line_rows(
    lines: list[str], sim_sites: Mapping[int, Any], predicted_sites: Mapping[int, Any] | None
) -> list[dict[str, Any]]:
    from perfcalc.report import to_jsonable
    from perfcalc.specs.counters import SITE_COUNTER_NAMES

    rows = []
    memory_lines = {ln for ln, c in sim_sites.items() if any(getattr(c, n, 0) for n in SITE_COUNTER_NAMES)}
    for line in sorted(memory_lines | set(predicted_sites or {})):
        counters = sim_sites.get(line)
        sim = {n: getattr(counters, n, 0) if counters is not None else 0 for n in SITE_COUNTER_NAMES}
        pred = None
        if predicted_sites is not None:
            p = predicted_sites.get(line)
            pred = {n: getattr(p, n, 0) if p is not None else 0 for n in SITE_COUNTER_NAMES}
        rows.append(
            {
                "line": line,
                "code": lines[line - 1].strip() if 0 < line <= len(lines) else "",
                "counters": sim if counters is None else to_jsonable(counters),
                "predicted": pred,
            }
        )
    return rows


def _counters_dict(counters: Any) -> dict[str, Any]:
    from perfcalc.report import to_jsonable

    return to_jsonable(counters)


def run_catalog(
    name: str, params: dict[str, Any], cc: str, catalog_file: Path | None, options: dict[str, Any]
) -> dict[str, Any]:
    """Predict, run and check one catalog kernel."""
    from perfcalc.model.predict import predict
    from perfcalc.report.run_tables import run_document
    from perfcalc.sim.references import run_catalog_kernel
    from perfcalc.specs import resolve_arch
    from perfcalc.specs.kernels import get_kernel, launch_geometry, resolve_params

    arch = resolve_arch(cc)
    _check_regs(arch, options["regs"])
    spec = get_kernel(name, catalog_file)
    params = resolve_params(spec, params)
    prediction = predict(spec, params, arch, cache=options["cache"], bank_mode=options["bank_mode"])
    grid, block, dyn = launch_geometry(spec, params)
    report = None
    if options["gpu"] is not None:
        from perfcalc.analysis.launch_report import analyze_catalog_kernel

        report = analyze_catalog_kernel(
            spec,
            params,
            options["gpu"],
            arch,
            registers=options["regs"],
            engine=options["engine"],
            exact=options["exact"],
            cache=options["cache"],
            bank_mode=options["bank_mode"],
            iteration_cap=options["iteration_cap"],
            progress=_progress_option().get("progress"),
        )
        result = report.sim
        check = (
            _check_dict(report.result_check)
            if report.result_check is not None
            else {"passed": None, "max_rel_error": None, "tolerance": spec.tolerance}
        )
    else:
        done = run_catalog_kernel(
            spec,
            params,
            arch,
            cache=options["cache"],
            bank_mode=options["bank_mode"],
            iteration_cap=options["iteration_cap"],
            engine=options["engine"],
            **_progress_option(),
        )
        result = done.result
        check = _check_dict(done.result_check)
    launch = _launch_info(grid, block, dyn, arch.warp_size)
    regs, static, regs_note = _allocation(result, options["regs"])
    occ = _occupancy(arch, block, regs, static, dyn)
    occ["registers_source"] = "ptxas" if result.ptxas_log else "assumed"
    doc = run_document(
        kernel=spec.name,
        source_name=f"kernels.yaml:{spec.name}" if catalog_file is None else f"{catalog_file}:{spec.name}",
        cc=arch.cc,
        params=params,
        launch=launch,
        counters=_counters_dict(result.counters),
        predicted=prediction.counters(),
        per_site=_site_rows(spec.source, result.per_site, prediction.per_site),
        result_check=check,
        occupancy=occ,
        predicted_exact=prediction.exact,
        model={"global_load_elements": prediction.global_load_elements, "cgma": prediction.cgma},
        notes=[
            *prediction.notes,
            regs_note,
            *_engine_notes(result),
            *(
                f"the engines differ on {counter}: {why}"
                for counter, why in spec.engines_differ
                if result.engine == "ptx"
            ),
            *_sample_notes(report),
        ],
        engine=result.engine,
        compiler=result.compiler or None,
        caches=_caches_dict(result, options),
    )
    return {**doc, **_time_fields(report)}


def run_source(
    path: Path,
    kernel: str | None,
    grid: tuple[int, ...],
    block: tuple[int, ...],
    arrays: list[str],
    scalars: dict[str, Any],
    defines: dict[str, Any],
    dyn: int,
    cc: str,
    options: dict[str, Any],
) -> dict[str, Any]:
    """Run a user's own CUDA C file: random seeded arrays, no reference, no model."""
    from perfcalc.errors import InputError
    from perfcalc.files import read_text
    from perfcalc.report.run_tables import run_document
    from perfcalc.sim import run_kernel
    from perfcalc.sim.references import make_user_arrays, parse_array_option
    from perfcalc.specs import resolve_arch

    text = read_text(path, "--source", latin1_fallback=True)
    arch = resolve_arch(cc)
    _check_regs(arch, options["regs"])
    specs = [parse_array_option(a) for a in arrays]
    names = [s.name for s in specs]
    twice = sorted({n for n in names if names.count(n) > 1} | (set(names) & set(scalars)))
    if twice:
        raise InputError(f"{twice[0]} is given twice (--array and --param, or two --array); give each argument once")

    def make_args() -> dict[str, Any]:
        args: dict[str, Any] = dict(make_user_arrays(specs))  # seeded: the same every call
        args.update(scalars)
        return args

    run_options: dict[str, Any] = {
        "defines": defines or None,
        "cache": options["cache"],
        "bank_mode": options["bank_mode"],
        "source_name": str(path),
        "iteration_cap": options["iteration_cap"],
        "engine": options["engine"],
        "include_dirs": options.get("include_dirs", ()),
    }
    report = None
    if options["gpu"] is not None:
        from perfcalc.analysis.launch_report import analyze_source_kernel

        report = analyze_source_kernel(
            text,
            kernel,
            grid,
            block,
            make_args,
            options["gpu"],
            arch,
            params=scalars,
            registers=options["regs"],
            dynamic_shared_memory_bytes=dyn,
            exact=options["exact"],
            progress=_progress_option().get("progress"),
            **run_options,
        )
        result = report.sim
    else:
        result = run_kernel(
            text,
            kernel,
            grid,
            block,
            make_args(),
            arch,
            dynamic_shared_memory_bytes=dyn,
            **run_options,
            **_progress_option(),
        )
    kernel = result.kernel
    launch = _launch_info(grid, block, dyn, arch.warp_size)
    regs, static, regs_note = _allocation(result, options["regs"])
    occ = _occupancy(arch, block, regs, static, dyn)
    occ["registers_source"] = "ptxas" if result.ptxas_log else "assumed"
    doc = run_document(
        kernel=kernel,
        source_name=str(path),
        cc=arch.cc,
        params={**scalars, **{f"#define {k}": ("" if v is None else v) for k, v in defines.items()}},
        launch=launch,
        counters=_counters_dict(result.counters),
        predicted=None,
        per_site=_site_rows(text, result.per_site, None, result.inlined),
        result_check={"passed": None, "max_rel_error": None, "tolerance": None},
        occupancy=occ,
        predicted_exact=None,
        notes=[
            "no reference and no model for a user source: counters only",
            regs_note,
            *_engine_notes(result),
            *_sample_notes(report),
        ],
        engine=result.engine,
        compiler=result.compiler or None,
        caches=_caches_dict(result, options),
    )
    return {**doc, **_time_fields(report)}


def _engine_notes(result: Any) -> list[str]:
    """Which engine counted, and what that means for comparing with the model."""
    if result.engine != "ptx":
        return ["counted by the C-subset engine: the source as written"]
    return [
        f"counted by the PTX engine on the code {result.compiler} produced: counts follow "
        f"the compiled code (kept-in-register values, merged loads, predicated branches), "
        f"so they can differ from the source-level model"
    ]


def _check_regs(arch: Any, regs: int) -> None:
    """Refuse a --regs value the occupancy step would refuse, before a long run, not after."""
    from perfcalc.errors import InputError

    limit = arch.max_registers_per_thread
    if not 0 <= regs <= limit:
        raise InputError(
            f"--regs {regs} is outside CC {arch.cc}'s range of 0 to "
            f"{limit} registers per thread ({arch.cite('max_registers_per_thread')})"
        )


def _check_dict(check: Any) -> dict[str, Any]:
    from perfcalc.report import to_jsonable

    return to_jsonable(check)


def _allocation(result: Any, regs: int) -> tuple[int, int, str]:
    """(registers per thread, static shared bytes, a note): ptxas's report where the PTX engine
    ran it, else --regs and the simulator's layout."""
    from perfcalc.model.ptxas import entry_resources

    k = entry_resources(result.ptxas_log, result.entry)
    if k is not None:
        return (
            k.registers_per_thread,
            k.static_shared_memory_bytes,
            f"occupancy uses ptxas's allocation for {k.compiled_for}: {k.registers_per_thread} registers per "
            f"thread, {k.static_shared_memory_bytes} bytes of static shared memory"
            + (f", {k.spill_store_bytes} bytes of spill stores" if k.spill_store_bytes else ""),
        )
    return regs, _static_shared(result), _regs_note(regs)


def _regs_note(regs: int) -> str:
    return (
        f"occupancy assumes {regs} registers per thread (--regs): the simulator does not "
        f"compile the kernel, so ptxas's allocation is unknown"
    )


def _static_shared(result: Any) -> int:
    """Static __shared__ bytes per block as the execution core laid them out."""
    launch = getattr(result, "launch", None)
    return int(getattr(launch, "static_shared_bytes", 0) or 0)


def _on_terminal() -> bool:
    import sys

    return sys.stderr.isatty()


def _progress_option() -> dict[str, Any]:
    """`progress=` for run_kernel (a bar with elapsed time and ETA after one second) when stderr
    is a terminal."""
    if not _on_terminal():
        return {}
    from perfcalc.cli.progress import Progress

    return {"progress": Progress("simulating")}
