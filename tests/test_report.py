"""`perfcalc report` (#12): tables, figures (PNG, SVG) and a front page, index.md and index.html,
with one paragraph per kernel; the HTML opened in a real headless Chromium."""

from __future__ import annotations

import csv
import html
import re
import shutil
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfcalc.cli import app
from perfcalc.units import seconds

runner = CliRunner()
KERNELS = ("matmul_tiled", "transpose_naive", "reduce_interleaved")
CHROMIUM = "/usr/bin/chromium"  # Debian's package, as .ci/run installs it


def _report(out: Path, *extra: str) -> None:
    argv = ["report", "--gpu", "h100-sxm", "-o", str(out), "--sample-budget", "0.2", "--dpi", "60"]
    for k in KERNELS:
        argv += ["-k", k]
    result = runner.invoke(app, [*argv, *extra])
    assert result.exit_code == 0, result.stderr


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory) -> Path:
    pytest.importorskip("matplotlib", reason="the 'plot' extra (matplotlib) is not installed")
    out = tmp_path_factory.mktemp("report") / "h100"
    _report(out)
    return out


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.links += [v for k, v in attrs if k in ("src", "href") and v]


def _times(out: Path) -> dict[str, dict[str, str]]:
    with (out / "times.csv").open(newline="", encoding="utf-8") as fh:
        return {r["kernel"]: r for r in csv.DictReader(fh)}


def test_report_writes_tables_figures_and_a_front_page(report_dir):
    names = {p.name for p in report_dir.iterdir()}
    tables = {f"{t}.{e}" for t in ("ceilings", "roofline", "kernels", "matmul", "times") for e in ("csv", "md")}
    stems = ("roofline-chart", *(f"{fig}-{k}" for k in KERNELS for fig in ("occupancy", "lines")))
    figures = {f"{s}.{e}" for s in stems for e in ("png", "svg")}
    assert names == tables | figures | {"index.md", "index.html"}
    # every link of both pages names a file of the report (relative, nothing fetched from a network)
    parser = _Links()
    parser.feed((report_dir / "index.html").read_text(encoding="utf-8"))
    md_links = re.findall(r"\]\(([^)]+)\)", (report_dir / "index.md").read_text(encoding="utf-8"))
    assert set(parser.links) == set(md_links) == names - {"index.md", "index.html"}


def test_each_kernel_paragraph_states_its_own_numbers(report_dir):
    """The paragraph's occupancy and predicted time are the times table's (same run), with the
    units the terminal uses."""
    text = (report_dir / "index.md").read_text(encoding="utf-8")
    times = _times(report_dir)
    for kernel in KERNELS:
        paragraph = text.split(f"### {kernel}\n\n", 1)[1].split("\n\n", 1)[0]
        row = times[kernel]
        assert f"Occupancy {float(row['occupancy']) * 100:g} %" in paragraph
        assert f"Predicted time {seconds(float(row['predicted_time_s']))}" in paragraph


def test_what_to_change_follows_the_counters(report_dir):
    """transpose_naive stores a column of a row-major 8192 x 8192 float matrix per warp: 32
    lanes, 32 rows, 32 different sectors, against 4 for consecutive words (Best Practices Guide,
    coalescing); its loads are rows (4 sectors). matmul_tiled's accesses are coalesced and
    conflict-free, so it gets no such advice. reduce_interleaved's `tid % (2*s) == 0` splits warps."""
    text = (report_dir / "index.md").read_text(encoding="utf-8")
    section = {k: text.split(f"### {k}\n", 1)[1].split("###", 1)[0] for k in KERNELS}
    assert "global loads 4 sectors per request; global stores 32" in section["transpose_naive"]
    assert "touch up to 32 sectors per request" in section["transpose_naive"]
    assert "sectors per request where" not in section["matmul_tiled"]
    assert "0 bank conflicts per shared request" in section["matmul_tiled"]
    assert "branches split a warp" in section["reduce_interleaved"]
    assert "branches split a warp" not in section["matmul_tiled"]


