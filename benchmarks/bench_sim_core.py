"""Execution-core speed: the seed matmuls run by perfcalc.sim with full counting, against a bare
NumPy version of the same kernels that counts nothing (the floor), in one run.

    .venv/bin/python benchmarks/bench_sim_core.py [W ...] [--repeats N] [--fixed-malloc]

The bare versions evaluate every thread of the grid at once in launch order (block, then
threadIdx.y, then threadIdx.x), with int32 index arithmetic and gathers, as execution.md §2.2
measured; the tiled one keeps each block's tiles in a flat buffer indexed by precomputed flat
indices (§2.2 point 2: cheaper than 3-D fancy indexing). Both check their result. Prints one
line per (kernel, W): seconds for the simulator and for the floor (best of N each), their
ratio (goal: <= 2), and the simulator's first run of that kernel at that W (it also parses,
and prices what the memo does not hold yet). --fixed-malloc: see fix_malloc_thresholds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from perfcalc.sim import run_kernel  # noqa: E402
from perfcalc.specs import get_arch  # noqa: E402

TB = 16
DATA = ROOT / "tests" / "data" / "cuda"


def layout(w: int) -> tuple[np.ndarray, ...]:
    gb = w // TB
    by, bx, ty, tx = np.meshgrid(np.arange(gb), np.arange(gb), np.arange(TB), np.arange(TB), indexing="ij")
    return tuple(a.ravel().astype(np.int32) for a in (by, bx, ty, tx))


def bare_naive(m: np.ndarray, n: np.ndarray, w: int) -> np.ndarray:
    """Every thread's inner product, nothing counted, with no allocation inside the k loop: the
    index vectors, the two gathers and the product go into buffers made once (`out=`), so the
    floor pays for arithmetic and gathers only, not for malloc and page faults (issue #13: a
    floor that allocated per step was slower than the simulator at large W). A block's lanes
    repeat values -- the 16 lanes of a row (tx) read one Md element, every row of a block reads
    the same 16 Nd elements -- so each gathers only a block's distinct elements and spreads
    them, as the simulator's loads do (Core.take_at) since 2026-11-24: the floor knows what the
    simulator knows."""
    by, bx, ty, tx = layout(w)
    row = by * np.int32(TB) + ty
    col = bx * np.int32(TB) + tx
    wi = np.int32(w)
    nblocks = (w // TB) ** 2
    acc = np.zeros(row.size, np.float32)
    row_w = row * wi
    rows_once = np.ascontiguousarray(row_w[::TB])  # one lane per run of TB lanes (tx = 0)
    cols_once = np.ascontiguousarray(col.reshape(nblocks, TB, TB)[:, 0, :]).ravel()  # ty = 0
    idx_m, idx_n = np.empty_like(rows_once), np.empty_like(cols_once)
    few_m, few_n = np.empty(rows_once.size, np.float32), np.empty(cols_once.size, np.float32)
    a, b = np.empty(row.size, np.float32), np.empty(row.size, np.float32)
    a_runs, b_rows = a.reshape(-1, TB), b.reshape(nblocks, TB, TB)
    for k in range(w):
        kk = np.int32(k)
        np.add(rows_once, kk, out=idx_m)
        np.add(cols_once, kk * wi, out=idx_n)
        np.take(m, idx_m, out=few_m)
        np.take(n, idx_n, out=few_n)
        a_runs[...] = few_m[:, None]
        b_rows[...] = few_n.reshape(nblocks, 1, TB)
        np.multiply(a, b, out=a)
        np.add(acc, a, out=acc)
    p = np.empty(w * w, np.float32)
    p[row_w + col] = acc
    return p


def bare_tiled(m: np.ndarray, n: np.ndarray, w: int) -> np.ndarray:
    """The tiled kernel the same way: per phase the two tile loads into flat per-block buffers,
    then TILE multiply-adds from them, every index vector and temporary preallocated; the
    shared reads gather a block's distinct elements once and spread them (Mds[ty][k]: one per
    row of lanes; Nds[k][tx]: one row for all rows), as bare_naive's global reads."""
    by, bx, ty, tx = layout(w)
    row = by * np.int32(TB) + ty
    col = bx * np.int32(TB) + tx
    wi = np.int32(w)
    nblocks = (w // TB) ** 2
    block = np.repeat(np.arange(nblocks, dtype=np.int64), TB * TB)
    mine = block * (TB * TB) + ty.astype(np.int64) * TB + tx  # Mds[ty][tx], Nds[ty][tx]
    mds = np.zeros(nblocks * TB * TB, np.float32)
    nds = np.zeros(nblocks * TB * TB, np.float32)
    row_base = block * (TB * TB) + ty.astype(np.int64) * TB  # Mds[ty][k] = row_base + k
    col_base = block * (TB * TB) + tx  # Nds[k][tx] = col_base + k*TB
    rows_once = np.ascontiguousarray(row_base[::TB])  # tx = 0 of every row
    cols_once = np.ascontiguousarray(col_base.reshape(nblocks, TB, TB)[:, 0, :]).ravel()  # ty = 0
    row_m = row * wi + tx  # Md[Row*Width + ph*TB + tx] = row_m + ph*TB
    col_n = col + ty * wi  # Nd[(ph*TB + ty)*Width + Col] = col_n + ph*TB*Width
    idx_g = np.empty_like(row_m)
    idx_r, idx_c = np.empty_like(rows_once), np.empty_like(cols_once)
    few_r, few_c = np.empty(rows_once.size, np.float32), np.empty(cols_once.size, np.float32)
    a, b = np.empty(row.size, np.float32), np.empty(row.size, np.float32)
    a_runs, b_rows = a.reshape(-1, TB), b.reshape(nblocks, TB, TB)
    acc = np.zeros(row.size, np.float32)
    for ph in range(w // TB):
        np.add(row_m, np.int32(ph * TB), out=idx_g)
        np.take(m, idx_g, out=a)
        mds[mine] = a
        np.add(col_n, np.int32(ph * TB) * wi, out=idx_g)
        np.take(n, idx_g, out=b)
        nds[mine] = b
        for k in range(TB):
            np.add(rows_once, k, out=idx_r)
            np.take(mds, idx_r, out=few_r)
            np.add(cols_once, k * TB, out=idx_c)
            np.take(nds, idx_c, out=few_c)
            a_runs[...] = few_r[:, None]
            b_rows[...] = few_c.reshape(nblocks, 1, TB)
            np.multiply(a, b, out=a)
            np.add(acc, a, out=acc)
    p = np.empty(w * w, np.float32)
    p[row * wi + col] = acc
    return p


def simulate(kernel: str, m: np.ndarray, n: np.ndarray, w: int) -> np.ndarray:
    p = np.zeros(w * w, np.float32)
    run_kernel(
        (DATA / f"matmul_{kernel}.cu").read_text(),
        "MatrixMulKernel",
        (w // TB, w // TB),
        (TB, TB),
        {"Md": m, "Nd": n, "Pd": p, "Width": w},
        get_arch("9.0"),
        defines={"TILE_WIDTH": TB},
    )
    return p


def best_of(fn: object, repeats: int, *args: object) -> tuple[float, np.ndarray, float]:
    """(best time, result, first time); a simulator's first run of a kernel at a W also
    parses it and prices what the memo does not hold yet (both kept for later launches)."""
    best, out, first = float("inf"), None, 0.0
    for i in range(repeats):
        t0 = time.perf_counter()
        out = fn(*args)  # type: ignore[operator]
        t = time.perf_counter() - t0
        first = t if i == 0 else first
        best = min(best, t)
    return best, out, first  # type: ignore[return-value]


def fix_malloc_thresholds() -> None:
    """glibc only: stop trimming the heap and mmap-ing large blocks (both thresholds 256 MB).
    Otherwise whether a run pays for the kernel re-zeroing pages after a trim (minor faults:
    ~70 ms per 14 000 on this KVM guest) depends on what ran before it in the process, for the
    simulator and the bare version alike (measured: bare tiled W=256 at 38 ms or 155 ms)."""
    import ctypes

    libc = ctypes.CDLL("libc.so.6")
    libc.mallopt(-1, 256 << 20)  # M_TRIM_THRESHOLD
    libc.mallopt(-3, 256 << 20)  # M_MMAP_THRESHOLD


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("widths", nargs="*", type=int, default=[128, 256, 512, 1024])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument(
        "--fixed-malloc", action="store_true", help="fix glibc's trim/mmap thresholds for both versions (steadier)"
    )
    args = ap.parse_args()
    if args.fixed_malloc:
        fix_malloc_thresholds()
    print("kernel  W      sim_s   bare_s  sim/bare  max_rel_err  sim_first_s")
    totals = {"naive": 0.0, "tiled": 0.0}
    for w in args.widths:
        rng = np.random.default_rng(0)
        m = rng.standard_normal(w * w).astype(np.float32)
        n = rng.standard_normal(w * w).astype(np.float32)
        ref = (m.reshape(w, w).astype(np.float64) @ n.reshape(w, w).astype(np.float64)).ravel()
        reps = args.repeats if w < 1024 else 1
        for kernel, bare in (("naive", bare_naive), ("tiled", bare_tiled)):
            t_sim, p_sim, t_first = best_of(simulate, reps, kernel, m, n, w)
            t_bare, p_bare, _ = best_of(bare, reps, m, n, w)
            np.testing.assert_allclose(p_bare, p_sim, rtol=0, atol=0)  # same float32 order
            err = float(np.max(np.abs(p_sim - ref)) / np.max(np.abs(ref)))
            totals[kernel] = t_sim
            print(
                f"{kernel:6s} {w:5d} {t_sim:8.4f} {t_bare:8.4f} {t_sim / t_bare:8.2f}  {err:.1e}  {t_first:10.4f}",
                flush=True,
            )
    if 1024 in args.widths:
        print(f"W=1024 naive + tiled simulated: {totals['naive'] + totals['tiled']:.1f} s")


if __name__ == "__main__":
    main()
