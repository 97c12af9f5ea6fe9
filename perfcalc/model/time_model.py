"""How long a launch takes on a product, and which unit limits it: the one time model (issue #9).

    T = launch overhead + max(throughput terms, latency term)

Throughput terms, each the time one unit needs for the kernel's counted work:
- DRAM: bytes read / (bandwidth x read efficiency) + bytes written / (bandwidth x write
  efficiency), the bytes from the L1/L2 model;
- L2: bytes L1 reads from L2 (misses, atomics) / L2 read bandwidth + sectors written (stores,
  atomics) / L2 write rate (the product's measured figures), else all bytes / L2 bytes per SM per
  clock x SMs x clock;
- L1/shared data array: global wavefronts (one per warp and 128-byte line an instruction touches)
  plus shared-memory wavefronts, at one wavefront per clock per SM;
- instruction issue: warp instructions (an integer division or modulo by a variable counted as the
  ~20 it compiles to) / (warp instructions per SM per clock x SMs x clock);
- FP32 / FP64 / integer pipes: warp instructions of the kind x 32 lanes / (lanes per SM per clock
  x SMs x clock) (the integer pipe at its measured rate: devices/timing.yaml);
- block dispatch: the blocks of the busiest SM x the time an SM takes to start one (measured):
  what bounds launches of many small, short blocks;
- atomic contention: the L2 applies the atomics on one line one request at a time, so the line
  with the most work takes its requests x their measured cost (memory/atomic_contention.py:
  integer reductions per warp and sector, float adds and exchanges per lane).
- shared atomics: an SM's shared unit applies a warp's lanes on one word one at a time (a warp
  the compiler combines counts once: memory/shared_atomics.py), at a measured cost per lane by
  class (integer, compare-and-swap, float add);
- constant requests: a warp's __constant__ load is one request per distinct address
  (Programming Guide), each beyond the first at a measured cost.
Per-SM terms are taken on the busiest SM: a grid of B blocks puts ceil(B / SMs) blocks on some SM
(the partial last wave); DRAM and L2 are shared by all SMs.

Latency term (Little's law, Volkov 2016, reference/perfmodel.md b4): a warp waits for each of its
global and shared loads, and for its block's own L1/shared wavefronts, which the block's warps put
through one data pipe at one a clock; the resident warps of an SM wait side by side, so the SM
needs waves x (global-load waits per warp x mean global latency + shared loads per warp x shared
latency + wavefronts per block + warp instructions per warp x the dependent-issue latency + the
block's own launch and exit), waves = ceil(B / (blocks per SM x SMs)), mean global latency = L1
hit rate x L1 latency + L1 misses x (L2 latency, or the DRAM latency for the share that DRAM
serves). Each latency is a pointer chase's (load to use); the block's launch and exit
(block_life_ns) is Volkov's one-load block life less that DRAM latency. The DRAM latency rises
with the DRAM's utilization U (devices/timing.yaml: idle latency + queue x U / (1 - U),
measured), and U is the DRAM-bandwidth term's share of the time, so the term is solved as a fixed
point: it is never below the DRAM-bandwidth term and approaches it as the DRAM saturates. A warp
waits once for the loads it issued before their first use (the PTX engine counts these waits on
the compiled code: sim/ptx/load_waits.py), so an unrolled loop's batch of loads costs one
latency; where the compiled order is unknown (the source engine) each load is a wait of its own,
an upper estimate. The dependent-issue latency (devices/timing.yaml, the Programming Guide's 4
cycles from CC 7.x on) charges each of a warp's instructions for waiting on the one before it, as
a warp with no instruction-level parallelism does: what bounds launches of a few long-running
warps. An FP64 instruction waits its own measured latency where there is one (8 cycles on CC 9.x:
DFMA, DADD and DMUL chains on sm_90, benchmarks/hw/dependent_latency_probe/), taken at the
launch's FP64 share.

Longest warp: the latency term spreads the launch's chains evenly over its warps; where one
warp does far more than the mean (one thread summing an array, a few working blocks among
thousands), the launch cannot end before that warp's own chain does, priced the same way (the
PTX engine keeps each warp's instructions and its waits for global and for shared loads:
sim/ptx/warp_chains.py).

Every rate is from devices/timing.yaml (sources there) or the product (devices/products.yaml);
nothing is fitted to a kernel.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from perfcalc.errors import InputError
from perfcalc.results import Result
from perfcalc.specs.accuracy import ErrorBand, error_band
from perfcalc.specs.arch import Arch
from perfcalc.specs.gpu import Gpu
from perfcalc.specs.timing import TimingRates, dram_latency_at


@dataclass(frozen=True)
class KernelWork:
    """What a launch does, counted (or extrapolated from a sample): the time model's input."""

    blocks: int
    warps_per_block: int
    active_blocks_per_sm: int
    warp_instructions: int
    int_divide_warp_instructions: int  # of warp_instructions: integer / or % by a variable
    fp32_warp_instructions: int
    fp64_warp_instructions: int
    global_load_requests: int  # warp-level load instructions (what a warp waits for)
    global_wavefronts: int
    shared_wavefronts: int
    shared_load_requests: int
    l2_bytes: int
    l2_read_bytes: int
    dram_bytes_read: int
    dram_bytes_written: int
    l1_hit_rate: float | None
    l2_hit_rate: float | None
    flops: int
    # the lines atomics contend for most: (combined requests, float lanes, exchange lanes)
    atomic_hot_lines: tuple[tuple[float, float, float], ...] = ()
    # shared atomics: lanes on each warp's busiest word, summed, by class (int, cas, float)
    shared_atomic_steps: tuple[int, int, int] = (0, 0, 0)
    # __constant__ requests beyond one per warp load (lanes reading distinct addresses)
    constant_extra_requests: int = 0
    # times a warp waits for its global loads (loads issued together wait once); None: one
    # wait per load, as where the compiled order of loads and uses is not known
    global_load_waits: int | None = None
    # tensor-core machine instructions (HMMA/IMMA) by kind (specs/counters.py TENSOR_KINDS)
    tensor_instructions: tuple[tuple[str, int], ...] = ()
    # (instructions issued, global-load waits, shared-load waits) of the warps with the longest own
    # chains (sim/ptx/warp_chains.py): the launch lasts at least as long as the longest; () where
    # not known (the source engine)
    longest_warps: tuple[tuple[int, int, int], ...] = ()
    # warp instructions of the integer kind (not floating-point, memory, branch or barrier), as
    # machine instructions; None where only C operations were counted (the source engine)
    int_warp_instructions: int | None = 0


