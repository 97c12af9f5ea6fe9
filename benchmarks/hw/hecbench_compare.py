"""Here, after the GPU run (issues 31 and 32): every HeCBench launch perfcalc ran against the same
launch on the GPU, counter by counter and in time, reported for each half of the split.

    python benchmarks/hw/hecbench_compare.py RUN_DIR LAUNCHES.jsonl [--which small] [--label H100]

RUN_DIR holds what hecbench_on_gpu.py wrote (RUN_DIR/small/PROGRAM.csv, Nsight Compute's CSV in
base units); LAUNCHES.jsonl is benchmarks/corpus_app.py's per-launch file for the same GPU
product. Launches are matched by their order in the program (both count every launch, up to
50) and must name the same kernel; a program whose launches differ in number or name is
counted as unmatched, not compared. The split is benchmarks/hw/hecbench_split.csv (committed
before the first comparison). Writes RUN_DIR/comparison_WHICH.csv and prints the summary.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from hecbench_split import read_split  # noqa: E402

NCU = {
    "global_load_requests": ["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"],
    "global_load_transactions": ["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"],
    "global_store_requests": ["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"],
    "global_store_transactions": ["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"],
    "shared_load_requests": ["smsp__inst_executed_op_shared_ld.sum"],
    "shared_load_wavefronts": ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"],
    "shared_store_requests": ["smsp__inst_executed_op_shared_st.sum"],
    "shared_store_wavefronts": ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"],
    "bank_conflicts": [
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    ],
    "flops": [f"smsp__sass_thread_inst_executed_op_{p}{op}_pred_on.sum" for p in "fd" for op in ("add", "mul", "fma")],
}
UNITS = {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3, "s": 1.0, "second": 1.0}


def ncu_launches(path: Path) -> list[dict[str, Any]]:
    """Per launch in order: kernel name and metric -> value (time in seconds)."""
    if not path.is_file():
        return []
    text = path.read_text(errors="replace")
    if '"ID"' not in text:
        return []
    rows = list(csv.DictReader(text[text.index('"ID"') :].splitlines()))
    launches: dict[int, dict[str, Any]] = defaultdict(dict)
    for row in rows:
        value = row["Metric Value"].replace(",", "")
        try:
            number = float(value)
        except ValueError:
            continue
        if row["Metric Name"] == "gpu__time_duration.sum":
            number *= UNITS.get(row.get("Metric Unit", "ns"), 1e-9)
        launch = launches[int(row["ID"])]
        launch["kernel"] = row["Kernel Name"]
        launch["shape"] = (_dims(row.get("Grid Size", "")), _dims(row.get("Block Size", "")))
        launch[row["Metric Name"]] = number
    return [launches[i] for i in sorted(launches)]


def _dims(text: str) -> tuple[int, ...]:
    """Nsight Compute's "(64, 1, 1)" as (64, 1, 1); () where the column is missing."""
    return tuple(int(x) for x in re.findall(r"\d+", text))


def base_name(name: str) -> str:
    """A kernel's name without its return type, parameter list, template arguments or namespace."""
    name = re.sub(r"\(.*\)\s*$", "", name.strip())
    depth, out = 0, []
    for ch in name:
        depth += ch == "<"
        if depth == 0:
            out.append(ch)
        depth -= ch == ">"
    # Nsight Compute spells a template kernel with its return type ("void adam<float>(...)")
    words = "".join(out).split()
    return (words[-1] if words else "").rsplit("::", 1)[-1]


def size_class(seconds: float) -> str:
    return "< 20 us" if seconds < 20e-6 else ("20 us - 1 ms" if seconds < 1e-3 else ">= 1 ms")


