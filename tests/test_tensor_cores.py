"""Tensor cores, asynchronous copies and low-precision formats in the PTX engine (issue 33).

Expected values come from (1) the H100: the corpus of tests/data/cuda/tensor/ built by nvcc for
sm_90 and run on an NVIDIA H100 80GB HBM3, its outputs and Nsight Compute counters kept in
benchmarks/hw/tensor_run/ (benchmarks/hw/tensor_on_h100.sh); (2) an independent integer
re-derivation of the published block-FMA model (Khattak & Mikaitis, arXiv 2512.07004: align to
the largest exponent with n extra bits by truncation, sum exactly, round once toward zero);
(3) the OCP FP8 and bfloat16 formats' definitions for conversions.
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from perfcalc.sim.ptx import lowprec, toolchain
from perfcalc.sim.ptx import tensor_numerics as tn

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "data" / "cuda" / "tensor"
H100 = ROOT / "benchmarks" / "hw" / "tensor_run"
sys.path.insert(0, str(H100.parent))
from ptx_corpus_compare import ncu_values  # noqa: E402

needs_nvcc = pytest.mark.skipif(
    toolchain.route("auto") is None, reason="needs nvcc (cuda extra) and a host C++ compiler"
)


# --- the block FMA against an integer re-derivation -------------------------------------------
def _integer_block(a: list[float], b: list[float], c: float, fma: int, neab: int, emin: int) -> float:
    """One block, scalar and in integers, as the paper describes it (float32 result, RZ)."""

    def expo(x: float, lo: int) -> int:
        return max(int(np.floor(np.log2(abs(x)))), lo)

    terms = []  # (sign, significand scaled to 23 fraction bits, exponent), products normalised
    carry = False
    products = [(x * y, expo(x, emin) + expo(y, emin)) for x, y in zip(a, b, strict=True) if x * y != 0]
    if products:
        top_pre = max(e for _, e in products)
        carry = any(abs(p) / 2.0**e >= 2 for p, e in products if e == top_pre)
        if c != 0 and top_pre < expo(c, -126):
            carry = False
    for p, e in products:
        sig = abs(p) / 2.0**e
        if sig >= 2:
            sig, e = sig / 2, e + 1
        terms.append((1 if p > 0 else -1, int(sig * 2**23), e))
    if c != 0:
        e = expo(c, -126)
        terms.append((1 if c > 0 else -1, int(abs(c) / 2.0**e * 2**23), e))
    if not terms:
        return 0.0
    top = max(e for _, _, e in terms)
    n = neab + (1 if carry else 0)
    total = sum(s * ((sig << n) >> (top - e)) for s, sig, e in terms)
    value = total * 2.0 ** (top - 23 - n)
    if value == 0:
        return 0.0
    q = 2.0 ** (max(int(np.floor(np.log2(abs(value)))), -126) - 23)
    return float(np.trunc(value / q) * q)


def _spread(rng: random.Random, n: int, spread: int, dtype: type) -> list[float]:
    return [
        float(dtype(rng.choice((-1, 1)) * rng.uniform(1, 2) * 2.0 ** rng.randint(-spread, spread))) for _ in range(n)
    ]


@pytest.mark.parametrize(("cc", "fmt", "k"), [("9.0", "f16", 16), ("8.0", "f16", 8), ("9.0", "tf32", 8)])
def test_block_fma_equals_the_integer_model(cc: str, fmt: str, k: int) -> None:
    m = tn.model(cc, fmt)
    rng = random.Random(7)
    emin = -14 if fmt == "f16" else -126
    for _ in range(300):
        a = _spread(rng, k, 6, np.float16)
        b = _spread(rng, k, 6, np.float16)
        c = float(np.float32(rng.choice((0.0, 1.0)) * rng.uniform(-1, 1) * 2.0 ** rng.randint(-12, 12)))
        got = tn.block_fma(np.array(a), np.array(b), np.array(c), fmt, m, "f32")
        assert got == _integer_block(a, b, c, m.fma, m.neab, emin), (a, b, c)


def test_block_fma_is_not_ieee() -> None:
    """1 + fifteen products of 2**-26: IEEE float32 of the exact sum (1 + 1.875 units in the last
    place) is 1 + 2**-22; the H100's block FMA aligns each small product to 25 fraction bits of
    the largest, truncating it to 0, and returns 1 (the integer model agrees)."""
    a = np.array([1.0] + [2.0**-13] * 15)
    got = tn.block_fma(a, a, np.array(0.0), "f16", tn.model("9.0", "f16"), "f32")
    assert got == 1.0 == _integer_block(list(a), list(a), 0.0, 16, 2, -14)
    assert float(np.float32(1 + 15 * 2.0**-26)) == 1 + 2.0**-22


# --- conversions ------------------------------------------------------------------------------
def test_e4m3_codes_decode_as_the_ocp_table_says() -> None:
    """OCP FP8 E4M3: 0x7E = 448 (largest), 0x08 = 2**-6 (smallest normal), 0x01 = 2**-9 (smallest
    subnormal), 0x7F NaN, no infinities; every finite code encodes back to itself."""
    codes = np.arange(256)
    values = lowprec.decode(codes, lowprec.E4M3)
    assert values[0x7E] == 448 and values[0x08] == 2.0**-6 and values[0x01] == 2.0**-9
    assert np.isnan(values[0x7F]) and np.isnan(values[0xFF]) and not np.isinf(values).any()
    finite = ~np.isnan(values) & (codes != 0x80)  # -0 encodes as 0x80 too, but compares equal to 0
    back = lowprec.encode(values[finite], lowprec.E4M3, satfinite=True)
    assert np.array_equal(back, codes[finite])


def test_e5m2_saturates_and_rounds_to_nearest_even() -> None:
    f = lowprec.E5M2
    x = np.array([1e6, -1e6, 1.125, 1.375, np.nan])  # 1.125 ties to 1.0, 1.375 ties to 1.5
    bits = lowprec.encode(lowprec.quantize(x, f), f, satfinite=True)
    assert list(lowprec.decode(bits[:4], f)) == [57344.0, -57344.0, 1.0, 1.5]
    assert np.isnan(lowprec.decode(bits[4:], f)).all()


def test_bfloat16_rounding_matches_the_bit_trick() -> None:
    """float32 -> bf16 round-to-nearest-even is (bits + 0x7FFF + lsb) >> 16 for finite values."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal(10_000).astype(np.float32) * np.float32(1e3)
    bits = x.view(np.uint32).astype(np.uint64)
    want = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    assert np.array_equal(lowprec.bf16_round(x.astype(np.float64)), want)


