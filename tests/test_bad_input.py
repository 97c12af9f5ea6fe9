"""Issue #14's reproductions, one test each: bad input of any kind is one `error:` line naming the
value and the limit, exit code 2, no traceback, no hang (each case runs under a 30 s bound), and
nothing left on disk; legitimate input that used to fail gets the right answer.

The inputs are the issue's own (a 25,000-level YAML file, `((((3**64)**64)**64)**64)**64`, a
2**62 stride, ...). Cases that could crash or hang the interpreter run in a subprocess.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from perfcalc.cli import app
from perfcalc.errors import InputError
from perfcalc.expr import evaluate

runner = CliRunner()
BOUND_S = 30


def one_error(stderr: str) -> bool:
    """One `error:` line; a source error may add the quoted line and its caret (indented)."""
    lines = stderr.rstrip("\n").split("\n")
    return (
        stderr.endswith("\n")
        and lines[0].startswith("error: ")
        and len(lines) <= 3
        and all(line.startswith("    ") for line in lines[1:])
    )


def fails(*args: str, fragments: tuple[str, ...] = ()) -> str:
    """The command exits 2 with one `error:` line containing every fragment."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert one_error(result.stderr), result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)
    return result.stderr


def fails_in_subprocess(*args: str, cwd: Path, fragments: tuple[str, ...] = ()) -> str:
    """As `fails`, in a fresh interpreter under the time bound (for crashes and hangs)."""
    proc = subprocess.run(
        [sys.executable, "-m", "perfcalc", *args], cwd=cwd, capture_output=True, text=True, timeout=BOUND_S
    )
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr[-2000:])
    assert one_error(proc.stderr), proc.stderr[-2000:]
    for fragment in fragments:
        assert fragment in proc.stderr, (fragment, proc.stderr)
    return proc.stderr


# --- expressions (--index, kernels.yaml): size, depth and every intermediate value bounded ---

LANE = {"lane": np.arange(32)}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("((((3**64)**64)**64)**64)**64", "2**63 - 1"),  # each exponent within the old limit: hung
        ("2**64", "2**63 - 1"),  # used to become an index silently
        ("lane*3*2**61", "2**63 - 1"),  # int64 arrays wrap silently in NumPy
        ("lane << -1", "negative count"),  # gave 0; C leaves it undefined
        ("ceil_div(lane, 0)", "divides by zero"),  # exited 0
        ("min()", "min() takes at least 1"),  # TypeError traceback
        ("log2(0)", "log2"),  # ValueError traceback
        ("sqrt(-1)", "sqrt"),
        ("~1.5", "~ needs an integer"),  # TypeError traceback
        ("lane**-1", "negative power"),  # NumPy ValueError traceback
        ("(" * 300 + "1" + ")" * 300, "cannot parse"),  # 300 nested parentheses
        ("+".join(["1"] * 1000), "limit is 100"),  # 1,000-term sum: RecursionError
        ("1e308*10", "not finite"),
    ],
)
def test_expression_failures_are_input_errors(text, fragment):
    with pytest.raises(InputError) as info:
        evaluate(text, LANE)
    assert fragment in str(info.value)


def test_a_huge_expression_gets_a_short_error_line():
    """A 10 MB --index used to echo 10 MB; the line is cut and names the length limit."""
    message = fails(
        "coalesce", "--cc", "7.0", "--index", "x" * 10_000_000, fragments=("10000000 characters", "limit is 4096")
    )
    assert len(message) < 300


def test_min_of_mixed_scalars_and_lanes_is_elementwise():
    """`min(lane, 3, lane*2)` used to fail inside NumPy; it is lane-wise min(lane, 3)."""
    np.testing.assert_array_equal(evaluate("min(lane, 3, lane*2)", LANE), np.minimum(np.arange(32), 3))


# --- options: integers past int64, NaN and infinity, addresses past 64 bits ---


def test_stride_that_wraps_the_address_space_is_refused():
    """2**62 x 4-byte words: lane 1 is at 2**64 bytes. It used to wrap to 0 and report 1 sector."""
    fails("coalesce", "--cc", "7.0", "--stride", str(2**62), fragments=("lane 1", "64-bit address space"))
    fails("banks", "--cc", "7.0", "--stride", str(2**62), fragments=("64-bit address space",))


@pytest.mark.parametrize(
    "args",
    [
        ("coalesce", "--cc", "7.0", "--stride", "9223372036854775808"),  # OverflowError traceback
        ("occupancy", "--cc", "7.0", "--block", "256", "--regs", "9" * 30),  # parsed as text
    ],
)
def test_integers_past_int64_are_refused_naming_the_option(args):
    fails(*args, fragments=(args[-2], "2**63 - 1"))


def test_nan_intensity_is_refused():
    """`roofline -i nan` printed a NaN row."""
    fails("roofline", "--gpu", "h100-sxm", "-i", "nan", fragments=("--intensity nan", "finite"))


def test_infinite_latency_is_refused():
    """`matmul --latency-cycles inf` predicted inf seconds."""
    fails("matmul", "--latency-cycles", "inf", fragments=("--latency-cycles inf", "finite"))


def test_a_5000_digit_register_count_is_refused():
    """int() of 5,000 digits raises ValueError in Python 3.11; the option names the int64 limit."""
    fails("occupancy", "--cc", "7.0", "--block", "256", "--regs", "9" * 5000, fragments=("--regs", "2**63 - 1"))


def test_a_newline_in_a_value_cannot_forge_a_second_error_line():
    message = fails("occupancy", "--cc", "x\nerror: forged", fragments=("x\\nerror: forged",))
    assert message.count("error:") == 2 and message.startswith("error: ")


# --- files: nesting, aliases, encodings, FIFOs, huge numbers and names ---

