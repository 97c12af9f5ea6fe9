"""The held-back half of the HeCBench programs (issue 32), chosen by a hash before any comparison.

    python benchmarks/hw/hecbench_split.py PATH-TO-A-HECBENCH-CHECKOUT   # writes hecbench_split.csv

A program is in the test half when the first byte of sha256 of its folder's name (for example
`adam-cuda`) is odd, else in the calibration half. The split is of programs, not launches, so
two launches of one kernel never fall on both sides. Nothing about the programs but their names
goes into it; it was written and committed before the first GPU time was compared.
"""

from __future__ import annotations

import csv
import hashlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPLIT = HERE / "hecbench_split.csv"


def half(program: str) -> str:
    """'test' or 'calibration' for a program folder's name."""
    return "test" if hashlib.sha256(program.encode()).digest()[0] % 2 else "calibration"


def read_split(path: Path = SPLIT) -> dict[str, str]:
    """program -> half, as committed."""
    with open(path, newline="") as f:
        return {row["program"]: row["half"] for row in csv.DictReader(f)}


def main() -> None:
    checkout = Path(sys.argv[1])
    programs = sorted(p.name for p in (checkout / "src").iterdir() if p.is_dir() and p.name.endswith("-cuda"))
    with open(SPLIT, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["program", "half"])
        writer.writerows([p, half(p)] for p in programs)
    test = sum(half(p) == "test" for p in programs)
    print(f"{len(programs)} programs: {len(programs) - test} calibration, {test} test -> {SPLIT.name}")


if __name__ == "__main__":
    main()
