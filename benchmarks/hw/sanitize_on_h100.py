"""Device side: one seed fault case of tests/data/cuda/ launched through CuPy, for compute-sanitizer.

Same geometry as tests/test_sim_safety.py, so the sanitizer's report can be set beside the
execution core's: `python3 sanitize_on_h100.py TOOL CASE`.
"""

import sys
from pathlib import Path

import cupy
import numpy as np

DATA = Path(__file__).resolve().parents[2] / "tests" / "data" / "cuda"


def kernel(file: str, name: str):
    return cupy.RawModule(code=(DATA / file).read_text(), options=("-lineinfo",), name_expressions=[name]).get_function(
        name
    )


def convolve(file: str) -> None:
    n = 512
    x = cupy.asarray(np.random.default_rng(1).uniform(1, 2, n).astype(np.float32))
    out = cupy.zeros(n, cupy.float32)
    kernel(file, "convolve")((n // 128,), (128,), (np.int32(n), x, out))


def reduce_nosync() -> None:
    block, blocks = 64, 4
    x = cupy.asarray(np.random.default_rng(2).uniform(0, 1, 2 * block * blocks).astype(np.float32))
    out = cupy.zeros(blocks, cupy.float32)
    kernel("reduce_nosync.cu", "reduceSeed")((blocks,), (block,), (x, out), shared_mem=2 * block * 4)


def partial_barrier() -> None:
    data = cupy.ones(64, cupy.float32)
    kernel("partial_barrier.cu", "partialBarrier")((1,), (64,), (data,))


if __name__ == "__main__":
    cupy.cuda.set_allocator(None)  # plain cudaMalloc per array: memcheck knows each array's end
    case = sys.argv[2]
    if case.startswith("convolve"):
        convolve(case + ".cu")
    elif case == "reduce_nosync":
        reduce_nosync()
    else:
        partial_barrier()
    cupy.cuda.runtime.deviceSynchronize()
    print(f"{case}: launched")
