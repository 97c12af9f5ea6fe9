"""The safe expression evaluator used by kernels.yaml and `--index`: arithmetic only, never code."""

import numpy as np
import pytest

from perfcalc.errors import InputError
from perfcalc.expr import evaluate, names_in


def test_kernel_geometry_expressions():
    """Launch geometry of the seeds' matmul: Width/TILE_WIDTH blocks per edge (1024/16 = 64)."""
    names = {"Width": 1024, "TILE_WIDTH": 16}
    assert evaluate("Width // TILE_WIDTH", names) == 64
    assert evaluate("(Width // TILE_WIDTH) ** 2", names) == 4096  # seed 000: 4096 blocks
    assert evaluate("ceil_div(1000, 256)") == 4
    assert evaluate("max(1, min(3, 2))") == 2
    assert evaluate("1 if Width > 512 else 0", names) == 1


def test_lane_expressions_broadcast():
    """`lane*2+1` over the 32 lanes of a warp gives the odd word indices 1..63."""
    lane = np.arange(32)
    np.testing.assert_array_equal(evaluate("lane*2+1", {"lane": lane}), 2 * lane + 1)
    np.testing.assert_array_equal(evaluate("lane if lane < 16 else 0", {"lane": lane}), np.where(lane < 16, lane, 0))
    assert names_in("lane*stride + ceil(x)") == {"lane", "stride", "x"}


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('true')",
        "lane.real",
        "[1, 2][0]",
        "'abc'",
        "open('x')",
        "min(x=1)",
    ],
)
def test_anything_but_arithmetic_is_refused(text):
    """Calls, attributes, subscripts and strings are refused before anything runs."""
    with pytest.raises(InputError):
        evaluate(text, {"lane": 1})


def test_errors_name_the_problem():
    with pytest.raises(InputError, match="unknown name 'Height'"):
        evaluate("Height * 2", {"Width": 4})
    with pytest.raises(InputError, match="cannot parse"):
        evaluate("lane *", {"lane": 1})
    with pytest.raises(InputError, match="divides by zero"):
        evaluate("1 // 0")


def test_division_by_zero_in_an_array_is_an_error_not_a_warning():
    """NumPy returns 0 or inf with a RuntimeWarning for lane // 0; a user must get an error."""
    lane = np.arange(32)
    for text in ("lane // 0", "lane % 0", "lane / 0", "lane // (lane - lane)"):
        with pytest.raises(InputError, match="divides by zero"):
            evaluate(text, {"lane": lane})


def test_huge_powers_are_refused_before_they_are_computed():
    """9**9**9 would take minutes and gigabytes of Python integer arithmetic."""
    with pytest.raises(InputError, match="exceeds the limit of 64"):
        evaluate("9**9**9")
    with pytest.raises(InputError, match="exceeds the limit of 64"):
        evaluate("1 << 100")
    assert evaluate("2**10") == 1024
