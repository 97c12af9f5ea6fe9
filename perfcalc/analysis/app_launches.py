"""One launch of a whole program (issue 31), run, counted and timed: what `perfcalc app` reports
per launch, like a row of Nsight Compute's.

The launch runs over the program's own device memory (sim/ptx/arena.py), exactly, every block:
the program reads its results. On a product, the same run feeds the product's L1/L2 model and
the time model gives the launch's time and bound (which the program's own event timers then
read). Occupancy uses ptxas's allocation for the kernel.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from perfcalc.analysis.caches import cache_model_factory
from perfcalc.analysis.launch_advice import LaunchAdvice, advise_counts
from perfcalc.analysis.sampling import DEFAULT_BUDGET_S, cache_request_budget, extrapolate_caches
from perfcalc.analysis.timing import run_time
from perfcalc.model.occupancy import OccupancyInputs, OccupancyResult, occupancy
from perfcalc.model.ptxas import KernelResources, entry_resources
from perfcalc.model.time_model import TimePrediction
from perfcalc.results import Result, plain
from perfcalc.sim.launch import SimResult
from perfcalc.sim.ptx.arena import Arena, ArenaLaunch, run_in_arena
from perfcalc.sim.ptx.compile import CompiledKernel
from perfcalc.specs.accuracy import ErrorBand
from perfcalc.specs.demangle import demangle
from perfcalc.specs.target import Target

ASSUMED_REGISTERS = 32  # where ptxas is not installed (analysis/launch_report.py says the same)


@dataclass(frozen=True)
class LaunchRecord(Result):
    """One launch: the kernel as C++ names it, its geometry, registers and occupancy, what the
    engine counted, and on a product its predicted time and bound; `fault` the compute-sanitizer
    style line where the launch faulted (the program then sees the error); `race` the first
    shared-memory race or divergent barrier it ran through, as a GPU does (compute-sanitizer's
    racecheck or synccheck reports it); `overrun` the first access just past an allocation."""

    index: int
    kernel: str
    entry: str
    short_name: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dynamic_shared_memory_bytes: int
    registers_per_thread: int
    registers_source: str
    occupancy: float
    active_blocks_per_sm: int
    limiters: tuple[str, ...]
    counters: dict[str, Any]
    gpu: str | None
    predicted_time_s: float | None
    bound: str | None
    fault: str | None
    l2_hit_rate: float | None = None
    race: str | None = None  # the first shared-memory race or divergent barrier, which the launch ran through
    overrun: str | None = None  # the first access past its allocation into mapped memory, ditto
    # where the L1/L2 model followed only the launch's leading waves (its request budget): which
    cache_sample: str | None = None
    dram_bytes: int | None = None
    error_band: ErrorBand | None = None  # the measured band of such predictions (specs/accuracy.py)
    advice: LaunchAdvice | None = None  # on a product: what to change (analysis/launch_advice.py)
    sim: SimResult | None = field(default=None, repr=False, compare=False)
    time: TimePrediction | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {f: plain(getattr(self, f)) for f in self.__dataclass_fields__ if f not in ("sim", "time")}


def _followed_part(result: SimResult) -> str | None:
    """Which part of the launch the cache model followed, where it stopped short of the end."""
    rep = result.caches
    if rep is None or not rep.chunk_blocks:
        return None
    followed, blocks = sum(rep.chunk_blocks), result.launch.blocks
    if followed >= blocks:
        return None
    waves = -(-blocks // rep.config.blocks_per_wave)
    return (
        f"the L1/L2 model followed the first {len(rep.chunk_blocks)} of {waves} waves ({followed} of {blocks} "
        f"blocks, its budget); caches and DRAM traffic extrapolated, counters exact"
    )


def short_name(kernel: str) -> str:
    """A kernel as Nsight Compute's short names show it: `DeviceRadixSortSingleTileKernel<...>`
    for a CUB kernel whose whole name runs to hundreds of characters."""
    head = kernel.split("(")[0] if "<" not in kernel.split("(")[0] else kernel
    depth, cut = 0, len(head)
    for i, ch in enumerate(head):
        if ch == "<":
            if depth == 0:
                cut = min(cut, i)
            depth += 1
        elif ch == ">":
            depth -= 1
    whole = head.split("::")[-1].strip() if "<" not in head else head[: head.rfind(">") + 1]
    if len(whole) <= 40 and "::" not in whole:
        return whole
    base = head[:cut].split("::")[-1].strip()
    return base + ("<...>" if cut < len(head) else "")


def resources(ck: CompiledKernel) -> KernelResources | None:
    """ptxas's registers and static shared memory for the kernel (None without ptxas)."""
    return entry_resources(ck.ptxas_log, ck.fn.name)