# --- the corpus against the H100 ---------------------------------------------------------------
def _run(name: str, *args: str) -> tuple[bytes, object]:
    import perfcalc.app

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.bin"
        report = perfcalc.app.app([str(CORPUS / f"{name}.cu")], [str(out), *args])
        assert report.exit_status == 0, report.stderr
        return out.read_bytes(), report


BIT_EXACT = {  # program: arguments of the H100 run (tensor_on_h100.sh's small size)
    "mma_probe": ("2048",),  # 1,179,648 results of f16, f16-accumulate, bf16, tf32 and s8 mma
    "mma_gemm": ("128",),  # cp.async double buffering + ldmatrix (.x4, .trans) + mma, f16 and bf16
    "wmma_gemm": ("64",),  # nvcuda::wmma f16 (col-major B, scaled fragment), bf16, tf32
    "mma_int8_tf32": ("64",),
    "half2_fp8": ("65536",),  # half2 arithmetic, e4m3 / e5m2 quantise and dequantise
    "sgemm_cp_async": ("100",),  # cp.async.ca double buffering, src-size zero fill at the edges
    "mma_shapes": ("256",),  # m16n8k8 f16/bf16, m16n8k4 tf32, m16n8k16 s8, u8 x s8 .satfinite
    "bf16_elementwise": ("65536",),  # bf16x2 fma/mul/add/sub/max/min/neg/abs, cvt .rn and .rz
    "wmma_int8": ("64",),  # s8 and u8 wmma with int32 accumulators
    "ldmatrix_variants": ("8",),  # .x1/.x2/.x4, plain and .trans: the lane maps themselves
    "cp_async_sizes": ("16",),  # 4- and 8-byte .ca, 16-byte .cg with every src-size 0..16
    "lowprec_conversions": (),  # every fp8 code decoded; ties, subnormals, inf, NaN encoded
    "wmma_shapes": ("64",),  # m32n8k16 (float) and m8n32k16 (half accumulators)
    # bf16 LayerNorm and RMSNorm (rsqrtf: MUFU.RSQ, sim/ptx/mufu.py)
    "bf16_norms": ("64", "1024"),
    # mma + online softmax (exp2f: MUFU.EX2, sim/ptx/mufu.py)
    "flash_attention": ("256",),
}


