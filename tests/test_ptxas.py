"""Reading ptxas resource usage.

The inputs are real compiler output: tests/data/ptxas_*.txt were produced here with CUDA 13.0
(`nvcc -Xptxas -v` / `--resource-usage`; commands and kernel sources in ptxas_SOURCES.txt). The
expected numbers are the ones printed in those files. Older output formats are quoted from the
public sources named in each test. Demangled names are what GNU c++filt 2.40 prints.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from perfcalc.errors import InputError
from perfcalc.model.ptxas import demangle, parse_ptxas, read_ptxas_file

DATA = Path(__file__).parent / "data"
PTXAS_LOGS = [
    "ptxas_seeds_sm75.txt",
    "ptxas_seeds_sm90.txt",
    "ptxas_seeds_sm75_sm90.txt",
    "ptxas_seeds_sm86_resource_usage.txt",
    "ptxas_extra_sm80.txt",
    "ptxas_extra_sm80_rdc.txt",
]


def by_name(kernels):
    return {(k.name, k.compiled_for): k for k in kernels}


def test_seed_kernels_sm75():
    """ptxas_seeds_sm75.txt: 'Used 52 registers, used 0 barriers, 380 bytes cmem[0]' for the
    naive matmul and 'Used 38 registers, used 1 barriers, 2048 bytes smem' for the tiled one
    (2 x 16 x 16 floats = 2048 B, as seed 000 computes for TILE_WIDTH 16)."""
    kernels = read_ptxas_file(DATA / "ptxas_seeds_sm75.txt")
    assert len(kernels) == 6
    k = by_name(kernels)
    naive = k[("_Z15MatrixMulKernelPfS_S_i", "sm_75")]
    assert (naive.registers_per_thread, naive.static_shared_memory_bytes, naive.block_barriers) == (52, 0, 0)
    assert naive.constant_memory_bytes == ((0, 380),)
    assert naive.demangled == "MatrixMulKernel(float*, float*, float*, int)"
    assert naive.cc == "7.5"
    tiled = k[("_Z21SharedMatrixMulKernelPfS_S_i", "sm_75")]
    assert (tiled.registers_per_thread, tiled.static_shared_memory_bytes, tiled.block_barriers) == (38, 2048, 1)
    plain = k[("plain_c_kernel", "sm_75")]
    assert plain.demangled is None and plain.display_name == "plain_c_kernel"
    assert plain.registers_per_thread == 8


def test_two_architectures_in_one_log_stay_apart():
    """ptxas_seeds_sm75_sm90.txt (-gencode for sm_75 and sm_90): the same kernel appears once
    per target with that target's registers (ScaleKernel<64>: 64 on sm_75, 32 on sm_90)."""
    kernels = read_ptxas_file(DATA / "ptxas_seeds_sm75_sm90.txt")
    assert [k.compiled_for for k in kernels] == ["sm_75"] * 6 + ["sm_90"] * 6
    k = by_name(kernels)
    assert k[("_Z11ScaleKernelILi64EEvPff", "sm_75")].registers_per_thread == 64
    assert k[("_Z11ScaleKernelILi64EEvPff", "sm_90")].registers_per_thread == 32
    assert k[("_Z11ScaleKernelILi64EEvPff", "sm_90")].constant_memory_bytes == ()


def test_resource_usage_flag_gives_the_same_lines():
    """nvcc --resource-usage (sm_86): SharedMatrixMulKernel 'Used 40 registers, used 1
    barriers, 2048 bytes smem'; ReduceKernel uses extern (dynamic) smem only, so 0 static."""
    k = by_name(read_ptxas_file(DATA / "ptxas_seeds_sm86_resource_usage.txt"))
    tiled = k[("_Z21SharedMatrixMulKernelPfS_S_i", "sm_86")]
    assert (tiled.registers_per_thread, tiled.static_shared_memory_bytes, tiled.block_barriers) == (40, 2048, 1)
    reduce = k[("_Z12ReduceKernelPfS_", "sm_86")]
    assert (reduce.registers_per_thread, reduce.static_shared_memory_bytes, reduce.block_barriers) == (10, 0, 1)


