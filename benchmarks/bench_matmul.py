"""Manual benchmark: the execution core on seed 000's matmul kernels, with full counting, against
(a) bare NumPy versions of the same kernels that count nothing and (b) Numba's CUDA simulator.

    .venv/bin/python benchmarks/bench_matmul.py [--widths 128,256,512,1024]
        [--numba-python /tmp/numba-venv/bin/python] [--numba-widths 32,64,128] [--cc 9.0]

Numba is not a perfcalc dependency: install it in a throwaway venv
(`python3 -m venv /tmp/numba-venv && /tmp/numba-venv/bin/pip install numba`); without it the
Numba columns are skipped and execution.md's recorded times are printed instead. Every timing
covers the kernel launch only (inputs are built before the clock starts) and every result is
checked against a float64 NumPy matmul. Goals (issue #4): full counting within 2x of the bare
NumPy version; W = 1024 naive + tiled together under 20 s; >= 300x faster than Numba at W = 128.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# BLAS threads pinned before NumPy loads (the float64 reference matmul is not timed, but a BLAS
# thread pool left spinning beside the timed code moved ratios 1-482x between runs)
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

# the bare versions are bench_sim_core's, the strongest written (index arithmetic hoisted out of
# the k loop): one floor for both benchmarks (issue #13: this one's own was ~6x slower)
from bench_sim_core import bare_naive, bare_tiled  # noqa: E402

TILE = 16
# execution.md 2.1, medians on this machine (Numba 0.68.1), used when Numba is not available
RECORDED_NUMBA = {
    ("naive", 32): 0.23,
    ("naive", 64): 1.29,
    ("naive", 128): 7.61,
    ("tiled", 32): 1.22,
    ("tiled", 64): 7.68,
    ("tiled", 128): 50.84,
}


def broadcast_matmul(md: np.ndarray, nd: np.ndarray, width: int) -> np.ndarray:
    """Not a per-thread rendering: the same float32 sums as rank-1 updates over whole rows and
    columns (what NumPy code written without threads would do; both kernels reduce to it, since
    a tile load is a reshape here). Shown for scale, not as the goal's baseline."""
    m = md.reshape(width, width)
    n = nd.reshape(width, width)
    acc = np.zeros((width, width), dtype=np.float32)
    for k in range(width):
        acc += m[:, k : k + 1] * n[k : k + 1, :]
    return acc.ravel()