SHIPPED_90 = Path(__file__).resolve().parents[1] / "devices" / "cc_9_0.yaml"


def test_a_25000_level_device_file_is_refused_not_a_crash(tmp_path):
    """libyaml composed it recursively and the interpreter died with SIGSEGV (exit 139)."""
    (tmp_path / "deep.yaml").write_text("[" * 25000 + "]" * 25000)
    fails_in_subprocess(
        "occupancy",
        "--cc",
        "deep.yaml",
        "--block",
        "256",
        cwd=tmp_path,
        fragments=("deep.yaml", "nested more than 64 levels"),
    )


def test_a_5000_level_device_file_is_refused(tmp_path):
    (tmp_path / "deep.yaml").write_text("[" * 5000 + "]" * 5000)  # was a RecursionError traceback
    fails("occupancy", "--cc", str(tmp_path / "deep.yaml"), "--block", "256", fragments=("nested more than 64 levels",))


def test_billion_laughs_is_refused_in_bounded_time(tmp_path):
    """Ten levels of ten aliases each: 10**10 nodes once `specs/arch.py` copies the aliases."""
    lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]']
    lines += [f"a{i}: &a{i} [{','.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
    path = tmp_path / "laughs.yaml"
    path.write_text(SHIPPED_90.read_text() + "laughs:\n" + "".join(f"  {x}\n" for x in lines))
    fails_in_subprocess(
        "occupancy",
        "--cc",
        str(path),
        "--block",
        "256",
        cwd=tmp_path,
        fragments=("more than 1000000 values", "aliases"),
    )


def test_a_utf16_device_file_reads_as_the_utf8_one(tmp_path):
    """A UTF-16 file (with its byte-order mark) was a UnicodeDecodeError traceback."""
    path = tmp_path / "utf16.yaml"
    path.write_bytes(SHIPPED_90.read_text().encode("utf-16"))
    args = ("occupancy", "--block", "256", "--regs", "64", "--format", "json")
    expected = runner.invoke(app, [*args, "--cc", "9.0"])
    got = runner.invoke(app, [*args, "--cc", str(path)])
    assert got.exit_code == 0 and expected.exit_code == 0
    assert json_results(got.stdout) == json_results(expected.stdout)


def json_results(text: str) -> object:
    import json

    data = json.loads(text)
    data.pop("device", None)
    return data.get("occupancy", data.get("results", data))


def test_a_latin1_device_file_is_refused_naming_the_encoding(tmp_path):
    path = tmp_path / "latin.yaml"
    path.write_bytes(("# caf\xe9\n" + SHIPPED_90.read_text()).encode("latin-1"))
    fails("occupancy", "--cc", str(path), "--block", "256", fragments=("not UTF-8", "0xe9", "offset 5"))


@pytest.mark.parametrize("option", ["--cc", "--ptxas", "--source", "--array"])
def test_a_fifo_is_refused_instead_of_blocking(tmp_path, option):
    """Opening a FIFO for reading blocks until a writer comes: it hung forever."""
    fifo = tmp_path / "pipe.yaml"  # --cc reads names ending in .yaml as files
    os.mkfifo(fifo)
    kernel = tmp_path / "k.cu"
    kernel.write_text("__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n")
    args = {
        "--cc": ("occupancy", "--cc", str(fifo), "--block", "256"),
        "--ptxas": ("occupancy", "--cc", "9.0", "--block", "256", "--ptxas", str(fifo)),
        "--source": (
            "run",
            "--source",
            str(fifo),
            "--kernel",
            "k",
            "--grid",
            "1",
            "--block",
            "32",
            "--array",
            "x=float32:32",
        ),
        "--array": (
            "run",
            "--source",
            str(kernel),
            "--kernel",
            "k",
            "--grid",
            "1",
            "--block",
            "32",
            "--array",
            f"x=@{fifo}",
        ),
    }[option]
    fails_in_subprocess(*args, cwd=tmp_path, fragments=("FIFO", "only regular files"))


def test_a_40kb_number_in_a_ptxas_log_is_refused_in_linear_time(tmp_path):
    """The regular expressions backtracked over it from every start: 115-123 s."""
    log = tmp_path / "p.log"
    log.write_text("ptxas info    : Used " + "9" * 40000 + " registers\n")
    fails_in_subprocess(
        "occupancy",
        "--cc",
        "9.0",
        "--block",
        "256",
        "--ptxas",
        str(log),
        cwd=tmp_path,
        fragments=("line 1", "40000 digits", "2**63 - 1"),
    )


def test_a_deeply_nested_mangled_name_is_shown_as_printed(tmp_path):
    """A 5,000-level mangled name overflowed the demangler's recursion (traceback)."""
    from perfcalc.model.ptxas import demangle

    assert demangle("_Z1f" + "P" * 5000 + "i") is None
    assert demangle("_Z1f" + "P" * 900 + "i") == "f(int" + "*" * 900 + ")"  # within the limits
    log = tmp_path / "m.log"
    log.write_text(
        "ptxas info    : Compiling entry function '_Z1f"
        + "P" * 5000
        + "i' for 'sm_90'\nptxas info    : Used 32 registers, 0 bytes smem\n"
    )
    result = runner.invoke(app, ["occupancy", "--cc", "9.0", "--block", "256", "--ptxas", str(log)])
    assert result.exit_code == 0 and "_Z1fPPPP" in result.stdout


@pytest.mark.parametrize(
    ("encoded", "what"),
    [
        ("// caf\xe9\n".encode("latin-1"), "a Latin-1 comment (was a UnicodeDecodeError traceback)"),
        (b"\xef\xbb\xbf", "a UTF-8 byte-order mark (was 'illegal character')"),
    ],
)
def test_sources_with_latin1_comments_or_a_bom_run(tmp_path, encoded, what):
    path = tmp_path / "k.cu"
    path.write_bytes(encoded + b"__global__ void k(float *x) { x[threadIdx.x] = 2.0f; }\n")
    result = runner.invoke(
        app,
        [
            "run",
            "--source",
            str(path),
            "--kernel",
            "k",
            "--grid",
            "1",
            "--block",
            "32",
            "--array",
            "x=float32:32",
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, (what, result.stderr)


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("cc", "'abc'", "cc must be written 'X.Y'"),
        ("shared_memory_carveouts_kb", "[]", "shared_memory_carveouts_kb must list at least one"),
        ("max_block_dim", "'abc'", "max_block_dim must be a list of the form [int, int, int]"),
        ("max_block_dim", "5", "max_block_dim must be a list"),  # "object of type 'int' has no len()"
        ("max_threads_per_block", "1" + "0" * 30, "max_threads_per_block must be an integer from 0 to 2147483647"),
    ],
)
def test_device_files_that_used_to_pass_and_then_crash(tmp_path, key, value, fragment):
    import re

    path = tmp_path / "dev.yaml"
    path.write_text(re.sub(rf"(?m)^{key}:.*$", f"{key}: {value}", SHIPPED_90.read_text()))
    fails("occupancy", "--cc", str(path), "--block", "256", fragments=("dev.yaml", fragment))


# --- the C engine's preprocessor and front end ---

ELIF_SOURCE = """#if defined(SMALL)
#define BS 8
#elif defined(BIG)
#define BS 32
#else
#define BS 16
#endif
__global__ void k(float *x) { x[threadIdx.x] = BS; }
"""


@pytest.mark.parametrize(("defines", "expected"), [({}, "16"), ({"SMALL": 1}, "8"), ({"BIG": 1}, "32")])
def test_elif_selects_what_cpp_selects(defines, expected):
    """The block size chosen under #elif came out 16 instead of 32 with the -D that selects 32."""
    from perfcalc.sim.csubset.frontend import parse_source

    assert parse_source(ELIF_SOURCE, "e.cu", defines).defines["BS"] == expected


@pytest.mark.parametrize(
    ("directives", "expected"),
    [
        # a group inside a skipped group is skipped whole (its #else must not switch anything on)
        ("#ifdef NOPE\n#if 1\n#define V 1\n#else\n#define V 2\n#endif\n#else\n#define V 3\n#endif\n", "3"),
        # C's integer rules: division truncates toward zero, 010 is octal, unknown names are 0
        ("#if (-7/2 == -3) && (-7%2 == -1) && (010 == 8) && (0x10 == 16) && !UNKNOWN\n#define V 4\n#endif\n", "4"),
        ("#define N 256\n#if N >= 256 ? defined N : 0\n#define V 5\n#endif\n", "5"),
    ],
)
def test_if_expressions_follow_cpp(directives, expected):
    from perfcalc.sim.csubset.frontend import parse_source

    source = directives + "__global__ void k(float *x) { x[0] = V; }\n"
    assert parse_source(source, "c.cu").defines["V"] == expected


def test_a_line_splice_inside_a_statement_is_removed_as_cpp_does(tmp_path):
    """`x = \\<newline> 1.0f;` was refused with "illegal character '\\'"."""
    path = tmp_path / "s.cu"
    path.write_text("__global__ void k(float *x) { x[threadIdx.x] = \\\n 3.0f; }\n")
    result = runner.invoke(
        app, ["run", "--source", str(path), "--kernel", "k", "--grid", "1", "--block", "32", "--array", "x=float32:32"]
    )
    assert result.exit_code == 0, result.stderr


def test_exponential_macros_are_refused_in_bounded_time(tmp_path):
    """20 levels of `#define An (An-1+An-1)`: 36-62 s and 400 MB, then exit 0."""
    path = tmp_path / "m.cu"
    path.write_text(
        "#define A0 1\n"
        + "".join(f"#define A{i} (A{i - 1}+A{i - 1})\n" for i in range(1, 21))
        + "__global__ void k(float *x) { x[threadIdx.x] = A20; }\n"
    )
    fails_in_subprocess(
        "run",
        "--engine",
        "source",
        "--source",
        str(path),
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "32",
        "--array",
        "x=float32:32",
        cwd=tmp_path,
        fragments=("macro A20", "100000 characters"),
    )


def test_a_2000_deep_define_chain_is_refused_by_name(tmp_path):
    path = tmp_path / "c.cu"
    path.write_text(
        "#define B0 1\n"
        + "".join(f"#define B{i} B{i - 1}\n" for i in range(1, 2001))
        + "__global__ void k(float *x) { x[threadIdx.x] = B2000; }\n"
    )
    fails(
        "run",
        "--engine",
        "source",
        "--source",
        str(path),
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "32",
        "--array",
        "x=float32:32",
        fragments=("macro B2000", "200 macros deep"),
    )


def test_two_definitions_of_one_kernel_are_refused(tmp_path):
    """Two `__global__ void k` were accepted; C and nvcc reject a redefinition."""
    path = tmp_path / "two.cu"
    path.write_text(
        "__global__ void k(float *x) { x[threadIdx.x] = 1.0f; }\n"
        "__global__ void k(float *x) { x[threadIdx.x] = 2.0f; }\n"
    )
    fails(
        "run",
        "--engine",
        "source",
        "--source",
        str(path),
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "32",
        "--array",
        "x=float32:32",
        fragments=("two.cu:2:", "redefinition of 'k'", "line 1"),
    )


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("300 nested parentheses", "x[threadIdx.x] = " + "(" * 300 + "1.0f" + ")" * 300 + ";"),
        ("a 1,000-term sum", "x[threadIdx.x] = " + "+".join(["1.0f"] * 1000) + ";"),
        ("300 nested ifs", "if (threadIdx.x < 64) { " * 300 + "x[threadIdx.x] = 1.0f;" + " }" * 300),
    ],
)
def test_nesting_past_the_source_engines_limit_is_one_line(tmp_path, name, body):
    """Each was a RecursionError traceback; the PTX engine (NVRTC) runs them."""
    path = tmp_path / "deep.cu"
    path.write_text("__global__ void k(float *x) { " + body + " }\n")
    fails(
        "run",
        "--engine",
        "source",
        "--source",
        str(path),
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "32",
        "--array",
        "x=float32:32",
        fragments=("nests too deeply", "--engine ptx"),
    )


