"""The time model (model/time_model.py), its rates (devices/timing.yaml) and `run --gpu`'s time.

Expected values are derived by hand from the model's documented formulas and the sourced rates,
and the rates themselves are checked against the raw microbenchmark files they cite.
"""

from __future__ import annotations

import csv
import json
import statistics
from pathlib import Path

import pytest
from kernel_work import idle_work
from typer.testing import CliRunner

from perfcalc.cli import app
from perfcalc.errors import InputError
from perfcalc.model.time_model import KernelWork, mean_load_latency_cycles, predict_time
from perfcalc.specs import get_arch, get_gpu
from perfcalc.specs.timing import timing_rates

HW = Path(__file__).resolve().parents[1] / "benchmarks" / "hw"
MICRO = [
    HW / "time_run_h100" / "micro.json",
    HW / "time_micro_h100" / "micro.json",
    HW / "time_micro_h100_run3" / "micro.json",
]
# the H100 runs with a DRAM pointer chase (time_run_h100's 295 cycles is the L2's latency, 293)
CHASES = [
    "time_micro_h100",
    "time_micro_h100_run3",
    "time_micro_h100_run4",
    "time_micro_h100_run5",
    "time_micro_h100_run6",
]


def work(**kw) -> KernelWork:
    """Ten waves of 132 x 8 blocks of 8 warps doing nothing but `kw`."""
    return idle_work(**{"blocks": 132 * 8 * 10, **kw})


H100 = get_gpu("h100-sxm")
ARCH = get_arch("9.0")
RATES = timing_rates(ARCH)


def test_rates_are_the_medians_of_the_committed_h100_runs():
    """timing.yaml's DRAM efficiencies and launch overhead are the medians of the three raw
    micro.json files (benchmarks/hw), as its sources line says."""
    runs = [json.loads(p.read_text()) for p in MICRO]
    read = statistics.median(r["dram_read_gbs"] for r in runs)
    copy = statistics.median(r["dram_copy_gbs"] for r in runs)
    write = 1 / (2 / copy - 1 / read)
    assert RATES.dram_read_efficiency == pytest.approx(read / 3352, abs=0.0005)
    assert RATES.dram_write_efficiency == pytest.approx(write / 3352, abs=0.0005)
    # events around one empty launch (the host's latency included) = the GPU's own time, from
    # Nsight Compute (launch_floor_h100/ncu.csv, one block of 32), + the event latency
    launch = statistics.median(r["empty_kernel_ms"] for r in runs) / 1e3
    assert RATES.launch_overhead_s + RATES.event_latency_s == pytest.approx(launch, rel=0.01)
    text = (HW / "launch_floor_h100" / "ncu.csv").read_text()
    rows = list(csv.DictReader(text[text.index('"ID"') :].splitlines()))
    one_block = [float(r["Metric Value"].replace(",", "")) for r in rows if r["Grid Size"] == "(1, 1, 1)"]
    assert RATES.launch_overhead_s == pytest.approx(statistics.median(one_block) * 1e-9, rel=0.01)
    # a Volkov read1 block's life at 8 warps per SM (far below the peak) is one DRAM wait, at a
    # pointer chase's latency (median of the five H100 chases), and the block's launch and exit
    sweep = runs[1]["read1_sweep"][0]
    life_ns = 132 * sweep["warps_per_sm"] * 128 / (sweep["gbs"] * 1e9) * 1e9
    chases = [json.loads((HW / d / "micro.json").read_text())["latency_cycles"]["dram"] for d in CHASES]
    assert RATES.dram_latency_ns == pytest.approx(statistics.median(chases) / 1.98, rel=0.001)
    assert RATES.dram_latency_ns + RATES.block_life_ns == pytest.approx(life_ns, rel=0.01)
    assert H100.l2_bandwidth_gbs == pytest.approx(runs[2]["l2_read4_gbs"], rel=0.001)


def test_dram_bound_streaming_kernel():
    """256 MiB read + 256 MiB written: read / (3352 GB/s x eff_r) + write / (3352 x eff_w)."""
    mib = 1 << 20
    w = work(dram_bytes_read=256 * mib, dram_bytes_written=256 * mib, global_load_requests=1)
    t = predict_time(w, H100, ARCH, RATES)
    dram = 256 * mib / (3352e9 * RATES.dram_read_efficiency) + 256 * mib / (3352e9 * RATES.dram_write_efficiency)
    assert t.bound == "DRAM bandwidth"
    assert t.predicted_time_s == pytest.approx(RATES.launch_overhead_s + dram)
    assert t.predicted_dram_gbs == pytest.approx(512 * mib / t.predicted_time_s / 1e9)
    assert t.bound_detail.startswith("limited by DRAM bandwidth: ")


