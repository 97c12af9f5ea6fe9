"""`perfcalc tune` (issue 34): the space, the sweep on every backend, resuming, the best point.

The expected values are derived independently in each test: the points of a range from its
definition, the best point and its margin from the table's own rows (the smallest time and the
next), the launch limit from the CUDA Programming Guide (1,024 threads per block on every CC
from 2.0). Equality across backends is byte for byte on the CSV, the table a user keeps.
"""

from __future__ import annotations

import csv
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from perfcalc.errors import InputError
from perfcalc.tune import Sweep, space_from, tune
from perfcalc.tune.space import parse_axis

ROOT = Path(__file__).resolve().parents[1]
GEMM = ROOT / "examples" / "tune" / "gemm_tiled.cu"
PERFCALC = [sys.executable, "-m", "perfcalc"]
# a small sweep of the example GEMM: 6 points on 2 products, N=64 so a point runs in about a second
AXES = ["BM=16,32", "TM=1,2,4", "BN=32", "TN=2", "BK=8"]
LAUNCH = ["--grid", "N/BN,N/BM", "--block", "BN/TN,BM/TM", "-p", "N=64"]
LAUNCH += [f"--array={a}=float32:N*N" for a in "ABC"]
GPUS = ["--gpu", "h100-sxm", "--gpu", "l4"]


def _sweep() -> Sweep:
    return Sweep(
        str(GEMM),
        "gemm_tiled",
        "N/BN,N/BM",
        "BN/TN,BM/TM",
        ("h100-sxm", "l4"),
        tuple(f"{a}=float32:N*N" for a in "ABC"),
        {"N": "64"},
    )


def _cli(*args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PERFCALC, "tune", str(GEMM), "--kernel", "gemm_tiled", *args], capture_output=True, text=True, **kw
    )  # type: ignore[call-overload, no-any-return]


def _space_args() -> list[str]:
    return [w for a in AXES for w in ("--space", a)]


def test_ranges_and_lists_give_the_points_their_definition_says() -> None:
    assert parse_axis("BLOCK=64..1024:*2") == ("BLOCK", (64, 128, 256, 512, 1024))
    assert parse_axis("K=0..12:+4") == ("K", (0, 4, 8, 12))
    assert parse_axis("U=1..4") == ("U", (1, 2, 3, 4))
    assert parse_axis("T=float, double") == ("T", ("float", "double"))
    space = space_from(["A=1,2,3", "B=10,20"], ["A*B != 40"])
    # the product in the order given, the last axis fastest, A*B == 40 (A=2, B=20) dropped
    assert [tuple(p.values()) for p in space.points()] == [(1, 10), (1, 20), (2, 10), (3, 10), (3, 20)]


@pytest.mark.parametrize(
    "bad, fragment",
    [
        ("BLOCK", "expected NAME=VALUES"),
        ("BLOCK=1024..64", "runs backwards"),
        ("BLOCK=0..64:*2", "never reaches"),
        ("2X=1,2", "C identifier"),
        ("B=1,1", "repeats a value"),
    ],
)
def test_a_bad_axis_is_one_line_exit_2(bad: str, fragment: str) -> None:
    done = _cli("--space", bad, "--gpu", "h100-sxm")
    assert done.returncode == 2
    assert fragment in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_an_unknown_name_in_the_launch_fails_before_any_point_runs() -> None:
    done = _cli("--space", "BM=16", "--grid", "M/BM", "--gpu", "h100-sxm")
    assert done.returncode == 2 and "unknown name 'M'" in done.stderr, done.stderr


@pytest.mark.slow
def test_pool_serial_and_ray_give_the_same_table_and_the_best_is_the_fastest_row(tmp_path: Path) -> None:
    tables = {}
    for backend in ("process", "serial"):
        done = _cli(*_space_args(), *LAUNCH, *GPUS, "--backend", backend, "--workers", "2", "-f", "csv")
        assert done.returncode == 0, done.stderr
        tables[backend] = done.stdout
    assert tables["process"] == tables["serial"]
    rows = list(csv.DictReader(io.StringIO(tables["process"])))
    assert len(rows) == 6 * 2 and {r["status"] for r in rows} == {"ok"}
    # the library's best point per product is the smallest time in the table, its margin the next
    report = tune(_sweep(), space_from(AXES), backend="serial")
    for best in report.best:
        times = sorted((float(r["time_s"]), int(r["point"])) for r in rows if r["gpu"] == best.gpu)
        assert (best.time_s, best.point) == times[0]
        assert best.margin == pytest.approx(times[1][0] / times[0][0] - 1, rel=1e-12)


