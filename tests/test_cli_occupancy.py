"""`perfcalc occupancy` through typer's CliRunner and one real subprocess.

Expected numbers are derived in each docstring from the allocation rules
(reference/occupancy.md; H13 = CUDA 13.0 cuda_occupancy.h) and devices/cc_X_Y.yaml, or are
the hardware measurements recorded in reference/occupancy.md (MEAS, H100). Error cases are
issue #2 item 6: one `error:` line naming value and limit, exit 2, no traceback, no file.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfcalc.cli import app

runner = CliRunner()
DATA = Path(__file__).parent / "data"
VOLTA = ["occupancy", "--cc", "7.0", "--block", "256", "--regs", "32"]


def run(*args: str):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def fail(*args: str, expect: tuple[str, ...] = ()):
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    for fragment in expect:
        assert fragment in result.stderr, (fragment, result.stderr)
    return result.stderr


def csv_table(*args: str) -> list[dict[str, str]]:
    """One command's CSV (one table, issue #11) as dicts."""
    return list(csv.DictReader(io.StringIO(run(*args, "-f", "csv").stdout)))


# --- one configuration -----------------------------------------------------------------------


def test_acceptance_volta_256_threads_32_registers():
    """Issue #2 acceptance: 8 blocks, 64 warps, 100 %. 256 threads = 8 warps; 32 x 32 = 1024
    registers per warp, 16384 per sub-partition -> 16 warps each -> 64 -> 8 blocks; warps:
    64 / 8 = 8 blocks."""
    out = run(*VOLTA).stdout
    occupancy_table = out[out.index("\nOccupancy\n") :]
    row = occupancy_table.splitlines()[4].split()
    assert row[:4] == ["8", "64", "2048", "100"]
    assert "nothing to change: 100 % theoretical occupancy" in out
    assert "<- limiter" in out
    # the CC's 18 physical limits only on request (issue #12: 56 lines, now 34)
    assert "max warps per SM" not in out and "max warps per SM" in run(*VOLTA, "--show-limits").stdout


def test_json_is_the_result_fields_plus_context():
    data = json.loads(run(*VOLTA, "--format", "json").stdout)
    result_fields = [
        "active_blocks_per_sm",
        "active_warps_per_sm",
        "active_threads_per_sm",
        "occupancy",
        "limiters",
        "block_limits",
        "allocated_registers_per_block",
        "allocated_shared_memory_per_block_bytes",
        "shared_memory_per_sm_bytes",
    ]
    assert all(f in data for f in result_fields)
    assert (data["active_blocks_per_sm"], data["active_warps_per_sm"], data["occupancy"]) == (8, 64, 1.0)
    assert data["limiters"] == ["warps", "registers"]
    assert data["allocated_registers_per_block"] == 8 * 1024
    assert data["inputs"]["block_size"] == 256 and data["cc"] == "7.0"
    assert data["device_limits"]["max_warps_per_sm"] == 64
    assert data["hints"][0]["kind"] == "none"


def test_csv_is_the_occupancy_row_and_table_picks_every_other_table():
    """One table per CSV (issue #11): the result row by default, each other section by name;
    'unlimited' is an empty cell and the limiters a boolean column."""
    (row,) = csv_table(*VOLTA)
    assert row == {
        "cc": "7.0",  # what the row is about leads it, so CSVs of several runs concatenate
        "block_size": "256",
        "registers_per_thread": "32",
        "static_shared_memory_bytes": "0",
        "dynamic_shared_memory_bytes": "0",
        "active_blocks_per_sm": "8",
        "active_warps_per_sm": "64",
        "active_threads_per_sm": "2048",
        "occupancy": "1.0",
        "limiters": "warps, registers",
    }
    limits = {r["limiter"]: r for r in csv_table(*VOLTA, "--table", "block_limits")}
    assert limits["warps"]["blocks_per_sm"] == "8" and limits["blocks"]["blocks_per_sm"] == "32"
    assert limits["shared memory"]["blocks_per_sm"] == ""
    assert [n for n, r in limits.items() if r["is_limiter"] == "True"] == ["warps", "registers"]
    for name, first in (("inputs", "input"), ("device_limits", "limit"), ("allocation", "resource")):
        assert list(csv_table(*VOLTA, "--table", name)[0])[0] == first


