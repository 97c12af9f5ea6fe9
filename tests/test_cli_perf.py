"""`perfcalc matmul`, `perfcalc roofline`, `perfcalc report` through typer's CliRunner.

Expected numbers are derived in each docstring from seed 000's kernels, the memory rules of
../shared/reference/memory.md and devices/products.yaml.
"""

from __future__ import annotations

import csv
import json
import struct

import pytest
from typer.testing import CliRunner

from perfcalc.cli import app
from perfcalc.report.perf_tables import MATMUL_ROW_KEYS
from perfcalc.specs.kernels import catalog

runner = CliRunner()


def _ok(args):
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result


def _error(args):
    result = runner.invoke(app, args)
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "Traceback" not in result.output
    return result.stderr


def test_matmul_csv_for_a_spreadsheet(tmp_path):
    """Issue #5: `matmul --width 1024 --gpu g80 --no-simulate --format csv --output t.csv`.

    Seed 000: 4096 blocks, CGMA 1 and 16. CC 1.0 coalescing (memory.md 1.1): in the naive kernel
    the 16 lanes of a half-warp read one Md word (same Row: not 'k-th thread, k-th word') -> 16
    transactions of 32 B, and 16 consecutive aligned Nd words -> 1 of 64 B; W^3/16 half-warp
    executions per load -> 2 x 2^26 requests, 17 x 2^26 transactions, 576 x 2^26 bytes."""
    target = tmp_path / "t.csv"
    result = _ok(
        ["matmul", "--width", "1024", "--gpu", "g80", "--no-simulate", "--format", "csv", "--output", str(target)]
    )
    assert result.stdout == ""
    with target.open(newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    header = list(rows[0])
    flat = ["gpu", "cc", *(k for k in MATMUL_ROW_KEYS if k not in ("predicted", "simulated", "engine_counts"))]
    assert header[: len(flat)] == flat and rows[0]["gpu"] == "g80"
    assert "predicted_global_load_transactions" in header and "result_check" in header
    naive, tiled = rows
    assert (naive["variant"], tiled["variant"]) == ("naive", "tiled")
    assert int(naive["blocks"]) == int(tiled["blocks"]) == 4096
    assert float(naive["cgma"]) == 1 and float(tiled["cgma"]) == 16
    assert int(naive["flops_total"]) == 2 * 1024**3
    # the roofline's intensity counts the bytes the transactions move: 576 x 2^26 loaded, and the
    # W^2 stores as 2^16 half-warp writes of 64 B (2^22 B): 2^31 / (576 x 2^26 + 2^22) flop/B
    assert float(naive["intensity_flop_per_byte"]) == pytest.approx(2**31 / (576 * 2**26 + 2**22))
    assert float(naive["bandwidth_bound_gflops"]) == pytest.approx(86.4 * 2**31 / (576 * 2**26 + 2**22))
    assert float(naive["intensity_flop_per_requested_byte"]) == pytest.approx(0.25 * 2048 / 2049)
    assert float(naive["cgma_bound_gflops"]) == pytest.approx(21.6)
    assert float(tiled["compute_bound_gflops"]) == 345.6
    assert int(naive["predicted_global_load_requests"]) == 2 * 2**26
    assert int(naive["predicted_global_load_transactions"]) == 17 * 2**26
    assert int(naive["predicted_global_load_bytes"]) == 576 * 2**26
    assert naive["simulated_flops"] == ""  # not run
    assert naive["limiters"] == "warps;registers"


def test_matmul_json_rows_have_exactly_the_issue_keys():
    """Issue #5: {"rows": [...]}, one row per variant, keys exactly as listed; issue #9 adds the
    GPU and CC each row is for."""
    data = json.loads(_ok(["matmul", "--width", "256", "--gpu", "v100", "--no-simulate", "--format", "json"]).stdout)
    assert list(data) == ["rows"]
    assert [r["variant"] for r in data["rows"]] == ["naive", "tiled"]
    for row in data["rows"]:
        assert tuple(row) == ("gpu", "cc", *MATMUL_ROW_KEYS)
        assert (row["gpu"], row["cc"]) == ("v100", "7.0")
        assert row["simulated"] is None and row["result_check"] is None
        assert row["predicted"]["flops"] == 2 * 256**3
        assert row["roofline_bound"] == "memory" and row["predicted_time_s"] > 0


def test_matmul_with_cc_only_has_no_product_figures():
    """Issue #5: with --cc only there is no product; bandwidth/peak columns are None."""
    data = json.loads(_ok(["matmul", "--width", "128", "--cc", "8.6", "--no-simulate", "--format", "json"]).stdout)
    for row in data["rows"]:
        for key in ("bandwidth_bound_gflops", "compute_bound_gflops", "attainable_gflops", "bound", "predicted_time_s"):
            assert row[key] is None
        assert row["occupancy"] > 0
    table = _ok(["matmul", "--width", "128", "--cc", "8.6", "--no-simulate"]).stdout
    assert "No GPU product given" in table


def test_matmul_on_the_g80_explain_shows_formulas():
    """Issue #5: on the seeds' G80, --explain prints each formula."""
    out = _ok(["matmul", "--width", "1024", "--gpu", "g80", "--no-simulate", "--explain"]).stdout
    assert "GeForce 8800 GTX (CC 1.0)" in out
    assert "2 x W^3 = 2 x 1024^3" in out
    assert "(86.4 / 4) x 16" in out and "347.6" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--width", "100", "--tile", "16"], "width 100 is not a multiple of tile 16"),
        (["--gpu", "gtx9999"], "unknown GPU 'gtx9999'"),
        (["--gpu", "v100", "--cc", "9.0"], "--gpu v100 is CC 7.0 (devices/products.yaml) but --cc"),
        (["--cc", "9.0", "--latency-cycles", "0"], "memory latency 0 cycles must be a finite number > 0"),
        (["--cc", "9.0", "--latency-cycles", "inf"], "--latency-cycles inf is not a finite number"),
        (["--tile", "32", "--cc", "1.0"], "max_threads_per_block 512"),
    ],
)
def test_matmul_bad_input_is_one_line(args, message):
    assert message in _error(["matmul", "--no-simulate", *args])


