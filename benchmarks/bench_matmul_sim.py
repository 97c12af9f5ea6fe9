"""How long the execution core takes on the seeds' matmul kernels, against baselines in the same run.

Prints, per CC, width and kernel: wall seconds of `run_catalog_kernel` (execution core + result
check), seconds per W^3 (the rate `perfcalc matmul` uses to warn before a long run), the ratio
to NumPy's float32 `M @ N` of the same size (the floor any NumPy-based core is measured against),
and the ratio to the analytic `predict()` of the same kernel (what --no-simulate costs instead).

Run: .venv/bin/python benchmarks/bench_matmul_sim.py [--widths 128 256] [--ccs 1.0 2.0 9.0]
"""

from __future__ import annotations

import argparse
import platform

import numpy as np
from _timing import best_of

from perfcalc.model.predict import predict
from perfcalc.sim.references import run_catalog_kernel
from perfcalc.specs import get_arch
from perfcalc.specs.kernels import get_kernel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--widths", type=int, nargs="+", default=[128, 256])
    parser.add_argument("--ccs", nargs="+", default=["1.0", "2.0", "9.0"])
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    print(f"# {platform.machine()} Python {platform.python_version()} NumPy {np.__version__}")
    print("cc\twidth\tkernel\tsim_s\ts_per_W3\tx_numpy_matmul\tx_predict\tcheck")
    rng = np.random.default_rng(1)
    warm = rng.random((64, 64), dtype=np.float32)
    best_of(lambda: warm @ warm, 3)  # BLAS start-up is not part of the baseline
    for cc in args.ccs:
        arch = get_arch(cc)
        for w in args.widths:
            m = rng.random((w, w), dtype=np.float32)
            n = rng.random((w, w), dtype=np.float32)
            numpy_s, _ = best_of(lambda m=m, n=n: m @ n, 5)
            for kernel in ("matmul_naive", "matmul_tiled"):
                spec = get_kernel(kernel)
                params = {"Width": w, "TILE_WIDTH": 16}
                sim_s, run = best_of(lambda s=spec, p=params, a=arch: run_catalog_kernel(s, p, a), args.repeats)
                pred_s, _ = best_of(lambda s=spec, p=params, a=arch: predict(s, p, a), 3)
                check = "pass" if run.result_check.passed else "FAIL"
                print(
                    f"{cc}\t{w}\t{kernel}\t{sim_s:.3f}\t{sim_s / w**3:.3e}\t"
                    f"{sim_s / numpy_s:.0f}\t{sim_s / pred_s:.0f}\t{check}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
