"""The C engine's built-in functions (sim/csubset/compile_calls.py), each against Python's own
`math` module (an independent implementation, in double precision, rounded to the argument's
type), plus fmaf's single rounding, __ldg, __syncwarp and the refusals of malformed calls."""

from __future__ import annotations

import math

import numpy as np
import pytest

from perfcalc.errors import CudaSyntaxError, PerfcalcError
from perfcalc.sim import run_kernel
from perfcalc.specs import get_arch

H100 = get_arch("9.0")
X = np.linspace(0.5, 1.5, 32)
Y = np.linspace(2.0, 0.25, 32)
FLOAT_ONE = {
    "sqrtf": math.sqrt,
    "expf": math.exp,
    "__expf": math.exp,
    "logf": math.log,
    "__logf": math.log,
    "fabsf": abs,
    "floorf": math.floor,
    "ceilf": math.ceil,
    "sinf": math.sin,
    "cosf": math.cos,
    "tanhf": math.tanh,
    "exp2f": lambda v: 2.0**v,
    "log2f": math.log2,
    "truncf": math.trunc,
    "rsqrtf": lambda v: 1 / math.sqrt(v),
}
DOUBLE_ONE = {name.rstrip("f"): fn for name, fn in FLOAT_ONE.items() if not name.startswith("__") and name != "rsqrtf"}
TWO = {
    "fminf": (min, np.float32),
    "fmaxf": (max, np.float32),
    "powf": (math.pow, np.float32),
    "__fdividef": (lambda a, b: a / b, np.float32),
    "fmin": (min, np.float64),
    "fmax": (max, np.float64),
    "pow": (math.pow, np.float64),
    "min": (min, np.float32),
    "max": (max, np.float32),
}


def _run(call: str, ctype: str, dtype: type, args: int = 1) -> np.ndarray:
    x, y = X.astype(dtype), Y.astype(dtype)
    out = np.zeros(32, dtype)
    params = f"const {ctype}* x, const {ctype}* y, {ctype}* out"
    operands = "x[i]" if args == 1 else "x[i], y[i]"
    run_kernel(
        f"__global__ void k({params}) {{ int i = threadIdx.x; out[i] = {call}({operands}); }}",
        "k",
        1,
        32,
        {"x": x, "y": y, "out": out},
        H100,
    )
    return out


@pytest.mark.parametrize("name", list(FLOAT_ONE))
def test_float_math_builtins(name):
    """Within 2 float32 ulps of math's double result rounded to float (NumPy's float32 routines
    are not correctly rounded everywhere; CUDA's own bound for sinf/expf is 2 ulps too)."""
    got = _run(name, "float", np.float32)
    want = np.array([FLOAT_ONE[name](float(v)) for v in X.astype(np.float32)], np.float32)
    assert np.all(np.abs(got - want) <= 2 * np.spacing(np.abs(want))), name


@pytest.mark.parametrize("name", list(DOUBLE_ONE))
def test_double_math_builtins(name):
    got = _run(name, "double", np.float64)
    want = np.array([DOUBLE_ONE[name](float(v)) for v in X])
    assert np.allclose(got, want, rtol=4e-16, atol=0), name


@pytest.mark.parametrize("name", list(TWO))
def test_two_argument_builtins(name):
    fn, dtype = TWO[name]
    ctype = "float" if dtype is np.float32 else "double"
    got = _run(name, ctype, dtype, args=2)
    want = np.array([fn(float(a), float(b)) for a, b in zip(X.astype(dtype), Y.astype(dtype), strict=True)], dtype)
    assert np.all(np.abs(got - want) <= 2 * np.spacing(np.abs(want).astype(dtype))), name


