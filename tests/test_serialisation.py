"""Lanes served one at a time (issue #9): shared atomics on one word and `__constant__` loads of
several addresses, counted by both engines (memory/shared_atomics.py, memory/lanes.py) and priced
by the time model at rates checked here against the raw H100 microbenchmark
(benchmarks/hw/serialisation_micro.py, serialisation_h100/).

Expected counts are derived by hand from the rules the module docstrings cite: the Programming
Guide's split of a constant request per distinct address (which Nsight Compute's idc__requests
shows on the H100, checked below) and the SASS ptxas makes of each shared atomic.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from kernel_work import idle_work

from perfcalc.memory.lanes import distinct_per_warp
from perfcalc.memory.shared_atomics import atomic_class, serial_steps
from perfcalc.model.time_model import KernelWork, predict_time
from perfcalc.sim import run_kernel
from perfcalc.sim.ptx import nvrtc
from perfcalc.specs import get_arch, get_gpu
from perfcalc.specs.timing import timing_rates

HW = Path(__file__).resolve().parents[1] / "benchmarks" / "hw"
MICRO = HW / "serialisation_h100"
H100_ARCH = get_arch("9.0")
RATES = timing_rates(H100_ARCH)
needs_nvrtc = pytest.mark.skipif(not nvrtc.available(), reason="NVRTC (pip install nvidia-cuda-nvrtc) is not installed")


def _lanes_on(words_per_warp: int, warps: int = 2) -> np.ndarray:
    """Byte addresses: lane l of every warp on word l mod `words_per_warp`."""
    return np.tile(4 * (np.arange(32) % words_per_warp), warps)


def test_classes():
    assert atomic_class("add", is_float=True) == "float"
    assert atomic_class("cas", is_float=False) == "cas"
    assert [atomic_class(op, False) for op in ("add", "min", "exch", "inc")] == ["int"] * 4


@pytest.mark.parametrize(
    "op,used,uniform_steps",
    [
        ("add", False, 1),
        ("add", True, 1),  # REDUX / vote loop: one ATOMS per warp
        ("min", False, 1),
        ("or", False, 1),  # REDUX when the old value is dropped
        ("min", True, 32),
        ("exch", False, 32),
        ("cas", False, 32),
    ],
)  # lane by lane
def test_steps_per_warp_on_one_word(op, used, uniform_steps):
    """Two warps, all 32 lanes on one word: steps per warp as the SASS of the micro kernels
    shows (combined ops once, the rest once per lane)."""
    _, steps = serial_steps(op, False, used, _lanes_on(1), None)
    assert steps == 2 * uniform_steps


def test_two_words_are_never_combined_and_masks_count():
    """Lanes on two words: the compiler's uniform-address test fails, so even add goes lane by
    lane: 16 lanes on the busiest word (the micro's add on two words costs 9.95 ns per warp,
    16 x 0.565 = 9.0). Masked-off lanes wait for nothing; a warp with none adds nothing."""
    assert serial_steps("add", False, False, _lanes_on(2), None) == ("int", 32)
    mask = np.zeros(64, bool)
    mask[:5] = True  # warp 0: lanes 0-4 -> words 0,1,0,1,0: three on word 0
    assert serial_steps("add", True, True, _lanes_on(2), mask) == ("float", 3)
    assert serial_steps("cas", False, True, _lanes_on(32), None) == ("cas", 2)


def test_distinct_addresses_per_warp():
    assert distinct_per_warp(_lanes_on(1, warps=3), None) == 3
    assert distinct_per_warp(_lanes_on(16), None) == 32
    mask = np.zeros(64, bool)
    mask[40:44] = True  # warp 1 only, lanes 8-11 on words 8-11 of 16
    assert distinct_per_warp(_lanes_on(16), mask) == 4


SHARED_KERNEL = """
__global__ void k(const float* in, int* out, float* fout) {
    __shared__ int s[2];
    __shared__ float f;
    if (threadIdx.x < 2) s[threadIdx.x] = 0;
    if (threadIdx.x == 0) f = 0.0f;
    __syncthreads();
    atomicAdd(&s[0], 1);
    atomicCAS(&s[1], 0, (int)threadIdx.x);
    atomicAdd(&f, in[blockIdx.x * blockDim.x + threadIdx.x]);
    __syncthreads();
    if (threadIdx.x == 0) { out[blockIdx.x] = s[0] + s[1]; fout[blockIdx.x] = f; }
}
"""


@needs_nvrtc
def test_ptx_engine_counts_shared_atomic_steps(ptx_cache):
    """4 blocks of 96 threads = 12 warps: the add on one word combined (12 steps), the CAS 32
    lanes each (384), the float add 32 lanes each (384)."""
    args = {"in": np.ones(384, np.float32), "out": np.zeros(4, np.int32), "fout": np.zeros(4, np.float32)}
    c = run_kernel(SHARED_KERNEL, "k", (4,), (96,), args, H100_ARCH, engine="ptx").counters
    assert (c.shared_atomic_int_steps, c.shared_atomic_cas_steps, c.shared_atomic_float_steps) == (12, 384, 384)


def test_c_engine_counts_shared_float_atomic_add():
    """The C engine's atomicAdd on a shared float every lane shares: 32 steps per warp; on a
    shared int: combined, one per warp (2 blocks of 64 threads: 4 warps)."""
    src = """
    __global__ void k(const float* in, float* out, int* count) {
        __shared__ float f[1];
        __shared__ int n[1];
        if (threadIdx.x == 0) { f[0] = 0.0f; n[0] = 0; }
        __syncthreads();
        atomicAdd(&f[0], in[blockIdx.x * blockDim.x + threadIdx.x]);
        atomicAdd(&n[0], 1);
        __syncthreads();
        if (threadIdx.x == 0) { out[blockIdx.x] = f[0]; count[blockIdx.x] = n[0]; }
    }
    """
    args = {"in": np.ones(128, np.float32), "out": np.zeros(2, np.float32), "count": np.zeros(2, np.int32)}
    res = run_kernel(src, "k", (2,), (64,), args, H100_ARCH)
    assert res.counters.shared_atomic_float_steps == 4 * 32
    assert res.counters.shared_atomic_int_steps == 4
    assert args["out"].tolist() == [64.0, 64.0]


CONSTANT_KERNEL = """
__constant__ int table[16];
__global__ void k(const int* idx, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = table[idx[i] & 15] + table[3];
}
"""


def _constant_args() -> dict[str, np.ndarray]:
    idx = np.arange(128, dtype=np.int32) * 5  # lane l of a warp: (5 l) & 15, 16 distinct
    idx[32:64] = 7  # warp 1: one address
    return {"idx": idx, "out": np.zeros(128, np.int32), "table": np.arange(16, dtype=np.int32) * 10}


@pytest.mark.parametrize("engine", ["source", pytest.param("ptx", marks=needs_nvrtc)])
def test_constant_requests_are_distinct_addresses_per_warp(engine, ptx_cache):
    """4 warps: the indexed load asks 16 + 1 + 16 + 16 addresses, table[3] one per warp: 53."""
    args = _constant_args()
    c = run_kernel(CONSTANT_KERNEL, "k", (1,), (128,), args, H100_ARCH, engine=engine).counters
    assert c.constant_requests == 49 + 4
    assert args["out"][:4].tolist() == [30, 80, 130, 180]


def _micro() -> dict[str, float]:
    rows = json.loads((MICRO / "serialisation.json").read_text())["cases"]
    return {r["case"]: r["ns_per_warp_instruction_per_sm"] for r in rows if "ns_per_warp_instruction_per_sm" in r}


def test_shared_atomic_rates_are_the_microbenchmarks():
    """timing.yaml's per-lane rates are the one-word cases / 32 lanes (both old-value forms
    within 2 %), and the time of two words (16 lanes) is half of it within 12 %."""
    ns = _micro()
    for op, rate in (
        ("exch", RATES.shared_atomic_int_lane_ns),
        ("min", RATES.shared_atomic_int_lane_ns),
        ("cas", RATES.shared_atomic_cas_lane_ns),
        ("fadd", RATES.shared_atomic_float_lane_ns),
    ):
        assert ns[f"sh_{op}_1_use"] / 32 == pytest.approx(rate, rel=0.02), op
        assert ns[f"sh_{op}_2_use"] / 16 == pytest.approx(rate, rel=0.12), op
    for op in ("add", "min", "max", "or"):  # combined: one step, about the conflict-free cost
        assert ns[f"sh_{op}_1_nouse"] < 6 * RATES.shared_atomic_int_lane_ns


def test_constant_rate_is_the_microbenchmark_slope():
    """(D = 32 - D = 8) / 24 addresses; D <= 4 is not a load (the next test says why)."""
    ns = _micro()
    assert (ns["const_32"] - ns["const_8"]) / 24 == pytest.approx(RATES.constant_request_ns, rel=0.01)
    assert (ns["const_16"] - ns["const_8"]) / 8 == pytest.approx(RATES.constant_request_ns, rel=0.03)


def _ncu(kernel: str, metric: str) -> float:
    with (MICRO / "ncu.csv").open() as fh:
        rows = [r for r in csv.reader(line for line in fh if line.startswith('"'))]
    head = rows[0]
    for r in rows[1:]:
        row = dict(zip(head, r, strict=True))
        if row["Kernel Name"].split("(")[0] == kernel and row["Metric Name"] == metric:
            return float(row["Metric Value"].replace(",", ""))
    raise KeyError((kernel, metric))


def test_nsight_counts_one_constant_request_per_distinct_address():
    """idc__requests.sum on the H100 for D distinct words per warp load: D x 540,672 warp loads
    (1056 blocks x 8 warps x 64) plus the kernel's parameter loads (under 5 % of one per load).
    For D <= 4 ptxas moved the loads out of the loop (a sixth of the instructions), so the
    count is far below 64 per thread there."""
    loads = 1056 * 8 * 64
    for words in (8, 16, 32):
        requests = _ncu(f"const_{words}", "idc__requests.sum")
        assert words * loads <= requests <= words * loads + 0.05 * loads, words
        assert _ncu(f"const_{words}", "sm__inst_executed.sum") == 3_320_064
    for words in (1, 2, 4):
        assert _ncu(f"const_{words}", "sm__inst_executed.sum") < 3_320_064 / 4
        assert _ncu(f"const_{words}", "idc__requests.sum") < loads


def _work(**kw) -> KernelWork:
    """1056 blocks of 8 warps, 8 per SM on 132 SMs, doing nothing but `kw`."""
    return idle_work(1056, **kw)


def test_time_model_terms():
    """Per SM: steps x rate / 132 SMs (1056 blocks: 8 on every SM, busiest factor 1); constant
    requests beyond one per warp load likewise."""
    gpu = get_gpu("h100-sxm")
    t = predict_time(_work(shared_atomic_steps=(100, 200, 300), constant_extra_requests=400), gpu, H100_ARCH, RATES)
    terms = {x.name: x.time_s for x in t.terms}
    assert terms["shared atomics"] == pytest.approx((100 * 0.565 + 200 * 1.075 + 300 * 6.63) * 1e-9 / 132)
    assert terms["constant requests"] == pytest.approx(400 * 1.03e-9 / 132)
    # the micro's CAS on one word: 540,672 warps x 32 steps -> the measured 0.141 ms within 3 %
    t = predict_time(_work(shared_atomic_steps=(0, 1056 * 8 * 64 * 32, 0)), gpu, H100_ARCH, RATES)
    assert t.bound == "shared atomics"
    micro_ms = next(
        r["median_ms"]
        for r in json.loads((MICRO / "serialisation.json").read_text())["cases"]
        if r["case"] == "sh_cas_1_use"
    )
    assert t.predicted_time_s - RATES.launch_overhead_s == pytest.approx(micro_ms / 1e3, rel=0.03)


def test_other_ccs_leave_the_terms_out_and_say_so():
    arch = get_arch("8.0")
    t = predict_time(
        _work(shared_atomic_steps=(1, 0, 0), constant_extra_requests=1), get_gpu("a100"), arch, timing_rates(arch)
    )
    assert any(o.startswith("shared atomics") for o in t.omitted)
    assert any(o.startswith("divergent constant loads") for o in t.omitted)
