"""On the GPU machine (issues 31 and 32): build the HeCBench programs hecbench_prepare.py copied,
and run each under Nsight Compute, every launch up to 50 per program.

    python3 benchmarks/hw/hecbench_on_gpu.py build   .hw_hecbench RESULTS
    python3 benchmarks/hw/hecbench_on_gpu.py profile .hw_hecbench RESULTS --which small|full [--budget S]
        [--kind time|counters|plain]   (plain: no profiler, the program's own output and exit status)

build: each program's own Makefile with ARCH=sm_90 (its -O3 and flags as published) and
NVCC_APPEND_FLAGS=-lineinfo, eight at a time. profile: `ncu --clock-control none` (the card's own
clocks, as a user's run sees them; Nsight Compute's default locks them to base) with cache
control `all` (caches flushed before each launch: the time model predicts a launch from cold
caches) for the ten counters of the PTX corpus comparison, the time, DRAM bytes and L2 hit rate,
in the program's folder with the same arguments perfcalc ran (`small`) or the Makefile's (`full`).
A program already profiled in RESULTS is skipped, so a run cut by --budget goes on in the next
call. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

METRICS = ",".join(
    [
        "gpu__time_duration.sum",
        "launch__registers_per_thread",
        "launch__grid_size",
        "launch__block_size",
        "dram__bytes_read.sum",
        "dram__bytes_write.sum",
        "lts__t_sector_hit_rate.pct",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
        "smsp__inst_executed_op_shared_ld.sum",
        "smsp__inst_executed_op_shared_st.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    ]
    + [f"smsp__sass_thread_inst_executed_op_{p}{op}_pred_on.sum" for p in "fd" for op in ("add", "mul", "fma")]
)
TIME_ONLY = ",".join(METRICS.split(",")[:7])  # time, registers, geometry, DRAM bytes, L2 hit rate
COUNTERS = ",".join(METRICS.split(",")[1:4] + METRICS.split(",")[7:])  # registers, geometry, the ten
LAUNCHES = {"time": 20, "counters": 10}  # per program: the first launches (ncu -c)


def build(root: Path, results: Path, budget: float) -> None:
    manifest = json.loads((root / "manifest.json").read_text())
    env = dict(os.environ, NVCC_APPEND_FLAGS="-lineinfo")
    began = time.monotonic()

    def one(entry: dict) -> str:
        folder = root / "src" / entry["program"]
        start = time.monotonic()
        if start - began > budget:
            return json.dumps({"program": entry["program"], "rc": -1, "seconds": 0, "log": "not built: budget spent"})
        try:
            done = subprocess.run(
                ["make", "-j1", "ARCH=sm_90", "CC=nvcc"],
                cwd=folder,
                env=env,
                capture_output=True,
                text=True,
                timeout=240,
            )
            rc, log = done.returncode, (done.stdout + done.stderr)[-2000:]
        except subprocess.TimeoutExpired:
            rc, log = 124, "timed out"
        return json.dumps(
            {"program": entry["program"], "rc": rc, "seconds": round(time.monotonic() - start, 1), "log": log}
        )

    log = results / "build.jsonl"
    executables = {e["program"]: root / "src" / e["program"] / e["executable"] for e in manifest}
    # A build counts only while its executable is still there: a carried folder replaces the last call's.
    kept = [
        ln
        for ln in (log.read_text().splitlines() if log.is_file() else [])
        if '"rc": 0' in ln and executables.get(json.loads(ln)["program"], root / "-").is_file()
    ]
    built = {json.loads(ln)["program"] for ln in kept}
    with ThreadPoolExecutor(16) as pool, open(log, "w") as out:
        out.write("".join(ln + "\n" for ln in kept))
        for line in pool.map(one, [e for e in manifest if e["program"] not in built]):
            out.write(line + "\n")
            out.flush()


def _without_banners(text: str) -> str:
    """A program's output without the author/licence banner some programs print first (the logs
    are committed; the programs' own text is not)."""
    return "\n".join(ln for ln in text.split("\n") if not re.search(r"copyright|licen[cs]e", ln, re.I))


def profile(root: Path, results: Path, which: str, budget: float, kind: str = "time") -> None:
    """`kind` time: gpu__time_duration, DRAM bytes, L2 hit rate (two passes a launch); counters:
    the ten counters (more passes, fewer launches). Output RESULTS/WHICH/PROGRAM.KIND.csv."""
    metrics = TIME_ONLY if kind == "time" else COUNTERS
    manifest = json.loads((root / "manifest.json").read_text())
    built = {}
    if (results / "build.jsonl").is_file():
        for line in (results / "build.jsonl").read_text().splitlines():
            row = json.loads(line)
            built[row["program"]] = row["rc"] == 0
    folder_out = results / which
    folder_out.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    with open(results / f"runs_{which}.jsonl", "a") as log:
        for entry in manifest:
            args = entry[which]
            name = entry["program"]
            csv_file = folder_out / f"{name}.{kind}.csv"
            if args is None or not built.get(name) or csv_file.exists():
                continue
            if time.monotonic() - start > budget:
                print(f"budget spent; {name} and after left for the next call")
                return
            if kind == "plain":
                command = [entry["executable"], *args]
            else:
                command = ["ncu", "--clock-control", "none", "--cache-control", "all", "--print-units", "base"]
                command += ["--metrics", metrics, "--csv"]
                command += ["--log-file", str(csv_file), "-c", str(LAUNCHES[kind]), entry["executable"], *args]
            t0 = time.monotonic()
            try:
                limit = 30 if kind == "plain" else 90
                done = subprocess.run(command, cwd=root / "src" / name, capture_output=True, text=True, timeout=limit)
                rc, tail = done.returncode, (done.stdout + done.stderr)[-1500:]
            except subprocess.TimeoutExpired:
                rc, tail = 124, f"timed out after {limit} s"
            except OSError as exc:  # the manifest's executable is not one (a Makefile's odd `run`)
                rc, tail = 127, f"not started: {exc}"
            csv_file.touch()
            row = {"program": name, "which": which, "kind": kind, "rc": rc, "seconds": round(time.monotonic() - t0, 1)}
            row["tail"] = _without_banners(tail)
            log.write(json.dumps(row) + "\n")
            log.flush()
            print(name, rc, row["seconds"], flush=True)
    print("all profiled")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("step", choices=("build", "profile"))
    parser.add_argument("root", type=Path)
    parser.add_argument("results", type=Path)
    parser.add_argument("--which", default="small", choices=("small", "full"))
    parser.add_argument("--budget", type=float, default=480.0)
    parser.add_argument("--kind", default="time", choices=("time", "counters", "plain"))
    args = parser.parse_args()
    args.results.mkdir(parents=True, exist_ok=True)
    if args.step == "build":
        build(args.root.resolve(), args.results.resolve(), args.budget)
    else:
        profile(args.root.resolve(), args.results.resolve(), args.which, args.budget, args.kind)


if __name__ == "__main__":
    main()
