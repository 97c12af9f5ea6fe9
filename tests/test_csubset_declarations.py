"""The C engine's declarations (sim/csubset/compiler.py): the forms it accepts beside a kernel
(pragmas, prototypes, file-scope __shared__ and __constant__ arrays, a __shared__ scalar) work,
and each form it does not simulate is refused with the construct, its place and what to write."""

from __future__ import annotations

import numpy as np
import pytest

from perfcalc.errors import CudaSyntaxError
from perfcalc.sim import run_kernel
from perfcalc.specs import get_arch

H100 = get_arch("9.0")
COPY = "__global__ void k(const float* x, float* out) { int i = threadIdx.x; out[i] = x[i]; }"


def _run(source: str) -> np.ndarray:
    out = np.zeros(32, np.float32)
    run_kernel(source, "k", 1, 32, {"x": np.arange(32, dtype=np.float32), "out": out}, H100)
    return out


@pytest.mark.parametrize(
    "prefix",
    [
        "#pragma unroll\n",
        "__device__ float g(float a);\n__device__ float g(float a) { return a; }\n",  # a prototype first
        "__constant__ float c[2] = {1.0f, 2.0f};\n",
        "__shared__ float s[32];\n",
    ],
)
def test_accepted_declarations_leave_the_kernel_as_written(prefix):
    assert np.array_equal(_run(prefix + COPY), np.arange(32, dtype=np.float32))


def test_a_shared_scalar_is_one_word_every_thread_sees():
    """Thread 0 writes it, the barrier publishes it: every thread reads 3 (CUDA C Programming
    Guide, __shared__: shared by the threads of a block)."""
    body = "__shared__ float s; if (threadIdx.x == 0) s = 3.0f; __syncthreads(); out[threadIdx.x] = s;"
    assert set(_run("__global__ void k(const float* x, float* out) { " + body + " }").tolist()) == {3.0}


KERNEL = "__global__ void k(const float* x, float* out) {{ {} out[0] = 0; }}"


@pytest.mark.parametrize(
    "source, message",
    [
        ("typedef float* fp;\n" + COPY, "typedef of a pointer or array"),
        ("typedef int myint;\n" + COPY, "typedef myint' (only struct typedefs are supported)"),
        ("__device__ float* f(float* a) { return a; }\n" + COPY, "function returning a pointer"),
        ("__global__ int k(const float* x, float* out) { return 1; }", "__global__ function 'k' must return void"),
        ("__constant__ float c = 1.0f;\n" + COPY, "declare a 1-element __constant__ array"),
        ("int g;\n" + COPY, "file-scope variable g"),
        (KERNEL.format("int n = 4; __shared__ float s[n];"), "array size must be an integer constant expression"),
        (KERNEL.format("__shared__ float s[0];"), "array size 0 must be positive"),
        (KERNEL.format("float* a[4];"), "per-thread arrays are not simulated; use __shared__"),
        ("struct P { float a; };\n" + KERNEL.format("__shared__ struct P s[4];"), "__shared__ array of structs"),
        (KERNEL.format("__shared__ float s = 1.0f;"), "__shared__ variables cannot have an initializer"),
        (KERNEL.format("extern __shared__ float s[4];"), "extern __shared__ other than 'T name[]'"),
        (KERNEL.format("__shared__ float s[];"), "__shared__ array 's' needs a size (or 'extern')"),
        ("__global__ void k(const float* x, ...) { }", "'...'"),
        ("__global__ void k(float** x) { }", "pointer to pointer"),
        ("__global__ void k(void* x) { }", "void* parameter' (give the element type)"),
        (
            "struct P { float a; };\n__global__ void k(struct P p, float* out) { out[0] = p.a; }",
            "struct passed by value",
        ),
        ("__global__ void k(float x[4], float* out) { out[0] = x[0]; }", "array parameter' (use a pointer)"),
    ],
)
def test_forms_not_simulated_are_refused_with_their_place(source, message):
    with pytest.raises(CudaSyntaxError) as info:
        _run(source)
    text = str(info.value)
    assert message in text and text.startswith("<source>:"), text
