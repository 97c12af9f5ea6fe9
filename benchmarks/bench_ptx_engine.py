"""The PTX engine's speed against the C-subset engine on the seeds' matrix multiplies, in one
run (issue #8 goal: within 2x of the C engine at W = 128..1024, W = 1024 naive + tiled < 10 s,
>= 300x Numba's CUDA simulator at W = 128), and the cost of a cached second compile.

    python benchmarks/bench_ptx_engine.py [--widths 128,256,512] [--numba-python PY] [--numba-widths 128]

Prints a Markdown table: per kernel and width, best-of-3 seconds for each engine (after one
warm-up run that also fills the compile cache), their ratio, and the compile-cache overhead.
With a Python that has Numba (`python3 -m venv /tmp/numba-venv && /tmp/numba-venv/bin/pip
install numba`), the same kernels in Numba's CUDA simulator at --numba-widths, one launch each
in a fresh process (bench_matmul.numba_run), in the same run.
"""

from __future__ import annotations

import argparse
import os
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
            p = np.zeros(w * w, np.float32)
            args = {"Md": a, "Nd": b, "Pd": p, "Width": w}
            times = {}
            for engine in ("source", "ptx"):

                def go(engine=engine, src=src, w=w, args=args):
                    run_kernel(
                        src,
                        "MatrixMulKernel",
                        (w // 16, w // 16),
                        (16, 16),
                        args,
                        "9.0",
                        engine=engine,
                        defines={"TILE_WIDTH": 16},
                    )

                go()  # warm-up: parse/compile caches
                times[engine] = best_of(go, 3 if w <= 256 else 1)[0]
            numba = ""
            if have_numba and w in numba_widths:
                seconds = numba_run(opts.numba_python, name.removeprefix("matmul_"), w)
                numba = f"{seconds:.2f} | {seconds / times['ptx']:.0f}x"
            print(
                f"| {name} | {w} | {times['source']:.3f} | {times['ptx']:.3f} | "
                f"{times['ptx'] / times['source']:.1f} | {numba or '- | -'} |",
                flush=True,
            )
    src = (DATA / "matmul_tiled.cu").read_text()
    from perfcalc.sim.ptx.run import compile_kernel
    from perfcalc.specs import get_arch

    arch = get_arch("9.0")
    cached = best_of(lambda: compile_kernel(src, "MatrixMulKernel", arch, {"TILE_WIDTH": 16}), 5)[0]
    print(f"\ncached compile (source hash, PTX and ptxas log from the disk cache): {cached * 1000:.1f} ms")


if __name__ == "__main__":
    main()
