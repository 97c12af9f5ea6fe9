"""What the GPU's own MUFU results cost the PTX engine (issue 33): sim/ptx/mufu.py's table
lookups against the strongest baseline, the float64 function rounded once (what the engine did
before, and still does off CC 9.0), on the same arrays in the same run.

    python benchmarks/bench_mufu.py [--lanes 1048576] [--repeats 15]

Prints per form the minimum and median seconds of each and their ratio, and the tables' first
load (decompression and block bases), which a process pays once.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from perfcalc.sim.ptx import mufu


def timed(fn: Callable[[], object], repeats: int) -> list[float]:
    out = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lanes", type=int, default=1 << 20)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    start = time.perf_counter()
    for name in ("rsqrt", "ex2", "rcp", "sqrt"):
        mufu._table(name)
    print(f"tables loaded once: {time.perf_counter() - start:.3f} s")
    rng = np.random.default_rng(1)
    x = rng.uniform(0.01, 100.0, args.lanes).astype(np.float32)
    e = rng.uniform(-30.0, 30.0, args.lanes).astype(np.float32)
    f64 = np.float64
    forms = {
        "rsqrt": (lambda: mufu.rsqrt_approx_f32(x, False), lambda: (1.0 / np.sqrt(x.astype(f64))).astype(np.float32)),
        "ex2": (lambda: mufu.ex2_approx_f32(e, True), lambda: np.exp2(e.astype(f64)).astype(np.float32)),
        "rcp": (lambda: mufu.rcp_approx_f32(x, False), lambda: (1.0 / x.astype(f64)).astype(np.float32)),
        "sqrt": (lambda: mufu.sqrt_approx_f32(x, False), lambda: np.sqrt(x.astype(f64)).astype(np.float32)),
        "div.full": (
            lambda: mufu.div_f32(x, e, True, False),
            lambda: (x.astype(f64) / e.astype(f64)).astype(np.float32),
        ),
    }
    print(f"{args.lanes} lanes, {args.repeats} repeats: seconds min / median")
    for name, (table, rounded) in forms.items():
        a, b = timed(table, args.repeats), timed(rounded, args.repeats)
        print(
            f"{name:9s} GPU's bits {min(a):.4f} / {statistics.median(a):.4f}   "
            f"float64 rounded {min(b):.4f} / {statistics.median(b):.4f}   ratio {min(a) / min(b):.2f}x"
        )


if __name__ == "__main__":
    main()
