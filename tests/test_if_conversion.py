"""ptxas's if-conversion (sim/ptx/if_conversion.py): which guarded regions become predicated
instructions, on hand-written PTX whose shape is fixed; and the H100's counts that follow.

The shapes and the size limit come from the SASS of our corpus and of HeCBench's calibration half
(benchmarks/hw/ifconvert_h100/): a tree reduction's `if (t < s) s[t] += s[t + s];` is `@!P LDS,
@!P LDS, @!P FADD, @!P STS` there, the H100 counting the predicated LDS/STS of every warp.
"""

from __future__ import annotations

import numpy as np
import pytest
from ptx_entry import ptx_entry

from perfcalc.sim.ptx.contract import NOP
from perfcalc.sim.ptx.if_conversion import MAX_INSTRUCTIONS, if_convert


def _converted(body: str) -> list[str]:
    """Each instruction after if-conversion, as `@!%p1 opcode` / `opcode` / `nop`."""
    fn = ptx_entry(body)
    out = []
    for instr in if_convert(fn, list(fn.body)):
        if instr.opcode == NOP:
            out.append("nop")
        elif instr.pred is not None:
            out.append(f"@{'!' if instr.pred_negated else ''}{instr.pred} {instr.opcode}")
        else:
            out.append(instr.opcode)
    return out


_TREE_STEP = """
    setp.ge.u32 %p2, %r3, %r16;
    @%p2 bra $L_skip;
    shl.b32 %r14, %r16, 2;
    add.s32 %r15, %r4, %r14;
    ld.shared.f32 %f3, [%r4];
    ld.shared.f32 %f4, [%r15];
    add.f32 %f5, %f4, %f3;
    st.shared.f32 [%r4], %f5;
$L_skip:
    bar.sync 0;
    ret;
"""


def test_a_tree_reduction_step_is_predicated_on_the_negated_guard():
    assert _converted(_TREE_STEP) == [
        "setp.ge.u32",
        "nop",
        "@!%p2 shl.b32",
        "@!%p2 add.s32",
        "@!%p2 ld.shared.f32",
        "@!%p2 ld.shared.f32",
        "@!%p2 add.f32",
        "@!%p2 st.shared.f32",
        "bar.sync",
        "ret",
    ]


def test_a_negated_branch_guards_the_region_with_the_predicate_itself():
    got = _converted(_TREE_STEP.replace("@%p2 bra", "@!%p2 bra"))
    assert got[4] == "@%p2 ld.shared.f32"


def test_both_diamond_layouts_guard_each_arm_by_its_side():
    # if (c) s[t] = x; else s[t] = 0;  as NVVM lays it out for damage-like code
    got = _converted("""
    @%p1 bra $L_then;
    bra.uni $L_else;
$L_then:
    ld.global.u32 %r12, [%rd7];
    st.shared.u32 [%r5], %r12;
    bra.uni $L_join;
$L_else:
    mov.u32 %r11, 0;
    st.shared.u32 [%r5], %r11;
$L_join:
    bar.sync 0;
    ret;
""")
    assert got == [
        "nop",
        "nop",
        "@%p1 ld.global.u32",
        "@%p1 st.shared.u32",
        "nop",
        "@!%p1 mov.u32",
        "@!%p1 st.shared.u32",
        "bar.sync",
        "ret",
    ]
    got = _converted("""
    @%p1 bra $L_else;
    st.shared.u32 [%r5], %r12;
    bra.uni $L_join;
$L_else:
    st.shared.u32 [%r5], %r11;
$L_join:
    bar.sync 0;
    ret;
""")
    assert got == ["nop", "@!%p1 st.shared.u32", "nop", "@%p1 st.shared.u32", "bar.sync", "ret"]


