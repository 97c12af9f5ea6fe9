"""`perfcalc coalesce` and `perfcalc banks` through typer's CliRunner: the seeds' tables come
out of the commands, and bad input is one `error:` line with exit code 2."""

from __future__ import annotations

import csv
import io
import json

import pytest
from typer.testing import CliRunner

from perfcalc.cli import app

runner = CliRunner()


def ok(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.stderr
    return result.stdout


def fails(*args: str, fragments: tuple[str, ...] = ()) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.stdout
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)
    return result.stderr


def results(*args: str) -> dict[str, dict]:
    data = json.loads(ok(*args, "--format", "json"))
    return {row["ccs"]: row["cost"] for row in data["results"]}


SEED_002 = {  # seed 002 'Coalescing' tables (base 128): CLI options -> {CC row: transactions}
    "aligned and sequential": (
        (),
        {"1.0-1.1": [[128, 64], [192, 64]], "1.2-1.3": [[128, 64], [192, 64]], "2.0-2.1": [[128, 128]]},
    ),
    "misaligned and sequential": (
        ("--offset", "1"),
        {
            "1.0-1.1": [[128, 32]] * 7 + [[160, 32]] * 8 + [[192, 32]] * 8 + [[224, 32]] * 8 + [[256, 32]],
            "1.2-1.3": [[128, 128], [192, 64], [256, 32]],
            "2.0-2.1": [[128, 128], [256, 128]],
        },
    ),
}


@pytest.mark.parametrize("name", list(SEED_002))
def test_seed_002_tables_from_all_cc(name):
    """`coalesce --all-cc --base 128` reproduces seed 002's per-CC transaction lists."""
    options, table = SEED_002[name]
    got = results("coalesce", "--base", "128", *options, "--all-cc", "--show-transactions")
    for cc, expected in table.items():
        assert got[cc]["transactions"] == expected, cc


def test_seed_002_non_sequential_with_index_expression():
    """Seed 002 'aligned and non-sequential': a permutation inside each half-warp's 64 bytes
    (memory.md GV2) is 8 x 32 B at 128, 160, 192, 224 on 1.0/1.1 and 2 x 64 B on 1.2/1.3."""
    got = results("coalesce", "--base", "128", "--index", "16*(lane//16) + (5*(lane%16)+3)%16", "--all-cc")
    assert sorted(map(tuple, got["1.0-1.1"]["transactions"])) == sorted(
        [(128, 32)] * 8 + [(160, 32)] * 8 + [(192, 32)] * 8 + [(224, 32)] * 8
    )
    assert got["1.2-1.3"]["transactions"] == [[128, 64], [192, 64]]
    assert got["2.0-2.1"]["transactions"] == [[128, 128]]


def test_seed_003_stride_2_efficiency_csv():
    """Seed 003 'Example 4': stride 2 -> 50 % efficiency (every family from 1.2 on)."""
    rows = list(csv.DictReader(io.StringIO(ok("coalesce", "--stride", "2", "--word", "4", "--format", "csv"))))
    by_cc = {row["ccs"]: 100 * float(row["efficiency"]) for row in rows}
    assert [by_cc[c] for c in ("1.2-1.3", "2.0-2.1", "3.0-3.7", "5.0-6.2", "7.0-12.1")] == [50.0] * 5
    assert by_cc["1.0-1.1"] == 12.5  # 32 x 32 B for 128 useful bytes (memory.md GV12)


def test_show_transactions_lists_half_warps():
    """--show-transactions: seed 002 notation per request; memory.md GV3 at 1.2: hw0 1x128B,
    hw1 64 B + 32 B."""
    out = ok("coalesce", "--base", "128", "--offset", "1", "--cc", "1.2", "--show-transactions")
    assert "half-warp 0  0-15     1    1x128B@128" in out
    assert "half-warp 1  16-31    2    1x64B@192, 1x32B@256" in out


def test_seed_003_tile_padding_banks():
    """Seed 003: a 32x32 float tile read by column is 32-way on 32 banks; 32x33 is free."""
    plain = results("banks", "--pattern", "tile-column")
    padded = results("banks", "--pattern", "tile-column", "--pad", "1")
    for cc in ("2.0-2.1", "5.0-12.1"):
        assert (plain[cc]["wavefronts"], plain[cc]["conflict_degree"]) == (32, 32)
        assert (padded[cc]["wavefronts"], padded[cc]["bank_conflicts"]) == (1, 0)


def test_banks_stride_2_all_families():
    """memory.md 3.5.1 row s = 2: 1.x 4 (2 per half-warp), 2.x 2, 3.x 1 in both modes, 5.x+ 2."""
    got = results("banks", "--stride", "2", "--word", "4", "--all-cc")
    assert {cc: r["wavefronts"] for cc, r in got.items()} == {
        "1.0-1.3": 4,
        "2.0-2.1": 2,
        "3.0-3.7 (4-byte banks)": 1,
        "3.0-3.7 (8-byte banks)": 1,
        "5.0-12.1": 2,
    }


def test_show_banks_prints_each_lane():
    """Bank = word mod 16 on 1.x (seed 000: successive 32-bit words in successive banks)."""
    out = ok("banks", "--stride", "3", "--cc", "1.1", "--table", "lane_banks", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [int(r["1.1"]) for r in rows[:7]] == [0, 3, 6, 9, 12, 15, 2]


def test_output_file_written(tmp_path):
    target = tmp_path / "coalesce.md"
    ok("coalesce", "--cc", "9.0", "--format", "markdown", "--output", str(target))
    assert target.read_text().startswith("## Global load")


@pytest.mark.parametrize(
    "args,fragments",
    [
        (("coalesce", "--cc", "9.0", "--base", "2"), ("lane 0", "not a multiple of the 4-byte")),
        (("coalesce", "--word", "3"), ("access size 3 bytes",)),
        (("coalesce", "--cc", "9.0", "--cache", "l1"), ("not available on CC 9.0",)),
        (("coalesce", "--cc", "1.2", "--all-cc"), ("either --cc or --all-cc",)),
        (("coalesce", "--pattern", "aos"), ("--struct-size",)),
        (("coalesce", "--pattern", "zigzag"), ("--pattern", "'zigzag' is not one of 'stride'", "'index'")),
        (("coalesce", "--index", "lane/2"), ("lane 1", "whole")),
        (("coalesce", "--index", "__import__('os').getcwd()"), ("__import__",)),
        (("coalesce", "--active", "xyz"), ("not hexadecimal",)),
        (("coalesce", "--cc", "4.0"), ("4.0",)),
        (("banks", "--cc", "9.0", "--bank-mode", "8"), ("bank mode 8", "cc_9_0.yaml")),
        (("banks", "--op", "atomic"), ("--op", "'atomic' is not one of 'load', 'store'")),
    ],
)
def test_bad_input_is_one_line_exit_2(args, fragments):
    fails(*args, fragments=fragments)


def test_unwritable_output_fails_before_work(tmp_path):
    target = tmp_path / "missing" / "out.csv"
    fails("banks", "--output", str(target), fragments=("cannot write",))
    assert not target.exists()
