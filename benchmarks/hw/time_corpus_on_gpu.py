"""On the GPU machine: time every realistic-size corpus launch (time_corpus_prepare.py's cubins)
with CUDA events, or with --profile launch each once for Nsight Compute.

    python3 benchmarks/hw/time_corpus_on_gpu.py .hw_time_corpus OUT [--profile]

Inputs are built here from their corpus specs by tests/corpus.py (the bytes the PTX engine sees
here). Timing as time_on_gpu.py does for the catalog: 3 warm-up launches, then the median of 20
CUDA-event timings; when one set of arrays is smaller than 3x the L2, launches rotate over enough
copies (at most 64) that each starts with its inputs out of the L2. Arrays an entry lists under
`reset` (a counter that indexes an output) are zeroed before each launch, and those under
`restore` (state the kernel changes, such as BFS levels) copied back from a pristine copy, outside
the timed span (the copy leaves them in the L2); other kernels that update their input in place
(bitonic_sort, grid_stride, ...) are timed on what the previous launch left. Each launch runs in
its own process (a fault stops only that one). Writes OUT/times.json; CUDA driver API through ctypes only.
"""

from __future__ import annotations

import ctypes
import json
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "tests"))

import corpus  # noqa: E402
from ptx_corpus_on_h100 import (  # noqa: E402
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
    CU_FUNC_ATTRIBUTE_NUM_REGS,
    check,
    open_device,
    time_launches,
    upload_constants,
)

CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38
REPEATS = 20


def _device_array(cu: ctypes.CDLL, host: np.ndarray) -> ctypes.c_uint64:
    dptr = ctypes.c_uint64()
    check(cu.cuMemAlloc_v2(ctypes.byref(dptr), ctypes.c_size_t(max(host.nbytes, 1))), "alloc")
    check(cu.cuMemcpyHtoD_v2(dptr, host.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(host.nbytes)), "HtoD")
    return dptr


def run(src: Path, out: Path, profile: bool, only: str | None) -> None:
    """Time (or, profiling, launch once) the launch named `only` (None: every launch, in this
    process); print each row as JSON."""
    cu, dev = open_device()
    l2 = ctypes.c_int()
    check(cu.cuDeviceGetAttribute(ctypes.byref(l2), CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev), "L2")
    launches = [x for x in json.loads((src / "launches.json").read_text()) if only in (None, x["name"])]
    for launch in launches:
        name = launch["name"]
        mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
        image = (src / f"{name}.cubin").read_bytes()
        check(cu.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(image)), f"{name} load")
        check(cu.cuModuleGetFunction(ctypes.byref(fn), mod, launch["entry"].encode()), name)
        regs = ctypes.c_int()
        cu.cuFuncGetAttribute(ctypes.byref(regs), CU_FUNC_ATTRIBUTE_NUM_REGS, fn)
        upload_constants(cu, mod, launch)
        hosts = {
            p["array"]: np.ascontiguousarray(corpus.argument(name, p["array"], p["spec"]))
            for p in launch["params"]
            if "array" in p
        }
        total = sum(h.nbytes for h in hosts.values())
        copies = 1 if profile or total >= 3 * l2.value else min(64, -(-3 * l2.value // total))
        sets, allocated = [], []
        resets: list[list[tuple[int, int]]] = []
        restores: list[list[tuple[int, int, int]]] = []
        for _ in range(copies):
            holders, zeroed, restored = [], [], []
            for p in launch["params"]:
                if "array" in p:
                    dptr = _device_array(cu, hosts[p["array"]])
                    allocated.append(dptr)
                    holders.append(ctypes.c_uint64(dptr.value))
                    if p["array"] in launch.get("reset", []):
                        zeroed.append((dptr.value, hosts[p["array"]].nbytes))
                    if p["array"] in launch.get("restore", []):
                        pristine = _device_array(cu, hosts[p["array"]])
                        allocated.append(pristine)
                        restored.append((dptr.value, pristine.value, hosts[p["array"]].nbytes))
                else:
                    raw = bytes.fromhex(p["raw"])
                    holders.append((ctypes.c_char * len(raw)).from_buffer_copy(raw))
            params = (ctypes.c_void_p * len(holders))(*[ctypes.addressof(h) for h in holders])
            sets.append((holders, params))
            resets.append(zeroed)
            restores.append(restored)
        g = list(launch["grid"]) + [1] * (3 - len(launch["grid"]))
        b = list(launch["block"]) + [1] * (3 - len(launch["block"]))
        dyn = launch["dynamic_shared"]
        if dyn > 48 * 1024:
            cu.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dyn)
        turn = [0]

        def launch_once(fn=fn, g=g, b=b, dyn=dyn, sets=sets, turn=turn, name=name) -> None:
            params = sets[turn[0] % len(sets)][1]
            turn[0] += 1
            check(cu.cuLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2], dyn, None, params, None), f"{name} launch")

        def before(resets=resets, restores=restores, turn=turn) -> None:
            for dptr, size in resets[turn[0] % len(resets)]:
                check(cu.cuMemsetD8_v2(ctypes.c_uint64(dptr), 0, ctypes.c_size_t(size)), "reset")
            for dptr, pristine, size in restores[turn[0] % len(restores)]:
                check(
                    cu.cuMemcpyDtoD_v2(ctypes.c_uint64(dptr), ctypes.c_uint64(pristine), ctypes.c_size_t(size)),
                    "restore",
                )

        before()
        launch_once()
        check(cu.cuCtxSynchronize(), f"{name} run")
        row = {"case": name, "grid": g, "block": b, "copies": copies, "array_bytes": total, "registers": regs.value}
        if not profile:
            times = time_launches(cu, launch_once, REPEATS, before)
            row["median_ms"] = statistics.median(times)
            row["all_ms"] = times
        for dptr in allocated:
            cu.cuMemFree_v2(dptr)
        cu.cuModuleUnload(mod)
        print("ROW " + json.dumps(row), flush=True)


def main(src: Path, out: Path, profile: bool) -> None:
    """Each launch in its own process, so that one kernel's fault cannot stop the others."""
    rows = []
    for launch in json.loads((src / "launches.json").read_text()):
        name = launch["name"]
        cmd = [sys.executable, __file__, str(src), str(out), "--only", name]
        done = subprocess.run(cmd + (["--profile"] if profile else []), capture_output=True, text=True, timeout=600)
        found = [ln[4:] for ln in done.stdout.splitlines() if ln.startswith("ROW ")]
        if done.returncode or not found:
            print(f"{name}: failed (rc {done.returncode}) {done.stderr.strip()[-300:]}", flush=True)
            rows.append({"case": name, "error": done.stderr.strip()[-300:]})
            continue
        row = json.loads(found[0])
        rows.append(row)
        if not profile:
            print(
                f"{name:24} {row['median_ms']:9.4f} ms  x{row['copies']} copies  "
                f"{row['array_bytes'] / 2**20:8.1f} MiB  {row['registers']} regs",
                flush=True,
            )
    if not profile:
        (out / "times.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    if "--only" in sys.argv or "--one-process" in sys.argv:
        run(
            Path(sys.argv[1]),
            Path(sys.argv[2]),
            "--profile" in sys.argv,
            sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None,
        )
    else:
        main(Path(sys.argv[1]), Path(sys.argv[2]), "--profile" in sys.argv)
