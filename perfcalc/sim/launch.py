"""The machine both front ends share about a launch: its validation against the Arch, the
launch record, the result type, the time limit, and the loop over the grid's chunks. It imports
no front end: sim/engine.py picks one and runs it (issue 29).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from perfcalc.errors import InputError, TimeLimitExceeded
from perfcalc.limits import current_limit, past_time_limit, time_limit_seconds
from perfcalc.memory.cache_hierarchy import CacheHierarchy, CacheReport
from perfcalc.results import Result
from perfcalc.sim import heap_reuse
from perfcalc.sim.counters import Counters, freeze, new_site_counts
from perfcalc.sim.safety import Fault, FaultSignal
from perfcalc.specs import Arch
from perfcalc.specs.arch import display_file
from perfcalc.specs.dims import launch_dims
from perfcalc.units import seconds as seconds_text

MIN_SECONDS_PER_THREAD = 1e-9  # see perfcalc/limits.py


def _refuse_if_too_long(
    threads: int, blocks_done: int, nblocks: int, chunks_start: float, what: str = "blocks"
) -> None:
    limit = current_limit()
    if limit is None:
        return
    start, seconds = limit
    if blocks_done == 0:
        estimate = threads * MIN_SECONDS_PER_THREAD
        basis = f"at least 1 ns for each of its {threads} lanes, 32 per warp"
    else:
        elapsed = time.monotonic() - chunks_start
        estimate = (chunks_start - start) + elapsed / blocks_done * nblocks
        basis = f"{seconds_text(elapsed)} for the first {blocks_done} of {nblocks} {what}"
    if estimate > seconds:
        raise TimeLimitExceeded(
            f"simulating this launch would take about {seconds_text(estimate)} ({basis}), "
            f"over the limit of {seconds_text(seconds)} (--max-seconds / max_seconds)",
            "use a smaller launch; on a product (--gpu) without --exact, a sample of the blocks is simulated",
        )


@dataclass(frozen=True)
class LaunchInfo:
    """The launch as simulated."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    blocks: int
    threads_per_block: int
    threads: int
    warps_per_block: int
    warps: int
    static_shared_bytes: int
    dynamic_shared_memory_bytes: int


@dataclass(frozen=True)
class SimResult(Result):
    """Counters (total and per source line of the access), the launch, and any fault."""

    kernel: str
    counters: Counters
    per_site: dict[int, Counters]
    launch: LaunchInfo
    faults: tuple[Fault, ...] = field(default_factory=tuple)
    engine: str = "source"
    compiler: str = ""
    # `ptxas -v` for the compiled kernel (PTX engine with ptxas installed): its registers and
    # static shared memory give exact occupancy; `entry` is the kernel's mangled name in it.
    ptxas_log: str | None = None
    entry: str = ""
    # the L1/L2 model's totals when run_kernel was given `caches`
    caches: CacheReport | None = None
    # call-site line -> counters of the code inlined there from __device__ functions (PTX
    # engine; the same work is in per_site at the function's own lines, so not in the total)
    inlined: dict[int, Counters] = field(default_factory=dict)
    # the file whose lines `per_site` counts at (PTX engine: the one defining the kernel, which
    # may be a file the source includes; "" for the source itself) and what compiling it took
    source_file: str = ""
    compile_notes: tuple[str, ...] = ()
    # shared-memory races a run that goes on through them kept (whole programs): the first
    races: tuple[Fault, ...] = ()
    # accesses just past an allocation into memory a GPU has mapped, run through (whole programs)
    overruns: tuple[Fault, ...] = ()
    # PTX engine: (instructions issued, global-load waits, shared-load waits) of the warps with the
    # longest own chains (sim/ptx/warp_chains.py); a sample's, not scaled
    longest_warps: tuple[tuple[int, int, int], ...] = ()

    @property
    def instructions(self) -> dict[str, int]:
        """Warp-level instructions executed, by kind (see counters.py)."""
        return dict(self.counters.warp_instructions)


