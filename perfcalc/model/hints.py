"""What to change: advice computed with the occupancy engine itself, never from rules of thumb.

Every suggestion is a configuration the engine was asked about: "registers limit you: <= 24
registers per thread would allow 10 blocks" means the engine, fed 24 registers and everything
else unchanged, answers 10 blocks, and 25 registers would not raise the count. A configuration
that fits zero blocks also gets the engine's own explanation (occupancy_explain.zero_reason).

The searches use `occupancy_grid` over whole ranges at once (all register counts, all shared
memory sizes in allocation units, all block sizes), so advice costs a few array evaluations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from perfcalc.model.occupancy import OccupancyGrid, OccupancyInputs, OccupancyResult, as_arch
from perfcalc.model.occupancy_explain import zero_reason
from perfcalc.specs import Arch
from perfcalc.units import percent


@dataclass(frozen=True)
class Hint:
    """One change and what the engine says it gives.

    kind: "resources" (fewer registers and/or less shared memory per block), "carveout" (a
    larger shared-memory carveout, CC 7.0+), "cache_config" (a larger L1/shared split, 2.x/3.x),
    "block_size" (the nearest block size that does better) or "none" (already at 100 %).
    `changes` maps the input names (registers_per_thread, shared_memory_per_block_bytes = static +
    dynamic bytes, carveout, cache_config, block_size) to suggested values;
    `limiters` are the current limiters the change works on (all of them for a block size).
    """

    kind: str
    limiters: tuple[str, ...]
    changes: dict[str, int | str]
    active_blocks_per_sm: int
    occupancy: float


@dataclass(frozen=True)
class Advice:
    """A configuration's result, why it fits zero blocks (None when it fits), what to change."""

    cc: str
    inputs: OccupancyInputs
    result: OccupancyResult
    zero_fit_reason: str | None
    hints: tuple[Hint, ...]


@dataclass(frozen=True)
class _Config:
    """The inputs bound to an Arch, with the engine call every search varies one input of."""

    arch: Arch
    inputs: OccupancyInputs

    def grid(self, **overrides: Any) -> OccupancyGrid:
        return self.inputs.grid(self.arch, **overrides)

    def split(self, total: np.ndarray) -> dict[str, np.ndarray]:
        return self.inputs.split_shared(total)


def advise(cc: Arch | str, inputs: OccupancyInputs) -> Advice:
    """Occupancy of one configuration plus the reasons for a zero fit and the hints."""
    cfg = _Config(as_arch(cc), inputs)
    grid = cfg.grid()
    result = grid.result_at(())
    if result.occupancy >= 1.0:
        hints: tuple[Hint, ...] = (Hint("none", (), {}, result.active_blocks_per_sm, 1.0),)
    else:
        hints = tuple(
            h
            for h in (_resource_hint(cfg, result), _carveout_hint(cfg, result), _block_size_hint(cfg, result))
            if h is not None
        )
    return Advice(cfg.arch.cc, inputs, result, zero_reason(grid), hints)


def _largest_at_least(values: np.ndarray, limits: np.ndarray, target: int) -> int | None:
    """The largest value whose limit still allows `target` blocks (limits fall as values grow)."""
    ok = np.flatnonzero(limits >= target)
    return int(values[ok[-1]]) if ok.size else None


def _resource_hint(cfg: _Config, result: OccupancyResult) -> Hint | None:
    """Fewest registers / bytes to give up for the next block count the block size allows.

    For each target count above the current one (up to what warps, the block limit and
    barriers allow at this block size), registers and shared memory that limit below the
    target are lowered to the largest values that reach it; the first reachable target wins.
    """
    limits = result.block_limits
    fixed = min(v for k, v in limits.items() if k not in ("registers", "shared_memory"))
    regs = np.arange(cfg.inputs.registers_per_thread + 1)
    reg_limits = cfg.grid(registers_per_thread=regs).limit_registers
    unit = cfg.arch.shared_memory_allocation_unit_bytes
    total = cfg.inputs.shared_memory
    smem = np.unique(np.append(np.arange(0, total + 1, unit), total))
    smem_limits = cfg.grid(**cfg.split(smem)).limit_shared_memory
    for target in range(result.active_blocks_per_sm + 1, fixed + 1):
        changes: dict[str, int | str] = {}
        relieved: list[str] = []
        for name, key, values, lims in (
            ("registers", "registers_per_thread", regs, reg_limits),
            ("shared_memory", "shared_memory_per_block_bytes", smem, smem_limits),
        ):
            if limits[name] >= target:
                continue
            best = _largest_at_least(values, lims, target)
            if best is None:
                return None  # a larger target cannot be reached either (limits are monotone)
            changes[key], relieved = best, [*relieved, name]
        regs_new = changes.get("registers_per_thread", cfg.inputs.registers_per_thread)
        smem_new = changes.get("shared_memory_per_block_bytes", total)
        got = cfg.grid(registers_per_thread=regs_new, **cfg.split(np.asarray(smem_new)))
        new = got.result_at(())
        return Hint("resources", tuple(relieved), changes, new.active_blocks_per_sm, new.occupancy)
    return None


