"""The one place where sim/ asks memory/ what a warp-level access costs.

Every global and shared access of a simulated kernel is priced through
``perfcalc.memory.global_access_batch`` / ``shared_access_batch`` (batch API: (W, 32) address
and active-lane arrays in, per-warp arrays out). Until memory/ provides them, a private interim
rule for CC >= 5.0 is used (distinct 32-byte sectors per warp; shared: max distinct 4-byte words
per bank), marked ``INTERIM`` below, so the execution core can be built and tested meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

try:  # pragma: no cover - which branch runs depends on whether memory/ has landed
    from perfcalc.memory import global_access_batch as _global_batch
    from perfcalc.memory import shared_access_batch as _shared_batch
except ImportError:  # INTERIM
    _global_batch = None
    _shared_batch = None


@dataclass(frozen=True)
class GlobalCost:
    """Totals over the warps of one access instruction."""

    requests: int
    transactions: int
    bytes_moved: int


@dataclass(frozen=True)
class SharedCost:
    """Totals over the warps of one shared access instruction."""

    wavefronts: int
    bank_conflicts: int


def price_global(arch: object, addresses: np.ndarray, size: int, active: np.ndarray, op: str,
                 cache: str | None) -> GlobalCost:
    """Cost of one global load/store instruction executed by every warp of `addresses`."""
    if _global_batch is not None:
        r = _global_batch(arch, addresses, size, active, op=op, cache=cache)
        return GlobalCost(int(np.sum(r.requests)), int(np.sum(r.transactions)),
                          int(np.sum(r.bytes_moved)))
    sectors = _distinct_per_row(addresses >> 5, active)  # INTERIM: CC >= 5.0 sectors
    requests = int(np.count_nonzero(active.any(axis=1)))
    total = int(sectors.sum())
    return GlobalCost(requests, total, 32 * total)


def price_shared(arch: object, addresses: np.ndarray, size: int, active: np.ndarray, op: str,
                 bank_mode: int | None) -> SharedCost:
    """Cost of one shared load/store instruction executed by every warp of `addresses`."""
    if _shared_batch is not None:
        r = _shared_batch(arch, addresses, size, active, op=op, bank_mode=bank_mode)
        return SharedCost(int(np.sum(r.wavefronts)), int(np.sum(r.bank_conflicts)))
    words = addresses >> 2  # INTERIM: 32 banks x 4 bytes, passes = max distinct words per bank
    key = np.where(active, ((words & 31) << 40) | (words & ((1 << 40) - 1)), -1)
    key = np.sort(key, axis=1)
    new = np.ones(key.shape, dtype=bool)
    new[:, 1:] = key[:, 1:] != key[:, :-1]
    new &= key >= 0
    banks = np.where(new, key >> 40, 32)
    rows = np.repeat(np.arange(key.shape[0]), 32)
    counts = np.zeros((key.shape[0], 33), dtype=np.int64)
    np.add.at(counts, (rows, banks.ravel()), 1)
    passes = counts[:, :32].max(axis=1)
    any_active = active.any(axis=1)
    passes = np.where(any_active, np.maximum(passes, 1), 0)
    ideal = np.where(any_active, np.maximum(1, -(-active.sum(axis=1) * size // 128)), 0)
    return SharedCost(int(passes.sum()), int(np.maximum(passes - ideal, 0).sum()))


def _distinct_per_row(keys: np.ndarray, active: np.ndarray) -> np.ndarray:
    """Number of distinct values among the active entries of each row."""
    big = np.iinfo(np.int64).max
    k = np.sort(np.where(active, keys, big), axis=1)
    new = np.ones(k.shape, dtype=bool)
    new[:, 1:] = k[:, 1:] != k[:, :-1]
    return np.count_nonzero(new & (k != big), axis=1)
