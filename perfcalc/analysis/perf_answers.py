"""The answers of `matmul`, `roofline` and `report`, as library calls (issue 29): the lecture
notes' matrix-multiply analysis with each variant's run through `analyze`, a product's roofline
with catalog kernels placed on it, and the catalog's rows for a report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from perfcalc.errors import InputError
from perfcalc.model.roofline import Roofline, RooflinePoint, intensity, place, roofline
from perfcalc.specs.target import Target
from perfcalc.units import seconds

# The execution core and NumPy are imported where a kernel is run: a roofline of a product
# alone answers without them (benchmarks/bench_cli_latency.py).
if TYPE_CHECKING:
    from perfcalc.analysis.launch_report import LaunchReport
    from perfcalc.model.matmul import MatmulAnalysis
    from perfcalc.model.occupancy_sweep import Sweep
    from perfcalc.sim.references import ResultCheck
    from perfcalc.specs.kernels import KernelSpec

# Execution-core cost of the two seed kernels, seconds per W^3 (one thread-iteration of the
# inner product), measured at W=1024 (CC 1.0 and 9.0 alike) on the 2-core x86-64 sandbox
# (benchmarks/bench_matmul.py, benchmarks/RESULTS.md). Used only to warn before a long simulation.
SIM_SECONDS_PER_W3 = {"naive": 2.0e-9, "tiled": 2.5e-9}
# The PTX engine's, measured at W = 1024 (benchmarks/results_ptx_engine.md: 4.36 s and 6.37 s).
PTX_SECONDS_PER_W3 = {"naive": 4.1e-9, "tiled": 5.9e-9}
REFUSE_ABOVE_S = 600.0  # beyond this a simulation is refused: use --no-simulate
BarFactory = Callable[[str, str], Any]


def simulation_seconds(width: int, engines: tuple[str, ...] = ("source",)) -> float:
    """Expected execution-core time for naive + tiled at this width (measured rates)."""
    rates = {"source": SIM_SECONDS_PER_W3, "ptx": PTX_SECONDS_PER_W3}
    return sum(rate * width**3 for e in engines for rate in rates[e].values())


def verdict(check: ResultCheck) -> str:
    if check.passed:
        return "pass"
    if check.unwritten:
        return f"fail: {check.unwritten} output elements never written"
    return f"fail: max relative error {check.max_rel_error:.3g} > tolerance {check.tolerance:g} {check.worst}".rstrip()


def _counted(
    kernel: str, params: dict[str, int], target: Target, engine: str, regs: int | None, bar: BarFactory
) -> tuple[dict[str, int], str, Any]:
    """One matmul variant through `analyze`: its counters, its check's verdict, and (on a
    product) the time model's prediction."""
    from perfcalc.analysis.analyze import CatalogKernel, RunOptions, analyze
    from perfcalc.specs.counters import COUNTER_NAMES

    options = RunOptions(engine, registers=32 if regs is None else regs, progress=bar(kernel, engine))
    run = analyze(CatalogKernel(kernel, params), target, options).run
    counters = {n: getattr(run.counters, n) for n in COUNTER_NAMES}
    report = run.launch_report
    if run.result_check is not None:
        found = verdict(run.result_check)
    else:
        assert report is not None
        found = f"not checked: {report.simulated_blocks} of {report.launch_blocks} blocks sampled, counts extrapolated"
    return counters, found, None if report is None else report.time


def matmul(
    width: int,
    tile: int,
    target: Target,
    *,
    registers: int | None = None,
    latency_cycles: float | None = None,
    engines: Sequence[str] = ("source",),
    simulate: bool = True,
    bar: BarFactory = lambda kernel, engine: None,
) -> MatmulAnalysis:
    """The lecture notes' naive-vs-tiled analysis; each variant counted by `engines` (the first
    is the one the tables compare), on the product's caches and timed where the Target has one."""
    from perfcalc.model.matmul import (
        CATALOG_KERNELS,
        VARIANTS,
        analyze_matmul,
        catalog_counts,
        check_shape,
        with_prediction,
        with_simulation,
    )

    arch, product = target.arch, target.gpu
    check_shape(width, tile, arch)
    params = {"Width": width, "TILE_WIDTH": tile}
    analysis = analyze_matmul(width, tile, arch, product, registers, catalog_counts(width, tile, arch), latency_cycles)
    if not simulate:
        return analysis
    if product is None and simulation_seconds(width, tuple(engines)) > REFUSE_ABOVE_S:
        raise InputError(
            f"simulating width {width} would take about {seconds(simulation_seconds(width, tuple(engines)))} on the "
            f"execution core (limit {REFUSE_ABOVE_S:.0f} s, at the execution core's measured rate); "
            "add --no-simulate for the analytic model alone"
        )
    for v in VARIANTS:
        vregs = analysis.variant(v).registers_per_thread if product is not None else None
        runs = {e: _counted(CATALOG_KERNELS[v], params, target, e, vregs, bar) for e in engines}
        counters, found, timing = runs[engines[0]]
        if any(not r[1].startswith(("pass", "not checked")) for r in runs.values()):
            found = "; ".join(f"{e}: {r[1]}" for e, r in runs.items())
        others = {e: r[0] for e, r in runs.items()} if len(engines) > 1 else None
        analysis = with_simulation(analysis, v, counters, found, engines[0], others)
        if timing is not None:
            analysis = with_prediction(analysis, v, timing)
    return analysis


