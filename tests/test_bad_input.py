"""Issue #14's reproductions, one test each: bad input of any kind is one `error:` line naming the
value and the limit, exit code 2, no traceback, no hang (each case runs under a 30 s bound), and
nothing left on disk; legitimate input that used to fail gets the right answer.

The inputs are the issue's own (a 25,000-level YAML file, `((((3**64)**64)**64)**64)**64`, a
2**62 stride, ...). Cases that could crash or hang the interpreter run in a subprocess.
"""

from __future__ import annotations

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


def fails(*args: str, fragments: tuple[str, ...] = ()) -> str:
    """The command exits 2 with exactly one `error:` line containing every fragment."""
    result = runner.invoke(app, list(args))
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)
    return result.stderr


def fails_in_subprocess(*args: str, cwd: Path, fragments: tuple[str, ...] = ()) -> str:
    """As `fails`, in a fresh interpreter under the time bound (for crashes and hangs)."""
    proc = subprocess.run([sys.executable, "-m", "perfcalc", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=BOUND_S)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr[-2000:])
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: "), proc.stderr[-2000:]
    for fragment in fragments:
        assert fragment in proc.stderr, (fragment, proc.stderr)
    return proc.stderr


# --- expressions (--index, kernels.yaml): size, depth and every intermediate value bounded ---

LANE = {"lane": np.arange(32)}


@pytest.mark.parametrize(("text", "fragment"), [
    ("((((3**64)**64)**64)**64)**64", "2**63 - 1"),   # each exponent within the old limit: hung
    ("2**64", "2**63 - 1"),                           # used to become an index silently
    ("lane*3*2**61", "2**63 - 1"),                    # int64 arrays wrap silently in NumPy
    ("lane << -1", "negative count"),                 # gave 0; C leaves it undefined
    ("ceil_div(lane, 0)", "divides by zero"),         # exited 0
    ("min()", "min() takes at least 1"),              # TypeError traceback
    ("log2(0)", "log2"),                              # ValueError traceback
    ("sqrt(-1)", "sqrt"),
    ("~1.5", "~ needs an integer"),                   # TypeError traceback
    ("lane**-1", "negative power"),                   # NumPy ValueError traceback
    ("(" * 300 + "1" + ")" * 300, "cannot parse"),    # 300 nested parentheses
    ("+".join(["1"] * 1000), "limit is 100"),         # 1,000-term sum: RecursionError
    ("1e308*10", "not finite"),
])
def test_expression_failures_are_input_errors(text, fragment):
    with pytest.raises(InputError) as info:
        evaluate(text, LANE)
    assert fragment in str(info.value)


def test_a_huge_expression_gets_a_short_error_line():
    """A 10 MB --index used to echo 10 MB; the line is cut and names the length limit."""
    message = fails("coalesce", "--cc", "7.0", "--index", "x" * 10_000_000,
                    fragments=("10000000 characters", "limit is 4096"))
    assert len(message) < 300


def test_min_of_mixed_scalars_and_lanes_is_elementwise():
    """`min(lane, 3, lane*2)` used to fail inside NumPy; it is lane-wise min(lane, 3)."""
    np.testing.assert_array_equal(evaluate("min(lane, 3, lane*2)", LANE),
                                  np.minimum(np.arange(32), 3))


# --- options: integers past int64, NaN and infinity, addresses past 64 bits ---

def test_stride_that_wraps_the_address_space_is_refused():
    """2**62 x 4-byte words: lane 1 is at 2**64 bytes. It used to wrap to 0 and report 1 sector."""
    fails("coalesce", "--cc", "7.0", "--stride", str(2**62),
          fragments=("lane 1", "64-bit address space"))
    fails("banks", "--cc", "7.0", "--stride", str(2**62), fragments=("64-bit address space",))


@pytest.mark.parametrize("args", [
    ("coalesce", "--cc", "7.0", "--stride", "9223372036854775808"),  # OverflowError traceback
    ("occupancy", "--cc", "7.0", "--block", "256", "--regs", "9" * 30),  # parsed as text
])
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
    fails("occupancy", "--cc", "7.0", "--block", "256", "--regs", "9" * 5000,
          fragments=("--regs", "2**63 - 1"))


def test_a_newline_in_a_value_cannot_forge_a_second_error_line():
    message = fails("occupancy", "--cc", "x\nerror: forged", fragments=("x\\nerror: forged",))
    assert message.count("error:") == 2 and message.startswith("error: ")
