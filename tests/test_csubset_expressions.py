"""The C engine's expressions (sim/csubset/compile_exprs.py): what C says a few less common
forms evaluate to, and a clear refusal, naming the construct and its place, for every form it
does not take."""

from __future__ import annotations

import numpy as np
import pytest

from perfcalc.errors import CudaSyntaxError
from perfcalc.sim import run_kernel
from perfcalc.specs import get_arch

H100 = get_arch("9.0")
X = np.linspace(0.5, 1.5, 32).astype(np.float32)


def _run(body: str) -> np.ndarray:
    out = np.zeros(32, np.float32)
    source = "__global__ void k(const float* x, float* out) { int i = threadIdx.x; " + body + " }"
    run_kernel(source, "k", 1, 32, {"x": X.copy(), "out": out}, H100)
    return out


@pytest.mark.parametrize(
    "body, value",
    [
        ("out[i] = gridDim.x;", 1.0),  # one block
        ("out[i] = 'a';", 97.0),  # C11 6.4.4.4: an int with the character's code (ASCII)
        ("out[i] = sizeof(float);", 4.0),
        ("out[i] = !x[i];", 0.0),  # C11 6.5.3.3p5: !E is 0 for E != 0 (x >= 0.5)
        ("out[i] = x[i] > 2.0f ? x[i] : 2.0f;", 2.0),
        ("out[i] = (0 && x[i] > 1.0f) ? 1.0f : 2.0f;", 2.0),  # 6.5.13: 0 && ... is 0
        ("out[i] = (1 || x[i] > 1.0f) ? 1.0f : 2.0f;", 1.0),  # 6.5.14: 1 || ... is 1
        ("int a = (1, 2); out[i] = a;", 2.0),  # 6.5.17: the comma operator's value is the right one
    ],
)
def test_less_common_forms_evaluate_as_c_says(body, value):
    assert set(_run(body).tolist()) == {value}


@pytest.mark.parametrize(
    "body, message",
    [
        ("int b = blockIdx; out[i] = b;", "'blockIdx' must be used with .x, .y or .z"),
        ("out[i] = threadIdx.w;", "'threadIdx' has no member 'w'"),
        ("out[i] = out->x;", "'->' (pointer member access)"),
        ("float v = x[i]; out[i] = v.y;", "member 'y' of a non-struct value"),
        ("out[i] = (x + 1)[0];", "indexing of an expression"),
        ("float v = 1.0f; out[i] = v[0];", "'v' is not an array or pointer"),
        ("out[i] = x[1.5f];", "array subscript is not an integer"),
        ("out[i] = *((float*)x);", "pointer dereference"),
        ("float* p = &out[i];", "pointer variable p"),
        ("out[i] = ~x[i];", "operator ~ on a floating-point value"),
        ("x[i] = 1.0f;", "'x' is read-only (const or __constant__)"),
        ("out[i] = x[i] << 1;", "operator << on a floating-point value"),
        ("out[i] = x[i] % 2.0f;", "operator % on a floating-point value (use fmodf)"),
        ("out[i] = x[i] & 1.0f;", "operator & on a floating-point value"),
        ("out[i] = 1 / 0;", "division by zero in a constant expression"),
        ('out[i] = sizeof("ab");', "string literal"),
    ],
)
def test_unsupported_or_invalid_forms_are_refused_with_their_place(body, message):
    with pytest.raises(CudaSyntaxError) as info:
        _run(body)
    text = str(info.value)
    assert message in text and text.startswith("<source>:1:"), text


STRUCT = "struct P { float a; int b; };\n"


def _run_struct(body: str) -> tuple[np.ndarray, np.ndarray]:
    """32 threads; p = {x[i], i}, q = {0, 0}; arr holds {100 + i, -i}."""
    arr = np.zeros(32, dtype=[("a", np.float32), ("b", np.int32)])
    arr["a"], arr["b"] = 100 + np.arange(32), -np.arange(32)
    out, iout = np.zeros(32, np.float32), np.zeros(32, np.int32)
    source = (
        STRUCT + "__global__ void k(const float* x, const struct P* arr, float* out, int* iout) {\n"
        " int i = threadIdx.x; struct P p; p.a = x[i]; p.b = i; struct P q; q.a = 0.0f; q.b = 0;\n" + body + "\n}"
    )
    run_kernel(source, "k", 1, 32, {"x": X.copy(), "arr": arr, "out": out, "iout": iout}, H100)
    return out, iout


def test_struct_conditional_selects_whole_structs_per_lane():
    """C11 6.5.15p3: both operands of ?: may have the same structure type; the result is the
    chosen one. Lanes below 16 take p, the others q (all reads plain) or arr[i] (a load). This
    was a crash: the whole-lane path selected the two dicts of fields with one np.where."""
    out, iout = _run_struct("struct P r = (i < 16) ? p : q; out[i] = r.a; iout[i] = r.b;")
    assert np.array_equal(out, np.where(np.arange(32) < 16, X, 0)) and iout.tolist() == [*range(16), *[0] * 16]
    out, iout = _run_struct("struct P r = (i < 16) ? p : arr[i]; out[i] = r.a; iout[i] = r.b;")
    lanes = np.arange(32)
    assert np.array_equal(out, np.where(lanes < 16, X, 100 + lanes)) and np.array_equal(
        iout, np.where(lanes < 16, lanes, -lanes)
    )


def test_struct_variables_assign_under_divergence_and_update_fields():
    """q = p only in even lanes (the others keep {0, 0}); q.b++ yields the old value and then
    adds one (C11 6.5.2.4); q.a += 1 adds one to the field."""
    out, iout = _run_struct(
        "if (i % 2 == 0) q = p; int old = q.b++; q.a += 1.0f; out[i] = q.a; iout[i] = old * 100 + q.b;"
    )
    lanes = np.arange(32)
    even = lanes % 2 == 0
    assert np.array_equal(out, np.where(even, X + 1, 1))
    assert np.array_equal(iout, np.where(even, lanes * 100 + lanes + 1, 1))
