"""C semantics of the evaluator: one test per trap of execution.md §2.5's table (NumPy result vs
C/CUDA), plus the masking rules of §4.2. Every expected value is what C99/C11 prescribes for the
operation (cited per test), not what the simulator printed.
"""

from __future__ import annotations

import numpy as np
import pytest

from perfcalc.errors import CudaSyntaxError, KernelFault
from perfcalc.sim import run_kernel
from perfcalc.specs import get_arch

H100 = get_arch("9.0")


def run(body: str, params: str, args: dict[str, object], threads: int = 1) -> None:
    """Run `__global__ void k(params) { body }` with one block of `threads` threads."""
    run_kernel(f"__global__ void k({params}) {{\n{body}\n}}", "k", 1, threads, args, H100)


def test_integer_division_truncates_toward_zero() -> None:
    """Row 1: NumPy // floors ([3,-4,-4,3]); C11 6.5.5p6 truncates: [3,-3,-3,3]."""
    a = np.array([7, -7, 7, -7], np.int32)
    b = np.array([2, 2, -2, -2], np.int32)
    out = np.zeros(4, np.int32)
    run(
        "int i = threadIdx.x; out[i] = a[i] / b[i];",
        "const int* a, const int* b, int* out",
        {"a": a, "b": b, "out": out},
        4,
    )
    assert out.tolist() == [3, -3, -3, 3]


def test_remainder_has_the_sign_of_the_dividend() -> None:
    """Row 2: NumPy % gives [1,1,-1,-1]; C11 6.5.5p6 ((a/b)*b + a%b == a): [1,-1,1,-1]."""
    a = np.array([7, -7, 7, -7], np.int32)
    b = np.array([2, 2, -2, -2], np.int32)
    out = np.zeros(4, np.int32)
    run(
        "int i = threadIdx.x; out[i] = a[i] % b[i];",
        "const int* a, const int* b, int* out",
        {"a": a, "b": b, "out": out},
        4,
    )
    assert out.tolist() == [1, -1, 1, -1]


def test_quotient_identity_with_uniform_operands() -> None:
    """Row 3: the same truncation when both operands are uniform scalars (-7/2 == -3,
    -7%2 == -1), the path where NumPy scalar floor division would also give -4."""
    out = np.zeros(2, np.int32)
    run("int a = -7; int b = 2; out[0] = a / b; out[1] = a % b;", "int* out", {"out": out})
    assert out.tolist() == [-3, -1]


def test_int32_overflow_wraps_like_the_hardware() -> None:
    """Row 4: INT_MAX + 1 -> INT_MIN and 65536*65536 -> 0 (two's complement wrap, what the
    GPU's 32-bit integer units produce), with no Python OverflowError or warning."""
    out = np.zeros(2, np.int32)
    run("int big = 2147483647; int s = 65536; out[0] = big + 1; out[1] = s * s;", "int* out", {"out": out})
    assert out.tolist() == [-(2**31), 0]


def test_large_literal_is_typed_by_value_not_overflowing() -> None:
    """Row 5 (int32 + Python int 2**40 raises in NumPy 2): C11 6.4.4.1 types 1099511627776 as
    long (64-bit), so x + 1099511627776 is a long addition; 2147483648 is long too, so
    -2147483648 stays negative in 64 bits."""
    out = np.zeros(2, np.int64)
    run("int x = 5; out[0] = x + 1099511627776; out[1] = -2147483648;", "long long* out", {"out": out})
    assert out.tolist() == [2**40 + 5, -(2**31)]


def test_integer_division_by_zero_is_reported() -> None:
    """Row 6: NumPy returns 0 with a warning; in C it is undefined (C11 6.5.5p5): a fault
    naming the thread that divides by zero (thread 2, whose b is 0)."""
    b = np.array([1, 1, 0, 1], np.int32)
    with pytest.raises(KernelFault) as info:
        run(
            "int i = threadIdx.x; out[i] = 7 / b[i];",
            "const int* b, int* out",
            {"b": b, "out": np.zeros(4, np.int32)},
            4,
        )
    assert info.value.fault.kind == "division_by_zero"
    assert info.value.fault.thread == (2, 0, 0)


