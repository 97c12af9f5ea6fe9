"""On the GPU machine: three costs the time model did not price (issue #9's remaining misses).

1. Shared-memory atomics by operation and by how many distinct words a warp's 32 lanes hit
   (1, 2, 8 or 32, each word in its own bank), with the old value used or not: ns per warp
   instruction per SM (block 256, 8 blocks per SM, every SM busy).
2. `__constant__` reads whose lanes ask for D distinct words (D = 1..32, 32 bytes apart; and 16
   adjacent words; a working set of at most 1 KiB, so the constant cache hits): the Programming
   Guide splits such a request into one per distinct address. ns per warp instruction per SM.
   (Run 1, serialisation_h100_run1/, read an 8 KiB table with stride: constant-cache misses.)
3. Strided stores: each thread writes K consecutive elements (out[K i + k], k = 0..K-1, one store
   instruction each) against the same bytes as K fully coalesced arrays, and against the first of
   the K alone (partial sectors, nothing to combine). Time, and under Nsight Compute the sectors
   and requests that reach L2 (a warp's stride-K stores leave every sector partly written).

    python3 benchmarks/hw/serialisation_micro.py OUT            # times -> OUT/serialisation.json
    python3 benchmarks/hw/serialisation_micro.py OUT --profile  # each kernel once, for ncu
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

try:
    import cupy
except ImportError:  # --source works without it
    cupy = None

SHARED_OPS = {  # name: (type, expression on the slot's address p and a value v)
    "add": ("int", "atomicAdd(p, v)"),
    "min": ("int", "atomicMin(p, v)"),
    "max": ("int", "atomicMax(p, v)"),
    "or": ("int", "atomicOr(p, 1 << (v & 31))"),
    "cas": ("int", "atomicCAS(p, r, v)"),
    "exch": ("int", "atomicExch(p, v)"),
    "fadd": ("float", "atomicAdd(p, (float)v)"),
}
SHARED_WORDS = (1, 2, 8, 32)
CONST_WORDS = (1, 2, 4, 8, 16, 32)
STORE_K = (1, 2, 3, 4, 5, 8)
REPS = 64
REPEATS = 20


def shared_kernel(op: str, words: int, use: bool) -> tuple[str, str]:
    """One kernel: REPS atomics per thread on `words` distinct shared words per warp."""
    ctype, expr = SHARED_OPS[op]
    name = f"sh_{op}_{words}_{'use' if use else 'nouse'}"
    body = f"acc += {expr};" if use else f"{expr};"
    return (
        name,
        f"""
extern "C" __global__ void {name}(int* out, int reps) {{
    __shared__ {ctype} s[64];
    if (threadIdx.x < 64) s[threadIdx.x] = 0;
    __syncthreads();
    int lane = threadIdx.x & 31;
    {ctype}* p = &s[lane % {words}];
    {ctype} acc = 0;
    for (int r = 0; r < reps; ++r) {{
        int v = (int)threadIdx.x * 7 + r;
        {body}
    }}
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = (int)acc + (int)s[lane];
}}
""",
    )


def const_kernel(words: int, one_line: bool) -> tuple[str, str]:
    """REPS `__constant__` reads per thread, the warp's lanes on `words` distinct words.

    The words rotate among the lanes from one read to the next, so the working set stays at
    `words` words (8 words apart, or adjacent with `one_line`): hits in the constant cache.
    """
    name = f"const_{words}{'_oneline' if one_line else ''}"
    spread = 1 if one_line else 8
    return (
        name,
        f"""
extern "C" __global__ void {name}(int* out, int reps) {{
    int lane = threadIdx.x & 31;
    int acc = 0;
    for (int r = 0; r < reps; ++r) acc += ctab[((lane + r) & {words - 1}) * {spread}];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}}
