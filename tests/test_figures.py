"""Figures (#12): PNG at 200 dpi by default, SVG with text as text and reproducible bytes, PDF;
library functions return a Figure and change no global matplotlib state; labels do not overlap
by a tested rule; kernels drawn at their predicted performance."""

from __future__ import annotations

import re
import struct
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from perfcalc.cli import app
from perfcalc.model.roofline import place
from perfcalc.model.roofline import roofline as build_roofline
from perfcalc.specs import get_arch, get_gpu

pytest.importorskip("matplotlib", reason="the 'plot' extra (matplotlib) is not installed")

from perfcalc.model.occupancy import OccupancyInputs  # noqa: E402
from perfcalc.model.occupancy_sweep import compute_sweep  # noqa: E402
from perfcalc.report.figures import text_overlaps  # noqa: E402
from perfcalc.report.occupancy_plot import sweeps_figure  # noqa: E402
from perfcalc.report.roofline_plot import SAME_ROOF, compute_label_groups, roofline_figure  # noqa: E402
from perfcalc.specs import all_archs, all_gpus  # noqa: E402
from perfcalc.units import giga_rate  # noqa: E402

runner = CliRunner()


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_png_is_200_dpi_by_default_and_dpi_changes_it(cli, tmp_path):
    """The roofline is 8 x 5.5 inches: 1600 x 1100 pixels at 200 dpi, 800 x 550 at --dpi 100."""
    cli.ok(*["roofline", "--gpu", "v100", "--plot", str(tmp_path / "a.png")])
    cli.ok(*["roofline", "--gpu", "v100", "--plot", str(tmp_path / "b.png"), "--dpi", "100"])
    assert _png_size((tmp_path / "a.png").read_bytes()) == (1600, 1100)
    assert _png_size((tmp_path / "b.png").read_bytes()) == (800, 550)
    assert "--dpi" in cli.error("roofline", "--gpu", "v100", "--plot", tmp_path / "c.png", "--dpi", "10")
    assert not (tmp_path / "c.png").exists()


def test_svg_has_text_as_text_no_date_and_the_same_bytes_twice(cli, tmp_path):
    argv = ["roofline", "--gpu", "h100-sxm", "--kernel", "matmul_tiled", "-p", "Width=128"]
    cli.ok(*[*argv, "--plot", str(tmp_path / "a.svg")])
    cli.ok(*[*argv, "--plot", str(tmp_path / "b.svg")])
    a, b = (tmp_path / "a.svg").read_bytes(), (tmp_path / "b.svg").read_bytes()
    assert a == b
    text = a.decode()
    assert "<dc:date>" not in text and "Roofline: H100 SXM5 80 GB (CC 9.0)" in text
    assert ">DRAM 3.352 TB/s<" in text  # 3352 GB/s in engineering units, 4 digits as on the tables


def test_pdf_for_roofline_and_occupancy(cli, tmp_path):
    cli.ok(*["roofline", "--gpu", "v100", "--plot", str(tmp_path / "r.pdf")])
    cli.ok(
        *[
            "occupancy",
            "--cc",
            "1.0",
            "--block",
            "256",
            "--regs",
            "10",
            "--sweep",
            "all",
            "--plot",
            str(tmp_path / "o.pdf"),
        ]
    )
    for name in ("r.pdf", "o.pdf"):
        assert (tmp_path / name).read_bytes()[:5] == b"%PDF-"
    assert ".png, .svg or .pdf" in cli.error("roofline", "--gpu", "v100", "--plot", tmp_path / "r.jpg")


