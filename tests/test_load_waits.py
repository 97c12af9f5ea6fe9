"""Where a warp waits for its global loads (issue #9, sim/ptx/load_waits.py): loads issued before
their first use wait once together, so the time model charges an unrolled loop's batch of loads
one latency, not one each (gemv_warp, 8 loads per warp before the first FMA).

Expected waits are derived by hand from the rule in the module docstring, on hand-written PTX
whose order is fixed, and on kernels whose source leaves the compiler one order.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from kernel_work import idle_work
from ptx_entry import ptx_entry

from perfcalc.model.time_model import KernelWork, predict_time
from perfcalc.sim import run_kernel
from perfcalc.sim.ptx import nvrtc
from perfcalc.sim.ptx.load_waits import is_global_load, reads_and_writes, wait_points
from perfcalc.specs import get_arch, get_gpu
from perfcalc.specs.timing import timing_rates

H100_ARCH = get_arch("9.0")
CORPUS = Path(__file__).resolve().parent / "data" / "cuda_corpus"
needs_nvrtc = pytest.mark.skipif(not nvrtc.available(), reason="NVRTC (pip install nvidia-cuda-nvrtc) is not installed")


def _waits(body: str) -> list[int]:
    fn = ptx_entry(body)
    return [i for i, w in enumerate(wait_points(fn.body, fn.labels, fn.branch_tables)) if w]


def test_reads_and_writes():
    fn = ptx_entry("""
    @%p1 ld.global.v2.f32 {%f1, %f2}, [%rd1+8];
    st.global.f32 [%rd2], %f3;
    setp.lt.s32 %p2|%p3, %r1, %r2;
    ret;
""")
    ld, st, setp, _ = fn.body
    assert reads_and_writes(ld) == ({"%rd1", "%p1"}, {"%f1", "%f2"})
    assert reads_and_writes(st) == ({"%rd2", "%f3"}, set())
    assert reads_and_writes(setp) == ({"%r1", "%r2"}, {"%p2", "%p3"})
    assert [is_global_load(i) for i in fn.body] == [True, False, False, False]


def test_loads_issued_together_wait_once():
    """Four loads then their sum: one wait (the first add); a shared load is not a global one."""
    assert _waits("""
    ld.global.f32 %f1, [%rd1];
    ld.global.f32 %f2, [%rd1+4];
    ld.global.nc.f32 %f3, [%rd1+8];
    ld.f32 %f4, [%rd1+12];
    ld.shared.f32 %f5, [%rd2];
    add.f32 %f6, %f1, %f2;
    add.f32 %f7, %f3, %f4;
    add.f32 %f8, %f6, %f5;
    st.global.f32 [%rd3], %f8;
    ret;
""") == [5]


def test_a_load_whose_address_is_loaded_waits_twice():
    """Pointer chasing: the second load's address is the first load's value, so it waits, and
    the store of its value waits again."""
    assert _waits("""
    ld.global.u64 %rd2, [%rd1];
    ld.global.f32 %f1, [%rd2];
    st.global.f32 [%rd3], %f1;
    ret;
""") == [1, 2]


def test_overwriting_a_pending_register_waits():
    """A write to a register whose load is in flight waits for it (write after write)."""
    assert _waits("""
    ld.global.f32 %f1, [%rd1];
    mov.f32 %f1, 0f00000000;
    ret;
