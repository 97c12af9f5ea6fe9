"""The execution core at CC 9.0 against an H100's hardware counters (benchmarks/hw/).

Every catalog launch of benchmarks/hw/h100_cases.py was run on an NVIDIA H100 80GB HBM3 under
Nsight Compute 2025.3.1 (CUDA 13, nvcc/NVRTC defaults); benchmarks/hw/h100_counters.csv keeps
the counters, benchmarks/hw/h100_run/ the raw profile and the SASS. Here the same launches are
simulated and compared. Where the compiled code is not the source statement for statement, the
difference is asserted as the closed form that the SASS explains, not waived.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

import pytest

from perfcalc.sim.references import run_catalog_kernel
from perfcalc.specs import get_arch
from perfcalc.specs.kernels import get_kernel

HW = Path(__file__).resolve().parents[1] / "benchmarks" / "hw"
sys.path.insert(0, str(HW))
from h100_cases import CASES, case_id  # noqa: E402

MEASURED = {r["case"]: r for r in csv.DictReader((HW / "h100_counters.csv").open())}
GLOBAL = ("global_load_requests", "global_load_transactions", "global_store_requests", "global_store_transactions")
SHARED_PASSES = ("shared_load_wavefronts", "shared_store_wavefronts", "bank_conflicts")
# nvcc predicates these kernels' guarded shared accesses (`@!P1 LDS`, h100_run/sass_all.txt):
# warps whose lanes are all predicated off still issue the instruction, which
# smsp__inst_executed_op_shared_* counts; the C engine's requests (>= 1 active lane) do not, the
# PTX engine's do (test_the_ptx_engine_issues_the_predicated_shared_accesses).
PREDICATED = {"reduce_interleaved", "reduce_sequential", "convolve"}


@pytest.fixture(scope="module")
def simulated():
    arch = get_arch("9.0")
    return {case_id(n, p): run_catalog_kernel(get_kernel(n), p, arch) for n, p in CASES}


@pytest.mark.parametrize("name,params", CASES, ids=[case_id(n, p) for n, p in CASES])
def test_global_traffic_equals_the_h100(simulated, name, params):
    """Requests and 32-byte sectors of every global load and store equal Nsight's
    l1tex__t_requests/_sectors_pipe_lsu_mem_global_op_{ld,st}; both runs pass the result check."""
    run, hw = simulated[case_id(name, params)], MEASURED[case_id(name, params)]
    assert run.result_check.passed and hw["result_check_passed"] == "True"
    for counter in GLOBAL:
        assert getattr(run.result.counters, counter) == int(hw[counter]), counter


@pytest.mark.parametrize("name,params", CASES, ids=[case_id(n, p) for n, p in CASES])
def test_shared_memory_equals_the_h100(simulated, name, params):
    """Shared wavefronts and bank conflicts equal l1tex__data_pipe_lsu_wavefronts_mem_shared and
    l1tex__data_bank_conflicts_pipe_lsu_mem_shared; instructions equal smsp__inst_executed_op_shared
    except where nvcc changed the instruction stream (both cases below, read from the SASS)."""
    c, hw = simulated[case_id(name, params)].result.counters, MEASURED[case_id(name, params)]
    if name == "matmul_tiled":
        # ptxas turns 4 consecutive Mds[ty][k] reads into one LDS.128 (sass_summary.txt:
        # 16 LDS + 4 LDS.128 per phase for TILE_WIDTH 16). Per warp and phase the source has
        # 2*T loads of 1 wavefront; the SASS has T (Nds) + T/4 (Mds, LDS.128: 2 broadcast rows
        # = 2 wavefronts): requests x 5/8, load wavefronts x 3/4.
        assert int(hw["shared_load_requests"]) * 8 == c.shared_load_requests * 5
        assert int(hw["shared_load_wavefronts"]) * 4 == c.shared_load_wavefronts * 3
        assert int(hw["shared_store_requests"]) == c.shared_store_requests
        assert int(hw["shared_store_wavefronts"]) == c.shared_store_wavefronts
        assert int(hw["bank_conflicts"]) == c.bank_conflicts == 0
        return
    for counter in SHARED_PASSES:
        assert getattr(c, counter) == int(hw[counter]), counter
    for counter in ("shared_load_requests", "shared_store_requests"):
        if name in PREDICATED:
            assert getattr(c, counter) <= int(hw[counter]), counter
        else:
            assert getattr(c, counter) == int(hw[counter]), counter


@pytest.mark.parametrize("name,params", [(n, p) for n, p in CASES if n in PREDICATED])
def test_the_ptx_engine_issues_the_predicated_shared_accesses(name, params):
    """On the PTX engine the predicated accesses are counted as the SASS issues them (ptxas's
    if-conversion, perfcalc/sim/ptx/if_conversion.py): every shared counter equals the H100's."""
    run = run_catalog_kernel(get_kernel(name), params, get_arch("9.0"), engine="ptx")
    hw = MEASURED[case_id(name, params)]
    assert run.result_check.passed
    for counter in ("shared_load_requests", "shared_store_requests", *SHARED_PASSES):
        assert getattr(run.result.counters, counter) == int(hw[counter]), counter


@pytest.mark.parametrize("name,params", CASES, ids=[case_id(n, p) for n, p in CASES])
def test_flops_equal_the_h100(simulated, name, params):
    """Thread-level FADD+FMUL+2*FFMA (and the double forms) equal perfcalc's flops, except for
    convolve's `/ 3.f`: the H100 computes a float division as MUFU.RCP plus an FFMA refinement
    sequence (sass_summary.txt), which perfcalc, counting source add/sub/mul, does not include."""
    c, hw = simulated[case_id(name, params)].result.counters, MEASURED[case_id(name, params)]
    if name == "convolve":
        n = params["n"]
        assert c.flops == 3 * n  # three adds per output
        assert int(hw["flops"]) > c.flops
    else:
        assert c.flops == int(hw["flops"])


def _sanitizer(name: str) -> str:
    return (HW / "h100_run" / name).read_text()


def test_out_of_bounds_read_matches_compute_sanitizer():
    """Seed 001's convolve under memcheck (--padding 1024, N = 512): the first invalid read is
    by thread (0,0,0) of block (3,0,0) at source line 15, 1 byte past the 2,048-byte input;
    perfcalc names the same thread, block, line and input[512]."""
    from perfcalc.errors import KernelFault
    from perfcalc.sim import run_kernel

    report = _sanitizer("san_memcheck_padded_convolve_seed.txt")
    first = report.split("Invalid __global__ read")[1]
    assert "by thread (0,0,0) in block (3,0,0)" in first and ".cu:15" in first
    assert "of size 2,048 bytes" in first
    import numpy as np

    source = (Path(__file__).parent / "data" / "cuda" / "convolve_seed.cu").read_text()
    x, out = np.ones(512, np.float32), np.zeros(512, np.float32)
    with pytest.raises(KernelFault) as info:
        run_kernel(source, "convolve", 4, 128, {"N": 512, "input": x, "output": out}, get_arch("9.0"))
    f = info.value.fault
    assert (f.line, f.block, f.thread, f.array, f.index) == (15, (3, 0, 0), (0, 0, 0), "input", 512)


def test_missing_barrier_race_matches_racecheck():
    """racecheck on the H100 reports a read/write race on line 13 of reduce_nosync.cu
    (`partialSum[t] += partialSum[t+stride]`), the line perfcalc names (tests/test_sim_safety.py)."""
    report = _sanitizer("san_racecheck_reduce_nosync.txt")
    assert "Race reported between Read access" in report
    assert report.count(".cu:13") == 2
