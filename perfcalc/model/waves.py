"""Waves: how a grid of blocks spreads over a product's SMs, and how full the last wave is.

The block scheduler keeps up to `active_blocks_per_sm` blocks resident on each SM; a grid of N
blocks therefore runs as ceil(N / (blocks per SM x SMs)) waves when every block takes the same
time, and the last ("tail") wave holds N mod that many blocks. The same product
blocks-per-SM x SMs is the minimum grid size `cudaOccupancyMaxPotentialBlockSize` returns
(cuda_occupancy.h cudaOccMaxPotentialOccupancyBlockSize: minGridSize = ctaLimit x numSms).
"""

from __future__ import annotations

from dataclasses import dataclass

from perfcalc.errors import InputError
from perfcalc.specs.gpu import Gpu


@dataclass(frozen=True)
class Waves:
    """A grid on a product: blocks per wave, full waves, the tail and its fill (fraction 0..1)."""

    gpu: str
    sm_count: int
    grid_blocks: int
    active_blocks_per_sm: int
    blocks_per_wave: int
    waves: int
    full_waves: int
    tail_blocks: int
    tail_fill: float
    average_fill: float


def min_grid_size(active_blocks_per_sm: int, gpu: Gpu) -> int:
    """Blocks that fill every SM once: cudaOccupancyMaxPotentialBlockSize's minGridSize."""
    return active_blocks_per_sm * gpu.sm_count


def waves(grid_blocks: int, active_blocks_per_sm: int, gpu: Gpu) -> Waves:
    """Waves of a `grid_blocks`-block launch at `active_blocks_per_sm` resident blocks per SM."""
    if isinstance(grid_blocks, bool) or not isinstance(grid_blocks, int) or grid_blocks < 1:
        raise InputError(f"--grid {grid_blocks!r} must be a whole number of blocks >= 1")
    if grid_blocks > 2**31 - 1:
        raise InputError(f"--grid {grid_blocks} exceeds the launch limit of 2147483647 blocks")
    if active_blocks_per_sm < 1:
        raise InputError("no block fits on an SM, so the grid never runs: waves are undefined")
    per_wave = min_grid_size(active_blocks_per_sm, gpu)
    count = -(-grid_blocks // per_wave)
    full, tail = divmod(grid_blocks, per_wave)
    return Waves(
        gpu=gpu.key,
        sm_count=gpu.sm_count,
        grid_blocks=grid_blocks,
        active_blocks_per_sm=active_blocks_per_sm,
        blocks_per_wave=per_wave,
        waves=count,
        full_waves=full,
        tail_blocks=tail,
        tail_fill=(tail / per_wave) if tail else 1.0,
        average_fill=grid_blocks / (count * per_wave),
    )