@dataclass(frozen=True)
class Term:
    """One unit's time for the kernel, with the formula and inputs that give it."""

    name: str
    time_s: float
    formula: str


@dataclass(frozen=True)
class TimePrediction(Result):
    """The predicted time, the limiting unit, and every term it was the largest of."""

    gpu: str
    cc: str
    predicted_time_s: float
    launch_overhead_s: float
    bound: str
    bound_detail: str
    terms: tuple[Term, ...]
    omitted: tuple[str, ...]
    waves: int
    predicted_gflops: float
    predicted_dram_gbs: float
    dram_bytes_read: int
    dram_bytes_written: int
    l1_hit_rate: float | None
    l2_hit_rate: float | None
    # how far to trust it: the measured errors of held-back launches of the same bound and size
    # on this product (devices/time_accuracy.yaml); None where the product was never measured
    error_band: ErrorBand | None = None


# A prediction's figures under their JSON names (run's and roofline's documents): its own fields.
TIME_KEYS = (
    "predicted_time_s",
    "bound",
    "dram_bytes_read",
    "dram_bytes_written",
    "l1_hit_rate",
    "l2_hit_rate",
    "predicted_gflops",
    "predicted_dram_gbs",
    "bound_detail",
)


def time_fields(t: TimePrediction) -> dict[str, Any]:
    return {k: getattr(t, k) for k in TIME_KEYS}


