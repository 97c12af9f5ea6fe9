"""Global-memory cost of warp-level loads and stores, for every coalescing family.

`global_access_batch` is the one implementation (many warps, no Python loop per warp);
`global_access` prices one warp through it and lists the transactions in issue order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from perfcalc.errors import InputError
from perfcalc.memory import global_rules as rules
from perfcalc.memory.inputs import (
    batch_arrays,
    check_addresses,
    check_op,
    check_size,
    warp_arrays,
)
from perfcalc.memory.l1_wavefronts import data_wavefronts, line_ranks
from perfcalc.memory.runs import distinct, row_counts
from perfcalc.results import Result
from perfcalc.specs import Arch, as_arch
from perfcalc.specs.families import GlobalFamily
from perfcalc.specs.registry import DeviceName

_CACHE_SOURCE = "CUDA C Programming Guide 4.2, F.4.2 and F.5.2"
# Warps priced per step: small enough that temporaries stay in cache and memory is reused.
CHUNK_WARPS = 16384


@dataclass(frozen=True, eq=False)
class GlobalBatchCost:
    """Per-warp costs (arrays of shape (W,)) and their totals.

    `lines`, `bytes_used` (distinct bytes the active lanes touch) and, on CC 7.x-9.0,
    `tag_wavefronts`, `data_wavefronts` and `data_bank_conflicts` are filled only with
    `detail=True`, and are None otherwise.
    """

    cc: str
    family: str
    size: int
    op: str
    cache: str | None
    requests: np.ndarray
    transactions: np.ndarray
    bytes_moved: np.ndarray
    bytes_requested: np.ndarray
    total_requests: int
    total_transactions: int
    total_bytes_moved: int
    total_bytes_requested: int
    lines: np.ndarray | None = None
    tag_wavefronts: np.ndarray | None = None
    data_wavefronts: np.ndarray | None = None
    data_bank_conflicts: np.ndarray | None = None
    bytes_used: np.ndarray | None = None


@dataclass(frozen=True)
class GlobalAccessCost(Result):
    """What one warp-level global instruction costs on one CC.

    `transactions` lists (address, size) in issue order and `transaction_requests` the request
    (half-warp, quarter-warp, ... numbered from 0) each belongs to. On CC >= 5.0 transactions
    are the 32-byte sectors. `efficiency` = bytes_used / bytes_moved (None if nothing moved).
    """

    cc: str
    family: str
    size: int
    op: str
    cache: str | None
    request_unit: str
    active_lanes: int
    requests: int
    transactions: tuple[tuple[int, int], ...]
    transaction_requests: tuple[int, ...]
    transaction_count: int
    bytes_moved: int
    bytes_requested: int
    bytes_used: int
    efficiency: float | None
    lines: int | None
    tag_wavefronts: int | None
    data_wavefronts: int | None
    data_bank_conflicts: int | None


def resolve_cache(arch: Arch, cache: str | None, op: str) -> str | None:
    """The cache mode in effect: 'l1' (128 B lines) or 'l2' (32 B segments) on 2.x/3.x,
    None elsewhere."""
    family = arch.global_family
    cc = arch.cc
    if family.cache_modes:
        mode = cache if cache is not None else family.default_cache
        if not isinstance(mode, str) or mode not in family.cache_modes:
            raise InputError(
                f"cache mode {cache!r} is not 'l1' (128-byte lines) or 'l2' (32-byte "
                f"segments), the modes of CC {cc} ({_CACHE_SOURCE})"
            )
        # Global stores are not cached in L1 on 2.x/3.x; they go to L2 in 32 B segments.
        return "l2" if op == "store" else mode
    if cache is not None:
        what = (
            "has no global-memory cache"
            if not family.has_cache
            else "always moves 32-byte sectors, whether or not L1 caches the load"
        )
        raise InputError(
            f"cache mode {cache!r} is not available on CC {cc}: it {what}; cache "
            f"modes exist only on CC 2.x (l1 default, l2) and 3.x (l2 default, l1) "
            f"({_CACHE_SOURCE}; Compute Capability 5.x: Global Memory)"
        )
    return None


def request_unit(arch: Arch, size: int) -> str:
    """What one request is on this CC for this word size (memory.md 1.7)."""
    return arch.global_family.request_unit(size)


def global_access_batch(
    cc: DeviceName,
    addresses: Any,
    size: int,
    active: Any = None,
    op: str = "load",
    cache: str | None = None,
    detail: bool = False,
) -> GlobalBatchCost:
    """Cost of one global instruction executed by W warps: addresses (W, 32) int64 byte
    addresses, active (W, 32) bool or None (all lanes active)."""
    arch = as_arch(cc)
    size, op = check_size(size), check_op(op)
    mode = resolve_cache(arch, cache, op)
    addr, mask = batch_arrays(addresses, active)
    check_addresses(addr, mask, size, "global")
    family = arch.global_family
    parts = [
        _price(
            family,
            addr[i : i + CHUNK_WARPS],
            None if mask is None else mask[i : i + CHUNK_WARPS],
            size,
            mode,
            records=False,
        )
        for i in range(0, addr.shape[0], CHUNK_WARPS)
    ]
    if parts:
        requests, transactions, moved = (
            np.concatenate([getattr(p, f) for p in parts]) for f in ("requests", "transactions", "bytes_moved")
        )
        priced = rules.Priced(requests, transactions, moved, None)
    else:
        empty = np.zeros(0, dtype=np.int64)
        priced = rules.Priced(empty, empty, empty, None)
    return _batch_result(arch, addr, mask, size, op, mode, priced, detail)


def _price(
    family: GlobalFamily, addr: np.ndarray, mask: np.ndarray | None, size: int, mode: str | None, records: bool
) -> rules.Priced:
    """Apply the family's rule (specs/families.py) to a chunk of warps."""
    if family.rule == "strict":
        return rules.cc10(addr, mask, size, records)
    if family.rule == "segments":
        return rules.cc12(addr, mask, size, records)
    if family.rule == "lines":
        return rules.cached(addr, mask, size, mode == "l1", records)
    return rules.sectors(addr, mask, size, family.lanes_per_group(size), records)