def test_the_library_returns_a_figure_and_changes_no_global_state():
    """Plot functions used to switch the global backend to Agg (breaking a notebook's inline
    plots); now pyplot is never imported and the backend is left alone."""
    code = (
        "import matplotlib, sys\n"
        "before = matplotlib.rcParams._get_backend_or_none()\n"
        "from perfcalc.model.roofline import roofline as build_roofline\n"
        "from perfcalc.report.roofline_plot import roofline_figure\n"
        "from perfcalc.specs import get_arch, get_gpu\n"
        "fig = roofline_figure(build_roofline(get_gpu('v100'), get_arch('7.0')))\n"
        "print(type(fig).__name__, 'matplotlib.pyplot' in sys.modules,\n"
        "      matplotlib.rcParams._get_backend_or_none() == before)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["Figure", "False", "True"]


def test_compute_labels_never_overlap_by_rule():
    """H100: FP32 peak 66.91 TFLOPS and FP64 tensor 66.9 TFLOPS were two labels on one line; now
    ceilings within 10 % share one label and the labels left are >= 10 % apart (log scale)."""
    roof = build_roofline(get_gpu("h100-sxm"), get_arch("9.0"))
    groups = compute_label_groups(roof.ceilings)
    names = [[c.name for c in g] for g in groups]
    assert ["FP32 peak", "FP64 tensor"] in names and ["FP32 no FMA", "FP64 peak"] in names
    tops = [g[0].value for g in groups]
    assert all(high / low >= SAME_ROOF for high, low in zip(tops, tops[1:], strict=False))
    fig = roofline_figure(roof)
    labels = [t for t in fig.axes[0].texts if t.get_gid() == "compute-ceiling"]
    assert len(labels) == len(groups)


def test_point_labels_stay_on_their_side_of_the_ridge():
    """V100: a kernel label crossed the ridge line; a label now extends away from it."""
    roof = build_roofline(get_gpu("v100"), get_arch("7.0"))
    left, right = place(roof, 1.0, "low"), place(roof, 100.0, "high")
    fig = roofline_figure(roof, [left, right])
    side = {t.get_text(): t.get_horizontalalignment() for t in fig.axes[0].texts if t.get_gid() == "point-label"}
    assert side == {"1": "right", "2": "left"}  # points are numbered in order, named in the legend
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend[-2:] == ["1: low (roof 900 GFLOPS)", "2: high (roof 15.67 TFLOPS)"]


def test_kernels_are_drawn_at_their_predicted_performance(cli, tmp_path):
    target = tmp_path / "r.svg"
    cli.ok(*["roofline", "--gpu", "v100", "--kernel", "matmul_tiled", "-p", "Width=128", "--plot", str(target)])
    result = runner.invoke(
        app, ["roofline", "--gpu", "v100", "--kernel", "matmul_tiled", "-p", "Width=128", "-f", "json"]
    )
    import json

    row = json.loads(result.stdout)["predicted"][0]
    from perfcalc.units import giga_rate

    shown = re.findall(r"matmul_tiled \(Width=128, TILE_WIDTH=16\): predicted ([^<]+)<", target.read_text())
    assert shown == [giga_rate(row["predicted_gflops"], "FLOPS")]


def test_coalesce_plot_draws_each_familys_transactions(tmp_path):
    """`coalesce --plot`: one panel per CC family, one bar per transaction the table counts, as
    wide as its size (stride 2, 4-byte words: CC 1.0 32 x 32 B, 1.2 2 x 128 B, 5.0+ 8 x 32 B)."""
    import json

    from perfcalc.cli.memory_inputs import cc_targets
    from perfcalc.memory import global_access
    from perfcalc.memory.patterns import warp_pattern
    from perfcalc.report.coalesce_plot import coalesce_figure

    pattern = warp_pattern("stride", 4, stride=2)
    addresses, active = pattern.arrays()
    results = [
        (label, global_access(arch, addresses, 4, active))
        for label, arch in cc_targets(None, False, "global_memory_family")
    ]
    fig = coalesce_figure(pattern, results)
    assert len(fig.axes) == len(results)
    for ax, (_label, cost) in zip(fig.axes, results, strict=True):
        bars = [p for p in ax.patches if p.get_gid() == "transaction"]
        assert sorted((round(b.get_x()), round(b.get_width())) for b in bars) == sorted(cost.transactions)
    by_cc = {label: cost.transaction_count for label, cost in results}
    assert (by_cc["1.0-1.1"], by_cc["1.2-1.3"], by_cc["7.0-12.1"]) == (32, 2, 8)
    target = tmp_path / "c.svg"
    result = runner.invoke(app, ["coalesce", "--stride", "2", "--plot", str(target), "-f", "json"])
    assert result.exit_code == 0 and json.loads(result.stdout)["results"][0]["cost"]["transaction_count"] == 32
    assert "CC 1.0-1.1: 32 transactions (32 x 32 B)" in target.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("gpu", [g.key for g in all_gpus()])
def test_no_two_roofline_texts_overlap(gpu):
    """Issue #12 acceptance: on every shipped product's roofline, with kernels on both sides of
    the ridge and two close together (1.0 and 1.1 flop/B), no two texts (ceiling labels, legend,
    point labels, ticks, title) overlap, by the boxes matplotlib's renderer gives them."""
    product = get_gpu(gpu)
    roof = build_roofline(product, get_arch(product.cc))
    points = [place(roof, x, f"kernel at {x:g}") for x in (0.25, 1.0, 1.1, 8.0, 64.0)]
    assert text_overlaps(roofline_figure(roof, points)) == []


@pytest.mark.slow
@pytest.mark.parametrize("cc", [a.cc for a in all_archs()])
def test_no_two_occupancy_plot_texts_overlap(cc):
    """Issue #12 acceptance: the three occupancy graphs of every CC (block size, registers,
    shared memory; 256 threads, 32 registers) lay out with no two texts overlapping: the
    shared-memory axis of CC 8.0 printed six-digit ticks edge to edge, and each panel's last
    tick label sat on the next panel's "0" before."""
    arch = get_arch(cc)
    inputs = OccupancyInputs(block_size=256, registers_per_thread=32)
    sweeps = [compute_sweep(arch, inputs, axis) for axis in ("block", "regs", "smem")]
    assert text_overlaps(sweeps_figure(sweeps, f"CC {cc}")) == []


def test_overlap_check_sees_overlapping_texts():
    """The check itself can fail: two labels at one point overlap."""
    roof = build_roofline(get_gpu("v100"), get_arch("7.0"))
    fig = roofline_figure(roof)
    fig.axes[0].annotate("same place", (1.0, 100.0))
    fig.axes[0].annotate("same place too", (1.0, 100.0))
    assert ("same place", "same place too") in text_overlaps(fig)


def test_banks_plot_draws_each_lane_in_its_bank_word(cli, tmp_path):
    """`banks --plot`: one panel per family (both 3.x bank modes), a cell per (bank, pass) with
    its lanes. Stride 2 on 5.x-12.1: lanes l and l+16 share bank 2l mod 32 in different words,
    16 banks x 2 passes = 32 cells, 2 passes in the title (shared_access's count)."""
    from perfcalc.memory.bank_words import bank_words
    from perfcalc.report.banks_plot import lanes_text

    target = tmp_path / "banks.png"
    cli.ok(*["banks", "--stride", "2", "--plot", str(target), "--dpi", "100"])
    width, height = _png_size(target.read_bytes())
    assert width == 1000 and height > 400
    svg = tmp_path / "banks.svg"
    cli.ok(*["banks", "--stride", "2", "--cc", "9.0", "--plot", str(svg)])
    text = svg.read_text(encoding="utf-8")
    assert "CC 9.0: 2 pass(es), 1 conflict(s), lanes grouped by warp" in text
    words = bank_words("9.0", [lane * 8 for lane in range(32)], 4)
    assert len({(w.bank, w.pass_index) for w in words.words}) == 32 and words.passes == 2
    assert [lanes_text(x) for x in ([3], [3, 4], [4, 5, 6, 7], [1, 9, 17])] == ["3", "3,4", "4-7", "3 lanes"]


def test_banks_plot_says_where_the_picture_differs_from_the_rule(cli, tmp_path):
    """CC 1.x with a word repeated across lanes serves one broadcast word per step
    (memory/shared_cc1.py), which the bank-word picture does not show: the title says so."""
    svg = tmp_path / "b.svg"
    cli.ok(*["banks", "--index", "16 * (lane % 2)", "--cc", "1.0", "--plot", str(svg)])
    assert "the family's rule differs" in svg.read_text(encoding="utf-8")


def test_run_plot_puts_each_lines_counts_beside_it(cli, tmp_path):
    """`run --plot`: transpose_shared (32 x 32 float tile, no padding) on CC 9.0. The heat map's
    cells are the per-line counters of the same run's JSON: line 11 reads the tile by column,
    32 lanes in one bank, so its bank conflicts are the largest of the kernel."""
    import json

    from perfcalc.report.run_plot import line_values
    from perfcalc.units import count

    svg = tmp_path / "t.svg"
    cli.ok(*["run", "transpose_shared", "--cc", "9.0", "--plot", str(svg)])
    data = json.loads(runner.invoke(app, ["run", "transpose_shared", "--cc", "9.0", "-f", "json"]).stdout)
    text = svg.read_text(encoding="utf-8")
    cells = re.findall(r"<text[^>]*>([^<]+)</text>", text)
    for site in data["per_site"]:
        for value in line_values(site["counters"]):
            if value is not None:
                assert count(value) in cells
    conflicts = {s["line"]: s["counters"]["bank_conflicts"] for s in data["per_site"]}
    assert max(conflicts, key=conflicts.get) == 11 and conflicts[11] > 0
    assert "odata[y * n + x] = tile[threadIdx.x][threadIdx.y];" in text
    png = tmp_path / "t.png"
    cli.ok(*["run", "transpose_shared", "--cc", "9.0", "--plot", str(png), "--dpi", "100"])
    assert _png_size(png.read_bytes())[0] == 1200


def test_run_plot_lines_and_values():
    from perfcalc.report.run_plot import MAX_LINES, line_values, shown_lines

    assert line_values({"global_load_requests": 4, "global_load_transactions": 16}) == (4, 4.0, None, None)
    assert line_values({"shared_load_requests": 2, "bank_conflicts": 0}) == (None, None, 2, 0)
    short = ["a"] * 10 + [""]
    assert shown_lines(short, [3, 5]) == list(range(1, 11))  # whole, without the trailing blank
    long = ["x"] * (MAX_LINES * 3)
    assert shown_lines(long, [10, 12]) == [10, 11, 12]
    assert shown_lines(long, [10, 150]) == [9, 10, 11, 149, 150, 151]


def test_several_products_in_one_roofline():
    """Several products: each one's DRAM roof and FP32 peak in its own line, named in the legend
    with both figures; no two texts overlap."""
    roofs = [build_roofline(get_gpu(k), get_arch(get_gpu(k).cc)) for k in ("v100", "a100-40gb", "h100-sxm")]
    fig = roofline_figure(roofs)
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend == [
        "Tesla V100 (SXM2): DRAM 900 GB/s, FP32 15.67 TFLOPS",
        f"{roofs[1].gpu_name}: DRAM {giga_rate(roofs[1].bandwidth_gbs, 'B/s')}, "
        f"FP32 {giga_rate(roofs[1].peak_gflops, 'FLOPS')}",
        "H100 SXM5 80 GB: DRAM 3.352 TB/s, FP32 66.91 TFLOPS",
    ]
    assert text_overlaps(fig) == []


PLOTS = {
    "roofline": ["roofline", "--gpu", "v100", "-k", "matmul_tiled", "-p", "Width=64"],
    "roofline-compared": ["roofline", "--gpu", "v100", "--gpu", "h100-sxm"],
    "occupancy": ["occupancy", "--cc", "8.6", "--block", "256", "--regs", "40", "--sweep", "all"],
    "coalesce": ["coalesce", "--stride", "2"],
    "banks": ["banks", "--stride", "2"],
    "run": ["run", "transpose_shared", "--cc", "9.0"],
}


def _png_dpi(data: bytes) -> float:
    """The dots per inch a PNG's pHYs chunk records (pixels per metre x 0.0254)."""
    at = data.index(b"pHYs")
    per_metre_x, _per_metre_y, unit = struct.unpack(">IIB", data[at + 4 : at + 13])
    assert unit == 1  # metres
    return per_metre_x * 0.0254


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PLOTS))
def test_every_plot_in_every_format(cli, tmp_path, name):
    """Issue #12 acceptance, per plot: PNG at the --dpi asked for (recorded in the file, and
    twice the pixels at twice the dpi), a PDF of one page, an SVG of the same bytes twice."""
    argv = PLOTS[name]
    for dpi in (100, 200):
        cli.ok(*[*argv, "--plot", str(tmp_path / f"{dpi}.png"), "--dpi", str(dpi)])
    small, large = ((tmp_path / f"{d}.png").read_bytes() for d in (100, 200))
    assert round(_png_dpi(small)) == 100 and round(_png_dpi(large)) == 200
    (w1, h1), (w2, h2) = _png_size(small), _png_size(large)
    assert abs(w2 - 2 * w1) <= 1 and abs(h2 - 2 * h1) <= 1
    cli.ok(*[*argv, "--plot", str(tmp_path / "f.pdf")])
    pdf = (tmp_path / "f.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-") and re.findall(rb"/Type /Pages\b.*?/Count (\d+)", pdf, re.S) == [b"1"]
    for copy in ("a", "b"):
        cli.ok(*[*argv, "--plot", str(tmp_path / f"{copy}.svg")])
    assert (tmp_path / "a.svg").read_bytes() == (tmp_path / "b.svg").read_bytes()