def test_wavefront_bound_with_partial_last_wave():
    """133 blocks on 132 SMs: one SM runs two, so per-SM terms double (busiest SM)."""
    w = work(blocks=133, global_wavefronts=133 * 1000, global_load_requests=133)
    t = predict_time(w, H100, ARCH, RATES)
    term = next(x for x in t.terms if x.name == "L1/shared wavefronts")
    expected = 133 * 1000 / (132 * 1980e6) * (2 / (133 / 132))
    assert term.time_s == pytest.approx(expected)
    assert t.bound == "L1/shared wavefronts"


def test_issue_and_fp32_terms():
    """Issue: instructions / (4 per SM per clock x SMs x clock); FP32: x 32 lanes / 128 lanes."""
    blocks = 132 * 8
    w = work(
        blocks=blocks,
        warp_instructions=4 * 132 * 1980 * 10**6,
        fp32_warp_instructions=132 * 1980 * 10**6,
        global_load_requests=1,
    )
    t = predict_time(w, H100, ARCH, RATES)
    terms = {x.name: x.time_s for x in t.terms}
    assert terms["instruction issue"] == pytest.approx(1.0)
    assert terms["FP32 pipe"] == pytest.approx(32 / 128)


def test_latency_term_is_littles_law():
    """10 waves x (4 loads per warp x mean latency (L1 44, L2 293, DRAM 346.8 ns idle at
    1.98 GHz) + the block's launch and exit, 217 ns); no DRAM traffic, so the DRAM is idle."""
    w = work(global_load_requests=132 * 8 * 10 * 8 * 4, l1_hit_rate=0.5, l2_hit_rate=0.5)
    clock = 1980e6
    mean = 0.5 * 44 + 0.5 * (0.5 * 293 + 0.5 * 346.8e-9 * clock)
    assert mean_load_latency_cycles(w, RATES, clock) == pytest.approx(mean)
    t = predict_time(w, H100, ARCH, RATES)
    term = next(x for x in t.terms if x.name == "memory latency")
    assert term.time_s == pytest.approx(10 * (4 * mean / clock + 217e-9))


def test_latency_and_dram_utilization_are_solved_together():
    """A copy-like launch: 100 waves of 64 warps per SM, one load per warp, every load from DRAM
    (128 B each, as many written). The latency term T satisfies T = waves x L(U) / clock with
    U = (DRAM-bandwidth time) / T and L(U) = 346.8 + 63.3 U / (1 - U) ns, plus each wave's
    block launch and exit, 217 ns (devices/timing.yaml): a fixed point, at least the bandwidth
    term."""
    blocks = 132 * 8 * 100
    requests = blocks * 8
    w = work(
        blocks=blocks,
        global_load_requests=requests,
        l1_hit_rate=0.0,
        l2_hit_rate=0.0,
        l2_read_bytes=requests * 128,
        dram_bytes_read=requests * 128,
        dram_bytes_written=requests * 128,
    )
    t = predict_time(w, H100, ARCH, RATES)
    terms = {x.name: x.time_s for x in t.terms}
    lat, bw = terms["memory latency"], terms["DRAM bandwidth"]
    u = bw / lat
    assert lat == pytest.approx(100 * (346.8 + 63.3 * u / (1 - u) + 217.0) * 1e-9, rel=1e-6)
    assert lat > bw and t.bound == "memory latency"


def test_cc_without_sources_leaves_terms_out_and_says_so():
    """G80 (CC 1.0): no L1 rate, no L2, no DRAM latency measurement: seed 003's 400 cycles."""
    g80 = get_gpu("g80")
    arch = get_arch("1.0")
    t = predict_time(work(global_load_requests=10, dram_bytes_read=10**6), g80, arch, timing_rates(arch))
    names = {x.name for x in t.terms}
    assert "L1/shared wavefronts" not in names and "L2 bandwidth" not in names
    assert any("L1 wavefronts" in o for o in t.omitted)
    assert mean_load_latency_cycles(work(), timing_rates(arch), 1350e6) == 400


def test_no_block_fits_is_an_input_error():
    with pytest.raises(InputError, match="0 blocks fit"):
        predict_time(work(active_blocks_per_sm=0), H100, ARCH, RATES)