""",
    )


def store_kernels(k: int, ctype: str) -> list[tuple[str, str]]:
    """K stride-K stores per thread; K coalesced arrays; the first stride-K store alone."""
    tag = f"{k}_{ctype.replace(' ', '')}"
    strided = "\n".join(f"    out[{k}L * i + {j}] = ({ctype})(i * 7 + {j});" for j in range(k))
    separate = "\n".join(f"    out[{j}L * n + i] = ({ctype})(i * 7 + {j});" for j in range(k))
    head = "long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;"
    return [
        (
            f"st_strided_{tag}",
            f'extern "C" __global__ void st_strided_{tag}({ctype}* out, long long n) {{\n    {head}\n{strided}\n}}\n',
        ),
        (
            f"st_separate_{tag}",
            f'extern "C" __global__ void st_separate_{tag}({ctype}* out, long long n) {{\n    {head}\n{separate}\n}}\n',
        ),
        (
            f"st_first_{tag}",
            f'extern "C" __global__ void st_first_{tag}({ctype}* out, '
            f"long long n) {{\n    {head}\n    out[{k}L * i] = ({ctype})(i * 7);\n}}\n",
        ),
    ]


def all_kernels() -> dict[str, str]:
    """Every micro kernel's source by name."""
    out = dict(shared_kernel(op, w, use) for op in SHARED_OPS for w in SHARED_WORDS for use in (False, True))
    out.update(const_kernel(w, False) for w in CONST_WORDS)
    out.update([const_kernel(16, True)])
    for ctype in ("int", "long long"):
        out.update(kv for k in STORE_K for kv in store_kernels(k, ctype))
    return out


def source() -> str:
    """The whole module (also compiled with nvcc on the device for its SASS)."""
    return "__constant__ int ctab[2048];\n" + "".join(all_kernels().values())


def timed(fn, grid, block, args) -> float:
    """Median milliseconds of REPEATS launches by CUDA events, after 3 warm-ups."""
    for _ in range(3):
        fn(grid, block, args)
    start, stop = cupy.cuda.Event(), cupy.cuda.Event()
    out = []
    for _ in range(REPEATS):
        start.record()
        fn(grid, block, args)
        stop.record()
        stop.synchronize()
        out.append(cupy.cuda.get_elapsed_time(start, stop))
    return statistics.median(out)


def main(out_dir: Path, profile: bool) -> None:
    mod = cupy.RawModule(code=source(), options=("-std=c++17",))
    cupy.ndarray((2048,), cupy.int32, mod.get_global("ctab"))[...] = cupy.arange(2048, dtype=cupy.int32)
    props = cupy.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    res: dict = {
        "name": props["name"].decode(),
        "sm_count": sms,
        "clock_khz": props["clockRate"],
        "reps": REPS,
        "cases": [],
    }
    blocks, threads = sms * 8, 256
    small = cupy.zeros(blocks * threads, dtype=cupy.int32)
    big = cupy.zeros(8 << 24, dtype=cupy.int32)  # 512 MiB: the largest store case
    run = (lambda f, g, b, a: (f(g, b, a), cupy.cuda.Device().synchronize(), 0.0)[2]) if profile else timed
    for name in all_kernels():
        fn = mod.get_function(name)
        if name.startswith(("sh_", "const_")):
            ms = run(fn, (blocks,), (threads,), (small, cupy.int32(REPS)))
            warp_instr = blocks * threads // 32 * REPS
            row = {
                "case": name,
                "median_ms": ms,
                "blocks": blocks,
                "threads": threads,
                "warp_instructions": warp_instr,
                "ns_per_warp_instruction_per_sm": ms * 1e6 / (warp_instr / sms),
            }
        else:
            k = int(name.split("_")[2])
            wide = name.endswith("longlong")
            n = (1 << 23) if wide else (1 << 24)
            ms = run(fn, (n // 256,), (256,), (big, cupy.int64(n)))
            row = {
                "case": name,
                "median_ms": ms,
                "threads_total": n,
                "k": k,
                "element_bytes": 8 if wide else 4,
                "bytes_written": n * (1 if "first" in name else k) * (8 if wide else 4),
            }
        res["cases"].append(row)
        if not profile:
            print(json.dumps(row), flush=True)
    if not profile:
        (out_dir / "serialisation.json").write_text(json.dumps(res, indent=1))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--source"]:
        print(source())
    else:
        main(Path(sys.argv[1]), "--profile" in sys.argv)