""") == [1]


def test_a_wmma_fragment_loaded_from_global_memory_is_waited_for():
    """`wmma.load` of A and B from global memory (what `nvcuda::wmma::load_matrix_sync` compiles
    to) are loads issued together: the mma that reads both waits once; a fragment loaded from
    shared memory is not a global load. Before this rule a wmma GEMM's loop counted no wait at
    all (tests/data/cuda/tensor/wmma_shapes.cu: predicted 0.14x of the H100's time)."""
    body = """
    wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, [%rd1], %r9;
    wmma.load.b.sync.aligned.row.m16n16k16.f16 {%r10, %r11, %r12, %r13, %r14, %r15, %r0, %r16}, [%rd2], %r9;
    wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r17, %r18, %r19, %r20, %r21, %r22, %r23, %r24}, [%rd3], %r9;
    wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32 {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7},
        {%r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8}, {%r10, %r11, %r12, %r13, %r14, %r15, %r0, %r16},
        {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};
    ret;
"""
    fn = ptx_entry(body)
    assert [is_global_load(i) for i in fn.body] == [True, True, False, False, False]
    # the shared load reads only its address and stride (not loaded): no wait; the mma reads both
    # global fragments: one wait for the two
    assert _waits(body) == [3]


def test_loop_back_edge_and_join_carry_pending_loads():
    """A load issued at the bottom of a loop is used at its top in the next iteration (software
    pipelining): the use waits; a load on one side of a branch is waited for after the join."""
    assert _waits("""
    ld.global.f32 %f1, [%rd1];
$L_loop:
    add.f32 %f2, %f2, %f1;
    ld.global.f32 %f1, [%rd1+4];
    setp.lt.s32 %p1, %r1, 8;
    @%p1 bra $L_loop;
    @%p2 bra $L_skip;
    ld.global.f32 %f3, [%rd2];
$L_skip:
    add.f32 %f4, %f3, %f3;
    ret;
""") == [1, 7]


def test_an_unrolled_copy_waits_once_as_ptxas_schedules_it():
    """PTX lists the unrolled copy `ld, st, ld, st`; ptxas issues the block's loads first (the
    H100's SASS of tests/data/cuda/tensor/ldmatrix_variants.cu: LDG x4, then STS x4), so the
    warp waits once, at the first store (load_schedule.py)."""
    assert _waits("""
    ld.global.u16 %rs1, [%rd1];
    st.shared.u16 [%r1], %rs1;
    ld.global.u16 %rs2, [%rd1+64];
    st.shared.u16 [%r2], %rs2;
    ld.global.u16 %rs3, [%rd1+128];
    st.shared.u16 [%r3], %rs3;
    ret;
""") == [1]


def test_loads_go_first_even_where_an_address_takes_longer_than_the_last_store():
    """The example GEMM's tile copy (a loop nvcc unrolls by 4) computes each load's address in
    several steps; issued as soon as possible the first store would come before the second load,
    but ptxas issues the block's loads first (its SASS for sm_90, LDG x 4 then STS x 4:
    benchmarks/hw/lds_vectorization_h100/gemm_tiled_BM64_BN64_BK16_TM4_TN4.sass.txt): one wait."""
    assert _waits("""
    ld.global.f32 %f1, [%rd1];
    st.shared.f32 [%r1], %f1;
    add.s32 %r5, %r4, %r3;
    shr.s32 %r6, %r5, 4;
    mul.wide.s32 %rd5, %r6, 4;
    add.s64 %rd6, %rd1, %rd5;
    ld.global.f32 %f2, [%rd6];
    st.shared.f32 [%r2], %f2;
    ret;
""") == [1]


def test_a_load_whose_address_step_overwrites_a_register_still_needed_stays():
    """Moving the second load's address computation up would overwrite %r1 before the first
    store reads it (an anti-dependence). ptxas would rename the register; the model does not
    (nvcc's PTX rarely reuses one so), and keeps the order: two waits, the count before the
    loads-first rule, so the rule never adds a wait."""
    assert _waits("""
    ld.global.f32 %f1, [%rd1];
    st.shared.f32 [%r1], %f1;
    add.s32 %r1, %r4, %r3;
    mul.wide.s32 %rd5, %r1, 4;
    add.s64 %rd6, %rd1, %rd5;
    ld.global.f32 %f2, [%rd6];
    st.shared.f32 [%r2], %f2;
    ret;
""") == [1, 6]


def test_a_load_stays_after_a_global_store_it_may_alias():
    """A global store may write what the next load reads: the load is not moved above it, so
    the two load-use pairs wait once each; a shared store does not stop the move (the test
    above)."""
    assert _waits("""
    ld.global.f32 %f1, [%rd1];
    st.global.f32 [%rd2], %f1;
    ld.global.f32 %f2, [%rd1+4];
    st.global.f32 [%rd2+4], %f2;
    ret;
""") == [1, 3]


def test_a_load_is_not_moved_above_what_computes_its_address():
    """Pointer chasing stays two waits (the second address is the first load's value), and a
    load whose address is computed from a loaded value waits after that computation."""
    assert _waits("""
    ld.global.u32 %r1, [%rd1];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.f32 %f1, [%rd3];
    st.global.f32 [%rd4], %f1;
    ret;
""") == [1, 4]


SOURCE = """
__global__ void k(const float* a, const float* b, const int* idx, float* c, float* d) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];
    d[i] = a[idx[i]];
}
"""


@needs_nvrtc
def test_ptx_engine_counts_waits_per_warp(ptx_cache):
    """2 blocks of 64 threads = 4 warps. Per warp: a[i] and b[i] issued together, one wait at
    the add; c may alias idx (no __restrict__), so idx[i] is loaded after the store to c and its
    value is waited for to form the gather's address; the gather's value is waited for by the
    store to d: 3 waits per warp for 4 loads per warp."""
    n = 128
    rng = np.random.default_rng(1)
    args = {
        "a": rng.random(n, dtype=np.float32),
        "b": rng.random(n, dtype=np.float32),
        "idx": rng.permutation(n).astype(np.int32),
        "c": np.zeros(n, np.float32),
        "d": np.zeros(n, np.float32),
    }
    res = run_kernel(SOURCE, "k", (2,), (64,), args, H100_ARCH, engine="ptx")
    assert res.counters.warp_instructions["global_load"] == 4 * 4
    assert res.counters.global_load_waits == 4 * 3
    assert np.array_equal(args["d"], args["a"][args["idx"]])


@needs_nvrtc
def test_a_divergent_warp_waits_once(ptx_cache):
    """The corpus's three-way switch on threadIdx.x % 3: every warp runs all three cases, each
    using the one loaded value; the warp waits on the first case it runs and finds the value
    there on the others: 12 warps, 12 loads, 12 waits."""
    source = (CORPUS / "switch_small.cu").read_text()
    args = {"in": np.arange(384, dtype=np.int32), "out": np.zeros(384, np.int32)}
    c = run_kernel(source, "classify", (3,), (128,), args, H100_ARCH, engine="ptx").counters
    assert c.divergent_branches > 0
    assert c.warp_instructions["global_load"] == c.global_load_waits == 12


def test_source_engine_leaves_waits_uncounted():
    """The C engine sees no compiled order: it counts no waits, and the time model then charges
    one wait per load (analysis/timing.py)."""
    n = 128
    args = {
        "a": np.ones(n, np.float32),
        "b": np.ones(n, np.float32),
        "idx": np.arange(n, dtype=np.int32),
        "c": np.zeros(n, np.float32),
        "d": np.zeros(n, np.float32),
    }
    res = run_kernel(SOURCE, "k", (2,), (64,), args, H100_ARCH)
    assert res.counters.global_load_waits == 0


def _work(waits: int | None) -> KernelWork:
    """One wave of 132 x 8 blocks of 8 warps, each warp 8 loads that all miss to DRAM."""
    loads = 132 * 8 * 8 * 8
    return idle_work(
        132 * 8,
        warp_instructions=loads * 4,
        global_load_requests=loads,
        global_wavefronts=loads,
        l2_bytes=loads * 128,
        l2_read_bytes=loads * 128,
        dram_bytes_read=loads * 128,
        l1_hit_rate=0.0,
        l2_hit_rate=0.0,
        global_load_waits=waits,
    )


def test_latency_term_charges_waits_not_loads():
    """With no DRAM queueing the latency term is waves x (waits per warp x DRAM latency + the
    block's own 64 wavefronts + the warp's 32 instructions x the dependent-issue latency, the
    Programming Guide's 4 cycles + the block's launch and exit) / clock (model/time_model.py
    docstring): one wave, so one wait
    for the eight loads costs one latency, and no count given means one wait per load."""
    gpu, rates = get_gpu("h100-sxm"), timing_rates(H100_ARCH)
    idle = dataclasses.replace(rates, dram_queue_ns=None)
    clock = gpu.peak_clock_mhz * 1e6
    latency = rates.dram_latency_ns * 1e-9 * clock
    per_warp = 132 * 8 * 8
    # wavefronts + instructions x cycles + the block's launch and exit (217 ns, timing.yaml)
    own = 64 + 32 * 4.0 + 217e-9 * clock
    assert rates.dependent_issue_cycles == 4.0 and rates.block_life_ns == 217.0

    def term(waits: int | None) -> float:
        prediction = predict_time(_work(waits), gpu, H100_ARCH, idle)
        return next(t.time_s for t in prediction.terms if t.name == "memory latency")

    assert term(None) == pytest.approx((8 * latency + own) / clock)
    assert term(8 * per_warp) == pytest.approx(term(None))
    assert term(per_warp) == pytest.approx((latency + own) / clock)


CP_ASYNC_PIPELINE = r"""
__global__ void stages(const float4 *in, float4 *out) {
  __shared__ float4 buf[2][128];
  unsigned s0 = (unsigned)__cvta_generic_to_shared(&buf[0][threadIdx.x]);
  unsigned s1 = (unsigned)__cvta_generic_to_shared(&buf[1][threadIdx.x]);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s0), "l"(in + threadIdx.x));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s1), "l"(in + 128 + threadIdx.x));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 1;" ::: "memory");
  float4 a = buf[0][threadIdx.x];
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  float4 b = buf[1][threadIdx.x];
  out[threadIdx.x] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
"""


@needs_nvrtc
def test_a_cp_async_stage_left_in_flight_is_not_a_wait(ptx_cache):
    """Issue 33: `cp.async.wait_group N` leaves the N newest groups in flight (PTX ISA, cp.async
    .wait_group) and waits for one committed N groups earlier, whose latency the work issued
    since covers; wait_group 0 waits for what was just issued. 4 warps: wait_group 1 counts
    nothing, wait_group 0 one wait per warp, so 4 (each wait_group counted one, 8, before)."""
    rng = np.random.default_rng(33)
    data = rng.random(256 * 4, dtype=np.float32)
    args = {"in": data.copy(), "out": np.zeros(128 * 4, np.float32)}
    c = run_kernel(CP_ASYNC_PIPELINE, "stages", (1,), (128,), args, H100_ARCH, engine="ptx").counters
    assert c.global_load_waits == 4
    assert np.array_equal(args["out"], data[:512] + data[512:])