def inputs(width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    md = rng.uniform(0.5, 1.5, width * width).astype(np.float32)
    nd = rng.uniform(0.5, 1.5, width * width).astype(np.float32)
    ref = (md.reshape(width, width).astype(np.float64) @ nd.reshape(width, width)).ravel()
    return md, nd, ref


def check(out: np.ndarray, ref: np.ndarray) -> float:
    err = float(np.max(np.abs(out - ref) / np.abs(ref)))
    if not err < 1e-4:
        raise SystemExit(f"wrong result: max relative error {err}")
    return err


def perfcalc_run(variant: str, width: int, cc: str) -> tuple[float, object]:
    """The catalog kernel on the execution core with all counters, CC `cc`."""
    from perfcalc.sim import run_kernel
    from perfcalc.specs import get_arch
    from perfcalc.specs.kernels import get_kernel

    spec = get_kernel(f"matmul_{variant}")
    md, nd, ref = inputs(width)
    pd = np.full(width * width, np.nan, dtype=np.float32)
    arch = get_arch(cc)
    t0 = time.perf_counter()
    result = run_kernel(
        spec.source,
        spec.kernel,
        (width // TILE, width // TILE),
        (TILE, TILE),
        {"Md": md, "Nd": nd, "Pd": pd, "Width": width},
        arch,
        defines={"TILE_WIDTH": TILE},
    )
    elapsed = time.perf_counter() - t0
    check(pd, ref)
    return elapsed, result


def bare_run(variant: str, width: int) -> float:
    md, nd, ref = inputs(width)
    fn = {"naive": bare_naive, "tiled": bare_tiled, "broadcast": broadcast_matmul}[variant]
    t0 = time.perf_counter()
    out = fn(md, nd, width)
    elapsed = time.perf_counter() - t0
    check(out, ref)
    return elapsed


LOCKSTEP = Path(__file__).with_name("matmul_lockstep.c")


def build_lockstep(out_dir: Path) -> Path | None:
    """matmul_lockstep.c with -O3 -march=native, or None without a C compiler."""
    import shutil

    cc = shutil.which("gcc") or shutil.which("cc") or shutil.which("clang")
    if cc is None:
        return None
    exe = out_dir / "matmul_lockstep"
    subprocess.run([cc, "-O3", "-march=native", "-o", str(exe), str(LOCKSTEP)], check=True, capture_output=True)
    return exe


def lockstep_run(exe: Path, variant: str, width: int, tmp: Path) -> float:
    """The native lock-step kernel's own seconds (inputs read before its clock starts), checked."""
    md, nd, ref = inputs(width)
    paths = [tmp / f"{name}.f32" for name in ("md", "nd", "pd")]
    md.tofile(paths[0])
    nd.tofile(paths[1])
    seconds = float(
        subprocess.run(
            [str(exe), variant, str(width), *map(str, paths)], check=True, capture_output=True, text=True
        ).stdout.strip()
    )
    check(np.fromfile(paths[2], dtype=np.float32), ref)
    return seconds


NUMBA_SCRIPT = """
import sys, time
import numpy as np
from numba import cuda, float32
T = 16
@cuda.jit
def naive(M, N, P, W):
    col = cuda.blockIdx.x * T + cuda.threadIdx.x
    row = cuda.blockIdx.y * T + cuda.threadIdx.y
    acc = float32(0.0)
    for k in range(W):
        acc += M[row * W + k] * N[k * W + col]
    P[row * W + col] = acc
@cuda.jit
def tiled(M, N, P, W):
    Ms = cuda.shared.array((T, T), dtype=float32)
    Ns = cuda.shared.array((T, T), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * T + ty
    col = cuda.blockIdx.x * T + tx
    acc = float32(0.0)
    for m in range(W // T):
        Ms[ty, tx] = M[row * W + m * T + tx]
        Ns[ty, tx] = N[(m * T + ty) * W + col]
        cuda.syncthreads()
        for k in range(T):
            acc += Ms[ty, k] * Ns[k, tx]
        cuda.syncthreads()
    P[row * W + col] = acc
variant, W = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(0)
A = rng.uniform(0.5, 1.5, W * W).astype(np.float32)
B = rng.uniform(0.5, 1.5, W * W).astype(np.float32)
P = np.zeros(W * W, dtype=np.float32)
kern = naive if variant == "naive" else tiled
t0 = time.perf_counter()
kern[(W // T, W // T), (T, T)](A, B, P, W)
t1 = time.perf_counter()
ref = A.reshape(W, W).astype(np.float64) @ B.reshape(W, W)
assert np.allclose(P.reshape(W, W), ref, rtol=1e-4), "wrong result"
print(t1 - t0)
"""


def numba_run(python: str, variant: str, width: int) -> float:
    """Wall seconds of one launch in Numba's CUDA simulator (a fresh process, as execution.md)."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(NUMBA_SCRIPT)
        script = fh.name
    try:
        env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}
        out = subprocess.run(
            [python, script, variant, str(width)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
            timeout=900,
        )
        return float(out.stdout.strip().splitlines()[-1])
    finally:
        Path(script).unlink(missing_ok=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--widths", default="128,256,512,1024")
    ap.add_argument("--numba-widths", default="32,64,128")
    ap.add_argument("--numba-python", default="/tmp/numba-venv/bin/python")
    ap.add_argument("--cc", default="9.0")
    ap.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs per timing at W = 512 (the median is shown); 3x as many below 512, where a run "
        "takes milliseconds and the VM's noise is larger; W = 1024 runs once",
    )
    opts = ap.parse_args()
    widths = [int(w) for w in opts.widths.split(",")]
    nwidths = [int(w) for w in opts.numba_widths.split(",")] if opts.numba_widths else []

    print(
        f"machine: {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, NumPy {np.__version__}, BLAS threads "
        f"{os.environ['OPENBLAS_NUM_THREADS']}; "
        f"execution core at CC {opts.cc}, full counting; after a warm-up run of each, the execution "
        f"core and the bare version alternate; median of {3 * opts.repeat} runs below W = 512, "
        f"{opts.repeat} at W = 512"
    )
    scratch = Path(tempfile.mkdtemp())
    native = build_lockstep(scratch)
    print(
        "\n| W | kernel | perfcalc (s) | bare NumPy (s) | perfcalc / bare | native lock-step C (s) | perfcalc / C "
        "| global load sectors | shared wavefronts |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    broadcast: dict[int, float] = {}
    totals: dict[int, float] = {}
    perf_times: dict[tuple[str, int], float] = {}
    for width in widths:
        reps = 1 if width >= 1024 else max(1, opts.repeat) * (3 if width < 512 else 1)
        for variant in ("naive", "tiled"):
            if width < 1024:  # warm-up: the kernel's compile and the first allocations
                perfcalc_run(variant, width, opts.cc)
                bare_run(variant, width)
            sims, bares = [], []
            for _ in range(reps):  # alternating, so both see the same moments of a noisy VM
                sims.append(perfcalc_run(variant, width, opts.cc))
                bares.append(bare_run(variant, width))
            t_sim, result = statistics.median(t for t, _ in sims), sims[-1][1]
            t_bare = statistics.median(bares)
            perf_times[(variant, width)] = t_sim
            totals[width] = totals.get(width, 0.0) + t_sim
            c = result.counters
            if native is not None:
                t_c = statistics.median(lockstep_run(native, variant, width, scratch) for _ in range(reps))
                native_cells = f"{t_c:.4f} | {t_sim / t_c:.1f}x"
            else:
                native_cells = "- | -"
            print(
                f"| {width} | {variant} | {t_sim:.3f} | {t_bare:.3f} | {t_sim / t_bare:.2f} | {native_cells} | "
                f"{c.global_load_transactions} | {c.shared_load_wavefronts} |",
                flush=True,
            )
        broadcast[width] = statistics.median(bare_run("broadcast", width) for _ in range(reps))
    for width, total in totals.items():
        print(
            f"\nW = {width}: naive + tiled with counting = {total:.2f} s; the same sums as "
            f"NumPy rank-1 updates (no threads, no counting): {broadcast[width]:.3f} s"
        )

    have_numba = Path(opts.numba_python).exists()
    source = "measured now" if have_numba else "execution.md 2.1 recorded medians (Numba not found)"
    print(f"\n| W | kernel | Numba CUDA simulator (s, {source}) | perfcalc (s) | Numba / perfcalc |")
    print("|---:|---|---:|---:|---:|")
    for width in nwidths:
        for variant in ("naive", "tiled"):
            t_numba = numba_run(opts.numba_python, variant, width) if have_numba else RECORDED_NUMBA[(variant, width)]
            t_sim = perf_times.get((variant, width))
            if t_sim is None:
                t_sim = statistics.median(perfcalc_run(variant, width, opts.cc)[0] for _ in range(max(1, opts.repeat)))
            print(
                f"| {width} | {variant} | {t_numba:.2f} | {t_sim:.4f} | {t_numba / t_sim:.0f}x |",
                flush=True,
            )


if __name__ == "__main__":
    sys.exit(main())
