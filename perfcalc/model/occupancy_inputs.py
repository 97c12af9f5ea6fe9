"""Checking occupancy inputs against the CC's limits, with one-line messages that cite them.

A value no kernel can have (a block above max_threads_per_block, more registers than ptxas can
give a thread, static shared memory above the 48 KB a compiler accepts) is an `InputError`. A
configuration that fits zero blocks on an SM -- including dynamic shared memory above the opt-in
limit, which cuda_occupancy.h reports as 0 blocks -- is a result, computed and explained by the
engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfcalc.errors import InputError
from perfcalc.specs import Arch

CACHE_CONFIGS = ("none", "prefer-shared", "prefer-l1", "prefer-equal")


def device_file(arch: Arch, key: str) -> str:
    """Where a limit comes from: the key and the device file that holds it (and its sources)."""
    return arch.cite(key)


def as_int_array(value: Any, what: str) -> np.ndarray:
    """Integers as an int64 array; whole-number floats are accepted, anything else is refused."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):
        raise InputError(f"{what} must be a whole number, got {value!r}") from None
    if array.size == 0:
        raise InputError(f"{what} is empty ({value!r}); give a number or a non-empty array of them")
    if array.dtype == bool or not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)):
        raise InputError(f"{what} must be a whole number, got {value!r}")
    if np.issubdtype(array.dtype, np.floating):
        bad = ~np.isfinite(array) | (array != np.round(array))
        if bad.any():
            raise InputError(f"{what} must be a whole number, got {array[bad].flat[0].item()!r}")
    if array.size and (np.abs(array.astype(float)) >= 2.0**63).any():  # the cast would wrap
        raise InputError(f"{what} {value!r:.40} is beyond the limit of 2**63 - 1")
    return array.astype(np.int64)


def _first(mask: np.ndarray, array: np.ndarray) -> int:
    return int(np.broadcast_to(array, mask.shape)[mask].flat[0])


def check_block_size(arch: Arch, block_size: np.ndarray, upper: bool = True) -> None:
    cc, limit = arch.cc, arch.max_threads_per_block
    where = device_file(arch, "max_threads_per_block")
    if (block_size <= 0).any():
        value = _first(block_size <= 0, block_size)
        raise InputError(f"block size {value} is not launchable: a block has 1 to {limit} threads on CC {cc} ({where})")
    if upper and (block_size > limit).any():
        value = _first(block_size > limit, block_size)
        raise InputError(
            f"block of {value} threads exceeds CC {cc}'s limit of {limit} threads per "
            f"block ({where}); the hardware cannot launch it"
        )


def check_registers(arch: Arch, registers: np.ndarray, upper: bool = True) -> None:
    cc, limit = arch.cc, arch.max_registers_per_thread
    where = device_file(arch, "max_registers_per_thread")
    bad = (registers < 0) | ((registers > limit) if upper else False)
    if bad.any():
        value = _first(bad, registers)
        raise InputError(
            f"{value} registers per thread is outside CC {cc}'s range of 0 to {limit} "
            f"({where}); ptxas cannot allocate it"
        )


def check_shared_memory(arch: Arch, static: np.ndarray, dynamic: np.ndarray, upper: bool = True) -> None:
    """Non-negative sizes; static within the default per-block limit (only dynamic opts in)."""
    cc = arch.cc
    for name, array in (("static", static), ("dynamic", dynamic)):
        if (array < 0).any():
            raise InputError(f"{name} shared memory of {_first(array < 0, array)} bytes is negative")
    default = arch.max_shared_memory_per_block_bytes
    if upper and (static > default).any():
        value = _first(static > default, static)
        raise InputError(
            f"static shared memory of {value} bytes exceeds CC {cc}'s limit of {default} "
            f"bytes per block ({device_file(arch, 'max_shared_memory_per_block_bytes')}); "
            f"only dynamic shared memory can opt in above it"
        )


def normalize_cache_config(arch: Arch, cache_config: str | None) -> str:
    """None/'none' -> 'none'; a preference the CC cannot apply is refused."""
    if cache_config is None:
        return "none"
    name = str(cache_config).strip().lower().replace("_", "-")
    if name not in CACHE_CONFIGS:
        raise InputError(f"unknown cache config {cache_config!r}; choose one of {', '.join(CACHE_CONFIGS)}")
    if name != "none" and arch.l1_shared_splits_kb is None and arch.shared_memory_carveouts_kb is None:
        raise InputError(
            f"cache config {name!r} does not apply to CC {arch.cc}: its shared "
            f"memory "
            f"size is fixed ({device_file(arch, 'l1_shared_splits_kb and shared_memory_carveouts_kb')}"
            f" are null)"
        )
    return name


def normalize_carveout(arch: Arch, carveout: Any) -> np.ndarray:
    """None/-1 -> -1 (default); else whole percentages 0..100, on CCs that have a carveout."""
    if carveout is None:
        return np.asarray(-1, dtype=np.int64)
    percent = as_int_array(carveout, "carveout")
    bad = (percent < -1) | (percent > 100)
    if bad.any():
        raise InputError(
            f"carveout {_first(bad, percent)} is outside 0..100 percent "
            f"(cudaFuncAttributePreferredSharedMemoryCarveout; -1 = default)"
        )
    if (percent >= 0).any() and arch.shared_memory_carveouts_kb is None:
        raise InputError(
            f"carveout {_first(percent >= 0, percent)} % does not apply to CC "
            f"{arch.cc}: it has no shared-memory carveout "
            f"({device_file(arch, 'shared_memory_carveouts_kb')} is null; carveouts start at "
            f"CC 7.0)"
        )
    return percent


def check_virtual_resources(count: Any) -> int:
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or not 0 <= count <= 2**31 - 1:
        raise InputError(f"virtual resources must be a whole number 0..2147483647, got {count!r}"[:160])
    return int(count)


def check_block_barriers(block_barriers: Any) -> int:
    if isinstance(block_barriers, bool) or not isinstance(block_barriers, (int, np.integer)) or block_barriers < 0:
        raise InputError(f"block barriers must be a whole number >= 0, got {block_barriers!r}")
    if block_barriers > MAX_BLOCK_BARRIERS:
        raise InputError(
            f"block barriers {block_barriers:.4g} exceed the {MAX_BLOCK_BARRIERS} "
            "named barriers a block can use (PTX ISA: bar.sync 0..15)"
        )
    return int(block_barriers)


MAX_BLOCK_BARRIERS = 16
