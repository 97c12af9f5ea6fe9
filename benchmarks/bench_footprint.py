"""Peak memory of `perfcalc run` against the kernel's own arrays (issue #13: peak RSS <= 2x the
arrays + 150 MB at every size, up to 2^27 elements).

Each size runs in a fresh process (`perfcalc run KERNEL -p n=N -f json`, the whole launch
simulated and its result checked); its peak resident set comes from the kernel's rusage
(os.wait4), the arrays' bytes from kernels.yaml's sizes. The process's floor (Python, NumPy,
perfcalc, no arrays) is the smallest size's peak minus its arrays.

Run manually: .venv/bin/python benchmarks/bench_footprint.py [--max-log2 27] [--write]
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from _timing import publish

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results_footprint.md"
CLI = str(Path(sys.executable).with_name("perfcalc"))
MB = 1 << 20
GOAL_FLOOR_MB = 150


def peak_rss_bytes(argv: list[str]) -> tuple[int, float]:
    """(peak resident bytes, wall seconds) of one command, from its rusage."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {child.stderr.read().decode()[-300:] if child.stderr else ''}")
    return usage.ru_maxrss * 1024, wall  # Linux reports kilobytes


def array_bytes(kernel: str, n: int) -> int:
    """Bytes of every array of the launch (inputs and outputs), from kernels.yaml's sizes."""
    from perfcalc.expr import evaluate
    from perfcalc.sim.references import numpy_dtype
    from perfcalc.specs.kernels import get_kernel, resolve_params

    spec = get_kernel(kernel)
    params = resolve_params(spec, {"n": n})
    return sum(int(evaluate(a.size, params)) * numpy_dtype(a).itemsize for a in spec.args if a.is_pointer)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernel", default="copy_stride", help="a catalog kernel with a parameter n")
    parser.add_argument("--min-log2", type=int, default=20)
    parser.add_argument("--max-log2", type=int, default=27)
    parser.add_argument("--write", action="store_true", help=f"write the table to {RESULTS.name}")
    args = parser.parse_args()
    lines = [
        "## `perfcalc run` peak memory (benchmarks/bench_footprint.py)",
        "",
        f"Machine: {platform.machine()} sandbox, 2 cores, Python {platform.python_version()}; "
        f"`perfcalc run {args.kernel} -p n=N -f json` in a fresh process per size, peak RSS from its "
        "rusage. Goal: peak <= 2 x the kernel's arrays + 150 MB.",
        "",
        "| n | arrays | peak RSS | peak / arrays | goal (2 x arrays + 150 MB) | wall |",
        "|---|---|---|---|---|---|",
    ]
    for k in range(args.min_log2, args.max_log2 + 1):
        n = 1 << k
        arrays = array_bytes(args.kernel, n)
        peak, wall = peak_rss_bytes([CLI, "run", args.kernel, "-p", f"n={n}", "-f", "json"])
        goal = 2 * arrays + GOAL_FLOOR_MB * MB
        verdict = "met" if peak <= goal else "**NOT met**"
        lines.append(
            f"| 2^{k} | {arrays / MB:.0f} MB | {peak / MB:.0f} MB | {peak / arrays:.2f}x | "
            f"{goal / MB:.0f} MB: {verdict} | {wall:.1f} s |"
        )
        print(lines[-1], flush=True)
    lines.append("")
    publish(lines, RESULTS, args.write)


if __name__ == "__main__":
    main()