def test_a_500_deep_device_call_chain_is_one_line(tmp_path):
    path = tmp_path / "calls.cu"
    path.write_text(
        "__device__ float f0(float a) { return a; }\n"
        + "".join(f"__device__ float f{i}(float a) {{ return f{i - 1}(a); }}\n" for i in range(1, 501))
        + "__global__ void k(float *x) { x[threadIdx.x] = f500(1.0f); }\n"
    )
    fails(
        "run",
        "--engine",
        "source",
        "--source",
        str(path),
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "32",
        "--array",
        "x=float32:32",
        fragments=("nests too deeply",),
    )


# --- simulations: every launch estimated and bounded; faithful results ---


def test_a_launch_of_1e19_threads_is_refused_before_it_starts(tmp_path):
    """`run --grid 2147483647,65535,65535` was accepted with no work estimate."""
    path = tmp_path / "k.cu"
    path.write_text("__global__ void k(float *x) { x[0] = 1.0f; }\n")
    fails_in_subprocess(
        "run",
        "--source",
        str(path),
        "--kernel",
        "k",
        "--grid",
        "2147483647,65535,65535",
        "--block",
        "1",
        "--array",
        "x=float32:32",
        cwd=tmp_path,
        fragments=("would take about", "over the limit of 600 s"),
    )