def test_int_min_divided_by_minus_one_is_reported() -> None:
    """Row 7: NumPy gives INT_MIN; C11 6.5.5p6 leaves the unrepresentable quotient undefined."""
    a = np.array([-(2**31)], np.int32)
    with pytest.raises(KernelFault, match="overflow"):
        run("int m = -1; out[0] = a[0] / m;", "const int* a, int* out", {"a": a, "out": np.zeros(1, np.int32)})


def test_signed_unsigned_comparison_converts_to_unsigned() -> None:
    """Row 8: NumPy's int32(-1) < uint32(5) is True (promotes to int64); C11 6.3.1.8 converts
    -1 to unsigned (4294967295), so the comparison is false."""
    out = np.full(2, 7, np.int32)
    run("int a = -1; unsigned int b = 5; out[0] = a < b; out[1] = a < (int)b;", "int* out", {"out": out})
    assert out.tolist() == [0, 1]


def test_int_plus_unsigned_is_unsigned() -> None:
    """Row 9: NumPy's int32 + uint32 is int64; in C it is unsigned int, so (-3 + 1u) / 2 is
    4294967294 / 2 = 2147483647, not -1."""
    out = np.zeros(1, np.int64)
    run("int a = -3; unsigned int b = 1; out[0] = (a + b) / 2;", "long long* out", {"out": out})
    assert out.tolist() == [2147483647]


def test_unsigned_wraps_modulo_2_to_the_32() -> None:
    """Row 10: uint32(0) - 1 == 4294967295 (C11 6.2.5p9), per lane and uniform."""
    out = np.zeros(2, np.uint32)
    run("unsigned int z = 0; out[0] = z - 1; out[1] = threadIdx.x - 1;", "unsigned int* out", {"out": out})
    assert out.tolist() == [4294967295, 4294967295]


def test_shift_count_of_the_type_width_is_reported() -> None:
    """Row 11: NumPy gives 0 for int32 1 << 32; C11 6.5.7p3 makes it undefined."""
    with pytest.raises(KernelFault) as info:
        run("int s = 31 + threadIdx.x; out[threadIdx.x] = 1 << s;", "int* out", {"out": np.zeros(2, np.int32)}, 2)
    assert info.value.fault.kind == "shift_out_of_range"
    assert info.value.fault.thread == (1, 0, 0)
    with pytest.raises(CudaSyntaxError, match="shift count 32"):
        run("out[0] = 1 << 32;", "int* out", {"out": np.zeros(1, np.int32)})


def test_right_shift_of_negative_int_is_arithmetic() -> None:
    """Row 12: -8 >> 1 == -4 (implementation-defined in C; nvcc shifts arithmetically), and a
    logical shift for unsigned: 0xFFFFFFF8u >> 1 == 0x7FFFFFFC."""
    out = np.zeros(1, np.int32)
    uout = np.zeros(1, np.uint32)
    run(
        "int a = -8; unsigned int b = 0xFFFFFFF8u; out[0] = a >> 1; uout[0] = b >> 1;",
        "int* out, unsigned int* uout",
        {"out": out, "uout": uout},
    )
    assert out.tolist() == [-4] and uout.tolist() == [0x7FFFFFFC]


def test_negative_index_is_out_of_bounds_not_the_last_element() -> None:
    """Row 13: NumPy's x[-1] is the last element; in C it is before the array. With an
    unsigned subscript, threadIdx.x - 1 is 4294967295 for thread 0 (C11 6.2.5p9)."""
    x = np.arange(8, dtype=np.float32)
    with pytest.raises(KernelFault) as info:
        run(
            "int i = threadIdx.x; out[0] = x[i - 1];",
            "const float* x, float* out",
            {"x": x, "out": np.zeros(1, np.float32)},
        )
    f = info.value.fault
    assert (f.kind, f.array, f.index, f.thread) == ("out_of_bounds", "x", -1, (0, 0, 0))
    with pytest.raises(KernelFault) as info:
        run("out[0] = x[threadIdx.x - 1];", "const float* x, float* out", {"x": x, "out": np.zeros(1, np.float32)})
    assert info.value.fault.index == 4294967295


def test_one_bad_lane_is_reported_alone() -> None:
    """Row 14: NumPy raises IndexError for the whole vector; the report names the one thread
    (index 8 of an 8-element array: thread 8 of 9) and its index."""
    x = np.arange(8, dtype=np.float32)
    with pytest.raises(KernelFault) as info:
        run(
            "int i = threadIdx.x; out[0] = x[i];",
            "const float* x, float* out",
            {"x": x, "out": np.zeros(1, np.float32)},
            9,
        )
    f = info.value.fault
    assert (f.index, f.thread) == (8, (8, 0, 0))