def test_integer_min_max_abs():
    """min/max keep int, abs(int) is the integer absolute value (C11 7.22.6.1)."""
    a = np.array([-5, 3, -1, 7], np.int32)
    b = np.array([2, -4, -1, 9], np.int32)
    out = np.zeros(12, np.int32)
    run_kernel(
        "__global__ void k(const int* a, const int* b, int* out) { int i = threadIdx.x;"
        " out[i] = min(a[i], b[i]); out[4 + i] = max(a[i], b[i]); out[8 + i] = abs(a[i]); }",
        "k",
        1,
        4,
        {"a": a, "b": b, "out": out},
        H100,
    )
    assert out.tolist() == [-5, -4, -1, 7, 2, 3, -1, 9, 5, 3, 1, 7]


def test_fmaf_rounds_once():
    """a = b = 1 + 2^-12: a*b = 1 + 2^-11 + 2^-24 exactly, which float32 rounds (a tie, to
    even) to 1 + 2^-11; so a*b - 1 is 2^-11 with two roundings and 2^-11 + 2^-24 with fmaf's
    one (IEEE 754 fusedMultiplyAdd). fmaf counts 2 flops per thread."""
    a = np.full(32, 1 + 2.0**-12, np.float32)
    out = np.zeros(64, np.float32)
    res = run_kernel(
        "__global__ void k(const float* a, float* out) { int i = threadIdx.x;"
        " out[i] = fmaf(a[i], a[i], -1.0f); float p = a[i] * a[i]; out[32 + i] = p - 1.0f; }",
        "k",
        1,
        32,
        {"a": a, "out": out},
        H100,
    )
    assert set(out[:32].tolist()) == {2.0**-11 + 2.0**-24}
    assert set(out[32:].tolist()) == {2.0**-11}
    assert res.counters.flops == 32 * 2 + 32 * 2  # fmaf: 2; the multiply and the subtraction: 1 each


def test_ldg_is_the_same_load_and_syncwarp_a_no_op():
    """__ldg(&x[i]) reads x[i] and counts as the same global load; __syncwarp() changes nothing
    (the lanes of a warp run in lock-step here)."""
    x = np.arange(64, dtype=np.float32)
    plain, ldg = np.zeros(64, np.float32), np.zeros(64, np.float32)
    body = "int i = blockIdx.x * blockDim.x + threadIdx.x; __syncwarp(); out[i] = {load} * 2.0f;"
    runs = [
        run_kernel(
            f"__global__ void k(const float* x, float* out) {{ {body.format(load=load)} }}",
            "k",
            2,
            32,
            {"x": x, "out": out},
            H100,
        )
        for load, out in (("x[i]", plain), ("__ldg(&x[i])", ldg))
    ]
    assert np.array_equal(plain, 2 * x) and np.array_equal(ldg, plain)
    assert runs[0].counters.global_load_transactions == runs[1].counters.global_load_transactions == 2 * 4


@pytest.mark.parametrize(
    "call, message",
    [
        ("sqrtf(x[i], x[i])", "takes one argument"),
        ("powf(x[i])", "takes two arguments"),
        ("fmaf(x[i], x[i])", "takes three arguments"),
        ("min(x[i])", "takes two arguments"),
        ("abs(x[i], x[i])", "takes one argument"),
        ("__ldg(x)", "__ldg"),
        ("frexpf(x[i])", "frexpf()"),
    ],
)
def test_malformed_calls_are_refused_with_their_reason(call, message):
    with pytest.raises(PerfcalcError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run_kernel(
            f"__global__ void k(const float* x, float* out) {{ int i = threadIdx.x; out[i] = {call}; }}",
            "k",
            1,
            32,
            {"x": np.ones(32, np.float32), "out": np.zeros(32, np.float32)},
            H100,
        )


def test_syncthreads_inside_an_expression_is_refused():
    with pytest.raises(CudaSyntaxError, match="statement of its own"):
        run_kernel(
            "__global__ void k(float* out) { int i = threadIdx.x; out[i] = (__syncthreads(), 1.0f); }",
            "k",
            1,
            32,
            {"out": np.zeros(32, np.float32)},
            H100,
        )
