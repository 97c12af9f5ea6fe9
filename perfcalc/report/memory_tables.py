"""Rows for `perfcalc coalesce` and `perfcalc banks`: one row per CC (family), and on request
the transactions of each request or the bank of each lane."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import groupby
from typing import Any

from perfcalc.report.table import Table
from perfcalc.specs.families import GLOBAL_FAMILIES, SHARED_FAMILIES

_COALESCE = {
    "ccs": "CC",
    "cache": "cache",
    "request_unit": "request",
    "requests": "requests",
    "transaction_count": "transactions",
    "sizes": "sizes",
    "bytes_moved": "bytes moved",
    "bytes_used": "bytes used",
    "efficiency": "efficiency",
}
_UNIT_LANES = {"warp": 32, "half-warp": 16, "quarter-warp": 8}


def summarize(transactions: Sequence[tuple[int, int]]) -> str:
    """Seed 002's notation: consecutive equal transactions as 'N x SB @ A'."""
    parts = []
    for (addr, size), run in groupby(transactions):
        parts.append(f"{len(list(run))}x{size}B@{addr}")
    return ", ".join(parts)


def size_mix(transactions: Sequence[tuple[int, int]]) -> str:
    """'2x64B' or '1x128B + 1x64B + 1x32B': how many transactions of each size."""
    counts: dict[int, int] = {}
    for _, size in transactions:
        counts[size] = counts.get(size, 0) + 1
    return " + ".join(f"{n}x{size}B" for size, n in sorted(counts.items(), reverse=True)) or "-"


def coalesce_table(results: Sequence[tuple[str, Any]], title: str) -> Table:
    """One row per (label, GlobalAccessCost)."""
    rows = []
    for label, r in results:
        rows.append(
            {
                "ccs": label,
                "cache": r.cache,
                "request_unit": r.request_unit,
                "requests": r.requests,
                "transaction_count": r.transaction_count,
                "sizes": size_mix(r.transactions),
                "bytes_moved": r.bytes_moved,
                "bytes_used": r.bytes_used,
                "efficiency": r.efficiency,
            }
        )
    notes = ["efficiency = distinct bytes the active lanes use / bytes moved."]
    if any(GLOBAL_FAMILIES[r.family].sectored for _, r in results):
        notes.insert(
            0,
            "CC >= 5.0: transactions are 32-byte sectors (CUDA C Programming Guide, "
            "Compute Capability 5.x: Global Memory; 6.x-9.0 the same).",
        )
    return Table(
        columns=list(_COALESCE),
        rows=rows,
        title=title,
        headers=dict(_COALESCE),
        notes=notes,
        name="access",
        percent=("efficiency",),
    )


def transactions_table(results: Sequence[tuple[str, Any]]) -> Table:
    """Per CC and request: the transactions in issue order, in seed 002's notation."""
    rows = []
    for label, r in results:
        lanes = _UNIT_LANES.get(r.request_unit) or int(r.request_unit.split("-")[0])
        pairs = list(zip(r.transaction_requests, r.transactions, strict=True))
        for request, items in groupby(pairs, key=lambda p: p[0]):
            txs = [t for _, t in items]
            first = request * lanes
            rows.append(
                {
                    "ccs": label,
                    "request": f"{r.request_unit} {request}",
                    "lanes": f"{first}-{first + lanes - 1}",
                    "count": len(txs),
                    "transactions": summarize(txs),
                }
            )
    return Table(
        columns=["ccs", "request", "lanes", "count", "transactions"],
        rows=rows,
        title="Transactions per request (issue order)",
        name="transactions",
        headers={"ccs": "CC", "count": "n"},
    )


_BANKS = {
    "ccs": "CC",
    "banks": "banks",
    "bank_mode": "bank bytes",
    "group_unit": "processed per",
    "active_lanes": "active lanes",
    "wavefronts": "passes",
    "ideal_wavefronts": "ideal",
    "conflict_degree": "k-way",
    "bank_conflicts": "conflicts",
}


def banks_table(results: Sequence[tuple[str, Any]], title: str) -> Table:
    """One row per (label, SharedAccessCost)."""
    rows = [{key: (label if key == "ccs" else getattr(r, key)) for key in _BANKS} for label, r in results]
    notes = [
        "passes = Nsight's shared wavefronts (1.x: both half-warps); conflicts = passes - "
        "ideal, ideal = max(1, ceil(active bytes / bytes per pass)) (CUDA C Programming Guide, "
        "each compute capability's Shared Memory section)."
    ]
    if any(SHARED_FAMILIES[r.family].rule == "half-warp" for _, r in results):
        notes.append(
            "1.x: the broadcast word of each step is the lowest pending lane's "
            "(CUDA C Programming Guide 4.2, F.3.3 leaves the choice open)."
        )
    return Table(columns=list(_BANKS), rows=rows, title=title, headers=dict(_BANKS), notes=notes, name="access")


def lane_banks_table(results: Sequence[tuple[str, Any]], addresses: Sequence[int]) -> Table:
    """Lane, byte address and the bank of the lane's first word on each CC shown."""
    columns = ["lane", "address"] + [label for label, _ in results]
    rows = []
    for lane, addr in enumerate(addresses):
        row: dict[str, Any] = {"lane": lane, "address": addr}
        for label, r in results:
            row[label] = r.lane_banks[lane]
        rows.append(row)
    return Table(
        columns=columns,
        rows=rows,
        title="Bank of each lane",
        name="lane_banks",
        headers={label: f"bank ({label})" for label, _ in results},
    )
