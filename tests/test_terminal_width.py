"""Tables on a terminal fit its width (#12): long text wraps inside its cell, numbers and
identifiers stay whole; `perfcalc --wide` and pipes/files get the full table."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from perfcalc.report.render import fitted_widths, render
from perfcalc.report.table import Table

pty = pytest.importorskip("pty", reason="pseudo-terminals are POSIX-only")


def _on_a_terminal(argv: list[str], columns: int = 80) -> list[str]:
    """Run perfcalc with stdout on a pseudo-terminal `columns` wide; its output lines."""
    master, slave = pty.openpty()
    env = {**os.environ, "COLUMNS": str(columns)}
    process = subprocess.Popen([sys.executable, "-m", "perfcalc", *argv], stdout=slave, stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert process.wait() == 0
    return b"".join(chunks).decode().replace("\r\n", "\n").splitlines()


def test_fitted_widths_wrap_text_and_keep_numbers_whole():
    rows = [["DRAM", "900", "vendor theoretical bandwidth from the product's data sheet, 5120-bit HBM2"]]
    widths = fitted_widths(["ceiling", "value", "formula"], rows, 40)
    assert widths[0] is None and widths[1] is None  # short columns untouched
    assert widths[2] is not None and 9 + 7 + widths[2] + 2 * 2 <= 40
    table = Table(
        ["ceiling", "value", "formula"], [dict(zip(["ceiling", "value", "formula"], r, strict=True)) for r in rows]
    )
    lines = render(table, "table", width=40).splitlines()
    assert max(len(line) for line in lines) <= 40 and lines[2].split()[:2] == ["DRAM", "900"]


@pytest.mark.parametrize(
    "argv",
    [
        ["devices", "show", "9.0"],  # was six lines of dashes at 80 columns (the sources column)
        ["occupancy", "--cc", "7.0", "--block", "256", "--regs", "32"],  # was up to 106 wide
        ["matmul", "--width", "64", "--no-simulate", "--table", "variants"],  # was 296 wide
        ["matmul", "--width", "64"],  # every default table, the counters' comparison too (was 86)
        ["run", "matmul_tiled", "-p", "Width=64"],  # the per-line counters were 87 wide
        ["run", "copy_stride", "--gpu", "h100-sxm", "-p", "n=65536"],  # time and caches tables
    ],
)
def test_tables_fit_an_80_column_terminal(argv):
    """Issue #12 acceptance: at 80 columns no line of occupancy, devices show, matmul or run's
    default output is wider than 80 characters."""
    lines = _on_a_terminal(argv)
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)


def test_run_folds_each_source_line_above_its_counters_on_a_narrow_terminal():
    """The per-line table's code column would wrap at 80 columns (a statement in pieces on every
    counter's row); instead each statement is printed once, whole, above its counters."""
    lines = _on_a_terminal(["run", "matmul_tiled", "-p", "Width=64"])
    start = lines.index("Memory counters per source line")
    body = lines[start + 1 :]
    assert body[0].split() == ["line", "counter", "simulated", "predicted", "match"]
    assert "Pvalue += Mds[ty][k] * Nds[k][tx];" in body
    after = body[body.index("Pvalue += Mds[ty][k] * Nds[k][tx];") + 1].split()
    # 64 x 64 threads = 128 warps, each 4 phases x 16 steps x 2 shared loads = 128 requests
    assert after == ["18", "shared_load_requests", str(128 * 128), str(128 * 128), "yes"]


def test_wide_and_pipes_print_the_full_table():
    wide = _on_a_terminal(["--wide", "devices", "show", "9.0"])
    assert max(len(line) for line in wide) > 200  # the sources on one line each
    piped = subprocess.run(
        [sys.executable, "-m", "perfcalc", "devices", "show", "9.0"],
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "80"},
        check=True,
    ).stdout.splitlines()
    assert piped == wide


@pytest.mark.parametrize("argv, hidden", [(["devices"], 4), (["devices", "products"], 6)])
def test_wide_lists_keep_their_chosen_columns_at_80(argv, hidden):
    """`perfcalc devices` was 118 columns wide at 80 (eleven columns of numbers that cannot
    wrap): a narrow terminal gets the table's chosen columns and one line naming the way to the
    rest; --wide prints them all."""
    lines = _on_a_terminal(argv)
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert f"({hidden} more columns: perfcalc --wide, or --format csv)" in lines
    wide = _on_a_terminal(["--wide", *argv])
    assert not any("more columns" in line for line in wide) and max(len(line) for line in wide) > 100
