"""Here, after benchmarks/hw/ifconvert_sass.sh ran on the GPU machine: how many guarded shared
accesses perfcalc's if-conversion rule (perfcalc/sim/ptx/if_conversion.py) predicates in each
compiled file, against the predicated LDS/STS/ATOMS in ptxas's SASS of the same PTX.

    python benchmarks/hw/ifconvert_compare.py [--half ours,calibration] [--limit N]

Reads benchmarks/hw/ifconvert_h100/listings.tar.xz (PTX and SASS per file). `--half` picks the
files: ours (tests/data), calibration or test (HeCBench's halves, hw/hecbench_split.csv); the
rule's size limit was chosen on ours + calibration (README "How the held-back half is kept").
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

import perfcalc.sim.ptx.if_conversion as ifc  # noqa: E402
from perfcalc.sim.ptx.contract import contract  # noqa: E402
from perfcalc.sim.ptx.parse import parse_module  # noqa: E402

SHARED = re.compile(r"^(ld|st|atom|red)\.shared")
SASS_PREDICATED = re.compile(r"@!?P[0-9T] +(?:STS|LDS|ATOMS)")


def half_of(name: str, split: dict[str, str]) -> str:
    if name.startswith("ours_"):
        return "ours"
    return split.get(name[len("hec_") :].split("-cuda")[0] + "-cuda", "?")


def predicated_by_rule(ptx: str) -> int:
    """Shared accesses guarded after if-conversion (those the PTX guards itself included)."""
    n = 0
    for fn in parse_module(ptx).functions.values():
        if not fn.body:
            continue
        after = ifc.if_convert(fn, contract(fn))
        n += sum(1 for i in after if i.pred is not None and SHARED.match(i.opcode))
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--half", default="ours,calibration")
    parser.add_argument("--limit", type=int, default=ifc.MAX_INSTRUCTIONS)
    args = parser.parse_args()
    ifc.MAX_INSTRUCTIONS = args.limit
    split = {r["program"]: r["half"] for r in csv.DictReader((HERE / "hecbench_split.csv").open())}
    wanted = set(args.half.split(","))
    files: dict[str, dict[str, str]] = {}
    with tarfile.open(HERE / "ifconvert_h100" / "listings.tar.xz") as tar:
        for member in tar.getmembers():
            m = re.fullmatch(r"ifconvert/(.+)\.(ptx|sass\.txt)", member.name)
            if m and member.isfile():
                text = tar.extractfile(member).read().decode()  # type: ignore[union-attr]
                files.setdefault(m.group(1), {})[m.group(2)] = text
    off = 0
    for name in sorted(files):
        f = files[name]
        if half_of(name, split) not in wanted or "ptx" not in f or "sass.txt" not in f:
            continue
        sass = len(SASS_PREDICATED.findall(f["sass.txt"]))
        rule = predicated_by_rule(f["ptx"])
        off += abs(sass - rule)
        if sass or rule:
            print(f"{name:45s} SASS {sass:5d}  rule {rule:5d}")
    print(f"limit {args.limit}: sum of |SASS - rule| over the files {off}")


if __name__ == "__main__":
    main()
