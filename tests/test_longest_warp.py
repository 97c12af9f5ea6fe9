"""The longest warp (issue #32, sim/ptx/warp_chains.py and the time model's "longest warp" term):
a launch cannot end before its longest warp's own chain of waits and instructions does, however
short the mean warp's is (one thread summing an array; a few working blocks among thousands).

Expected chains are the launch's own counter totals where one warp does all of the counted work
(an independent count of the same events), and the term is derived by hand from the formula in
model/time_model.py's docstring."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from kernel_work import idle_work
from ptx_entry import ptx_entry

from perfcalc.model.time_model import predict_time
from perfcalc.sim import run_kernel
from perfcalc.sim.ptx import nvrtc
from perfcalc.sim.ptx.load_waits import SHARED, wait_points
from perfcalc.sim.ptx.warp_chains import LONGEST_BY, longest
from perfcalc.specs import get_arch, get_gpu
from perfcalc.specs.timing import timing_rates

H100_ARCH = get_arch("9.0")
needs_nvrtc = pytest.mark.skipif(not nvrtc.available(), reason="NVRTC (pip install nvidia-cuda-nvrtc) is not installed")


def test_longest_keeps_the_longest_under_every_weighting():
    """Kept from two chunks, the chains are exactly the per-weighting maxima over all rows
    (brute force over every row), each once."""
    rng = np.random.default_rng(32)
    first, second = rng.integers(0, 1000, (40, 3)), rng.integers(0, 1000, (40, 3))
    kept = longest(second, longest(first))
    rows = [tuple(int(v) for v in r) for r in itertools.chain(first, second)]
    for weights in LONGEST_BY:
        best = max(sum(w * v for w, v in zip(weights, r, strict=True)) for r in rows)
        got = max(sum(w * v for w, v in zip(weights, r, strict=True)) for r in kept)
        assert got == best
    assert len(set(kept)) == len(kept) <= len(LONGEST_BY)
    assert longest(np.zeros((0, 3), dtype=np.int64)) == ()


SERIAL = """
__global__ void serial(const float* __restrict__ x, float* r, int n) {
    __shared__ float tile[32];
    if (threadIdx.x < 32) tile[threadIdx.x] = 1.0f;
    __syncthreads();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        float s = 0;
        #pragma unroll 1
        for (int i = 0; i < n; i++) s += x[i] * tile[i % 32];
        r[0] = s;
    }
}
"""


@needs_nvrtc
def test_one_warp_launch_chain_is_the_launch(ptx_cache):
    """One warp: its chain is the launch's totals (warp instructions, global-load waits), counted
    by the engine's other counters; each iteration (unroll 1) loads x[i] and tile[i % 32] and
    multiplies them, so it waits once for each kind of load: shared-load waits = shared loads."""
    n = 50
    args = {"x": np.arange(n, dtype=np.float32), "r": np.zeros(1, np.float32), "n": np.int32(n)}
    res = run_kernel(SERIAL, "serial", (1,), (32,), args, H100_ARCH, engine="ptx")
    c = res.counters
    assert args["r"][0] == sum(range(n))
    assert c.global_load_waits == n  # one load, then its use, per iteration (unroll 1)
    (chain,) = res.longest_warps
    assert chain == (sum(c.warp_instructions.values()), c.global_load_waits, c.warp_instructions["shared_load"])


@needs_nvrtc
def test_the_one_working_warp_of_many_is_the_longest(ptx_cache):
    """64 blocks of 4 warps, thread 0 of block 0 loops: every global-load wait is that warp's,
    and it issued more instructions than any other (its loop), so it is the longest by each."""
    n = 200
    args = {"x": np.ones(n, dtype=np.float32), "r": np.zeros(1, np.float32), "n": np.int32(n)}
    res = run_kernel(SERIAL, "serial", (64,), (128,), args, H100_ARCH, engine="ptx")
    assert args["r"][0] == n
    waits = {w for _, w, _ in res.longest_warps}
    assert waits == {res.counters.global_load_waits} == {n}
    assert len(res.longest_warps) == 1


def test_longest_warp_term_is_its_own_chain():
    """The term is (waits x mean latency + shared-load waits x shared latency + instructions x the
    dependent-issue latency) / clock: with every load missing to an idle DRAM (no queueing),
    the DRAM latency. One long warp among 1,056 idle blocks sets the time; a short longest warp
    leaves the prediction as it is without one."""
    gpu, rates = get_gpu("h100-sxm"), timing_rates(H100_ARCH)
    idle = dataclasses.replace(rates, dram_queue_ns=None)
    clock = gpu.peak_clock_mhz * 1e6
    latency = rates.dram_latency_ns * 1e-9 * clock
    chain = (10_000, 1_200, 300)  # instructions, global-load waits, shared-load waits
    work = idle_work(
        132 * 8,
        warp_instructions=chain[0],
        global_load_requests=chain[1],
        global_load_waits=chain[1],
        shared_load_requests=chain[2],
        l1_hit_rate=0.0,
        l2_hit_rate=0.0,
        longest_warps=(chain, (10, 0, 0)),
    )
    p = predict_time(work, gpu, H100_ARCH, idle)
    expected = (1_200 * latency + 300 * rates.shared_latency_cycles + 10_000 * rates.dependent_issue_cycles) / clock
    terms = {t.name: t.time_s for t in p.terms}
    assert terms["longest warp"] == pytest.approx(expected)
    assert p.bound == "longest warp"
    assert p.predicted_time_s == pytest.approx(rates.launch_overhead_s + expected)
    short = predict_time(dataclasses.replace(work, longest_warps=((10, 0, 0),)), gpu, H100_ARCH, idle)
    unknown = predict_time(dataclasses.replace(work, longest_warps=()), gpu, H100_ARCH, idle)
    assert short.bound == unknown.bound != "longest warp"
    assert short.predicted_time_s == unknown.predicted_time_s


def _shared_waits(body: str) -> list[int]:
    fn = ptx_entry(body)
    at = wait_points(fn.body, fn.labels, fn.branch_tables, SHARED)
    return [i for i, w in enumerate(at) if w]


def test_shared_loads_issued_together_wait_once():
    """A fully unrolled serial sum of shared values (`s += sm[i]`, NVVM's `ld, add, ld, add`):
    the warp waits once, at the first add, not at every add (load_schedule.py's rule with shared
    loads as the hoisted ones). ptxas on sm_90 issues six LDS.128 ahead of the first FADD of such
    a sum and the rest each several FADDs ahead of its use (benchmarks/hw/shared_waits_probe/).
    A shared store between loads keeps the load after it behind it: a second wait."""
    assert _shared_waits("""
    ld.shared.f32 %f1, [%rd1];
    add.f32 %f2, %f2, %f1;
    ld.shared.f32 %f3, [%rd1+4];
    add.f32 %f2, %f2, %f3;
    ld.shared.f32 %f4, [%rd1+8];
    add.f32 %f2, %f2, %f4;
    ret;
""") == [1]
    assert _shared_waits("""
    ld.shared.f32 %f1, [%rd1];
    add.f32 %f2, %f2, %f1;
    st.shared.f32 [%rd2], %f2;
    ld.shared.f32 %f3, [%rd1+4];
    add.f32 %f2, %f2, %f3;
    ret;
""") == [1, 4]
