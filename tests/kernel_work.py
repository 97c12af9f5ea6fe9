"""A time-model input that does nothing but what a test names: the tests of model/time_model.py
build their KernelWork from it instead of each spelling out every field."""

from __future__ import annotations

from typing import Any

from perfcalc.model.time_model import KernelWork


def idle_work(blocks: int, warps_per_block: int = 8, active_blocks_per_sm: int = 8, **kw: Any) -> KernelWork:
    """`blocks` blocks of `warps_per_block` warps with no instructions, accesses or flops (hit
    rates unknown), except the fields given in `kw`."""
    fields: dict[str, Any] = dict(
        warp_instructions=0,
        int_divide_warp_instructions=0,
        fp32_warp_instructions=0,
        fp64_warp_instructions=0,
        global_load_requests=0,
        global_wavefronts=0,
        shared_wavefronts=0,
        shared_load_requests=0,
        l2_bytes=0,
        l2_read_bytes=0,
        dram_bytes_read=0,
        dram_bytes_written=0,
        l1_hit_rate=None,
        l2_hit_rate=None,
        flops=0,
    )
    fields.update(kw)
    return KernelWork(
        blocks=blocks, warps_per_block=warps_per_block, active_blocks_per_sm=active_blocks_per_sm, **fields
    )