@pytest.mark.slow
def test_a_local_ray_cluster_gives_the_pools_table() -> None:
    ray = pytest.importorskip("ray", reason="Ray is in the dev extra; without it this backend is tested below")
    from perfcalc.report.render import render
    from perfcalc.report.tune_tables import points_table

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=40)  # logging.ERROR
    try:
        on_ray = tune(_sweep(), space_from(AXES), backend="ray")
    finally:
        ray.shutdown()
    on_pool = tune(_sweep(), space_from(AXES), backend="process", workers=2)
    assert render([points_table(on_ray)], "csv") == render([points_table(on_pool)], "csv")


def test_without_ray_the_ray_backend_is_one_line_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ModuleNotFoundError
    with pytest.raises(InputError, match=r"perfcalc\[ray\]"):
        tune(_sweep(), space_from(["BM=16", "TM=1", "BN=32", "TN=2", "BK=8"]), backend="ray")


@pytest.mark.slow
def test_a_run_killed_half_way_resumes_to_the_same_table(tmp_path: Path) -> None:
    whole = _cli(*_space_args(), *LAUNCH, *GPUS, "--backend", "serial", "-f", "csv")
    assert whole.returncode == 0, whole.stderr
    results = tmp_path / "sweep.jsonl"
    command = [*PERFCALC, "tune", str(GEMM), "--kernel", "gemm_tiled", *_space_args(), *LAUNCH, *GPUS]
    command += ["--backend", "serial", "--results", str(results), "-f", "csv"]
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and (not results.exists() or results.read_text().count("\n") < 3):
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGKILL)  # header + 2 points written: killed half-way
    child.wait()
    kept = results.read_text().count("\n") - 1
    assert 2 <= kept < 6
    with open(results, "a") as f:
        f.write('{"point": 5, "rows": [')  # a line cut short by the kill is dropped, its point run again
    resumed = subprocess.run([*command], capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout == whole.stdout
    assert f"{kept} of 6 points read back" in resumed.stderr


def test_a_results_file_of_another_sweep_is_refused(tmp_path: Path) -> None:
    results = tmp_path / "other.jsonl"
    results.write_text('{"format": "perfcalc-tune-1", "sweep": "0123456789abcdef"}\n')
    done = _cli(*_space_args(), *LAUNCH, "--gpu", "h100-sxm", "--results", str(results))
    assert done.returncode == 2 and "holds another sweep" in done.stderr, done.stderr


@pytest.mark.slow
def test_a_block_over_1024_threads_cannot_launch_and_is_reported_so() -> None:
    # BN/TN * BM/TM = 64 * 32 = 2048 threads: over the 1,024 per block of every CC since 2.0
    done = _cli(
        "--space", "BM=32", "--space", "TM=1,2", "--space", "BN=64", "--space", "TN=1", "--space", "BK=8",
        *LAUNCH, "--gpu", "h100-sxm", "--backend", "serial", "-f", "csv",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert [r["status"] for r in rows] == ["cannot launch", "ok"]
    assert "1024" in rows[0]["note"]


def test_a_space_file_gives_the_same_points_as_the_options(tmp_path: Path) -> None:
    yaml_file = tmp_path / "space.yaml"
    yaml_file.write_text("BM: [16, 32]\nTM: 1..4:*2\nwhere: BM/TM >= 8\n")
    from_file = space_from([], [], yaml_file).points()
    from_options = space_from(["BM=16,32", "TM=1,2,4"], ["BM/TM >= 8"]).points()
    assert from_file == from_options
    # BM/TM >= 8 keeps (16,1) (16,2) (32,1) (32,2) (32,4): 16/4 = 4 is dropped
    assert [(p["BM"], p["TM"]) for p in from_file] == [(16, 1), (16, 2), (32, 1), (32, 2), (32, 4)]


@pytest.mark.slow
def test_let_names_a_size_for_the_expressions_that_is_no_kernel_argument() -> None:
    """The corpus's templated matmul takes wA and wB, not N: --let N=64 sizes the grid and arrays
    without being passed to the kernel (a -p N would be refused: no such parameter)."""
    source = ROOT / "tests" / "data" / "cuda_corpus" / "matmul_template.cu"
    command = [*PERFCALC, "tune", str(source), "--kernel", "MatrixMulCUDA<BLOCK>", "--space", "BLOCK=8,16"]
    command += ["--let", "N=64", "--grid", "N/BLOCK,N/BLOCK", "--block", "BLOCK,BLOCK", "-p", "wA=N", "-p", "wB=N"]
    command += [f"--array={a}=float32:N*N" for a in "CAB"] + ["--gpu", "h100-sxm", "--backend", "serial", "-f", "csv"]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(done.stdout)))
    assert [(r["BLOCK"], r["status"]) for r in rows] == [("8", "ok"), ("16", "ok")]