def test_run_json_carries_the_time_fields():
    """Issue #9 part 5: run --gpu JSON has the time, bound, DRAM bytes, hit rates, gpu, cc."""
    res = CliRunner().invoke(
        app, ["run", "copy_stride", "--gpu", "h100-sxm", "-p", "n=65536", "-p", "stride=1", "--format", "json"]
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    for key in (
        "predicted_time_s",
        "bound",
        "dram_bytes_read",
        "dram_bytes_written",
        "l1_hit_rate",
        "l2_hit_rate",
        "predicted_gflops",
        "predicted_dram_gbs",
    ):
        assert key in doc
    assert doc["gpu"] == "h100-sxm" and doc["cc"] == "9.0"
    # 65536 floats read once: 256 KiB from DRAM (64-byte fetches of whole lines)
    assert doc["dram_bytes_read"] == 65536 * 4
    assert 0 <= doc["l2_hit_rate"] <= 1
    assert doc["predicted_time_s"] == pytest.approx(
        RATES.launch_overhead_s + max(t["time_s"] for t in doc["time"]["terms"])
    )


def test_h100_measured_times_of_streaming_kernels():
    """Three catalog launches timed on the H100 (benchmarks/hw/time_run_h100/times.json, CUDA
    events, median of 20): the model, given the hardware's registers, within 1.5x of each."""
    times = {r["case"]: r["median_ms"] / 1e3 for r in json.loads((HW / "time_run_h100" / "times.json").read_text())}
    for args, case in (
        (["copy_stride", "-p", "n=8388608", "-p", "stride=4"], "copy_stride(block=256,n=8388608,stride=4)"),
        (["soa_struct", "-p", "n=16777216"], "soa_struct(n=16777216)"),
        (["aos_float3", "-p", "n=16777216"], "aos_float3(n=16777216)"),
    ):
        res = CliRunner().invoke(app, ["run", *args, "--gpu", "h100-sxm", "--regs", "16", "--format", "json"])
        assert res.exit_code == 0, res.output
        ratio = (json.loads(res.output)["predicted_time_s"] + RATES.event_latency_s) / times[case]  # events
        assert 1 / 1.5 <= ratio <= 1.5, (case, ratio)


def test_repeated_gpu_compares_products_side_by_side():
    """Issue #9: `run K --gpu A --gpu B` runs K once per product and shows them side by side; the
    same launch moves the same DRAM bytes on an H100 and an H200 (one chip, 64-byte fetches)
    and the H200's faster HBM3e gives it the shorter time."""
    res = CliRunner().invoke(
        app, ["run", "copy_stride", "-p", "n=1048576", "--gpu", "h100-sxm", "--gpu", "h200", "--format", "json"]
    )
    assert res.exit_code == 0, res.output
    runs = json.loads(res.output)["runs"]
    assert [r["gpu"] for r in runs] == ["h100-sxm", "h200"]
    assert runs[0]["dram_bytes_read"] == runs[1]["dram_bytes_read"]
    assert runs[1]["predicted_time_s"] < runs[0]["predicted_time_s"]
    res = CliRunner().invoke(app, ["run", "copy_stride", "--gpu", "h200", "--gpu", "h200"])
    assert res.exit_code == 2 and "repeats a product" in res.output


def test_launch_report_joins_model_run_caches_and_time():
    """analysis.launch_report: one typed report per launch. The tiled matmul at W = 256 on the
    H100 SXM: the catalog's analytic counters equal the execution core's (the model is exact
    for it), the inputs (2 x 256^2 floats) are read from DRAM once, and the time is the time
    model's for those counts."""
    from perfcalc.analysis.launch_report import analyze_catalog_kernel
    from perfcalc.specs.kernels import get_kernel

    r = analyze_catalog_kernel(get_kernel("matmul_tiled"), {"Width": 256}, H100, ARCH)
    d = r.to_dict()
    assert r.predicted_exact and d["predicted"] == {k: v for k, v in d["counters"].items() if k in d["predicted"]}
    assert d["dram_bytes_read"] == 2 * 256 * 256 * 4
    assert d["gpu"] == "h100-sxm" and d["cc"] == "9.0"
    assert d["predicted_time_s"] == pytest.approx(RATES.launch_overhead_s + max(t["time_s"] for t in d["time_terms"]))
    assert r.result_check is not None and r.result_check.passed


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "copy_stride", "--exact"], "--exact goes with --gpu"),
        (["report", "--gpu", "h100-sxm", "--sample-budget", "nan"], "--sample-budget nan is not a finite number"),
        (["report", "--gpu", "h100-sxm", "--sample-budget", "inf"], "--sample-budget inf is not a finite number"),
    ],
)
def test_time_options_bad_input_is_one_line(args, message, tmp_path):
    """--exact without a product to sample on, and a sampling budget that is not a finite
    number of seconds: exit 2, one error line, nothing written."""
    out = tmp_path / "r"
    res = CliRunner().invoke(app, [*args, *(["-o", str(out)] if args[0] == "report" else [])])
    assert res.exit_code == 2 and message in res.output
    assert res.output.count("\n") == 1 and not out.exists()