def test_markdown_output():
    out = run(*VOLTA, "-f", "markdown").stdout
    assert "## Occupancy" in out and "| active blocks/SM" in out


def test_hint_for_register_limited_kernel():
    """33 registers on CC 7.0 / 256 threads: 1280 registers per warp -> 12 warps per
    sub-partition -> 6 blocks (75 %); 32 registers give 8 blocks (see test_occupancy_hints)."""
    data = json.loads(run("occupancy", "--cc", "70", "--block", "256", "--regs", "33", "-f", "json").stdout)
    assert data["active_blocks_per_sm"] == 6 and data["occupancy"] == 0.75
    assert data["hints"][0]["message"] == (
        "registers limit you: <= 32 registers per thread would allow 8 blocks (100 % occupancy)"
    )


def test_zero_fit_is_a_result_with_a_reason():
    """Issue #2 item 6: 800 threads x 80 registers on 8.0 launch but fit no block (28 warps
    x 2560 = 71680 > 65536 registers per block): exit 0, 0 occupancy, and why."""
    result = run("occupancy", "--cc", "8.0", "--block", "800", "--regs", "80")
    assert "no block fits on an SM" in result.stdout and "71680" in result.stdout
    data = json.loads(run("occupancy", "--cc", "sm_80", "--block", "800", "--regs", "80", "-f", "json").stdout)
    assert data["active_blocks_per_sm"] == 0 and data["occupancy"] == 0
    assert "71680" in data["zero_fit_reason"]


def test_measured_h100_carveout_case():
    """reference/occupancy.md MEAS (H100 runtime = H13): 128 threads, 10 registers, 15360 B
    dynamic smem, carveout 50 %: 114 KB rounds up to 132 KB -> 8 blocks."""
    data = json.loads(
        run(
            "occupancy",
            "--cc",
            "9.0",
            "--block",
            "128",
            "--regs",
            "10",
            "--dyn-smem",
            "15K",
            "--carveout",
            "50",
            "-f",
            "json",
        ).stdout
    )
    assert data["active_blocks_per_sm"] == 8
    assert data["shared_memory_per_sm_bytes"] == 132 * 1024
    assert data["inputs"]["dynamic_shared_memory_bytes"] == 15360


def test_named_carveouts():
    """max-l1 = 0 % (cudaSharedmemCarveoutMaxL1): with 20000 B the driver grows the 0 KB
    preference to the first capacity that holds one block, 32 KB (H13) -> 1 block."""
    data = json.loads(
        run(
            "occupancy",
            "--cc",
            "7.0",
            "--block",
            "128",
            "--regs",
            "32",
            "--dyn-smem",
            "20000",
            "--carveout",
            "max-l1",
            "-f",
            "json",
        ).stdout
    )
    assert data["inputs"]["carveout"] == 0
    assert data["shared_memory_per_sm_bytes"] == 32 * 1024
    assert data["active_blocks_per_sm"] == 1


# --- sweeps, plot, suggestion ----------------------------------------------------------------