def test_a_report_on_several_gpus_is_one_tidy_table_per_topic(tmp_path):
    """Issue 35: `report --gpu v100 --gpu h100-sxm` writes each table once, its rows from both
    products under a gpu column (one pandas frame, numeric columns), one roofline chart of both,
    and a paragraph and figures per kernel and product. The ceilings are each product's own
    (devices/products.yaml: 900 and 3352 GB/s of DRAM bandwidth)."""
    pd = pytest.importorskip("pandas")
    pytest.importorskip("matplotlib", reason="the 'plot' extra (matplotlib) is not installed")
    out = tmp_path / "two"
    argv = ["report", "--gpu", "v100", "--gpu", "h100-sxm", "-o", str(out), "-k", "copy_offset"]
    result = runner.invoke(app, [*argv, "--sample-budget", "0.2", "--dpi", "60"])
    assert result.exit_code == 0, result.stderr
    times = pd.read_csv(out / "times.csv")
    assert times["gpu"].tolist() == ["v100", "h100-sxm"] and set(times["kernel"]) == {"copy_offset"}
    for column in ("occupancy", "predicted_time_s", "l2_hit_rate"):
        assert pd.api.types.is_numeric_dtype(times[column]), column
    ceilings = pd.read_csv(out / "ceilings.csv")
    dram = ceilings[ceilings["ceiling"] == "DRAM"].set_index("gpu")["value"]
    assert dram.to_dict() == {"v100": 900.0, "h100-sxm": 3352.0}
    names = {p.name for p in out.iterdir()}
    assert {"roofline-chart.png", "occupancy-copy_offset-v100.svg", "lines-copy_offset-h100-sxm.png"} <= names
    text = (out / "index.md").read_text(encoding="utf-8")
    for gpu in ("v100", "h100-sxm"):
        paragraph = text.split(f"### copy_offset on {gpu}\n\n", 1)[1].split("\n\n", 1)[0]
        row = times[times["gpu"] == gpu].iloc[0]
        assert f"Predicted time {seconds(float(row['predicted_time_s']))}" in paragraph


def test_report_without_matplotlib_says_why_it_has_no_figures(tmp_path, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    out = tmp_path / "plain"
    _report(out, "--no-times")
    assert not list(out.glob("*.png")) and not list(out.glob("*.svg"))
    assert "pip install 'perfcalc[plot]'" in html.unescape((out / "index.html").read_text(encoding="utf-8"))


def _browser_or_skip():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("Playwright is not installed (the dev extra has it)")
    if shutil.which(CHROMIUM) is None:
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium; .ci/run does)")
    return sync_playwright


def test_the_html_report_opens_in_headless_chromium(report_dir):
    """Issue #12 acceptance: index.html in a real browser, offline: every image loads (decoded,
    non-zero size), no console message of level error or warning, no failed or non-file request."""
    sync_playwright = _browser_or_skip()
    messages, failed, requested = [], [], []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
        )
        try:
            page = browser.new_page()
            page.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))
            page.on("pageerror", lambda e: messages.append(f"pageerror: {e}"))
            page.on("requestfailed", lambda r: failed.append(r.url))
            page.on("request", lambda r: requested.append(r.url))
            page.goto((report_dir / "index.html").as_uri(), wait_until="load")
            images = page.evaluate(
                "Array.from(document.images).map(i => [i.getAttribute('src'), i.complete, i.naturalWidth])"
            )
            tables = page.evaluate("document.querySelectorAll('table').length")
        finally:
            browser.close()
    assert [m for m in messages if m.split(":")[0] in ("error", "warning", "pageerror")] == []
    assert failed == [] and all(u.startswith("file://") for u in requested)
    assert sorted(src for src, _, _ in images) == sorted(
        ["roofline-chart.png", *(f"{fig}-{k}.png" for k in KERNELS for fig in ("occupancy", "lines"))]
    )
    assert all(complete and width > 0 for _, complete, width in images)
    assert tables == 5  # every table of the report shown on the page