def test_an_arm_that_ends_jumping_to_the_branchs_own_target_is_predicated():
    """`J: ... @p bra J; A; bra J`: the last `if` of an unrolled loop body whose join is the loop's head
    (HeCBench entropy's 5 x 5 window, calibration half): its sm_90 SASS predicates the arm
    (`@!P3 LDG ... @!P3 LDS ... @!P3 STS`) and jumps back, where a branch to the head would split
    the warp for the next iteration. Over the 137 PTX/SASS listings at hand, predicated shared
    accesses moved toward the SASS in one file (entropy 18 -> 20 of 20), away in none."""
    loop = """
$L_head:
    add.s32 %r2, %r2, 1;
    setp.eq.s32 %p5, %r2, 4;
    @%p5 bra $L_out;
    setp.lt.s32 %p2, %r7, 0;
    @%p2 bra $L_head;
    ld.global.nc.u8 %rs1, [%rd5];
    cvt.s16.s8 %rs2, %rs1;
    ld.shared.u32 %r8, [%r6];
    add.s32 %r9, %r8, 1;
    st.shared.u32 [%r6], %r9;
    bra.uni $L_head;
$L_out:
    ret;
"""
    got = _converted(loop)
    assert got[4:11] == [
        "nop",
        "@!%p2 ld.global.nc.u8",
        "@!%p2 cvt.s16.s8",
        "@!%p2 ld.shared.u32",
        "@!%p2 add.s32",
        "@!%p2 st.shared.u32",
        "bra.uni",
    ]
    assert got[2] == "@%p5 bra"  # the loop's exit: its target is not where the arm ends
    # the arm ends jumping elsewhere or holds a barrier; the head is a barrier (HeCBench merge's
    # `if (t == 127)` update before its loop's `bar.sync`, a branch in its SASS); the target is
    # ahead (merge's `switch` case jumping to the switch's end): a branch as before
    assert _converted(loop.replace("bra.uni $L_head", "bra.uni $L_out"))[4] == "@%p2 bra"
    assert _converted(loop.replace("    add.s32 %r9", "    bar.sync 0;\n    add.s32 %r9"))[4] == "@%p2 bra"
    assert _converted(loop.replace("$L_head:\n", "$L_head:\n    bar.sync 0;\n"))[5] == "@%p2 bra"
    ahead = "\n".join(
        [
            "    @%p2 bra $L_end;",
            "    st.shared.u32 [%r6], %r9;",
            "    bra.uni $L_end;",
            "$L_other:",
            "    st.shared.u32 [%r6], %r8;",
            "$L_end:",
            "    bar.sync 0;",
            "    ret;",
        ]
    )
    assert _converted(ahead)[0] == "@%p2 bra"


def test_regions_ptxas_keeps_as_branches_stay_branches():
    plain = [i.opcode for i in ptx_entry(_TREE_STEP).body]
    # longer than the limit
    long_arm = "\n".join(f"    add.s32 %r{20 + k}, %r{20 + k}, 1;" for k in range(MAX_INSTRUCTIONS))
    assert _converted(_TREE_STEP.replace("    st.shared.f32", long_arm + "\n    st.shared.f32"))[1] == "@%p2 bra"
    # a barrier, a guarded instruction, a write of the guard, a correctly rounded division
    for inside in ("bar.sync 0;", "@%p3 add.s32 %r9, %r9, 1;", "setp.eq.s32 %p2, %r9, 0;", "div.rn.f32 %f6, %f5, %f4;"):
        assert _converted(_TREE_STEP.replace("    st.shared.f32", f"    {inside}\n    st.shared.f32"))[1] == "@%p2 bra"
    # another branch may enter the region: a label inside it
    entered = _TREE_STEP.replace("    ld.shared.f32 %f3", "$L_in:\n    ld.shared.f32 %f3")
    assert _converted(entered)[1] == "@%p2 bra"
    # the region skips to the function's return: ptxas guards it with an early EXIT instead
    assert _converted(_TREE_STEP.replace("    bar.sync 0;\n", ""))[1] == "@%p2 bra"
    assert plain[1] == "bra"


