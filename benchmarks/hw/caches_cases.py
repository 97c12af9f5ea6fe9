"""Launches for the cache model's H100 check (issue #9): the PTX corpus at its own sizes plus
catalog kernels at sizes where the caches matter (several waves of an H100's 132 SMs).

Read by caches_prepare.py (which compiles them for the H100) and caches_compare.py (which runs
the model on the same inputs).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from perfcalc.sim.references import make_args  # noqa: E402
from perfcalc.specs.kernels import get_kernel, launch_geometry, resolve_params  # noqa: E402

CATALOG_CASES: list[tuple[str, dict[str, int]]] = [
    ("matmul_naive", {"Width": 256, "TILE_WIDTH": 16}),
    ("matmul_naive", {"Width": 512, "TILE_WIDTH": 16}),
    ("matmul_tiled", {"Width": 256, "TILE_WIDTH": 16}),
    ("matmul_tiled", {"Width": 512, "TILE_WIDTH": 16}),
    ("transpose_naive", {"n": 1024}),
    ("transpose_shared", {"n": 1024}),
    ("transpose_padded", {"n": 1024}),
    ("copy_stride", {"n": 1 << 20, "stride": 1, "block": 256}),
    ("copy_stride", {"n": 1 << 18, "stride": 4, "block": 256}),
    ("copy_stride", {"n": 1 << 15, "stride": 32, "block": 256}),
    ("copy_offset", {"n": 1 << 20, "offset": 1, "block": 256}),
    ("reduce_interleaved", {"n": 1 << 20, "block": 256}),
    ("reduce_sequential", {"n": 1 << 20, "block": 256}),
    ("convolve", {"n": 1 << 20}),
    ("aos_struct", {"n": 1 << 18}),
    ("soa_struct", {"n": 1 << 18}),
    ("aos_float3", {"n": 1 << 18}),
]


def case_name(name: str, params: dict[str, int]) -> str:
    return "cat_" + name + "_" + "_".join(f"{k}{v}" for k, v in sorted(params.items()))


def catalog_entries() -> list[dict]:
    """The catalog cases as launch entries (ptx_corpus_prepare.prepare's format); inputs from
    the catalog's seeded generators, so a second call gives the same bytes."""
    entries = []
    for name, overrides in CATALOG_CASES:
        spec = get_kernel(name)
        params = resolve_params(spec, overrides)
        grid, block, dyn = launch_geometry(spec, params)
        entries.append(
            {
                "name": case_name(name, overrides),
                "text": spec.source,
                "source_name": str(ROOT / "kernels.yaml"),
                "kernel": spec.kernel,
                "defines": {d: params[d] for d in spec.defines},
                "grid": list(grid),
                "block": list(block),
                "dynamic_shared": int(dyn),
                "args": make_args(spec, params),
            }
        )
    return entries
