"""The sm_90 MUFU approximations bit for bit (sim/ptx/mufu.py, issue 33).

Expected values: an H200's own outputs (benchmarks/hw/mufu_tables/: on_gpu.sh and
validate_on_gpu.sh; the H100 has the same SM). random_outputs.npz holds the GPU's results for
2^16 inputs of each of ten forms, division_outputs.npz its quotients of 2^14 random pairs for the
four division forms; the inputs are rebuilt here from inputs.py's integer hash. The tables the
engine ships are the GPU's outputs over each function's reduced domain (the *_grid_* files)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from perfcalc.sim import run_kernel
from perfcalc.sim.ptx import mufu, toolchain

ROOT = Path(__file__).resolve().parents[1]
HW = ROOT / "benchmarks" / "hw" / "mufu_tables"
sys.path.insert(0, str(HW))
import inputs  # noqa: E402

needs_nvcc = pytest.mark.skipif(
    toolchain.route("auto") is None, reason="needs nvcc (cuda extra) and a host C++ compiler"
)

RANDOM = np.load(HW / "random_outputs.npz")
FORMS = sorted(RANDOM.files)


def _form(key: str) -> tuple[np.ndarray, str, bool]:
    """The inputs, the function and .ftz of a key such as 'ex2_wide_ex2_ftz'."""
    set_name = "_".join(key.split("_")[:2])
    op = key[len(set_name) + 1 :]
    return getattr(inputs, set_name)(), op.split("_")[0], op.endswith("_ftz")


@pytest.mark.parametrize("key", FORMS)
def test_each_form_gives_the_gpus_bits(key: str) -> None:
    """rsqrt, ex2, rcp and sqrt .approx.f32, with and without .ftz: every one of 2^16 inputs
    (subnormals, infinities and NaNs among them) gives the H200's output bits."""
    x, function, ftz = _form(key)
    got = mufu.MEASURED[function](x, ftz).view(np.uint32)
    np.testing.assert_array_equal(got, RANDOM[key], err_msg=key)


def test_the_ten_forms_are_all_there() -> None:
    """inputs.SETS' random sets, each with the forms run_on_gpu.py applied to it."""
    expected = {f"{name}_{op}" for name, (_, ops) in inputs.SETS.items() if not name.endswith("_grid") for op in ops}
    assert set(FORMS) == expected and len(expected) == 10


@pytest.mark.parametrize("form", ["div_full", "div_full_ftz", "div_approx", "div_approx_ftz"])
def test_divisions_give_the_gpus_bits(form: str) -> None:
    """div.full / div.approx [.ftz] .f32 of 2^14 random bit-pattern pairs (huge and subnormal
    divisors, NaNs) equal the H200's quotients: a times MUFU.RCP(b) with ptxas's rescaling."""
    hw = np.load(HW / "division_outputs.npz")[form]
    i = np.arange(len(hw))
    a, b = inputs.fmix32(i, 16).view(np.float32), inputs.fmix32(i, 17).view(np.float32)
    got = mufu.div_f32(a, b, "full" in form, form.endswith("_ftz")).view(np.uint32)
    np.testing.assert_array_equal(got, hw)


def test_the_shipped_tables_are_the_measured_grids() -> None:
    for name in ("rsqrt", "ex2", "rcp", "sqrt"):
        shipped = (mufu.TABLES / f"{name}.i8.xz").read_bytes()
        assert shipped == (HW / f"{name}_grid_{name}_ftz.i8.xz").read_bytes(), name


def test_results_differ_from_correct_rounding_where_the_gpu_does() -> None:
    """Not a correctly rounded function: 1.0 -> exactly 1.0, but 22 % of the RSQ grid and half
    of the EX2 grid are one or two units off the correctly rounded result (log.txt's steps)."""
    x = inputs.rsqrt_grid()[:: 1 << 8]
    exact = (1.0 / np.sqrt(x.astype(np.float64))).astype(np.float32)
    got = mufu.rsqrt_approx_f32(x, ftz=True)
    assert got[0] == np.float32(1.0)
    off = np.abs(got.view(np.uint32).astype(np.int64) - exact.view(np.uint32))
    assert off.max() <= 2 and 0.1 < np.mean(off > 0) < 0.4


KERNEL = r"""
__global__ void forms(const float* x, float* rsq, float* ex2, float* rcp, float* sq, float* q, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i], r;
    asm("rsqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(v)); rsq[i] = r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(v)); ex2[i] = r;
    asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(v)); rcp[i] = r;
    asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(v)); sq[i] = r;
    asm("div.full.f32 %0, %1, %2;" : "=f"(r) : "f"(v), "f"(x[n - 1 - i])); q[i] = r;
}
"""


@needs_nvcc
@pytest.mark.parametrize("cc", ["9.0", "8.0"])
def test_the_engine_runs_them_on_sm90_and_rounds_correctly_elsewhere(cc: str, tmp_path: Path) -> None:
    """A kernel of five forms: at CC 9.0 the GPU's bits (the functions above, checked against the
    H200); at CC 8.0, where no table was measured, the correctly rounded results."""
    n = 2048
    x = (inputs.any_random()[:n].view(np.uint32) & np.uint32(0x7FFFFFFF)).view(np.float32)
    x = np.where(np.isfinite(x), x, np.float32(3.0)).astype(np.float32)
    arrays = {k: np.zeros(n, np.float32) for k in ("rsq", "ex2", "rcp", "sq", "q")}
    path = tmp_path / "forms.cu"
    path.write_text(KERNEL)
    run_kernel(KERNEL, "forms", n // 256, 256, {"x": x, **arrays, "n": n}, cc, engine="ptx", source_name=str(path))
    d = x.astype(np.float64)
    if cc == "9.0":
        want = {
            "rsq": mufu.rsqrt_approx_f32(x, False),
            "ex2": mufu.ex2_approx_f32(x, True),
            "rcp": mufu.rcp_approx_f32(x, False),
            "sq": mufu.sqrt_approx_f32(x, False),
            "q": mufu.div_f32(x, x[::-1], True, False),
        }
    else:
        with np.errstate(all="ignore"):
            want = {
                "rsq": (1.0 / np.sqrt(d)).astype(np.float32),
                "ex2": np.exp2(np.where(np.abs(x) < 2.0**-126, 0.0, d)).astype(np.float32),
                "rcp": (1.0 / d).astype(np.float32),
                "sq": np.sqrt(d).astype(np.float32),
                "q": (d / d[::-1]).astype(np.float32),
            }
    for name, expected in want.items():
        got, exp = arrays[name], np.asarray(expected, np.float32)
        same = (got.view(np.uint32) == exp.view(np.uint32)) | (np.isnan(got) & np.isnan(exp))
        assert same.all(), f"{cc} {name}: {np.count_nonzero(~same)} of {n} differ"