def compare(
    run: Path, launches_file: Path, which: str, overhead_was: float | None = None
) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Rows per matched launch. `overhead_was`: the launch overhead the launches file was
    predicted with, replaced by today's devices/timing.yaml figure (the model adds it to the
    largest term, so the swap is exact: the corpus run of 2026-11-26 predated the change)."""
    shift = 0.0
    if overhead_was is not None:
        from perfcalc.specs import get_arch
        from perfcalc.specs.timing import timing_rates

        shift = timing_rates(get_arch("9.0")).launch_overhead_s - overhead_was
    ours: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in launches_file.read_text().splitlines():
        row = json.loads(line)
        ours[row["program"]].append(row)
    split = read_split()
    rows, tally = [], {"programs profiled": 0, "programs matched": 0, "programs unmatched": 0}
    names = sorted({p.name.split(".")[0] for p in (run / which).glob("*.csv")})
    for program in names:
        timed = ncu_launches(run / which / f"{program}.time.csv")
        counted = ncu_launches(run / which / f"{program}.counters.csv")
        if not (timed or counted) or program not in ours:
            continue
        tally["programs profiled"] += 1
        mine = sorted(ours[program], key=lambda r: r["index"])
        n = min(len(mine), max(len(timed), len(counted)))
        names_gpu = [(timed[i] if i < len(timed) else counted[i])["kernel"] for i in range(n)]
        if n == 0 or any(base_name(mine[i]["kernel"]) != base_name(names_gpu[i]) for i in range(n)):
            tally["programs unmatched"] += 1
            continue
        # the same launches: a grid or block that differs means the program ran other arguments
        # (bsearch's were once 16x the GPU's), whose counters and times are not comparable
        shapes = [(timed[i] if i < len(timed) else counted[i]).get("shape", ((), ())) for i in range(n)]
        if any(
            shape[0] and (tuple(mine[i]["grid"]), tuple(mine[i]["block"])) != shape for i, shape in enumerate(shapes)
        ):
            tally["programs unmatched"] += 1
            tally["of them, other grids or blocks"] = tally.get("of them, other grids or blocks", 0) + 1
            continue
        tally["programs matched"] += 1
        for i, m in enumerate(mine[:n]):
            row: dict[str, Any] = {"program": program, "half": split.get(program, "?"), "index": m["index"]}
            row |= {
                "kernel": m["kernel"],
                "grid": "x".join(map(str, m["grid"])),
                "block": "x".join(map(str, m["block"])),
            }
            t = timed[i] if i < len(timed) else {}
            measured = t.get("gpu__time_duration.sum")
            predicted = m["predicted_time_s"] + shift if m["predicted_time_s"] else None
            row |= {"measured_s": measured, "predicted_s": predicted, "bound": m["bound"]}
            if measured and predicted:
                row["ratio"] = predicted / measured
                row["size"] = size_class(measured)
            c = counted[i] if i < len(counted) else None
            for counter, metrics in NCU.items():
                # flops: an FMA counts two, an add or a multiply one (as perfcalc counts them)
                hw = (
                    None
                    if c is None
                    else int(sum(c.get(x, 0.0) * (2 if x.endswith("fma_pred_on.sum") else 1) for x in metrics))
                )
                row[f"{counter}_gpu"] = hw
                row[f"{counter}_perfcalc"] = m["counters"].get(counter)
                row[f"{counter}_equal"] = None if hw is None else m["counters"].get(counter) == hw
            if t:
                row["dram_bytes_gpu"] = int(t.get("dram__bytes_read.sum", 0) + t.get("dram__bytes_write.sum", 0))
                row["l2_hit_gpu"] = t.get("lts__t_sector_hit_rate.pct", math.nan) / 100
            row["dram_bytes_perfcalc"] = m["dram_bytes"]
            row["l2_hit_perfcalc"] = m["l2_hit_rate"]
            rows.append(row)
    return rows, tally


def time_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ratios = [r["ratio"] for r in rows if r.get("ratio")]
    if not ratios:
        return {"launches": 0}
    errors = [abs(x - 1) for x in ratios]
    return {
        "launches": len(ratios),
        "programs": len({r["program"] for r in rows if r.get("ratio")}),
        "median_error": statistics.median(errors),
        "within_1.5x": sum(1 / 1.5 <= x <= 1.5 for x in ratios) / len(ratios),
        "within_2x": sum(0.5 <= x <= 2 for x in ratios) / len(ratios),
        "geomean": math.exp(statistics.fmean(math.log(x) for x in ratios)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("launches", type=Path)
    parser.add_argument("--which", default="small")
    parser.add_argument("--label", default="H100")
    parser.add_argument("--bands", default=None, help="write the test half's error bands for this product key")
    parser.add_argument("--overhead-was", type=float, default=None, help="launch overhead the launches used (s)")
    args = parser.parse_args()
    rows, tally = compare(args.run, args.launches, args.which, args.overhead_was)
    if rows:
        with open(args.run / f"comparison_{args.which}.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, list(dict.fromkeys(k for r in rows for k in r)))
            writer.writeheader()
            writer.writerows(rows)
    print(f"{args.label}, {args.which} arguments: " + ", ".join(f"{k} {v}" for k, v in tally.items()))
    print("\n| half | size | launches | programs | median error | within 1.5x | within 2x | geomean pred/meas |")
    print("|---|---|---|---|---|---|---|---|")
    for half in ("calibration", "test"):
        part = [r for r in rows if r["half"] == half]
        for size in ("all", "< 20 us", "20 us - 1 ms", ">= 1 ms"):
            chosen = part if size == "all" else [r for r in part if r.get("size") == size]
            s = time_summary(chosen)
            if s["launches"]:
                print(
                    f"| {half} | {size} | {s['launches']} | {s['programs']} | {100 * s['median_error']:.1f} % | "
                    f"{100 * s['within_1.5x']:.1f} % | {100 * s['within_2x']:.1f} % | {s['geomean']:.2f} |"
                )
    print("\n| counter | equal pairs | share |")
    print("|---|---|---|")
    total = equal = 0
    for counter in NCU:
        got = [r[f"{counter}_equal"] for r in rows if r[f"{counter}_equal"] is not None]
        total, equal = total + len(got), equal + sum(got)
        print(f"| {counter} | {sum(got)} of {len(got)} | {100 * sum(got) / max(len(got), 1):.1f} % |")
    print(f"| all ten | {equal} of {total} | {100 * equal / max(total, 1):.1f} % |")
    # a launch perfcalc stopped (a race, a barrier fault) did not run on both
    ran = [r[f"{c}_equal"] for r in rows if r["predicted_s"] is not None for c in NCU if r[f"{c}_equal"] is not None]
    share = 100 * sum(ran) / max(len(ran), 1)
    print(f"| all ten, launches perfcalc ran to the end | {sum(ran)} of {len(ran)} | {share:.1f} % |")
    if args.bands:
        write_bands(args.bands, [r for r in rows if r["half"] == "test" and r.get("ratio")])


def write_bands(gpu: str, rows: list[dict[str, Any]]) -> None:
    """devices/time_accuracy.yaml's rows for `gpu`: per bound and predicted size class (and pooled),
    the 90th percentile and median of |predicted / measured - 1| over the test half."""
    import yaml

    def row(bound: str, size: str, chosen: list[dict[str, Any]]) -> dict[str, Any]:
        errors = sorted(abs(r["ratio"] - 1) for r in chosen)
        p90 = errors[min(len(errors) - 1, math.ceil(0.9 * len(errors)) - 1)]
        return {
            "bound": bound,
            "size": size,
            "p90": round(p90, 3),
            "median": round(statistics.median(errors), 3),
            "launches": len(errors),
        }

    for r in rows:
        r["psize"] = size_class(r["predicted_s"])
    found = [row("any", "any", rows)]
    for size in ("< 20 us", "20 us - 1 ms", ">= 1 ms"):
        part = [r for r in rows if r["psize"] == size]
        if part:
            found.append(row("any", size, part))
        for bound in sorted({r["bound"] for r in part}):
            found.append(row(bound, size, [r for r in part if r["bound"] == bound]))
    path = HERE.parents[1] / "devices" / "time_accuracy.yaml"
    data = yaml.safe_load(path.read_text()) if path.is_file() else None
    data = data or {"source": "", "bands": {}}
    data["bands"][gpu] = found
    data["source"] = (
        "benchmarks/hw/hecbench_compare.py --bands: the time model against Nsight Compute's "
        "gpu__time_duration on the test half of the HeCBench launches (benchmarks/hw/hecbench_split.csv)"
    )
    path.write_text(
        "# Written by benchmarks/hw/hecbench_compare.py --bands; read by perfcalc/specs/accuracy.py\n"
        + yaml.safe_dump(data, sort_keys=False, width=120)
    )
    print(f"wrote {len(found)} bands for {gpu} to {path}")


if __name__ == "__main__":
    main()
