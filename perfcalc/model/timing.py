"""How long a kernel must take (lower bound) and a first estimate of how long it will take.

Lower bound (roofline, reference/perfmodel.md a1): T >= max(F / peak, B / bandwidth), with B
the compulsory DRAM traffic (every input read once, every output written once: no cache can do
better).

First estimate: the same terms with B = the bytes the memory transactions move (requests x
transactions per request x size), so uncoalesced access costs what it costs, plus the
shared-memory time S = wavefronts x cycles per wavefront / (SMs x clock) (each SM's banks serve
one wavefront per bank cycle, CUDA C Programming Guide). S counts the source's accesses; the
compiler may merge them (LDS.128 on an unrolled row), so S is part of the estimate, not of the
bound. The DRAM term is
slowed when too few bytes are in flight to cover the memory latency (Little's law, perfmodel.md
b4: concurrency = latency x throughput); all terms are stretched by the last, partly filled wave
of blocks. What it ignores: cache hits (on CC >= 2.0 the transaction bytes are L1 traffic, of
which only part reaches DRAM, so memory-bound estimates are pessimistic there), instruction issue
limits, launch overhead. benchmarks/results_perf.md compares it with H100 measurements.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from perfcalc.errors import InputError

# Seed 003 ("Latency: 200-400 GPU cycles", "Global memory latency: several hundred cycles").
# The upper end is the default; perfmodel.md b4 notes loaded latency rises with bandwidth use.
DEFAULT_LATENCY_CYCLES = 400


@dataclass(frozen=True)
class TimeEstimate:
    """Every term of the time model, in seconds unless the name says otherwise."""

    flops: float
    dram_bytes: float
    compulsory_bytes: float
    peak_gflops: float
    bandwidth_gbs: float
    compute_time_s: float
    memory_time_s: float
    shared_time_s: float
    lower_bound_s: float
    latency_cycles: float
    clock_mhz: float
    bytes_in_flight_needed: float
    bytes_in_flight_available: float
    latency_hiding: float
    waves: int
    wave_efficiency: float
    estimated_time_s: float
    estimated_gflops: float
    limited_by: str  # "compute", "memory bandwidth", "memory latency" or "shared memory"


def time_lower_bound(flops: float, dram_bytes: float, peak_gflops: float,
                     bandwidth_gbs: float) -> float:
    """max(F / peak, B / bandwidth): no kernel can beat this."""
    if peak_gflops <= 0 or bandwidth_gbs <= 0:
        raise InputError(f"a time bound needs peak > 0 and bandwidth > 0, got {peak_gflops} "
                         f"GFLOPS and {bandwidth_gbs} GB/s")
    return max(flops / (peak_gflops * 1e9), dram_bytes / (bandwidth_gbs * 1e9))


def estimate_time(
    *,
    flops: float,
    dram_bytes: float,
    peak_gflops: float,
    bandwidth_gbs: float,
    clock_mhz: float,
    sm_count: int,
    active_warps_per_sm: int,
    active_blocks_per_sm: int,
    blocks: int,
    bytes_per_warp_request: float,
    requests_in_flight_per_warp: float = 1.0,
    latency_cycles: float = DEFAULT_LATENCY_CYCLES,
    compulsory_bytes: float | None = None,
    shared_wavefronts: float = 0,
    cycles_per_wavefront: float = 1,
) -> TimeEstimate:
    """Roofline terms plus latency hiding (Little's law) and the partial last wave.

    shared time = wavefronts x cycles per wavefront / (SMs x clock);
    bytes needed in flight = bandwidth x latency (the whole device);
    bytes available in flight = SMs x active warps x requests in flight per warp x bytes per request;
    achieved bandwidth = bandwidth x min(1, available / needed);
    waves = ceil(blocks / (active blocks per SM x SMs)); wave efficiency = blocks / (waves x that);
    estimate = max(F / peak, B / achieved bandwidth, shared time) / wave efficiency;
    lower bound = max(F / peak, compulsory bytes / bandwidth).
    """
    if latency_cycles <= 0 or clock_mhz <= 0:
        raise InputError(f"latency ({latency_cycles} cycles) and clock ({clock_mhz} MHz) must be > 0")
    if active_blocks_per_sm <= 0:
        raise InputError("the kernel cannot run: 0 blocks fit on an SM (see occupancy limiters)")
    compute_s = flops / (peak_gflops * 1e9)
    memory_s = dram_bytes / (bandwidth_gbs * 1e9)
    compulsory = dram_bytes if compulsory_bytes is None else compulsory_bytes
    shared_s = shared_wavefronts * cycles_per_wavefront / (sm_count * clock_mhz * 1e6)
    latency_s = latency_cycles / (clock_mhz * 1e6)
    needed = bandwidth_gbs * 1e9 * latency_s
    per_wave = active_blocks_per_sm * sm_count
    waves = max(1, math.ceil(blocks / per_wave))
    resident_warps = active_warps_per_sm * min(1.0, blocks / per_wave)
    available = sm_count * resident_warps * requests_in_flight_per_warp * bytes_per_warp_request
    hiding = min(1.0, available / needed) if needed > 0 else 1.0
    efficiency = blocks / (waves * per_wave)
    memory_est = memory_s / hiding if hiding > 0 else math.inf
    terms = {"compute": compute_s, "shared memory": shared_s,
             "memory bandwidth" if hiding >= 1.0 else "memory latency": memory_est}
    limited = max(terms, key=terms.get)
    estimate = terms[limited] / efficiency
    return TimeEstimate(
        flops=flops, dram_bytes=dram_bytes, compulsory_bytes=compulsory, peak_gflops=peak_gflops,
        bandwidth_gbs=bandwidth_gbs, compute_time_s=compute_s, memory_time_s=memory_s,
        shared_time_s=shared_s,
        lower_bound_s=max(compute_s, compulsory / (bandwidth_gbs * 1e9)),
        latency_cycles=latency_cycles,
        clock_mhz=clock_mhz, bytes_in_flight_needed=needed, bytes_in_flight_available=available,
        latency_hiding=hiding, waves=waves, wave_efficiency=efficiency,
        estimated_time_s=estimate, estimated_gflops=flops / estimate / 1e9 if estimate else 0.0,
        limited_by=limited,
    )
