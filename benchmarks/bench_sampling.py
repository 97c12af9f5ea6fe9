"""Block sampling's error and speed (issue #9, part 3): each catalog kernel at a size where the
whole launch can still be simulated, once whole and once sampled (budget 0.05 s, so the sample is
small), on the H100 SXM's model (the last four launches' arrays exceed its 50 MB L2); then
every time_cases.py launch (realistic sizes) timed to a prediction with the default budget.

    python benchmarks/bench_sampling.py [--skip-realistic]

Columns: relative error of the sampled run's extrapolated counters (global requests, sectors,
L1 wavefronts, shared wavefronts, warp instructions), DRAM bytes read and written and predicted
time against the whole run's; L1 and L2 hit rates as the difference in points. Writes
benchmarks/results_sampling.md.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "hw"))

from time_cases import TIME_CASES, case_name  # noqa: E402

from perfcalc.analysis.launch_report import analyze_catalog_kernel  # noqa: E402
from perfcalc.analysis.sampling import DEFAULT_BUDGET_S  # noqa: E402
from perfcalc.specs import get_arch, get_gpu  # noqa: E402
from perfcalc.specs.kernels import get_kernel  # noqa: E402

CASES = [
    ("copy_stride", {"n": 1 << 22, "stride": 1}),
    ("copy_stride", {"n": 1 << 19, "stride": 32}),
    ("copy_offset", {"n": 1 << 22, "offset": 1}),
    ("aos_struct", {"n": 1 << 21}),
    ("soa_struct", {"n": 1 << 21}),
    ("aos_float3", {"n": 1 << 21}),
    ("reduce_interleaved", {"n": 1 << 22}),
    ("reduce_sequential", {"n": 1 << 22}),
    ("convolve", {"n": 1 << 22}),
    ("transpose_naive", {"n": 2048}),
    ("transpose_shared", {"n": 2048}),
    ("transpose_padded", {"n": 2048}),
    ("matmul_naive", {"Width": 512}),
    ("matmul_tiled", {"Width": 512}),
    # arrays larger than the H100's 50 MB L2: DRAM writes and L2 misses in steady state
    ("copy_stride", {"n": 1 << 24, "stride": 1}),
    ("reduce_sequential", {"n": 1 << 24}),
    ("convolve", {"n": 1 << 24}),
    ("transpose_padded", {"n": 4096}),
]
GPU, ARCH = get_gpu("h100-sxm"), get_arch("9.0")


def measure(name: str, overrides: dict, budget: float, exact: bool):
    """analysis.launch_report's answer for one launch, and the seconds it took."""
    regs = 32 if name.startswith("matmul") else 16
    start = time.perf_counter()
    report = analyze_catalog_kernel(
        get_kernel(name), overrides, GPU, ARCH, registers=regs, exact=exact, budget_s=budget
    )
    return report, report.time, time.perf_counter() - start


def rel(a: float, b: float) -> float:
    return 0.0 if a == b else (a - b) / b if b else float("inf")


def main() -> None:
    lines = [
        "# Block sampling: sampled against whole runs (H100 SXM model)",
        "",
        "`python benchmarks/bench_sampling.py` on this 2-core machine; relative errors of "
        "the sampled (budget 0.05 s) run's extrapolated figures against the whole run's; hit "
        "rates as differences in points.",
        "",
        "| launch | blocks simulated | requests | sectors | L1 wavefronts | shared wf | "
        "instructions | DRAM read | DRAM written | L1 hit (pts) | L2 hit (pts) | time | "
        "whole run s | sampled s |",
        "|" + "---|" * 14,
    ]
    worst = {}
    for name, p in CASES:
        full, tf, wf = measure(name, p, 1e9, True)
        part, tp, wp = measure(name, p, 0.05, False)
        F, P = full.sim, part.sim
        fc, pc = F.counters, P.counters
        errs = {
            "requests": rel(
                pc.global_load_requests + pc.global_store_requests, fc.global_load_requests + fc.global_store_requests
            ),
            "sectors": rel(
                pc.global_load_transactions + pc.global_store_transactions,
                fc.global_load_transactions + fc.global_store_transactions,
            ),
            "wavefronts": rel(P.caches.global_wavefronts, F.caches.global_wavefronts),
            "shared": rel(
                pc.shared_load_wavefronts + pc.shared_store_wavefronts,
                fc.shared_load_wavefronts + fc.shared_store_wavefronts,
            ),
            "instructions": rel(sum(pc.warp_instructions.values()), sum(fc.warp_instructions.values())),
            "dram_read": rel(P.caches.dram_bytes_read, F.caches.dram_bytes_read),
            "dram_write": rel(P.caches.dram_bytes_written, F.caches.dram_bytes_written),
            "l1": 100 * ((P.caches.l1_load_hit_rate or 0) - (F.caches.l1_load_hit_rate or 0)),
            "l2": 100 * ((P.caches.l2_hit_rate or 0) - (F.caches.l2_hit_rate or 0)),
            "time": rel(tp.predicted_time_s, tf.predicted_time_s),
        }
        for k, v in errs.items():
            worst[k] = max(worst.get(k, 0.0), abs(v))
        pct = lambda x: f"{100 * x:+.2f} %"  # noqa: E731
        label = f"{name} {','.join(f'{k}={v}' for k, v in p.items())}"
        lines.append(
            f"| {label} | {part.simulated_blocks}/{part.launch_blocks} | {pct(errs['requests'])} | "
            f"{pct(errs['sectors'])} | {pct(errs['wavefronts'])} | {pct(errs['shared'])} | "
            f"{pct(errs['instructions'])} | {pct(errs['dram_read'])} | "
            f"{pct(errs['dram_write']) if F.caches.dram_bytes_written else 'none written'} | "
            f"{errs['l1']:+.2f} | {errs['l2']:+.2f} | {pct(errs['time'])} | {wf:.1f} | {wp:.1f} |"
        )
        print(lines[-1], flush=True)
    lines += [
        "",
        "Largest |error|: "
        + ", ".join(f"{k} {v:.2f} pts" if k in ("l1", "l2") else f"{k} {100 * v:.2f} %" for k, v in worst.items()),
    ]
    if "--skip-realistic" not in sys.argv:
        lines += [
            "",
            f"## Time to a prediction at realistic sizes (budget {DEFAULT_BUDGET_S:g} s)",
            "",
            "| launch | blocks | simulated | seconds |",
            "|---|---|---|---|",
        ]
        for name, p in TIME_CASES:
            sampled, _t, wall = measure(name, p, DEFAULT_BUDGET_S, False)
            lines.append(
                f"| {case_name(name, p)} | {sampled.launch_blocks} | {sampled.simulated_blocks} | {wall:.1f} |"
            )
            print(lines[-1], flush=True)
    out = Path(__file__).with_name("results_sampling.md")
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
