"""What the cache model's budget buys `perfcalc app` on a large launch, and what it costs in
accuracy (issue 31).

    python benchmarks/bench_app_cache_budget.py [--waves 160] [--write]

The program is tests/data/cuda_app/vector_add.cu over `waves` waves of an H100 (132 SMs x 8
blocks of 256 threads; three float arrays). Four runs of the same program, each the fastest of
3 (its build cached by a first call): without a product (no cache model: what executing and
counting alone cost, the floor), on the H100 with the default budget and with a 1 s one (the
model follows the leading waves and extrapolates), and with --exact (the model follows every
block: the baseline the budget is measured against). Reported: seconds, and the launch's
predicted time and DRAM bytes with each budget against --exact.
"""

from __future__ import annotations

import argparse
import os
import platform
from pathlib import Path

from _timing import best_of, publish

ROOT = Path(__file__).resolve().parents[1]
PROGRAM = ROOT / "tests" / "data" / "cuda_app" / "vector_add.cu"
RESULTS = Path(__file__).with_name("results_app_cache_budget.md")


def run(n: int, **options: object) -> object:
    from perfcalc.app import app

    report = app([str(PROGRAM)], [str(n)], **options)  # type: ignore[arg-type]
    assert report.exit_status == 0 and (report.stdout or "").strip() == "PASS"
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--waves", type=int, default=160)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    n = args.waves * 132 * 8 * 256
    run(1024)  # builds the program once
    floor_s, _ = best_of(lambda: run(n))
    budget_s, part = best_of(lambda: run(n, gpu="h100-sxm"))
    small_s, small = best_of(lambda: run(n, gpu="h100-sxm", cache_budget_s=1.0))
    exact_s, full = best_of(lambda: run(n, gpu="h100-sxm", exact=True))
    (p,), (q,), (f,) = part.launches, small.launches, full.launches  # type: ignore[attr-defined]
    lines = [
        "# perfcalc app: the cache model's budget on a large launch (`benchmarks/bench_app_cache_budget.py`)",
        "",
        f"vector_add.cu, n = {n} ({args.waves} waves of an H100); {platform.machine()}, {os.cpu_count()} cores; "
        "fastest of 3 each.",
        "",
        "| run | seconds | vs --exact | predicted time | DRAM bytes |",
        "|---|---|---|---|---|",
        f"| no product (no cache model: the floor) | {floor_s:.2f} | {exact_s / floor_s:.1f}x faster | - | - |",
        f"| h100-sxm, default budget | {budget_s:.2f} | {exact_s / budget_s:.1f}x faster | "
        f"{p.predicted_time_s * 1e6:.2f} us | {p.dram_bytes} |",
        f"| h100-sxm, --cache-budget 1 | {small_s:.2f} | {exact_s / small_s:.1f}x faster | "
        f"{q.predicted_time_s * 1e6:.2f} us | {q.dram_bytes} |",
        f"| h100-sxm, --exact (baseline) | {exact_s:.2f} | 1.0x | {f.predicted_time_s * 1e6:.2f} us | {f.dram_bytes} |",
        "",
    ]
    for label, r in (("the default budget", p), ("--cache-budget 1", q)):
        lines.append(
            f"With {label}: {r.cache_sample}. Predicted time {r.predicted_time_s / f.predicted_time_s:.4f}x "
            f"--exact's, DRAM bytes {r.dram_bytes / f.dram_bytes:.4f}x; counters equal: {r.counters == f.counters}."
        )
    publish(lines, RESULTS, args.write)


if __name__ == "__main__":
    main()
