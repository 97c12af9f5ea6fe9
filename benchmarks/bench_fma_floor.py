"""How much of the PTX engine's time against the C engine is the exact fma.rn.f32, and how low any
NumPy fma that goes through float64 can go (issue #8's "within 2x of the C engine" point).

    python benchmarks/bench_fma_floor.py [--widths 128,256,512,1024]

Two tables, in one run:
1. NumPy passes on one chunk of lanes (the engines' 2^17): the C engine's `Pvalue += a*b` (two
   float32 roundings) and each pass of the exact `arith.fma_f32`'s float64 route (widening
   multiply, add, narrowing, the midpoint test), fastest of 7 x 100 calls. (The whole function
   is not timed alone: outside the engine, glibc gives its megabyte temporaries back to the system
   after every call and the next call pays the page faults, which the engine's heap does not.)
2. The catalog's matmuls on the C engine and on the PTX engine three ways: as shipped (exact), and
   with `arith.fma_f32` swapped, for this benchmark only, for two functions that are NOT exact:
   float32 `a*b + c` (what the C engine computes: the PTX engine's time without the cost of a
   single rounding), and the float64 route without its midpoint test (the fewest NumPy passes any
   float64 route has: widening multiply, add, narrow). Ratios against the C engine, the engines
   alternating, fastest of 9 (W <= 256), 3 (W = 512) or 2 runs.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import timeit
from collections.abc import Callable
from functools import partial

import numpy as np
from _timing import best_of
from bench_ptx_engine import DATA, launch_matmul

from perfcalc.sim.ptx import arith
from perfcalc.sim.ptx.run import CHUNK_LANES

_LOW28 = arith._LOW28  # the shipped midpoint test's mask
Fma = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def two_roundings(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """NOT fma.rn: float32 a*b, then + c, each rounded (what the C engine computes)."""
    return a * b + c


def float64_untested(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """NOT exact: the float64 route without the midpoint test, so it rounds twice where the float64
    sum is a float32 midpoint (Boldo & Melquiond's double-rounding case)."""
    s = np.multiply(a, b, dtype=np.float64)
    s += c
    return s.astype(np.float32)


VARIANTS: dict[str, Fma] = {
    "exact": arith.fma_f32,
    "two roundings": two_roundings,
    "float64, untested": float64_untested,
}


def _us(fn: Callable[[], object]) -> float:
    return min(timeit.repeat(fn, number=100, repeat=7)) / 100 * 1e6


def pass_table() -> list[str]:
    """Microseconds per NumPy pass on one chunk of random float32 lanes."""
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, CHUNK_LANES), dtype=np.float32)
    c = (rng.standard_normal(CHUNK_LANES, dtype=np.float32) * 20).astype(np.float32)
    s = np.multiply(a, b, dtype=np.float64) + c
    bits = np.bitwise_and(s.view(np.int64), _LOW28)
    rows = [
        ("C engine: float32 a*b + c (two roundings)", lambda: a * b + c),
        ("  widening multiply a*b -> float64", lambda: np.multiply(a, b, dtype=np.float64)),
        ("  float64 + float32 c", lambda: s + c),
        ("  narrow float64 -> float32", lambda: s.astype(np.float32)),
        ("  midpoint test: low 28 bits (and)", lambda: np.bitwise_and(s.view(np.int64), _LOW28)),
        ("  midpoint test: their minimum", lambda: bits.min()),
    ]
    lines = [f"NumPy passes on {CHUNK_LANES} lanes (us, fastest of 7 x 100 calls)", "", "| pass | us |", "|---|---|"]
    lines += [f"| {name} | {_us(fn):.1f} |" for name, fn in rows]
    return lines


def engine_table(widths: list[int]) -> list[str]:
    os.environ.setdefault("PERFCALC_CACHE_DIR", tempfile.mkdtemp())
    head = "| kernel | W | C engine (s) | " + " | ".join(f"PTX, fma {v} (s, / C)" for v in VARIANTS) + " |"
    lines = [head, "|---|---|---|" + "---|" * len(VARIANTS)]
    runs = [("source", "exact")] + [("ptx", v) for v in VARIANTS]
    try:
        for name in ("matmul_naive", "matmul_tiled"):
            src = (DATA / f"{name}.cu").read_text()
            for w in widths:
                rng = np.random.default_rng(0)
                a, b = rng.standard_normal((2, w * w), dtype=np.float32)

                def go(
                    engine: str, variant: str, src: str = src, w: int = w, m: np.ndarray = a, n: np.ndarray = b
                ) -> None:
                    arith.fma_f32 = VARIANTS[variant]  # build_mad looks it up at each launch
                    launch_matmul(src, w, m, n, engine)

                for run in runs:
                    go(*run)  # warm-up: compile caches
                times = dict.fromkeys(runs, float("inf"))
                for _ in range(9 if w <= 256 else 3 if w <= 512 else 2):
                    for run in runs:
                        times[run] = min(times[run], best_of(partial(go, *run), 1)[0])
                c = times[("source", "exact")]
                cells = " | ".join(f"{times[('ptx', v)]:.3f}, {times[('ptx', v)] / c:.2f}" for v in VARIANTS)
                lines.append(f"| {name} | {w} | {c:.3f} | {cells} |")
                print(lines[-1], flush=True)
    finally:
        arith.fma_f32 = VARIANTS["exact"]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--widths", default="128,256,512,1024")
    opts = parser.parse_args()
    print("\n".join(pass_table()), flush=True)
    print()
    lines = engine_table([int(w) for w in opts.widths.split(",")])
    print("\n" + "\n".join(lines))


if __name__ == "__main__":
    main()
