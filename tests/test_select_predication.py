"""ptxas's predication of a selected float value (sim/ptx/select_predication.py): which selects
move their value's flops to the lanes that keep it, on hand-written PTX whose shape is fixed; and
the counts that follow.

The shape comes from the SASS of HeCBench's complex, inversek2j and lif and our warp_scan for
sm_90 (benchmarks/hw/flops_sass/, benchmarks/hw/ifconvert_h100/): `add.f32 %f1 ...; selp.f32 %f2,
%f1, %f0, %p;` is `@P0 FADD` into the register of %f0, counted by Nsight Compute's `_pred_on` flop
counters only where P0 is on. warp_scan's H100 count (4,128 flops, not the PTX's 5,120) is checked
in test_ptx_corpus.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ptx_entry import ptx_entry

from perfcalc.sim.ptx.select_predication import select_predications

# the kernels the GPU ran for these counts (benchmarks/hw/flops_rules_on_gpu.sh), with their main()
PROBE = Path(__file__).resolve().parents[1] / "benchmarks" / "hw" / "flops_rules_probe.cu"

# complex's Cabsf: t = v * sqrt(...); if (edge) t = v + w;
_CABS = """
    mul.f32 %f3, %f1, %f2;
    setp.gt.f32 %p1, %f1, 0f7F7FFFFF;
    add.f32 %f4, %f1, %f2;
    selp.f32 %f5, %f4, %f3, %p1;
    st.global.f32 [%rd1], %f5;
    ret;
"""


def _found(body: str) -> dict[int, tuple[int, bool]]:
    fn = ptx_entry(body)
    return select_predications(fn, list(fn.body))


def test_the_later_of_two_single_use_values_is_predicated():
    """Both the mul and the add are read only by the select: ptxas predicates the add (defined
    later) and keeps the FMUL unpredicated, as complex_float's SASS does (`FMUL R21`, then
    `@P0 FADD R21`)."""
    assert _found(_CABS) == {3: (2, True)}


def test_the_false_value_is_predicated_on_the_negated_predicate():
    body = _CABS.replace("selp.f32 %f5, %f4, %f3, %p1;", "selp.f32 %f5, %f3, %f4, %p1;")
    assert _found(body) == {3: (2, False)}


def test_a_value_read_elsewhere_is_not_predicated_and_a_kept_value_read_later_keeps_the_select():
    """The predicated value is written over the kept one, which must not be read after the select
    (s3d's rdsmh_kernel reads its logf argument later: FMUL and FSEL in the SASS, the H100's flops
    counting the FMUL in every lane)."""
    read_before = _CABS.replace("    selp.f32", "    st.global.f32 [%rd2], %f4;\n    selp.f32")
    assert _found(read_before) == {4: (0, False)}  # the add is read twice: the mul is predicated, off %p1
    read_after = _CABS.replace("    ret;", "    st.global.f32 [%rd2], %f3;\n    ret;")
    assert _found(read_after) == {}  # the mul (kept) is read after the select


def test_a_kept_value_read_again_round_a_loop_keeps_the_select():
    body = """
    mul.f32 %f3, %f1, %f2;
$L_top:
    add.f32 %f6, %f3, %f1;
    setp.gt.f32 %p1, %f1, 0f7F7FFFFF;
    add.f32 %f4, %f1, %f2;
    selp.f32 %f5, %f4, %f3, %p1;
    st.global.f32 [%rd1], %f5;
    @%p2 bra $L_top;
    ret;
"""
    assert _found(body) == {}
    assert _found(body.replace("$L_top:\n", "").replace("    mul.f32", "$L_top:\n    mul.f32")) == {4: (3, True)}


def test_a_select_with_an_immediate_stays_a_select():
    """`selp.f32 %f30, 0f00000000, %f29, %p4` is an FSEL in inversek2j's SASS, its FFMA unpredicated."""
    body = _CABS.replace("selp.f32 %f5, %f4, %f3, %p1;", "selp.f32 %f5, 0f00000000, %f4, %p1;")
    assert _found(body) == {}


