"""Launches for the time model's hardware check (issue #9): every catalog kernel at a realistic
size (each launch >= 50 us or many full waves on an H100), plus the seeds' matmul at W = 512,
1024 and 2048.

Read by time_on_gpu.py (device side: timing with CUDA events and Nsight Compute) and by
time_compare.py (here: the time model on the same launches).
"""

from __future__ import annotations

TIME_CASES: list[tuple[str, dict[str, int]]] = [
    *[("matmul_naive", {"Width": w, "TILE_WIDTH": 16}) for w in (512, 1024, 2048)],
    *[("matmul_tiled", {"Width": w, "TILE_WIDTH": 16}) for w in (512, 1024, 2048)],
    ("reduce_interleaved", {"n": 1 << 26, "block": 256}),
    ("reduce_sequential", {"n": 1 << 26, "block": 256}),
    ("convolve", {"n": 1 << 26}),
    ("transpose_naive", {"n": 8192}),
    ("transpose_shared", {"n": 8192}),
    ("transpose_padded", {"n": 8192}),
    ("copy_stride", {"n": 1 << 25, "stride": 1, "block": 256}),
    ("copy_stride", {"n": 1 << 24, "stride": 2, "block": 256}),
    ("copy_stride", {"n": 1 << 23, "stride": 4, "block": 256}),
    ("copy_stride", {"n": 1 << 22, "stride": 32, "block": 256}),
    ("copy_offset", {"n": 1 << 25, "offset": 1, "block": 256}),
    ("aos_struct", {"n": 1 << 24}),
    ("soa_struct", {"n": 1 << 24}),
    ("aos_float3", {"n": 1 << 24}),
]


def case_name(name: str, params: dict[str, int]) -> str:
    return name + "(" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) + ")"
