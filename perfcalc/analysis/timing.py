"""A run's time on a product: the counted (or extrapolated) work of a SimResult, the occupancy
it ran at, and the product, into the time model (model/time_model.py)."""

from __future__ import annotations

from perfcalc.model.time_model import KernelWork, TimePrediction, predict_time
from perfcalc.sim.launch import SimResult
from perfcalc.specs.arch import Arch
from perfcalc.specs.counters import TENSOR_KINDS
from perfcalc.specs.gpu import Gpu
from perfcalc.specs.timing import timing_rates


def kernel_work(result: SimResult, active_blocks_per_sm: int) -> KernelWork:
    """The time model's input from a run with a cache model (run_kernel(caches=...))."""
    c, rep = result.counters, result.caches
    kinds = c.warp_instructions
    if rep is not None and rep.config.l2_bytes == 0:  # no cache caches global data (CC 1.x)
        rep = None
    if rep is not None:
        wavefronts = rep.global_wavefronts
        l2_bytes = rep.l2_bytes_read + rep.l2_bytes_written
        l2_read = rep.l2_bytes_read
        dram_r, dram_w = rep.dram_bytes_read, rep.dram_bytes_written
        h1, h2 = rep.l1_load_hit_rate, rep.l2_hit_rate
    else:  # no (global) cache: every transaction of memory/'s rules goes to DRAM
        sectors = c.global_load_transactions + c.global_store_transactions
        wavefronts = max(c.global_load_requests + c.global_store_requests, -(-sectors // 4))
        l2_bytes = c.global_load_bytes + c.global_store_bytes
        l2_read = c.global_load_bytes
        dram_r, dram_w = c.global_load_bytes, c.global_store_bytes
        h1 = h2 = None
    return KernelWork(
        blocks=result.launch.blocks,
        warps_per_block=result.launch.warps_per_block,
        active_blocks_per_sm=active_blocks_per_sm,
        warp_instructions=sum(kinds.values()),
        int_divide_warp_instructions=kinds.get("int_divide", 0),
        fp32_warp_instructions=kinds.get("fp32", 0),
        fp64_warp_instructions=kinds.get("fp64", 0),
        # machine-level integer instructions: the PTX engine's; the source engine's are C
        # operations (an index's multiply and add that ptxas folds into an address), not priced
        int_warp_instructions=kinds.get("int", 0) if result.engine == "ptx" else None,
        global_load_requests=kinds.get("global_load", c.global_load_requests),
        # the source engine sees no compiled order: the model then takes one wait per load
        global_load_waits=c.global_load_waits if result.engine == "ptx" else None,
        global_wavefronts=wavefronts,
        shared_wavefronts=c.shared_load_wavefronts + c.shared_store_wavefronts,
        # the shared loads a warp waits for: LDS and LDSM (ldmatrix, which Nsight Compute's
        # shared-load requests leave out; both are in the shared_load instruction kind)
        shared_load_requests=kinds.get("shared_load", c.shared_load_requests),
        l2_bytes=l2_bytes,
        l2_read_bytes=l2_read,
        dram_bytes_read=dram_r,
        dram_bytes_written=dram_w,
        l1_hit_rate=h1,
        l2_hit_rate=h2,
        flops=c.flops,
        atomic_hot_lines=rep.atomic_hot_lines if rep is not None else (),
        shared_atomic_steps=(c.shared_atomic_int_steps, c.shared_atomic_cas_steps, c.shared_atomic_float_steps),
        constant_extra_requests=max(0, c.constant_requests - kinds.get("constant_load", 0)),
        tensor_instructions=tuple((k, n) for k, n in kinds.items() if k in TENSOR_KINDS and n),
        longest_warps=result.longest_warps,
    )


def run_time(result: SimResult, active_blocks_per_sm: int, gpu: Gpu, arch: Arch) -> TimePrediction:
    """The predicted time of the run `result` on `gpu`."""
    return predict_time(kernel_work(result, active_blocks_per_sm), gpu, arch, timing_rates(arch))