def test_matmul_warns_before_a_long_simulation(monkeypatch):
    """Issue #5: say on stderr how long the run will take before a long one. The execution core
    is replaced by a recorder here so the test stays fast; the estimate is the measured rate x
    W^3 summed over both kernels (perfcalc/analysis/perf_answers.py SIM_SECONDS_PER_W3)."""
    from perfcalc.analysis import perf_answers
    from perfcalc.units import seconds

    calls = []

    def fake_run(kernel, params, target, engine, regs, bar):
        calls.append(kernel)
        return {"flops": 0}, "pass", None

    monkeypatch.setattr(perf_answers, "_counted", fake_run)
    result = _ok(["matmul", "--width", "2048", "--cc", "9.0", "--format", "json"])
    expected = sum(rate * 2048**3 for rate in perf_answers.SIM_SECONDS_PER_W3.values())
    assert f"about {seconds(expected)} at the benchmarked rate" in result.stderr
    assert calls == ["matmul_naive", "matmul_tiled"]


def test_roofline_table_and_points():
    """V100 (products.yaml: 15667.2 GFLOPS, 900 GB/s): I = 0.25 -> 225 GFLOPS, memory-bound;
    I = 64 -> the peak. The tiled matmul at W=1024 on CC 7.0 (memory.md 1.6: 32 B sectors per
    warp; a warp = two 16-float rows) moves 2 rows x 64 B per load request and 2 x 64 B per
    store, so its intensity is 2W^3 / (2W^3/16 / 32 x 128 + W^2 / 32 x 128) = 3.969 flop/B."""
    data = json.loads(
        _ok(
            [
                "roofline",
                "--gpu",
                "v100",
                "--intensity",
                "0.25",
                "--intensity",
                "64",
                "--kernel",
                "matmul_tiled",
                "--param",
                "Width=1024",
                "--format",
                "json",
            ]
        ).stdout
    )
    (roof,) = data["rooflines"]  # one --gpu: the same document as several, with one roofline
    assert roof["ridge_flop_per_byte"] == pytest.approx(15667.2 / 900)
    assert {p["gpu"] for p in data["points"]} == {"v100"}
    low, high, tiled = data["points"]
    assert (low["attainable_gflops"], low["bound"]) == (225.0, "memory")
    assert (high["attainable_gflops"], high["bound"]) == (15667.2, "compute")
    w = 1024
    moved = (2 * w**3 // 16) / 32 * 128 + w * w / 32 * 128
    assert tiled["intensity_flop_per_byte"] == pytest.approx(2 * w**3 / moved)
    names = [c["name"] for c in roof["ceilings"]]
    assert names[:3] == ["DRAM", "L2 (measured)", "shared memory"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--gpu", "v100", "--param", "Width=64"], "--param needs --kernel"),
        (["--gpu", "v100", "--kernel", "matmul_naive", "--param", "Width"], "expected NAME=INTEGER"),
        (["--gpu", "v100", "--kernel", "matmul_naive", "--param", "n=4"], "no kernel given"),
        (["--gpu", "v100", "--plot", "roof.gif"], "must end in .png, .svg or .pdf"),
    ],
)
def test_roofline_bad_input_is_one_line(args, message):
    assert message in _error(["roofline", *args])


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_roofline_plot_is_a_real_image(tmp_path):
    """Issue #5: the plot is a real image: a PNG of figsize 8 x 5.5 in at 200 dpi (#12) = 1600 x
    1100 pixels (perfcalc/report/roofline_plot.py), and an SVG document for .svg."""
    pytest.importorskip("matplotlib", reason="the 'plot' extra (matplotlib) is not installed")
    png, svg = tmp_path / "roof.png", tmp_path / "roof.svg"
    _ok(["roofline", "--gpu", "g80", "--kernel", "matmul_naive", "--intensity", "16", "--plot", str(png)])
    assert _png_size(png.read_bytes()) == (1600, 1100)
    _ok(["roofline", "--gpu", "h100-sxm", "--plot", str(svg), "--format", "csv"])
    text = svg.read_text(encoding="utf-8")
    assert "<svg" in text and "</svg>" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["roof.png", "roof.svg"]