def test_register_sweep_steps():
    """CC 7.0, 256 threads: blocks = 4 x (16384 // roundUp(32 r, 256)) // 8, capped at 8 by the
    warps: 8 up to 32 registers, 6 for 33-40, 5 for 41-48, 4 for 49-64, 3 for 65-80, 2 for
    81-128, 1 for 129-255."""
    out = run("occupancy", "--cc", "7.0", "--block", "256", "--regs", "33", "--sweep", "regs", "-f", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    steps = {}
    for r in rows:
        steps.setdefault(int(r["active_blocks_per_sm"]), []).append((int(r["from"]), int(r["to"])))
    assert {b: (s[0][0], s[-1][1]) for b, s in steps.items()} == {
        8: (0, 32),
        6: (33, 40),
        5: (41, 48),
        4: (49, 64),
        3: (65, 80),
        2: (81, 128),
        1: (129, 255),
    }
    current = [r for r in rows if r["current"] == "True"]
    assert len(current) == 1 and (current[0]["from"], current[0]["to"]) == ("33", "40")


def test_block_sweep_marks_a_block_size_between_warp_multiples():
    """CC 7.0, 100 threads, 32 registers: 100 threads take 4 warps like 97..128 do, so the
    current point lies in the 97-128 step: 64 // 4 = 16 blocks (warps and registers tie,
    1024 registers per warp -> 64 warps). 65..96 threads take 3 warps: 21 blocks, 63 warps."""
    out = run("occupancy", "--cc", "7.0", "--block", "100", "--regs", "32", "--sweep", "block", "-f", "csv").stdout
    rows = {(r["from"], r["to"]): r for r in csv.DictReader(io.StringIO(out))}
    assert rows[("97", "128")]["current"] == "True"
    assert rows[("97", "128")]["active_blocks_per_sm"] == "16"
    assert (rows[("65", "96")]["active_blocks_per_sm"], rows[("65", "96")]["active_warps_per_sm"]) == ("21", "63")


def test_block_and_smem_sweeps_json():
    """CC 9.0, 10 registers (reference/occupancy.md MEAS, default carveout): 128 threads with
    15360 B dynamic smem -> 14 blocks (allocation 16384 with the 1 KB reserve); 128 threads
    with 7168 B -> 16 blocks (warp-limited). Block sweep: 32..1024 in steps of 32."""
    data = json.loads(
        run(
            "occupancy",
            "--cc",
            "9.0",
            "--block",
            "128",
            "--regs",
            "10",
            "--dyn-smem",
            "15360",
            "--sweep",
            "smem",
            "--sweep",
            "block",
            "-f",
            "json",
        ).stdout
    )
    by_axis = {s["axis"]: s for s in data["sweeps"]}
    assert (list(by_axis), data["cc"], data["inputs"]["registers_per_thread"]) == (
        ["shared_memory_per_block_bytes", "block_size"],
        "9.0",
        10,
    )
    smem = {p["shared_memory_per_block_bytes"]: p for p in by_axis["shared_memory_per_block_bytes"]["points"]}
    assert smem[15360]["active_blocks_per_sm"] == 14 and smem[7168]["active_blocks_per_sm"] == 16
    assert by_axis["shared_memory_per_block_bytes"]["current"] == 15360
    blocks = [p["block_size"] for p in by_axis["block_size"]["points"]]
    assert blocks == list(range(32, 1025, 32))


def test_sweep_all_gives_three_tables():
    out = run(*VOLTA, "--sweep", "all").stdout
    for title in (
        "Impact of Varying Block Size",
        "Impact of Varying Register Count Per Thread",
        "Impact of Varying Shared Memory Usage Per Block",
    ):
        assert title in out


def test_plot_png(tmp_path):
    pytest.importorskip("matplotlib", reason="the plot extra (matplotlib) is not installed")
    target = tmp_path / "occ.png"
    run(*VOLTA, "--plot", str(target))
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_without_matplotlib_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # makes `import matplotlib` fail
    target = tmp_path / "occ.svg"
    fail(*VOLTA, "--plot", str(target), expect=("pip install 'perfcalc[plot]'",))
    assert not target.exists()


def test_suggest_measured_h100():
    """reference/occupancy.md MEAS: a 10-register kernel on H100 gives blockSize 1024
    (2 blocks = 2048 threads; smaller blocks tie at 2048 threads and lose the tie rule)."""
    data = json.loads(run("occupancy", "--cc", "9.0", "--regs", "10", "--suggest", "-f", "json").stdout)["suggestion"]
    assert data["block_size"] == 1024 and data["active_blocks_per_sm"] == 2
    assert data["ranking"][0]["block_size"] == 1024
    assert [c["block_size"] for c in data["ranking"][:5]] == [1024, 512, 256, 128, 64]


def test_suggest_marks_the_current_block():
    out = run("occupancy", "--cc", "9.0", "--regs", "10", "--suggest", "--block", "640").stdout
    line = next(x for x in out.splitlines() if "<- current" in x)
    assert line.split()[1] == "640"


# --- ptxas logs ------------------------------------------------------------------------------


def test_ptxas_each_kernel_on_its_own_target():
    """ptxas_seeds_sm75_sm90.txt: 6 kernels for sm_75, 6 for sm_90. MatrixMulKernel on 7.5
    (52 registers, 256 threads): 1664 -> 1792 per warp, 16384 // 1792 = 9 per sub-partition
    -> 36 warps -> 4 blocks, and 7.5's 32 warp slots also allow 4: 100 %."""
    out = run("occupancy", "--ptxas", str(DATA / "ptxas_seeds_sm75_sm90.txt"), "--block", "256", "-f", "csv").stdout
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["cc"] for r in rows] == ["7.5"] * 6 + ["9.0"] * 6
    naive = next(r for r in rows if r["kernel"].startswith("MatrixMulKernel") and r["cc"] == "7.5")
    assert (naive["registers_per_thread"], naive["active_blocks_per_sm"], naive["occupancy"]) == ("52", "4", "1.0")


