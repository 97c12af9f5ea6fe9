"""The per-limiter rules of NVIDIA's occupancy algorithm, each written once over NumPy arrays.

Every function takes already-validated integer arrays that broadcast against each other and
returns arrays in their broadcast shape, so a sweep over block sizes x registers x shared memory
computes each limit on the smallest array it depends on. Per-CC numbers come from the `Arch`;
rules that NVIDIA keys on the CC itself cite the header function that does so.

Sources (reference/occupancy.md): H13 = CUDA 13.0 cuda_occupancy.h (CC 3.0+), H70 = CUDA 7.0
cuda_occupancy.h (CC 1.x/2.x), XLS = the occupancy spreadsheet as ported.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from perfcalc.errors import SpecError
from perfcalc.specs import Arch, get_arch

# H13 reports a limit of INT_MAX for a resource the kernel does not use (no registers, no shared
# memory); perfcalc keeps the same sentinel so its limits compare one to one with the header.
UNLIMITED = 2**31 - 1

# H70 cudaOccRegAllocationGranularity: on CC 2.x these register counts allocate in units of
# 128 instead of 64 (the XLS has the same list; devices/cc_2_0.yaml CHOSEN line).
FERMI_DOUBLE_UNIT_REGISTERS = (21, 22, 29, 30, 37, 38, 45, 46)

# cudaOccSMemPreferenceVoltaPlus: legacy cache configs as carveout percentages on CC >= 7.0.
CACHE_CONFIG_CARVEOUT = {"prefer-l1": 0, "prefer-shared": 100, "prefer-equal": 50}


def round_up(x: np.ndarray | int, unit: int | np.ndarray) -> np.ndarray:
    """Smallest multiple of `unit` >= x (H13 __occRoundUp)."""
    return np.asarray(-(-x // unit) * unit)


def warps_per_block(arch: Arch, block_size: np.ndarray) -> np.ndarray:
    """Warps a block occupies: ceil(threads / warp size)."""
    return -(-block_size // arch.warp_size)


def is_block_granular(arch: Arch) -> bool:
    """CC 1.x allocates registers per block and warps in pairs (H70).

    Keyed on the device file's `register_allocation_granularity` ("block" on 1.x).
    """
    return arch.register_allocation_granularity == "block"


def allocated_warps(arch: Arch, block_size: np.ndarray) -> np.ndarray:
    """Warps charged to a block: rounded up to `warp_allocation_granularity` on 1.x only.

    H70 cudaOccWarpAllocationGranularity is 2 for major <= 1 and 1 otherwise; from 2.x on the
    XLS `warp_allocation_granularity` is the sub-partition split, handled by `register_limit`
    (devices/cc_1_0.yaml CHOSEN: the rounding applies to both the warp and the register limit).
    """
    warps = warps_per_block(arch, block_size)
    if is_block_granular(arch):
        return round_up(warps, arch.warp_allocation_granularity)
    return warps


def warp_limit(arch: Arch, block_size: np.ndarray) -> np.ndarray:
    """Blocks the SM's warp slots hold (H13/H70 cudaOccMaxBlocksPerSMWarpsLimit, caching off)."""
    limit = arch.max_warps_per_sm // allocated_warps(arch, block_size)
    return np.where(block_size > arch.max_threads_per_block, 0, limit)


def _register_unit(arch: Arch, registers: np.ndarray) -> np.ndarray | int:
    unit = arch.register_allocation_unit
    if arch.major == 2:  # H70 cudaOccRegAllocationGranularity, Fermi exception list
        return np.where(np.isin(registers, FERMI_DOUBLE_UNIT_REGISTERS), 2 * unit, unit)
    return unit


def registers_per_warp(arch: Arch, registers: np.ndarray) -> np.ndarray:
    """Registers one warp is allocated: regs x warp size rounded up to the unit (CC 2.0+)."""
    return round_up(registers * arch.warp_size, _register_unit(arch, registers))


def allocated_registers(arch: Arch, block_size: np.ndarray, registers: np.ndarray) -> np.ndarray:
    """Registers charged to one block (H13/H70 allocatedRegistersPerBlock)."""
    if is_block_granular(arch):
        # H70: regs x warp size x warps (rounded to pairs), rounded up to the per-block unit.
        raw = registers * arch.warp_size * allocated_warps(arch, block_size)
        return round_up(raw, arch.register_allocation_unit)
    return registers_per_warp(arch, registers) * warps_per_block(arch, block_size)


