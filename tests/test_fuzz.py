"""The fast slice of the fuzzing suite (issue #14), run in CI: every class of tests/fuzz_cases.py
on a few seeded cases, plus hypothesis searching CLI option values and index expressions. The
promise checked (fuzz_cases.run_case): exit 0, or exit 2 with one `error:` line; no traceback;
within 30 s; nothing left on disk. The long run (>= 10,000 cases a class) is
`python benchmarks/fuzz.py`, recorded in FUZZING.md.
"""

from __future__ import annotations

import random

import fuzz_cases as F
import fuzz_programs as P
import fuzz_shapes as S
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

CASES_PER_CLASS = 12


@pytest.mark.parametrize("name", list(F.CLASSES))
def test_fast_slice(name):
    generate = F.CLASSES[name]
    for i in range(CASES_PER_CLASS):
        case = generate(random.Random(f"{name}-{i}"))  # the long run's first seeds
        outcome = F.run_case(case)
        assert outcome.ok, (name, i, case.argv[:12], outcome.why)


@pytest.mark.parametrize("name", list(S.CASES))
def test_fast_slice_of_issue_37s_case_classes(name):
    for i in range(CASES_PER_CLASS):
        case = S.CASES[name](random.Random(f"{name}-{i}"))
        outcome = F.run_case(case)
        assert outcome.ok, (name, i, case.argv[:12], outcome.why)


@pytest.mark.parametrize("name", list(S.CHECKS))
def test_fast_slice_of_issue_37s_checked_classes(name):
    for i in range(40):
        outcome = S.CHECKS[name](random.Random(f"{name}-{i}"))
        assert outcome.ok, (name, i, outcome.why)


def test_fast_slice_of_whole_programs():
    """Issue 36: programs that crash, hang, allocate 2**40 bytes, fork, write without end."""
    from perfcalc.sim.ptx import toolchain

    if toolchain.route("auto") is None:
        pytest.skip("needs nvcc (cuda extra) and a host C++ compiler")
    for i in range(4):
        outcome = P.program_check(random.Random(f"whole programs-{i}"))
        assert outcome.ok, (i, P.program_case(random.Random(f"whole programs-{i}")), outcome.why)


def test_library_calls():
    for i in range(200):
        outcome = F.run_library_call(F.library_call(random.Random(f"lib-{i}")))
        assert outcome.ok, (i, outcome.why)


def test_outputs_under_signals():
    """SIGINT/SIGTERM at random moments: exit 0/130/143, one line, the whole file or none."""
    for i in range(10):
        outcome = F.run_signal_case(random.Random(f"sig-{i}"))
        assert outcome.ok, (i, outcome.why)


def test_kernel_sources_on_the_ptx_engine():
    from perfcalc.sim.ptx import nvrtc

    if not nvrtc.available():
        pytest.skip("the PTX engine needs the cuda extra (NVRTC)")
    for i in range(4):
        case = F.kernel_case(random.Random(f"ptx-{i}"), "ptx")
        outcome = F.run_case(case)
        assert outcome.ok, (i, outcome.why)
    for i in range(4):
        outcome = F.run_library_call(F.corpus_call(random.Random(f"corpus-{i}")))
        assert outcome.ok, (i, outcome.why)


_TEXT = st.one_of(st.sampled_from(F.NASTY_TEXT), st.text(max_size=40), st.integers().map(str), st.floats().map(repr))
_SLOW = settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


@_SLOW
@given(
    option=st.sampled_from(
        ["--block", "--regs", "--smem", "--carveout", "--cache-config", "--block-barriers", "--cc", "--gpu", "--sweep"]
    ),
    value=_TEXT,
)
def test_occupancy_option_values(option, value):
    argv = ["occupancy", "--cc", "7.0", "--block", "256", "--regs", "32", option, value]
    outcome = F.run_case(F.Case(argv))
    assert outcome.ok, (argv, outcome.why)


@_SLOW
@given(
    option=st.sampled_from(
        [
            "--stride",
            "--word",
            "--offset",
            "--base",
            "--tile-width",
            "--pad",
            "--active",
            "--segment",
            "--seed",
            "--struct-size",
        ]
    ),
    value=_TEXT,
    pattern=st.sampled_from(["stride", "tile-row", "aos", "random", "permuted"]),
)
def test_coalesce_option_values(option, value, pattern):
    argv = ["coalesce", "--cc", "7.0", "--pattern", pattern, option, value]
    outcome = F.run_case(F.Case(argv))
    assert outcome.ok, (argv, outcome.why)


@_SLOW
@given(seed=st.integers(0, 2**32))
def test_index_expressions(seed):
    text = F.expression(random.Random(seed))
    outcome = F.run_case(F.Case(["coalesce", "--cc", "7.0", "--index", text]))
    assert outcome.ok, (text, outcome.why)
