"""Here: the time model on every time_cases.py launch against a GPU run's raw files.

    python benchmarks/hw/time_compare.py benchmarks/hw/time_run_h100 h100-sxm [--engine source]

Reads RUN/times.json (CUDA-event medians), RUN/ncu.csv (Nsight Compute counters, cold caches)
and writes RUN/time_comparison.csv: predicted vs measured time, DRAM bytes, L2 and L1 hit rates,
the bound, and how long the prediction took here (block sampling, budget 6 s). Registers per
thread are the hardware's (launch__registers_per_thread), as ptxas -v would give them.
"""

from __future__ import annotations

import csv
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from time_cases import TIME_CASES, case_name  # noqa: E402

from perfcalc.analysis.launch_report import analyze_catalog_kernel  # noqa: E402
from perfcalc.specs import get_arch, get_gpu  # noqa: E402
from perfcalc.specs.kernels import get_kernel  # noqa: E402


def ncu_rows(path: Path) -> list[dict[str, str]]:
    """One dict of metric -> value per profiled kernel, in launch order."""
    by_id: dict[str, dict[str, str]] = {}
    lines = [ln for ln in path.read_text().splitlines() if ln.startswith('"')]
    for row in csv.DictReader(lines):
        by_id.setdefault(row["ID"], {})[row["Metric Name"]] = row["Metric Value"]
    return list(by_id.values())


def number(text: str) -> float:
    return float(text.replace(",", ""))


def predict(name: str, overrides: dict[str, int], gpu_key: str, regs: int, engine: str):
    """The time model through analysis.launch_report, as `run --gpu` and `report` use it."""
    gpu = get_gpu(gpu_key)
    arch = get_arch(gpu.cc)
    start = time.perf_counter()
    report = analyze_catalog_kernel(get_kernel(name), overrides, gpu, arch, registers=regs, engine=engine)
    return report.time, report, time.perf_counter() - start


def main(run_dir: Path, gpu_key: str, engine: str) -> None:
    times = {r["case"]: r for r in json.loads((run_dir / "times.json").read_text())}
    counters = ncu_rows(run_dir / "ncu.csv")
    out = []
    for (name, params), hw in zip(TIME_CASES, counters, strict=True):
        case = case_name(name, params)
        measured = times[case]["median_ms"] / 1e3
        regs = int(number(hw["launch__registers_per_thread"]))
        t, report, took = predict(name, params, gpu_key, regs, engine)
        row = {
            "case": case,
            **compared(measured, t, hw),
            "registers": regs,
            "sampled": "" if report.sample is None else f"{report.simulated_blocks}/{report.launch_blocks}",
            "prediction_wall_s": took,
        }
        out.append(row)
        print(
            f"{case[:44]:44} pred {t.predicted_time_s * 1e3:9.4f} ms meas {measured * 1e3:9.4f}"
            f" x{row['ratio']:.2f} dram x{row['dram_ratio'] or 0:.2f} {t.bound} "
            f"({took:.1f} s)",
            flush=True,
        )
    path = run_dir / f"time_comparison_{engine}.csv"
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(out[0]))
        w.writeheader()
        w.writerows(out)
    summarize(out)
    print(f"wrote {path}")


def _event_latency() -> float:
    from perfcalc.specs import get_arch
    from perfcalc.specs.timing import timing_rates

    return timing_rates(get_arch("9.0")).event_latency_s


EVENT_LATENCY_S = _event_latency()


def compared(measured: float, t: Any, hw: dict[str, str]) -> dict[str, Any]:
    """The columns both comparisons share: time, bound, DRAM bytes, L2 and L1 hit rates."""
    dram_hw = number(hw["dram__bytes_read.sum"]) + number(hw["dram__bytes_write.sum"])
    dram = t.dram_bytes_read + t.dram_bytes_written
    return {
        "measured_s": measured,
        "predicted_s": t.predicted_time_s,
        # the GPU's times are CUDA events around each launch, which add the host's latency
        "ratio": (t.predicted_time_s + EVENT_LATENCY_S) / measured,
        "bound": t.bound,
        "dram_bytes_hw": dram_hw,
        "dram_bytes_model": dram,
        "dram_ratio": dram / dram_hw if dram_hw else None,
        "l2_hit_hw": number(hw["lts__t_sector_hit_rate.pct"]) / 100,
        "l2_hit_model": t.l2_hit_rate,
        "l1_hit_hw": number(hw["l1tex__t_sector_pipe_lsu_mem_global_op_ld_hit_rate.pct"]) / 100,
        "l1_hit_model": t.l1_hit_rate,
    }


def summarize(out: list[dict[str, Any]], dram_at_least: float = 0) -> None:
    """The acceptance figures of one comparison; DRAM bytes judged on launches that move at
    least `dram_at_least` bytes (a few hundred KB are noise to a 50 MB L2)."""
    errs = [abs(r["ratio"] - 1) for r in out]
    within = lambda f: sum(1 for r in out if 1 / f <= r["ratio"] <= f)  # noqa: E731
    big = [r for r in out if r["dram_bytes_hw"] >= dram_at_least]
    dram_ok = sum(1 for r in big if r["dram_ratio"] and abs(r["dram_ratio"] - 1) <= 0.2)
    l2_ok = sum(1 for r in out if r["l2_hit_model"] is not None and abs(r["l2_hit_model"] - r["l2_hit_hw"]) <= 0.10)
    print(
        f"median |error| {statistics.median(errs):.1%}; within 1.5x {within(1.5)}/{len(out)}; "
        f"within 2x {within(2)}/{len(out)}; DRAM within 20 % {dram_ok}/{len(big)}; "
        f"L2 hit within 10 points {l2_ok}/{len(out)}; slowest prediction "
        f"{max(r['prediction_wall_s'] for r in out):.1f} s"
    )


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    eng = sys.argv[sys.argv.index("--engine") + 1] if "--engine" in sys.argv else "source"
    if eng in args:
        args.remove(eng)
    main(Path(args[0]), args[1], eng)
