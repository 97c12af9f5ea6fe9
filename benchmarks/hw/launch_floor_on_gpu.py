"""On the GPU machine (issue 32): what an empty launch costs, measured three ways, so the time
model's fixed cost is the one its ground truth (Nsight Compute's gpu__time_duration) contains.

    python3 benchmarks/hw/launch_floor_on_gpu.py OUT_DIR            # events
    ncu --metrics gpu__time_duration.sum -k regex:empty -c 40 python3 ... OUT_DIR --profile

An empty kernel (one block of 32 threads, and one of 132 x 8 blocks of 256) timed by CUDA events
around one launch (the host's launch latency included: what `time_cases` measured), by events
around 1,000 back-to-back launches divided by 1,000 (the GPU's own floor per launch), and, under
Nsight Compute, per launch. Writes OUT_DIR/launch_floor.json (events); ncu writes its CSV.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import cupy as cp

SOURCE = 'extern "C" __global__ void empty(int* p) { if (p != nullptr && threadIdx.x == 1024) *p = 0; }'


def main() -> None:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    kernel = cp.RawModule(code=SOURCE).get_function("empty")
    null = cp.zeros(1, dtype=cp.int32)
    shapes = {"1x32": ((1,), (32,)), "1056x256": ((1056,), (256,))}
    if "--profile" in sys.argv:
        for grid, block in shapes.values():
            for _ in range(20):
                kernel(grid, block, (null,))
        cp.cuda.Device().synchronize()
        return
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    found: dict[str, dict[str, float]] = {}
    for name, (grid, block) in shapes.items():
        for _ in range(20):
            kernel(grid, block, (null,))
        single = []
        for _ in range(50):
            cp.cuda.Device().synchronize()
            start.record()
            kernel(grid, block, (null,))
            stop.record()
            stop.synchronize()
            single.append(cp.cuda.get_elapsed_time(start, stop) * 1e-3)
        batches = []
        for _ in range(5):
            cp.cuda.Device().synchronize()
            start.record()
            for _ in range(1000):
                kernel(grid, block, (null,))
            stop.record()
            stop.synchronize()
            batches.append(cp.cuda.get_elapsed_time(start, stop) * 1e-3 / 1000)
        found[name] = {
            "single_launch_events_median_s": statistics.median(single),
            "back_to_back_per_launch_median_s": statistics.median(batches),
            "back_to_back_per_launch_min_s": min(batches),
        }
        print(name, found[name], flush=True)
    name = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    (out / "launch_floor.json").write_text(json.dumps({"device": name, "empty_kernel": found}, indent=1))


if __name__ == "__main__":
    main()
