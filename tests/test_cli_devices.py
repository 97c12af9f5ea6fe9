"""`perfcalc devices` and the shared output rules: formats, atomic --output, one-line errors."""

import csv
import io
import json

from typer.testing import CliRunner

from perfcalc.cli import app

runner = CliRunner()


def test_devices_lists_every_cc():
    result = runner.invoke(app, ["devices", "--format", "csv"])
    assert result.exit_code == 0
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert [r["cc"] for r in rows][:2] == ["1.0", "1.1"]
    assert len([r for r in rows if r["cc"]]) >= 24
    g80 = rows[0]
    assert g80["max_threads_per_sm"] == "768"  # PG4 Table F-2


def test_devices_show_json_uses_the_dataclass_names():
    result = runner.invoke(app, ["devices", "show", "86", "--format", "json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["cc"] == "8.6"
    assert data["max_warps_per_sm"] == 48  # PG11/PG13: 48 warps per SM on 8.6
    assert data["shared_memory_carveouts_kb"] == [0, 8, 16, 32, 64, 100]


def test_markdown_output_is_a_table():
    result = runner.invoke(app, ["devices", "show", "9.0", "--format", "markdown"])
    assert result.exit_code == 0
    assert "| max_blocks_per_sm" in result.stdout


def test_unknown_cc_is_one_line_exit_2():
    result = runner.invoke(app, ["devices", "show", "4.0"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: unknown compute capability '4.0'")
    assert "Traceback" not in result.output


def test_output_file_written_atomically(tmp_path):
    target = tmp_path / "limits.csv"
    result = runner.invoke(app, ["devices", "show", "7.0", "-f", "csv", "-o", str(target)])
    assert result.exit_code == 0 and result.stdout == ""
    assert "max_threads_per_sm,2048" in target.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["limits.csv"]  # no temporary left behind


def test_unwritable_output_path_fails_before_work(tmp_path):
    target = tmp_path / "missing-dir" / "out.csv"
    result = runner.invoke(app, ["devices", "-f", "csv", "-o", str(target)])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: cannot write") and "does not exist" in result.stderr
    assert not target.exists()


def test_bad_option_value_is_one_line():
    result = runner.invoke(app, ["devices", "--format", "xml"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1


def test_output_file_gets_normal_permissions(tmp_path):
    """An output file is created like open() would create it (umask applied), not 0600; an
    existing file keeps its mode."""
    import os

    umask = os.umask(0o022)
    try:
        new = tmp_path / "new.csv"
        assert runner.invoke(app, ["devices", "-f", "csv", "-o", str(new)]).exit_code == 0
        assert new.stat().st_mode & 0o777 == 0o644
        old = tmp_path / "old.csv"
        old.write_text("x")
        old.chmod(0o640)
        assert runner.invoke(app, ["devices", "-f", "csv", "-o", str(old)]).exit_code == 0
        assert old.stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(umask)


def test_output_into_an_unwritable_place_is_one_line(tmp_path):
    """/proc refuses new files: one error line, exit 2, no traceback."""
    result = runner.invoke(app, ["devices", "-f", "csv", "-o", "/proc/perfcalc-test.csv"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: cannot write /proc/perfcalc-test.csv")


def test_version_and_short_help():
    """Issue #11: `--version` prints perfcalc.__version__; `-h` is `--help`."""
    from typer.testing import CliRunner

    import perfcalc
    from perfcalc.cli import app

    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout == f"perfcalc {perfcalc.__version__}\n"
    short, long = (CliRunner().invoke(app, ["occupancy", flag]) for flag in ("-h", "--help"))
    assert short.exit_code == 0 and short.stdout == long.stdout


def test_output_suffix_picks_the_format_and_dash_is_stdout(tmp_path, monkeypatch):
    """Issue #11: `-o o.csv` without `-f` wrote a text table into o.csv; `-o -` made a file '-'."""
    import csv

    from typer.testing import CliRunner

    from perfcalc.cli import app

    monkeypatch.chdir(tmp_path)
    args = ["devices", "show", "9.0"]
    assert CliRunner().invoke(app, [*args, "-o", "d.csv"]).exit_code == 0
    assert CliRunner().invoke(app, [*args, "-o", "-", "-f", "csv"]).stdout == (tmp_path / "d.csv").read_text()
    rows = list(csv.reader((tmp_path / "d.csv").open()))
    assert any(row[:2] == ["cc", "9.0"] for row in rows), rows[:3]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv"]