def test_ptxas_on_another_cc_says_so():
    """The sm_75 log evaluated on 8.6 (48 warps): MatrixMulKernel's 52 registers give
    4 blocks = 32 warps = 66.67 %, and the note says the registers came from sm_75."""
    out = run("occupancy", "--ptxas", str(DATA / "ptxas_seeds_sm75.txt"), "--cc", "8.6", "--block", "256").stdout
    assert "compiled for sm_75; ptxas may allocate differently for CC 8.6" in out
    line = next(x for x in out.splitlines() if x.startswith("MatrixMulKernel"))
    assert "66.67" in line
    data = json.loads(
        run("occupancy", "--ptxas", str(DATA / "ptxas_seeds_sm90.txt"), "--block", "256", "-f", "json").stdout
    )
    tiled = next(k for k in data["kernels"] if k["kernel"]["name"] == "_Z21SharedMatrixMulKernelPfS_S_i")
    assert tiled["occupancy"]["inputs"]["static_shared_memory_bytes"] == 2048
    assert tiled["occupancy"]["inputs"]["block_barriers"] == 1


def test_ptxas_picks_the_kernels_compiled_for_the_cc():
    """With --cc 9.0 the two-target log contributes only its 6 sm_90 entries, and no note."""
    data = json.loads(
        run(
            "occupancy",
            "--ptxas",
            str(DATA / "ptxas_seeds_sm75_sm90.txt"),
            "--cc",
            "9.0",
            "--block",
            "256",
            "-f",
            "json",
        ).stdout
    )
    assert [k["kernel"]["compiled_for"] for k in data["kernels"]] == ["sm_90"] * 6
    assert data["notes"] == []


def test_ptxas_suggest():
    data = json.loads(run("occupancy", "--ptxas", str(DATA / "ptxas_seeds_sm90.txt"), "--suggest", "-f", "json").stdout)
    assert len(data["kernels"]) == 6
    assert all(k["suggestion"]["block_size"] == 1024 for k in data["kernels"])