def _tensor_term(
    work: KernelWork,
    rates: TimingRates,
    arch: Arch,
    sms: int,
    clock: float,
    busiest: float,
    per_sm: str,
    omitted: list[str],
) -> list[Term]:
    """The tensor pipe: each HMMA/IMMA instruction keeps its sub-partition's pipe busy for the
    kind's cycles (devices/timing.yaml); the SM's sub-partitions work side by side."""
    known = [(k, n) for k, n in work.tensor_instructions if k in rates.tensor_pipe_cycles]
    unknown = [k for k, _ in work.tensor_instructions if k not in rates.tensor_pipe_cycles]
    if unknown:
        omitted.append(f"tensor pipe for {', '.join(unknown)} (no sourced cycles for CC {arch.cc})")
    if not known:
        return []
    parts = arch.sub_partitions
    cycles = sum(n * rates.tensor_pipe_cycles[k] for k, n in known)
    shown = " + ".join(f"{n} {k[len('tensor_') :]} x {rates.tensor_pipe_cycles[k]:g}" for k, n in known)
    return [
        Term(
            "tensor pipe",
            cycles / (parts * sms * clock) * busiest,
            f"({shown}) cycles / {parts} sub-partitions {per_sm}",
        )
    ]


def _check(work: KernelWork) -> None:
    if work.blocks < 1 or work.warps_per_block < 1:
        raise InputError(
            f"a time needs at least one block and one warp, got {work.blocks} blocks of {work.warps_per_block} warps"
        )
    if work.active_blocks_per_sm < 1:
        raise InputError("the kernel cannot run: 0 blocks fit on an SM (see occupancy limiters)")


def dram_fraction(work: KernelWork) -> float:
    """Of the loads that reach the L2, the share that waits for DRAM: sectors filled from DRAM
    over sectors read from the L2 (a 64-byte fetch also brings the neighbouring sector, which
    the L2 counts as a hit but the warp waits for all the same)."""
    if work.l2_read_bytes <= 0:
        return 1.0 - (work.l2_hit_rate or 0.0)
    return min(1.0, max(0.0, work.dram_bytes_read / work.l2_read_bytes))


def mean_load_latency_cycles(work: KernelWork, rates: TimingRates, clock_hz: float, utilization: float = 0.0) -> float:
    """Mean latency of a warp's global load in SM cycles: L1 hits at the L1 latency, the rest
    at the L2's, of which the DRAM share (dram_fraction) at the DRAM latency for this DRAM
    utilization. A level without a sourced latency (or a GPU without that cache) is charged the
    next level's."""
    ns = dram_latency_at(rates, utilization)
    dram = ns * 1e-9 * clock_hz if ns is not None else rates.dram_latency_cycles
    l2 = rates.l2_latency_cycles if rates.l2_latency_cycles is not None else dram
    l1 = rates.l1_latency_cycles if rates.l1_latency_cycles is not None else l2
    h1 = work.l1_hit_rate or 0.0
    d = dram_fraction(work) if work.l2_hit_rate is not None else 1.0
    return h1 * l1 + (1 - h1) * ((1 - d) * l2 + d * dram)


def _at_dram_latency(
    work: KernelWork, rates: TimingRates, clock: float, dram_s: float, chain_cycles: Callable[[float], float]
) -> tuple[float, float, float]:
    """A chain whose DRAM loads wait the latency its own length implies (`chain_cycles`: its
    cycles at a mean load latency): (seconds, the DRAM utilization then, that mean latency)."""
    time_s = _fixed_point(dram_s, lambda u: chain_cycles(mean_load_latency_cycles(work, rates, clock, u)) / clock)
    u = dram_s / time_s if time_s > 0 and dram_s else 0.0
    return time_s, u, mean_load_latency_cycles(work, rates, clock, u)


def _fixed_point(bandwidth_s: float, chain_s: Callable[[float], float]) -> float:
    """The T with T = chain_s(U) and U = bandwidth_s / T (the DRAM busy that share of T):
    chain_s grows with U, so T - chain_s(bandwidth_s / T) grows with T; bisection."""
    if bandwidth_s <= 0:
        return chain_s(0.0)
    lo = bandwidth_s * (1 + 1e-9)
    hi = lo + chain_s(min(0.999, bandwidth_s / lo))
    for _ in range(100):
        mid = (lo + hi) / 2
        if mid - chain_s(bandwidth_s / mid) < 0:
            lo = mid
        else:
            hi = mid
    return hi


