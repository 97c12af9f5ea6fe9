"""Rows for `perfcalc devices`: the key limits of every CC, or every limit of one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields

from perfcalc.report.table import Table
from perfcalc.specs.arch import Arch

_KEY_COLUMNS = {
    "compute_capability": "CC",
    "architecture": "architecture",
    "max_warps_per_sm": "warps/SM",
    "max_threads_per_sm": "threads/SM",
    "max_blocks_per_sm": "blocks/SM",
    "registers_per_sm": "regs/SM",
    "max_registers_per_thread": "regs/thread",
    "shared_memory_per_sm_bytes": "smem/SM (B)",
    "max_shared_memory_per_block_launchable_bytes": "smem/block max (B)",
    "shared_memory_banks": "banks",
}


def devices_table(archs: Sequence[Arch]) -> Table:
    rows = [{k: getattr(a, k) for k in _KEY_COLUMNS} for a in archs]
    return Table(columns=list(_KEY_COLUMNS), rows=rows, title="Compute capabilities",
                 headers=dict(_KEY_COLUMNS))


def device_detail_table(arch: Arch) -> Table:
    rows = [{"limit": f.name, "value": getattr(arch, f.name)} for f in fields(arch)]
    return Table(columns=["limit", "value"], rows=rows,
                 title=f"Compute capability {arch.compute_capability} ({arch.architecture})")
