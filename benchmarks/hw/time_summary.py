"""Here: issue #9's acceptance figures over the catalog launches and the corpus launches together.

    python benchmarks/hw/time_summary.py

Reads time_run_{h100,h200}/time_comparison_source.csv (time_compare.py) and
time_corpus_{h100,h200}/time_comparison_corpus.csv (time_corpus_compare.py).
"""

from __future__ import annotations

import csv
import statistics
from pathlib import Path

HW = Path(__file__).resolve().parent


def rows(gpu: str) -> list[dict[str, str]]:
    out = []
    for path in (
        HW / f"time_run_{gpu}" / "time_comparison_source.csv",
        HW / f"time_corpus_{gpu}" / "time_comparison_corpus.csv",
    ):
        out += list(csv.DictReader(path.open()))
    return out


def main() -> None:
    for gpu in ("h100", "h200"):
        r = rows(gpu)
        ratio = [float(x["ratio"]) for x in r]
        within = lambda f, ratio=ratio: sum(1 for q in ratio if 1 / f <= q <= f)  # noqa: E731
        dram = [x for x in r if x["dram_ratio"]]
        dram_ok = sum(1 for x in dram if abs(float(x["dram_ratio"]) - 1) <= 0.2)
        l2 = [x for x in r if x["l2_hit_model"]]
        l2_ok = sum(1 for x in l2 if abs(float(x["l2_hit_model"]) - float(x["l2_hit_hw"])) <= 0.1)
        misses = ", ".join(
            f"{x['case'].split('(')[0]} {float(x['ratio']):.2f}" for x in r if not 1 / 1.5 <= float(x["ratio"]) <= 1.5
        )
        print(
            f"{gpu}: {len(r)} launches; median |error| "
            f"{statistics.median(abs(q - 1) for q in ratio):.1%}; within 1.5x {within(1.5)} "
            f"({within(1.5) / len(r):.1%}); within 2x {within(2)}; DRAM bytes within 20 % "
            f"{dram_ok}/{len(dram)} ({dram_ok / len(dram):.0%}); L2 hit within 10 points "
            f"{l2_ok}/{len(l2)} ({l2_ok / len(l2):.0%})\n  outside 1.5x: {misses}"
        )


if __name__ == "__main__":
    main()