# --- bad input (issue #2 item 6) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expect"),
    [
        (["--cc", "4.0", "--block", "256", "--regs", "32"], ("'4.0'", "known: 1.0")),
        (["--cc", "7.0", "--block", "0", "--regs", "32"], ("block size 0", "1024")),
        (["--cc", "7.0", "--block", "-32", "--regs", "32"], ("block size -32",)),
        (["--cc", "7.0", "--block", "2048", "--regs", "32"], ("2048", "1024", "max_threads_per_block")),
        (["--cc", "1.0", "--block", "1024", "--regs", "10"], ("1024", "512")),
        (["--cc", "7.0", "--block", "256", "--regs", "256"], ("256 registers", "255", "max_registers_per_thread")),
        (["--cc", "7.0", "--block", "256", "--regs", "-1"], ("-1 registers",)),
        (["--cc", "7.0", "--block", "256", "--regs", "32", "--smem", "-5"], ("-5 bytes", "negative")),
        (["--cc", "7.0", "--block", "256", "--regs", "32", "--smem", "49153"], ("49153", "49152")),
        (["--cc", "7.0", "--block", "256", "--regs", "32", "--smem", "lots"], ("'lots'",)),
        (["--cc", "7.0", "--block", "256", "--regs", "32", "--carveout", "101"], ("101", "0..100")),
        (["--cc", "7.0", "--block", "256", "--regs", "32", "--carveout", "half"], ("'half'",)),
        (["--cc", "5.2", "--block", "256", "--regs", "32", "--carveout", "50"], ("5.2", "carveout")),
        (["--cc", "7.0", "--block", "256", "--regs", "32", "--cache-config", "big"], ("'big'",)),
        (["--cc", "7.0", "--block", "256", "--regs", "32", "--sweep", "threads"], ("'threads'",)),
        (["--cc", "7.0", "--block", "256"], ("--regs is required",)),
        (["--cc", "7.0", "--regs", "32"], ("--block is required",)),
        (["--cc", "7.0", "--block", "many", "--regs", "32"], ("many",)),
    ],
)
def test_bad_input_is_one_line(args, expect):
    fail("occupancy", *args, expect=expect)


def test_unwritable_output_writes_nothing(tmp_path):
    target = tmp_path / "missing" / "out.txt"
    fail(*VOLTA, "-o", str(target), expect=("does not exist",))
    assert not target.exists()


def test_bad_input_leaves_no_partial_file(tmp_path):
    target = tmp_path / "out.json"
    fail("occupancy", "--cc", "7.0", "--block", "4096", "--regs", "32", "-f", "json", "-o", str(target))
    assert list(tmp_path.iterdir()) == []


def test_output_file(tmp_path):
    target = tmp_path / "out.json"
    assert run(*VOLTA, "-f", "json", "-o", str(target)).stdout == ""
    assert json.loads(target.read_text())["active_warps_per_sm"] == 64


@pytest.mark.parametrize(
    ("make", "expect"),
    [
        (lambda d: d / "absent.txt", ("cannot read ptxas file",)),
        (lambda d: (d / "notes.txt", (d / "notes.txt").write_text("hello\n"))[0], ("no kernel resource usage found",)),
        (lambda d: DATA / "ptxas_error_sm80.txt", ("failed compilation", "0xc000 max")),
    ],
)
def test_bad_ptxas_files(tmp_path, make, expect):
    fail("occupancy", "--cc", "8.0", "--block", "256", "--ptxas", str(make(tmp_path)), expect=expect)


def test_ptxas_conflicting_options():
    fail(
        "occupancy",
        "--ptxas",
        str(DATA / "ptxas_seeds_sm90.txt"),
        "--block",
        "256",
        "--regs",
        "32",
        expect=("--regs and --smem come from the ptxas file",),
    )


def test_plot_needs_png_svg_or_pdf(tmp_path):
    fail(*VOLTA, "--plot", str(tmp_path / "occ.jpg"), expect=(".png, .svg or .pdf",))


# --- a real process --------------------------------------------------------------------------