def test_an_exact_run_past_the_limit_is_refused_before_its_first_wave(tmp_path):
    """Issue 35: `run matmul_tiled -p Width=4096 --gpu h100-sxm --exact` simulated its first wave
    of 1056 blocks for 22 s (199 s on the reporter's machine) before refusing, and then told the
    user to add --gpu, which was given. (4096/16)^2 = 65536 blocks; the cost is now estimated
    from SM 0's first-wave blocks before any wave runs, and the advice is to leave out --exact.
    The 5 s limit is below what even the first wave needs, so the first-wave refusal cannot be
    the one that answers."""
    stderr = fails_in_subprocess(
        *("run", "matmul_tiled", "-p", "Width=4096", "--gpu", "h100-sxm", "--exact", "--max-seconds", "5"),
        cwd=tmp_path,
        fragments=("simulating all 65536 blocks (--exact)", "limit of 5 s", "leave out --exact"),
    )
    assert "--gpu to" not in stderr and "Loop still running" not in stderr


@pytest.mark.parametrize(
    ("name", "body"),
    [
        # `stride >>= 0` never ends; the loop around a barrier ran 10**6 iterations: 185-201 s
        (
            "a barrier loop",
            "int stride = 4; while (stride > 0) { __syncthreads(); x[threadIdx.x] += 1.0f; stride >>= 0; }",
        ),
        # each loop is under the iteration cap; together they ran for minutes
        (
            "nested loops",
            "float s = 0; for (int i = 0; i < 10000; i++) for (int j = 0; j < 10000; j++)"
            " s += 1.0f; x[threadIdx.x] = s;",
        ),
    ],
)
def test_endless_or_huge_loops_end_at_the_time_limit(tmp_path, name, body):
    path = tmp_path / "k.cu"
    path.write_text("__global__ void k(float *x) { " + body + " }\n")
    fails_in_subprocess(
        "run",
        "--source",
        str(path),
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "32",
        "--array",
        "x=float32:32",
        "--max-seconds",
        "2",
        cwd=tmp_path,
        fragments=("limit of 2 s", "may never finish", "k.cu:1"),
    )


@pytest.mark.parametrize("engine", ["source", "ptx"])
def test_every_lane_storing_to_one_element_keeps_the_highest_lane(engine):
    """`x[0] = threadIdx.x` was a ValueError in store_lanes. The Programming Guide leaves the
    winner undefined; both engines keep the highest-numbered lane's value (block 1, lane 63)."""
    from perfcalc.sim import run_kernel
    from perfcalc.sim.ptx import nvrtc

    if engine == "ptx" and not nvrtc.available():
        pytest.skip("the PTX engine needs the cuda extra (NVRTC)")
    source = (
        "__global__ void k(float *x) { x[0] = threadIdx.x + 100 * blockIdx.x;"
        " if (threadIdx.x < 40) x[1] = threadIdx.x; }\n"
    )
    x = np.zeros(4, np.float32)
    run_kernel(source, "k", grid=2, block=64, args={"x": x}, arch="9.0", engine=engine)
    assert x.tolist() == [163.0, 39.0, 0.0, 0.0]


def test_a_shared_array_whose_size_overflows_is_refused_as_too_big(tmp_path):
    """2**32 x 2**32 floats wrapped to 0 bytes in NumPy and became an out-of-bounds write."""
    path = tmp_path / "k.cu"
    path.write_text(
        "__global__ void k(float *x) { __shared__ float s[4294967296][4294967296];"
        " s[0][threadIdx.x] = 1; x[threadIdx.x] = s[0][threadIdx.x]; }\n"
    )
    fails(
        "run",
        "--engine",
        "source",
        "--source",
        str(path),
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "32",
        "--array",
        "x=float32:32",
        fragments=("73786976294838206464 bytes", "exceeds the limit 49152"),
    )


# --- options that were silently ignored or overridden ---