def test_stack_frame_and_spills():
    """ptxas_extra_sm80.txt: Spilly '1120 bytes stack frame, 1152 bytes spill stores, 1244 bytes
    spill loads'; tiles::Transpose has a 32 x 33 float tile = 4224 B of static smem."""
    k = by_name(read_ptxas_file(DATA / "ptxas_extra_sm80.txt"))
    spilly = k[("_Z6SpillyPff", "sm_80")]
    assert (spilly.stack_frame_bytes, spilly.spill_store_bytes, spilly.spill_load_bytes) == (1120, 1152, 1244)
    assert spilly.registers_per_thread == 32
    transpose = k[("_ZN5tiles9TransposeEPfPKfi", "sm_80")]
    assert transpose.static_shared_memory_bytes == 4224
    assert transpose.demangled == "tiles::Transpose(float*, float const*, int)"


def test_device_functions_are_not_kernels():
    """With -rdc=true ptxas also prints 'Function properties for _Z6helperPfi' (a __noinline__
    device function) without a 'Compiling entry function' line: only the 4 kernels count."""
    kernels = read_ptxas_file(DATA / "ptxas_extra_sm80_rdc.txt")
    assert len(kernels) == 4
    assert all("helper" not in k.name for k in kernels)
    assert by_name(kernels)[("_Z11CallsHelperPf", "sm_80")].registers_per_thread == 24


def test_sm20_format_without_barriers():
    """Fermi-era output quoted verbatim from the NVIDIA forum thread 'Xptxas -v : analysing'
    (forums.developer.nvidia.com/t/xptxas-v-analysing/29324): no barrier count, no smem; the
    forum turned the quotes typographic and dropped the name's leading underscore."""
    text = """ptxas info : Compiling entry function \u2018Z11solverPfS_S_S_S_S_S_S_S_S_S_S\u2019 for \u2018sm_20\u2019
ptxas info : Function properties for Z11solverPfS_S_S_S_S_S_S_S_S_S_S

8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info : Used 40 registers, 128 bytes cmem[0], 128 bytes cmem[14], 56 bytes cmem[16]
"""
    (k,) = parse_ptxas(text)
    assert k.name == "Z11solverPfS_S_S_S_S_S_S_S_S_S_S" and k.demangled is None
    assert (k.registers_per_thread, k.block_barriers, k.static_shared_memory_bytes, k.stack_frame_bytes) == (
        40,
        None,
        0,
        8,
    )
    assert k.constant_memory_bytes == ((0, 128), (14, 128), (16, 56))
    assert k.cc == "2.0"


def test_cc1x_parameters_count_as_shared_memory():
    """CC 1.x output 'Used 2 registers, 16+16 bytes smem' (bobsomers/cubuild README, sm_10):
    the +16 are the kernel parameters, passed in shared memory on 1.x (CUDA C Programming
    Guide 3.x), so the block holds 32 B of shared memory."""
    text = """    ptxas info    : Compiling entry function '_Z3addiiPi' for 'sm_10'
    ptxas info    : Used 2 registers, 16+16 bytes smem
"""
    (k,) = parse_ptxas(text)
    assert (k.static_shared_memory_bytes, k.parameter_shared_memory_bytes) == (32, 16)
    assert k.demangled == "add(int, int, int*)"
    assert k.cc == "1.0"


def test_failed_compilation_is_refused():
    """ptxas_error_sm80.txt: ptxas rejects 64 KB of static smem (0xc000 = 48 KB max) yet still
    prints a 'Used' line; a failed build describes no runnable kernel."""
    with pytest.raises(InputError, match=r"failed compilation .*0x10000 bytes, 0xc000 max"):
        read_ptxas_file(DATA / "ptxas_error_sm80.txt")


