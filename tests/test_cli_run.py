"""`perfcalc run` and `perfcalc kernels` through typer's CliRunner (and one real subprocess)."""

import csv
import io
import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from perfcalc.cli import app
from perfcalc.cli import run as run_cli
from perfcalc.cli.progress import Progress

runner = CliRunner()

SCALE = """__global__ void scale(float* x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = a * x[i];
}
"""


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def one_line_error(result, *fragments):
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)


def test_run_json_has_the_issue_fields():
    """Issue #4 item 6: counters, predicted (same names), result_check (passed, max_rel_error),
    launch and occupancy. Naive matmul W = 64 at CC 9.0: 2*64^3/32 = 16384 load requests at
    2 sectors each (derivation in test_predict.py)."""
    result = invoke("run", "matmul_naive", "--cc", "9.0", "--param", "Width=64", "--format", "json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert {"counters", "predicted", "result_check", "launch", "occupancy"} <= set(doc)
    assert doc["result_check"]["passed"] is True and doc["result_check"]["max_rel_error"] < 1e-4
    assert doc["counters"]["global_load_requests"] == 16384
    assert doc["counters"]["global_load_transactions"] == 32768
    assert set(doc["predicted"]) <= set(doc["counters"])
    assert all(doc["match"].values()) and doc["predicted_exact"] is True
    assert doc["launch"]["grid"] == [4, 4] and doc["launch"]["block"] == [16, 16]
    assert doc["launch"]["threads"] == 4096 and doc["launch"]["warps"] == 128
    assert doc["model"]["cgma"] == 1.0  # seed 003: 'The CGMA ratio is just 1'
    occ = doc["occupancy"]
    assert occ["registers_per_thread"] == 32 and 0 < occ["occupancy"] <= 1
    lines = {s["line"]: s for s in doc["per_site"]}
    assert lines[10]["counters"]["global_load_requests"] == 16384 == lines[10]["predicted"]["global_load_requests"]


@pytest.mark.parametrize("cc", ["1.0", "2.0"])
def test_run_prediction_matches_at_old_ccs(cc):
    result = invoke("run", "matmul_tiled", "--cc", cc, "-p", "Width=32", "-f", "json")
    doc = json.loads(result.stdout)
    assert all(doc["match"].values()) and doc["result_check"]["passed"]
    assert doc["cc"] == cc


def test_run_table_shows_match_column_and_sites():
    result = invoke("run", "transpose_shared", "-p", "n=64", "--cc", "8.6")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert any(line.split()[:1] == ["prediction"] and line.endswith("matches the run") for line in out.splitlines())
    assert "Counters (whole launch)" in out and "Memory counters per source line" in out
    # the 32-way column read of seed 003's 32x32 tile: 32 wavefronts for each of 128 warps
    row = next(
        line
        for line in out.splitlines()
        if "tile[threadIdx.x][threadIdx.y]" in line and "shared_load_wavefronts" in line
    )
    assert row.split()[-3:] == ["4096", "4096", "yes"]


def test_run_csv_and_markdown_and_output_file(tmp_path):
    result = invoke("run", "copy_offset", "-p", "n=256", "-f", "csv")
    assert result.exit_code == 0
    counters = list(csv.DictReader(io.StringIO(result.stdout)))  # one table: the counters (issue #11)
    load = next(r for r in counters if r["counter"] == "global_load_transactions")
    assert load["simulated"] == load["predicted"] == str(8 * 5)  # offset 1: 5 sectors per warp
    md = invoke("run", "copy_offset", "-p", "n=256", "-f", "markdown")
    assert "| counter " in md.stdout
    target = tmp_path / "run.json"
    written = invoke("run", "aos_float3", "-p", "n=64", "-f", "json", "-o", target)
    assert written.exit_code == 0 and written.stdout == ""
    assert json.loads(target.read_text())["result_check"]["passed"] is True


def test_run_user_source_with_arrays(tmp_path):
    """A user source: `--array x=float32:1000` gives random seeded data; no reference, no model.
    At CC 9.0 the 1000-element load and store are 32 requests and ceil(4000/32) = 125 sectors;
    one float multiply per live thread = 1000 flops; the one partial warp diverges at i < n."""
    src = tmp_path / "scale.cu"
    src.write_text(SCALE)
    result = invoke(
        "run",
        "--source",
        src,
        "--kernel",
        "scale",
        "--grid",
        "4",
        "--block",
        "256",
        "--array",
        "x=float32:1000",
        "-p",
        "a=2.5",
        "-p",
        "n=1000",
        "-f",
        "json",
    )
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    c = doc["counters"]
    assert (c["global_load_requests"], c["global_load_transactions"]) == (32, 125)
    assert (c["global_store_requests"], c["global_store_transactions"]) == (32, 125)
    assert c["flops"] == 1000 and c["divergent_branches"] == 1
    assert doc["predicted"] is None and doc["result_check"]["passed"] is None
    assert doc["source"] == str(src)


def test_kernel_fault_is_one_line_exit_2(tmp_path):
    """Seed 001's pattern: an unguarded read past the array in the last block (1000 elements,
    4 x 256 threads): the first bad index is x[1000], thread 232 of block 3, line 4."""
    src = tmp_path / "oob.cu"
    src.write_text(SCALE.replace("    if (i < n)\n", ""))
    result = invoke(
        "run",
        "--source",
        src,
        "--kernel",
        "scale",
        "--grid",
        "4",
        "--block",
        "256",
        "--array",
        "x=float32:1000",
        "-p",
        "a=2.0",
        "-p",
        "n=1000",
    )
    one_line_error(result, "x[1000]", f"{src}:4", "(232,0,0)", "block (3,0,0)")


def test_endless_loop_of_seed_003_is_caught(tmp_path):
    """Seed 003's 'better' reduction verbatim: `stride >> 1` never changes stride."""
    src = tmp_path / "endless.cu"
    src.write_text(
        "__global__ void reduce(float* partialSum)\n{\n"
        "    unsigned int t = threadIdx.x;\n"
        "    for (unsigned int stride = blockDim.x; stride > 1; stride >> 1)\n    {\n"
        "        __syncthreads();\n        if (t < stride)\n"
        "            partialSum[t] += partialSum[t+stride];\n    }\n}\n"
    )
    result = invoke(
        "run",
        "--engine",
        "source",
        "--source",
        src,
        "--kernel",
        "reduce",
        "--grid",
        "1",
        "--block",
        "32",
        "--array",
        "partialSum=float32:64",
        "--iteration-cap",
        "50",
    )
    one_line_error(result, f"{src}:4")


def test_missing_barrier_race_is_one_line_exit_2(tmp_path):
    """Warp 0 reads buf[32..63], written by warp 1 one line earlier with no __syncthreads()."""
    src = tmp_path / "race.cu"
    src.write_text(
        "__global__ void shift(float* out, const float* in)\n{\n"
        "    __shared__ float buf[64];\n    int t = threadIdx.x;\n"
        "    buf[t] = in[t];\n    out[t] = buf[(t + 32) % 64];\n}\n"
    )
    result = invoke(
        "run",
        "--engine",
        "source",
        "--source",
        src,
        "--kernel",
        "shift",
        "--grid",
        "1",
        "--block",
        "64",
        "--array",
        "out=float32:64",
        "--array",
        "in=float32:64",
    )
    one_line_error(result, "buf[32]", "warp 0", "warp 1", f"{src}:6", "thread (0,0,0)")


def test_partial_barrier_is_one_line_exit_2(tmp_path):
    """__syncthreads() inside `if (threadIdx.x < 16)`: reached by 16 of 32 threads."""
    src = tmp_path / "partial.cu"
    src.write_text(
        "__global__ void partial(float* x)\n{\n    if (threadIdx.x < 16)\n"
        "        __syncthreads();\n    x[threadIdx.x] = 1.0f;\n}\n"
    )
    result = invoke(
        "run",
        "--engine",
        "source",
        "--source",
        src,
        "--kernel",
        "partial",
        "--grid",
        "1",
        "--block",
        "32",
        "--array",
        "x=float32:32",
    )
    one_line_error(result, "16 of 32", f"{src}:4", "thread (16,0,0)")


@pytest.mark.parametrize(
    "args,fragments",
    [
        (["run", "nope"], ["unknown kernel 'nope'", "matmul_naive"]),
        (["run", "matmul_naive", "-p", "Width=100"], ["Width=100", "multiple of TILE_WIDTH"]),
        (["run", "matmul_naive", "-p", "width=64"], ["no parameter 'width'"]),
        (["run", "matmul_naive", "-p", "Width"], ["expected NAME=VALUE"]),
        (["run", "transpose_naive", "--cc", "1.0"], ["1024 threads", "max_threads_per_block"]),
        (["run", "matmul_naive", "--cc", "4.0"], ["unknown compute capability"]),
        (["run"], ["either a catalog KERNEL"]),
        (["run", "matmul_naive", "--grid", "4"], ["go with --source"]),
        (["run", "--source", "x.cu"], ["--grid is required with --source"]),
        (["run", "matmul_naive", "-o", "/nonexistent/dir/out.json"], ["does not exist"]),
        (["kernels", "nope"], ["unknown kernel 'nope'"]),
        (["run", "matmul_naive", "--cc", "2.0", "--regs", "64"], ["--regs 64", "0 to 63"]),
    ],
)
def test_bad_input_is_one_line_exit_2(args, fragments):
    one_line_error(invoke(*args), *fragments)


def test_bad_array_option(tmp_path):
    src = tmp_path / "scale.cu"
    src.write_text(SCALE)
    result = invoke(
        "run",
        "--source",
        src,
        "--kernel",
        "scale",
        "--grid",
        "1",
        "--block",
        "32",
        "--array",
        "x=float33:10",  # (`half` was the example here; it is C's name of float16 now, issue 35)
    )
    one_line_error(result, "--array 'x=float33:10'", "float32")


def test_kernels_lists_the_catalog_and_shows_one():
    listing = invoke("kernels", "-f", "csv")
    rows = list(csv.DictReader(io.StringIO(listing.stdout)))
    assert len(rows) == 13 and rows[0]["kernel"] == "matmul_naive"
    assert rows[0]["params"] == "Width=64, TILE_WIDTH=16"
    one = invoke("kernels", "matmul_tiled", "-f", "json")
    spec = json.loads(one.stdout)
    assert spec["kernel"] == "MatrixMulKernel" and "__syncthreads();" in spec["source"]
    table = invoke("kernels", "convolve")
    assert "#define THREADS_PER_BLK 128" in table.stdout


def test_user_catalog_file(small_catalog):
    """--catalog points run and kernels at a user's own file (same schema, same validation)."""
    path = small_catalog
    listing = invoke("kernels", "--catalog", path, "-f", "csv")
    assert "my_copy" in listing.stdout
    result = invoke("run", "my_copy", "--catalog", path, "-p", "n=64", "-f", "json")
    assert json.loads(result.stdout)["source"] == f"{path}:my_copy"


def test_progress_bar_only_on_a_terminal(monkeypatch):
    """CliRunner's stderr is no terminal, so no progress option is passed to the core there; on
    a terminal run_kernel gets the bar (tests/test_progress.py) as its progress callback."""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert run_cli._progress() is None
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert isinstance(run_cli._progress(), Progress)


def test_real_subprocess():
    out = subprocess.run(
        [sys.executable, "-m", "perfcalc", "run", "copy_stride", "-p", "n=64", "-f", "json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    doc = json.loads(out.stdout)
    assert doc["result_check"]["passed"] and all(doc["match"].values())


def test_kernels_source_keeps_its_indentation():
    """#12: the source listing kept no leading blanks (tabulate strips them by default)."""
    from perfcalc.specs.kernels import get_kernel

    out = CliRunner().invoke(app, ["kernels", "reduce_sequential", "--table", "source"]).stdout
    source = get_kernel("reduce_sequential").source.splitlines()
    assert source[2].startswith("    extern")  # the catalog's own indentation
    row = next(line for line in out.splitlines() if line.startswith("3 "))
    assert row.endswith(source[2]) and row[: -len(source[2])].strip() == "3"


def test_a_table_of_unnamed_columns_prints_no_empty_header():
    """#12: the caches and summary tables printed an empty header line and a rule above their rows."""
    out = CliRunner().invoke(app, ["run", "copy_offset", "-p", "n=4096", "--table", "summary"]).stdout
    lines = out.splitlines()
    assert lines[1] == "" and lines[2].split()[0] != "" and not set(lines[2]) <= {"-", " "}


def test_source_engine_runs_a_files_only_kernel_without_kernel(tmp_path):
    """#8 item 2: with no --kernel and one kernel in the file, that one (the C engine too)."""
    args = ["--grid", "4", "--block", "128", "--dynamic-shared", "1024"]
    args += ["--array", "input=float32:1024", "--array", "output=float32:4", "-f", "json"]
    source = ["run", "--engine", "source", "--source", "tests/data/cuda/reduce_fixed.cu"]
    named = json.loads(CliRunner().invoke(app, [*source, "--kernel", "reduceSeed", *args]).stdout)
    only = CliRunner().invoke(app, [*source, *args])
    assert only.exit_code == 0, only.stderr
    assert json.loads(only.stdout) == named and named["kernel"] == "reduceSeed"
    two = tmp_path / "two.cu"
    two.write_text("__global__ void a(float* x) { x[0] = 1; }\n__global__ void b(float* x) { x[0] = 2; }\n")
    result = CliRunner().invoke(
        app,
        ["run", "--engine", "source", "--source", str(two), "--grid", "1", "--block", "1", "--array", "x=float32:1"],
    )
    assert result.exit_code == 2
    assert result.stderr == f"error: {two} has 2 __global__ functions (a, b): name the one to run\n"


def test_several_gpus_are_one_tidy_frame_with_a_gpu_column(tmp_path):
    """Issue 35: run on two products, its CSV one pandas frame, one row per GPU, numeric columns,
    the counters kept. copy_offset with n = 65536, offset 1: 2048 warps each read 32 floats
    starting one element off a 128-byte line, so 5 sectors a request (reference/memory.md 1.5)."""
    import pandas as pd

    out = tmp_path / "run.csv"
    r = CliRunner().invoke(
        app, ["run", "copy_offset", "-p", "n=65536", "--gpu", "h100-sxm", "--gpu", "a100", "-o", str(out)]
    )
    assert r.exit_code == 0, r.output
    frame = pd.read_csv(out)
    assert frame["gpu"].tolist() == ["h100-sxm", "a100"]
    assert frame["global_load_requests"].tolist() == [2048, 2048]
    assert frame["global_load_transactions"].tolist() == [5 * 2048, 5 * 2048]
    for column in ("occupancy", "predicted_time_s", "l2_hit_rate", "dram_bytes_read"):
        assert pd.api.types.is_numeric_dtype(frame[column]), column
