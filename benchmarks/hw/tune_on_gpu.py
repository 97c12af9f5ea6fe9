"""On the GPU machine (issue 34): time every configuration of the three tuned kernels, so the
configuration perfcalc picks can be compared with the one the GPU itself finds fastest.

    python3 benchmarks/hw/tune_on_gpu.py OUT_DIR [BUDGET_SECONDS] [--only NAME]

Kernels and spaces are those of benchmarks/tune_sweeps.py (read from there, so both sides
sweep the same points): the example tiled GEMM (examples/tune/gemm_tiled.cu, five axes), the
corpus's templated matmul (BLOCK_SIZE) and its two-pass reduction's first kernel (blockSize).
A second call goes on where a first stopped (its rows kept). Each configuration is compiled by
CuPy (NVRTC, -D per axis or the template argument), checked
against a NumPy/CuPy reference, and timed with CUDA events: 3 warm-ups, then the median of 20
launches, each after a 256 MiB buffer is written so it starts with its inputs out of the L2 (the
time model predicts a launch from cold caches). Writes OUT_DIR/tune_times.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import cupy as cp
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from tune_sweeps import SWEEPS, launch_of, points_of  # noqa: E402

FLUSH = cp.empty(64 << 20, dtype=cp.float32)  # 256 MiB, over 5x the H100's and H200's L2


def device_code(text: str) -> str:
    """The file without its main() and host headers: NVRTC compiles device code only (the
    corpus files end with a main that launches the kernel once)."""
    text = text[: text.index("int main")] if "int main" in text else text
    return "\n".join(ln for ln in text.splitlines() if not ln.startswith("#include"))


def timed(kernel: cp.RawKernel, grid: tuple[int, ...], block: tuple[int, ...], args: tuple, shared: int) -> list[float]:
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(3):
        kernel(grid, block, args, shared_mem=shared)
    cp.cuda.runtime.deviceSynchronize()  # a fault of the kernel's own shows here, not in the flush after it
    times = []
    for _ in range(20):
        FLUSH.fill(1.0)
        start.record()
        kernel(grid, block, args, shared_mem=shared)
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) * 1e-3)
    return times


def arrays_for(sweep: dict, scalars: dict[str, int]) -> tuple[dict[str, cp.ndarray], dict[str, np.ndarray]]:
    rng = np.random.default_rng(1)
    host = {}
    for name, count in sweep["arrays"].items():
        n = eval(count, {}, dict(scalars))  # noqa: S307 (our own table's N*N, not user input)
        host[name] = rng.standard_normal(n).astype(np.float32)
    return {k: cp.asarray(v) for k, v in host.items()}, host


def check(sweep: dict, device: dict[str, cp.ndarray], host: dict[str, np.ndarray], scalars: dict, point: dict) -> float:
    """Largest relative error of the kernel's output against the reference."""
    if sweep["name"] in ("gemm_tiled", "matmul_template"):
        n = scalars["N"]
        want = host["A"].reshape(n, n) @ host["B"].reshape(n, n)  # float32 BLAS: errors ~1e-6 of the largest
        got = cp.asnumpy(device["C"]).reshape(n, n)
    else:
        block = point["BLOCK"]
        want = host["in"].astype(np.float64).reshape(-1, 2 * block).sum(axis=1)
        got = cp.asnumpy(device["out"])[: want.size]
    return float(np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30))


DONE = ("ok", "cannot launch", "fault")


def save(out: Path, rows: list[dict], kept: list[dict]) -> None:
    """The rows so far and the kept rows of sweeps not run by this call, written whole."""
    mine = {(r["sweep"], r["point"]) for r in rows}
    everything = rows + [r for r in kept if (r["sweep"], r["point"]) not in mine]
    info = {"gpu": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), "cupy": cp.__version__}
    tmp = out / "tune_times.json.tmp"
    tmp.write_text(json.dumps({"device": info, "rows": everything}, indent=0))
    tmp.replace(out / "tune_times.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("budget", type=float, nargs="?", default=330.0, help="seconds, then points are left untimed")
    parser.add_argument("--only", default=None, help="one sweep's name")
    args = parser.parse_args()
    out, budget, only = args.out, args.budget, args.only
    out.mkdir(parents=True, exist_ok=True)
    done_before = out / "tune_times.json"
    kept = json.loads(done_before.read_text())["rows"] if done_before.is_file() else []
    have = {(r["sweep"], r["point"]): r for r in kept if r["status"] in DONE}
    rows: list[dict] = []
    started = time.monotonic()
    for sweep in sorted(SWEEPS, key=lambda s: len(points_of(s))):  # the small sweeps whole first
        if only is not None and sweep["name"] != only:
            continue
        source = device_code((ROOT / sweep["file"]).read_text())
        scalars = dict(sweep["scalars"])
        device, host = arrays_for(sweep, scalars)
        for index, point in enumerate(points_of(sweep)):
            if (sweep["name"], index) in have:  # timed by an earlier call
                rows.append(have[(sweep["name"], index)])
                continue
            if time.monotonic() - started > budget:
                rows.append({"sweep": sweep["name"], "point": index, **point, "status": "not timed: budget spent"})
                continue
            grid, block, kernel_name = launch_of(sweep, point)
            row = {"sweep": sweep["name"], "point": index, **point, "grid": grid, "block": block}
            threads = block[0] * block[1] * block[2]
            if threads > 1024:
                rows.append(row | {"status": "cannot launch", "note": f"{threads} threads per block"})
                continue
            options = tuple(f"-D{k}={v}" for k, v in point.items()) + ("-std=c++17",)
            try:
                module = cp.RawModule(code=source, options=options, name_expressions=[kernel_name])
                kernel = module.get_function(kernel_name)
            except Exception as exc:  # a configuration that does not compile is recorded, not fatal
                rows.append(row | {"status": "failed", "note": str(exc).splitlines()[0][:200]})
                continue
            args = tuple(device[a] if a in device else np.int32(scalars[a]) for a in sweep["args"])
            for name in sweep.get("zero", []):
                device[name].fill(0)
            try:
                times = timed(kernel, grid, block, args, 0)
            except (cp.cuda.runtime.CUDARuntimeError, cp.cuda.driver.CUDADriverError) as exc:  # context lost
                rows.append(row | {"status": "fault", "note": str(exc)[:200]})
                save(out, rows, kept)
                print(sweep["name"], "point", index, "fault:", exc, flush=True)
                sys.exit(3)
            error = check(sweep, device, host, scalars, point)
            rows.append(
                row
                | {
                    "status": "ok",
                    "median_s": statistics.median(times),
                    "min_s": min(times),
                    "max_s": max(times),
                    "registers": kernel.num_regs,
                    "max_relative_error": error,
                }
            )
            save(out, rows, kept)
        print(sweep["name"], "done", round(time.monotonic() - started, 1), "s", flush=True)
    save(out, rows, kept)


if __name__ == "__main__":
    main()