def test_real_subprocess():
    """`python -m perfcalc` as a user runs it: the acceptance answer, and a bad CC."""
    ok = subprocess.run(
        [sys.executable, "-m", "perfcalc", *VOLTA, "-f", "json"], capture_output=True, text=True, timeout=60
    )
    assert ok.returncode == 0, ok.stderr
    data = json.loads(ok.stdout)
    assert (data["active_blocks_per_sm"], data["active_warps_per_sm"], data["occupancy"]) == (8, 64, 1.0)
    bad = subprocess.run(
        [sys.executable, "-m", "perfcalc", "occupancy", "--cc", "4.0", "--block", "256", "--regs", "32"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.startswith("error: unknown compute capability '4.0'")
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_ptxas_log_piped_in_as_dash():
    """`--ptxas -` reads the log from standard input (issue #11): the same 12 kernels as the file."""
    log = (DATA / "ptxas_seeds_sm75_sm90.txt").read_text()
    piped = runner.invoke(app, ["occupancy", "--ptxas", "-", "--block", "256", "-f", "csv"], input=log)
    assert piped.exit_code == 0, piped.stderr
    assert (
        piped.stdout
        == run("occupancy", "--ptxas", str(DATA / "ptxas_seeds_sm75_sm90.txt"), "--block", "256", "-f", "csv").stdout
    )
    empty = runner.invoke(app, ["occupancy", "--ptxas", "-", "--block", "256"], input="")
    assert empty.exit_code == 2 and "standard input" in empty.stderr


def test_several_gpus_are_one_tidy_frame_with_a_gpu_column(tmp_path):
    """Issue 35: occupancy on three products, its CSV one pandas frame with a gpu column and
    numeric columns. Expected values from the register file: 256 threads x 64 registers = 16384
    registers a block, 65536 per SM -> 4 blocks, 32 warps: 32/64 = 50 % on CC 9.0 and 10.0,
    32/48 on CC 8.9 (48 warps per SM)."""
    import pandas as pd

    out = tmp_path / "occ.csv"
    r = runner.invoke(
        app,
        [
            "occupancy",
            "--gpu",
            "h100-sxm",
            "--gpu",
            "b200",
            "--gpu",
            "rtx4090",
            "--block",
            "256",
            "--regs",
            "64",
            "-o",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    frame = pd.read_csv(out)
    assert frame["gpu"].tolist() == ["h100-sxm", "b200", "rtx4090"]
    assert frame["occupancy"].tolist() == pytest.approx([0.5, 0.5, 32 / 48])
    assert frame["active_warps_per_sm"].tolist() == [32, 32, 32]
    for column in ("occupancy", "active_blocks_per_sm", "active_warps_per_sm", "sm_count", "max_warps_per_sm"):
        assert pd.api.types.is_numeric_dtype(frame[column]), column


@pytest.mark.parametrize(
    ("extra", "says"),
    [
        (["--gpu", "h100-sxm"], "is given twice"),
        (["--gpu", "b200", "--cc", "9.0"], "leave out --cc"),
        (["--gpu", "b200", "--suggest"], "leave out --cc, --source, --ptxas, --sweep, --plot and --suggest"),
    ],
)
def test_several_gpus_refuse_what_needs_one(extra, says):
    r = runner.invoke(app, ["occupancy", "--gpu", "h100-sxm", "--block", "256", "--regs", "64", *extra])
    assert r.exit_code == 2
    assert says in r.output and "Traceback" not in r.output


def test_every_form_of_the_json_has_the_same_keys():
    """Issue 35: one shape whatever the options; what was not asked for is null (or empty)."""
    forms = [
        ("--cc", "9.0", "--block", "256", "--regs", "32"),
        ("--gpu", "h100-sxm", "--block", "256", "--regs", "32", "--grid", "1000"),
        ("--cc", "9.0", "--block", "256", "--regs", "32", "--sweep", "block"),
        ("--cc", "9.0", "--regs", "32", "--suggest"),
        ("--gpu", "h100-sxm", "--gpu", "b200", "--block", "256", "--regs", "32"),
        ("--ptxas", str(DATA / "ptxas_seeds_sm90.txt"), "--block", "256"),
        ("--ptxas", str(DATA / "ptxas_seeds_sm90.txt"), "--suggest"),
    ]
    docs = [json.loads(run("occupancy", *argv, "-f", "json").stdout) for argv in forms]
    assert all(list(d) == list(docs[0]) for d in docs)
    single, grid, swept, suggested, gpus, ptxas, ptxas_suggested = docs
    assert single["active_blocks_per_sm"] == 8 and single["waves"] is None and single["suggestion"] is None
    assert grid["active_blocks_per_sm"] == 8 and grid["waves"]["grid_blocks"] == 1000
    assert swept["active_blocks_per_sm"] is None and swept["sweeps"][0]["axis"] == "block_size"
    assert suggested["suggestion"]["block_size"] > 0 and suggested["occupancy"] is None
    assert [g["gpu"] for g in gpus["gpus"]] == ["h100-sxm", "b200"] and gpus["cc"] is None
    assert ptxas["kernels"] and ptxas_suggested["kernels"] and ptxas["notes"] is not None
