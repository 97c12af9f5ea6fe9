"""Real files as people have them (issue 30), compiled both ways the PTX engine can: nvcc with the
host compiler (as the files' own builds do) and, without a host compiler, NVRTC.

Each file in tests/data/cuda_compile/ is one class of file that failed before (named in its
first line), written here with a `main()`. Expected values are each kernel's own arithmetic on the
inputs given (worked out in the test); for the corpus, the counters and outputs the NVRTC route
gives (tests/data/golden/outputs.json, equal to the H100's: tests/test_ptx_corpus.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from perfcalc.errors import CudaSyntaxError
from perfcalc.sim import run_kernel
from perfcalc.sim.ptx import nvrtc, toolchain

DATA = Path(__file__).parent / "data" / "cuda_compile"
HAVE_NVCC = toolchain.route("auto") is not None
ROUTES = [
    pytest.param("nvcc", marks=pytest.mark.skipif(not HAVE_NVCC, reason="no nvcc wheel or host C++ compiler")),
    "nvrtc",
]
pytestmark = [
    pytest.mark.skipif(not nvrtc.available(), reason="NVRTC (pip install nvidia-cuda-nvrtc) is not installed"),
    pytest.mark.usefixtures("ptx_cache"),
]
N = 256
F32_PI = np.float32(np.pi)


def _ramp(dtype: str = "float32", n: int = N) -> np.ndarray:
    return np.arange(n).astype(dtype)


# file -> (kernel as named, grid, block, inputs, {array: expected after the run})
CASES = {
    "host_headers.cu": (
        "twice",
        4,
        256,
        lambda: {"in": _ramp(n=1000), "out": np.zeros(1000, "f4"), "n": 1000},
        {"out": 2 * _ramp(n=1000)},
    ),
    "clib_macros.cu": (
        "constants",
        1,
        4,
        lambda: {"out": np.zeros(4, "f4")},
        {"out": np.array([np.inf, F32_PI, np.finfo("f4").max, -np.finfo("f4").max], "f4")},
    ),
    "host_template_instance.cu": (None, 2, 128, lambda: {"x": _ramp("int32"), "n": N}, {"x": _ramp("int32") + 1}),
    "extern_c.cu": ("negate", 2, 64, lambda: {"x": _ramp(n=100), "n": 100}, {"x": -_ramp(n=100)}),
    "declared_then_defined.cu": (
        "axpy",
        2,
        256,
        lambda: {"alpha": 2.0, "xs": _ramp(n=512), "ys": np.ones(512, "f4"), "count": 512},
        {"ys": 2 * _ramp(n=512) + 1},
    ),
    "template_launched_once.cu": (
        "scale",
        4,
        256,
        lambda: {"in": _ramp(n=1024), "out": np.zeros(1024, "f4"), "n": 1024},
        {"out": 3 * _ramp(n=1024)},
    ),
    "kernel_in_include.cu": ("square", 1, 256, lambda: {"data": _ramp("int32"), "n": N}, {"data": _ramp("int32") ** 2}),
    "half_scalar.cu": (
        "axpb",
        1,
        256,
        lambda: {"a": 0.5, "x": _ramp(), "y": np.zeros(N, "f4"), "n": N},
        {"y": 0.5 * _ramp() + 1},
    ),
    "shared_wrap.cu": (
        "wrap",
        1,
        64,
        lambda: {"out": np.zeros(64, "int32"), "back": 3},
        {"out": 10 * _ramp("int32", 64)},
    ),
    "removed_host_api.cu": ("inc", 1, 32, lambda: {"x": _ramp("int32", 32)}, {"x": _ramp("int32", 32) + 1}),
}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_class_compiles_and_runs_right(name, route):
    kernel, grid, block, inputs, expected = CASES[name]
    args = inputs()
    path = DATA / name
    result = run_kernel(
        path.read_text(), kernel, grid, block, args, "9.0", engine="ptx", source_name=str(path), compiler=route
    )
    assert not result.faults
    for array, want in expected.items():
        np.testing.assert_array_equal(args[array], want.astype(args[array].dtype), err_msg=f"{name}: {array}")
    assert ("NVRTC" in result.compiler) == (route == "nvrtc")


def test_a_header_that_is_not_installed_is_stood_in_and_said(ptx_cache):
    path = DATA / "host_headers.cu"
    args = CASES["host_headers.cu"][3]()
    result = run_kernel(path.read_text(), "twice", 4, 256, args, "9.0", engine="ptx", source_name=str(path))
    assert any("cuda_profiler_api.h" in note for note in result.compile_notes)


@pytest.mark.skipif(not HAVE_NVCC, reason="no nvcc wheel or host C++ compiler")
def test_a_failure_after_a_stood_in_header_names_the_header(tmp_path):
    """Issue 30: 7 HeCBench files failed after perfcalc stood in a header that is not installed
    (the code after it needed what the header declares) and were refused as nvcc's own error,
    naming no header. A kernel taking a `lib::Handle` from a missing header: the one line names
    the stood-in header and the error."""
    src = tmp_path / "uses_lib.cu"
    src.write_text('#include "not_installed_lib.h"\n__global__ void k(lib::Handle h, int *x) { x[0] = 1; }\n')
    with pytest.raises(CudaSyntaxError) as caught:
        run_kernel(src.read_text(), "k", 1, 32, {"h": 0, "x": np.zeros(1, "i4")}, "9.0", engine="ptx",
                   source_name=str(src), compiler="nvcc")  # fmt: skip
    message = str(caught.value)
    assert "stood in by empty ones (not_installed_lib.h)" in message and "uses_lib.cu:2" in message, message


def test_without_a_host_compiler_the_nvrtc_route_compiles_and_says_so(monkeypatch):
    """Hide the host compiler: `auto` takes NVRTC, and the run names it."""
    monkeypatch.setattr(toolchain, "host_compiler", lambda: None)
    assert toolchain.route("auto") is None
    with pytest.raises(Exception, match="host C\\+\\+ compiler"):
        toolchain.route("nvcc")
    path = DATA / "template_launched_once.cu"
    args = CASES["template_launched_once.cu"][3]()
    result = run_kernel(path.read_text(), "scale", 4, 256, args, "9.0", engine="ptx", source_name=str(path))
    assert result.compiler.startswith("NVRTC") and result.kernel == "scale<float, 3>"


@pytest.mark.parametrize("route", ROUTES)
def test_a_wrong_kernel_name_lists_the_files_kernels(route):
    path = DATA / "extern_c.cu"
    with pytest.raises(CudaSyntaxError, match=r"negate"):
        run_kernel(
            path.read_text(),
            "negat",
            1,
            32,
            {"x": _ramp(n=32), "n": 32},
            "9.0",
            engine="ptx",
            source_name=str(path),
            compiler=route,
        )


@pytest.mark.parametrize("route", ROUTES)
def test_a_template_launched_several_ways_lists_them_ready_to_paste(tmp_path, route):
    src = tmp_path / "two.cu"
    src.write_text(
        "template <int K> __global__ void k(int *x) { x[threadIdx.x] = K; }\n"
        "int main() { int *x; cudaMalloc(&x, 128); k<1><<<1, 32>>>(x); k<2><<<1, 32>>>(x); }\n"
    )
    with pytest.raises(CudaSyntaxError, match=r"k<1>.*k<2>"):
        run_kernel(
            src.read_text(),
            "k",
            1,
            32,
            {"x": np.zeros(32, "int32")},
            "9.0",
            engine="ptx",
            source_name=str(src),
            compiler=route,
        )
    x = np.zeros(32, "int32")
    run_kernel(src.read_text(), "k<2>", 1, 32, {"x": x}, "9.0", engine="ptx", source_name=str(src), compiler=route)
    assert (x == 2).all()


@pytest.mark.skipif(not HAVE_NVCC, reason="no nvcc wheel or host C++ compiler")
def test_the_corpus_counts_the_same_through_nvcc():
    """nvcc and NVRTC compile the same device code to the same PTX (NVIDIA's one NVVM): every
    third of the 72 corpus launches in the manifest's order (24; all 72 took 21 s of CI's 10
    minutes) counts and writes through nvcc what the NVRTC route does."""
    import golden

    found = golden.corpus_outputs(every=3)
    assert len(found) == 24
    kept = {name: entry for name, entry in json.loads(golden.GOLDEN.read_text())["corpus"].items() if name in found}
    assert len(kept) == 24
    for name, entry in kept.items():
        assert found[name]["counters"] == entry["counters"], name
        assert found[name]["outputs"] == entry["outputs"], name


@pytest.mark.skipif(not HAVE_NVCC, reason="no nvcc wheel or host C++ compiler")
def test_a_missing_library_call_is_blanked_alone_so_a_deduced_launch_still_instantiates(ptx_cache):
    """The library's statements go, the launch beside them stays: `halve<double>` exists only
    because `check<double>` calls `launch_halve(d, n)`, and it halves each element."""
    path = DATA / "library_beside_launch.cu"
    x = _ramp("float64")
    result = run_kernel(path.read_text(), "halve", 2, 128, {"x": x, "n": N}, "9.0", engine="ptx", source_name=str(path))
    assert not result.faults
    np.testing.assert_array_equal(x, _ramp("float64") / 2)
    assert any("vendor_blas.h" in note for note in result.compile_notes)


@pytest.mark.skipif(not HAVE_NVCC, reason="no nvcc wheel or host C++ compiler")
def test_a_fault_in_a_kernel_defined_in_a_header_names_the_header_and_its_line(ptx_cache):
    """nvcc's PTX names only the header (file 1) when the .cu file has no device code of its own;
    the write past the end is line 7 of the header, the line a sanitizer would name."""
    path = DATA / "kernel_only_in_header.cu"
    result = run_kernel(
        path.read_text(),
        "past_end",
        1,
        64,
        {"data": np.zeros(64, "f4"), "n": 64},
        "9.0",
        engine="ptx",
        source_name=str(path),
        raise_on_fault=False,
    )
    assert result.faults, "the last thread writes data[64], one past the end"
    fault = result.faults[0]
    assert fault.source_name.endswith("kernel_only_in_header.cuh") and fault.line == 7, fault.message
