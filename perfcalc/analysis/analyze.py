"""THE question, one library call: what does this launch cost on these GPUs, and why.

`analyze(kernel, targets, options)` takes a kernel (a catalog entry at given parameters, or a
user's .cu file with its launch and inputs), one or more Targets (specs/target.py) and the
run's options, and returns a frozen RunReport (analysis/run_report.py): per Target, the
analytic prediction (catalog kernels), what the engine counted (per line and in total),
occupancy with its registers' source, the L1/L2 model and the predicted time with its bound
where the Target names a product, and notes saying where each number came from. `run`,
`matmul`, `roofline`, `report` and `occupancy --source` all answer through here (issue 29).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from perfcalc.analysis.launch_advice import advise_launch
from perfcalc.analysis.launch_report import (
    ASSUMED_REGISTERS,
    LaunchReport,
    analyze_catalog_kernel,
    analyze_source_kernel,
)
from perfcalc.analysis.run_report import ModelSummary, Registers, RunReport, SiteRow, TargetRun
from perfcalc.analysis.sampling import DEFAULT_BUDGET_S
from perfcalc.arguments import check_fields
from perfcalc.errors import InputError
from perfcalc.limits import check_max_seconds, time_limit
from perfcalc.model.occupancy import occupancy
from perfcalc.model.predict import Prediction, predict
from perfcalc.model.ptxas import entry_resources
from perfcalc.sim.engine import resolve_engine, run_kernel
from perfcalc.sim.launch import SimResult
from perfcalc.sim.references import ResultCheck, make_user_arrays, parse_array_option, run_catalog_kernel
from perfcalc.specs.arch import Arch
from perfcalc.specs.counters import SITE_COUNTER_NAMES
from perfcalc.specs.dims import dims_as_given
from perfcalc.specs.kernels import KernelSpec, get_kernel, launch_geometry, resolve_params
from perfcalc.specs.target import Target

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class CatalogKernel:
    """A kernel of the catalog (kernels.yaml, or a user's catalog file) at given parameters."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)
    catalog_file: Path | None = None

    def __post_init__(self) -> None:
        check_fields(self)
        if self.catalog_file is not None:
            object.__setattr__(self, "catalog_file", Path(self.catalog_file))


@dataclass(frozen=True)
class SourceKernel:
    """A user's .cu file, the kernel in it, its launch and its inputs: `arrays` as `--array`
    takes them (NAME=DTYPE:COUNT, NAME=@FILE.npy; seeded random values), `scalars` by name."""

    path: Path
    kernel: str | None
    grid: object
    block: object
    arrays: tuple[str, ...] = ()
    scalars: Mapping[str, Any] = field(default_factory=dict)
    defines: Mapping[str, Any] = field(default_factory=dict)
    dynamic_shared_memory_bytes: int = 0
    include_dirs: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_fields(self)
        object.__setattr__(self, "path", Path(self.path))


@dataclass(frozen=True)
class RunOptions:
    """How to run: the engine ("source", "ptx", "auto"), the CC 2.x/3.x cache and bank modes,
    the registers assumed where ptxas did not compile, the loop cap, and whether a launch on
    a product's caches may be sampled (`exact` False) when large."""

    engine: str = "source"
    cache: str | None = None
    bank_mode: int | None = None
    registers: int = ASSUMED_REGISTERS
    iteration_cap: int = 1_000_000
    exact: bool = False
    progress: Progress | None = field(default=None, compare=False)
    compiler: str | None = None  # the PTX engine's route: auto, nvcc, nvrtc (sim/ptx/toolchain.py)
    nvcc: str | None = None  # a user's own nvcc (else $PERFCALC_NVCC, $CUDA_HOME, the wheel's)
    budget_s: float = DEFAULT_BUDGET_S  # seconds of simulation a sampled launch may take (sampling.py)
    max_seconds: float | None = None  # the whole analysis's time limit (limits.py; None: 600 s or --max-seconds)

    def __post_init__(self) -> None:
        check_fields(self)
        if self.max_seconds is not None:
            check_max_seconds(self.max_seconds)


def engine_choice(engine: str) -> tuple[str, str | None]:
    """('ptx' | 'source', a one-line note or None) for an engine name ('auto' decides)."""
    return resolve_engine(engine)


def analyze(
    kernel: CatalogKernel | SourceKernel, targets: Target | Sequence[Target], options: RunOptions | None = None
) -> RunReport:
    """Predict (catalog kernels), run, check, count, and time the launch on every Target."""
    options = options or RunOptions()
    chosen, _note = resolve_engine(options.engine)
    options = replace(options, engine=chosen)
    every = (targets,) if isinstance(targets, Target) else tuple(targets)
    if not every:
        raise InputError("analyze needs at least one Target")
    if options.exact and any(t.gpu is None for t in every):
        raise InputError("--exact goes with --gpu (only a run on a product's caches is sampled)")
    for t in every:
        _check_registers(t.arch, options.registers)
    with time_limit(options.max_seconds):  # None: the command's --max-seconds, else the default
        if isinstance(kernel, CatalogKernel):
            runs = tuple(_catalog_run(kernel, t, options) for t in every)
        else:
            runs = tuple(_source_run(kernel, t, options) for t in every)
    return RunReport(runs[0].kernel, runs[0].params, runs)


# ---- a catalog kernel -------------------------------------------------------------------


def _catalog_run(k: CatalogKernel, target: Target, options: RunOptions) -> TargetRun:
    arch = target.arch
    spec = get_kernel(k.name, k.catalog_file)
    params = resolve_params(spec, dict(k.params))
    prediction = predict(spec, params, arch, cache=options.cache, bank_mode=options.bank_mode)
    grid, block, dyn = launch_geometry(spec, params)
    how: dict[str, Any] = {
        "cache": options.cache,
        "bank_mode": options.bank_mode,
        "iteration_cap": options.iteration_cap,
        "engine": options.engine,
        "progress": options.progress,
        **_compile_options(options),
    }
    report: LaunchReport | None = None
    if target.gpu is not None:
        report = analyze_catalog_kernel(
            spec, params, target.gpu, arch, registers=options.registers, exact=options.exact, **how
        )
        result, check = report.sim, report.result_check
    else:
        done = run_catalog_kernel(spec, params, arch, **how)
        result, check = done.result, done.result_check
    source_name = f"kernels.yaml:{spec.name}" if k.catalog_file is None else f"{k.catalog_file}:{spec.name}"
    return _target_run(
        target,
        spec.name,
        source_name,
        dict(params),
        (tuple(grid), tuple(block)),
        int(dyn),
        result,
        report,
        options,
        check=check,
        tolerance=spec.tolerance,
        prediction=prediction,
        sites=_site_rows(spec.source, result.per_site, prediction.per_site),
        notes=(list(prediction.notes), _differ_notes(spec, result)),
    )


def _differ_notes(spec: KernelSpec, result: SimResult) -> list[str]:
    return [f"the engines differ on {counter}: {why}" for counter, why in spec.engines_differ if result.engine == "ptx"]


# ---- a user's file ----------------------------------------------------------------------


def _source_run(k: SourceKernel, target: Target, options: RunOptions) -> TargetRun:
    from perfcalc.files import read_text

    arch = target.arch
    triton = str(k.path).endswith(".py")
    if triton:  # its block (32 x num_warps) and shared memory are what Triton compiles
        from perfcalc.sim.ptx.triton_run import triton_launch

        options = replace(options, engine="triton")
        # the compile needs the arrays' types only: one element each
        one = [replace(s, count=1) if s.dtype else s for s in map(parse_array_option, k.arrays)]
        probe = {**dict(make_user_arrays(one)), **k.scalars}
        threads, shared = triton_launch(k.path, k.kernel or "", probe, arch)
        k = replace(k, block=k.block or threads, dynamic_shared_memory_bytes=shared)
    grid, block = dims_as_given(k.grid, "--grid"), dims_as_given(k.block, "--block")
    text = read_text(k.path, "--triton" if triton else "--source", latin1_fallback=True)
    specs = [parse_array_option(a) for a in k.arrays]
    names = [s.name for s in specs]
    twice = sorted({n for n in names if names.count(n) > 1} | (set(names) & set(k.scalars)))
    if twice:
        raise InputError(f"{twice[0]} is given twice (--array and --param, or two --array); give each argument once")

    def make_args() -> dict[str, Any]:
        args: dict[str, Any] = dict(make_user_arrays(specs))  # seeded: the same every call
        args.update(k.scalars)
        return args

    run_options: dict[str, Any] = {
        "defines": dict(k.defines) or None,
        "cache": options.cache,
        "bank_mode": options.bank_mode,
        "source_name": str(k.path),
        "iteration_cap": options.iteration_cap,
        "engine": options.engine,
        "include_dirs": tuple(k.include_dirs),
        **_compile_options(options),
    }
    dyn = k.dynamic_shared_memory_bytes
    report: LaunchReport | None = None
    if target.gpu is not None:
        report = analyze_source_kernel(
            text,
            k.kernel,
            grid,
            block,
            make_args,
            target.gpu,
            arch,
            params=dict(k.scalars),
            registers=options.registers,
            dynamic_shared_memory_bytes=dyn,
            exact=options.exact,
            budget_s=options.budget_s,
            progress=options.progress,
            **run_options,
        )
        result = report.sim
    else:
        result = run_kernel(
            text,
            k.kernel,
            grid,
            block,
            make_args(),
            arch,
            dynamic_shared_memory_bytes=dyn,
            progress=options.progress,
            **run_options,
        )
    params = {**k.scalars, **{f"#define {n}": ("" if v is None else v) for n, v in k.defines.items()}}
    return _target_run(
        target,
        result.kernel,
        str(k.path),
        params,
        (grid, block),
        dyn,
        result,
        report,
        options,
        check=None,
        tolerance=None,
        prediction=None,
        sites=_site_rows(_lines_text(text, k.path, result), result.per_site, None, result.inlined),
        notes=(["no reference and no model for a user source: counters only"], []),
    )


# ---- what both share --------------------------------------------------------------------


def _target_run(
    target: Target,
    kernel: str,
    source_name: str,
    params: dict[str, Any],
    launch: tuple[tuple[int, ...], tuple[int, ...]],
    dyn: int,
    result: SimResult,
    report: LaunchReport | None,
    options: RunOptions,
    *,
    check: ResultCheck | None,
    tolerance: float | None,
    prediction: Prediction | None,
    sites: tuple[SiteRow, ...],
    notes: tuple[list[str], list[str]],
) -> TargetRun:
    """Occupancy (ptxas's allocation where the PTX engine ran it) and the notes, once: the
    kernel's own notes (`notes[0]`), the registers', the engine's, the rest (`notes[1]`), and
    the sample's."""
    registers = _allocation(result, options.registers)
    occ = occupancy(
        target.arch,
        math.prod(launch[1]),
        registers.per_thread,
        static_shared_memory_bytes=registers.static_shared_memory_bytes,
        dynamic_shared_memory_bytes=dyn,
    )
    return TargetRun(
        target=target,
        kernel=kernel,
        source_name=source_name,
        params=params,
        grid=launch[0],
        block=launch[1],
        sim=result,
        result_check=check,
        tolerance=tolerance,
        prediction=prediction,
        per_site=sites,
        occupancy=occ,
        registers=registers,
        launch_report=report,
        notes=(
            *notes[0],
            registers.note,
            *_engine_notes(result),
            *notes[1],
            *([report.sample_note] if report is not None and report.sample_note else []),
        ),
        model=None if prediction is None else ModelSummary(prediction.global_load_elements, prediction.cgma),
        advice=None if report is None else advise_launch(report, target.arch),
    )


def _compile_options(options: RunOptions) -> dict[str, Any]:
    """How the PTX engine compiles (only where it runs, so the C engine is never asked)."""
    if options.engine != "ptx":
        return {}
    return {"compiler": options.compiler, "nvcc": options.nvcc}


def _lines_text(text: str, path: Path, result: SimResult) -> str:
    """The text of the file the counts are kept at: the source, or the file it includes that
    defines the kernel (a Rodinia-style kernel.cu)."""
    own = result.source_file
    if not own or Path(own) == path.resolve() or not Path(own).is_file():
        return text
    from perfcalc.files import read_text

    return read_text(own, "the kernel's file", latin1_fallback=True)


def _check_registers(arch: Arch, regs: int) -> None:
    """Refuse a --regs value the occupancy step would refuse, before a long run, not after."""
    limit = arch.max_registers_per_thread
    if isinstance(regs, bool) or not isinstance(regs, int) or not 0 <= regs <= limit:
        raise InputError(
            f"--regs {regs} is outside CC {arch.cc}'s range of 0 to "
            f"{limit} registers per thread ({arch.cite('max_registers_per_thread')})"
        )


def _allocation(result: SimResult, regs: int) -> Registers:
    """ptxas's report where the PTX engine ran it, else `regs` and the simulator's layout."""
    k = entry_resources(result.ptxas_log, result.entry)
    if k is not None:
        return Registers(
            k.registers_per_thread,
            k.static_shared_memory_bytes,
            "ptxas",
            f"occupancy uses ptxas's allocation for {k.compiled_for}: {k.registers_per_thread} registers per "
            f"thread, {k.static_shared_memory_bytes} bytes of static shared memory"
            + (f", {k.spill_store_bytes} bytes of spill stores" if k.spill_store_bytes else ""),
        )
    return Registers(
        regs,
        int(result.launch.static_shared_bytes or 0),
        "assumed",
        f"occupancy assumes {regs} registers per thread (--regs): the simulator does not "
        f"compile the kernel, so ptxas's allocation is unknown",
    )


def _engine_notes(result: SimResult) -> list[str]:
    """Which engine counted, and what that means for comparing with the model."""
    if result.engine != "ptx":
        return ["counted by the C-subset engine: the source as written"]
    return [
        f"counted by the PTX engine on the code {result.compiler} produced: counts follow "
        f"the compiled code (kept-in-register values, merged loads, predicated branches), "
        f"so they can differ from the source-level model",
        *result.compile_notes,
    ]


def _site_rows(
    source: str,
    sim_sites: Mapping[int, Any],
    predicted_sites: Mapping[int, Any] | None,
    inlined: Mapping[int, Any] | None = None,
) -> tuple[SiteRow, ...]:
    """Per source line: its counters (and prediction); then, for a line that calls an inlined
    __device__ function, the inlined code's counters as their own row."""
    lines = source.splitlines()

    def code(line: int) -> str:
        return lines[line - 1].strip() if 0 < line <= len(lines) else ""

    rows = []
    memory_lines = {ln for ln, c in sim_sites.items() if any(getattr(c, n, 0) for n in SITE_COUNTER_NAMES)}
    for line in sorted(memory_lines | set(predicted_sites or {})):
        pred = None
        if predicted_sites is not None:
            p = predicted_sites.get(line)
            pred = {n: getattr(p, n, 0) if p is not None else 0 for n in SITE_COUNTER_NAMES}
        rows.append(SiteRow(line, code(line), sim_sites.get(line), pred, False))
    for line, counters in sorted((inlined or {}).items()):
        if any(getattr(counters, n, 0) for n in SITE_COUNTER_NAMES):
            rows.append(SiteRow(line, code(line) + "  [inlined calls]", counters, None, True))
    return tuple(sorted(rows, key=lambda r: (r.line, r.inlined)))