@needs_nvcc
@pytest.mark.usefixtures("ptx_cache")
@pytest.mark.parametrize("name", sorted(BIT_EXACT))
def test_outputs_equal_the_h100_bit_for_bit(name: str) -> None:
    mine, _ = _run(name, *BIT_EXACT[name])
    assert mine == (H100 / f"{name}.bin").read_bytes()


@needs_nvcc
@pytest.mark.usefixtures("ptx_cache")
@pytest.mark.parametrize(
    ("name", "args"),
    [("mma_gemm", ("128",)), ("wmma_gemm", ("64",)), ("mma_int8_tf32", ("64",)), ("flash_attention", ("256",))],
)
def test_tensor_instructions_and_shared_wavefronts_equal_nsight_compute(name: str, args: tuple[str, ...]) -> None:
    """Per launch: HMMA/IMMA instructions (smsp__inst_executed_pipe_tensor) and shared-load
    wavefronts (ldmatrix included) equal the H100's."""
    _, report = _run(name, *args)
    for launch, metrics in zip(report.launches, ncu_values(H100 / f"ncu_small_{name}.csv"), strict=True):  # type: ignore[attr-defined]
        kinds = launch.sim.counters.warp_instructions
        tensor = sum(n for k, n in kinds.items() if k.startswith("tensor_"))
        assert tensor == metrics["smsp__inst_executed_pipe_tensor.sum"], launch.kernel
        assert (
            launch.counters["shared_load_wavefronts"] == metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
        ), launch.kernel


@needs_nvcc
@pytest.mark.usefixtures("ptx_cache")
def test_the_time_model_prices_the_tensor_pipe() -> None:
    """An mma GEMM's prediction has a tensor-pipe term: its HMMA count x the H100's measured
    6 cycles (devices/timing.yaml) / 4 sub-partitions / (132 SMs x 1980 MHz) x busiest SM."""
    import perfcalc.app

    report = perfcalc.app.app([str(CORPUS / "mma_gemm.cu")], ["/dev/null", "128"], gpu="h100-sxm")
    launch = report.launches[0]
    hmma = launch.sim.counters.warp_instructions["tensor_16bit_k16"]
    term = next(t for t in launch.time.terms if t.name == "tensor pipe")
    blocks = 16
    busiest = 1 / (blocks / 132)
    assert term.time_s == pytest.approx(hmma * 6 / (4 * 132 * 1980e6) * busiest)


_LATER = """.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(.param .u64 x)
{
.reg .b32 %r<4>;
wgmma.fence.sync.aligned;
cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r1], [%r2, {%r1, %r1}], [%r3];
mbarrier.init.shared.b64 [%r1], 1;
tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r1], {%r2};
ret;
}
"""


@pytest.mark.parametrize(
    ("index", "named"),
    [
        (0, "Hopper wgmma"),
        (1, "bulk/TMA copies and mbarrier completion"),
        (2, "mbarrier objects"),
        (3, "Blackwell tensor memory"),
        (4, "stmatrix"),
    ],
)
def test_later_tensor_instructions_are_refused_by_name(index: int, named: str) -> None:
    """What needs a per-warp scheduler (wgmma, TMA, mbarrier, tcgen05) or is not written yet is
    refused in one line naming the instruction, its source line (0 here: no .loc) and what it is."""
    from perfcalc.errors import CudaSyntaxError
    from perfcalc.sim.ptx import program
    from perfcalc.sim.ptx.parse import parse_module

    fn = next(iter(parse_module(_LATER).functions.values()))
    instr = fn.body[index]
    with pytest.raises(CudaSyntaxError, match=rf"{named}.*at line|at line.*{named}"):
        step = program._step(instr, None)  # type: ignore[arg-type]
        step.run(None, None, True)  # type: ignore[misc]
