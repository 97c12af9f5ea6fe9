"""Issue 32/34, the ILP-aware latency term tried on the calibration half (2026-11-27, tenth
sitting) and not adopted: which of its three parts moved the errors.

    python benchmarks/hw/ilp_experiment/whatif.py

The two runs of the calibration half's 90 programs through `perfcalc app` (corpus_app.py,
--seconds 15, the arguments the GPU ran): `calbase` on main as it was, `calilp` with
ilp_latency.patch (per basic block the longest dependent chain instead of 4 clocks per
instruction; shared loads waited for like global loads; loads not ordered among themselves in the
block schedule). From the two runs' time terms and counters, two variants are rebuilt: the patch
without its chain (`sw_only`: the old 4-clocks-per-instruction rule, the new load waits) and the
chain alone (`chain_only`), each by moving the memory-latency term by the difference in cycles
(the DRAM-utilisation fixed point is not re-solved: an approximation). Only calibration rows are
read (`*_comparison_calibration.csv`, the H100's Nsight Compute times).
"""

from __future__ import annotations

import csv
import json
import lzma
import math
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from perfcalc.specs import get_arch, get_gpu  # noqa: E402
from perfcalc.specs.timing import timing_rates  # noqa: E402

RATES = timing_rates(get_arch("9.0"))
CLOCK = get_gpu("h100-sxm").peak_clock_mhz * 1e6


def _launches(name: str) -> dict[tuple[str, int], dict]:
    with lzma.open(HERE / f"{name}_launches.jsonl.xz", "rt") as f:
        text = f.read()
    return {(r["program"], r["index"]): r for r in map(json.loads, text.splitlines())}


def _stats(ratios: list[float]) -> str:
    within = sum(1 for x in ratios if 1 / 1.5 <= x <= 1.5) / len(ratios)
    within2 = sum(1 for x in ratios if 0.5 <= x <= 2) / len(ratios)
    gm = math.exp(sum(map(math.log, ratios)) / len(ratios))
    med = statistics.median(abs(x - 1) for x in ratios)
    shares = f"within 1.5x {100 * within:.1f} %, 2x {100 * within2:.1f} %"
    return f"n {len(ratios)}, median {100 * med:.1f} %, {shares}, gm {gm:.3f}"


def _predicted(terms: dict[str, float], latency_s: float) -> float:
    return RATES.launch_overhead_s + max([v for t, v in terms.items() if t != "memory latency"] + [latency_s])


def main() -> None:
    base, ilp = _launches("calbase"), _launches("calilp")
    rows = csv.DictReader((HERE / "calbase_comparison_calibration.csv").open())
    variants: dict[str, list[float]] = {"main": [], "patch": [], "sw_only": [], "chain_only": []}
    classes: dict[str, list[int]] = {}
    dependent = RATES.dependent_issue_cycles or 0.0
    for r in rows:
        key = (r["program"], int(r["index"]))
        b, n = base.get(key), ilp.get(key)
        if not r["measured_s"] or b is None or n is None or b["kernel"] != r["kernel"] or not b.get("terms"):
            continue
        measured = float(r["measured_s"])
        g, blk = b["grid"], b["block"]
        warps = g[0] * g[1] * g[2] * -(-(blk[0] * blk[1] * blk[2]) // 32)
        kinds = b["instructions"]
        issued = sum(kinds.values()) + kinds.get("int_divide", 0) * (RATES.int_divide_instructions - 1)
        old_chain, new_chain = issued / warps * dependent, n["counters"]["dependent_chain_cycles"] / warps
        shift = b["waves"] / CLOCK * (old_chain - new_chain)
        variants["main"].append(b["predicted_time_s"] / measured)
        variants["patch"].append(n["predicted_time_s"] / measured)
        variants["sw_only"].append(_predicted(n["terms"], n["terms"]["memory latency"] + shift) / measured)
        variants["chain_only"].append(_predicted(b["terms"], b["terms"]["memory latency"] - shift) / measured)
        classes.setdefault(r["size"], []).append(len(variants["main"]) - 1)
    for name, ratios in variants.items():
        print(f"{name}: {_stats(ratios)}")
        for size, index in sorted(classes.items()):
            print(f"    {size}: {_stats([ratios[i] for i in index])}")


if __name__ == "__main__":
    main()