SCALARS_CU = "__global__ void k(float *x, int n, bool b) { if (threadIdx.x < n) x[threadIdx.x] = b; }\n"


def _scalars_source(tmp_path: Path) -> str:
    path = tmp_path / "s.cu"
    path.write_text(SCALARS_CU)
    return str(path)


def test_a_repeated_param_is_refused(tmp_path):
    """`-p n=3 -p n=4` kept the last."""
    fails(
        "run",
        "--source",
        _scalars_source(tmp_path),
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "32",
        "--array",
        "x=float32:32",
        "-p",
        "n=3",
        "-p",
        "n=4",
        "-p",
        "b=1",
        fragments=("--param n is given twice", "3 and 4"),
    )


def test_a_param_with_the_name_of_an_array_is_refused(tmp_path):
    """`-p x=3` replaced `--array x=...`."""
    fails(
        "run",
        "--source",
        _scalars_source(tmp_path),
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "32",
        "--array",
        "x=float32:32",
        "-p",
        "x=3",
        "-p",
        "n=4",
        "-p",
        "b=1",
        fragments=("x is given twice",),
    )


def test_nan_for_an_int_parameter_is_refused(tmp_path):
    """`-p n=nan` was a ValueError traceback."""
    fails(
        "run",
        "--source",
        _scalars_source(tmp_path),
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "32",
        "--array",
        "x=float32:32",
        "-p",
        "n=nan",
        "-p",
        "b=1",
        fragments=("'n=nan'", "not a finite number"),
    )


def test_a_bool_kernel_parameter_takes_0_or_1(tmp_path):
    """A `bool` parameter was a ValueError from np.iinfo; C converts 1 to true, 2 is refused."""
    args = [
        "run",
        "--engine",
        "source",
        "--source",
        _scalars_source(tmp_path),
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "32",
        "--array",
        "x=float32:32",
        "-p",
        "n=4",
    ]
    assert runner.invoke(app, [*args, "-p", "b=1"]).exit_code == 0
    fails(*args, "-p", "b=2", fragments=("b = 2", "bool parameter needs true/false or 0/1"))


def test_catalog_with_source_is_refused(tmp_path):
    """`--catalog` (even a missing file) was ignored with --source."""
    fails(
        "run",
        "--source",
        _scalars_source(tmp_path),
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "32",
        "--array",
        "x=float32:32",
        "-p",
        "n=4",
        "-p",
        "b=1",
        "--catalog",
        "missing.yaml",
        fragments=("--catalog goes with a catalog KERNEL",),
    )


def test_index_with_another_pattern_is_refused():
    """`--pattern stride --index 'lane*2'` ignored the index."""
    fails(
        "coalesce",
        "--cc",
        "7.0",
        "--pattern",
        "stride",
        "--index",
        "lane*2",
        fragments=("--index goes with --pattern index",),
    )


def test_an_empty_gpu_name_is_not_the_g80():
    fails("roofline", "--gpu", "", fragments=("unknown GPU ''",))


# --- outputs: all or nothing, through symlinks, never onto FIFOs or odd names ---

OCC = ("occupancy", "--cc", "7.0", "--block", "256", "--regs", "32", "-f", "csv")


def test_output_through_a_symlink_writes_its_target(tmp_path):
    """The link used to be replaced by a regular file."""
    (tmp_path / "link.csv").symlink_to("target.csv")
    result = runner.invoke(app, [*OCC, "--output", str(tmp_path / "link.csv")])
    assert result.exit_code == 0, result.stderr
    assert (tmp_path / "link.csv").is_symlink()
    assert (tmp_path / "target.csv").read_text().splitlines()[1].startswith("7.0,256,")


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("", "empty path"),
        ("newname/", "ending in '/' must be an existing directory"),  # wrote a file 'newname'
        ("a" * 300, "300 bytes, over the limit of 255"),  # OSError traceback
    ],
)
def test_output_names_that_cannot_be_files(tmp_path, monkeypatch, name, fragment):
    monkeypatch.chdir(tmp_path)
    fails(*OCC, "--output", name, fragments=(fragment,))
    assert list(tmp_path.iterdir()) == []


def test_output_onto_a_fifo_is_refused(tmp_path):
    os.mkfifo(tmp_path / "out.fifo")
    fails_in_subprocess(*OCC, "--output", str(tmp_path / "out.fifo"), cwd=tmp_path, fragments=("not a regular file",))


def test_report_with_an_empty_output_does_not_write_into_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    fails("report", "--gpu", "h100-sxm", "--no-times", "--output", "", fragments=("empty path",))
    assert list(tmp_path.iterdir()) == []


def test_a_failing_second_file_removes_the_first(tmp_path, monkeypatch):
    """`roofline --output r.txt --plot r.png` left r.txt when the plot failed."""
    from perfcalc.errors import OutputError
    from perfcalc.report import roofline_plot

    def broken(roof, points, path, *args, **kwargs):
        raise OutputError(f"cannot write {path}: No space left on device")

    monkeypatch.setattr(roofline_plot, "plot_roofline", broken)
    fails(
        "roofline",
        "--gpu",
        "h100-sxm",
        "--output",
        str(tmp_path / "r.txt"),
        "--plot",
        str(tmp_path / "r.png"),
        fragments=("No space left",),
    )
    assert list(tmp_path.iterdir()) == []


