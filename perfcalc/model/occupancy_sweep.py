"""The occupancy spreadsheet's three graphs: one input varied over its whole legal range (block
size in warp steps, every register count, shared memory in allocation units), everything else
as given, each point computed by the vectorised occupancy (model/occupancy.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from perfcalc.model.occupancy import OccupancyInputs
from perfcalc.specs import Arch


@dataclass(frozen=True)
class Sweep:
    """One input varied over its whole legal range, everything else as given.

    Each value v stands for the integers after the previous value up to v: results are equal
    across them (warps, register units and shared-memory units round up), so the step table's
    ranges are exact. `current` is the user's value of the varied input.
    """

    axis: str
    values: np.ndarray
    active_blocks: np.ndarray
    active_warps: np.ndarray
    occupancy: np.ndarray
    limiters: tuple[tuple[str, ...], ...]
    current: int
    max_warps_per_sm: int


def sweep_values(arch: Arch, inputs: OccupancyInputs, axis: str) -> np.ndarray:
    """The spreadsheet's x axes: block sizes in warp steps, every register count, shared memory
    in the CC's allocation unit up to what a block may request; the current value included."""
    if axis == "block":
        values = np.arange(arch.warp_size, arch.max_threads_per_block + 1, arch.warp_size)
        current = inputs.block_size
    elif axis == "regs":
        values = np.arange(0, arch.max_registers_per_thread + 1)
        current = inputs.registers_per_thread
    else:
        unit = arch.shared_memory_allocation_unit_bytes
        values = np.arange(0, arch.max_shared_memory_per_block_launchable_bytes + 1, unit)
        current = inputs.shared_memory
    return np.unique(np.append(values, current))


def compute_sweep(arch: Arch, inputs: OccupancyInputs, axis: str, dynamic_of_block: Any = None) -> Sweep:
    """One of the spreadsheet's graphs; `dynamic_of_block` maps block sizes to dynamic shared
    memory (cudaOccupancyMaxPotentialBlockSizeVariableSMem's function) on the block axis."""
    values = sweep_values(arch, inputs, axis)
    args: dict[str, Any] = {}
    if axis == "block":
        args["block_size"] = values
        if dynamic_of_block is not None:
            args["dynamic_shared_memory_bytes"] = dynamic_of_block(values)
        current = inputs.block_size
    elif axis == "regs":
        args["registers_per_thread"] = values
        current = inputs.registers_per_thread
    else:
        # static kept as far as it fits, the rest dynamic (only dynamic opts in above 48 KB)
        args = inputs.split_shared(values)
        current = inputs.shared_memory
    grid = inputs.grid(arch, **args)
    limiters = tuple(grid.limiters_at(i) for i in range(values.size))
    return Sweep(
        axis,
        values,
        np.asarray(grid.active_blocks),
        np.asarray(grid.active_warps),
        np.asarray(grid.occupancy),
        limiters,
        int(current),
        arch.max_warps_per_sm,
    )
