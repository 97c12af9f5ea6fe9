"""The block size that maximises occupancy, by NVIDIA's own search and tie rule.

H13 cudaOccMaxPotentialOccupancyBlockSize (reference/occupancy.md section b): candidates descend
from roundUp(limit, warp size) in warp-size steps (each capped at the limit, so a limit of 1000
is tried as 1000 first); the score is active blocks x block size (threads); a candidate replaces
the best only with a strictly greater score, so ties keep the larger block. The header stops
early once a score reaches the SM's thread limit, which cannot change the pick: nothing scores
more. Here every candidate is scored at once through `occupancy_grid`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from perfcalc.errors import InputError
from perfcalc.model import occupancy_inputs as inputs
from perfcalc.model.occupancy import OccupancyGrid, as_arch, occupancy_grid
from perfcalc.results import Result
from perfcalc.specs import Arch
from perfcalc.specs.registry import DeviceName


@dataclass(frozen=True)
class BlockSizeCandidate:
    """One block size the search tried."""

    block_size: int
    dynamic_shared_memory_bytes: int
    active_blocks_per_sm: int
    active_threads_per_sm: int
    occupancy: float
    limiters: tuple[str, ...]


@dataclass(frozen=True)
class BlockSizeSuggestion(Result):
    """The pick (block_size 0 when no candidate fits) and every candidate, best first.

    `ranking` is ordered by active threads per SM, then larger block first: the header's tie
    rule, so ranking[0] is the pick whenever anything fits.
    """

    block_size: int
    active_blocks_per_sm: int
    occupancy: float
    ranking: tuple[BlockSizeCandidate, ...]


def candidate_block_sizes(arch: Arch, block_size_limit: int | None = None) -> np.ndarray:
    """Block sizes in the header's search order (descending)."""
    limit = arch.max_threads_per_block
    if block_size_limit is not None:
        if (
            isinstance(block_size_limit, bool)
            or not isinstance(block_size_limit, (int, np.integer))
            or block_size_limit < 1
        ):
            raise InputError(f"block size limit must be a whole number >= 1, got {block_size_limit!r}")
        limit = min(limit, int(block_size_limit))
    warp = arch.warp_size
    aligned = -(-limit // warp) * warp
    return np.minimum(limit, np.arange(aligned, 0, -warp, dtype=np.int64))


def suggest_block_size(
    cc: DeviceName,
    registers_per_thread: int,
    static_shared_memory_bytes: int = 0,
    dynamic_shared_memory_bytes: int | Callable[[int], int] = 0,
    carveout: int | None = None,
    cache_config: str | None = None,
    *,
    block_size_limit: int | None = None,
    block_barriers: int = 1,
) -> BlockSizeSuggestion:
    """cudaOccMaxPotentialOccupancyBlockSize (dynamic_shared_memory_bytes may map block size -> bytes,
    as the VariableSMem variant; a candidate whose shared memory cannot launch scores 0)."""
    arch = as_arch(cc)
    blocks = candidate_block_sizes(arch, block_size_limit)
    variable = callable(dynamic_shared_memory_bytes)
    if callable(dynamic_shared_memory_bytes):
        per_block = dynamic_shared_memory_bytes
        dynamic = inputs.as_int_array([per_block(int(b)) for b in blocks], "dynamic shared memory")
    else:
        dynamic = inputs.as_int_array(dynamic_shared_memory_bytes, "dynamic shared memory")
    regs = inputs.as_int_array(registers_per_thread, "registers per thread")
    static = inputs.as_int_array(static_shared_memory_bytes, "static shared memory")
    if regs.ndim or static.ndim or dynamic.ndim > variable:
        raise InputError("suggest_block_size takes one register count and one shared-memory size")
    inputs.check_registers(arch, regs)
    inputs.check_shared_memory(arch, static, dynamic)
    grid = occupancy_grid(
        arch,
        blocks,
        regs,
        static,
        dynamic,
        carveout,
        cache_config,
        block_barriers=block_barriers,
        check_launch=False,
    )
    return _pick(grid)


def _pick(grid: OccupancyGrid) -> BlockSizeSuggestion:
    threads = grid.active_threads
    order = np.argsort(-threads, kind="stable")  # candidates already descend: ties keep larger
    ranking = tuple(
        BlockSizeCandidate(
            block_size=int(grid.block_size[i]),
            dynamic_shared_memory_bytes=int(grid.dynamic_shared_memory_bytes[i]),
            active_blocks_per_sm=int(grid.active_blocks[i]),
            active_threads_per_sm=int(threads[i]),
            occupancy=float(grid.occupancy[i]),
            limiters=grid.limiters_at(i),
        )
        for i in order
    )
    best = ranking[0]
    if best.active_threads_per_sm == 0:
        return BlockSizeSuggestion(block_size=0, active_blocks_per_sm=0, occupancy=0.0, ranking=ranking)
    return BlockSizeSuggestion(
        block_size=best.block_size,
        active_blocks_per_sm=best.active_blocks_per_sm,
        occupancy=best.occupancy,
        ranking=ranking,
    )
