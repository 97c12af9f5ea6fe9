"""What sampling's work estimate is calibrated on (analysis/sampling.py): each engine with the
H100 SXM's cache model on nine catalog launches (one wave of 1 SM in 4; the PTX engine, slower,
1 SM in 16), simulation seconds from the cache model's chunk clock against warp instructions,
L1/L2 requests and blocks; a least-squares fit weighted for relative error.

    python benchmarks/calibrate_sampling.py [--engine ptx]
"""

from __future__ import annotations

import math
import sys

import numpy as np

from perfcalc.analysis.caches import cache_model_factory
from perfcalc.analysis.sampling import estimated_seconds_per_block
from perfcalc.memory.block_sample import BlockSample
from perfcalc.sim.references import run_catalog_kernel
from perfcalc.specs import get_arch, get_gpu
from perfcalc.specs.kernels import get_kernel, launch_geometry, resolve_params

CASES = [
    ("matmul_naive", {"Width": 512}),
    ("matmul_tiled", {"Width": 512}),
    ("copy_stride", {"n": 1 << 22, "stride": 1}),
    ("copy_stride", {"n": 1 << 20, "stride": 32}),
    ("reduce_interleaved", {"n": 1 << 22}),
    ("transpose_naive", {"n": 2048}),
    ("transpose_shared", {"n": 2048}),
    ("convolve", {"n": 1 << 22}),
    ("aos_struct", {"n": 1 << 21}),
]


def main(engine: str) -> None:
    arch, gpu = get_arch("9.0"), get_gpu("h100-sxm")
    stride = 4 if engine == "source" else 16
    rows, estimates = [], []
    for name, p in CASES:
        spec = get_kernel(name)
        params = resolve_params(spec, p)
        _grid, block, dyn = launch_geometry(spec, params)
        f = cache_model_factory(gpu, arch, math.prod(block), 32, dyn, None, BlockSample(sm_stride=stride, waves=1))
        r = run_catalog_kernel(spec, params, arch, check=False, caches=f, engine=engine).result
        c = r.caches
        seconds = c.chunk_clock[-1] - c.chunk_clock[0]
        blocks = sum(c.chunk_blocks)
        rows.append((sum(r.counters.warp_instructions.values()), c.global_wavefronts, blocks, seconds))
        estimates.append(estimated_seconds_per_block(r) * blocks)
        print(
            f"{name} {p}: {blocks} blocks, {rows[-1][0]} instructions, {rows[-1][1]} "
            f"requests, {seconds:.3f} s simulated, {estimates[-1]:.3f} s estimated"
        )
    a = np.array([r[:3] for r in rows], float)
    y = np.array([r[3] for r in rows])
    w = 1 / y
    coef, *_ = np.linalg.lstsq(a * w[:, None], y * w, rcond=None)
    print("fit: seconds per warp instruction, per request, per block:", coef)
    print("estimate / measured with the constants in analysis/sampling.py:", np.round(np.array(estimates) / y, 2))


if __name__ == "__main__":
    main("ptx" if "--engine" in sys.argv and sys.argv[-1] == "ptx" else "source")
