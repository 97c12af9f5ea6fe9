"""How `perfcalc tune` scales with workers (issue 34).

    python benchmarks/bench_tune_scaling.py [--workers 1,2] [--backend process] [--write]

The sweep: 218 points of the example GEMM (examples/tune/gemm_tiled.cu; five axes, every block of
one warp to 1,024 threads) at N=128 on the H100, so a point is about a second of work.
A first pass with the most workers fills the compile cache (every later pass compiles nothing,
as a re-run of a sweep does); then one timed pass per worker count, each from an empty results
file. The table is checked to be the same bytes at every worker count. Speed-up = time with 1
worker / time with N.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from pathlib import Path

from _timing import publish
from tune_sweeps import ROOT, SWEEPS

RESULTS = Path(__file__).with_name("results_tune_scaling.md")


AXES = ["BM=16,32,64,128", "BN=16,32,64,128", "BK=8,16", "TM=1,2,4,8", "TN=2,4"]
WHERE = ["BM/TM*BN/TN >= 32", "BM/TM*BN/TN <= 1024"]  # a warp at least, at most 1,024 threads: 218 points


def sweep_and_space() -> tuple[object, object]:
    from perfcalc.tune import Sweep, space_from

    gemm = SWEEPS[0]
    sweep = Sweep(
        str(ROOT / gemm["file"]),
        gemm["kernel"],
        ",".join(gemm["grid"]),
        ",".join(gemm["block"]),
        ("h100-sxm",),
        tuple(f"{a}=float32:N*N" for a in "ABC"),
        {"N": "128"},
    )
    return sweep, space_from(AXES, WHERE)


def main() -> None:
    from perfcalc.report.render import render
    from perfcalc.report.tune_tables import points_table
    from perfcalc.tune import tune

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--backend", default="process")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    counts = sorted({1, *(int(w) for w in args.workers.split(","))})  # 1 worker is the baseline
    sweep, space = sweep_and_space()
    points = len(space.points())  # type: ignore[attr-defined]
    tune(sweep, space, backend=args.backend, workers=max(counts))  # type: ignore[arg-type]  (fills the cache)
    times, tables = {}, set()
    for n in counts:
        start = time.perf_counter()
        report = tune(sweep, space, backend=args.backend, workers=n)  # type: ignore[arg-type]
        times[n] = time.perf_counter() - start
        tables.add(render([points_table(report)], "csv"))
        print(f"{n} workers: {times[n]:.1f} s", flush=True)
    lines = [
        "# perfcalc tune: speed-up with workers",
        "",
        f"`python benchmarks/bench_tune_scaling.py --workers {args.workers} "
        f"--backend {args.backend}`; {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; {points} points; one timed pass per worker count after a pass that "
        "fills the compile cache.",
        "",
        "| workers | seconds | points per second | speed-up over 1 |",
        "|---|---|---|---|",
    ]
    base = times[1]
    for n in counts:
        lines.append(f"| {n} | {times[n]:.1f} | {points / times[n]:.2f} | {base / times[n]:.2f} |")
    lines += ["", f"Tables identical at every worker count: {'yes' if len(tables) == 1 else 'NO'}."]
    publish(lines, RESULTS, args.write)


if __name__ == "__main__":
    main()
