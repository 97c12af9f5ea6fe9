"""Rows for `perfcalc devices`: the key limits of every CC, or every limit of one."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields

from perfcalc.report.table import Table
from perfcalc.specs.arch import Arch
from perfcalc.specs.gpu import Gpu

_KEY_COLUMNS = {
    "cc": "CC",
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


_PRODUCT_COLUMNS = {
    "key": "GPU",
    "name": "name",
    "cc": "CC",
    "sm_count": "SMs",
    "fp32_cores_per_sm": "FP32 cores/SM",
    "peak_clock_mhz": "peak clock (MHz)",
    "peak_clock_basis": "clock basis",
    "peak_fp32_gflops": "FP32 GFLOPS",
    "peak_fp64_gflops": "FP64 GFLOPS",
    "memory_bandwidth_gbs": "DRAM GB/s",
    "l2_cache_kb": "L2 (KB)",
    "ridge_flop_per_byte": "ridge (flop/B)",
}


def devices_table(archs: Sequence[Arch], gpus: Sequence[Gpu] = ()) -> Table:
    """Key limits per CC; with `gpus`, a last column names the products of each CC."""
    columns = dict(_KEY_COLUMNS)
    rows = [{k: getattr(a, k) for k in _KEY_COLUMNS} for a in archs]
    if gpus:
        columns["gpus"] = "GPU products"
        for row in rows:
            row["gpus"] = [g.key for g in gpus if g.cc == row["cc"]]
    return Table(
        columns=list(columns),
        rows=rows,
        title="Compute capabilities",
        headers=columns,
        name="compute_capabilities",
        narrow=(
            "cc",
            "architecture",
            "max_warps_per_sm",
            "max_blocks_per_sm",
            "registers_per_sm",
            "shared_memory_per_sm_bytes",
            "gpus",
        ),
    )


def products_table(gpus: Sequence[Gpu]) -> Table:
    """Key figures of every GPU product (a product name works wherever a CC does)."""
    rows = [{k: getattr(g, k) for k in _PRODUCT_COLUMNS} for g in gpus]
    return Table(
        columns=list(_PRODUCT_COLUMNS),
        rows=rows,
        title="GPU products",
        name="products",
        headers=dict(_PRODUCT_COLUMNS),
        narrow=("key", "cc", "sm_count", "peak_fp32_gflops", "memory_bandwidth_gbs", "ridge_flop_per_byte"),
        notes=[
            "Peaks count an FMA as 2 flops at the clock named in 'clock basis'; "
            "sources and disagreements: perfcalc devices show NAME."
        ],
    )


def product_detail_table(gpu: Gpu) -> Table:
    rows = [{"figure": f.name, "value": getattr(gpu, f.name)} for f in fields(gpu)]
    rows.append({"figure": "ridge_flop_per_byte", "value": gpu.ridge_flop_per_byte})
    return Table(
        columns=["figure", "value"],
        rows=rows,
        title=f"{gpu.name} ({gpu.chip}, CC {gpu.cc})",
        name="product",
    )


def device_detail_table(arch: Arch) -> Table:
    rows = [{"limit": f.name, "value": getattr(arch, f.name)} for f in fields(arch)]
    return Table(
        columns=["limit", "value"],
        rows=rows,
        title=f"Compute capability {arch.cc} ({arch.architecture})",
        name="compute_capability",
    )
