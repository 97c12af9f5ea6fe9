"""Here: the tensor corpus's kernels at the H100 run's large sizes, predicted as `perfcalc run
--source FILE --kernel K --gpu h100-sxm` predicts a user's launch (block sampling: seconds, not
the minutes a whole program takes), against tensor_run/ncu_large_*.csv.

    python benchmarks/hw/tensor_times_sampled.py [benchmarks/hw/tensor_run]

Writes times_sampled.csv into the run folder and prints one line per launch. (For mma_gemm the
whole-program run through `perfcalc app` and this sampled run predict the same 198.7 us.)
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "hw"))

from ptx_corpus_compare import ncu_values  # noqa: E402

from perfcalc.analysis.analyze import RunOptions, SourceKernel, analyze  # noqa: E402
from perfcalc.specs.target import resolve_target  # noqa: E402

N = 2048
NN = N * N
L = 256 * 32  # mma_shapes' lanes
P = 2048 * 32  # mma_probe's lanes
T = 4096 * 64  # attention: tokens x head dimension


def _gemm(a: str, b: str, c: str, names: tuple[str, str, str] = ("A", "B", "C")) -> tuple[str, ...]:
    return tuple(f"{n}={t}:{NN}" for n, t in zip(names, (a, b, c), strict=True))


# (program, launch index in its ncu_large file, kernel, grid, block, arrays, scalars)
LAUNCHES = [
    ("mma_gemm", 0, "gemm<false>", (64, 64), 128, _gemm("uint16", "uint16", "float32"), {"n": N}),
    ("mma_gemm", 1, "gemm<true>", (64, 64), 128, _gemm("uint16", "uint16", "float32"), {"n": N}),
    ("mma_int8_tf32", 0, "gemm_s8", (N // 8, N // 16), 32, _gemm("int8", "int8", "int32", ("A", "Bt", "C")), {"n": N}),
    (
        "mma_int8_tf32",
        1,
        "gemm_tf32",
        (N // 8, N // 16),
        32,
        _gemm("float32", "float32", "float32", ("A", "Bt", "C")),
        {"n": N},
    ),
    (
        "wmma_gemm",
        0,
        "gemm_f16",
        (N // 16, N // 16),
        32,
        _gemm("float16", "float16", "float32"),
        {"n": N, "alpha": 0.5},
    ),
    ("wmma_gemm", 1, "gemm_bf16", (N // 16, N // 16), 32, _gemm("uint16", "uint16", "float32"), {"n": N}),
    ("wmma_gemm", 2, "gemm_tf32", (N // 16, N // 16), 32, _gemm("float32", "float32", "float32"), {"n": N}),
    (
        "wmma_int8",
        0,
        "gemm<signed char>",
        (N // 16, N // 16),
        32,
        _gemm("int8", "int8", "int32", ("A", "Bt", "C")),
        {"n": N},
    ),
    (
        "wmma_int8",
        1,
        "gemm<unsigned char>",
        (N // 16, N // 16),
        32,
        _gemm("uint8", "uint8", "int32", ("A", "Bt", "C")),
        {"n": N},
    ),
    ("sgemm_cp_async", 0, "sgemm", (N // 32, N // 32), 256, _gemm("float32", "float32", "float32"), {"n": N}),
    ("ldmatrix_variants", 0, "variants", (8192,), 32, ("in=uint16:4194304", "out=uint32:3670016"), {}),
    ("cp_async_sizes", 0, "sizes", (8192,), 32, ("in=uint32:4194304", "out=uint32:3276800"), {}),
    ("lowprec_conversions", 0, "decode_fp8", (2,), 128, ("out=uint32:512",), {}),
    ("lowprec_conversions", 1, "encode", (33,), 128, ("x=float32:4114", "out=uint32:16456"), {"n": 4114}),
    (
        "wmma_shapes",
        0,
        "gemm<32, 8, float>",
        (8, 2),
        32,
        ("A=float16:262144", "B=float16:262144", "C=float32:4096"),
        {"k_total": 4096, "n_total": 64},
    ),
    (
        "wmma_shapes",
        1,
        "gemm<8, 32, __half>",
        (2, 8),
        32,
        ("A=float16:262144", "B=float16:262144", "C=float16:4096"),
        {"k_total": 4096, "n_total": 64},
    ),
    (
        "flash_attention",
        0,
        "attention",
        (64,),
        128,
        (f"Q=uint16:{T}", f"K=uint16:{T}", f"V=uint16:{T}", f"O=float32:{T}"),
        {"n": 4096, "scale_log2": 0.125 * 1.4426950408889634},
    ),
    *[
        ("mma_probe", i, k, (512,), 128, (f"a=uint32:{4 * P}", f"b=uint32:{2 * P}", *cd), {})
        for i, (k, cd) in enumerate(
            (
                ("probe_f16", (f"c=float32:{4 * P}", f"d=float32:{4 * P}")),
                ("probe_f16_acc16", (f"c=uint32:{2 * P}", f"d=uint32:{2 * P}")),
                ("probe_bf16", (f"c=float32:{4 * P}", f"d=float32:{4 * P}")),
                ("probe_tf32", (f"c=float32:{4 * P}", f"d=float32:{4 * P}")),
                ("probe_s8", (f"c=int32:{4 * P}", f"d=int32:{4 * P}")),
            )
        )
    ],
    (
        "bf16_elementwise",
        0,
        "act",
        (32768,),
        256,
        ("x=uint16:16777216", "bias=uint16:64", "y=uint16:16777216", "z=uint16:16777216"),
        {"n2": 8388608},
    ),
    *[
        (
            "mma_shapes",
            i,
            k,
            (64,),
            128,
            (f"a=uint32:{4 * L}", f"b=uint32:{2 * L}", f"c={c}:{4 * L}", f"d={c}:{4 * L}"),
            {},
        )
        for i, (k, c) in enumerate(
            (
                ("k8_f16", "float32"),
                ("k8_bf16", "float32"),
                ("k4_tf32", "float32"),
                ("k16_s8", "int32"),
                ("k32_u8s8_sat", "int32"),
            )
        )
    ],
]


def main(run: Path) -> None:
    target = resolve_target(None, "h100-sxm", default_product=False)
    rows = []
    for program, index, kernel, grid, block, arrays, scalars in LAUNCHES:
        measured = ncu_values(run / f"ncu_large_{program}.csv")[index]["gpu__time_duration.sum"] * 1e-9
        source = ROOT / "tests" / "data" / "cuda" / "tensor" / f"{program}.cu"
        spec = SourceKernel(source, kernel, grid, block, arrays, scalars)
        report = analyze(spec, target, RunOptions(engine="ptx"))
        t = report.run.launch_report.time if report.run.launch_report is not None else None
        predicted = t.predicted_time_s if t is not None else float("nan")
        bound = t.bound if t is not None else ""
        rows.append((program, kernel, measured, predicted, predicted / measured, bound))
        print(
            f"{program} {kernel}: H100 {measured * 1e6:.1f} us, perfcalc {predicted * 1e6:.1f} us, "
            f"x{predicted / measured:.2f} ({bound})",
            flush=True,
        )
    # programs whose kernels take arguments --array/-p cannot give (a __half2 by value) or that
    # were timed whole: their `perfcalc app` predictions (times_NAME.csv) against this run
    for program in ("bf16_norms", "half2_fp8"):
        with (run / f"times_{program}.csv").open() as f:
            whole = list(csv.DictReader(f))
        hw = ncu_values(run / f"ncu_large_{program}.csv")
        for i, row in enumerate(whole):
            measured = hw[i]["gpu__time_duration.sum"] * 1e-9
            predicted = float(row["perfcalc s"])
            rows.append((program, row["kernel"], measured, predicted, predicted / measured, "(perfcalc app, whole)"))
            print(
                f"{program} {row['kernel']}: H100 {measured * 1e6:.1f} us, perfcalc app {predicted * 1e6:.1f} us, "
                f"x{predicted / measured:.2f}",
                flush=True,
            )
    with (run / "times_sampled.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(("program", "kernel", "h100 s", "perfcalc s", "ratio", "bound"))
        w.writerows(rows)
    within = sum(1 for r in rows if 1 / 1.5 <= r[4] <= 1.5)
    print(f"{within} of {len(rows)} launches within 1.5x")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "benchmarks" / "hw" / "tensor_run")