def test_float_times_double_literal_is_a_double_multiply() -> None:
    """Rows 15-16: NumPy keeps float32 * 0.1 in float32; C11 6.4.4.2 makes 0.1 a double, so
    x * 0.1 is computed in double, and x * 0.1f in float."""
    x = np.array([1.1, 3.3], np.float32)
    d = np.zeros(2, np.float64)
    f = np.zeros(2, np.float64)
    run(
        "int i = threadIdx.x; d[i] = x[i] * 0.1; f[i] = x[i] * 0.1f;",
        "const float* x, double* d, double* f",
        {"x": x, "d": d, "f": f},
        2,
    )
    assert d.tolist() == (x.astype(np.float64) * 0.1).tolist()
    assert f.tolist() == (x * np.float32(0.1)).astype(np.float64).tolist()
    assert d.tolist() != f.tolist()


def test_float_to_int_conversion_truncates() -> None:
    """Row 17: (int)-2.7f == -2 and (int)2.7f == 2 (C11 6.3.1.4: truncation toward zero)."""
    x = np.array([-2.7, 2.7], np.float32)
    out = np.zeros(2, np.int32)
    run("out[threadIdx.x] = (int)x[threadIdx.x];", "const float* x, int* out", {"x": x, "out": out}, 2)
    assert out.tolist() == [-2, 2]


def test_two_warps_storing_one_shared_word_is_a_race() -> None:
    """Row 18: NumPy's x[[0,0]] = [1,2] keeps the last write; on a GPU two warps storing one
    word in the same barrier interval is a write-write race (threads 0 and 32 here)."""
    k = "__shared__ float s[1]; s[0] = (float)threadIdx.x; __syncthreads(); out[0] = s[0];"
    with pytest.raises(KernelFault) as info:
        run(k, "float* out", {"out": np.zeros(1, np.float32)}, 64)
    assert (info.value.fault.kind, info.value.fault.array) == ("shared_race", "s")


def test_non_atomic_increment_by_two_warps_is_a_race() -> None:
    """Row 19: NumPy's x[[0,0]] += 1 adds once; on a GPU it is two read-modify-writes racing
    (the second warp's store follows the first warp's read of the same word)."""
    k = "__shared__ int s[1]; if (threadIdx.x == 0) s[0] = 0; __syncthreads(); s[0] += 1;"
    with pytest.raises(KernelFault) as info:
        run(k, "int* out", {"out": np.zeros(1, np.int32)}, 64)
    assert info.value.fault.kind == "shared_race"


def test_atomic_add_counts_every_thread() -> None:
    """Row 20: np.add.at semantics: 100 threads atomicAdd 1 -> 100; each thread gets a distinct
    old value 0..99 (atomicAdd returns the value before its own addition)."""
    out = np.zeros(1, np.int32)
    old = np.zeros(100, np.int32)
    run("old[threadIdx.x] = atomicAdd(&out[0], 1);", "int* out, int* old", {"out": out, "old": old}, 100)
    assert out.tolist() == [100]
    assert sorted(old.tolist()) == list(range(100))


def test_short_circuit_and_ternary_skip_masked_lanes() -> None:
    """§4.2 rule 3: `i < n && a[i] > 0` and `(i >= n) ? 0 : a[i]` never read a[i] for i >= n
    (no fault, and no load counted for those lanes: 1 warp, 1 request each)."""
    a = np.arange(1, 11, dtype=np.float32)
    out = np.zeros(32, np.float32)
    src = """__global__ void k(const float* a, float* out, int n) {
    int i = threadIdx.x;
    float v = (i >= n) ? 0.0f : a[i];
    if (i < n && a[i] > 5.0f) v = -v;
    out[i] = v;
}"""
    r = run_kernel(src, "k", 1, 32, {"a": a, "out": out, "n": 10}, H100)
    assert out[:10].tolist() == [1, 2, 3, 4, 5, -6, -7, -8, -9, -10]
    assert out[10:].tolist() == [0.0] * 22
    assert r.counters.global_load_requests == 2


