"""Here, after tensor_on_h100.sh: the tensor-core corpus (tests/data/cuda/tensor/) run whole by
`perfcalc app` against the H100's outputs, Nsight Compute counters, registers and times.

    python benchmarks/hw/tensor_compare.py [benchmarks/hw/tensor_run] [--gpu h100-sxm] [--no-times] [PROGRAM...]

Writes outputs.csv (per program: bytes compared, elements equal), counters.csv (per launch and
counter: H100, perfcalc, equal) and times.csv (per launch at the realistic size: H100, perfcalc's
prediction, ratio) into the run folder and prints the summary recorded in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import csv
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "hw"))

from ptx_corpus_compare import NCU, REGISTER_FLOOR, allocated, ncu_values  # noqa: E402

from perfcalc.app import app  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "cuda" / "tensor"
# name: (arguments after OUT.bin at the checked size, at the timed size, element size of the output)
CASES = {
    "mma_probe": (["2048"], ["2048"], 4),
    "mma_gemm": (["128"], ["2048"], 4),
    "wmma_gemm": (["64"], ["2048"], 4),
    "mma_int8_tf32": (["64"], ["2048"], 4),
    "bf16_norms": (["64", "1024"], ["4096", "4096"], 2),
    "half2_fp8": (["65536"], ["16777216"], 2),
    "flash_attention": (["256"], ["4096"], 4),
    "sgemm_cp_async": (["100"], ["2048"], 4),
    "mma_shapes": (["256"], ["256"], 4),
    "bf16_elementwise": (["65536"], ["16777216"], 2),
    "wmma_int8": (["64"], ["2048"], 4),
    "ldmatrix_variants": (["8"], ["8192"], 4),
    "cp_async_sizes": (["16"], ["8192"], 4),
    "lowprec_conversions": ([], [], 4),
    "wmma_shapes": (["64"], ["4096"], 4),
}
TENSOR_METRIC = "smsp__inst_executed_pipe_tensor.sum"
COUNTERS = (*NCU, "tensor_instructions")


def perfcalc_counts(counters: dict, kinds: dict[str, int]) -> dict[str, float]:
    out = {k: float(counters.get(k, 0)) for k in NCU}
    out["tensor_instructions"] = float(sum(n for k, n in kinds.items() if k.startswith("tensor_")))
    return out


def h100_counts(metrics: dict[str, float]) -> dict[str, float]:
    out = {k: sum(metrics.get(m, 0.0) * w for m, w in parts) for k, parts in NCU.items()}
    out["tensor_instructions"] = metrics.get(TENSOR_METRIC, 0.0)
    return out


def main(run: Path, gpu: str, with_times: bool, only: set[str]) -> None:
    outputs, counters, times = [], [], []
    for name, (small, large, esize) in CASES.items():
        if only and name not in only:
            continue
        source = str(CORPUS / f"{name}.cu")
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "out.bin"
            report = app([source], [str(out), *small])
            mine, theirs = out.read_bytes(), (run / f"{name}.bin").read_bytes()
        a = np.frombuffer(mine, dtype=f"u{esize}")
        b = np.frombuffer(theirs, dtype=f"u{esize}")
        equal = int((a == b).sum()) if a.size == b.size else 0
        outputs.append((name, len(theirs), b.size, equal, mine == theirs))
        h100 = ncu_values(run / f"ncu_small_{name}.csv")
        for launch, metrics in zip(report.launches, h100, strict=True):
            kinds = launch.sim.counters.warp_instructions if launch.sim is not None else {}
            ours, hw = perfcalc_counts(launch.counters, kinds), h100_counts(metrics)
            regs_hw = metrics.get("launch__registers_per_thread", 0.0)
            for k in COUNTERS:
                counters.append((name, launch.short_name, k, hw[k], ours[k], hw[k] == ours[k]))
            regs = launch.registers_per_thread
            counters.append((name, launch.short_name, "registers", regs_hw, regs, regs_hw == allocated(regs)))
        if not with_times:
            continue
        timed = app([source], ["/dev/null", *large], gpu=gpu, max_seconds=3600)
        for launch, metrics in zip(timed.launches, ncu_values(run / f"ncu_large_{name}.csv"), strict=True):
            measured = metrics["gpu__time_duration.sum"] * 1e-9
            predicted = launch.predicted_time_s or float("nan")
            times.append((name, launch.short_name, " ".join(large), measured, predicted, predicted / measured))
    suffix = "" if not only else "_" + "_".join(sorted(only))  # a part of the corpus: its own times
    if not only:
        _write(run / "outputs.csv", ("program", "bytes", "elements", "equal elements", "bit for bit"), outputs)
        _write(run / "counters.csv", ("program", "kernel", "counter", "h100", "perfcalc", "equal"), counters)
    if with_times:
        _write(run / f"times{suffix}.csv", ("program", "kernel", "size", "h100 s", "perfcalc s", "ratio"), times)
    _summary(outputs, counters, times)


def _write(path: Path, header: tuple[str, ...], rows: list[tuple]) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def _summary(outputs: list[tuple], counters: list[tuple], times: list[tuple]) -> None:
    bitwise = sum(1 for o in outputs if o[4])
    print(
        f"outputs: {bitwise}/{len(outputs)} programs bit for bit; elements equal "
        f"{sum(o[3] for o in outputs)}/{sum(o[2] for o in outputs)}"
    )
    for o in outputs:
        print(f"  {o[0]}: {o[3]}/{o[2]} elements equal")
    pairs = [c for c in counters if c[2] != "registers"]
    print(f"counters: {sum(1 for c in pairs if c[5])}/{len(pairs)} launch-counter pairs equal")
    by = defaultdict(lambda: [0, 0])
    for c in pairs:
        by[c[2]][0] += c[5]
        by[c[2]][1] += 1
    for k, (eq, n) in by.items():
        print(f"  {k}: {eq}/{n}")
    regs = [c for c in counters if c[2] == "registers"]
    equal = sum(1 for c in regs if c[5])
    print(f"registers: {equal}/{len(regs)} equal to ptxas's (at least {REGISTER_FLOOR} allocated)")
    if not times:
        return
    ratios = np.array([t[5] for t in times])
    within = np.mean((ratios <= 1.5) & (ratios >= 1 / 1.5)) if ratios.size else 0.0
    print(f"times: {len(times)} launches, within 1.5x: {within:.0%}, median ratio {np.median(ratios):.2f}")
    for t in times:
        print(f"  {t[0]} {t[1]} ({t[2]}): H100 {t[3] * 1e6:.1f} us, perfcalc {t[4] * 1e6:.1f} us, x{t[5]:.2f}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    gpu = sys.argv[sys.argv.index("--gpu") + 1] if "--gpu" in sys.argv else "h100-sxm"
    args = [a for a in args if a != gpu]
    only = {a for a in args if a in CASES}
    folders = [a for a in args if a not in CASES]
    run = Path(folders[0]) if folders else ROOT / "benchmarks" / "hw" / "tensor_run"
    main(run, gpu, "--no-times" not in sys.argv, only)
