"""Here: turn the device run's files into benchmarks/hw/h100_counters.csv (the kept evidence).

Usage: python benchmarks/hw/compare_h100.py DIR   (DIR holds ncu.csv and cases.jsonl from
run_on_h100.sh). Each Nsight Compute metric is mapped to the execution core's counter name;
the ncu kernel rows are matched to the cases in launch order.
"""

import csv
import json
import sys
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent

# perfcalc counter -> (ncu metric, weight) terms; flops count an FMA as 2 (thread-level).
METRICS: dict[str, list[tuple[str, int]]] = {
    "global_load_requests": [("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1)],
    "global_load_transactions": [("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1)],
    "global_store_requests": [("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 1)],
    "global_store_transactions": [("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 1)],
    "shared_load_requests": [("smsp__inst_executed_op_shared_ld.sum", 1)],
    "shared_store_requests": [("smsp__inst_executed_op_shared_st.sum", 1)],
    "shared_load_wavefronts": [("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 1)],
    "shared_store_wavefronts": [("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 1)],
    "bank_conflicts": [
        ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 1),
        ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 1),
    ],
    "flops": [
        (f"smsp__sass_thread_inst_executed_op_{op}_pred_on.sum", w)
        for op, w in (("fadd", 1), ("fmul", 1), ("ffma", 2), ("dadd", 1), ("dmul", 1), ("dfma", 2))
    ],
}


def _number(text: str) -> int:
    return int(float(text.replace(",", "")))


def read_ncu(path: Path) -> list[dict[str, int | str]]:
    """One dict per profiled kernel launch: its name and metric values."""
    lines = path.read_text().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith('"ID"'))
    launches: dict[str, dict] = defaultdict(dict)
    order: list[str] = []
    for row in csv.DictReader(lines[start:]):
        key = row["ID"]
        if key not in launches:
            order.append(key)
            launches[key]["kernel"] = row["Kernel Name"]
        launches[key][row["Metric Name"]] = _number(row["Metric Value"])
    return [launches[k] for k in order]


def main(folder: Path) -> None:
    cases = [json.loads(ln) for ln in (folder / "cases.jsonl").read_text().splitlines() if ln.strip()]
    launches = [r for r in read_ncu(folder / "ncu.csv") if any(str(r["kernel"]).startswith(c["kernel"]) for c in cases)]
    if len(launches) != len(cases):
        raise SystemExit(f"{len(launches)} profiled catalog launches for {len(cases)} cases")
    rows = []
    for case, prof in zip(cases, launches, strict=True):
        if not str(prof["kernel"]).startswith(case["kernel"]):
            raise SystemExit(f"launch order mismatch: {prof['kernel']} for {case['case']}")
        row = {"case": case["case"], "result_check_passed": case["passed"]}
        for counter, terms in METRICS.items():
            row[counter] = sum(w * int(prof[m]) for m, w in terms)
        rows.append(row)
    with (HERE / "h100_counters.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {len(rows)} cases to {HERE / 'h100_counters.csv'}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