def dims(value: object, what: str) -> tuple[int, int, int]:
    """A launch's grid or block as (x, y, z): the one parser of specs/dims.py."""
    return launch_dims(value, what)


def arch_file(arch: object) -> str:
    return display_file(getattr(arch, "source_file", ""))


def validate_launch(arch: Arch, grid: tuple[int, int, int], block: tuple[int, int, int]) -> None:
    src = arch_file(arch)
    max_block = arch.max_block_dim
    for i, axis in enumerate("xyz"):
        if block[i] > max_block[i]:
            raise InputError(
                f"block.{axis} = {block[i]} exceeds the limit {max_block[i]} (max_block_dim[{i}] in {src})"
            )
    threads = block[0] * block[1] * block[2]
    limit = arch.max_threads_per_block
    if threads > limit:
        raise InputError(
            f"block of {block[0]}x{block[1]}x{block[2]} = {threads} threads "
            f"exceeds the limit {limit} (max_threads_per_block in {src})"
        )
    max_grid = getattr(arch, "max_grid_dim", None)
    if max_grid is not None:
        for i, axis in enumerate("xyz"):
            if grid[i] > max_grid[i]:
                raise InputError(
                    f"grid.{axis} = {grid[i]} exceeds the limit {max_grid[i]} (max_grid_dim[{i}] in {src})"
                )


# run_kernel(caches=...): a model, or a function the engine calls with the kernel's static
# shared bytes, ptxas's report (PTX engine, else None) and entry name once it knows them
CacheFactory = Callable[[int, "str | None", str], CacheHierarchy]


@dataclass(frozen=True)
class RunOptions:
    """How one launch runs, whichever engine runs it (perfcalc.sim.engine.run_kernel documents
    each): one typed value from the library call down to the engine, not a dict of keywords."""

    dynamic_shared_memory_bytes: int = 0
    defines: Mapping[str, int | float | str | None] | None = None
    iteration_cap: int = 1_000_000
    cache: str | None = None
    bank_mode: int | None = None
    source_name: str = "<source>"
    raise_on_fault: bool = True
    progress: Callable[[int, int], None] | None = None
    caches: CacheHierarchy | CacheFactory | None = None

    def __post_init__(self) -> None:
        cap, dyn = self.iteration_cap, self.dynamic_shared_memory_bytes
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
            raise InputError(f"iteration_cap = {cap!r} must be an int >= 1")
        if isinstance(dyn, bool) or not isinstance(dyn, int) or dyn < 0:
            raise InputError(f"dynamic_shared_memory_bytes = {dyn!r} must be an int >= 0")


DEFAULT_OPTIONS = RunOptions()


def check_shared_memory(arch: Arch, static: int, dynamic: int) -> None:
    """Refuse a block whose shared memory cannot launch: the static part against the per-block
    limit, static + dynamic against the opt-in limit where the CC has one (both engines)."""
    src = arch_file(arch)
    static_limit = arch.max_shared_memory_per_block_bytes
    if static > static_limit:
        raise InputError(
            f"static __shared__ memory of {static} bytes exceeds the limit "
            f"{static_limit} (max_shared_memory_per_block_bytes in {src})"
        )
    limit = arch.max_shared_memory_per_block_launchable_bytes
    optin = arch.max_shared_memory_per_block_optin_bytes
    key = "max_shared_memory_per_block_optin_bytes" if optin else "max_shared_memory_per_block_bytes"
    if static + dynamic > limit:
        raise InputError(
            f"__shared__ memory of {static} static + {dynamic} dynamic bytes exceeds the limit {limit} ({key} in {src})"
        )


