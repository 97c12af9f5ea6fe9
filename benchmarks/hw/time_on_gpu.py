"""Device side of the time model's hardware check: device microbenchmarks, then every launch of
time_cases.py timed with CUDA events.

    python3 benchmarks/hw/time_on_gpu.py OUTDIR [--profile]

Microbenchmarks (each the median of repeated event-timed launches): an empty kernel (launch
overhead as CUDA events see it), a 1 GiB float4 read and a float4 copy (achievable DRAM
bandwidth), repeated __ldcg reads of an 8 MiB buffer (L2 bandwidth), and one-thread pointer
chases through 16 KiB (L1), 8 MiB (L2) and 1 GiB (DRAM) (load-to-use latency, cycles by clock64).

Catalog launches: CuPy compiles each kernels.yaml source with its #defines, inputs come from the
catalog's own seeded generator (make_args), the result is checked once against the NumPy
reference, then 3 warm-up and 20 timed launches; when one set of inputs is smaller than 3x the L2,
launches rotate over enough copies that each launch starts with its inputs out of L2.
With --profile, each case runs once (no timing) for Nsight Compute to profile.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import cupy
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from time_cases import TIME_CASES, case_name  # noqa: E402

from perfcalc.sim.references import check_result, make_args, reference  # noqa: E402
from perfcalc.specs.kernels import get_kernel, launch_geometry, resolve_params  # noqa: E402

REPEATS = 20
MICRO = r"""
extern "C" __global__ void empty_kernel() {}
extern "C" __global__ void read4(const float4* __restrict__ a, float* out, long long n4) {
    float s = 0.f;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
         i += (long long)gridDim.x * blockDim.x) { float4 v = a[i]; s += v.x + v.y + v.z + v.w; }
    if (s == -1.f) out[0] = s;
}
extern "C" __global__ void copy4(const float4* __restrict__ a, float4* b, long long n4) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
         i += (long long)gridDim.x * blockDim.x) b[i] = a[i];
}
extern "C" __global__ void l2read(const float4* a, float* out, long long n4, int reps) {
    float s = 0.f;
    for (int r = 0; r < reps; ++r)
        for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n4;
             i += (long long)gridDim.x * blockDim.x) { float4 v = __ldcg(a + i); s += v.x + v.w; }
    if (s == -1.f) out[0] = s;
}
extern "C" __global__ void l2read4(const float4* a, float* out, long long n4, int reps) {
    float s = 0.f;  // four independent loads per iteration: L2 throughput, not latency
    long long step = (long long)gridDim.x * blockDim.x;
    for (int r = 0; r < reps; ++r)
        for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i + 3 * step < n4;
             i += 4 * step) {
            float4 v0 = __ldcg(a + i), v1 = __ldcg(a + i + step), v2 = __ldcg(a + i + 2 * step),
                   v3 = __ldcg(a + i + 3 * step);
            s += v0.x + v1.x + v2.x + v3.x;
        }
    if (s == -1.f) out[0] = s;
}
extern "C" __global__ void read1(const float* __restrict__ a, float* out) {
    extern __shared__ float pad[];  // only limits resident blocks per SM
    float v = a[blockIdx.x * (long long)blockDim.x + threadIdx.x];
    if (v == -1.f) { pad[0] = v; out[0] = pad[0]; }
}
extern "C" __global__ void write1(float* out) {
    extern __shared__ float pad[];  // only limits resident blocks per SM
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    out[i] = (float)threadIdx.x;
    if (out == nullptr) out[0] = pad[0];
}
extern "C" __global__ void copy1(const float* __restrict__ a, float* out) {
    extern __shared__ float pad[];
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    out[i] = a[i];
    if (out == nullptr) out[0] = pad[0];
}
extern "C" __global__ void l2write(float* out, long long words, int stride, int reps) {
    // one 4-byte store every `stride` words of an L2-resident buffer, `reps` passes: stride 8
    // writes 4 of a sector's 32 bytes (a partial-sector write), stride 1 whole sectors
    long long step = (long long)gridDim.x * blockDim.x;
    for (int r = 0; r < reps; ++r)
        for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i * stride < words;
             i += step)
            out[i * stride] = (float)r;
}
extern "C" __global__ void barriers(long long steps, long long* out) {
    __shared__ int s[1024];
    int v = threadIdx.x;
    long long t0 = clock64();
    for (long long i = 0; i < steps; ++i) {  // a store, a barrier, a load that needs the store
        s[threadIdx.x] = v;
        __syncthreads();
        v = s[(threadIdx.x + 1) % blockDim.x] + 1;
        __syncthreads();
    }
    long long t1 = clock64();
    if (threadIdx.x == 0) { out[0] = v; out[1] = t1 - t0; }
}
extern "C" __global__ void shchase(long long steps, long long* out) {
    __shared__ int next[1024];
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) next[i] = (i * 97 + 31) & 1023;
    __syncthreads();
    if (threadIdx.x == 0) {
        int p = 0;
        long long t0 = clock64();
        for (long long i = 0; i < steps; ++i) p = next[p];
        long long t1 = clock64();
        out[0] = p; out[1] = t1 - t0;
    }
}
extern "C" __global__ void chase(const long long* next, long long steps, long long* out,
                                 int l2only) {
    long long p = 0;
    long long t0 = clock64();
    if (l2only) { for (long long i = 0; i < steps; ++i) p = __ldcg(next + p); }
    else { for (long long i = 0; i < steps; ++i) p = next[p]; }
    long long t1 = clock64();
    out[0] = p; out[1] = t1 - t0;
}
"""


def median_ms(launch, repeats: int = REPEATS, warm: int = 3) -> tuple[float, list[float]]:
    for _ in range(warm):
        launch(0)
    cupy.cuda.runtime.deviceSynchronize()
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    times = []
    for i in range(repeats):
        start.record()
        launch(i)
        stop.record()
        stop.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, stop))
    return float(np.median(times)), times


def microbenchmarks(out: Path) -> dict:
    mod = cupy.RawModule(code=MICRO)
    props = cupy.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    res: dict = {
        "sm_count": sms,
        "l2_bytes": props["l2CacheSize"],
        "clock_khz": props["clockRate"],
        "name": props["name"].decode(),
    }
    empty = mod.get_function("empty_kernel")
    res["empty_kernel_ms"], res["empty_kernel_all_ms"] = median_ms(lambda i: empty((1,), (32,), ()), 50)
    sink = cupy.zeros(4, dtype=cupy.float32)
    big = cupy.random.random(1 << 28, dtype=cupy.float32)  # 1 GiB
    n4 = big.size // 4
    grid = sms * 8
    read4 = mod.get_function("read4")
    ms, _ = median_ms(lambda i: read4((grid,), (256,), (big, sink, np.int64(n4))))
    res["dram_read_gbs"] = big.nbytes / ms / 1e6
    dst = cupy.empty_like(big)
    copy4 = mod.get_function("copy4")
    ms, _ = median_ms(lambda i: copy4((grid,), (256,), (big, dst, np.int64(n4))))
    res["dram_copy_gbs"] = 2 * big.nbytes / ms / 1e6
    small = big[: (8 << 20) // 4]
    reps = 50
    l2read = mod.get_function("l2read")
    ms, _ = median_ms(lambda i: l2read((grid,), (256,), (small, sink, np.int64(small.size // 4), np.int32(reps))))
    res["l2_read_gbs"] = small.nbytes * reps / ms / 1e6
    l2read4 = mod.get_function("l2read4")
    g4 = sms * 2  # four loads of a grid-stride step each: 4 x step must fit in the buffer
    ms, _ = median_ms(lambda i: l2read4((g4,), (256,), (small, sink, np.int64(small.size // 4), np.int32(reps))))
    res["l2_read4_gbs"] = small.nbytes * reps / ms / 1e6
    # Volkov's method: one 4-byte load per thread, resident warps per SM limited by padding
    # shared memory; bandwidth = bytes in flight / latency while far below the peak
    read1 = mod.get_function("read1")
    sweep = []
    smem_per_sm = props["sharedMemPerMultiprocessor"]
    for blocks_per_sm in (1, 2, 4, 8):
        pad = smem_per_sm // blocks_per_sm - 1024 - 256
        pad = min(pad, props["sharedMemPerBlockOptin"])
        read1.max_dynamic_shared_size_bytes = pad
        nblk = big.size // 256
        ms, _ = median_ms(lambda i, pad=pad, nblk=nblk: read1((nblk,), (256,), (big, sink), shared_mem=pad))
        sweep.append(
            {
                "blocks_per_sm": blocks_per_sm,
                "warps_per_sm": 8 * blocks_per_sm,
                "dyn_shared": pad,
                "ms": ms,
                "gbs": big.nbytes / ms / 1e6,
            }
        )
    res["read1_sweep"] = sweep
    # the same sweep for one store per thread and for a load + store per thread: what a store
    # adds to a block's life at each occupancy (block lifetime = resident blocks x SMs / rate)
    out1 = cupy.empty_like(big)
    for label, fn, args in (
        ("write1", mod.get_function("write1"), (out1,)),
        ("copy1", mod.get_function("copy1"), (big, out1)),
    ):
        rows = []
        for blocks_per_sm in (1, 2, 4, 8):
            pad = min(smem_per_sm // blocks_per_sm - 1024 - 256, props["sharedMemPerBlockOptin"])
            fn.max_dynamic_shared_size_bytes = pad
            nblk = big.size // 256
            ms, _ = median_ms(lambda i, fn=fn, args=args, pad=pad, nblk=nblk: fn((nblk,), (256,), args, shared_mem=pad))
            rows.append(
                {
                    "blocks_per_sm": blocks_per_sm,
                    "warps_per_sm": 8 * blocks_per_sm,
                    "ms": ms,
                    "block_life_ns": ms * 1e6 * blocks_per_sm * sms / nblk,
                }
            )
        res[label + "_sweep"] = rows
    for row in sweep:
        row["block_life_ns"] = row["ms"] * 1e6 * row["blocks_per_sm"] * sms / (big.size // 256)
    del out1
    # L2 write throughput in sectors per second: whole sectors vs 4 bytes of each sector
    buf = cupy.zeros((8 << 20) // 4, dtype=cupy.float32)
    l2write = mod.get_function("l2write")
    for stride, label in ((1, "l2_full_write"), (8, "l2_partial_write")):
        reps = 50
        ms, _ = median_ms(
            lambda i, stride=stride, reps=reps, buf=buf: l2write(
                (grid,), (256,), (buf, np.int64(buf.size), np.int32(stride), np.int32(reps))
            )
        )
        sectors = buf.size // 8 * reps  # one sector per 8 words either way
        res[label + "_gsectors_per_s"] = sectors / ms / 1e6
    del buf
    chase = mod.get_function("chase")
    lat = {}
    for label, size, l2only in (("l1", 16 << 10, 0), ("l2", 8 << 20, 1), ("dram", 256 << 20, 1)):
        stride = {"l1": 128, "l2": 4096, "dram": 256}[label] // 8  # words: a new line each step
        count = size // 8
        idx = np.arange(0, count, stride, dtype=np.int64)
        rng = np.random.default_rng(0)
        order = rng.permutation(idx)
        nxt = np.zeros(count, dtype=np.int64)
        nxt[order] = np.roll(order, -1)
        dev = cupy.asarray(nxt)
        o = cupy.zeros(2, dtype=cupy.int64)
        steps = 20000
        if label != "dram":  # warm the L1/L2 cases; the DRAM case runs cold
            chase((1,), (1,), (dev, np.int64(steps), o, np.int32(l2only)))
        chase((1,), (1,), (dev, np.int64(steps), o, np.int32(l2only)))
        cupy.cuda.runtime.deviceSynchronize()
        lat[label] = float(o[1].get()) / steps
        del dev
    sh = mod.get_function("shchase")
    o = cupy.zeros(2, dtype=cupy.int64)
    sh((1,), (32,), (np.int64(20000), o))
    cupy.cuda.runtime.deviceSynchronize()
    lat["shared"] = float(o[1].get()) / 20000
    bar = mod.get_function("barriers")
    for threads in (256, 1024):
        bar((1,), (threads,), (np.int64(20000), o))
        cupy.cuda.runtime.deviceSynchronize()
        # per iteration: a store, two barriers and a dependent load
        lat[f"store_barrier_load_{threads}"] = float(o[1].get()) / 20000
    res["latency_cycles"] = lat
    (out / "micro.json").write_text(json.dumps(res, indent=1))
    print(json.dumps({k: v for k, v in res.items() if k != "empty_kernel_all_ms"}), flush=True)
    return res


def prepare(name: str, overrides: dict[str, int], l2_bytes: int, rotate: bool):
    spec = get_kernel(name)
    params = resolve_params(spec, overrides)
    grid, block, dyn = launch_geometry(spec, params)
    args = make_args(spec, params)
    inputs = {a.name: args[a.name].copy() for a in spec.args if a.role in ("in", "inout")}
    options = ("-std=c++17",) + tuple(f"-D{d}={params[d]}" for d in spec.defines)
    module = cupy.RawModule(code=spec.source, options=options, name_expressions=[spec.kernel])
    kernel = module.get_function(spec.kernel)
    pointer_bytes = sum(args[a.name].nbytes for a in spec.args if a.is_pointer)
    copies = 1 if not rotate or pointer_bytes >= 3 * l2_bytes else min(64, -(-3 * l2_bytes // pointer_bytes))
    sets = []
    for _ in range(copies):
        call, device = [], {}
        for a in spec.args:
            if a.is_pointer:
                device[a.name] = cupy.asarray(np.ascontiguousarray(args[a.name]).view(np.uint8))
                call.append(device[a.name])
            else:
                call.append(np.int32(args[a.name]))
        sets.append((tuple(call), device))
    grid3 = tuple(grid) + (1,) * (3 - len(grid))
    block3 = tuple(block) + (1,) * (3 - len(block))
    return spec, params, args, inputs, kernel, sets, grid3, block3, dyn


def run_case(name: str, overrides: dict[str, int], l2_bytes: int, timed: bool) -> dict:
    spec, params, args, inputs, kernel, sets, grid3, block3, dyn = prepare(name, overrides, l2_bytes, timed)
    call, device = sets[0]
    kernel(grid3, block3, call, shared_mem=dyn)
    cupy.cuda.runtime.deviceSynchronize()
    row = {
        "case": case_name(name, overrides),
        "kernel": spec.kernel,
        "grid": grid3,
        "block": block3,
        "copies": len(sets),
    }
    if not timed:
        return row
    for a in spec.args:
        if a.is_pointer and a.role in ("out", "inout"):
            args[a.name] = cupy.asnumpy(device[a.name]).view(args[a.name].dtype)
    check = check_result(spec, args, reference(spec.reference)({**args, **inputs}, params))
    row.update(passed=bool(check.passed), max_rel_error=check.max_rel_error)
    ms, times = median_ms(lambda i: kernel(grid3, block3, sets[i % len(sets)][0], shared_mem=dyn))
    row.update(median_ms=ms, times_ms=times)
    return row


def main(out: Path, profile: bool) -> None:
    out.mkdir(parents=True, exist_ok=True)
    l2 = cupy.cuda.runtime.getDeviceProperties(0)["l2CacheSize"]
    if not profile:
        microbenchmarks(out)
    if "--micro-only" in sys.argv:
        return
    rows = []
    for name, params in TIME_CASES:
        row = run_case(name, params, l2, timed=not profile)
        rows.append(row)
        brief = {k: row[k] for k in ("case", "median_ms", "passed", "copies") if k in row}
        print(json.dumps(brief), flush=True)
        cupy.get_default_memory_pool().free_all_blocks()
    if not profile:
        (out / "times.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), "--profile" in sys.argv[2:])