def predict_time(work: KernelWork, gpu: Gpu, arch: Arch, rates: TimingRates) -> TimePrediction:
    """The time model (module docstring) for `work` on `gpu`."""
    _check(work)
    sms, clock = gpu.sm_count, gpu.peak_clock_mhz * 1e6
    busiest = math.ceil(work.blocks / sms) / (work.blocks / sms)
    per_sm = f"/ ({sms} SMs x {gpu.peak_clock_mhz:g} MHz) x busiest-SM factor {busiest:.4g}"
    terms: list[Term] = []
    omitted: list[str] = []
    bw = gpu.memory_bandwidth_gbs * 1e9
    read_s = work.dram_bytes_read / (bw * rates.dram_read_efficiency)
    write_s = work.dram_bytes_written / (bw * rates.dram_write_efficiency)
    terms.append(
        Term(
            "DRAM bandwidth",
            read_s + write_s,
            f"{work.dram_bytes_read} B read / ({gpu.memory_bandwidth_gbs:g} GB/s x "
            f"{rates.dram_read_efficiency:g}) + {work.dram_bytes_written} B written / "
            f"({gpu.memory_bandwidth_gbs:g} GB/s x {rates.dram_write_efficiency:g})",
        )
    )
    if gpu.l2_bandwidth_gbs is not None and gpu.l2_write_gsectors_per_s and gpu.l2_cache_kb:
        written = work.l2_bytes - work.l2_read_bytes
        sectors = written / 32
        terms.append(
            Term(
                "L2 bandwidth",
                work.l2_read_bytes / (gpu.l2_bandwidth_gbs * 1e9) + sectors / (gpu.l2_write_gsectors_per_s * 1e9),
                f"{work.l2_read_bytes} B read / {gpu.l2_bandwidth_gbs:g} GB/s + "
                f"{sectors:.6g} sectors written / {gpu.l2_write_gsectors_per_s:g} G "
                f"per s (measured, products.yaml)",
            )
        )
    elif gpu.l2_bandwidth_gbs is not None and gpu.l2_cache_kb:
        terms.append(
            Term(
                "L2 bandwidth",
                work.l2_bytes / (gpu.l2_bandwidth_gbs * 1e9),
                f"{work.l2_bytes} B / {gpu.l2_bandwidth_gbs:g} GB/s (measured, products.yaml)",
            )
        )
    elif rates.l2_bytes_per_sm_per_clock is not None and gpu.l2_cache_kb:
        l2_rate = rates.l2_bytes_per_sm_per_clock * sms * clock
        terms.append(
            Term(
                "L2 bandwidth",
                work.l2_bytes / l2_rate,
                f"{work.l2_bytes} B / ({rates.l2_bytes_per_sm_per_clock:g} B per SM "
                f"per clock x {sms} SMs x {gpu.peak_clock_mhz:g} MHz)",
            )
        )
    else:
        omitted.append(f"L2 bandwidth (no sourced L2 rate for CC {arch.cc})")
    shared_cycles = work.shared_wavefronts * arch.shared_family.cycles_per_wavefront
    if rates.l1_bytes_per_sm_per_clock is not None:
        cycles = work.global_wavefronts * (128 / rates.l1_bytes_per_sm_per_clock) + shared_cycles
        terms.append(
            Term(
                "L1/shared wavefronts",
                cycles / (sms * clock) * busiest,
                f"({work.global_wavefronts} global + {work.shared_wavefronts} shared wavefronts) {per_sm}",
            )
        )
    else:
        omitted.append(f"L1 wavefronts (no sourced L1 rate for CC {arch.cc})")
        terms.append(
            Term(
                "shared-memory wavefronts",
                shared_cycles / (sms * clock) * busiest,
                f"{work.shared_wavefronts} wavefronts x {arch.shared_family.cycles_per_wavefront} cycles {per_sm}",
            )
        )
    issue = rates.issue_per_sm_per_clock
    extra = work.int_divide_warp_instructions * (rates.int_divide_instructions - 1)
    issued = work.warp_instructions + extra
    terms.append(
        Term(
            "instruction issue",
            issued / (issue * sms * clock) * busiest,
            f"({work.warp_instructions} warp instructions + "
            f"{work.int_divide_warp_instructions} integer divisions x "
            f"{rates.int_divide_instructions - 1:g} more each) / {issue:g} per SM per "
            f"clock {per_sm}",
        )
    )
    pipe = (sms, clock, busiest, per_sm)
    terms.append(_pipe_term("FP32 pipe", work.fp32_warp_instructions, gpu.fp32_cores_per_sm, "lanes", *pipe))
    if work.int_warp_instructions is None:
        omitted.append(
            "integer pipe (the source engine counts C operations, not machine instructions: --engine ptx prices it)"
        )
    else:
        rate = (rates.int_lanes_per_sm_per_clock, "lanes", f"no measured rate for CC {arch.cc}")
        _rated_pipe("integer pipe", work.int_warp_instructions, rate, pipe, terms, omitted)
    if work.tensor_instructions:
        terms.extend(_tensor_term(work, rates, arch, sms, clock, busiest, per_sm, omitted))
    rate = (gpu.fp64_results_per_sm_per_clock, "results", f"{gpu.name}: no sourced FP64 rate")
    _rated_pipe("FP64 pipe", work.fp64_warp_instructions, rate, pipe, terms, omitted)
    if rates.block_dispatch_ns is not None:
        per_sm_blocks = math.ceil(work.blocks / sms)
        terms.append(
            Term(
                "block dispatch",
                per_sm_blocks * rates.block_dispatch_ns * 1e-9,
                f"{per_sm_blocks} blocks on the busiest SM x {rates.block_dispatch_ns:g} ns to start each (measured)",
            )
        )
    else:
        omitted.append(f"block dispatch (no measured rate for CC {arch.cc})")
    terms.extend(_serialised_terms(work, rates, arch, sms, busiest, omitted))
    per_wave = work.active_blocks_per_sm * sms
    waves = math.ceil(work.blocks / per_wave)
    warps = work.blocks * work.warps_per_block
    if work.global_load_waits is None:
        waits, wait_rule = work.global_load_requests, "one load in flight per warp"
    else:
        waits, wait_rule = work.global_load_waits, "loads issued before a use wait together"
    loads_per_warp = waits / warps
    shared_per_warp = work.shared_load_requests / warps
    shared_lat = rates.shared_latency_cycles or 0.0

    # a block's own L1/shared data-pipe work runs one wavefront per clock, in series with its
    # warps' waits (its warps share the pipe; other resident blocks overlap it)
    block_wf = (
        (work.global_wavefronts if rates.l1_bytes_per_sm_per_clock else 0)
        + work.shared_wavefronts * arch.shared_family.cycles_per_wavefront
    ) / work.blocks

    # a warp's own instructions in series, each waiting for the one before it (no ILP assumed);
    # an FP64 one waits its own latency where measured, spread over the instructions as the
    # launch's FP64 share
    base = rates.dependent_issue_cycles or 0.0
    fp64 = rates.fp64_dependent_issue_cycles or base
    dependent = base
    if base and issued:
        dependent += (fp64 - base) * work.fp64_warp_instructions / issued
    issued_per_warp = issued / warps

    # each wave's blocks also launch and exit (measured beside the DRAM latency: timing.yaml)
    life = (rates.block_life_ns or 0.0) * 1e-9 * clock

    def chain_cycles(lat: float) -> float:
        own = loads_per_warp * lat + shared_per_warp * shared_lat + block_wf + issued_per_warp * dependent
        return waves * (own + life)

    dram_s = read_s + write_s if rates.dram_queue_ns else 0.0
    latency_s, u, latency = _at_dram_latency(work, rates, clock, dram_s, chain_cycles)
    terms.append(
        Term(
            "memory latency",
            latency_s,
            f"{waves} waves x ({loads_per_warp:.6g} global-load waits per warp x "
            f"{latency:.4g} cycles mean latency + {shared_per_warp:.6g} shared loads x "
            f"{shared_lat:g} cycles + {block_wf:.6g} wavefronts of the block's own"
            + (f" + {issued_per_warp:.6g} instructions per warp x {dependent:.4g} cycles" if dependent else "")
            + (f" + a block's launch and exit {rates.block_life_ns:g} ns" if rates.block_life_ns else "")
            + ") / "
            f"{gpu.peak_clock_mhz:g} MHz; {wait_rule}; DRAM latency at "
            f"{100 * u:.0f} % DRAM utilization",
        )
    )
    if work.longest_warps:
        terms.append(_longest_warp_term(work, rates, clock, dram_s, shared_lat, dependent, gpu))
    top = max(terms, key=lambda t: t.time_s)
    dram_term = next(t for t in terms if t.name == "DRAM bandwidth")
    if top.name == "memory latency" and dram_term.time_s >= top.time_s * (1 - 1e-6):
        top = dram_term  # the fixed point only approaches the bandwidth term: call it that
    total = rates.launch_overhead_s + top.time_s
    dram_bytes = work.dram_bytes_read + work.dram_bytes_written
    return TimePrediction(
        gpu=gpu.key,
        cc=arch.cc,
        predicted_time_s=total,
        launch_overhead_s=rates.launch_overhead_s,
        bound=top.name,
        bound_detail=_detail(top, work, gpu, total),
        terms=tuple(terms),
        omitted=tuple(omitted),
        waves=waves,
        predicted_gflops=work.flops / total / 1e9,
        predicted_dram_gbs=dram_bytes / total / 1e9,
        dram_bytes_read=work.dram_bytes_read,
        dram_bytes_written=work.dram_bytes_written,
        l1_hit_rate=work.l1_hit_rate,
        l2_hit_rate=work.l2_hit_rate,
        error_band=error_band(gpu.key, top.name, total),
    )


