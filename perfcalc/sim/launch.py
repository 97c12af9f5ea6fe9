"""What both front ends share about a launch: its validation against the Arch, the launch
record, the result type, and `run_kernel`, which picks the front end (engine).

Engines: "source" runs the CUDA C subset as written (sim/csubset/, pure Python, portable);
"ptx" compiles the whole .cu file with NVIDIA's runtime compiler and runs the PTX as compiled
(sim/ptx/); "auto" takes "ptx" where NVRTC is installed and working, else "source".
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field

import numpy as np

from perfcalc.errors import InputError
from perfcalc.memory.cache_hierarchy import CacheHierarchy, CacheReport
from perfcalc.results import Result
from perfcalc.sim import heap_reuse
from perfcalc.sim.counters import Counters, freeze, new_site_counts
from perfcalc.sim.safety import Fault, FaultSignal
from perfcalc.specs import Arch, as_arch
from perfcalc.specs.arch import display_file

ENGINES = ("auto", "ptx", "source")

# --- the time limit of a simulation ---------------------------------------------------------
# A launch is refused before it starts when even 1 ns per thread (far below any kernel's cost
# on NumPy) would pass the limit; after each chunk when the blocks so far project past it; and
# inside any loop (every 1,024 iterations) once the limit has passed, which also ends a loop
# that never finishes around a barrier, or nested loops each under the iteration cap, in
# bounded time.
DEFAULT_MAX_SECONDS = 600.0
MIN_SECONDS_PER_THREAD = 1e-9
_LIMIT: ContextVar[tuple[float, float] | None] = ContextVar("perfcalc_time_limit", default=None)


def check_max_seconds(seconds: float) -> None:
    if not (isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and 0 < seconds < math.inf):
        raise InputError(f"max_seconds = {seconds!r} must be a finite number of seconds > 0")


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Simulations inside stop once `seconds` have passed (None: the enclosing limit, else
    DEFAULT_MAX_SECONDS)."""
    if seconds is None and _LIMIT.get() is not None:
        yield
        return
    seconds = DEFAULT_MAX_SECONDS if seconds is None else seconds
    check_max_seconds(seconds)
    token = _LIMIT.set((time.monotonic(), float(seconds)))
    try:
        yield
    finally:
        _LIMIT.reset(token)


def past_time_limit() -> bool:
    """Has the current simulation's time limit passed? (cheap: loops call it)."""
    limit = _LIMIT.get()
    return limit is not None and time.monotonic() - limit[0] > limit[1]


def time_limit_seconds() -> float:
    limit = _LIMIT.get()
    return DEFAULT_MAX_SECONDS if limit is None else limit[1]


def _refuse_if_too_long(threads: int, blocks_done: int, nblocks: int, chunks_start: float) -> None:
    limit = _LIMIT.get()
    if limit is None:
        return
    start, seconds = limit
    if blocks_done == 0:
        estimate = threads * MIN_SECONDS_PER_THREAD
        basis = f"at least 1 ns for each of its {threads} lanes, 32 per warp"
    else:
        elapsed = time.monotonic() - chunks_start
        estimate = (chunks_start - start) + elapsed / blocks_done * nblocks
        basis = f"{elapsed:.3g} s for the first {blocks_done} of {nblocks} blocks"
    if estimate > seconds:
        raise InputError(
            f"simulating this launch would take about {estimate:.3g} s ({basis}), "
            f"over the limit of {seconds:g} s (--max-seconds / max_seconds); use a "
            "smaller launch, or --gpu to simulate a sample of the blocks"
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

    @property
    def instructions(self) -> dict[str, int]:
        """Warp-level instructions executed, by kind (see counters.py)."""
        return dict(self.counters.warp_instructions)


def dims(value: object, what: str) -> tuple[int, int, int]:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        vals = [int(value)]
    elif (
        isinstance(value, (tuple, list))
        and 1 <= len(value) <= 3
        and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)
    ):
        vals = [int(v) for v in value]
    else:
        raise InputError(f"{what} = {value!r}: give an int or a tuple of 1 to 3 ints")
    for axis, v in zip("xyz", vals, strict=False):
        if v < 1:
            raise InputError(f"{what}.{axis} = {v} must be at least 1 (CUDA launch rule)")
    return tuple(vals + [1] * (3 - len(vals)))  # type: ignore[return-value]


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


def resolve_engine(engine: str) -> tuple[str, str | None]:
    """('ptx' | 'source', a one-line note or None) for an engine name ('auto' decides)."""
    if engine not in ENGINES:
        raise InputError(f"engine {str(engine)[:40]!r} is not one of {', '.join(ENGINES)}")
    if engine != "auto":
        return engine, None
    from perfcalc.sim.ptx.nvrtc import CompilerUnavailable, library

    try:
        library()
    except CompilerUnavailable as exc:
        return "source", f"note: running the C-subset engine ({exc})"
    return "ptx", None


