"""ptxas's sinking of a value read only past an early exit (sim/ptx/exit_sinking.py): which values
move, on hand-written PTX whose shape is fixed; and the counts that follow.

The shape comes from the SASS of our gemv_warp and HeCBench's logprob for sm_90
(benchmarks/hw/ifconvert_h100/): a warp reduction's last `add.f32` before `@%p bra` to `ret` and a
lane-0 store is `SHFL.DOWN; @P0 EXIT; FADD; STG` there. gemv_warp's H100 count (33,856 flops, not
the PTX order's 35,840) is checked in test_ptx_corpus.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from ptx_entry import ptx_entry

from perfcalc.sim.ptx.exit_sinking import sunk_past_exits

# the kernels the GPU ran for these counts (benchmarks/hw/flops_rules_on_gpu.sh), with their main()
PROBE = Path(__file__).resolve().parents[1] / "benchmarks" / "hw" / "flops_rules_probe.cu"

_LAST_STEP = """
    add.f32 %f3, %f1, %f2;
    setp.ne.s32 %p1, %r1, 0;
    @%p1 bra $L_end;
    st.global.f32 [%rd1], %f3;
$L_end:
    ret;
"""


def _found(body: str) -> dict[int, int]:
    fn = ptx_entry(body)
    return sunk_past_exits(fn, list(fn.body))


def test_the_last_add_of_a_reduction_moves_past_the_early_exit():
    assert _found(_LAST_STEP) == {0: 3}


def test_a_branch_to_other_code_than_the_return_keeps_the_value_in_place():
    """logprob's `if (lane == 0) s[w] = v; __syncthreads();` is `FADD` then `@!P0 STS`: no sinking."""
    assert _found(_LAST_STEP.replace("$L_end:\n    ret;", "$L_end:\n    bar.sync 0;\n    ret;")) == {}


def test_a_value_read_twice_or_an_unguarded_branch_keeps_it():
    assert _found(_LAST_STEP.replace("    @%p1", "    st.global.f32 [%rd2], %f3;\n    @%p1")) == {}
    assert _found(_LAST_STEP.replace("@%p1 bra", "bra")) == {}


def test_a_warp_reduction_counts_its_last_add_in_lane_zero_only():
    """8 warps: four shuffle steps add in all 32 lanes, the last only in lane 0 (past the exit):
    8 x (4 x 32 + 1) = 1,032 flops, where the PTX's order gives 8 x 5 x 32 = 1,280. The H100
    counts 1,032 (benchmarks/hw/flops_rules_h100/probe_ncu.csv, the same kernel and data)."""
    from perfcalc.sim import run_kernel
    from perfcalc.sim.ptx import nvrtc

    if not nvrtc.available():
        pytest.skip("NVRTC (pip install nvidia-cuda-nvrtc) is not installed")
    x = np.arange(256, dtype=np.float32)
    out = np.zeros(8, dtype=np.float32)
    r = run_kernel(PROBE.read_text(), "rowSum", 8, 32, {"x": x, "out": out}, "9.0", engine="ptx")
    assert r.counters.flops == 8 * (4 * 32 + 1)
    assert np.array_equal(out, x.reshape(8, 32).sum(axis=1))