def _batch_result(
    arch: Arch,
    addr: np.ndarray,
    mask: np.ndarray | None,
    size: int,
    op: str,
    mode: str | None,
    priced: rules.Priced,
    detail: bool,
) -> GlobalBatchCost:
    warps = addr.shape[0]
    active_lanes = np.full(warps, 32, dtype=np.int64) if mask is None else row_counts(mask)
    requested = active_lanes * size
    extra: dict[str, np.ndarray] = {}
    family = arch.global_family
    if detail:
        extra["bytes_used"] = distinct(addr, mask) * size
        if family.sectored:
            lines, rank = line_ranks(addr, mask)
            extra["lines"] = lines
            if family.l1_wavefronts:
                extra["tag_wavefronts"] = -(-lines // 4)
                data, conflicts = data_wavefronts(addr, mask, size, rank)
                extra["data_wavefronts"] = data
                extra["data_bank_conflicts"] = conflicts
    return GlobalBatchCost(
        cc=arch.cc,
        family=family.name,
        size=size,
        op=op,
        cache=mode,
        requests=priced.requests,
        transactions=priced.transactions,
        bytes_moved=priced.bytes_moved,
        bytes_requested=requested,
        total_requests=int(priced.requests.sum()),
        total_transactions=int(priced.transactions.sum()),
        total_bytes_moved=int(priced.bytes_moved.sum()),
        total_bytes_requested=int(requested.sum()),
        **extra,
    )


def global_access(
    cc: DeviceName, addresses: Any, size: int, active: Any = None, op: str = "load", cache: str | None = None
) -> GlobalAccessCost:
    """Cost of one warp-level global load or store: up to 32 lane byte addresses, the access
    size (1, 2, 4, 8 or 16 bytes), an optional active-lane mask and the cache mode on 2.x/3.x."""
    arch = as_arch(cc)
    size, op = check_size(size), check_op(op)
    mode = resolve_cache(arch, cache, op)
    addr, mask = warp_arrays(addresses, active)
    check_addresses(addr, mask, size, "global")
    priced = _price(arch.global_family, addr, mask, size, mode, records=True)
    batch = _batch_result(arch, addr, mask, size, op, mode, priced, detail=True)
    rec = priced.records
    assert rec is not None  # detail=True keeps the records
    order = np.lexsort((rec.lane, rec.request))  # issue order: request, then lowest lane first
    tx = tuple((int(rec.address[i]), int(rec.size[i])) for i in order)
    moved = int(batch.bytes_moved[0])
    assert batch.bytes_used is not None  # detail=True counts the bytes used
    used = int(batch.bytes_used[0])

    def one(values: np.ndarray | None) -> int | None:
        return None if values is None else int(values[0])

    return GlobalAccessCost(
        cc=arch.cc,
        family=arch.global_memory_family,
        size=size,
        op=op,
        cache=mode,
        request_unit=request_unit(arch, size),
        active_lanes=int(mask.sum()),
        requests=int(batch.requests[0]),
        transactions=tx,
        transaction_requests=tuple(int(rec.request[i]) for i in order),
        transaction_count=int(batch.transactions[0]),
        bytes_moved=moved,
        bytes_requested=int(batch.bytes_requested[0]),
        bytes_used=used,
        efficiency=used / moved if moved else None,
        lines=one(batch.lines),
        tag_wavefronts=one(batch.tag_wavefronts),
        data_wavefronts=one(batch.data_wavefronts),
        data_bank_conflicts=one(batch.data_bank_conflicts),
    )
