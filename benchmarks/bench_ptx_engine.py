"""The PTX engine's speed against the C-subset engine on the seeds' matrix multiplies, in one
run (issue #8 goal: within 2x of the C engine at W = 128..1024, W = 1024 naive + tiled < 10 s,
>= 300x Numba's CUDA simulator at W = 128), and the cost of a cached second compile.

    python benchmarks/bench_ptx_engine.py [--widths 128,256,512] [--numba-python PY] [--numba-widths 128]

Prints a Markdown table: per kernel and width, the fastest of 9 (W <= 256), 3 (W = 512) or 2
runs of each engine, the two engines alternating (after one warm-up run each that also fills the
compile cache), their ratio, and what a cached compile costs a fresh process.
With a Python that has Numba (`python3 -m venv /tmp/numba-venv && /tmp/numba-venv/bin/pip
install numba`), the same kernels in Numba's CUDA simulator at --numba-widths, one launch each
in a fresh process (bench_matmul.numba_run), in the same run.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from _timing import best_of
from bench_matmul import numba_run

from perfcalc.sim import run_kernel

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "cuda"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--widths", default="128,256,512")
    parser.add_argument("--numba-python", default="/tmp/numba-venv/bin/python")
    parser.add_argument("--numba-widths", default="128")
    opts = parser.parse_args()
    widths = [int(w) for w in opts.widths.split(",")]
    numba_widths = {int(w) for w in opts.numba_widths.split(",") if w}
    have_numba = Path(opts.numba_python).exists()
    os.environ.setdefault("PERFCALC_CACHE_DIR", tempfile.mkdtemp())
    print("| kernel | W | C engine (s) | PTX engine (s) | PTX / C | Numba simulator (s) | Numba / PTX |")
    print("|---|---|---|---|---|---|---|")
    for name in ("matmul_naive", "matmul_tiled"):
        src = (DATA / f"{name}.cu").read_text()
        for w in widths:
            rng = np.random.default_rng(0)
            a = rng.standard_normal(w * w).astype(np.float32)
            b = rng.standard_normal(w * w).astype(np.float32)

            def go(engine: str, src: str = src, w: int = w, a: np.ndarray = a, b: np.ndarray = b) -> None:
                launch_matmul(src, w, a, b, engine)

            for engine in ENGINES:
                go(engine)  # warm-up: parse/compile caches
            # the engines alternate, so both see the same moments of a noisy machine
            times = {engine: float("inf") for engine in ENGINES}
            for _ in range(_repeats(w)):
                for engine in ENGINES:
                    times[engine] = min(times[engine], best_of(lambda e=engine: go(e), 1)[0])
            numba = ""
            if have_numba and w in numba_widths:
                seconds = numba_run(opts.numba_python, name.removeprefix("matmul_"), w)
                numba = f"{seconds:.2f} | {seconds / times['ptx']:.0f}x"
            print(
                f"| {name} | {w} | {times['source']:.3f} | {times['ptx']:.3f} | "
                f"{times['ptx'] / times['source']:.2f} | {numba or '- | -'} |",
                flush=True,
            )
    fresh = _fresh_compile_ms()
    print(f"\ncached compile in a fresh process (disk cache warm; host code stripped, PTX parsed): {fresh:.1f} ms")


ENGINES = ("source", "ptx")


def launch_matmul(src: str, w: int, a: np.ndarray, b: np.ndarray, engine: str) -> None:
    """One launch of a seeds' MatrixMulKernel (16 x 16 tiles) on W x W matrices a and b."""
    args = {"Md": a, "Nd": b, "Pd": np.zeros(w * w, np.float32), "Width": w}
    run_kernel(
        src, "MatrixMulKernel", (w // 16, w // 16), (16, 16), args, "9.0", engine=engine, defines={"TILE_WIDTH": 16}
    )


def _repeats(w: int) -> int:
    """Alternating runs per width: more where a run is short and noise larger."""
    return 9 if w <= 256 else 3 if w <= 512 else 2


_FRESH = """
import time
from pathlib import Path
from perfcalc.sim.ptx.compile import compile_kernel
from perfcalc.specs import get_arch
src, arch = Path({path!r}).read_text(), get_arch("9.0")
start = time.perf_counter()
compile_kernel(src, "MatrixMulKernel", arch, {{"TILE_WIDTH": 16}})
print(time.perf_counter() - start)
"""


def _fresh_compile_ms() -> float:
    """What a second `perfcalc run` of a file pays to compile it: compile_kernel's time in a new
    process (imports excluded) with the disk cache this run filled; best of 5 processes."""
    code = _FRESH.format(path=str(DATA / "matmul_tiled.cu"))
    runs = [
        float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
        for _ in range(5)
    ]
    return 1000 * min(runs)


if __name__ == "__main__":
    main()
