"""How long a kernel must take (lower bound) and a first estimate of how long it will take.

Lower bound (roofline, reference/perfmodel.md a1): T >= max(F / peak, B / bandwidth).

First estimate: the same two terms, with the DRAM term slowed when too few bytes are in flight to
cover the memory latency (Little's law, perfmodel.md b4: concurrency = latency x throughput), and
both terms stretched by the last, partly filled wave of blocks. The bytes are those the memory
transactions move (requests x transactions per request x transaction size), not the bytes the
program asked for, so uncoalesced access costs what it costs. What it ignores: caches (the
transaction bytes are treated as DRAM bytes), instruction issue limits, launch overhead.
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
    peak_gflops: float
    bandwidth_gbs: float
    compute_time_s: float
    memory_time_s: float
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
    limited_by: str  # "compute", "memory bandwidth" or "memory latency"


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
) -> TimeEstimate:
    """Roofline terms plus latency hiding (Little's law) and the partial last wave.

    bytes needed in flight = bandwidth x latency (the whole device);
    bytes available in flight = SMs x active warps x requests in flight per warp x bytes per request;
    achieved bandwidth = bandwidth x min(1, available / needed);
    waves = ceil(blocks / (active blocks per SM x SMs)); wave efficiency = blocks / (waves x that);
    estimate = max(F / peak, B / achieved bandwidth) / wave efficiency.
    """
    if latency_cycles <= 0 or clock_mhz <= 0:
        raise InputError(f"latency ({latency_cycles} cycles) and clock ({clock_mhz} MHz) must be > 0")
    if active_blocks_per_sm <= 0:
        raise InputError("the kernel cannot run: 0 blocks fit on an SM (see occupancy limiters)")
    compute_s = flops / (peak_gflops * 1e9)
    memory_s = dram_bytes / (bandwidth_gbs * 1e9)
    latency_s = latency_cycles / (clock_mhz * 1e6)
    needed = bandwidth_gbs * 1e9 * latency_s
    per_wave = active_blocks_per_sm * sm_count
    waves = max(1, math.ceil(blocks / per_wave))
    resident_warps = active_warps_per_sm * min(1.0, blocks / per_wave)
    available = sm_count * resident_warps * requests_in_flight_per_warp * bytes_per_warp_request
    hiding = min(1.0, available / needed) if needed > 0 else 1.0
    efficiency = blocks / (waves * per_wave)
    memory_est = memory_s / hiding if hiding > 0 else math.inf
    estimate = max(compute_s, memory_est) / efficiency
    memory_kind = "memory bandwidth" if hiding >= 1.0 else "memory latency"
    limited = "compute" if compute_s >= memory_est else memory_kind
    return TimeEstimate(
        flops=flops, dram_bytes=dram_bytes, peak_gflops=peak_gflops, bandwidth_gbs=bandwidth_gbs,
        compute_time_s=compute_s, memory_time_s=memory_s,
        lower_bound_s=max(compute_s, memory_s), latency_cycles=latency_cycles,
        clock_mhz=clock_mhz, bytes_in_flight_needed=needed, bytes_in_flight_available=available,
        latency_hiding=hiding, waves=waves, wave_efficiency=efficiency,
        estimated_time_s=estimate, estimated_gflops=flops / estimate / 1e9 if estimate else 0.0,
        limited_by=limited,
    )