def launch_inputs(found: KernelResources | None, block_threads: int, dynamic: int) -> OccupancyInputs:
    """A launch's occupancy configuration: ptxas's registers and static shared memory (the
    assumed registers and none without ptxas), the launch's block and dynamic shared memory."""
    if found is None:
        return OccupancyInputs(block_threads, ASSUMED_REGISTERS, 0, dynamic)
    return OccupancyInputs(block_threads, found.registers_per_thread, found.static_shared_memory_bytes, dynamic)


def launch_occupancy(ck: CompiledKernel, target: Target, block_threads: int, dynamic: int) -> OccupancyResult:
    return _occupancy(target, launch_inputs(resources(ck), block_threads, dynamic))


def _occupancy(target: Target, inputs: OccupancyInputs) -> OccupancyResult:
    return occupancy(
        target.arch,
        inputs.block_size,
        inputs.registers_per_thread,
        static_shared_memory_bytes=inputs.static_shared_memory_bytes,
        dynamic_shared_memory_bytes=inputs.dynamic_shared_memory_bytes,
    )


def run_launch(
    index: int,
    launch: ArenaLaunch,
    arena: Arena,
    target: Target,
    source_name: str,
    iteration_cap: int = 1_000_000,
    progress: Callable[[int, int], None] | None = None,
    cache_budget_s: float | None = DEFAULT_BUDGET_S,
) -> LaunchRecord:
    """Run one launch of the program exactly over its memory; count, and time it on the
    Target's product where it names one. Every block runs and is counted; the L1/L2 model
    follows the launch's leading waves up to about `cache_budget_s` of its work (None: every
    block) and its traffic is extrapolated from them (analysis/sampling.extrapolate_caches):
    on a large launch the model costs 8 to 15 times the execution (benchmarks/RESULTS.md)."""
    ck = launch.kernel
    threads = math.prod(launch.block)
    found = resources(ck)
    inputs = launch_inputs(found, threads, launch.dynamic_shared_memory_bytes)
    regs = inputs.registers_per_thread
    gpu = target.gpu
    factory = (
        None
        if gpu is None
        else cache_model_factory(
            gpu,
            target.arch,
            threads,
            regs,
            launch.dynamic_shared_memory_bytes,
            request_budget=None if cache_budget_s is None else cache_request_budget(cache_budget_s),
        )
    )
    result = run_in_arena(launch, arena, target.arch, source_name, iteration_cap, factory, progress)
    sample = _followed_part(result)
    if sample is not None and result.caches is not None and not result.faults:
        allocated = sum(size for _, size in arena.allocations)  # the launch's arrays are among them
        caches = extrapolate_caches(result.caches, result.launch.blocks, allocated, result.caches.config.l2_bytes)
        result = replace(result, caches=caches)
    occ = _occupancy(target, inputs)
    fault = result.faults[0].message if result.faults else None
    time = None
    if gpu is not None and fault is None and result.caches is not None:
        time = run_time(result, int(occ.active_blocks_per_sm), gpu, target.arch)
    return LaunchRecord(
        index=index,
        kernel=demangle(ck.fn.name) or ck.fn.name,
        entry=ck.fn.name,
        short_name=short_name(ck.kernel),
        grid=launch.grid,
        block=launch.block,
        dynamic_shared_memory_bytes=launch.dynamic_shared_memory_bytes,
        registers_per_thread=regs,
        registers_source="ptxas" if found is not None else "assumed",
        occupancy=float(occ.occupancy),
        active_blocks_per_sm=int(occ.active_blocks_per_sm),
        limiters=tuple(occ.limiters),
        counters=result.counters.values(),
        gpu=None if gpu is None else gpu.key,
        predicted_time_s=None if time is None else time.predicted_time_s,
        bound=None if time is None else time.bound,
        fault=fault,
        race=result.races[0].message if result.races else None,
        overrun=result.overruns[0].message if result.overruns else None,
        cache_sample=sample,
        l2_hit_rate=None if time is None else time.l2_hit_rate,
        dram_bytes=None if time is None else time.dram_bytes_read + time.dram_bytes_written,
        error_band=None if time is None else time.error_band,
        advice=None
        if time is None
        else advise_counts(
            short_name(ck.kernel),
            target.arch,
            inputs,
            tuple(occ.limiters),
            result.counters,
            time,
            float(occ.occupancy),
        ),
        sim=result,
        time=time,
    )