def test_double_selects_are_not_moved():
    """complex_double's SASS keeps the DADD and selects with two FSELs."""
    body = """
    .reg .f64 %fd<8>;
    mul.f64 %fd3, %fd1, %fd2;
    setp.gt.f64 %p1, %fd1, 0d7FEFFFFFFFFFFFFF;
    add.f64 %fd4, %fd1, %fd2;
    selp.f64 %fd5, %fd4, %fd3, %p1;
    st.global.f64 [%rd1], %fd5;
    ret;
"""
    assert _found(body) == {}


def test_a_label_between_value_and_select_ends_the_stretch():
    body = _CABS.replace("    add.f32 %f4, %f1, %f2;\n", "    add.f32 %f4, %f1, %f2;\n$L_in:\n")
    assert _found(body) == {}


def test_the_predicated_add_counts_only_the_lanes_that_keep_it():
    """64 lanes multiply (1 flop each); the add counts in the 23 lanes with a[i] > 40 (41..63),
    not in all 64: 87 flops, where counting the PTX's add in every lane gave 128. The H100 counts
    64 FMUL and 23 FADD lanes (benchmarks/hw/flops_rules_h100/probe_ncu.csv, the same kernel)."""
    from perfcalc.sim import run_kernel
    from perfcalc.sim.ptx import nvrtc

    if not nvrtc.available():
        pytest.skip("NVRTC (pip install nvidia-cuda-nvrtc) is not installed")
    a = np.arange(64, dtype=np.float32)
    out = np.zeros(64, dtype=np.float32)
    arrays = {"a": a, "b": np.ones(64, np.float32), "out": out}
    r = run_kernel(PROBE.read_text(), "pick", 1, 64, arrays, "9.0", engine="ptx")
    assert r.counters.flops == 64 + 23
    assert np.array_equal(out, np.where(a > 40, a + 1, a))


def test_an_abs_value_is_an_operand_modifier_so_the_select_stays():
    """logf's scaling `|x| < FLT_MIN ? |x| * 2^23 : |x|` is `FMUL R6, |R5|, 8388608` and an FSEL in
    particlefilter's SASS: no register holds |x| to predicate the FMUL into."""
    body = """
    abs.f32 %f2, %f1;
    setp.lt.f32 %p1, %f2, 0f00800000;
    mul.f32 %f3, %f2, 0f4B000000;
    selp.f32 %f4, %f3, %f2, %p1;
    st.global.f32 [%rd1], %f4;
    ret;
"""
    assert _found(body) == {}
    assert _found(body.replace("abs.f32 %f2, %f1;", "add.f32 %f2, %f1, 0f3089705F;")) == {3: (2, True)}


def test_a_moved_immediate_is_an_immediate_but_an_inline_asm_register_is_not():
    body = _CABS.replace("mul.f32 %f3, %f1, %f2;", "mov.f32 %f3, 0f3F800000;")
    assert _found(body) == {}  # `selp %f5, %f4, 1.0`: an FSEL
    # CUB's warp reduction ends `mov.f32 %f41, r0;` from its inline asm's own register
    body = _CABS.replace("mul.f32 %f3, %f1, %f2;", "{ .reg .f32 r0; add.f32 r0, %f1, %f2; mov.f32 %f3, r0; }")
    assert _found(body) == {4: (3, True)}


def test_an_accumulator_selected_into_itself_is_predicated_in_place():
    """jaccard's row sum, `s = skip ? s : s + x` round a loop: `@!P FADD R, R, Rx` in place."""
    body = """
$L_top:
    ld.global.f32 %f2, [%rd1];
    add.f32 %f3, %f1, %f2;
    selp.f32 %f1, %f1, %f3, %p1;
    @%p2 bra $L_top;
    st.global.f32 [%rd1], %f1;
    ret;
"""
    assert _found(body) == {2: (1, False)}