DISPATCH = [
    HW / "dispatch_atomics_h100" / "dispatch_atomics.json",
    HW / "dispatch_atomics_h100" / "dispatch_atomics_run2.json",
    HW / "dispatch_atomics_h200" / "dispatch_atomics.json",
]


def test_block_dispatch_rate_is_the_measured_slope():
    """timing.yaml's block_dispatch_ns is the empty kernel's time per block per SM between 2^18
    and 2^20 blocks of <= 256 threads, on both H100 runs and the H200: 79.3-80.5 ns in eight of
    nine, 84.9 ns once (H100 run 2, 256 threads), hence 7 %."""
    for path in DISPATCH:
        rows = json.loads(path.read_text())["dispatch"]
        for threads in (32, 128, 256):
            t = {r["blocks"]: r["median_ms"] for r in rows if r["threads"] == threads}
            slope_ns = (t[1 << 20] - t[1 << 18]) * 1e6 / ((3 << 18) / 132)
            assert slope_ns == pytest.approx(RATES.block_dispatch_ns, rel=0.07), (path, threads)


def test_empty_launch_of_many_blocks_is_dispatch_bound():
    """An empty kernel of 2^18 blocks: ceil(2^18 / 132) = 1986 blocks on the busiest SM x 80 ns
    + the launch's own 2.2 us = 161.1 us, and with the 7.6 us CUDA events add, 168.7 us; the H100
    measured 163.7-164.0 us by events (128 threads, both runs)."""
    t = predict_time(work(blocks=1 << 18, warps_per_block=4, active_blocks_per_sm=16), H100, ARCH, RATES)
    assert t.bound == "block dispatch"
    assert t.predicted_time_s == pytest.approx(1986 * 80e-9 + RATES.launch_overhead_s)
    for path in DISPATCH[:2]:  # timed by CUDA events: their latency is part of what they measured
        rows = json.loads(path.read_text())["dispatch"]
        measured = next(r["median_ms"] for r in rows if r["threads"] == 128 and r["blocks"] == 1 << 18) / 1e3
        assert t.predicted_time_s + RATES.event_latency_s == pytest.approx(measured, rel=0.05)


def test_atomic_contention_is_the_busiest_lines_requests():
    """The hottest line's (combined requests, float lanes, exchange lanes) x the measured ns
    each; the other lines do not add (they are served by the L2 side by side)."""
    lines = ((10000.0, 0.0, 0.0), (100.0, 20000.0, 3000.0))
    t = predict_time(work(atomic_hot_lines=lines), H100, ARCH, RATES)
    atomic = next(x for x in t.terms if x.name == "atomic contention")
    busiest = 100 * 1.0 + 20000 * 1.76 + 3000 * 0.74
    assert atomic.time_s == pytest.approx(busiest * 1e-9)
    assert t.bound == "atomic contention"


def test_atomic_rates_match_the_microbenchmarks():
    """Every lane on one address (2^20 threads): int add per warp, float/double add and
    cas/exch/inc per lane, on both H100 runs and the H200, within the spread the sources line
    gives (combined 0.92-1.25 ns per warp; float 1.76-1.78; exchange 0.74-0.75 per lane)."""
    for path in DISPATCH:
        a = json.loads(path.read_text())["atomics"]
        per_warp = a["global_all_lanes_one_address_red"]["ns_per_operation"] * 32
        assert per_warp == pytest.approx(RATES.atomic_combined_request_ns, rel=0.25)
        assert a["global_all_lanes_one_address_float_red"]["ns_per_operation"] == pytest.approx(
            RATES.atomic_float_lane_ns, rel=0.02
        )
        for op in ("cas", "exch", "inc"):
            key = f"global_all_lanes_one_address_{op}"
            if key in a:
                assert a[key]["ns_per_operation"] == pytest.approx(RATES.atomic_exchange_lane_ns, rel=0.03)


def test_dependent_issue_latency_only_where_the_guide_gives_it():
    """devices/timing.yaml: the Programming Guide's 4 cycles a dependent arithmetic instruction
    for CC 7.x, taken for later majors; none for the CCs before 7.0 (nothing measured checks the
    guide's 22 and 11 cycles there), so their predictions are as before."""
    from perfcalc.specs import get_arch
    from perfcalc.specs.timing import timing_rates

    assert [timing_rates(get_arch(cc)).dependent_issue_cycles for cc in ("7.0", "9.0", "12.0")] == [4.0] * 3
    assert [timing_rates(get_arch(cc)).dependent_issue_cycles for cc in ("1.0", "3.5", "6.1")] == [None] * 3