def _warp_granular_register_limit(
    arch: Arch, block_size: np.ndarray, registers: np.ndarray, sub_partitions: int
) -> np.ndarray:
    """H13 cudaOccMaxBlocksPerSMRegsLimit with partitioned global caching off (the default).

    Also H70's 2.x rule (2 sub-partitions): floor(16384 / regs per warp) x 2 warps equals the
    XLS's floor(32768 / regs per warp) floored to its warp allocation granularity of 2.
    """
    warps = warps_per_block(arch, block_size)
    per_warp = registers_per_warp(arch, registers)
    per_block = per_warp * warps
    # "Hardware check": the launch check assumes warps are spread over all sub-partitions.
    assumed = per_warp * round_up(warps, sub_partitions)
    fits = (assumed <= arch.max_registers_per_block) & (per_block <= arch.max_registers_per_block)
    warps_per_sub_partition = (arch.registers_per_sm // sub_partitions) // np.maximum(per_warp, 1)
    limit = np.where(fits, warps_per_sub_partition * sub_partitions // warps, 0)
    return np.where(per_warp == 0, UNLIMITED, limit)


@cache
def gp10x_sub_partitions() -> int:
    return get_arch("6.1").sub_partitions


def register_limit(arch: Arch, block_size: np.ndarray, registers: np.ndarray) -> np.ndarray:
    """Blocks the register file holds; 0 where one block cannot be launched."""
    if is_block_granular(arch):
        per_block = allocated_registers(arch, block_size, registers)
        fits = (per_block <= arch.max_registers_per_block) & (registers <= arch.max_registers_per_thread)
        limit = np.where(fits, arch.registers_per_sm // np.maximum(per_block, 1), 0)
        return np.where(per_block == 0, UNLIMITED, limit)
    limit = _warp_granular_register_limit(arch, block_size, registers, arch.sub_partitions)
    # H13's per-thread check (registers above what ptxas can give a thread launch nothing).
    limit = np.where(registers > arch.max_registers_per_thread, 0, limit)
    if arch.cc_number == 60:
        # H13 cudaOccMaxActiveBlocksPerMultiprocessor: a kernel that cannot run on GP10x
        # (6.1's 4 sub-partitions) is reported as not running on GP100 either.
        gp10x = _warp_granular_register_limit(arch, block_size, registers, gp10x_sub_partitions())
        limit = np.where(gp10x == 0, 0, limit)
    return limit


def allocated_shared_memory(arch: Arch, static: np.ndarray, dynamic: np.ndarray) -> np.ndarray:
    """Bytes charged to one block: static + reserved (1 KB on 8.0+) + dynamic, to the unit."""
    total = static + arch.reserved_shared_memory_per_block_bytes + dynamic
    return round_up(total, arch.shared_memory_allocation_unit_bytes)


def shared_memory_block_limit(arch: Arch, static: np.ndarray, dynamic: np.ndarray) -> np.ndarray:
    """Largest allocation one block may have (H13 cudaOccSMemPerBlock).

    perfcalc treats dynamic shared memory above the default per-block limit as opted in to
    exactly that size (cudaFuncAttributeMaxDynamicSharedMemorySize = the dynamic size), which is
    H13's FUNC_SHMEM_LIMIT_OPTIN with maxDynamicSharedSizeBytes = dynamicSmemSize.
    """
    reserved = arch.reserved_shared_memory_per_block_bytes
    default = arch.max_shared_memory_per_block_bytes
    optin = arch.max_shared_memory_per_block_optin_bytes
    limit = np.asarray(default)
    if optin is not None:
        limit = np.where(static + reserved + dynamic > default, optin, default)
    # "Starting Ampere, CUDA driver reserves additional shared memory per block": the reserve
    # is added to the limit; it is 0 in every device file before 8.0.
    return limit + reserved


def _capacities(arch: Arch) -> np.ndarray:
    return np.asarray(arch.shared_memory_carveouts_kb, dtype=np.int64) * 1024


def align_to_carveout(arch: Arch, size: np.ndarray) -> np.ndarray:
    """Round a shared-memory size up to the next capacity the driver can configure.

    H13 cudaOccAlignUpShmemSizeVoltaPlus; sizes above the largest capacity stay the largest
    (callers only pass sizes that fit).
    """
    caps = _capacities(arch)
    index = np.minimum(np.searchsorted(caps, size, side="left"), len(caps) - 1)
    return caps[index]


def split_capacity(arch: Arch, cache_config: str) -> int:
    """SM shared memory for a legacy cache config on 2.x/3.x (`l1_shared_splits_kb`).

    H13 cudaOccSMemPreference (3.x): none/prefer-shared = the largest split, prefer-l1 = the
    smallest, prefer-equal = the midpoint. H70 (2.x) maps prefer-equal to the larger split:
    Fermi has no equal split, so the midpoint is looked up and falls back to the largest.
    """
    if arch.l1_shared_splits_kb is None:
        raise SpecError(f"CC {arch.cc} has no L1/shared splits to configure")
    sizes = sorted(shared for shared, _l1 in arch.l1_shared_splits_kb)
    high, low = sizes[-1], sizes[0]
    if cache_config == "prefer-l1":
        return low * 1024
    if cache_config == "prefer-equal" and (high + low) / 2 in sizes:
        return (high + low) // 2 * 1024
    return high * 1024


def preferred_shared_memory(arch: Arch, carveout: np.ndarray, cache_config: str) -> np.ndarray:
    """The SM's shared-memory capacity the user's carveout / cache config asks for.

    carveout is an array of percentages with -1 = default. CC 7.0+ follows H13
    cudaOccSMemPreferenceVoltaPlus (default carveout falls back to the cache config, the
    percentage of sharedMemPerMultiprocessor is rounded up to a capacity); 2.x/3.x use the
    legacy splits; other CCs have one fixed size.
    """
    smem = arch.shared_memory_per_sm_bytes
    if arch.shared_memory_carveouts_kb is not None:
        fallback = CACHE_CONFIG_CARVEOUT.get(cache_config, -1)
        percent = np.where(carveout < 0, fallback, carveout)
        size = np.where(percent < 0, smem, percent * smem // 100)
        return align_to_carveout(arch, size)
    if arch.l1_shared_splits_kb is not None:
        return np.asarray(split_capacity(arch, cache_config))
    return np.asarray(smem)


def shared_memory_capacity(arch: Arch, allocated: np.ndarray, preferred: np.ndarray) -> np.ndarray:
    """Capacity actually used: the preference if one block fits in it, else grown.

    H13 cudaOccMaxBlocksPerSMSmemLimit: on CC >= 7 the driver grows the carveout to the next
    capacity that fits one block; before Volta the full sharedMemPerMultiprocessor is used.
    """
    if arch.shared_memory_carveouts_kb is not None:
        grown = align_to_carveout(arch, allocated)
    else:
        grown = np.asarray(arch.shared_memory_per_sm_bytes)
    return np.where(preferred >= allocated, preferred, grown)


def shared_memory_limit(allocated: np.ndarray, block_limit: np.ndarray, capacity: np.ndarray) -> np.ndarray:
    """Blocks the shared memory holds; 0 where one block's allocation exceeds its limit."""
    limit = np.where(allocated > block_limit, 0, capacity // np.maximum(allocated, 1))
    return np.where(allocated == 0, UNLIMITED, limit)


def virtual_limit_applies(arch: Arch, virtual_resources: int) -> bool:
    """H13 cudaOccMaxBlocksPerSMVirtualResource: only where the device has virtual resources
    (majors 10-12: `virtual_resources_per_sm`) and the function uses some."""
    return bool(arch.virtual_resources_per_sm) and virtual_resources > 0


def virtual_resource_limit(arch: Arch, virtual_resources: int) -> int:
    """Blocks the SM's virtual resources hold: per SM // per function (H13)."""
    assert arch.virtual_resources_per_sm is not None
    return arch.virtual_resources_per_sm // virtual_resources


def barrier_limit_applies(arch: Arch, block_barriers: int) -> bool:
    """H13 applies the block-barrier limit only for CC >= 9 and kernels that use barriers."""
    return arch.major >= 9 and block_barriers > 0 and arch.block_barriers_per_sm is not None


def barrier_limit(arch: Arch, block_barriers: int) -> int:
    """Blocks the SM's barriers hold (H13 cudaOccMaxBlocksPerSMBlockBarrierLimit).

    H13 derives the available barriers from the block limit (x 2 on 9.0, 10.0 and 10.3; x 1 on
    11.0 and 12.x); `block_barriers_per_sm` holds that product.
    """
    if arch.block_barriers_per_sm is None:  # no barrier limit documented for this CC
        raise SpecError(f"CC {arch.cc} has no block barrier limit")
    return arch.block_barriers_per_sm // block_barriers