def test_report_writes_csv_and_markdown_per_table(tmp_path):
    """Issue #5: every table for the catalog kernels as CSV and Markdown files; the progress bar
    goes to stderr only on a terminal (CliRunner's stderr is not one). Issue #9: `times` holds
    every catalog kernel at its realistic size with occupancy, predicted time and bound."""
    out = tmp_path / "report"
    result = _ok(["report", "--gpu", "t4", "--output", str(out), "--width", "256", "--sample-budget", "0.2"])
    assert result.stderr == ""
    names = {p.name for p in out.iterdir()}
    tables = {f"{t}.{ext}" for t in ("ceilings", "roofline", "kernels", "matmul", "times") for ext in ("csv", "md")}
    assert tables | {"index.md", "index.html"} <= names  # and the figures (tests/test_report.py)
    with (out / "times.csv").open(newline="", encoding="utf-8") as fh:
        times = {r["kernel"]: r for r in csv.DictReader(fh)}
    assert set(times) == set(catalog())
    for row in times.values():
        assert float(row["predicted_time_s"]) > 0 and row["bound"] and float(row["occupancy"]) > 0
    assert times["copy_stride"]["params"] == "n=33554432, stride=1, block=256"
    with (out / "kernels.csv").open(newline="", encoding="utf-8") as fh:
        kernels = {r["kernel"]: r for r in csv.DictReader(fh)}
    assert {"matmul_naive", "matmul_tiled"} <= set(kernels)
    assert float(kernels["matmul_tiled"]["cgma"]) == 16  # catalog default TILE_WIDTH 16
    with (out / "matmul.csv").open(newline="", encoding="utf-8") as fh:
        assert [r["variant"] for r in csv.DictReader(fh)] == ["naive", "tiled"]
    assert (out / "ceilings.md").read_text(encoding="utf-8").startswith("## Roofline ceilings")


def test_report_into_a_file_path_fails_cleanly(tmp_path):
    target = tmp_path / "file.txt"
    target.write_text("x")
    assert "is a file" in _error(["report", "--gpu", "t4", "-o", str(target)])
    assert "cannot create" in _error(["report", "--gpu", "t4", "-o", str(tmp_path / "a" / "b")])


@pytest.mark.slow
@pytest.mark.parametrize("cc", ["1.0", "2.0", "9.0"])
def test_matmul_predictions_equal_the_execution_core(cc):
    """Issue #5 acceptance: `perfcalc matmul --width 256 --cc 1.0 / 2.0 / 9.0` shows predicted
    counts equal to the simulated counts, and a passing result check (the NumPy reference in
    perfcalc/sim/references.py, Pd = Md x Nd in float64, relative tolerance 1e-4)."""
    data = json.loads(_ok(["matmul", "--width", "256", "--cc", cc, "--format", "json"]).stdout)
    for row in data["rows"]:
        assert row["simulated"] is not None
        assert row["predicted"] == row["simulated"], row["variant"]
        assert row["result_check"] == "pass"
        assert row["simulated"]["flops"] == 2 * 256**3


def test_plot_without_matplotlib_names_the_extra(tmp_path, monkeypatch):
    """Issue #5 / pyproject's 'plot' extra: without matplotlib, --plot fails in one line that
    names the install command, and writes nothing (None in sys.modules makes the import fail)."""
    import sys

    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    target = tmp_path / "roof.png"
    result = runner.invoke(app, ["roofline", "--gpu", "v100", "--plot", str(target)])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "pip install 'perfcalc[plot]'" in result.stderr
    assert not target.exists()


def test_report_with_a_bad_width_writes_nothing(tmp_path):
    """DESIGN.md: nothing half-written. The width check runs before the first file is written."""
    target = tmp_path / "rep"
    result = runner.invoke(app, ["report", "--gpu", "v100", "--output", str(target), "--width", "100"])
    assert result.exit_code == 2 and "not a multiple of tile 16" in result.stderr
    assert not target.exists()