def _longest_warp_term(
    work: KernelWork, rates: TimingRates, clock: float, dram_s: float, shared_lat: float, dependent: float, gpu: Gpu
) -> Term:
    """No launch ends before its longest warp: that warp's own chain of waits and instructions
    (sim/ptx/warp_chains.py), priced as the mean warp's is. Where work is even it is shorter
    than the waves of mean chains; where one thread or a few blocks do the work, it is the time."""

    def cycles(chain: tuple[int, int, int], lat: float) -> float:
        issued, waits, shared = chain
        return waits * lat + shared * shared_lat + issued * dependent

    time_s, u, lat = _at_dram_latency(
        work, rates, clock, dram_s, lambda lat: max(cycles(c, lat) for c in work.longest_warps)
    )
    issued, waits, shared = max(work.longest_warps, key=lambda c: cycles(c, lat))
    return Term(
        "longest warp",
        time_s,
        f"the warp with the longest own chain: ({waits} global-load waits x {lat:.4g} cycles mean latency + "
        f"{shared} shared-load waits x {shared_lat:g} cycles + {issued} instructions x {dependent:.4g} cycles) / "
        f"{gpu.peak_clock_mhz:g} MHz; DRAM latency at {100 * u:.0f} % DRAM utilization",
    )


def _rated_pipe(
    name: str,
    warp_instructions: int,
    rate: tuple[float | None, str, str],
    pipe: tuple[int, float, float, str],
    terms: list[Term],
    omitted: list[str],
) -> None:
    """A pipe's term where the launch uses it: priced where its rate (per SM per clock, the
    unit, why it may be missing) is known, else named among the terms left out."""
    if not warp_instructions:
        return
    per_clock, unit, missing = rate
    if per_clock:
        terms.append(_pipe_term(name, warp_instructions, per_clock, unit, *pipe))
    else:
        omitted.append(f"{name} ({missing})")


