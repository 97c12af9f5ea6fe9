"""Why a launchable configuration fits zero blocks on an SM, in one line a user can act on.

`OccupancyResult` has a fixed field list, so the explanation is a companion call: the CLI
asks `explain_zero(cc, OccupancyInputs(...))` when `active_blocks_per_sm` is 0.
"""

from __future__ import annotations

from typing import Any

from perfcalc.model import occupancy_rules as rules
from perfcalc.model.occupancy import OccupancyGrid, OccupancyInputs, as_arch
from perfcalc.model.occupancy_inputs import device_file
from perfcalc.specs import Arch


def explain_zero(cc: Arch | str, config: OccupancyInputs) -> str | None:
    """One line naming each resource that allows no block, or None when at least one fits."""
    return zero_reason(config.grid(as_arch(cc), check_launch=False))


def zero_reason(grid: OccupancyGrid, index: Any = ()) -> str | None:
    """The explanation for one configuration of a grid (None when it runs)."""
    if int(grid.active_blocks[index]) > 0:
        return None
    arch = grid.arch
    reasons = []
    for name, limit in grid.limits().items():
        if int(limit[index]) == 0:
            reasons.append(_EXPLAIN[name](grid, arch, index))
    return "no block fits on an SM: " + "; ".join(reasons)


def _warps(grid: OccupancyGrid, arch: Arch, index: Any) -> str:
    block = int(grid.block_size[index])
    if block > arch.max_threads_per_block:
        return (
            f"a block of {block} threads exceeds the {arch.max_threads_per_block}-thread limit "
            f"({device_file(arch, 'max_threads_per_block')})"
        )
    warps = int(rules.allocated_warps(arch, grid.block_size[index]))
    return (
        f"{warps} warps per block exceed the SM's {arch.max_warps_per_sm} warp slots "
        f"({device_file(arch, 'max_warps_per_sm')})"
    )


def _registers(grid: OccupancyGrid, arch: Arch, index: Any) -> str:
    regs = int(grid.registers_per_thread[index])
    block = grid.block_size[index]
    if regs > arch.max_registers_per_thread:
        return (
            f"{regs} registers per thread exceed the limit of {arch.max_registers_per_thread} "
            f"({device_file(arch, 'max_registers_per_thread')})"
        )
    per_block = int(grid.allocated_registers[index])
    limit = arch.max_registers_per_block
    where = device_file(arch, "max_registers_per_block")
    if rules.is_block_granular(arch):
        return (
            f"{regs} registers x {arch.warp_size} threads x "
            f"{int(rules.allocated_warps(arch, block))} "
            f"warps (rounded up to {arch.warp_allocation_granularity}) = {per_block} registers per "
            f"block, more than the {limit} a block may hold ({where})"
        )
    warps = int(rules.warps_per_block(arch, block))
    per_warp = int(rules.registers_per_warp(arch, grid.registers_per_thread[index]))
    if per_block > limit:
        return (
            f"{warps} warps x {per_warp} registers per warp = {per_block} registers, more than "
            f"the {limit} a block may hold ({where})"
        )
    sub = arch.sub_partitions
    assumed = per_warp * int(rules.round_up(warps, sub))
    if assumed > limit:
        return (
            f"{warps} warps x {per_warp} registers per warp = {per_block} registers fit, but the "
            f"hardware check rounds the block up to {int(rules.round_up(warps, sub))} warps (a "
            f"multiple of the {sub} sub-partitions) = {assumed} registers, more than the {limit} "
            f"a block may hold ({where}; cuda_occupancy.h cudaOccMaxBlocksPerSMRegsLimit)"
        )
    return (
        f"{warps} warps x {per_warp} registers per warp do not fit GP10x's "
        f"{rules.gp10x_sub_partitions()} sub-partitions; cuda_occupancy.h reports such kernels as "
        f"not running on any Pascal part, GP100 included"
    )


def _shared_memory(grid: OccupancyGrid, arch: Arch, index: Any) -> str:
    allocated = int(grid.allocated_shared_memory[index])
    static = grid.static_shared_memory_bytes[index]
    dynamic = grid.dynamic_shared_memory_bytes[index]
    limit = int(rules.shared_memory_block_limit(arch, static, dynamic))
    reserved = arch.reserved_shared_memory_per_block_bytes
    charged = f" (including the {reserved} bytes the driver reserves)" if reserved else ""
    key = (
        "max_shared_memory_per_block_optin_bytes"
        if arch.max_shared_memory_per_block_optin_bytes
        else "max_shared_memory_per_block_bytes"
    )
    plus = f" + {reserved} reserved" if reserved else ""
    cap = arch.max_shared_memory_per_block_launchable_bytes
    return (
        f"the block's {allocated} bytes of shared memory{charged} exceed the {limit}-byte "
        f"per-block limit ({cap}{plus}; {device_file(arch, key)}): cudaFuncSetAttribute "
        f"refuses that much and the launch fails"
    )


def _blocks(grid: OccupancyGrid, arch: Arch, index: Any) -> str:
    return f"the SM holds no blocks ({device_file(arch, 'max_blocks_per_sm')} is 0)"


def _barriers(grid: OccupancyGrid, arch: Arch, index: Any) -> str:
    return (
        f"{grid.block_barriers} barriers per block exceed the SM's {arch.block_barriers_per_sm} "
        f"({device_file(arch, 'block_barriers_per_sm')})"
    )


def _virtual(grid: OccupancyGrid, arch: Arch, index: Any) -> str:
    return (
        f"{grid.virtual_resources} virtual resources per block exceed the SM's "
        f"{arch.virtual_resources_per_sm} ({device_file(arch, 'virtual_resources_per_sm')})"
    )


_EXPLAIN = {
    "warps": _warps,
    "registers": _registers,
    "shared_memory": _shared_memory,
    "blocks": _blocks,
    "barriers": _barriers,
    "virtual_resources": _virtual,
}