def test_a_second_region_under_the_same_guard_counts_toward_the_limit():
    """`if (t == 0) {...}` twice with nothing between: ptxas guards them as one region, which
    the HeCBench calibration half's block reductions keep as a branch when it is long."""
    half = "\n".join(f"    ld.shared.f32 %f{1 + k % 8}, [%r{30 + k}];" for k in range(MAX_INSTRUCTIONS // 2 + 1))
    body = f"""
    @%p1 bra $L_a;
{half}
$L_a:
    @%p1 bra $L_b;
{half}
$L_b:
    bar.sync 0;
    ret;
"""
    assert _converted(body)[0] == "@%p1 bra"
    assert _converted(body.replace("    @%p1 bra $L_b;", "    @%p3 bra $L_b;"))[0] == "nop"


_BLOCK_GUARD = """
__global__ void mark(int* out) {
    __shared__ int s[64];
    unsigned t = threadIdx.x;
    s[t] = 0;
    __syncthreads();
    if (blockIdx.x == 1) s[t] = 1;  // short: ptxas predicates the STS
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s[t];
}
"""


def test_a_predicated_access_is_counted_in_chunks_where_no_lane_is_on():
    """Every warp of the grid issues the guarded STS, also where a whole chunk of blocks (those
    other than block 1) has no lane on: 2 warps x 4,096 blocks for each of its 2 stores."""
    from perfcalc.sim import run_kernel
    from perfcalc.sim.ptx import nvrtc

    if not nvrtc.available():
        pytest.skip("NVRTC (pip install nvidia-cuda-nvrtc) is not installed")
    blocks = 4096  # two chunks of 2,048 blocks (CHUNK_LANES): the second has no lane on
    out = np.zeros(blocks * 64, dtype=np.int32)
    r = run_kernel(_BLOCK_GUARD, "mark", blocks, 64, {"out": out}, "9.0", engine="ptx")
    assert r.counters.shared_store_requests == 2 * 2 * blocks
    assert r.counters.shared_store_wavefronts == 2 * blocks + 2  # block 1's second store moves data
    assert (out.reshape(blocks, 64)[1] == 1).all() and out.reshape(blocks, 64)[[0, 2]].sum() == 0


def test_an_arm_jumping_back_to_its_loop_head_counts_as_the_gpu_counts_it():
    """loop_tail_probe.cu's three kernels, run on an H200 (sm_90, the H100's SASS and counters)
    under Nsight Compute (benchmarks/hw/loop_tail_h200/): a loop unrolled by 2 over 5 rows whose
    second copy's `if` jumps back to the loop's head; its SASS predicates both copies' arms
    (`@!P1 LDS`, `@!P1 STS`), volatile histogram or not, barrier at the loop's top or not, so
    every warp issues them: 52 shared loads and 52 stores (38 wavefronts each), 6 global-load
    requests, in each. With the arm left a branch the engine counted 50 (the warp split at the
    back edge in the volatile kernel, before the rule covered it)."""
    import csv
    from pathlib import Path

    from perfcalc.sim import run_kernel
    from perfcalc.sim.ptx import nvrtc

    if not nvrtc.available():
        pytest.skip("NVRTC (pip install nvidia-cuda-nvrtc) is not installed")
    hw = Path(__file__).resolve().parents[1] / "benchmarks" / "hw"
    source = (hw / "loop_tail_probe.cu").read_text()  # the kernels the GPU ran
    printed = (hw / "loop_tail_h200" / "probe_output.txt").read_text().splitlines()
    text = (hw / "loop_tail_h200" / "probe_ncu.csv").read_text()
    gpu: dict[int, dict[str, int]] = {}
    for row in csv.DictReader(text[text.index('"ID"') :].splitlines()):
        gpu.setdefault(int(row["ID"]), {})[row["Metric Name"]] = int(row["Metric Value"].replace(",", ""))
    values = np.array([((i * 7 + 3) % 11) for i in range(256)], dtype=np.int8)
    for n, kernel in enumerate(("tailIf", "tailIfVolatile", "tailIfBarrier")):
        out = np.zeros(128, dtype=np.int32)
        args = {"in": values, "out": out, "width": np.int32(16), "steps": np.int32(12)}
        c = run_kernel(source, kernel, 1, 128, args, "9.0", engine="ptx").counters
        g = gpu[n]
        assert c.shared_load_requests == g["smsp__inst_executed_op_shared_ld.sum"] == 52
        assert c.shared_store_requests == g["smsp__inst_executed_op_shared_st.sum"] == 52
        assert c.shared_load_wavefronts == g["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
        assert c.shared_store_wavefronts == g["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]
        assert c.global_load_requests == g["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
        assert np.array_equal(out, np.array(printed[n].split(), dtype=np.int32))
