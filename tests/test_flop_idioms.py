"""Flops the SASS counts differently from the PTX read one instruction at a time
(sim/ptx/flop_idioms.py), on hand-written PTX whose shape is fixed.

From the SASS for sm_90 of our fast_intrinsics (benchmarks/hw/ifconvert_h100/): `__sinf(v)` and
`__cosf(v)` read one `FMUL.RZ` range reduction, and `__saturatef(v)` of a loaded v is `FADD.SAT
R, RZ, R0`; of HeCBench's expdist (benchmarks/hw/flops_sass/): expf's `fma` then `cvt.sat` is one
`FFMA.SAT`. HeCBench's fhd (`__cosf(e)`, `__sinf(e)` in a loop) counts 15 flops an iteration on
the H100, 16 with a reduction each.
"""

from __future__ import annotations

from ptx_entry import ptx_entry

from perfcalc.sim.ptx.flop_idioms import flop_overrides


def _found(body: str) -> dict[int, int]:
    fn = ptx_entry(body)
    return flop_overrides(fn, list(fn.body))


_SINCOS = """
    ld.global.f32 %f1, [%rd1];
    sin.approx.f32 %f2, %f1;
    cos.approx.f32 %f3, %f1;
    add.f32 %f4, %f2, %f3;
    st.global.f32 [%rd1], %f4;
    ret;
"""


def test_sine_and_cosine_of_one_value_share_one_range_reduction():
    assert _found(_SINCOS) == {2: 0}


def test_a_rewritten_value_or_a_label_between_gets_its_own_reduction():
    assert _found(_SINCOS.replace("    cos.approx", "    add.f32 %f1, %f1, %f1;\n    cos.approx")) == {}
    assert _found(_SINCOS.replace("    cos.approx", "$L_in:\n    cos.approx")) == {}
    assert _found(_SINCOS.replace("cos.approx.f32 %f3, %f1", "cos.approx.f32 %f3, %f4")) == {}


def test_a_saturated_load_is_one_fadd_and_a_saturated_fma_saturates_itself():
    load = """
    ld.global.f32 %f1, [%rd1];
    cvt.sat.f32.f32 %f2, %f1;
    st.global.f32 [%rd1], %f2;
    ret;
"""
    assert _found(load) == {1: 1}
    fma = load.replace("    cvt.sat", "    fma.rn.f32 %f3, %f1, %f1, 0f3F000000;\n    cvt.sat").replace(
        "cvt.sat.f32.f32 %f2, %f1", "cvt.sat.f32.f32 %f2, %f3"
    )
    assert _found(fma) == {2: 0}
    read_twice = fma.replace("    ret;", "    st.global.f32 [%rd2], %f3;\n    ret;")
    assert _found(read_twice) == {2: 1}