def test_divergent_loops_break_continue_and_return() -> None:
    """§4.2 rules 4-7 against a hand-run of the C loop: thread t sums j = 0..9, skipping odd j
    (continue), stopping after j == t (break); threads t >= 8 return before the loop."""
    out = np.full(10, -1, np.int32)
    src = """__global__ void k(int* out) {
    int t = threadIdx.x;
    if (t >= 8) return;
    int s = 0;
    for (int j = 0; j < 10; j++) {
        if (j % 2 == 1) continue;
        s += j;
        if (j >= t) break;
    }
    out[t] = s;
}"""
    run_kernel(src, "k", 1, 10, {"out": out}, H100)
    expected = []
    for t in range(8):
        s = 0
        for j in range(10):
            if j % 2 == 1:
                continue
            s += j
            if j >= t:
                break
        expected.append(s)
    assert out.tolist() == expected + [-1, -1]


def test_device_function_with_early_return() -> None:
    """An inlined __device__ function whose return is divergent: clamp(x) returns 0 for
    negatives, x otherwise; a while loop and do-while with thread-dependent trip counts."""
    x = np.array([-3, 4, 0, 9], np.int32)
    out = np.zeros(4, np.int32)
    src = """__device__ int clampPos(int v) {
    if (v < 0) return 0;
    return v;
}
__global__ void k(const int* x, int* out) {
    int i = threadIdx.x;
    int v = clampPos(x[i]);
    int n = 0;
    while (v > 0) { v -= 2; n++; }
    do { n += 10; } while (n < 10);
    out[i] = n;
}"""
    run_kernel(src, "k", 1, 4, {"x": x, "out": out}, H100)
    # v: 0,4,0,9 -> halvings by 2: 0,2,0,5 -> do-while adds 10 once (n >= 10 afterwards)
    assert out.tolist() == [10, 12, 10, 15]


def test_nested_loops_and_return_inside_a_loop() -> None:
    """Nested control flow against the same C run by hand in Python: the inner loop's break
    leaves only the inner loop; a return inside the outer loop ends the thread (its out[t] keeps
    the value stored before); the others continue after the loop."""
    out = np.full(12, -1, np.int32)
    src = """__global__ void k(int* out) {
    int t = threadIdx.x;
    int s = 0;
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 5; j++) {
            if (j > i + t % 3) break;
            s += j;
        }
        out[t] = s;
        if (s > 12 && t % 2 == 0) return;
        if (i == t % 4) continue;
        s += 1;
    }
    out[t] = s * 100;
}"""
    run_kernel(src, "k", 1, 12, {"out": out}, H100)
    expected = []
    for t in range(12):
        s, value, returned = 0, -1, False
        for i in range(4):
            for j in range(5):
                if j > i + t % 3:
                    break
                s += j
            value = s
            if s > 12 and t % 2 == 0:
                returned = True
                break
            if i == t % 4:
                continue
            s += 1
        expected.append(value if returned else s * 100)
    assert out.tolist() == expected