def test_report_under_a_file_size_limit_leaves_nothing(tmp_path):
    """A full disk left an empty directory or 5 of 8 files; RLIMIT_FSIZE makes writes fail the
    same way (EFBIG) after the first few files."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (3000, 3000))

    # matplotlib builds its font list once per machine (~/.cache/matplotlib); on a fresh machine
    # that first write would fail under the limit too, with matplotlib's own warnings on stderr.
    subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"], check=True, capture_output=True)
    proc = subprocess.run(
        [sys.executable, "-m", "perfcalc", "report", "--gpu", "h100-sxm", "--no-times", "-o", "rep"],
        cwd=tmp_path,
        preexec_fn=limit,
        capture_output=True,
        text=True,
        timeout=BOUND_S,
    )
    assert proc.returncode == 2 and one_error(proc.stderr), proc.stderr
    assert "File too large" in proc.stderr
    assert list(tmp_path.iterdir()) == []


def _tree(root: Path) -> list[str] | None:
    """Every file under `root`, relative and sorted (None: no `root`)."""
    if not root.exists():
        return None
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


# A child that sends itself SIGTERM on the N-th call of one function of the report's path: the
# signal lands at a named moment, not at a time that a loaded machine moves (issue 35).
_SIGNAL_AT = """
import os, runpy, signal, sys
import perfcalc.cli.progress as progress
import perfcalc.report.figures as figures
import perfcalc.report.output as output
where, nth = sys.argv[1], int(sys.argv[2])
owner, name = {
    "import": (figures, "matplotlib_module"), "step": (progress.Progress, "step"),
    "figure": (figures, "figure_bytes"), "write": (output, "write_atomic"), "rename": (output.os, "replace"),
}[where]
original, calls = getattr(owner, name), [0]
def call(*args, **kwargs):
    calls[0] += 1
    if calls[0] == nth:
        os.kill(os.getpid(), signal.SIGTERM)
    return original(*args, **kwargs)
setattr(owner, name, call)
sys.argv = ["perfcalc", *sys.argv[3:]]
runpy.run_module("perfcalc", run_name="__main__")
"""

# (function, which call): matplotlib's import (the CI failure's moment), each table built (4
# without --no-times' kernels), the two figures, the first, a middle and the last file written,
# and the renames that publish them (signals held there: the report is then complete).
_SIGNAL_MOMENTS = [
    ("import", 1),
    *[("step", k) for k in (1, 2, 3, 4)],
    ("figure", 1),
    ("figure", 2),
    *[("write", k) for k in (1, 6, 12)],
    ("rename", 1),
    ("rename", 12),
]


def test_report_under_sigterm_leaves_nothing_or_everything(tmp_path):
    """SIGTERM during `report` once left a `.ceilings.csv.XXXX` temporary, and once (in matplotlib's
    import) half a report. Here the signal arrives at each named moment of the report's path:
    before the renames nothing may be left, after them everything; exit 143 and the one line.
    What a complete report holds comes from one uninterrupted run. (Random moments: python
    benchmarks/fuzz.py --signals N, FUZZING.md.)"""
    import signal

    args = ["report", "--gpu", "h100-sxm", "--no-times", "-o", "rep"]
    whole = tmp_path / "whole"
    whole.mkdir()
    subprocess.run([sys.executable, "-m", "perfcalc", *args], cwd=whole, check=True, capture_output=True)
    everything = _tree(whole / "rep")
    assert everything is not None and len(everything) == 12 and "index.html" in everything
    for where, nth in _SIGNAL_MOMENTS:
        out = tmp_path / f"{where}{nth}"
        out.mkdir()
        proc = subprocess.run(
            [sys.executable, "-c", _SIGNAL_AT, where, str(nth), *args],
            cwd=out,
            capture_output=True,
            text=True,
            timeout=BOUND_S,
        )
        moment = (where, nth, proc.stderr[-400:])
        assert _tree(out / "rep") == (everything if where == "rename" else None), moment
        assert [p.name for p in out.iterdir()] == (["rep"] if where == "rename" else []), moment
        assert proc.returncode == 128 + signal.SIGTERM, moment
        assert proc.stderr == "error: terminated (SIGTERM); no partial output was left\n", moment


def test_a_signal_that_a_library_wrapped_still_ends_as_a_signal(cli, monkeypatch):
    """The flaky failure of the test above, made certain: Python 3.11 wraps an exception raised
    inside a class's __set_name__ in a RuntimeError, so a SIGTERM landing while matplotlib was
    being imported reached the error boundary as a RuntimeError and printed a traceback (exit 1).
    Here the command raises that same wrapping; the answer must be the signal's one line."""
    import signal

    from perfcalc.cli import Stopped, perf

    def wrapped(*_args):
        try:
            raise Stopped(signal.SIGTERM)
        except Stopped as stop:
            raise RuntimeError("Error calling __set_name__ on '_axis_method_wrapper'") from stop

    monkeypatch.setattr(perf, "gpu_target", wrapped)
    result = cli.runner.invoke(app, ["roofline", "--gpu", "h100-sxm"])
    assert result.exit_code == 143 and result.stdout == "", (result.exit_code, result.stdout)
    assert result.stderr == "error: terminated (SIGTERM); no partial output was left\n"


def test_a_signal_a_library_swallowed_into_an_error_of_its_own_still_ends_as_the_signal(cli, monkeypatch):
    """issue 36's long SIGTERM class, trial 257 of 1,100: a SIGTERM inside matplotlib's Agg
    renderer came out as "ValueError: Invalid bounding box" with no trace of the signal (the C++
    code dropped the exception the handler raised), a traceback and exit 1. Here a library
    catches the handler's Stopped and raises its own error afterwards; the answer must be the
    signal's one line."""
    import contextlib
    import signal

    from perfcalc.cli import guards, perf

    def swallowed(*_args):
        with contextlib.suppress(guards.Stopped):  # a C extension clears the error and goes on
            guards.on_signal(signal.SIGTERM, None)
        raise ValueError("Invalid bounding box")

    monkeypatch.setattr(guards, "RECEIVED", [])
    monkeypatch.setattr(perf, "gpu_target", swallowed)
    result = cli.runner.invoke(app, ["roofline", "--gpu", "h100-sxm"])
    assert result.exit_code == 143 and result.stdout == "", (result.exit_code, result.stdout, result.exception)
    assert result.stderr == "error: terminated (SIGTERM); no partial output was left\n"


