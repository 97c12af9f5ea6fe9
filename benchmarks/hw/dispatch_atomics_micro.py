"""On the GPU machine: the two rates the time model lacked (issue #9), measured, not fitted.

1. Block dispatch: an empty kernel launched with 2^16..2^20 blocks of 32..1024 threads. The time
   grows with the blocks each SM must start; the slope (seconds per block per SM) is the rate at
   which an SM takes new blocks.
2. Atomic contention: 2^20 threads (4096 blocks of 256) update global memory with every lane on
   one address (with and without the old value returned, int and float), one lane per warp on
   one address, and each lane on its own address; and a block of 256 threads adding to one
   shared-memory word. Time per operation on the contended address is the serialisation rate.

    python3 benchmarks/hw/dispatch_atomics_micro.py OUT   (CuPy; writes OUT/dispatch_atomics.json)
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import cupy

CODE = r"""
extern "C" __global__ void empty_kernel() {}
extern "C" __global__ void red_one(int* p) { atomicAdd(p, 1); }
extern "C" __global__ void atom_one(int* p, int* sink) {
    int old = atomicAdd(p, 1);
    if (old == -7) sink[0] = old;
}
extern "C" __global__ void red_one_float(float* p) { atomicAdd(p, 1.0f); }
extern "C" __global__ void max_one(int* p) { atomicMax(p, (int)threadIdx.x); }
extern "C" __global__ void or_one(int* p) { atomicOr(p, 1 << (threadIdx.x & 31)); }
extern "C" __global__ void cas_one(int* p) { atomicCAS(p, 0, (int)threadIdx.x); }
extern "C" __global__ void exch_one(int* p) { atomicExch(p, (int)threadIdx.x); }
extern "C" __global__ void inc_one(unsigned* p) { atomicInc(p, 1000u); }
extern "C" __global__ void add64_one(unsigned long long* p) { atomicAdd(p, 3ull); }
extern "C" __global__ void dadd_one(double* p) { atomicAdd(p, 1.0); }
extern "C" __global__ void fadd_one_per_warp(float* p) {
    if ((threadIdx.x & 31) == 0) atomicAdd(p, 1.0f);
}
extern "C" __global__ void red_one_per_warp(int* p) { if ((threadIdx.x & 31) == 0) atomicAdd(p, 1); }
extern "C" __global__ void red_own(int* p) {
    atomicAdd(p + blockIdx.x * blockDim.x + threadIdx.x, 1);
}
extern "C" __global__ void red_lane_line(int* p) { atomicAdd(p + (threadIdx.x & 31), 1); }
extern "C" __global__ void shared_one(int* out, int reps) {
    __shared__ int s;
    if (threadIdx.x == 0) s = 0;
    __syncthreads();
    for (int r = 0; r < reps; ++r) atomicAdd(&s, 1);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}
extern "C" __global__ void shared_own(int* out, int reps) {
    __shared__ int s[1024];
    s[threadIdx.x] = 0;
    __syncthreads();
    for (int r = 0; r < reps; ++r) atomicAdd(&s[threadIdx.x], 1);
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = s[threadIdx.x];
}
"""
REPEATS = 20


def timed(fn, *launch) -> float:
    """Median milliseconds of REPEATS launches by CUDA events, after 3 warm-ups."""
    for _ in range(3):
        fn(*launch)
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    out = []
    for _ in range(REPEATS):
        start.record()
        fn(*launch)
        stop.record()
        stop.synchronize()
        out.append(cupy.cuda.get_elapsed_time(start, stop))
    return statistics.median(out)


def main(out: Path) -> None:
    mod = cupy.RawModule(code=CODE)
    k = {
        n: mod.get_function(n)
        for n in (
            "empty_kernel",
            "red_one",
            "atom_one",
            "red_one_float",
            "red_one_per_warp",
            "red_own",
            "red_lane_line",
            "shared_one",
            "shared_own",
            "max_one",
            "or_one",
            "cas_one",
            "exch_one",
            "inc_one",
            "add64_one",
            "dadd_one",
            "fadd_one_per_warp",
        )
    }
    props = cupy.cuda.runtime.getDeviceProperties(0)
    res: dict = {
        "name": props["name"].decode(),
        "sm_count": props["multiProcessorCount"],
        "clock_khz": props["clockRate"],
        "dispatch": [],
        "atomics": {},
    }
    for threads in (32, 128, 256, 1024):
        for blocks in (1 << 16, 1 << 18, 1 << 20):
            ms = timed(k["empty_kernel"], (blocks,), (threads,), ())
            res["dispatch"].append({"threads": threads, "blocks": blocks, "median_ms": ms})
            print(f"empty {blocks:8d} x {threads:4d}: {ms:.4f} ms", flush=True)
    n_blocks, n_threads = 4096, 256
    total = n_blocks * n_threads
    p = cupy.zeros(total, dtype=cupy.int32)
    pf = cupy.zeros(1, dtype=cupy.float32)
    sink = cupy.zeros(1, dtype=cupy.int32)
    p64 = cupy.zeros(1, dtype=cupy.uint64)
    pd = cupy.zeros(1, dtype=cupy.float64)
    cases = {
        "global_all_lanes_one_address_red": (k["red_one"], (p,), total),
        "global_all_lanes_one_address_atom": (k["atom_one"], (p, sink), total),
        "global_all_lanes_one_address_float_red": (k["red_one_float"], (pf,), total),
        "global_one_lane_per_warp_one_address": (k["red_one_per_warp"], (p,), total // 32),
        "global_lanes_on_32_addresses_of_a_line": (k["red_lane_line"], (p,), total),
        "global_each_lane_own_address": (k["red_own"], (p,), total),
        "global_all_lanes_one_address_max": (k["max_one"], (p,), total),
        "global_all_lanes_one_address_or": (k["or_one"], (p,), total),
        "global_all_lanes_one_address_cas": (k["cas_one"], (p,), total),
        "global_all_lanes_one_address_exch": (k["exch_one"], (p,), total),
        "global_all_lanes_one_address_inc": (k["inc_one"], (p,), total),
        "global_all_lanes_one_address_add64": (k["add64_one"], (p64,), total),
        "global_all_lanes_one_address_double_red": (k["dadd_one"], (pd,), total),
        "global_one_lane_per_warp_one_address_float": (k["fadd_one_per_warp"], (pf,), total // 32),
    }
    for name, (fn, args, ops) in cases.items():
        ms = timed(fn, (n_blocks,), (n_threads,), args)
        res["atomics"][name] = {
            "median_ms": ms,
            "operations": ops,
            "blocks": n_blocks,
            "threads": n_threads,
            "ns_per_operation": ms * 1e6 / ops,
        }
        print(f"{name}: {ms:.4f} ms, {ms * 1e6 / ops:.4f} ns per operation", flush=True)
    reps, sblocks = 256, 132 * 8
    o = cupy.zeros(sblocks * 256, dtype=cupy.int32)
    for name in ("shared_one", "shared_own"):
        ms = timed(k[name], (sblocks,), (256,), (o, cupy.int32(reps)))
        ops = sblocks * 256 * reps
        res["atomics"][f"{name}_address_per_block" if name == "shared_one" else "shared_each_lane_own_address"] = {
            "median_ms": ms,
            "operations": ops,
            "blocks": sblocks,
            "threads": 256,
            "reps": reps,
            "ns_per_operation_per_sm": ms * 1e6 / (ops / res["sm_count"]),
        }
        print(f"{name}: {ms:.4f} ms, {ms * 1e6 / (ops / res['sm_count']):.4f} ns per operation per SM", flush=True)
    (out / "dispatch_atomics.json").write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
