"""The cache model's configuration for one launch on one product (issue #9, part 1).

The L1/L2 model (memory/cache_hierarchy) needs what only the product and the occupancy model
know together: the SM count and L2 size (devices/products.yaml), resident blocks per SM
(model/occupancy) and the L1 capacity that the shared-memory carveout leaves.

Carveout: the CUDA Programming Guide treats the preferred carveout as a hint and lets the driver
pick the shared-memory capacity; here the driver is assumed to pick the smallest supported
capacity that holds the resident blocks' shared memory (their allocation plus the per-block
reservation), leaving the rest of the unified array to L1 [assumption, compared with the H100's
L1 hit rates in benchmarks/hw/caches_comparison.csv]. CCs without a carveout list use the
legacy split (2.x/3.x: the default preference's L1 share) or have no L1 for global loads.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from perfcalc.errors import InputError
from perfcalc.memory.block_sample import BlockSample
from perfcalc.memory.cache import SECTOR_BYTES
from perfcalc.memory.cache_hierarchy import CacheConfig, CacheHierarchy
from perfcalc.model.occupancy import OccupancyInputs
from perfcalc.model.occupancy_rules import align_to_carveout
from perfcalc.specs import Arch
from perfcalc.specs.gpu import Gpu
from perfcalc.specs.timing import timing_rates

KB = 1024


def l1_bytes(arch: Arch, blocks_per_sm: int, shared_per_block: int) -> int:
    """L1 capacity for global data once the resident blocks' shared memory is carved out."""
    if arch.unified_l1_shared_kb is not None and arch.shared_memory_carveouts_kb:
        reserved = arch.reserved_shared_memory_per_block_bytes or 0
        need = blocks_per_sm * (shared_per_block + reserved) if shared_per_block else 0
        carveout = int(align_to_carveout(arch, np.asarray(need)))
        return arch.unified_l1_shared_kb * KB - carveout
    if arch.l1_shared_splits_kb:  # 2.x/3.x: the default split, [shared, L1] pairs
        return arch.l1_shared_splits_kb[0][1] * KB
    return 0


def cache_model(
    gpu: Gpu,
    arch: Arch,
    occupancy: OccupancyInputs,
    cache: str | None = None,
    sample: BlockSample | None = None,
    request_budget: int | None = None,
) -> CacheHierarchy:
    """A fresh L1/L2 model for a launch of `occupancy`'s configuration on `gpu`; with a
    `sample`, the model of the sampled SMs only, whose share of the L2 is 1/stride of it; with a
    `request_budget`, one that stops following a run of every block past that many requests."""
    if gpu.l2_cache_kb is None:
        raise InputError(f"{gpu.name}: no sourced L2 size in products.yaml, so its caches cannot be modelled")
    blocks = int(occupancy.grid(arch).active_blocks)
    family = arch.global_family
    shared = int(occupancy.shared_memory)
    return CacheHierarchy(
        CacheConfig(
            sms=gpu.sm_count,
            blocks_per_sm=max(1, blocks),
            l1_bytes=l1_bytes(arch, max(1, blocks), shared) if family.has_cache else 0,
            l2_bytes=gpu.l2_cache_kb * KB // (1 if sample is None else min(sample.sm_stride, gpu.sm_count)),
            l1_sectored=family.sectored,
            l1_caches_loads=family.l1_caches_loads(cache),
            stores_invalidate_l1=family.rule == "lines",
            # where the device file has no measured figure, the 32-byte sector (memory.md 1.5)
            dram_fetch_bytes=arch.l2_fetch_granularity_bytes or SECTOR_BYTES,
            store_merge_lines=timing_rates(arch).store_merge_lines or 0,
        ),
        sample,
        request_budget,
    )


def cache_model_factory(
    gpu: Gpu,
    arch: Arch,
    block_threads: int,
    registers: int,
    dynamic_shared: int,
    cache: str | None = None,
    sample: BlockSample | None = None,
    request_budget: int | None = None,
) -> Callable[[int, str | None, str], CacheHierarchy]:
    """What run_kernel(caches=...) calls once the engine knows the kernel's static shared
    memory and, on the PTX engine, ptxas's report: the model for the occupancy they give
    (ptxas's registers where present, else `registers`)."""
    from perfcalc.model.ptxas import entry_resources

    def build(static_shared: int, ptxas_log: str | None, entry: str) -> CacheHierarchy:
        found = entry_resources(ptxas_log, entry)
        regs = registers if found is None else found.registers_per_thread
        occ = OccupancyInputs(block_threads, regs, static_shared, dynamic_shared)
        return cache_model(gpu, arch, occ, cache, sample, request_budget)

    return build