def _carveout_hint(cfg: _Config, result: OccupancyResult) -> Hint | None:
    """More shared memory per SM, when shared memory limits: on CC 7.0+ the smallest carveout
    that holds more blocks; on 2.x/3.x the cudaFuncSetCacheConfig split that holds the most."""
    if "shared_memory" not in result.limiters:
        return None
    if cfg.arch.shared_memory_carveouts_kb is not None:
        percents = np.arange(101)
        blocks = cfg.grid(carveout=percents).active_blocks
        better = np.flatnonzero(blocks > result.active_blocks_per_sm)
        if not better.size:
            return None
        best = cfg.grid(carveout=int(percents[better[0]])).result_at(())
        return Hint(
            "carveout",
            ("shared_memory",),
            {"carveout": int(percents[better[0]])},
            best.active_blocks_per_sm,
            best.occupancy,
        )
    if cfg.arch.l1_shared_splits_kb is None:
        return None
    options = []
    for name in ("prefer-shared", "prefer-equal", "prefer-l1"):  # preferred first on ties
        got = _Config(cfg.arch, replace(cfg.inputs, cache_config=name)).grid().result_at(())
        options.append((got.active_blocks_per_sm, name, got))
    best_blocks, name, got = max(options, key=lambda o: o[0])
    if best_blocks <= result.active_blocks_per_sm:
        return None
    return Hint("cache_config", ("shared_memory",), {"cache_config": name}, got.active_blocks_per_sm, got.occupancy)


def _block_size_hint(cfg: _Config, result: OccupancyResult) -> Hint | None:
    """The block size (a warp multiple) nearest to the current one with higher occupancy."""
    arch = cfg.arch
    sizes = np.arange(arch.warp_size, arch.max_threads_per_block + 1, arch.warp_size)
    occupancy = cfg.grid(block_size=sizes).occupancy
    better = np.flatnonzero(occupancy > result.occupancy + 1e-12)
    if not better.size:
        return None
    # nearest first; of two equally near, the larger block (fewer blocks to schedule)
    current = cfg.inputs.block_size
    distance = np.abs(sizes[better] - current) * 2 - (sizes[better] > current)
    pick = int(sizes[better[np.argmin(distance)]])
    new = cfg.grid(block_size=pick).result_at(())
    return Hint("block_size", result.limiters, {"block_size": pick}, new.active_blocks_per_sm, new.occupancy)


# How sentences name the occupancy limiters (OccupancyResult.limiters).
LIMITER_LABELS = {
    "warps": "warps",
    "registers": "registers",
    "shared_memory": "shared memory",
    "blocks": "blocks",
    "barriers": "barriers",
}


def _names(limiters: Sequence[str]) -> str:
    labels = [LIMITER_LABELS[n] for n in limiters]
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def hint_message(hint: Hint) -> str:
    """One sentence per hint, e.g. 'registers limit you: <= 24 registers per thread would
    allow 10 blocks (62.5 % occupancy)'."""
    gives = (
        f"would allow {hint.active_blocks_per_sm} block"
        f"{'' if hint.active_blocks_per_sm == 1 else 's'} ({percent(hint.occupancy)} occupancy)"
    )
    if hint.kind == "none":
        return "nothing to change: 100 % theoretical occupancy"
    if hint.kind == "resources":
        verb = "limits" if hint.limiters == ("shared_memory",) else "limit"
        parts = []
        if "registers_per_thread" in hint.changes:
            parts.append(f"<= {hint.changes['registers_per_thread']} registers per thread")
        if "shared_memory_per_block_bytes" in hint.changes:
            parts.append(
                f"<= {hint.changes['shared_memory_per_block_bytes']} bytes of shared memory per block "
                "(static + dynamic)"
            )
        together = " together" if len(hint.limiters) > 1 else ""
        return f"{_names(hint.limiters)} {verb} you{together}: {' and '.join(parts)} {gives}"
    if hint.kind == "carveout":
        return f"shared memory limits you: a carveout of {hint.changes['carveout']} % or more (--carveout) {gives}"
    if hint.kind == "cache_config":
        return (
            f"shared memory limits you: --cache-config {hint.changes['cache_config']} (cudaFuncSetCacheConfig) {gives}"
        )
    if hint.kind == "block_size":
        return f"block size {hint.changes['block_size']} {gives}"
    raise ValueError(f"unknown hint kind {hint.kind!r}")