def test_a_signal_an_earlier_command_handled_does_not_answer_for_a_later_one(cli, monkeypatch):
    """The fallback above reads the signals the handler recorded; in one process (tests, a
    notebook) commands follow each other, so a signal an earlier command handled must not turn a
    later command's own failure into "terminated"."""
    from perfcalc.cli import guards, perf

    def fails(*_args):
        raise ValueError("a bug of this command")

    monkeypatch.setattr(guards, "RECEIVED", guards.RECEIVED)
    guards.RECEIVED[:] = [15]  # left by an earlier command in this process
    monkeypatch.setattr(perf, "gpu_target", fails)
    result = cli.runner.invoke(app, ["roofline", "--gpu", "h100-sxm"])
    guards.RECEIVED.clear()
    assert isinstance(result.exception, ValueError) and result.exit_code == 1, (result.exit_code, result.stderr)


def test_a_signal_inside_matplotlibs_import_is_not_taken_for_a_missing_matplotlib(monkeypatch):
    """The CI failure of test_report_under_sigterm (reproduced here 1 in ~300 runs, at 0.37 s): a
    C extension whose import a signal interrupts raises ImportError("initialization failed") from
    it (pybind11's way), `matplotlib_module()` took that for "not installed", the report went on
    without its figures and Python's shutdown then crashed (SIGABRT, half a report left)."""
    import builtins

    from perfcalc.cli import Stopped
    from perfcalc.report.figures import matplotlib_module

    real_import = builtins.__import__

    def interrupted(name, *args, **kwargs):
        if name == "matplotlib":
            try:
                raise Stopped(15)
            except Stopped as stop:
                raise ImportError("initialization failed") from stop
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", interrupted)
    with pytest.raises(Stopped):
        matplotlib_module()


def test_a_missing_matplotlib_is_still_named_as_missing(monkeypatch):
    """The other side: an ImportError with no signal behind it is the 'plot' extra's one line."""
    import builtins

    from perfcalc.errors import OutputError
    from perfcalc.report.figures import matplotlib_module

    real_import = builtins.__import__

    def missing(name, *args, **kwargs):
        if name == "matplotlib":
            raise ModuleNotFoundError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", missing)
    with pytest.raises(OutputError, match=r"pip install 'perfcalc\[plot\]'"):
        matplotlib_module()


def test_an_error_with_no_signal_behind_it_is_not_taken_for_one(cli, monkeypatch):
    """The other side: a RuntimeError that no signal caused still surfaces as itself."""
    from perfcalc.cli import perf

    def broken(*_args):
        raise RuntimeError("a bug")

    monkeypatch.setattr(perf, "gpu_target", broken)
    result = cli.runner.invoke(app, ["roofline", "--gpu", "h100-sxm"])
    assert isinstance(result.exception, RuntimeError) and str(result.exception) == "a bug"


# --- the library raises perfcalc's errors (which also subclass the matching builtin) ---

LIB_SOURCE = "__global__ void k(float *x, int n) { if (threadIdx.x < n) x[threadIdx.x] = A; }\n"


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"source": None}, "source must be the CUDA C text"),  # was AttributeError
        ({"bank_mode": "abc"}, "bank_mode = 'abc' must be 4 or 8"),  # was accepted
        ({"defines": {"A": "1; x[0] = 5"}}, "not statements"),  # was pasted into the source
        ({"dynamic_shared_memory_bytes": True}, "dynamic_shared_memory_bytes = True"),
        ({"args": {"x": np.zeros(32, np.float32), "n": float("nan")}}, "needs an integer"),
        ({"max_seconds": float("nan")}, "max_seconds = nan"),
    ],
)
def test_run_kernel_validates_its_arguments(change, fragment):
    from perfcalc.sim import run_kernel

    call = {
        "source": LIB_SOURCE,
        "kernel": "k",
        "grid": 1,
        "block": 32,
        "arch": "9.0",
        "args": {"x": np.zeros(32, np.float32), "n": 4},
        "defines": {"A": 1},
        **change,
    }
    with pytest.raises(InputError) as info:
        run_kernel(**call)
    assert fragment in str(info.value) and isinstance(info.value, ValueError)


def test_get_arch_of_a_list_is_a_perfcalc_error():
    """`get_arch([9, 0])` was a TypeError (unhashable list) from the cache."""
    from perfcalc.errors import UnknownDeviceError
    from perfcalc.specs import get_arch

    with pytest.raises(UnknownDeviceError, match="got list"):
        get_arch([9, 0])


def test_block_barriers_past_the_ptx_limit_are_refused():
    """block_barriers=10**30 gave an occupancy of 0 instead of an error."""
    import perfcalc

    with pytest.raises(InputError, match="16 named barriers"):
        perfcalc.occupancy("9.0", 256, 32, block_barriers=10**30)


@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("aliases", 1.5, "aliases must be a list"),  # 'float' object is not iterable
        ("memory_type", 7, "memory_type must be a string"),  # 'int' has no attribute 'lower'
        ("peak_fp32_gflops", "fast", "peak_fp32_gflops must be a finite number"),
        # fuzzing seed 'product files-231': matmul divided by it (ZeroDivisionError)
        ("l2_bandwidth_gbs", 0, "l2_bandwidth_gbs must be > 0 or null"),
    ],
)
def test_product_files_with_wrong_types_name_the_key(tmp_path, key, value, fragment):
    """Found by the fuzzing suite's product-file class (tests/fuzz_cases.py)."""
    import yaml

    data = yaml.safe_load((SHIPPED_90.parent / "products.yaml").read_text())
    product = next(p for p in data["products"] if p["key"] == "h100-sxm")
    product[key] = value
    data["products"] = [product]
    path = tmp_path / "g.yaml"
    path.write_text(yaml.safe_dump(data))
    fails("roofline", "--gpu", str(path), fragments=(fragment,))


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (("matmul", "--width", "2147483648", "--no-simulate"), ("2**63 - 1",)),  # was OverflowError
        (("run", "copy_stride", "-p", "n=10**30"), ("'n=10**30'", "not a number")),
    ],
)
def test_sizes_past_int64_are_one_line(args, fragments):
    fails(*args, fragments=fragments)


