"""What the L1/L2 cache model costs (issue #9): the C-subset engine on catalog kernels with and
without the model attached, in one run, best of 3 after a warm-up.

    python benchmarks/bench_caches.py

Baseline: the same engine run without the model (the counters are computed either way). The
model adds one Python step per warp and 128-byte line touched (memory/cache_hierarchy.py), so
its cost follows the number of (warp, line) requests: the naive matmul's every load goes
through it, the tiled one's loads are 1/16 of those.
"""

from __future__ import annotations

import math

from _timing import best_of

from perfcalc.analysis.caches import cache_model
from perfcalc.model.occupancy import OccupancyInputs
from perfcalc.sim.references import run_catalog_kernel
from perfcalc.specs import get_arch, get_gpu
from perfcalc.specs.kernels import get_kernel, launch_geometry, resolve_params

CASES = [
    ("matmul_naive", {"Width": 128}),
    ("matmul_naive", {"Width": 256}),
    ("matmul_tiled", {"Width": 256}),
    ("transpose_naive", {"n": 1024}),
    ("copy_stride", {"n": 1 << 20, "stride": 1}),
    ("reduce_interleaved", {"n": 1 << 20}),
]


def main() -> None:
    arch, gpu = get_arch("9.0"), get_gpu("h100-sxm")
    print("| kernel | parameters | without model (s) | with model (s) | ratio |")
    print("|---|---|---|---|---|")
    for name, params in CASES:
        spec = get_kernel(name)
        p = resolve_params(spec, params)
        _grid, block, dyn = launch_geometry(spec, p)
        occ = OccupancyInputs(math.prod(block), 32, 0, dyn)

        def plain(spec=spec, params=params):
            return run_catalog_kernel(spec, params, arch)

        def modelled(spec=spec, params=params, occ=occ):
            return run_catalog_kernel(spec, params, arch, caches=cache_model(gpu, arch, occ))

        plain()
        modelled()
        t0, _ = best_of(plain)
        t1, _ = best_of(modelled)
        label = ", ".join(f"{k}={v}" for k, v in params.items())
        print(f"| {name} | {label} | {t0:.3f} | {t1:.3f} | {t1 / t0:.1f}x |")


if __name__ == "__main__":
    main()