def _pipe_term(
    name: str, warp_instructions: int, per_clock: float, unit: str, sms: int, clock: float, busiest: float, per_sm: str
) -> Term:
    """Time of one arithmetic pipe: each warp instruction is 32 lane operations, and the pipe
    does `per_clock` of them per SM per clock."""
    return Term(
        name,
        warp_instructions * 32 / (per_clock * sms * clock) * busiest,
        f"{warp_instructions} warp instructions x 32 / {per_clock:g} {unit} per SM per clock {per_sm}",
    )


def _measured(*rates: float | None) -> tuple[float, ...] | None:
    """The rates, or None where any of them was not measured for the CC."""
    return None if any(r is None for r in rates) else tuple(r for r in rates if r is not None)


def _atomic_term(work: KernelWork, per: tuple[float, ...]) -> Term:
    """The busiest line's atomics, one request at a time (module docstring)."""
    costs = [sum(n * r for n, r in zip(line, per, strict=True)) for line in work.atomic_hot_lines]
    top = max(range(len(costs)), key=costs.__getitem__)
    combined, floats, exchanges = work.atomic_hot_lines[top]
    return Term(
        "atomic contention",
        costs[top] * 1e-9,
        f"busiest line: {combined:.6g} combined requests x {per[0]:g} ns + {floats:.6g} "
        f"float-add lanes x {per[1]:g} ns + {exchanges:.6g} exchange lanes x {per[2]:g} "
        f"ns (measured)",
    )


