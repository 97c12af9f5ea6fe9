"""Front end: the seeds' kernels parse; everything outside the subset is refused by name with
line and column; parse errors quote the line with a caret under the offending column.

Expected lines/columns are counted by hand in the small sources below.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from perfcalc.errors import CudaSyntaxError, InputError
from perfcalc.sim import parse_source, run_kernel
from perfcalc.specs import get_arch

DATA = Path(__file__).parent / "data" / "cuda"
H100 = get_arch("9.0")


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.cu")))
def test_every_test_kernel_parses(name: str) -> None:
    parsed = parse_source((DATA / name).read_text(), name, {"TILE_WIDTH": 16})
    assert any(type(e).__name__ == "FuncDef" for e in parsed.ast.ext)


def error_of(source: str) -> str:
    with pytest.raises(CudaSyntaxError) as info:
        run_kernel(source, "k", 1, 1, {"a": np.zeros(4, np.float32)}, H100, source_name="t.cu")
    return str(info.value)


def test_parse_error_quotes_the_line_with_a_caret() -> None:
    """`1.0f +;`: the expression ends at the ';' in column 18 of line 2."""
    msg = error_of("__global__ void k(float* a) {\n    a[0] = 1.0f +;\n}")
    head, quoted, caret = msg.splitlines()
    assert head.startswith("t.cu:2:18: syntax error")
    assert quoted.strip() == "a[0] = 1.0f +;"
    assert caret.index("^") - caret.index(caret.strip()[0]) == 0
    assert quoted[caret.index("^")] == ";"


@pytest.mark.parametrize(
    ("source", "where", "name"),
    [
        ("__global__ void k(float* a) {\n    switch (1) { default: a[0] = 1.0f; }\n}", "2:5", "switch"),
        ("template <int T>\n__global__ void k(float* a) { a[0] = T; }", "1:1", "template"),
        ("#define SQ(x) ((x)*(x))\n__global__ void k(float* a) { a[0] = SQ(2); }", "1:", "function-like macro SQ"),
        ("__global__ void k(float* a) {\n    float* p = a;\n}", "2:", "pointer variable p"),
        ("__global__ void k(float* a) {\n    float r[4];\n}", "2:", "local array r"),
        ("__global__ void k(float2* a) {\n    a->x = 1.0f;\n}", "2:5", "->"),
        ("__global__ void k(float* a) {\n  goto l;\n  l: a[0] = 1.0f;\n}", "2:3", "goto"),
        ("void host(float* a) { }\n__global__ void k(float* a) { }", "1:6", "host function host"),
        ("#if 1\n#error stop\n#endif\n__global__ void k(float* a) { }", "2:1", "#error"),
        ("__global__ void k(float* a) {\n    static int x;\n}", "2:5", "static"),
        ("__device__ int counter;\n__global__ void k(float* a) { }", "1:16", "__device__ variable counter"),
        # pycparser places a unary operator at its operand: column 13 is the 'a' of '*a'
        ("__global__ void k(float* a) {\n    a[0] = *a;\n}", "2:13", "*"),
        ("__global__ void k(float* a) {\n    a[0] = sinhf(a[1]);\n}", "2:12", "sinhf()"),
        (
            "__device__ int f(int x) { return f(x); }\n__global__ void k(float* a) { a[0] = f(1); }",
            "1:",
            "recursive call of f()",
        ),
    ],
)
def test_unsupported_constructs_are_refused_by_name(source: str, where: str, name: str) -> None:
    msg = error_of(source)
    assert msg.startswith(f"t.cu:{where}")
    assert f"unsupported construct '{name}" in msg.splitlines()[0]
    assert "^" in msg


def test_columns_after_a_macro_are_the_users_columns() -> None:
    """`a[TILE_WIDTH] = b;`: 'b' is in column 21 of the user's line 3, although the expansion
    `16` is 8 characters shorter than TILE_WIDTH."""
    msg = error_of("#define TILE_WIDTH 16\n__global__ void k(float* a) {\n    a[TILE_WIDTH] = b;\n}")
    assert msg.startswith("t.cu:3:21: 'b' is not declared")


def test_comments_and_qualifiers_keep_columns() -> None:
    """Comments and the CUDA qualifiers are replaced by text of the same length, so the error
    column is the user's: 'q' is in column 53 of line 2 (52 characters precede it: ' */ ',
    then '__global__ void k(float* __restrict__ a) { a[0]=')."""
    msg = error_of("/* a\n */ __global__ void k(float* __restrict__ a) { a[0]=q; } // c")
    assert msg.startswith("t.cu:2:53: 'q' is not declared")


def test_defines_act_like_dash_d_and_override_the_source() -> None:
    """`#ifndef N / #define N 3` takes a caller's N; a caller's define also replaces a plain
    #define of the same name (module docstring of frontend.py)."""
    src = "#ifndef N\n#define N 3\n#endif\n#define M 5\n__global__ void k(int* a) { a[0] = N; a[1] = M; a[2] = N * M; }"
    out = np.zeros(3, np.int32)
    run_kernel(src, "k", 1, 1, {"a": out}, H100)
    assert out.tolist() == [3, 5, 15]
    run_kernel(src, "k", 1, 1, {"a": out}, H100, defines={"N": 7, "M": 2})
    assert out.tolist() == [7, 2, 14]


def test_macro_expansion_is_textual_like_cpp() -> None:
    """`#define N 2+3` then `N*2` is 2+3*2 = 8 in C (cpp substitutes text, no parentheses)."""
    out = np.zeros(1, np.int32)
    run_kernel("#define N 2+3\n__global__ void k(int* a) { a[0] = N*2; }", "k", 1, 1, {"a": out}, H100)
    assert out.tolist() == [8]


def test_pragma_unroll_include_and_cuda_types_are_accepted() -> None:
    src = """#include <cuda_runtime.h>
__device__ __forceinline__ float twice(float v) { return 2.0f * v; }
__global__ void __launch_bounds__(256) k(float4* v, size_t n) {
    extern __shared__ float buf[];
    size_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    buf[threadIdx.x] = twice(v[i].x);
    __syncthreads();
    #pragma unroll
    for (int j = 0; j < 1; j++)
        v[i].y = buf[threadIdx.x];
}"""
    v = np.zeros(40, dtype=[("x", "f4"), ("y", "f4"), ("z", "f4"), ("w", "f4")])
    v["x"] = np.arange(40)
    run_kernel(src, "k", 2, 32, {"v": v, "n": 40}, H100, dynamic_shared_memory_bytes=128)
    assert v["y"].tolist() == (2.0 * np.arange(40)).tolist()


def test_unknown_kernel_lists_the_kernels() -> None:
    with pytest.raises(InputError, match=r"kernel 'k' not found in t\.cu: .* are a, b"):
        run_kernel(
            "__global__ void b(float* x) { }\n__global__ void a(float* x) { }", "k", 1, 1, {}, H100, source_name="t.cu"
        )
