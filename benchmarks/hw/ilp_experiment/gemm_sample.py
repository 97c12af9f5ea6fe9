"""Re-predict a sample of the example GEMM's sweep with the perfcalc that `import perfcalc` finds,
beside the H100's times and the predictions of the committed sweep (issue 34).

    PYTHONPATH=<checkout> python benchmarks/hw/ilp_experiment/gemm_sample.py [EVERY]

Takes every EVERY-th point (default 60) that both the H100 (hw/tune_h100/tune_times.json) and
the committed sweep (tune_results/gemm_tiled.jsonl) have, plus the H100's fastest point and the
committed pick, and prints for each: the H100's median time, the committed prediction and the
new one (microseconds). gemm_sample_patch.txt is this run with ilp_latency.patch.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "benchmarks"))

from tune_sweeps import SWEEPS, sweep_spec  # noqa: E402

from perfcalc.tune import space_from, tune  # noqa: E402

AXES = ("BM", "BN", "BK", "TM", "TN")


def main() -> None:
    every = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    gemm = SWEEPS[0]
    rows = json.loads((ROOT / "benchmarks/hw/tune_h100/tune_times.json").read_text())["rows"]
    measured = {r["point"]: r["median_s"] for r in rows if r["sweep"] == "gemm_tiled" and r["status"] == "ok"}
    committed = {}
    for line in (ROOT / "benchmarks/tune_results/gemm_tiled.jsonl").read_text().splitlines()[1:]:
        for r in json.loads(line)["rows"]:
            if r["status"] == "ok":
                committed[r["point"]] = r
    both = sorted(set(measured) & set(committed))
    best = min(measured, key=lambda p: measured[p])
    pick = min(committed, key=lambda p: committed[p]["time_s"])
    sweep = sweep_spec(gemm, ["h100-sxm"])
    for p in sorted(set(both[::every]) | {best, pick}):
        axes = {k: committed[p][k] for k in AXES}
        report = tune(sweep, space_from([f"{k}={v}" for k, v in axes.items()]), workers=1)
        ok = [r for r in report.rows if r["status"] == "ok"]
        new = ok[0]["time_s"] * 1e6 if ok else float("nan")
        mark = " BEST" if p == best else (" PICK" if p == pick else "")
        print(
            f"{p} {axes} hw {measured[p] * 1e6:.1f} old {committed[p]['time_s'] * 1e6:.1f} new {new:.1f}{mark}",
            flush=True,
        )


if __name__ == "__main__":
    main()