def test_divergent_assignment_of_thread_index_arithmetic() -> None:
    """Values computed from threadIdx/blockIdx (kept in separable form internally) assigned
    under a divergent mask, selected by ?:, divided: compared with the same C run in Python."""
    out = np.zeros(64, np.int32)
    src = """__global__ void k(int* out) {
    int x = 7;
    if (threadIdx.x < 5) x = threadIdx.x * 3 + blockIdx.x;
    int y = (threadIdx.x % 2) ? x : -x;
    out[blockIdx.x * blockDim.x + threadIdx.x] = y + (blockIdx.x * blockDim.x + threadIdx.x) / 3;
}"""
    run_kernel(src, "k", 2, 32, {"out": out}, H100)
    expected = []
    for b in range(2):
        for t in range(32):
            x = t * 3 + b if t < 5 else 7
            expected.append((x if t % 2 else -x) + (b * 32 + t) // 3)
    assert out.tolist() == expected


def test_bool_ldg_and_fmaf() -> None:
    """CUDA's bool/true/false, __ldg (a plain load for the counters: 1 request per warp) and
    fmaf (a*b + c with one rounding: 2 flops per thread). fmaf(3, 1/3, -1) keeps the product's
    low bits that a float multiply rounds away: the result is 3*float32(1/3) - 1 computed
    exactly (float64 holds it) and rounded once to float32, while a*b+c in float32 gives 0."""
    x = np.full(32, np.float32(1) / np.float32(3), np.float32)
    out = np.zeros(32, np.float32)
    flags = np.zeros(32, np.bool_)
    src = """__global__ void k(const float* x, float* out, bool* flags) {
    int i = threadIdx.x;
    bool odd = (i % 2 == 1) ? true : false;
    flags[i] = odd;
    out[i] = fmaf(3.0f, __ldg(&x[i]), -1.0f);
}"""
    r = run_kernel(src, "k", 1, 32, {"x": x, "out": out, "flags": flags}, H100)
    assert flags.tolist() == [i % 2 == 1 for i in range(32)]
    exact = np.float32(3.0 * np.float64(x[0]) - 1.0)
    assert exact != np.float32(3) * x[0] - np.float32(1)
    assert out.tolist() == [float(exact)] * 32
    assert r.counters.global_load_requests == 1
    assert r.counters.flops == 2 * 32


def _random_expression(rng: np.random.Generator, depth: int) -> str:
    """A C expression over int a0..a3 and unsigned u0..u3 without undefined behaviour:
    divisors are (x % 7 + 8) (2..14 or a huge unsigned, never 0 or -1), left shifts only on
    unsigned operands, shift counts masked to 0..15; signed overflow wraps (-fwrapv below)."""
    if depth == 0 or rng.random() < 0.25:
        leaf = rng.integers(4)
        kind = rng.integers(3)
        if kind == 0:
            return f"a{leaf}"
        if kind == 1:
            return f"u{leaf}"
        return str(int(rng.integers(-9, 40)))
    a = _random_expression(rng, depth - 1)
    b = _random_expression(rng, depth - 1)
    op = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "<", ">=", "==", "cast", "?:", "neg"][
        int(rng.integers(16))
    ]
    if op in ("/", "%"):
        return f"(({a}) {op} (({b}) % 7 + 8))"
    if op == "<<":
        return f"((unsigned)({a}) << (({b}) & 15))"
    if op == ">>":
        return f"(({a}) >> (({b}) & 15))"
    if op == "cast":
        return f"((int)(unsigned)({a}))"
    if op == "?:":
        return f"(({a}) > ({b}) ? ({a}) : ({b}))"
    if op == "neg":
        return f"(-({a}))"
    return f"(({a}) {op} ({b}))"


def test_random_integer_expressions_match_gcc(tmp_path: object) -> None:
    """Differential test against a real C compiler: 150 random int/unsigned expressions (mixed
    signedness, promotions, truncating / and %, shifts, comparisons, ?:) evaluated by the
    simulator for 4 threads and by gcc -fwrapv (two's complement wrap, like the GPU) on the same
    inputs; every result, stored as long long, must be identical."""
    import shutil
    import subprocess
    from pathlib import Path

    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler on this machine to compare with")
    rng = np.random.default_rng(20261121)
    exprs = [_random_expression(rng, 3) for _ in range(150)]
    ints = rng.integers(-(2**31), 2**31, size=(4, 4)).astype(np.int32)
    ints[:, 0] = [0, -1, 2**31 - 1, -(2**31)]
    uns = rng.integers(0, 2**32, size=(4, 4)).astype(np.uint32)
    decl = "".join(f"int a{k} = a[t*4+{k}]; unsigned u{k} = u[t*4+{k}]; " for k in range(4))
    body = "".join(f"out[t*{len(exprs)}+{i}] = {e};\n" for i, e in enumerate(exprs))
    kernel = f"""__global__ void k(const int* a, const unsigned* u, long long* out) {{
    int t = threadIdx.x; {decl}
{body}}}"""
    out = np.zeros(4 * len(exprs), np.int64)
    run_kernel(kernel, "k", 1, 4, {"a": ints.ravel(), "u": uns.ravel(), "out": out}, H100)

    c_src = Path(str(tmp_path)) / "ref.c"
    arr_a = ", ".join(str(int(v)) for v in ints.ravel())
    arr_u = ", ".join(f"{int(v)}u" for v in uns.ravel())
    c_src.write_text(
        f"""#include <stdio.h>
int main(void) {{
    static const int a[] = {{{arr_a}}};
    static const unsigned u[] = {{{arr_u}}};
    static long long out[{4 * len(exprs)}];
    for (int t = 0; t < 4; t++) {{ {decl}
{body}    }}
    for (int i = 0; i < {4 * len(exprs)}; i++) printf("%lld\\n", out[i]);
    return 0;
}}
""".replace("(-2147483648)", "(-2147483647 - 1)")
    )
    exe = Path(str(tmp_path)) / "ref"
    subprocess.run([gcc, "-O0", "-fwrapv", "-w", "-o", str(exe), str(c_src)], check=True)
    ref = [int(x) for x in subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()]
    assert len(ref) == out.size and min(ref) < 0 < max(ref)
    mismatches = [
        (i % len(exprs), exprs[i % len(exprs)], int(out[i]), ref[i]) for i in range(len(ref)) if int(out[i]) != ref[i]
    ]
    assert not mismatches, mismatches[:3]


