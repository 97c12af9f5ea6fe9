"""Here, on the calibration half only: what a candidate change to the time model would do to the
HeCBench launches' errors, before it is made (issue 32's discipline, README "How the held-back
half is kept held back").

    python benchmarks/hw/hecbench_whatif.py [--half calibration] [--dependent-cycles 4]

Reads the launches' time terms, waves and instruction mix (benchmarks/corpus_app.py's per-launch
rows, `results_corpus_app_detail_launches.jsonl`) and the H100's times (`hecbench_h100/
comparison_small.csv`), and reports, per size class, today's predictions and two variants of a
dependent-issue chain (a warp's instructions, each waiting `--dependent-cycles` for the one
before it, as the CUDA Programming Guide's "Multiprocessor Level" section puts arithmetic latency
for CC 7.x): A, the chain as a term of its own beside the others; B, the chain added to the
memory-latency term (a warp's waits and its instructions in series). Both are approximations of
the model as it would be (B ignores the chain's effect on the DRAM-utilisation fixed point).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import statistics
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from perfcalc.specs import get_arch, get_gpu  # noqa: E402
from perfcalc.specs.timing import timing_rates  # noqa: E402

CLOCK_HZ = get_gpu("h100-sxm").peak_clock_mhz * 1e6
OVERHEAD_S = timing_rates(get_arch("9.0")).launch_overhead_s


def size_class(seconds: float) -> str:
    return "< 20 us" if seconds < 20e-6 else ("20 us - 1 ms" if seconds < 1e-3 else ">= 1 ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", default="calibration", choices=("calibration", "test"))
    parser.add_argument("--dependent-cycles", type=float, default=4.0)
    parser.add_argument("--launches", type=Path, default=HERE.parent / "results_corpus_app_detail_launches.jsonl")
    parser.add_argument("--comparison", type=Path, default=HERE / "hecbench_h100" / "comparison_small.csv")
    args = parser.parse_args()
    detail = {}
    for line in args.launches.read_text().splitlines():
        row = json.loads(line)
        detail[(row["program"], row["index"])] = row
    ratios: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    missing = 0
    for r in csv.DictReader(args.comparison.open()):
        if r["half"] != args.half or not r.get("ratio"):
            continue
        d = detail.get((r["program"], int(r["index"])))
        if d is None or not d.get("terms") or d["kernel"] != r["kernel"]:
            missing += 1
            continue
        measured = float(r["measured_s"])
        warps = math.prod(d["grid"]) * -(-math.prod(d["block"]) // 32)
        chain = (d["waves"] or 1) * sum(d["instructions"].values()) / warps * args.dependent_cycles / CLOCK_HZ
        terms = dict(d["terms"])
        summed = dict(terms, **{"memory latency": terms.get("memory latency", 0.0) + chain})
        variants = {
            "today": max(terms.values()),
            "A: chain beside": max(max(terms.values()), chain),
            "B: chain + waits": max(summed.values()),
        }
        for name, top in variants.items():
            for size in ("all", size_class(measured)):
                ratios[name][size].append((OVERHEAD_S + top) / measured)
    print(f"{args.half} half, {args.dependent_cycles:g} cycles a dependent instruction; {missing} launches left out")
    print("| variant | size | launches | median error | within 1.5x | within 2x | geomean pred/meas |")
    print("|---|---|---|---|---|---|---|")
    for name, by_size in ratios.items():
        for size in ("all", "< 20 us", "20 us - 1 ms", ">= 1 ms"):
            x = by_size.get(size)
            if not x:
                continue
            errors = [abs(v - 1) for v in x]
            print(
                f"| {name} | {size} | {len(x)} | {100 * statistics.median(errors):.1f} % | "
                f"{100 * sum(1 / 1.5 <= v <= 1.5 for v in x) / len(x):.1f} % | "
                f"{100 * sum(0.5 <= v <= 2 for v in x) / len(x):.1f} % | "
                f"{math.exp(statistics.fmean(math.log(v) for v in x)):.2f} |"
            )


if __name__ == "__main__":
    main()
