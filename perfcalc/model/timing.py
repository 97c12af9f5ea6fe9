"""How long a kernel must take at least: the roofline lower bound (reference/perfmodel.md a1).

T >= max(F / peak, B / bandwidth), with B the compulsory DRAM traffic (every input read once,
every output written once: no cache can do better). How long it will take is the time model's
answer (model/time_model.py), not this bound's.
"""

from __future__ import annotations

from perfcalc.errors import InputError


def time_lower_bound(flops: float, dram_bytes: float, peak_gflops: float, bandwidth_gbs: float) -> float:
    """max(F / peak, B / bandwidth): no kernel can beat this."""
    if peak_gflops <= 0 or bandwidth_gbs <= 0:
        raise InputError(
            f"a time bound needs peak > 0 and bandwidth > 0, got {peak_gflops} GFLOPS and {bandwidth_gbs} GB/s"
        )
    return max(flops / (peak_gflops * 1e9), dram_bytes / (bandwidth_gbs * 1e9))
