"""On the GPU machine: launch every corpus kernel once from the cubins ptx_corpus_prepare.py made
(or triton_prepare.py: a parameter with "make" has its array made here, seeded, and a
"timed_only" launch's arrays are not saved), with its exact parameter bytes and inputs, and save
every array afterwards.

Only the CUDA driver API through ctypes (no compiler): the H100 runs the same PTX, assembled by
the same ptxas version, as the PTX engine simulates. Writes outputs.npz and registers.json to the
folder given (the run's $OUT).
"""

from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path

import numpy as np

CU_FUNC_ATTRIBUTE_NUM_REGS = 4
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8


def check(status: int, what: str) -> None:
    if status != 0:
        raise RuntimeError(f"{what} failed with CUDA error {status}")


def time_launches(cu: ctypes.CDLL, launch_once, repeats: int, before=None) -> list[float]:
    """Milliseconds of `repeats` launches by CUDA events, after 3 warm-up launches; `before`
    (if given) runs ahead of each launch, outside the timed span."""
    for _ in range(3):
        if before is not None:
            before()
        launch_once()
    check(cu.cuCtxSynchronize(), "warm-up")
    start, stop = ctypes.c_void_p(), ctypes.c_void_p()
    check(cu.cuEventCreate(ctypes.byref(start), 0), "cuEventCreate")
    check(cu.cuEventCreate(ctypes.byref(stop), 0), "cuEventCreate")
    times = []
    for _ in range(repeats):
        if before is not None:
            before()
        check(cu.cuEventRecord(start, None), "cuEventRecord")
        launch_once()
        check(cu.cuEventRecord(stop, None), "cuEventRecord")
        check(cu.cuEventSynchronize(stop), "cuEventSynchronize")
        ms = ctypes.c_float()
        check(cu.cuEventElapsedTime(ctypes.byref(ms), start, stop), "cuEventElapsedTime")
        times.append(ms.value)
    cu.cuEventDestroy_v2(start)
    cu.cuEventDestroy_v2(stop)
    return times


def open_device() -> tuple[ctypes.CDLL, ctypes.c_int]:
    """The driver library and device 0, its primary context current."""
    cu = ctypes.CDLL("libcuda.so.1")
    check(cu.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    check(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    check(cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(cu.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    return cu, dev


def upload_constants(cu: ctypes.CDLL, mod: ctypes.c_void_p, launch: dict) -> None:
    """Write the launch's __constant__ variables (hex bytes by name) into the loaded module."""
    for cname, hexbytes in launch["constants"].items():
        ptr, size = ctypes.c_uint64(), ctypes.c_size_t()
        check(
            cu.cuModuleGetGlobal_v2(ctypes.byref(ptr), ctypes.byref(size), mod, cname.encode()),
            f"{launch['name']} {cname}",
        )
        data = bytes.fromhex(hexbytes)
        check(cu.cuMemcpyHtoD_v2(ptr, ctypes.c_char_p(data), ctypes.c_size_t(len(data))), cname)


def main(src: Path, out: Path, repeats: int = 0) -> None:
    cu, _dev = open_device()
    launches = json.loads((src / "launches.json").read_text())
    inputs = np.load(src / "inputs.npz")
    rng = np.random.default_rng(0)
    results: dict[str, np.ndarray] = {}
    registers = {}
    timings: dict[str, list[float]] = {}
    for launch in launches:
        name = launch["name"]
        image = (src / f"{name}.cubin").read_bytes()
        mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
        status = cu.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(image))
        if status != 0:
            print(f"{name}: cuModuleLoadData error {status}", file=sys.stderr)
            continue
        check(cu.cuModuleGetFunction(ctypes.byref(fn), mod, launch["entry"].encode()), name)
        regs = ctypes.c_int()
        cu.cuFuncGetAttribute(ctypes.byref(regs), CU_FUNC_ATTRIBUTE_NUM_REGS, fn)
        registers[name] = regs.value
        upload_constants(cu, mod, launch)
        holders, device = [], {}
        for p in launch["params"]:
            if "array" in p:
                if "make" in p:  # a timed-only launch's input, made here (seeded)
                    how, dtype, count = p["make"]
                    host = np.zeros(count, dtype) if how == "zeros" else rng.standard_normal(count).astype(dtype)
                else:
                    host = np.ascontiguousarray(inputs[f"{name}::{p['array']}"])
                dptr = ctypes.c_uint64()
                check(cu.cuMemAlloc_v2(ctypes.byref(dptr), ctypes.c_size_t(max(host.nbytes, 1))), "alloc")
                check(
                    cu.cuMemcpyHtoD_v2(dptr, host.ctypes.data_as(ctypes.c_void_p), ctypes.c_size_t(host.nbytes)), "HtoD"
                )
                device[p["array"]] = (dptr, host)
                holders.append(ctypes.c_uint64(dptr.value))
            else:
                raw = bytes.fromhex(p["raw"])
                holders.append((ctypes.c_char * len(raw)).from_buffer_copy(raw))
        params = (ctypes.c_void_p * len(holders))(*[ctypes.addressof(h) for h in holders])
        g = list(launch["grid"]) + [1] * (3 - len(launch["grid"]))
        b = list(launch["block"]) + [1] * (3 - len(launch["block"]))
        dyn = launch["dynamic_shared"]
        if dyn > 48 * 1024:
            cu.cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dyn)
        check(cu.cuLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2], dyn, None, params, None), f"{name} launch")
        check(cu.cuCtxSynchronize(), f"{name} run")
        if repeats:  # after the checked launch; in-place kernels then see their own output
            timings[name] = time_launches(
                cu,
                lambda fn=fn, g=g, b=b, dyn=dyn, params=params: check(
                    cu.cuLaunchKernel(fn, g[0], g[1], g[2], b[0], b[1], b[2], dyn, None, params, None), "timed launch"
                ),
                repeats,
            )
        for arr, (dptr, host) in device.items():
            if not launch.get("timed_only"):  # a large launch run for Nsight Compute's time only
                back = np.empty_like(host)
                size = ctypes.c_size_t(host.nbytes)
                check(cu.cuMemcpyDtoH_v2(back.ctypes.data_as(ctypes.c_void_p), dptr, size), "DtoH")
                results[f"{name}::{arr}"] = back
            cu.cuMemFree_v2(dptr)
        cu.cuModuleUnload(mod)
        print(f"{name}: ok, {regs.value} registers", flush=True)
    if not repeats:  # timed launches overwrite in-place outputs: only the plain run saves them
        np.savez(out / "outputs.npz", **results)
    (out / "registers.json").write_text(json.dumps(registers, indent=1))
    if repeats:
        (out / "times_ms.json").write_text(json.dumps(timings, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 0)