def test_an_array_of_1e30_elements_is_refused(tmp_path):
    path = tmp_path / "k.cu"
    path.write_text("__global__ void k(float4 *x) { }\n")
    fails(
        "run",
        "--source",
        str(path),
        "--kernel",
        "k",
        "--grid",
        "1",
        "--block",
        "32",
        "--array",
        "x=float4:10**30",
        fragments=("element count '10**30'",),
    )


def test_occupancy_plot_failure_removes_the_table(tmp_path, monkeypatch):
    """`occupancy --output o.json --plot p.png` left o.json when the plot failed."""
    from perfcalc.errors import OutputError
    from perfcalc.report import occupancy_plot

    def broken(sweeps, path, title, *args):
        raise OutputError(f"cannot write {path}: No space left on device")

    monkeypatch.setattr(occupancy_plot, "draw_sweeps", broken)
    fails(
        "occupancy",
        "--cc",
        "7.0",
        "--block",
        "256",
        "--regs",
        "32",
        "-f",
        "json",
        "--output",
        str(tmp_path / "o.json"),
        "--plot",
        str(tmp_path / "p.png"),
        fragments=("No space",),
    )
    assert list(tmp_path.iterdir()) == []


def test_a_memory_error_without_detail_still_says_what(monkeypatch):
    """ "not enough memory on this machine: ; try smaller sizes" had an empty detail."""
    from perfcalc.analysis import occupancy_answers

    def exhausted(*args, **kwargs):
        raise MemoryError()

    monkeypatch.setattr(occupancy_answers, "advise", exhausted)
    fails(
        "occupancy",
        "--cc",
        "7.0",
        "--block",
        "256",
        "--regs",
        "32",
        fragments=("not enough memory on this machine: an allocation failed",),
    )


def test_a_block_size_past_int64_is_an_error_not_a_numpy_warning():
    """1e300 is a whole float: the int64 cast warned ("invalid value") and gave garbage."""
    import warnings

    import perfcalc

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InputError, match="beyond the limit of 2\\*\\*63 - 1"):
            perfcalc.occupancy("9.0", 1e300, 32)


def test_an_arch_with_a_malformed_cc_is_a_spec_error():
    import dataclasses

    from perfcalc.errors import SpecError
    from perfcalc.specs import get_arch

    with pytest.raises(SpecError, match="cc must be written 'X.Y'"):
        dataclasses.replace(get_arch("9.0"), cc="x.y")


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("occupancy", "--cc", "7.0", "--cc", "9.0", "--block", "256", "--regs", "32"), "--cc is given twice"),
        (("occupancy", "--cc", "7.0", "--block=256", "--regs", "32", "--block", "128"), "--block is given twice"),
        (
            ("run", "copy_offset", "--regs", "32", "--max-seconds", "9", "--regs=40"),
            "--regs is given twice",
        ),
    ],
)
def test_an_option_that_takes_one_value_is_given_once(args, fragment):
    """A repeated `--cc` or `--gpu` silently kept the last; repeatable ones (-p NAME=V, --gpu in
    run, --array) still repeat."""
    fails(*args, fragments=(fragment,))


@pytest.mark.parametrize(
    ("call", "fragment"),
    [
        (lambda p: p.global_access("2.0", np.arange(32) * 4, 4, cache=np.arange(3)), "cache takes str | None"),
        (lambda p: p.shared_access("3.5", np.arange(32) * 4, 4, bank_mode=np.arange(32)), "bank_mode takes int"),
        (lambda p: p.global_access("9.0", np.arange(32) * 4, 4, op=np.zeros(5)), "op"),
    ],
)
def test_access_functions_refuse_arrays_where_a_name_belongs(call, fragment):
    """Found by the fuzzing suite's library class: `x not in (...)` on an array raised NumPy's
    "truth value of an array is ambiguous" ValueError."""
    import perfcalc

    with pytest.raises(InputError, match=re.escape(fragment)):
        call(perfcalc)


def test_a_compiler_crash_is_one_error_line(monkeypatch):
    """NVRTC crashed with SIGSEGV on a mutated template functor (fuzzing seed corpus-160) and
    took perfcalc down; compilations now run in a child process whose crash is an error."""
    from perfcalc.errors import CudaSyntaxError
    from perfcalc.sim.ptx import nvrtc

    crash = [sys.executable, "-I", "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"]
    monkeypatch.setattr(nvrtc, "child_command", lambda: crash)
    monkeypatch.setattr(nvrtc, "version", lambda: "13.0")
    monkeypatch.setattr(nvrtc, "library_path", lambda: "libnvrtc.so")
    with pytest.raises(CudaSyntaxError, match=r"NVRTC 13.0 crashed \(SIGSEGV\) compiling k.cu"):
        nvrtc.compile_isolated("__global__ void k() {}", "k.cu", [], [])


def test_the_fuzzing_seed_that_crashed_nvrtc_is_an_error():
    import random

    import fuzz_cases as F

    from perfcalc.sim.ptx import nvrtc

    if not nvrtc.available():
        pytest.skip("the PTX engine needs the cuda extra (NVRTC)")
    outcome = F.run_library_call(F.corpus_call(random.Random("corpus-160")))
    assert outcome.ok, outcome.why
