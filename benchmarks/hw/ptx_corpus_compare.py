"""Here, after the H100 run: the PTX engine on every corpus launch against the H100's outputs,
Nsight Compute counters and register counts.

    python benchmarks/hw/ptx_corpus_compare.py benchmarks/hw/ptx_corpus_run

Writes ptx_corpus_counters.csv (per launch and counter: H100, perfcalc, equal), ptx_corpus_outputs.csv
(per output array: how it was compared and whether it matched) and ptx_corpus_registers.csv into
the run folder, and prints the summary recorded in benchmarks/RESULTS.md.
"""

from __future__ import annotations

import csv
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

import corpus  # noqa: E402

from perfcalc.model.ptxas import entry_resources  # noqa: E402

# perfcalc counter = sum of (Nsight Compute metric, weight)
NCU = {
    "global_load_requests": [("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1)],
    "global_load_transactions": [("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 1)],
    "global_store_requests": [("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 1)],
    "global_store_transactions": [("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 1)],
    "shared_load_requests": [("smsp__inst_executed_op_shared_ld.sum", 1)],
    "shared_load_wavefronts": [("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 1)],
    "shared_store_requests": [("smsp__inst_executed_op_shared_st.sum", 1)],
    "shared_store_wavefronts": [("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 1)],
    "bank_conflicts": [
        ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 1),
        ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 1),
    ],
    "flops": [
        (f"smsp__sass_thread_inst_executed_op_{p}{op}_pred_on.sum", 2 if op == "fma" else 1)
        for p in "fd"
        for op in ("add", "mul", "fma")
    ],
}
COMPARED = tuple(NCU)


# The fewest registers a thread is given: Nsight Compute's launch__registers_per_thread is 16 where
# ptxas (and cuFuncGetAttribute) count fewer: this corpus's kernels, and the device's own ptxas -v
# giving 10, 12, 13 and 15 for four tensor-corpus launches the H100 reports as 16
# (copy_guards_probe/h200/*.ptxas.txt); 130 of 130 such HeCBench launches.
REGISTER_FLOOR = 16


def allocated(ptxas_registers: int) -> int:
    """The registers a thread is given for ptxas's count, as Nsight Compute reports them."""
    return max(ptxas_registers, REGISTER_FLOOR)


def ncu_values(path: Path) -> list[dict[str, float]]:
    """Per launch (in launch order), metric -> value."""
    text = path.read_text()
    start = text.index('"ID"')
    rows = list(csv.DictReader(text[start:].splitlines()))
    by_id: dict[int, dict[str, float]] = defaultdict(dict)
    for row in rows:
        value = row["Metric Value"].replace(",", "")
        by_id[int(row["ID"])][row["Metric Name"]] = float(value) if value else 0.0
    return [by_id[i] for i in sorted(by_id)]


def compare_outputs(
    entry: dict, ptx: str, mine: dict[str, np.ndarray], theirs: dict[str, np.ndarray]
) -> list[tuple[str, str, bool, str]]:
    rows = []
    approx = ".approx" in ptx
    for arr, got in mine.items():
        want = theirs[arr]
        if arr in entry.get("as_set", []):
            ok = np.array_equal(np.sort(got), np.sort(want))
            rows.append((arr, "as a set (order of atomics)", ok, ""))
        elif arr in entry.get("unordered", []):
            ok = bool(np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-5, atol=1e-6))
            rows.append((arr, "within 1e-5 (order of float atomics)", ok, ""))
        else:
            same = got.tobytes() == want.tobytes()
            how = "bit for bit"
            note = ""
            if not same and approx and got.dtype.kind in "fV":
                g = got.view(np.float32) if got.dtype.kind == "V" else got
                w = want.view(np.float32) if want.dtype.kind == "V" else want
                close = np.allclose(g, w, rtol=2e-6, atol=2e-6)
                how = "within .approx error (2e-6)"
                note = f"max abs diff {np.nanmax(np.abs(g.astype(np.float64) - w)):.3g}"
                same = bool(close)
            rows.append((arr, how, bool(same), note))
    return rows


def main(run: Path) -> None:
    launches = corpus.manifest()
    ncu = ncu_values(run / "ncu.csv")
    outputs = np.load(run / "outputs.npz")
    registers_api = json.loads((run / "registers.json").read_text())
    prepared = (
        {entry["name"]: entry for entry in json.loads((ROOT / ".hw_corpus" / "launches.json").read_text())}
        if (ROOT / ".hw_corpus" / "launches.json").is_file()
        else {}
    )
    counter_rows, output_rows, register_rows = [], [], []
    for (name, entry), metrics in zip(launches.items(), ncu, strict=True):
        result, args = corpus.run_on_ptx_engine(name, entry)
        c = result.counters
        for counter in COMPARED:
            hw = int(round(sum(metrics.get(m, 0.0) * w for m, w in NCU[counter])))
            counter_rows.append((name, counter, hw, getattr(c, counter), hw == getattr(c, counter)))
        mine = {a: v for a, v in corpus.written_arrays(entry, args).items() if f"{name}::{a}" in outputs.files}
        theirs = {a: outputs[f"{name}::{a}"] for a in mine}
        ptx_text = (
            (ROOT / ".hw_corpus" / f"{name}.ptx").read_text() if (ROOT / ".hw_corpus" / f"{name}.ptx").is_file() else ""
        )
        for arr, how, ok, note in compare_outputs(entry, ptx_text, mine, theirs):
            output_rows.append((name, arr, how, ok, note))
        ncu_regs = int(metrics.get("launch__registers_per_thread", -1))
        log = prepared.get(name, {}).get("ptxas_log", "")
        entry_name = prepared.get(name, {}).get("entry")
        found = entry_resources(log, entry_name)
        ptxas_regs = -1 if found is None else found.registers_per_thread
        register_rows.append(
            (name, ptxas_regs, ncu_regs, registers_api.get(name, -1), ptxas_regs == registers_api.get(name, -1))
        )
    with open(run / "ptx_corpus_counters.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["launch", "counter", "h100", "perfcalc", "equal"])
        w.writerows(counter_rows)
    with open(run / "ptx_corpus_outputs.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["launch", "array", "compared", "equal", "note"])
        w.writerows(output_rows)
    with open(run / "ptx_corpus_registers.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["launch", "ptxas", "ncu", "cuFuncGetAttribute", "ptxas_equals_driver"])
        w.writerows(register_rows)
    equal = sum(r[4] for r in counter_rows)
    print(
        f"counters: {equal} of {len(counter_rows)} launch-counter pairs equal ({100 * equal / len(counter_rows):.1f} %)"
    )
    per_counter = defaultdict(lambda: [0, 0])
    for r in counter_rows:
        per_counter[r[1]][0] += r[4]
        per_counter[r[1]][1] += 1
    for k, (a, b) in per_counter.items():
        print(f"  {k:28s} {a}/{b}")
    print(
        f"outputs: {sum(r[3] for r in output_rows)} of {len(output_rows)} arrays equal; "
        f"{sum(r[3] and r[2] == 'bit for bit' for r in output_rows)} bit for bit"
    )
    print(
        f"registers: ptxas = cuFuncGetAttribute in {sum(r[1] == r[3] for r in register_rows)} of "
        f"{len(register_rows)}; ncu launch__registers_per_thread = max(ptxas, {REGISTER_FLOOR}) in "
        f"{sum(allocated(r[1]) == r[2] for r in register_rows)} of {len(register_rows)}"
    )
    for r in counter_rows:
        if not r[4]:
            print("  differs:", r)
    for r in output_rows:
        if not r[3]:
            print("  output differs:", r)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