def test_fp64_dependent_latency_is_the_measured_chain():
    """devices/timing.yaml's 8 cycles for a dependent FP64 instruction on CC 9.x is the H200's
    (sm_90) measured DFMA/DADD/DMUL chain (benchmarks/hw/dependent_latency_probe/h200/latency.csv,
    8.16 cycles an operation with the loop's share; FFMA 4.29 there, the guide's 4), each less the
    loop's share; majors not measured take the common figure. In the latency term an FP64 instruction
    then costs 8 cycles and any other 4: a launch of one warp per block whose 100 instructions are
    half FP64 waits 50 x 4 + 50 x 8 = 600 cycles for them."""
    import csv
    import dataclasses

    from kernel_work import idle_work

    from perfcalc.model.time_model import predict_time
    from perfcalc.specs import get_arch, get_gpu
    from perfcalc.specs.timing import timing_rates

    rows = {
        r["op"]: float(r["cycles_per_dependent_op"])
        for r in csv.DictReader((HW / "dependent_latency_probe" / "h200" / "latency.csv").open())
    }
    for op in ("ffma", "fadd", "imad"):  # the guide's 4, plus the loop's share (under half a cycle)
        assert 4.0 <= rows[op] < 4.5
    for op in ("dfma", "dadd", "dmul"):
        assert 8.0 <= rows[op] < 8.5
    rates = timing_rates(get_arch("9.0"))
    assert rates.fp64_dependent_issue_cycles == 8.0
    assert timing_rates(get_arch("8.0")).fp64_dependent_issue_cycles is None

    # the instruction chain alone: no DRAM queue, no block launch and exit
    gpu, idle = get_gpu("h100-sxm"), dataclasses.replace(rates, dram_queue_ns=None, block_life_ns=None)
    work = idle_work(132, warps_per_block=1, warp_instructions=132 * 100, fp64_warp_instructions=132 * 50)
    term = next(t for t in predict_time(work, gpu, get_arch("9.0"), idle).terms if t.name == "memory latency")
    assert term.time_s == pytest.approx((50 * 4 + 50 * 8) / (gpu.peak_clock_mhz * 1e6))


def test_the_integer_pipe_is_the_measured_alu_rate():
    """devices/timing.yaml's 64 integer lanes per SM per clock on CC 9.x is the profiler's own
    peak for the ALU pipe on an H200 (sm_90): sm__inst_executed_pipe_alu.sum.peak_sustained = 264
    warp instructions a cycle over its 132 SMs, half the FMA pipes' 528
    (benchmarks/hw/pipe_peaks/h200/peaks.csv). The term is int warp instructions x 32 / (64 lanes x
    SMs x clock) x the busiest SM's share: 1,056 blocks of 1,000 integer instructions on an H100
    (132 SMs, 1980 MHz, 8 blocks an SM) take 1,056,000 x 32 / (64 x 132 x 1.98e9) s. A CC without
    a measured rate leaves the term out and says so."""
    import re

    text = (HW / "pipe_peaks" / "h200" / "peaks.csv").read_text()

    def peak(pipe: str) -> float:
        found = re.search(rf'"sm__inst_executed_pipe_{pipe}\.sum\.peak_sustained","[^"]*","([\d,.]+)"', text)
        assert found, pipe
        return float(found.group(1).replace(",", ""))

    assert peak("alu") == 264 and peak("fma") == 528
    rates = timing_rates(get_arch("9.0"))
    assert rates.int_lanes_per_sm_per_clock == peak("alu") / 132 * 32 == 64
    gpu = get_gpu("h100-sxm")
    blocks = 1056
    t = predict_time(
        idle_work(blocks, warp_instructions=blocks * 1000, int_warp_instructions=blocks * 1000),
        gpu,
        get_arch("9.0"),
        rates,
    )
    term = next(x for x in t.terms if x.name == "integer pipe")
    assert term.time_s == pytest.approx(blocks * 1000 * 32 / (64 * 132 * 1.98e9))
    old = predict_time(
        idle_work(8, int_warp_instructions=8), get_gpu("v100"), get_arch("7.0"), timing_rates(get_arch("7.0"))
    )
    assert "integer pipe" not in {x.name for x in old.terms}
    assert any("integer pipe" in why for why in old.omitted)
