"""Hand-written PTX for the tests of the engine's analyses: one entry function around a body."""

from __future__ import annotations

from perfcalc.sim.ptx.parse import Function, parse_module


def ptx_entry(body: str) -> Function:
    """The parsed entry `k` whose body is `body` (registers %p, %r, %f, %rd declared)."""
    ptx = f"""
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_p)
{{
    .reg .pred %p<8>;
    .reg .b32 %r<64>;
    .reg .f32 %f<16>;
    .reg .b64 %rd<16>;
{body}
}}
"""
    return next(iter(parse_module(ptx).functions.values()))
