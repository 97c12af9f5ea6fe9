"""Here: the time model (PTX engine, block sampling) on every realistic-size corpus launch
against a GPU run's raw files (time_corpus_on_gpu.sh), as time_compare.py does for the catalog.

    python benchmarks/hw/time_corpus_compare.py benchmarks/hw/time_corpus_h100 h100-sxm

Reads RUN/times.json and RUN/ncu.csv; writes RUN/time_comparison_corpus.csv and prints the
summary. Registers per thread are ptxas's (the PTX engine reads its log), as on the GPU.
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "tests"))

import corpus  # noqa: E402
from time_compare import compared, ncu_rows, number, summarize  # noqa: E402
from time_corpus_prepare import time_entries  # noqa: E402

from perfcalc.analysis.launch_report import LaunchReport, analyze_source_kernel  # noqa: E402
from perfcalc.specs import get_arch, get_gpu  # noqa: E402


def predict(name: str, entry: dict[str, Any], gpu_key: str) -> tuple[LaunchReport, float]:
    """The time model through analysis.launch_report, as `run --source --gpu` uses it."""
    gpu = get_gpu(gpu_key)
    arch = get_arch(gpu.cc)
    start = time.perf_counter()
    report = analyze_source_kernel(
        corpus.source(entry),
        entry.get("kernel"),
        tuple(entry["grid"]),
        tuple(entry["block"]),
        lambda: corpus.inputs(name, entry),
        gpu,
        arch,
        dynamic_shared_memory_bytes=entry.get("dynamic_shared", 0),
        engine="ptx",
        defines=entry.get("defines"),
        source_name=str(corpus.CORPUS / entry["file"]),
    )
    return report, time.perf_counter() - start


def main(run_dir: Path, gpu_key: str, only: list[str]) -> None:
    times = {r["case"]: r for r in __import__("json").loads((run_dir / "times.json").read_text())}
    counters = ncu_rows(run_dir / "ncu.csv")
    entries = time_entries()
    if len(counters) != len(entries):
        raise SystemExit(f"{len(counters)} profiled kernels for {len(entries)} launches")
    out = []
    for (name, entry), hw in zip(entries.items(), counters, strict=True):
        if only and name not in only:
            continue
        if "median_ms" not in times.get(name, {}):
            print(f"{name}: not timed on the GPU", flush=True)
            continue
        measured = times[name]["median_ms"] / 1e3
        report, took = predict(name, entry, gpu_key)
        t = report.time
        row = {
            "case": name,
            **compared(measured, t, hw),
            "registers_hw": int(number(hw["launch__registers_per_thread"])),
            "registers_model": report.registers_per_thread,
            "warps_active_hw": number(hw["sm__warps_active.avg.pct_of_peak_sustained_active"]) / 100,
            "occupancy_model": report.occupancy,
            "sampled": "" if report.sample is None else f"{report.simulated_blocks}/{report.launch_blocks}",
            "prediction_wall_s": took,
        }
        out.append(row)
        print(
            f"{name[:26]:26} pred {t.predicted_time_s * 1e3:9.4f} ms meas {measured * 1e3:9.4f}"
            f" x{row['ratio']:.2f} dram x{row['dram_ratio'] or 0:.2f} {t.bound} "
            f"({took:.1f} s)",
            flush=True,
        )
    path = run_dir / "time_comparison_corpus.csv"
    if not only:
        with path.open("w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(out[0]))
            w.writeheader()
            w.writerows(out)
    summarize(out, dram_at_least=64 * 2**20)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    main(Path(args[0]), args[1], args[2:])
