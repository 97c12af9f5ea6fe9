"""`perfcalc app`: whole programs written here (tests/data/cuda_app/), run as they are (issue 31).

Each program checks its own result and prints PASS; the expected counts are derived in each test
from the program's launch (warps x requests, Maxwell+ sectors per warp: reference/memory.md 1.5),
and the event timer's expected value is the sum of the launches' own predicted times.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfcalc.cli import app as cli
from perfcalc.sim.ptx import toolchain

DATA = Path(__file__).parent / "data" / "cuda_app"
pytestmark = [
    pytest.mark.skipif(toolchain.route("auto") is None, reason="needs nvcc (cuda extra) and a host C++ compiler"),
    pytest.mark.usefixtures("ptx_cache"),
]


def run(name: str, *args: str, **options):  # type: ignore[no-untyped-def]
    import perfcalc.app

    return perfcalc.app.app([name], args, cwd=str(DATA), **options)


def test_one_launch_counts_what_the_warps_do():
    report = run("vector_add.cu", "1000")
    assert report.exit_status == 0 and report.stdout.strip() == "PASS"
    (launch,) = report.launches
    assert launch.kernel == "add(float const*, float const*, float*, int)"
    assert (launch.grid, launch.block) == ((4, 1, 1), (256, 1, 1))
    warps = 4 * 256 // 32  # every warp issues, the last one with 8 of 32 lanes active
    assert launch.counters["global_load_requests"] == 2 * warps
    assert launch.counters["global_store_requests"] == warps
    # 1000 floats each read twice and written once: 31 full warps of 4 sectors, one of 1
    assert launch.counters["global_load_transactions"] == 2 * (31 * 4 + 1)
    assert launch.registers_source == "ptxas"


def test_many_launches_over_iterations_and_the_kernel_summary():
    report = run("iterations.cu", "4096", "32", gpu="h100-sxm")
    assert report.exit_status == 0 and "PASS" in report.stdout
    assert len(report.launches) == 64
    calls = {k.kernel: k.calls for k in report.kernel_summary}
    assert calls == {"step": 32, "swap_back": 32}
    assert sum(k.share for k in report.kernel_summary) == pytest.approx(1.0)
    assert report.predicted_time_s == pytest.approx(sum(r.predicted_time_s for r in report.launches))


def test_a_launch_past_the_cache_budget_runs_exactly_and_says_its_traffic_is_extrapolated():
    """vector_add over 2 waves of an H100 (132 SMs x 8 blocks of 256): with a budget of 0.001 s
    of cache-model work (700 requests, passed in the first wave) the model follows wave 1 only,
    yet every block runs (the program's own check passes) and the counters are the --exact
    run's. The three arrays fit in the L2, so DRAM reads are their cold misses in either run:
    a+b read once, 8 bytes per element (wave 2 is wave 1's traffic again: the same bytes)."""
    n = 2 * 132 * 8 * 256
    part = run("vector_add.cu", str(n), gpu="h100-sxm", cache_budget_s=0.001)
    full = run("vector_add.cu", str(n), gpu="h100-sxm", exact=True)
    for report in (part, full):
        assert report.exit_status == 0 and report.stdout.strip() == "PASS"
    (p,), (f,) = part.launches, full.launches
    assert p.counters == f.counters
    assert f.cache_sample is None and p.cache_sample is not None and "first 1 of 2 waves" in p.cache_sample
    assert any("budget" in note for note in part.notes)
    assert p.dram_bytes == f.dram_bytes == 8 * n
    from perfcalc.errors import InputError

    with pytest.raises(InputError, match="cache_budget_s 0 s must be a finite number of seconds > 0"):
        run("vector_add.cu", "16", gpu="h100-sxm", cache_budget_s=0)


def test_nsight_compute_style_selection():
    report = run("iterations.cu", "4096", "32", kernel="^step", launch_skip=2, launch_count=5)
    assert [r.short_name for r in report.launches] == ["step"] * 5
    assert [r.index for r in report.launches] == [4, 6, 8, 10, 12]  # step is every other launch
    assert report.uncounted_launches == 64 - 5
    assert "PASS" in report.stdout  # every launch ran: the program's result is right


def test_event_timing_reads_the_prediction():
    report = run("events.cu", gpu="h100-sxm")
    printed = float(re.search(r"elapsed ([\d.e-]+) ms", report.stdout).group(1))
    predicted = sum(r.predicted_time_s for r in report.launches) * 1e3
    assert len(report.launches) == 3
    assert printed == pytest.approx(predicted, rel=1e-6)  # the program's float, 7 digits


@pytest.mark.parametrize("name", ["constant_symbol.cu", "managed.cu", "cooperative.cu", "struct_param.cu"])
def test_the_programs_own_check_passes(name):
    report = run(name)
    assert report.exit_status == 0, report.stderr
    assert "PASS" in report.stdout


def test_occupancy_api_answers_as_perfcalc_does():
    import perfcalc

    report = run("cooperative.cu", gpu="h100-sxm")
    blocks = int(re.search(r"(\d+) blocks per SM x 132 SMs", report.stdout).group(1))
    (launch,) = report.launches
    expected = perfcalc.occupancy("9.0", 128, launch.registers_per_thread).active_blocks_per_sm
    assert blocks == expected and launch.grid == (expected * 132, 1, 1)


@pytest.mark.slow
def test_thrust_sort_and_reduce_run_their_cub_kernels():
    report = run("thrust_sort.cu")
    assert report.exit_status == 0 and "PASS" in report.stdout, report.stdout
    names = " ".join(r.kernel for r in report.launches)
    assert "DeviceRadixSort" in names and "DeviceReduce" in names


def test_a_library_with_no_source_is_refused_by_name():
    from perfcalc.app.build import BuildError

    with pytest.raises(BuildError, match=r"cublas_v2.h \(cuBLAS"):
        run("uses_cublas.cu")


def test_a_file_with_no_main_is_refused_with_what_to_run_instead(tmp_path):
    """A kernel file alone links without main(): one line saying so, exit 2 (it once read as
    "the program calls main, which the stand-in does not implement")."""
    kernel = tmp_path / "kernel_only.cu"
    kernel.write_text("__global__ void k(float* x) { x[threadIdx.x] = 1.f; }\n")
    done = CliRunner().invoke(cli, ["app", str(kernel)])
    assert done.exit_code == 2
    assert done.stderr == (
        "error: the files define no main(): perfcalc app runs a whole program; for a kernel alone "
        "use perfcalc run --source FILE --kernel NAME\n"
    )


def test_a_crash_in_host_code_is_the_programs_failure():
    report = run("host_crash.cu")
    assert report.exit_status == -11  # SIGSEGV
    assert "before the crash" in report.stdout
    assert len(report.launches) == 1


def test_the_cli_passes_the_output_through_and_writes_json(tmp_path):
    out = tmp_path / "r.json"
    done = CliRunner().invoke(cli, ["app", str(DATA / "vector_add.cu"), "-o", str(out), "--", "500"])
    assert done.exit_code == 0, done.output
    doc = json.loads(out.read_text())
    assert doc["exit_status"] == 0 and doc["program_args"] == ["500"] and len(doc["launches"]) == 1
    assert doc["launches"][0]["grid"] == [2, 1, 1]


def test_several_gpus_run_the_program_on_each_one_tidy_frame(tmp_path):
    """Issue 35: `app --gpu A --gpu B` runs the program once on each product, as on each machine:
    cooperative.cu sizes its grid from cudaGetDeviceProperties' SM count (132 on the H100 SXM, 108
    on the A100: devices/products.yaml) times the occupancy API's blocks per SM, so each GPU's
    row has its own grid. The CSV is one pandas frame with a gpu column and numeric columns; the
    JSON is the program and one report per GPU."""
    import pandas as pd

    import perfcalc

    out, doc_path = tmp_path / "app.csv", tmp_path / "app.json"
    for path in (out, doc_path):
        argv = ["app", str(DATA / "cooperative.cu"), "--gpu", "h100-sxm", "--gpu", "a100", "-o", str(path)]
        done = CliRunner().invoke(cli, argv)
        assert done.exit_code == 0, done.output
    frame = pd.read_csv(out)
    assert frame["gpu"].tolist() == ["h100-sxm", "a100"]
    for gpu, cc, sms in (("h100-sxm", "9.0", 132), ("a100", "8.0", 108)):
        row = frame[frame["gpu"] == gpu].iloc[0]
        blocks = perfcalc.occupancy(cc, 128, int(row["registers_per_thread"])).active_blocks_per_sm
        assert row["grid"] == blocks * sms, (gpu, row["grid"])
    for column in ("occupancy", "predicted_time_s", "global_store_requests", "registers_per_thread"):
        assert pd.api.types.is_numeric_dtype(frame[column]), column
    doc = json.loads(doc_path.read_text())
    assert [r["gpu"] for r in doc["runs"]] == ["h100-sxm", "a100"]
    assert doc["files"] == doc["runs"][0]["files"] and doc["program_args"] == []
    assert all(r["exit_status"] == 0 for r in doc["runs"])


def test_a_product_named_twice_or_unknown_is_refused_before_any_run():
    for gpus, message in ((["a100", "a100"], "--gpu repeats a product"), (["a100", "h1000"], "h1000")):
        argv = ["app", str(DATA / "vector_add.cu"), *[w for g in gpus for w in ("--gpu", g)]]
        done = CliRunner().invoke(cli, argv)
        assert done.exit_code == 2 and message in done.stderr and "PASS" not in done.output, done.output


def test_a_second_run_pays_no_compile(monkeypatch):
    run("managed.cu")
    from perfcalc.app import build

    def refuse(*_a, **_k):
        raise AssertionError("compiled again")

    monkeypatch.setattr(build, "run_bounded", refuse)
    assert "PASS" in run("managed.cu").stdout


def test_a_faulting_launch_is_a_sticky_error_the_program_sees():
    """CUDA Programming Guide, Error Checking: an illegal memory access corrupts the context; every
    later runtime call returns the error (a sticky one: cudaGetLastError does not clear it). The
    program checks only cudaMemcpy, so it fails with its own exit status, reported as its failure."""
    report = run("fault_sticky.cu")
    assert report.exit_status == 1
    assert report.stdout.strip() == (
        "copy: cudaErrorIllegalAddress; last error: cudaErrorIllegalAddress, then cudaErrorIllegalAddress"
    )
    (launch,) = report.launches
    assert launch.fault is not None and "out of bounds" in launch.fault


def test_a_race_is_reported_and_run_through_as_on_a_gpu():
    """A whole program is not stopped by a shared-memory race (a GPU is not; racecheck reports
    it): 8 warps write the same 2.0 into `scale`, each block sums 256 x 1.0 x 2.0 = 512."""
    report = run("benign_race.cu")
    assert report.exit_status == 0 and report.stdout.strip() == "PASS"
    (launch,) = report.launches
    assert launch.fault is None and launch.race is not None and "Race on __shared__" in launch.race


def test_a_write_just_past_an_allocation_is_reported_and_run_through_as_on_a_gpu():
    """HeCBench's bezier-surface passes on an H100 (benchmarks/hw/hecbench_failed_h100/) and
    failed here: a write one row past an allocation faulted. The driver maps device memory in
    2 MiB pages, so a GPU runs through it (overrun.cu on an H100: PASS, and memcheck reports
    the write, benchmarks/hw/barriers_overrun_h100/); a read through a null pointer faults
    there and here (cudaErrorIllegalAddress, sticky)."""
    report = run("overrun.cu")
    assert report.exit_status == 0
    assert report.stdout.strip() == "PASS cudaErrorIllegalAddress"
    first, second = report.launches
    assert first.fault is None and first.overrun is not None
    assert "cudaMalloc #0[400] (byte offset 400, 0 element(s) past the end" in first.overrun
    assert "by thread (100,0,0)" in first.overrun
    assert second.fault is not None and "out of bounds" in second.fault


def test_threads_that_return_before_a_barrier_release_it_as_on_an_h100():
    """HeCBench's wyllie (a barrier in a loop whose trip count differs by thread) failed here
    and passes on an H100. early_exit_barrier.cu is that shape: on an H100 it prints PASS and
    synccheck reports nothing (benchmarks/hw/barriers_overrun_h100/gpu_runs.txt), so nothing
    is kept as a race either."""
    report = run("early_exit_barrier.cu")
    assert report.exit_status == 0 and report.stdout.strip() == "PASS cudaSuccess"
    (launch,) = report.launches
    assert launch.fault is None and launch.race is None


def test_threads_at_two_barriers_run_through_and_are_reported():
    """two_barriers.cu: the H100 prints PASS; synccheck reports a barrier error (same file)."""
    report = run("two_barriers.cu")
    assert report.exit_status == 0 and report.stdout.strip() == "PASS cudaSuccess"
    (launch,) = report.launches
    assert launch.fault is None and "different __syncthreads()" in (launch.race or "")


def test_a_copy_from_a_null_pointer_is_refused_and_not_sticky():
    """HeCBench's lulesh crashed here (memmove from NULL in the stand-in) and runs on an H100.
    null_copy.cu on an H100 prints "cudaErrorInvalidValue cudaErrorInvalidValue cudaSuccess 5"
    (benchmarks/hw/barriers_overrun_h100/gpu_runs_null_copy.txt)."""
    report = run("null_copy.cu")
    assert report.exit_status == 0
    assert report.stdout.strip() == "cudaErrorInvalidValue cudaErrorInvalidValue cudaSuccess 5"


def test_host_code_that_calls_openmp_links():
    """openmp_host.cu calls omp_get_max_threads, which links only with libgomp; its pragmas run
    one thread at a time (no -fopenmp) and the sum is 2 * (0 + ... + 63) = 4032 either way."""
    report = run("openmp_host.cu")
    assert report.exit_status == 0 and report.stdout.strip() == "4032 1"


def test_the_stream_ordered_allocators_default_pool():
    """mempool.cu: the pool calls succeed (CUDA Runtime API) and the async allocation holds 3s."""
    report = run("mempool.cu")
    assert report.exit_status == 0 and report.stdout.strip() == "cudaSuccess cudaSuccess 3"


def test_a_pitched_3d_allocation():
    """malloc3d.cu: cudaMalloc3D's rows are `pitch` bytes apart, each element where the CUDA
    Runtime API's cudaPitchedPtr puts it; the program checks all 600 and prints PASS."""
    report = run("malloc3d.cu")
    assert report.exit_status == 0 and report.stdout.strip() == "PASS"


def test_a_refused_configuration_is_not_sticky():
    """CUDA Runtime API: cudaErrorInvalidConfiguration is returned for the bad launch alone; the
    next launch fills all 256 ints with 7 and the copy back succeeds."""
    report = run("bad_configuration.cu")
    assert report.exit_status == 0
    assert report.stdout.strip() == "cudaErrorInvalidConfiguration cudaSuccess 7"


def test_a_launch_past_the_time_limit_ends_the_run_out_of_time():
    """HeCBench's shuffle printed FAIL after a 60 s run: its launches that would pass the limit
    were answered cudaErrorInvalidConfiguration, which it never checks, and it went on. A run
    out of time ends out of time (the estimate, 2^32 threads at 1 ns each = 4.295 s, is in the
    module; the limit is what is left of the 3 s when the launch comes)."""
    from perfcalc.app.session import ProgramFailed

    with pytest.raises(
        ProgramFailed, match=r"past its time limit in launch 0 \(touch\): .*about 4.295 s .*limit of [0-3][.\d]* s \("
    ):
        run("too_long.cu", max_seconds=3)


def test_a_static_device_table_of_cudas_math_headers_is_placed_as_the_driver_does():
    """sin(double) reads __cudart_sin_cos_coeffs, which no host code registers; the 64 sines
    are within 1e-15 of the host's (CUDA Math API: sin has 2 ulp error, ~2.2e-16 here)."""
    report = run("double_sine.cu")
    assert report.exit_status == 0 and report.stdout.strip() == "PASS"
    (launch,) = report.launches
    assert launch.fault is None


def test_the_builds_own_device_code_options_are_passed_to_nvcc():
    """HeCBench's Makefiles give nvcc --expt-relaxed-constexpr (std::max, numeric_limits in a
    kernel) and --extended-lambda; without them nine of its programs did not compile under
    `perfcalc app` (benchmarks/results_corpus_app.md). relaxed_constexpr.cu's kernel writes
    max(tid, 2) + 1 (infinity > 0) for tid 0..3: 3 3 3 4. Without the option nvcc refuses it."""
    from perfcalc.errors import PerfcalcError

    with pytest.raises(PerfcalcError, match="expt-relaxed-constexpr"):
        run("relaxed_constexpr.cu")
    report = run("relaxed_constexpr.cu", nvcc_options=["--expt-relaxed-constexpr"])
    assert report.exit_status == 0 and report.stdout.split() == ["3", "3", "3", "4"]
    done = CliRunner().invoke(cli, ["app", str(DATA / "relaxed_constexpr.cu"), "--expt-relaxed-constexpr", "-o", "-"])
    assert done.exit_code == 0, done.output


@pytest.mark.parametrize("option", ["-use_fast_math", "--use_fast_math", "-ftz=true"])
def test_the_builds_fast_math_reaches_the_device_code(option):
    """32 of HeCBench's Makefiles build with -use_fast_math, which implies -ftz=true (nvcc's
    documentation): a single-precision denormal result is flushed to zero. fast_math.cu quarters
    2e-38 (5e-39 < FLT_MIN): kept without the option, 0 with it. Dropped, as it was, aidw's powf
    and division ran the accurate sequences the H100's build does not have (7.9x its flops). The
    H100 prints the same (benchmarks/hw/flops_rules_h100/fast_math.txt)."""
    assert run("fast_math.cu", capture=True).stdout.strip() == "kept"
    assert run("fast_math.cu", capture=True, nvcc_options=[option]).stdout.strip() == "flushed"


def test_nvccs_one_dash_options_reach_nvcc_from_the_command_line():
    """Makefiles write -use_fast_math and -ftz=true with one dash; on perfcalc's command line
    click would split them into short options (-f is --format). main() gives them the two dashes
    nvcc reads the same way, before `--` only."""
    import subprocess
    import sys

    from perfcalc.cli.program import with_long_nvcc_options

    assert with_long_nvcc_options(["app", "k.cu", "-ftz=true", "-use_fast_math", "-o", "x", "--", "-ftz=true"]) == [
        "app",
        "k.cu",
        "--ftz=true",
        "--use_fast_math",
        "-o",
        "x",
        "--",
        "-ftz=true",
    ]
    done = subprocess.run(
        [sys.executable, "-m", "perfcalc", "app", str(DATA / "fast_math.cu"), "-ftz=true"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "flushed"


def test_a_one_dash_floating_point_option_with_a_value_nvcc_does_not_take_is_refused_in_one_line():
    """`-ftz=maybe` before `--`: one line naming the word and the options taken, exit 2 (click
    read it as perfcalc's -f with `tz=maybe` before); after `--` it is the program's."""
    import subprocess
    import sys

    from perfcalc.cli.program import with_long_nvcc_options
    from perfcalc.errors import InputError

    with pytest.raises(InputError, match="'-ftz=maybe' is not one perfcalc app passes"):
        with_long_nvcc_options(["app", "k.cu", "-ftz=maybe"])
    assert with_long_nvcc_options(["app", "k.cu", "--", "-ftz=maybe"]) == ["app", "k.cu", "--", "-ftz=maybe"]
    done = subprocess.run(
        [sys.executable, "-m", "perfcalc", "app", str(DATA / "fast_math.cu"), "-ftz=maybe"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "-ftz=maybe" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize(
    "option",
    ["-ccbin=/tmp", "--keep-dir=/tmp", "-o", "-rdc=true", "--expt-relaxed-constexprx", "-ftz=maybe", "--use-fast-math"],
)
def test_an_nvcc_option_that_would_change_the_build_is_refused_by_name(option):
    from perfcalc.errors import InputError

    with pytest.raises(InputError, match="nvcc option .* is not one perfcalc app passes"):
        run("vector_add.cu", "10", nvcc_options=[option])


def test_the_command_line_reads_sources_then_nvcc_options_then_the_programs_arguments():
    """Click takes `--` away: the words come in order, and the first word that is neither a
    source nor an nvcc option perfcalc passes on starts the program's arguments."""
    from perfcalc.cli.program import _split

    assert _split(["--extended-lambda", "a.cu", "b.cpp", "-std=c++20", "x", "y.cu", "-std=c++17"], []) == (
        ["a.cu", "b.cpp"],
        ["--extended-lambda", "-std=c++20"],
        ["x", "y.cu", "-std=c++17"],
    )
    assert _split(["k.cu", "--keep-dir=/tmp", "1"], []) == (["k.cu"], [], ["--keep-dir=/tmp", "1"])
    # a `--` among the program's own arguments (click took the first one) stays theirs
    assert _split(["k.cu", "100", "--", "x"], []) == (["k.cu"], [], ["100", "--", "x"])


def test_output_past_a_mebibyte_is_kept_as_head_and_tail_not_on_disk():
    """Issue 36: a program that writes without end filled the disk (its stdout went to a
    temporary file at ~0.4 GB/s until the 600 s limit). much_output.cu writes 655,360 numbered
    lines of 64 bytes (40 MiB): the report keeps the first 1 MiB (16,384 whole lines) and the last
    64 KiB (1,024 whole lines), and says how much it left out (40 MiB - 1 MiB - 64 KiB = 38.94 MiB)."""
    report = run("much_output.cu")
    assert report.exit_status == 0 and report.stderr == "done\n"
    lines = report.stdout.splitlines()
    assert lines[0].startswith("line 00000000") and lines[16383].startswith("line 00016383")
    assert lines[16385] == "[perfcalc: 38.94 MiB of this output left out here]"
    assert lines[-1].startswith("line 00655359") and lines[-1024].startswith("line 00654336")
    assert any("wrote 40 MiB to stdout" in note for note in report.notes)


def behave(*words: str, **options):  # type: ignore[no-untyped-def]
    return run("behaviours.cu", *words, max_seconds=20, **options)


def test_a_zero_grid_or_block_is_an_invalid_value_and_not_sticky():
    """On the GPU (CUDA 13, benchmarks/hw/app_edge_cases/edge.txt) <<<0, 32>>> and <<<1, 0>>>
    both answer cudaErrorInvalidValue (1) and the next launch runs; perfcalc ran grid 0 as a
    launch of nothing and answered 0."""
    report = behave("launch", "0", "32", "launch", "2", "0", "launch", "3", "64")
    assert report.stdout.splitlines() == ["launch 0 32: 1 0", "launch 2 0: 1 0", "launch 3 64: 0 0", "end"]
    assert len(report.launches) == 1


def test_a_copy_past_its_allocation_is_refused_whole_not_sticky():
    """The GPU refuses a cudaMemcpy whose device side runs past its allocation with
    cudaErrorInvalidValue (1), copies nothing and stays usable (edge.txt); perfcalc copied
    100,000 bytes out of a 64-byte allocation and the host program crashed (SIGSEGV)."""
    report = behave("memcpy", "100000", "memcpy", "-5", "memcpy", "64")
    assert report.exit_status == 0
    assert report.stdout.splitlines() == ["memcpy 100000: 1", "memcpy -5: 1", "memcpy 64: 0", "end"]


def test_cuda_in_a_forked_child_is_an_initialization_error_and_the_parent_goes_on():
    """After the parent initialised CUDA, a forked child's cudaMalloc, launch and synchronize
    answer cudaErrorInitializationError (3) on the GPU and the parent goes on (edge.txt). Three
    children shared perfcalc's channel, so the run hung to its time limit."""
    report = behave("launch", "1", "32", "fork", "3", "launch", "2", "32")
    lines = report.stdout.splitlines()
    assert report.exit_status == 0 and lines[0] == "launch 1 32: 0 0" and lines[-2:] == ["launch 2 32: 0 0", "end"]
    assert sorted(lines[1:-2]) == ["launch 1 32: 3 3"] * 3
    assert len(report.launches) == 2
