"""One launch on one product, predicted, run and timed: the typed report the CLI and report/
render (issue #9, part 4).

`analyze_catalog_kernel` does, for a catalog kernel at given parameters on a product: the
analytic counters (model/predict), the execution core with the product's L1/L2 model (sampled
when large, analysis/sampling), occupancy (with ptxas's registers where the PTX engine ran it),
and the time model (model/time_model via analysis/timing). `roofline`, `report` and `matmul`
take their figures from here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from perfcalc.analysis.caches import cache_model_factory
from perfcalc.analysis.sampling import DEFAULT_BUDGET_S, SampledRun, run_with_sampling
from perfcalc.analysis.timing import run_time
from perfcalc.memory.block_sample import BlockSample
from perfcalc.memory.cache_hierarchy import CacheReport
from perfcalc.model.occupancy import OccupancyInputs, occupancy
from perfcalc.model.predict import predict
from perfcalc.model.ptxas import entry_resources
from perfcalc.model.time_model import TimePrediction, time_fields
from perfcalc.results import plain
from perfcalc.sim.counters import Counters
from perfcalc.sim.launch import SimResult
from perfcalc.sim.references import ResultCheck, input_bytes, run_catalog_kernel
from perfcalc.specs.arch import Arch
from perfcalc.specs.gpu import Gpu
from perfcalc.specs.kernels import KernelSpec, launch_geometry, resolve_params

# what `run` assumes without ptxas (cli/run.py --regs default)
ASSUMED_REGISTERS = 32


@dataclass(frozen=True)
class LaunchReport:
    """Everything perfcalc knows about one launch on one product."""

    kernel: str
    params: dict[str, int]
    gpu: str
    cc: str
    grid: tuple[int, ...]
    block: tuple[int, ...]
    dynamic_shared_memory_bytes: int
    static_shared_memory_bytes: int  # ptxas's where the PTX engine ran it, else the source's
    registers_per_thread: int
    registers_source: str  # "ptxas" or "assumed"
    occupancy: float
    active_blocks_per_sm: int
    limiters: tuple[str, ...]
    counters: Counters
    predicted: dict[str, int]  # the catalog's analytic model (model/predict); {} for a user's file
    predicted_exact: bool
    caches: CacheReport
    time: TimePrediction
    engine: str
    sample: BlockSample | None
    simulated_blocks: int
    launch_blocks: int
    result_check: ResultCheck | None  # None when sampled (not every block ran)
    # the run itself (per-line counters, notes), extrapolated to the whole launch when sampled
    sim: SimResult = field(compare=False, repr=False)
    sample_note: str | None = None

    @property
    def occupancy_inputs(self) -> OccupancyInputs:
        """The configuration `occupancy` was computed for (what hints and sweeps vary)."""
        return OccupancyInputs(
            block_size=math.prod(self.block),
            registers_per_thread=self.registers_per_thread,
            static_shared_memory_bytes=self.static_shared_memory_bytes,
            dynamic_shared_memory_bytes=self.dynamic_shared_memory_bytes,
        )

    @property
    def intensity_flop_per_dram_byte(self) -> float | None:
        """Arithmetic intensity against the DRAM bytes the L1/L2 model leaves."""
        dram = self.time.dram_bytes_read + self.time.dram_bytes_written
        return self.counters.flops / dram if dram and self.counters.flops else None

    def to_dict(self) -> dict[str, Any]:
        """Plain values for JSON (time terms as name, seconds, formula)."""
        t = self.time
        return {
            "kernel": self.kernel,
            "params": dict(self.params),
            "gpu": self.gpu,
            "cc": self.cc,
            "grid": list(self.grid),
            "block": list(self.block),
            "dynamic_shared_memory_bytes": self.dynamic_shared_memory_bytes,
            "registers_per_thread": self.registers_per_thread,
            "registers_source": self.registers_source,
            "occupancy": self.occupancy,
            "active_blocks_per_sm": self.active_blocks_per_sm,
            "limiters": list(self.limiters),
            "engine": self.engine,
            **time_fields(t),
            "flops": self.counters.flops,
            "counters": self.counters.values(),
            "predicted": dict(self.predicted),
            "predicted_exact": self.predicted_exact,
            "intensity_flop_per_dram_byte": self.intensity_flop_per_dram_byte,
            "simulated_blocks": self.simulated_blocks,
            "launch_blocks": self.launch_blocks,
            "result_check": None if self.result_check is None else plain(self.result_check),
            "time_terms": [{"name": x.name, "time_s": x.time_s, "formula": x.formula} for x in t.terms],
        }


def analyze_catalog_kernel(
    spec: KernelSpec,
    overrides: dict[str, int] | None,
    gpu: Gpu,
    arch: Arch,
    *,
    registers: int | None = None,
    engine: str = "source",
    exact: bool = False,
    budget_s: float = DEFAULT_BUDGET_S,
    cache: str | None = None,
    bank_mode: int | None = None,
    iteration_cap: int = 1_000_000,
    progress: Callable[[int, int], None] | None = None,
    compiler: str | None = None,
    nvcc: str | None = None,
) -> LaunchReport:
    """Predict, run (sampled when large) and time a catalog kernel on `gpu`; `cache`,
    `bank_mode`, `iteration_cap`, `compiler`, `nvcc` go to the execution core, `progress` to
    the whole run."""
    params = resolve_params(spec, overrides)
    grid, block, dyn = launch_geometry(spec, params)
    threads = math.prod(block)
    model = predict(spec, params, arch, cache=cache, bank_mode=bank_mode)
    regs = ASSUMED_REGISTERS if registers is None else registers
    runs: list[Any] = []

    def run(sample: BlockSample | None) -> Any:
        factory = cache_model_factory(gpu, arch, threads, regs, dyn, cache, sample)
        runs.append(
            run_catalog_kernel(
                spec,
                params,
                arch,
                check=sample is None,
                engine=engine,
                caches=factory,
                cache=cache,
                bank_mode=bank_mode,
                iteration_cap=iteration_cap,
                **({"compiler": compiler, "nvcc": nvcc} if engine == "ptx" else {}),
                **({"progress": progress} if sample is None and progress is not None else {}),
            )
        )
        return runs[-1].result

    sampled = run_with_sampling(run, math.prod(grid), input_bytes(spec, params), budget_s, exact)
    return _report(
        spec.name,
        dict(params),
        tuple(grid),
        tuple(block),
        int(dyn),
        regs,
        gpu,
        arch,
        sampled,
        runs[-1].result_check if sampled.sample is None else None,
        model.counters(),
        bool(model.exact),
    )


def analyze_source_kernel(
    source: str,
    kernel: str | None,
    grid: tuple[int, ...],
    block: tuple[int, ...],
    make_args: Callable[[], dict[str, Any]],
    gpu: Gpu,
    arch: Arch,
    *,
    params: dict[str, Any] | None = None,
    registers: int | None = None,
    dynamic_shared_memory_bytes: int = 0,
    input_bytes_total: int | None = None,
    exact: bool = False,
    budget_s: float = DEFAULT_BUDGET_S,
    progress: Callable[[int, int], None] | None = None,
    **run_options: Any,
) -> LaunchReport:
    """A user's own kernel (no reference, no analytic model): run it (sampled when large) on
    `gpu`'s L1/L2 model and time it. `make_args` builds the arguments afresh for each run (a
    pilot and a sample must not see each other's writes); `input_bytes_total` is the bytes of
    the launch's arrays (by default the arrays make_args builds), which sampling needs to know
    whether they fit in the L2; `run_options` go to run_kernel."""
    from perfcalc.sim import run_kernel

    threads = math.prod(block)
    regs = ASSUMED_REGISTERS if registers is None else registers
    cache = run_options.get("cache")

    built: list[int] = []  # the bytes of the arrays the first run built

    def run(sample: BlockSample | None) -> SimResult:
        factory = cache_model_factory(gpu, arch, threads, regs, dynamic_shared_memory_bytes, cache, sample)
        extra: dict[str, Any] = {"progress": progress} if sample is None and progress is not None else {}
        args = make_args()
        if not built:
            built.append(sum(int(a.nbytes) for a in args.values() if isinstance(a, np.ndarray)))
        return run_kernel(
            source,
            kernel,
            grid,
            block,
            args,
            arch,
            dynamic_shared_memory_bytes=dynamic_shared_memory_bytes,
            caches=factory,
            **run_options,
            **extra,
        )

    footprint = (lambda: built[0]) if input_bytes_total is None else input_bytes_total
    sampled = run_with_sampling(run, math.prod(grid), footprint, budget_s, exact)
    return _report(
        sampled.result.kernel,
        dict(params or {}),
        tuple(grid),
        tuple(block),
        dynamic_shared_memory_bytes,
        regs,
        gpu,
        arch,
        sampled,
        None,
        {},
        False,
    )


def _report(
    name: str,
    params: dict[str, Any],
    grid: tuple[int, ...],
    block: tuple[int, ...],
    dyn: int,
    regs: int,
    gpu: Gpu,
    arch: Arch,
    sampled: SampledRun,
    check: ResultCheck | None,
    predicted: dict[str, int],
    exact: bool,
) -> LaunchReport:
    """The report of a (sampled) run: occupancy with ptxas's registers where the PTX engine ran
    it, then the time model."""
    result = sampled.result
    threads = math.prod(block)
    found = entry_resources(result.ptxas_log, result.entry)
    used_regs = found.registers_per_thread if found is not None else regs
    static = found.static_shared_memory_bytes if found is not None else result.launch.static_shared_bytes
    occ = occupancy(arch, threads, used_regs, static_shared_memory_bytes=static, dynamic_shared_memory_bytes=dyn)
    assert result.caches is not None
    return LaunchReport(
        kernel=name,
        params=params,
        gpu=gpu.key,
        cc=arch.cc,
        grid=grid,
        block=block,
        dynamic_shared_memory_bytes=dyn,
        static_shared_memory_bytes=static,
        registers_per_thread=used_regs,
        registers_source="ptxas" if found else "assumed",
        occupancy=float(occ.occupancy),
        active_blocks_per_sm=int(occ.active_blocks_per_sm),
        limiters=tuple(occ.limiters),
        counters=result.counters,
        predicted=predicted,
        predicted_exact=exact,
        caches=result.caches,
        time=run_time(result, int(occ.active_blocks_per_sm), gpu, arch),
        engine=result.engine,
        sample=sampled.sample,
        simulated_blocks=sampled.simulated_blocks,
        launch_blocks=sampled.launch_blocks,
        result_check=check,
        sim=result,
        sample_note=sampled.note,
    )