def engines_differ() -> dict[str, dict[str, str]]:
    """Per matmul variant, the counters the two engines count differently, and why."""
    from perfcalc.model.matmul import CATALOG_KERNELS, VARIANTS
    from perfcalc.specs.kernels import get_kernel

    return {v: dict(get_kernel(CATALOG_KERNELS[v]).engines_differ) for v in VARIANTS}


# ---- roofline ----------------------------------------------------------------------------


def kernel_params(kernels: list[str], param: list[str]) -> tuple[list[KernelSpec], dict[str, int]]:
    """Catalog specs and the --param overrides (each must belong to at least one kernel)."""
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


def catalog_launch_report(
    spec: KernelSpec, overrides: Mapping[str, int], target: Target, budget_s: float | None = None
) -> LaunchReport:
    """A catalog kernel run and timed on the Target's product, with the overrides that are its own."""
    from perfcalc.analysis.launch_report import analyze_catalog_kernel
    from perfcalc.analysis.sampling import DEFAULT_BUDGET_S

    own = {k: v for k, v in overrides.items() if k in spec.defaults}
    budget = DEFAULT_BUDGET_S if budget_s is None else budget_s
    return analyze_catalog_kernel(spec, own, target.product(), target.arch, budget_s=budget)


def kernel_point(spec: KernelSpec, overrides: Mapping[str, int], target: Target) -> tuple[tuple[int, int], str]:
    """A catalog kernel's flops and transaction bytes (for its intensity), with a label."""
    from perfcalc.model.predict import predict

    params = {k: v for k, v in overrides.items() if k in spec.defaults}
    p = predict(spec, params, target.arch)
    moved = p.global_load_bytes + p.global_store_bytes
    label = spec.name + ("(" + ", ".join(f"{k}={v}" for k, v in p.params.items()) + ")" if p.params else "")
    return (p.flops, moved), label


@dataclass(frozen=True)
class RooflineAnswer:
    """A product's roofline, the points placed on it, the kernels run and timed there, notes."""

    target: Target
    roof: Roofline
    points: list[RooflinePoint]
    reports: list[LaunchReport] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def roofline_answer(
    target: Target, kernels: list[str], param: list[str], intensities: Sequence[float]
) -> RooflineAnswer:
    """The roofline of the Target's product with the given intensities and catalog kernels
    placed on it (each kernel also run and timed on the product)."""
    roof = roofline(target.product(), target.arch)
    points = [place(roof, x, f"I = {x:g}") for x in intensities]
    notes: list[str] = []
    reports: list[LaunchReport] = []
    if kernels:
        specs, overrides = kernel_params(kernels, param)
        reports = [catalog_launch_report(spec, overrides, target) for spec in specs]
        for spec in specs:
            (flops, moved), label = kernel_point(spec, overrides, target)
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
    return RooflineAnswer(target, roof, points, reports, notes)


# ---- report ------------------------------------------------------------------------------


def catalog_rows(roof: Roofline, target: Target, specs: list[KernelSpec]) -> tuple[list[dict[str, Any]], list[str]]:
    """Each kernel at its default parameters: predicted counts, intensity, bound, time."""
    from perfcalc.model.predict import predict
    from perfcalc.model.timing import time_lower_bound

    rows: list[dict[str, Any]] = []
    notes: list[str] = []
    for spec in specs:
        p = predict(spec, None, target.arch)
        moved = p.global_load_bytes + p.global_store_bytes
        point = place(roof, p.flops / moved, spec.name) if p.flops and moved else None
        rows.append(
            {
                "kernel": spec.name,
                "params": ", ".join(f"{k}={v}" for k, v in p.params.items()),
                "flops": p.flops,
                "global_load_elements": p.global_load_elements,
                "cgma": p.cgma,
                "global_load_requests": p.global_load_requests,
                "global_load_transactions": p.global_load_transactions,
                "transactions_per_request": (
                    p.global_load_transactions / p.global_load_requests if p.global_load_requests else None
                ),
                "global_bytes_moved": moved,
                "intensity_flop_per_byte": point.intensity_flop_per_byte if point else None,
                "attainable_gflops": point.attainable_gflops if point else None,
                "bound": point.bound if point else "memory (no flops)",
                "roofline_time_s": time_lower_bound(p.flops, moved, roof.peak_gflops, roof.bandwidth_gbs),
                "model_exact": p.exact,
            }
        )
        notes.extend(p.notes)
    notes.append(
        "intensity and roofline_time_s use the bytes the predicted global transactions "
        "move, priced as DRAM traffic: on GPUs with caches (CC >= 2.0) reuse can beat "
        "them (lecture notes 003: GT 640 and GTX 780 timings)."
    )
    return rows, notes


def product_roofline(target: Target) -> Roofline:
    return roofline(target.product(), target.arch)


def launch_sweeps(report: LaunchReport, target: Target) -> list[Sweep]:
    """The spreadsheet's three graphs at a launch's block size, registers and shared memory."""
    from perfcalc.model.occupancy_sweep import compute_sweep

    return [compute_sweep(target.arch, report.occupancy_inputs, axis) for axis in ("block", "regs", "smem")]