def _random_float_expression(rng: np.random.Generator, depth: int) -> str:
    """A C expression mixing float f0..f3, double d0, int a0 and float/double literals."""
    if depth == 0 or rng.random() < 0.25:
        return ["f0", "f1", "f2", "f3", "d0", "a0", "0.1", "0.5f", "3", "1.25f"][int(rng.integers(10))]
    a = _random_float_expression(rng, depth - 1)
    b = _random_float_expression(rng, depth - 1)
    op = ["+", "-", "*", "/", "castf", "castd", "?:"][int(rng.integers(7))]
    if op == "castf":
        return f"((float)({a}))"
    if op == "castd":
        return f"((double)({a}))"
    if op == "?:":
        return f"(({a}) < ({b}) ? ({a}) : ({b}))"
    return f"(({a}) {op} ({b}))"


def test_random_float_expressions_match_gcc(tmp_path: object) -> None:
    """Differential test of C's floating-point typing (float op float stays float, a double
    operand or literal makes the operation double, ints convert): 120 random expressions, the
    simulator vs gcc on x86-64 (SSE arithmetic, no excess precision, -ffp-contract=off so no
    FMA), results stored as double and compared bit for bit (NaN equal to NaN)."""
    import shutil
    import subprocess
    from pathlib import Path

    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler on this machine to compare with")
    rng = np.random.default_rng(7)
    exprs = [_random_float_expression(rng, 3) for _ in range(120)]
    fl = rng.standard_normal((4, 4)).astype(np.float32) * np.float32(3)
    dd = rng.standard_normal(4)
    ai = rng.integers(-50, 50, 4).astype(np.int32)
    decl = "float f0 = f[t*4], f1 = f[t*4+1], f2 = f[t*4+2], f3 = f[t*4+3]; double d0 = d[t]; int a0 = a[t];"
    body = "".join(f"out[t*{len(exprs)}+{i}] = {e};\n" for i, e in enumerate(exprs))
    kernel = f"""__global__ void k(const float* f, const double* d, const int* a, double* out) {{
    int t = threadIdx.x; {decl}
{body}}}"""
    out = np.zeros(4 * len(exprs), np.float64)
    run_kernel(kernel, "k", 1, 4, {"f": fl.ravel(), "d": dd, "a": ai, "out": out}, H100)

    def lit(v: float, suffix: str = "") -> str:
        return f"{float(v).hex()}{suffix}"

    c_src = Path(str(tmp_path)) / "ref.c"
    c_src.write_text(f"""#include <stdio.h>
int main(void) {{
    static const float f[] = {{{", ".join(lit(v, "f") for v in fl.ravel())}}};
    static const double d[] = {{{", ".join(lit(v) for v in dd)}}};
    static const int a[] = {{{", ".join(str(int(v)) for v in ai)}}};
    static double out[{4 * len(exprs)}];
    for (int t = 0; t < 4; t++) {{ {decl}
{body}    }}
    for (int i = 0; i < {4 * len(exprs)}; i++) printf("%a\\n", out[i]);
    return 0;
}}
""")
    exe = Path(str(tmp_path)) / "ref"
    subprocess.run([gcc, "-O0", "-ffp-contract=off", "-w", "-o", str(exe), str(c_src)], check=True)
    text = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    ref = np.array([float.fromhex(x) if "nan" not in x else np.nan for x in text.split()])
    assert ref.size == out.size
    same = (ref == out) | (np.isnan(ref) & np.isnan(out))
    bad = np.flatnonzero(~same)
    assert bad.size == 0, [(exprs[i % len(exprs)], out[i], ref[i]) for i in bad[:3]]