def test_matmul_refuses_a_simulation_of_many_minutes():
    """Width 8192 would take about 2.0e-9 + 2.5e-9 s x 8192^3 = 2474 s (perf.SIM_SECONDS_PER_W3):
    refused with the estimate and the way out, before any simulation starts."""
    result = runner.invoke(app, ["matmul", "--width", "8192", "--cc", "9.0"])
    assert result.exit_code == 2
    assert "about 2474 s" in result.stderr and "--no-simulate" in result.stderr


def test_roofline_of_a_kernel_without_flops_is_a_note_not_an_error():
    """copy_stride does no floating-point work: intensity 0 has no place on a log-scale roofline."""
    result = runner.invoke(app, ["roofline", "--gpu", "v100", "--kernel", "copy_stride"])
    assert result.exit_code == 0
    assert "no floating-point operations" in result.stdout


def test_roofline_places_kernels_at_their_predicted_performance():
    """Issue #9: `roofline --gpu X --kernel K` runs K on the product's L1/L2 model and places it
    at the time model's GFLOP/s, with the roof at its intensity above it: the predicted time is
    at least the DRAM bytes over the bandwidth and the flops over the peak, so the point can
    never be above min(peak, intensity x bandwidth)."""
    data = json.loads(
        _ok(["roofline", "--gpu", "h100-sxm", "-k", "matmul_tiled", "-p", "Width=256", "--format", "json"]).stdout
    )
    (p,) = data["predicted"]
    assert p["kernel"] == "matmul_tiled" and p["params"]["Width"] == 256
    roof = min(66908.2, p["intensity_flop_per_dram_byte"] * 3352)
    assert 0 < p["predicted_gflops"] <= roof
    assert p["predicted_gflops"] == pytest.approx(2 * 256**3 / p["predicted_time_s"] / 1e9)


def test_report_times_skips_launches_the_cc_cannot_run(tmp_path):
    """On a G80 (CC 1.0: grids up to 65535 blocks in x, 512 threads per block) most realistic
    sizes cannot launch: `times` lists them with the limit instead of failing the report."""
    out = tmp_path / "g80"
    _ok(["report", "--gpu", "g80", "--output", str(out), "--sample-budget", "0.2"])
    text = (out / "times.md").read_text(encoding="utf-8")
    assert "| matmul_tiled" in text
    assert ("reduce_sequential not timed at its realistic size: grid.x = 262144 exceeds the limit 65535") in text
    assert "transpose_shared not timed at its realistic size: block of 32x32x1 = 1024" in text


def test_roofline_of_several_products_is_each_products_roofline_with_its_gpu():
    """Issue #12: `roofline --gpu A --gpu B` puts several products in one chart and one table
    per kind: each product's rows (tagged with its gpu) are exactly its own roofline's."""
    argv = ["-k", "matmul_tiled", "-p", "Width=64", "-i", "4", "--format", "json"]
    both = json.loads(_ok(["roofline", "--gpu", "v100", "--gpu", "h100-sxm", *argv]).stdout)
    assert [r["gpu"] for r in both["rooflines"]] == ["v100", "h100-sxm"]
    for gpu in ("v100", "h100-sxm"):
        alone = json.loads(_ok(["roofline", "--gpu", gpu, *argv]).stdout)
        for name in ("ceilings", "curve", "points"):
            mine = [row for row in both[name] if row["gpu"] == gpu]  # one --gpu: the same document
            assert mine == alone[name], (gpu, name)
        assert [r["predicted_time_s"] for r in both["predicted"] if r["gpu"] == gpu] == [
            r["predicted_time_s"] for r in alone["predicted"]
        ]
    assert "--gpu repeats" in _error(["roofline", "--gpu", "v100", "--gpu", "v100"])


def test_matmul_on_several_gpus_is_one_tidy_frame(tmp_path):
    """Issue 35: matmul with two --gpu, written to x.csv, is one frame with a gpu column: a row
    per product and variant, numeric columns. The seed's counts do not depend on the product:
    naive W = 128 loads 2 W^3 = 4194304 elements, tiled 2 W^3 / 16 = 262144."""
    import pandas as pd

    out = tmp_path / "mm.csv"
    r = runner.invoke(app, ["matmul", "--width", "128", "--gpu", "h100-sxm", "--gpu", "a100", "-o", str(out)])
    assert r.exit_code == 0, r.output
    frame = pd.read_csv(out)
    assert list(zip(frame["gpu"], frame["variant"], strict=True)) == [
        ("h100-sxm", "naive"),
        ("h100-sxm", "tiled"),
        ("a100", "naive"),
        ("a100", "tiled"),
    ]
    assert frame["global_loads_total"].tolist() == [4194304, 262144, 4194304, 262144]
    assert pd.api.types.is_numeric_dtype(frame["width"]) and pd.api.types.is_numeric_dtype(frame["cgma"])
