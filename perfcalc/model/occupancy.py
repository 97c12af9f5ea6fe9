"""Theoretical occupancy: how many blocks of a kernel stay resident on one SM, and what limits them.

NVIDIA's algorithm (CUDA 13.0 cuda_occupancy.h for CC 3.0+, the CUDA 7.0 header and the
spreadsheet for CC 1.x/2.x; reference/occupancy.md) is written once, over NumPy arrays, in
`occupancy_grid`: any input may be an array and they broadcast (block sizes x registers x shared
memory), so sweeps and block-size suggestions run the same code as a single answer.
`occupancy` is that grid at one point.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from perfcalc.errors import InputError
from perfcalc.model import occupancy_inputs as inputs
from perfcalc.model import occupancy_rules as rules
from perfcalc.model.occupancy_rules import UNLIMITED
from perfcalc.results import Result
from perfcalc.specs import Arch, as_arch
from perfcalc.specs.registry import DeviceName

__all__ = [
    "LIMITERS",
    "LIMITER_BITS",
    "UNLIMITED",
    "OccupancyGrid",
    "OccupancyInputs",
    "OccupancyResult",
    "as_arch",
    "occupancy",
    "occupancy_grid",
]

# Limiter names in report order, with H13's cudaOccLimitingFactor bits.
LIMITERS = ("warps", "registers", "shared_memory", "blocks", "barriers", "virtual_resources")
LIMITER_BITS = {
    "warps": 0x01,
    "registers": 0x02,
    "shared_memory": 0x04,
    "blocks": 0x08,
    "barriers": 0x10,
    "virtual_resources": 0x20,
}


@dataclass(frozen=True)
class OccupancyResult(Result):
    """One configuration's occupancy (JSON field names of `perfcalc occupancy`).

    `block_limits` maps each limiter to the blocks it alone would allow; UNLIMITED (2**31 - 1,
    the header's INT_MAX; null in `to_dict()` and JSON) marks a resource the kernel does not
    use; "barriers" is present only where the CC applies a barrier limit (9.0+),
    "virtual_resources" only where the kernel uses them on a CC that has them (10.x-12.x).
    """

    active_blocks_per_sm: int
    active_warps_per_sm: int
    active_threads_per_sm: int
    occupancy: float
    limiters: tuple[str, ...]
    block_limits: dict[str, int]
    allocated_registers_per_block: int
    allocated_shared_memory_per_block_bytes: int
    shared_memory_per_sm_bytes: int

    def to_dict(self) -> dict[str, Any]:
        """The fields as JSON values; a limit that does not apply (UNLIMITED) is null."""
        data = super().to_dict()
        data["block_limits"] = {k: (None if v == UNLIMITED else v) for k, v in data["block_limits"].items()}
        return data


@dataclass(frozen=True)
class OccupancyGrid:
    """Occupancy of every configuration of a broadcast grid; all arrays share `shape`.

    Arrays are read-only views (broadcast, not copied). `limiter_mask` uses H13's bits
    (LIMITER_BITS); `limit_barriers` is None where no barrier limit applies.
    """

    arch: Arch
    cache_config: str
    block_barriers: int
    virtual_resources: int
    block_size: np.ndarray
    registers_per_thread: np.ndarray
    static_shared_memory_bytes: np.ndarray
    dynamic_shared_memory_bytes: np.ndarray
    carveout: np.ndarray
    warps_per_block: np.ndarray
    active_blocks: np.ndarray
    limiter_mask: np.ndarray
    limit_warps: np.ndarray
    limit_registers: np.ndarray
    limit_shared_memory: np.ndarray
    limit_blocks: np.ndarray
    limit_barriers: np.ndarray | None
    limit_virtual_resources: np.ndarray | None
    allocated_registers: np.ndarray
    allocated_shared_memory: np.ndarray
    shared_memory_per_sm: np.ndarray

    @property
    def shape(self) -> tuple[int, ...]:
        return self.active_blocks.shape

    @property
    def active_warps(self) -> np.ndarray:
        return self.active_blocks * self.warps_per_block

    @property
    def active_threads(self) -> np.ndarray:
        return self.active_blocks * self.block_size

    @property
    def occupancy(self) -> np.ndarray:
        """Active warps / the SM's warp slots (fraction 0..1)."""
        return self.active_warps / self.arch.max_warps_per_sm

    def limits(self) -> dict[str, np.ndarray]:
        """Per-limiter block limits by name ("barriers" only where it applies)."""
        named = {
            "warps": self.limit_warps,
            "registers": self.limit_registers,
            "shared_memory": self.limit_shared_memory,
            "blocks": self.limit_blocks,
        }
        if self.limit_barriers is not None:
            named["barriers"] = self.limit_barriers
        if self.limit_virtual_resources is not None:
            named["virtual_resources"] = self.limit_virtual_resources
        return named

    def limiters_at(self, index: Any = ()) -> tuple[str, ...]:
        mask = int(self.limiter_mask[index])
        return tuple(name for name in LIMITERS if mask & LIMITER_BITS[name])

    def result_at(self, index: Any = ()) -> OccupancyResult:
        """The scalar result of one configuration of the grid."""
        blocks = int(self.active_blocks[index])
        warps = blocks * int(self.warps_per_block[index])
        return OccupancyResult(
            active_blocks_per_sm=blocks,
            active_warps_per_sm=warps,
            active_threads_per_sm=blocks * int(self.block_size[index]),
            occupancy=warps / self.arch.max_warps_per_sm,
            limiters=self.limiters_at(index),
            block_limits={name: int(limit[index]) for name, limit in self.limits().items()},
            allocated_registers_per_block=int(self.allocated_registers[index]),
            allocated_shared_memory_per_block_bytes=int(self.allocated_shared_memory[index]),
            shared_memory_per_sm_bytes=int(self.shared_memory_per_sm[index]),
        )


@dataclass(frozen=True)
class OccupancyInputs:
    """One kernel configuration: the occupancy parameters, defined once (None = default).

    Any field may be a NumPy array (they broadcast in `grid`). carveout: None or -1 = default,
    else percent 0..100 (CC 7.0+). cache_config: None | "none" | "prefer-shared" | "prefer-l1" |
    "prefer-equal" (2.x/3.x splits; on 7.0+ a stand-in for a default carveout). block_barriers:
    barriers per block (cudaFuncAttributes converts to 1; 0 skips the 9.0+ barrier limit).
    virtual_resources: the function's virtual-resource count (10.x-12.x; cudaFuncAttributes
    gives 0, which skips the limit).
    """

    block_size: Any
    registers_per_thread: Any
    static_shared_memory_bytes: Any = 0
    dynamic_shared_memory_bytes: Any = 0
    carveout: Any = None
    cache_config: str | None = None
    block_barriers: int = 1
    virtual_resources: int = 0

    @property
    def shared_memory(self) -> Any:
        """Static + dynamic bytes the kernel asks for per block."""
        return self.static_shared_memory_bytes + self.dynamic_shared_memory_bytes

    def grid(self, cc: DeviceName, *, check_launch: bool = True, **overrides: Any) -> OccupancyGrid:
        """The configuration (with any field overridden, e.g. by an array) through the engine."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values.update(overrides)
        return occupancy_grid(cc, **values, check_launch=check_launch)

    def split_shared(self, total: np.ndarray) -> dict[str, np.ndarray]:
        """A total shared memory split as the kernel would: static kept as far as it fits, the
        rest dynamic (only dynamic shared memory opts in above the default limit)."""
        static = np.minimum(self.static_shared_memory_bytes, total)
        return {"static_shared_memory_bytes": static, "dynamic_shared_memory_bytes": total - static}


def occupancy_grid(
    cc: DeviceName,
    block_size: Any,
    registers_per_thread: Any,
    static_shared_memory_bytes: Any = 0,
    dynamic_shared_memory_bytes: Any = 0,
    carveout: Any = None,
    cache_config: str | None = None,
    *,
    block_barriers: int = 1,
    virtual_resources: int = 0,
    check_launch: bool = True,
) -> OccupancyGrid:
    """Occupancy over broadcast arrays of configurations (the one implementation).

    Parameters as `OccupancyInputs` documents them. check_launch=False lets configurations the
    hardware cannot launch (block, registers or shared memory above the CC's per-block limits)
    through as 0 blocks, as cuda_occupancy.h reports them, for sweeps that run past a limit;
    negative or fractional values still fail.
    """
    arch = as_arch(cc)
    blocks = inputs.as_int_array(block_size, "block size")
    regs = inputs.as_int_array(registers_per_thread, "registers per thread")
    static = inputs.as_int_array(static_shared_memory_bytes, "static shared memory")
    dynamic = inputs.as_int_array(dynamic_shared_memory_bytes, "dynamic shared memory")
    try:
        np.broadcast(blocks, regs, static, dynamic)
    except ValueError:
        shapes = ", ".join(str(a.shape) for a in (blocks, regs, static, dynamic))
        raise InputError(
            f"block size, registers and shared memory arrays have shapes {shapes}, which do not broadcast together"
        ) from None
    inputs.check_block_size(arch, blocks, upper=check_launch)
    inputs.check_registers(arch, regs, upper=check_launch)
    inputs.check_shared_memory(arch, static, dynamic, upper=check_launch)
    return compute_grid(
        arch,
        blocks,
        regs,
        static,
        dynamic,
        inputs.normalize_carveout(arch, carveout),
        inputs.normalize_cache_config(arch, cache_config),
        inputs.check_block_barriers(block_barriers),
        inputs.check_virtual_resources(virtual_resources),
    )


def compute_grid(
    arch: Arch,
    blocks: np.ndarray,
    regs: np.ndarray,
    static: np.ndarray,
    dynamic: np.ndarray,
    carveout: np.ndarray,
    cache_config: str,
    block_barriers: int,
    virtual_resources: int = 0,
) -> OccupancyGrid:
    """The algorithm on checked int64 arrays (H13 cudaOccMaxActiveBlocksPerMultiprocessor)."""
    limit_warps = rules.warp_limit(arch, blocks)
    limit_regs = rules.register_limit(arch, blocks, regs)
    alloc_regs = rules.allocated_registers(arch, blocks, regs)
    alloc_smem = rules.allocated_shared_memory(arch, static, dynamic)
    preferred = rules.preferred_shared_memory(arch, carveout, cache_config)
    capacity = rules.shared_memory_capacity(arch, alloc_smem, preferred)
    limit_smem = rules.shared_memory_limit(alloc_smem, rules.shared_memory_block_limit(arch, static, dynamic), capacity)
    limit_blocks = np.asarray(arch.max_blocks_per_sm)
    limit_virtual = None
    if rules.virtual_limit_applies(arch, virtual_resources):
        limit_virtual = np.asarray(rules.virtual_resource_limit(arch, virtual_resources))

    active = np.minimum(np.minimum(limit_regs, limit_smem), np.minimum(limit_warps, limit_blocks))
    if limit_virtual is not None:
        active = np.minimum(active, limit_virtual)
    limit_bars = None
    if rules.barrier_limit_applies(arch, block_barriers):
        limit_bars = np.asarray(rules.barrier_limit(arch, block_barriers))
        active = np.minimum(active, limit_bars)
    # A limiter is every limit equal to the final minimum (H13 sets the same bits; it computes
    # them before min'ing in the barrier limit, which can only differ with >= 3 barriers/block).
    named = (
        (limit_warps, "warps"),
        (limit_regs, "registers"),
        (limit_smem, "shared_memory"),
        (limit_blocks, "blocks"),
        (limit_bars, "barriers"),
        (limit_virtual, "virtual_resources"),
    )
    mask = np.zeros(np.shape(active), dtype=np.uint8)
    for limit, name in named:
        if limit is not None:
            mask |= (limit == active).astype(np.uint8) * np.uint8(LIMITER_BITS[name])

    active = np.asarray(active)
    shape = active.shape

    def view(array: np.ndarray) -> np.ndarray:
        return np.broadcast_to(array, shape)  # a read-only view, never a copy

    active.flags.writeable = False
    mask.flags.writeable = False
    return OccupancyGrid(
        arch=arch,
        cache_config=cache_config,
        block_barriers=block_barriers,
        virtual_resources=virtual_resources,
        block_size=view(blocks),
        registers_per_thread=view(regs),
        static_shared_memory_bytes=view(static),
        dynamic_shared_memory_bytes=view(dynamic),
        carveout=view(carveout),
        warps_per_block=view(rules.warps_per_block(arch, blocks)),
        active_blocks=active,
        limiter_mask=mask,
        limit_warps=view(limit_warps),
        limit_registers=view(limit_regs),
        limit_shared_memory=view(limit_smem),
        limit_blocks=view(limit_blocks),
        limit_barriers=None if limit_bars is None else view(limit_bars),
        limit_virtual_resources=None if limit_virtual is None else view(limit_virtual),
        allocated_registers=view(alloc_regs),
        allocated_shared_memory=view(alloc_smem),
        shared_memory_per_sm=view(capacity),
    )


def occupancy(
    cc: DeviceName,
    block_size: int,
    registers_per_thread: int,
    static_shared_memory_bytes: int = 0,
    dynamic_shared_memory_bytes: int = 0,
    carveout: int | None = None,
    cache_config: str | None = None,
    *,
    block_barriers: int = 1,
    virtual_resources: int = 0,
) -> OccupancyResult:
    """Occupancy of one kernel configuration on one SM of compute capability `cc`
    (parameters as `OccupancyInputs` documents them).

    >>> occupancy("7.0", 256, 32).active_blocks_per_sm
    8
    """
    checked: tuple[tuple[str, Any], ...] = (  # a caller may pass arrays: refused here
        ("block size", block_size),
        ("registers per thread", registers_per_thread),
        ("static shared memory", static_shared_memory_bytes),
        ("dynamic shared memory", dynamic_shared_memory_bytes),
        ("carveout", carveout),
    )
    for name, value in checked:
        if np.ndim(value) != 0:
            raise InputError(f"{name} must be one number for occupancy(); use occupancy_grid for arrays")
    config = OccupancyInputs(
        block_size,
        registers_per_thread,
        static_shared_memory_bytes,
        dynamic_shared_memory_bytes,
        carveout,
        cache_config,
        block_barriers,
        virtual_resources,
    )
    grid = config.grid(cc)
    return grid.result_at(())
