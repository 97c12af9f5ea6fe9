"""Issue 33: how long the PTX engine takes to simulate the corpus's mma.sync GEMM
(tests/data/cuda/tensor/mma_gemm.cu: cp.async, ldmatrix, mma.sync m16n8k16) at N x N, one
launch, against the floor: the same tensor-core arithmetic (tensor_numerics.matmul, the H100's
block FMA) on the whole N x N problem at once, with no fragments, memory or counting.

    python benchmarks/bench_tensor_gemm.py [--sizes 512,1024]

The program runs two launches (f16, then bf16); each launch's time is the interval between the
engine starting it and the next (or the end). Prints a markdown table (results_tensor_gemm.md).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from perfcalc.app import app
from perfcalc.sim.ptx import tensor_numerics

ROOT = Path(__file__).resolve().parents[1]
PROGRAM = ROOT / "tests" / "data" / "cuda" / "tensor" / "mma_gemm.cu"


def engine_launches(n: int) -> list[float]:
    starts: list[float] = []
    app([str(PROGRAM)], ["/dev/null", "32"])  # build and warm the compile cache (N = 32: tiny)
    app([str(PROGRAM)], ["/dev/null", str(n)], on_launch=lambda i, name: starts.append(time.perf_counter()))
    bounds = [*starts, time.perf_counter()]
    return [bounds[i + 1] - bounds[i] for i in range(len(starts))]


def floor(n: int) -> float:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1, n, n)).astype(np.float16).astype(np.float64)
    b = rng.standard_normal((1, n, n)).astype(np.float16).astype(np.float64)
    c = np.zeros((1, n, n))
    best = float("inf")
    for _ in range(2):
        t = time.perf_counter()
        tensor_numerics.matmul(a, b, c, "f16", "9.0", "f32")
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="512,1024")
    sizes = [int(s) for s in p.parse_args().sizes.split(",")]
    print("| N | engine, f16 launch (s) | engine, bf16 launch (s) | floor: block FMA, whole (s) | f16 / floor |")
    print("|---|---|---|---|---|")
    for n in sizes:
        launches = engine_launches(n)
        low = floor(n)
        print(f"| {n} | {launches[0]:.2f} | {launches[1]:.2f} | {low:.2f} | {launches[0] / low:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