# run_kernel(caches=...): a model, or a function the engine calls with the kernel's static
# shared bytes, ptxas's report (PTX engine, else None) and entry name once it knows them
CacheFactory = Callable[[int, "str | None", str], CacheHierarchy]


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
    with np.errstate(all="ignore"):
        try:
            for ids in chunks:
                if done and whole:
                    _refuse_if_too_long(0, done, nblocks, chunks_start)
                elif done and past_time_limit():
                    raise InputError(
                        f"the simulation passed its limit of {time_limit_seconds():g} "
                        f"s (--max-seconds / max_seconds) after {done} blocks"
                    )
                if caches is not None:
                    caches.begin_chunk(ids, 32 * warps_per_block)
                body(ids)
                done += len(ids)
                if progress is not None:
                    progress(int(ids[-1]) + 1, nblocks)
        except FaultSignal as sig:
            if raise_on_fault:
                raise
            return [sig.fault]
    return []


def site_totals(site_counts: dict[int, list[int]]) -> tuple[dict[int, Counters], Counters]:
    """Per-line counters (lines that counted anything) and their sum."""
    per_site = {line: freeze(c) for line, c in sorted(site_counts.items()) if any(c)}
    total = freeze(new_site_counts())
    for c in per_site.values():
        total = total + c
    return per_site, total


def run_kernel(
    source: str,
    kernel: str | None,
    grid: object,
    block: object,
    args: dict[str, object],
    arch: Arch | str,
    dynamic_shared_memory_bytes: int = 0,
    defines: Mapping[str, int | float | str] | None = None,
    iteration_cap: int = 1_000_000,
    cache: str | None = None,
    bank_mode: int | None = None,
    source_name: str = "<source>",
    raise_on_fault: bool = True,
    progress: Callable[[int, int], None] | None = None,
    engine: str = "source",
    include_dirs: tuple[str, ...] = (),
    caches: CacheHierarchy | CacheFactory | None = None,
    max_seconds: float | None = None,
) -> SimResult:
    """Run `kernel` of CUDA `source` for every thread of the launch, count, check for faults.

    Pointer parameters are bound to the 1-D NumPy arrays in `args` and written in place;
    scalar parameters and `__constant__` arrays are taken from `args` by name. `engine` is
    "source" (the C subset as written), "ptx" (the whole file through NVRTC, as compiled) or
    "auto". Faults raise KernelFault (one line, compute-sanitizer style) unless
    `raise_on_fault` is False, in which case the run stops at the first fault and returns it.
    With `caches` (memory.cache_hierarchy, or a CacheFactory), every global access also feeds
    that L1/L2 model, the blocks run one wave per chunk, and the result carries its report.
    `max_seconds` bounds the simulation (None: an enclosing `time_limit`, else 10 minutes): a
    launch projected past it is refused (InputError), a loop still running then is a fault.
    """
    chosen, _note = resolve_engine(engine)
    _check_run_arguments(source, kernel, dynamic_shared_memory_bytes, defines, bank_mode, chosen)
    arch = as_arch(arch)
    with time_limit(max_seconds):
        if chosen == "ptx":
            from perfcalc.sim.ptx.run import run_ptx

            return run_ptx(
                source,
                kernel,
                grid,
                block,
                args,
                arch,
                dynamic_shared_memory_bytes,
                defines=defines,
                iteration_cap=iteration_cap,
                cache=cache,
                bank_mode=bank_mode,
                source_name=source_name,
                raise_on_fault=raise_on_fault,
                progress=progress,
                include_dirs=include_dirs,
                caches=caches,
            )
        from perfcalc.sim.csubset.run import run_csubset

        return run_csubset(
            source,
            kernel,
            grid,
            block,
            args,
            arch,
            dynamic_shared_memory_bytes,
            defines,
            iteration_cap,
            cache,
            bank_mode,
            source_name,
            raise_on_fault,
            progress,
            caches,
        )


def _check_run_arguments(
    source: object,
    kernel: object,
    dynamic_shared_memory_bytes: object,
    defines: object,
    bank_mode: object,
    engine: object,
) -> None:
    """The library's own checks, so a wrong type is an InputError naming the argument, never an
    AttributeError from deep inside a front end."""
    if not isinstance(source, str):
        raise InputError(f"source must be the CUDA C text (a str), got {type(source).__name__}")
    if not (kernel is None or (isinstance(kernel, str) and kernel.strip())):
        raise InputError(
            f"kernel must be the name of a __global__ function (or None for the file's only one), got {kernel!r}"
        )
    if isinstance(dynamic_shared_memory_bytes, bool) or not isinstance(dynamic_shared_memory_bytes, int):
        raise InputError(f"dynamic_shared_memory_bytes = {dynamic_shared_memory_bytes!r} must be an int >= 0")
    if bank_mode is not None and (
        isinstance(bank_mode, bool) or not isinstance(bank_mode, int) or bank_mode not in (4, 8)
    ):
        raise InputError(f"bank_mode = {bank_mode!r} must be 4 or 8 (bytes per bank) or None")
    if defines is not None and not isinstance(defines, dict):
        raise InputError(f"defines must be a dict of NAME -> value, got {type(defines).__name__}")
    for name, value in (defines or {}).items():
        if not isinstance(name, str) or not name.isidentifier():
            raise InputError(f"define name {name!r} is not an identifier")
        if engine != "ptx" and isinstance(value, str) and any(c in value for c in ";{}#\n\\"):
            raise InputError(
                f"define {name}={value[:40]!r}: the source engine substitutes a value "
                "or expression, not statements (';', braces, '#' or a newline)"
            )
