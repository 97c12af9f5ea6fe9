"""Every command's CSV is one table pandas reads, and its JSON carries the table's figures (#11).

For each command (and each table --table names), `pandas.read_csv` must give one frame whose
columns are the table's keys, each a word of the documented vocabulary (`perfcalc schema`);
every number in every table must appear in the command's --format json output (JSON = table:
nothing shown is missing from the machine-readable form).
"""

from __future__ import annotations

import io
import json
import math
import re

import pandas as pd
import pytest
from typer.testing import CliRunner

from perfcalc.cli import app
from perfcalc.report.json_schema import is_csv_column, vocabulary

runner = CliRunner()
WORDS, _DEFS = vocabulary()
PTXAS = "tests/data/ptxas_seeds_sm75_sm90.txt"

# (command, its tables: the main one first)
COMMANDS = [
    (["devices"], ["compute_capabilities", "products"]),
    (["devices", "products"], ["products"]),
    (["devices", "show", "9.0"], ["compute_capability"]),
    (["devices", "show", "v100"], ["product"]),
    (
        ["occupancy", "--cc", "7.0", "--block", "256", "--regs", "32", "--gpu", "v100", "--grid", "1000"],
        ["occupancy", "inputs", "device_limits", "allocation", "block_limits", "waves"],
    ),
    (["occupancy", "--cc", "9.0", "--regs", "40", "--suggest"], ["suggestion", "ranking"]),
    (
        ["occupancy", "--cc", "7.0", "--block", "256", "--regs", "33", "--sweep", "all"],
        ["sweep_block_size", "sweep_registers_per_thread", "sweep_shared_memory_per_block_bytes"],
    ),
    (["occupancy", "--ptxas", PTXAS, "--block", "256"], ["kernels"]),
    (["occupancy", "--ptxas", PTXAS, "--suggest"], ["suggestions"]),
    (["matmul", "--width", "1024", "--gpu", "g80", "--no-simulate"], ["variants", "counters"]),
    (
        ["roofline", "--gpu", "v100", "--kernel", "matmul_tiled", "--param", "Width=256", "--intensity", "4"],
        ["ceilings", "curve", "points", "predicted"],
    ),
    (
        ["roofline", "--gpu", "v100", "--gpu", "h100-sxm", "-k", "matmul_tiled", "-p", "Width=64", "-i", "4"],
        ["ceilings", "curve", "points", "predicted"],
    ),
    (["kernels"], ["kernels"]),
    (["kernels", "matmul_tiled"], ["kernel", "source"]),
    (["coalesce", "--stride", "2", "--all-cc", "--show-transactions"], ["access", "transactions"]),
    (["banks", "--stride", "2", "--all-cc", "--show-banks"], ["access", "lane_banks"]),
    (["run", "matmul_tiled", "-p", "Width=64"], ["counters", "summary", "lines"]),
    (["run", "copy_offset", "-p", "n=4096", "--gpu", "h100-sxm"], ["counters", "summary", "time", "caches"]),
]


# Columns that index a table rather than carry a figure: the source listing's line numbers (the
# JSON holds the source text whole).
NOT_FIGURES = {("source", "line")}


def _ok(argv: list[str]) -> str:
    result = runner.invoke(app, argv)
    assert result.exit_code == 0, (argv, result.stderr)
    return result.stdout


def _numbers(value) -> list[float]:
    if isinstance(value, bool) or value is None:
        return []
    if isinstance(value, (int, float)):
        return [float(value)]
    if isinstance(value, str):
        try:
            return [float(value)]
        except ValueError:
            return []
    if isinstance(value, dict):
        return [n for v in value.values() for n in _numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in _numbers(v)]
    return []


@pytest.mark.parametrize(("argv", "tables"), COMMANDS, ids=lambda v: " ".join(v)[:50] if isinstance(v, list) else "")
def test_each_csv_is_one_frame_and_each_figure_is_in_the_json(argv, tables):
    main = _ok([*argv, "--format", "csv"])
    assert main == _ok([*argv, "--format", "csv", "--table", tables[0]])  # the main table is the first
    in_json = sorted(_numbers(json.loads(_ok([*argv, "--format", "json"]))))
    for name in tables:
        text = _ok([*argv, "--format", "csv", "--table", name])
        header = text.splitlines()[0].split(",")
        frame = pd.read_csv(io.StringIO(text))
        assert len(frame) >= 1 and len(frame.columns) == len(header), (name, header)
        assert not any(c.startswith("# ") for c in frame.columns)
        # documented columns: each is a word of the vocabulary `perfcalc schema` prints, or made of one
        undocumented = [c for c in frame.columns if not is_csv_column(c, WORDS)]
        assert not undocumented, (name, undocumented)
        for column in frame.columns:
            if (name, column) in NOT_FIGURES:
                continue
            for cell in frame[column].dropna():
                for x in _numbers(cell):
                    near = [y for y in in_json if math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)]
                    assert near, f"{' '.join(argv)} --table {name}: {column} = {x} is not in the JSON"


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "copy_offset", "--gpu", "h100-sxm", "--table", "time"],
        ["run", "copy_offset", "--gpu", "h100-sxm"],
        ["matmul", "--width", "256", "--gpu", "h100-sxm"],
    ],
    ids=" ".join,
)
def test_a_table_spells_microseconds_one_way(argv):
    """Issue 35: no table mixes unit spellings. Times print as µs (report/units.py); the bound's
    detail ("limited by ... (x µs of y µs)") and the error band's size class ("< 20 µs") did
    print "us" beside them."""
    import re

    from typer.testing import CliRunner

    done = CliRunner().invoke(app, argv)
    assert done.exit_code == 0, done.output
    assert "µs" in done.stdout
    assert re.findall(r"\d us\b|< 20 us\b", done.stdout) == []


def _headerless_columns(text: str) -> list[str]:
    """Columns of the text tables in `text` whose header is blank: under each header line comes
    a rule of dash runs, one per column; a run with only spaces above it has no header."""
    lines = text.splitlines()
    found = []
    for above, rule in zip(lines, lines[1:], strict=False):
        if not rule.strip() or set(rule.strip()) - {"-", " "} or "  " not in rule.strip():
            continue
        for run in re.finditer(r"-+", rule):
            if not above[run.start() : run.end()].strip():
                found.append(f"{above!r} over {rule!r} at column {run.start()}")
    return found


@pytest.mark.parametrize(("argv", "tables"), COMMANDS, ids=lambda v: " ".join(v)[:50] if isinstance(v, list) else "")
def test_no_text_table_has_a_column_without_a_header(argv, tables):
    """Issue 35: `limiter  blocks/SM  ----` printed a flag column with no header."""
    from typer.testing import CliRunner

    done = CliRunner().invoke(app, [*argv, "--format", "table"])
    assert done.exit_code == 0, done.output
    assert _headerless_columns(done.stdout) == []