def _serialised_terms(
    work: KernelWork, rates: TimingRates, arch: Arch, sms: int, busiest: float, omitted: list[str]
) -> list[Term]:
    """Work served one request at a time: the L2's atomics on the busiest line, and per SM
    shared atomics on one word and a constant load's distinct addresses (module docstring);
    each only where the kernel has some, and said to be left out where no rate is measured."""
    out = []
    cc = arch.cc
    if work.atomic_hot_lines:
        l2 = _measured(rates.atomic_combined_request_ns, rates.atomic_float_lane_ns, rates.atomic_exchange_lane_ns)
        if l2 is None:
            omitted.append(f"atomic contention (no measured rates for CC {cc})")
        else:
            out.append(_atomic_term(work, l2))
    if any(work.shared_atomic_steps):
        per = _measured(
            rates.shared_atomic_int_lane_ns, rates.shared_atomic_cas_lane_ns, rates.shared_atomic_float_lane_ns
        )
        if per is None:
            omitted.append(f"shared atomics (no measured rates for CC {cc})")
        else:
            ns = sum(n * r for n, r in zip(work.shared_atomic_steps, per, strict=True))
            i, c, f = work.shared_atomic_steps
            out.append(
                Term(
                    "shared atomics",
                    ns * 1e-9 / sms * busiest,
                    f"({i} integer x {per[0]:g} ns + {c} CAS x {per[1]:g} ns + {f} "
                    f"float-add x {per[2]:g} ns lane steps) / {sms} SMs x busiest-SM "
                    f"factor {busiest:.4g} (measured)",
                )
            )
    if work.constant_extra_requests:
        rate = rates.constant_request_ns
        if rate is None:
            omitted.append(f"divergent constant loads (no measured rate for CC {cc})")
        else:
            out.append(
                Term(
                    "constant requests",
                    work.constant_extra_requests * rate * 1e-9 / sms * busiest,
                    f"{work.constant_extra_requests} requests beyond one per warp load x "
                    f"{rate:g} ns / {sms} SMs x busiest-SM factor {busiest:.4g} "
                    f"(measured)",
                )
            )
    return out


def _detail(top: Term, work: KernelWork, gpu: Gpu, total: float) -> str:
    """'limited by DRAM bandwidth: 2.61 TB/s of 3.35' and the like."""
    from perfcalc.units import giga_rate, seconds

    if top.name == "DRAM bandwidth" and top.time_s > 0:
        rate = (work.dram_bytes_read + work.dram_bytes_written) / top.time_s / 1e9
        return f"limited by DRAM bandwidth: {giga_rate(rate, 'B/s')} of {giga_rate(gpu.memory_bandwidth_gbs, 'B/s')}"
    if top.name == "FP32 pipe" and top.time_s > 0:
        rate = work.flops / top.time_s / 1e9
        return f"limited by the FP32 pipe: {giga_rate(rate, 'FLOPS')} of {giga_rate(gpu.peak_fp32_gflops, 'FLOPS')}"
    return f"limited by {top.name} ({seconds(top.time_s)} of {seconds(total)})"