def make_caches(
    caches: CacheHierarchy | CacheFactory | None, static_shared: int, ptxas_log: str | None, entry: str
) -> CacheHierarchy | None:
    """The cache model for this run (see CacheFactory)."""
    if caches is None or isinstance(caches, CacheHierarchy):
        return caches
    return caches(static_shared, ptxas_log, entry)


def run_chunks(
    nblocks: int,
    warps_per_block: int,
    chunk_lanes: int,
    caches: CacheHierarchy | None,
    body: Callable[[np.ndarray], None],
    progress: Callable[[int, int], None] | None,
    raise_on_fault: bool,
) -> list[Fault]:
    """Call `body(block_ids)` over the launch's blocks, a chunk of about `chunk_lanes` lanes at
    a time (whole blocks; with a cache model, one wave per chunk, since the resident blocks run
    in lock-step), telling the cache model each chunk's blocks; return the fault that stopped
    the run, if any (raised instead unless raise_on_fault is False)."""
    per_chunk = max(1, chunk_lanes // (32 * warps_per_block))
    if caches is not None:
        per_chunk = caches.config.blocks_per_wave
    if min(per_chunk, nblocks) * 32 * warps_per_block >= heap_reuse.LANES_WORTH_IT:
        heap_reuse.keep_freed_memory()
    if caches is not None and caches.sample is not None:
        chunks: Iterable[np.ndarray] = caches.sample.chunks(nblocks, per_chunk, caches.config.sms)
    else:
        chunks = (
            np.arange(first, min(first + per_chunk, nblocks), dtype=np.int64) for first in range(0, nblocks, per_chunk)
        )
    whole = caches is None or caches.sample is None  # a sample's size is the sampler's business
    chunks_start = time.monotonic()
    if whole:
        _refuse_if_too_long(nblocks * 32 * warps_per_block, 0, nblocks, chunks_start)
    done = 0
    since = 0  # blocks done when the projection's rate was last reset (the cache model stopped)
    with np.errstate(all="ignore"):
        try:
            for ids in chunks:
                if done > since and whole:
                    ahead = _blocks_at_this_rate(caches, done, nblocks, per_chunk)
                    what = "blocks" if since == 0 else "blocks left once the cache model's budget was spent"
                    _refuse_if_too_long(0, done - since, ahead - since, chunks_start, what)
                elif done and past_time_limit():
                    raise TimeLimitExceeded(
                        f"the simulation passed its limit of {time_limit_seconds():g} "
                        f"s (--max-seconds / max_seconds) after {done} blocks"
                    )
                if caches is not None:
                    caches.begin_chunk(ids, 32 * warps_per_block)
                body(ids)
                done += len(ids)
                if caches is not None and done < nblocks and whole and caches.past_budget():
                    caches.stop_recording()  # the rest runs exactly, outside the model, faster
                    since, chunks_start = done, time.monotonic()
                if progress is not None:
                    progress(int(ids[-1]) + 1, nblocks)
        except FaultSignal as sig:
            if raise_on_fault:
                raise
            return [sig.fault]
    return []


def _blocks_at_this_rate(caches: CacheHierarchy | None, done: int, nblocks: int, per_chunk: int) -> int:
    """The blocks the current per-block rate will run: all of them, except while the cache model
    follows a launch it will stop following at its request budget (at the rate of its requests
    so far, rounded up to whole waves); the rest is projected at its own rate once it runs."""
    if caches is None or not caches.recording or caches.request_budget is None or caches.wavefronts == 0:
        return nblocks
    blocks = math.ceil(caches.request_budget * done / caches.wavefronts)
    return min(nblocks, max(done, -(-blocks // per_chunk) * per_chunk))


def site_totals(site_counts: dict[int, list[int]]) -> tuple[dict[int, Counters], Counters]:
    """Per-line counters (lines that counted anything) and their sum."""
    per_site = {line: freeze(c) for line, c in sorted(site_counts.items()) if any(c)}
    total = freeze(new_site_counts())
    for c in per_site.values():
        total = total + c
    return per_site, total
