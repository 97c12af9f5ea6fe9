"""The catalog launches checked against an H100's hardware counters (benchmarks/hw/README.md).

One list, read by the device-side runner (which launches them through CuPy under Nsight
Compute) and by tests/test_h100_counters.py (which simulates the same launches at CC 9.0).
"""

CASES: list[tuple[str, dict[str, int]]] = [
    ("matmul_naive", {"Width": 64, "TILE_WIDTH": 16}),
    ("matmul_naive", {"Width": 128, "TILE_WIDTH": 16}),
    ("matmul_naive", {"Width": 128, "TILE_WIDTH": 8}),
    ("matmul_tiled", {"Width": 64, "TILE_WIDTH": 16}),
    ("matmul_tiled", {"Width": 128, "TILE_WIDTH": 16}),
    ("matmul_tiled", {"Width": 128, "TILE_WIDTH": 8}),
    ("reduce_interleaved", {"n": 4096, "block": 256}),
    ("reduce_sequential", {"n": 4096, "block": 256}),
    ("convolve", {"n": 4096}),
    ("transpose_naive", {"n": 128}),
    ("transpose_shared", {"n": 128}),
    ("transpose_padded", {"n": 128}),
    *[("copy_stride", {"n": 8192, "stride": s}) for s in (1, 2, 3, 4, 8, 16, 32)],
    *[("copy_offset", {"n": 8192, "offset": o}) for o in (0, 1, 8, 16, 32)],
    ("aos_struct", {"n": 4096}),
    ("soa_struct", {"n": 4096}),
    ("aos_float3", {"n": 4096}),
]


def case_id(name: str, params: dict[str, int]) -> str:
    return name + "(" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) + ")"