def test_text_without_kernels_is_refused():
    with pytest.raises(InputError, match=r"no kernel resource usage found in notes\.txt"):
        parse_ptxas("nvcc warning : something\nhello\n", source="notes.txt")


def test_missing_file_is_refused(tmp_path):
    with pytest.raises(InputError, match=r"cannot read ptxas file .*nope\.txt"):
        read_ptxas_file(tmp_path / "nope.txt")


@pytest.mark.parametrize(
    ("mangled", "expected"),
    [
        ("_Z15MatrixMulKernelPfS_S_i", "MatrixMulKernel(float*, float*, float*, int)"),
        ("_Z11ConstKernelPKfPfi", "ConstKernel(float const*, float*, int)"),
        ("_Z11ScaleKernelILi64EEvPff", "void ScaleKernel<64>(float*, float)"),
        ("_Z7initRNGj", "initRNG(unsigned int)"),
        ("_Z1fPKcRKSt6vectorIiSaIiEE", "f(char const*, std::vector<int, std::allocator<int> > const&)"),
        ("_Z3fooILj3ELb1EEvv", "void foo<3u, true>()"),
        ("_ZN2ns3BarIiE4callEPS1_", "ns::Bar<int>::call(ns::Bar<int>*)"),
        ("_Z1hPPVKd", "h(double const volatile**)"),
    ],
)
def test_demangle_matches_cxxfilt(mangled, expected):
    """Expected strings are GNU c++filt 2.40's output for each name."""
    assert demangle(mangled) == expected


@pytest.mark.parametrize("name", ["plain_c_kernel", "_Z6helperPfi$3", "_Z"])
def test_demangle_gives_up_plainly(name):
    """Not mangled, a suffixed local name, or a truncated name: None, so the mangled name is
    shown as is (c++filt prints these unchanged too). Function-pointer parameters, which the
    built-in demangler gave up on, now demangle: tests/test_demangle.py."""
    assert demangle(name) is None


@pytest.mark.skipif(shutil.which("c++filt") is None, reason="GNU c++filt is not installed")
def test_every_demangled_test_name_agrees_with_cxxfilt():
    """Independent check: for every kernel in the captured logs, our name equals c++filt's."""
    names = sorted({k.name for f in PTXAS_LOGS for k in read_ptxas_file(DATA / f)})
    out = subprocess.run(["c++filt", *names], capture_output=True, text=True, check=True)
    for name, theirs in zip(names, out.stdout.splitlines(), strict=True):
        ours = demangle(name)
        assert ours == theirs or (ours is None and theirs == name), name


def test_toolkit_ptxas_is_used_without_the_wheel(tmp_path, monkeypatch):
    """A CUDA toolkit's ptxas (beside the nvcc perfcalc compiles with, else on PATH) reports the
    registers where the nvidia-cuda-nvcc wheel is absent; before, such a machine fell back to 32
    registers for every kernel (seen on the H100 machine's tune sweep: 32 where the GPU allocated 40-72)."""
    import importlib.util

    from perfcalc.sim.ptx import ptxas

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "nvidia" else real_find_spec(name, *a)
    )
    monkeypatch.delenv("PERFCALC_PTXAS", raising=False)
    monkeypatch.delenv("PERFCALC_NVCC", raising=False)
    monkeypatch.delenv("CUDA_HOME", raising=False)
    on_path = tmp_path / "path" / "ptxas"
    beside = tmp_path / "toolkit" / "bin" / "ptxas"
    for tool in (on_path, beside, beside.with_name("nvcc")):
        tool.parent.mkdir(parents=True, exist_ok=True)
        tool.write_text("#!/bin/sh\n")
        tool.chmod(0o755)
    find = ptxas.ptxas_binary.__wrapped__
    monkeypatch.setenv("PATH", str(on_path.parent))
    assert find() == on_path
    monkeypatch.setenv("PERFCALC_NVCC", str(beside.with_name("nvcc")))
    assert find() == beside
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("PERFCALC_NVCC")
    assert find() is None