class _ProgramGenerator:
    """Random structured per-thread C code over int x, y, z and the thread index t: nested
    if/else, bounded for/while loops (at most 7 iterations each), break, continue and early
    return, all with thread-dependent conditions."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.loop_var = 0

    def expr(self, depth: int = 2) -> str:
        r = self.rng
        if depth == 0 or r.random() < 0.3:
            return ["x", "y", "z", "t", str(int(r.integers(-5, 9)))][int(r.integers(5))]
        op = ["+", "-", "*", "%", "/", "&", "^"][int(r.integers(7))]
        a, b = self.expr(depth - 1), self.expr(depth - 1)
        if op in ("%", "/"):
            return f"(({a}) {op} (({b}) % 5 + 7))"
        return f"(({a}) {op} ({b}))"

    def cond(self) -> str:
        op = ["<", ">", "==", "!=", "<=", ">="][int(self.rng.integers(6))]
        return f"(({self.expr(1)}) % 4 {op} ({self.expr(1)}) % 3)"

    def block(self, depth: int, in_loop: bool) -> str:
        return "{\n" + "".join(self.stmt(depth, in_loop) for _ in range(int(self.rng.integers(1, 4)))) + "}\n"

    def stmt(self, depth: int, in_loop: bool) -> str:
        r = self.rng
        kind = int(r.integers(10)) if depth > 0 else 0
        var = ["x", "y", "z"][int(r.integers(3))]
        if kind <= 3:
            return f"{var} {['=', '+=', '-=', '^='][int(r.integers(4))]} {self.expr()};\n"
        if kind <= 5:
            els = f"else {self.block(depth - 1, in_loop)}" if r.random() < 0.5 else ""
            return f"if {self.cond()} {self.block(depth - 1, in_loop)}{els}"
        if kind == 6:
            self.loop_var += 1
            i = f"i{self.loop_var}"
            return f"for (int {i} = 0; {i} < (({self.expr(1)}) & 7); {i}++) {self.block(depth - 1, True)}"
        if kind == 7:
            self.loop_var += 1
            w = f"w{self.loop_var}"
            return f"{{ int {w} = ({self.expr(1)}) & 7; while ({w} > 0) {{ {w}--; {self.block(depth - 1, True)} }} }}\n"
        if kind >= 8 and in_loop and r.random() < 0.8:
            jump = ["break", "continue"][int(r.integers(2))]
            return f"if {self.cond()} {{ {var} += 7; {jump}; }}\n"
        return f"if {self.cond()} {{ out[t] = x - y; return; }}\n"


def test_random_control_flow_matches_gcc(tmp_path: object) -> None:
    """Differential test of the divergence machinery (execution.md §4.2 rules 2-7): 24 random
    programs with nested thread-dependent if/else, loops, break, continue and early return run
    by the simulator for 96 threads (3 warps, every warp divergent) and by gcc thread after
    thread; out[t] must be identical for every thread."""
    import shutil
    import subprocess
    from pathlib import Path

    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler on this machine to compare with")
    rng = np.random.default_rng(11)
    programs = []
    for _ in range(24):
        gen = _ProgramGenerator(rng)
        programs.append("int x = t, y = 3 - t, z = t * t;\n" + gen.block(4, False) + "out[t] = x * 3 + y * 5 + z;\n")
    results = []
    for body in programs:
        out = np.zeros(96, np.int32)
        run_kernel(
            f"__global__ void k(int* out) {{ int t = threadIdx.x;\n{body}}}",
            "k",
            1,
            96,
            {"out": out},
            H100,
            iteration_cap=1000,
        )
        results.append(out)
    funcs = "".join(f"static void p{i}(int t, int* out) {{\n{b}}}\n" for i, b in enumerate(programs))
    calls = "".join(f"p{i}(t, out + {i * 96});" for i in range(len(programs)))
    c_src = Path(str(tmp_path)) / "flow.c"
    c_src.write_text(f"""#include <stdio.h>
{funcs}
int main(void) {{
    static int out[{96 * len(programs)}];
    for (int t = 0; t < 96; t++) {{ {calls} }}
    for (int i = 0; i < {96 * len(programs)}; i++) printf("%d\\n", out[i]);
    return 0;
}}
""")
    exe = Path(str(tmp_path)) / "flow"
    subprocess.run([gcc, "-O0", "-fwrapv", "-w", "-o", str(exe), str(c_src)], check=True)
    ref = np.array(
        subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split(), dtype=np.int64
    ).reshape(-1, 96)
    for i, out in enumerate(results):
        assert out.tolist() == ref[i].tolist(), programs[i]
