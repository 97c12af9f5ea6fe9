"""On the GPU machine: launch the Triton cubins triton_prepare.py made, through the CUDA driver API
(no Triton there), with their exact parameter bytes; save every array of the checked launches
(outputs.npz) and the registers. The timed launches' (*_large) inputs are made here, seeded.

    python3 benchmarks/hw/triton_on_h100.py .hw_triton OUT
"""

from __future__ import annotations

import ctypes
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ptx_corpus_on_h100 import (  # noqa: E402
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
    CU_FUNC_ATTRIBUTE_NUM_REGS,
    check,
    open_device,
)


def main(src: Path, out: Path) -> None:
    cu, _ = open_device()
    launches = json.loads((src / "launches.json").read_text())
    inputs = np.load(src / "inputs.npz")
    rng = np.random.default_rng(0)
    results, registers = {}, {}
    for launch in launches:
        name = launch["name"]
        mod, fn = ctypes.c_void_p(), ctypes.c_void_p()
        check(cu.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p((src / f"{name}.cubin").read_bytes())), name)
        check(cu.cuModuleGetFunction(ctypes.byref(fn), mod, launch["entry"].encode()), name)
        regs = ctypes.c_int()
        cu.cuFuncGetAttribute(ctypes.byref(regs), CU_FUNC_ATTRIBUTE_NUM_REGS, fn)
        registers[name] = regs.value
        holders, device = [], {}
        for p in launch["params"]:
            if "array" in p:
                if "make" in p:
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
        for arr, (dptr, host) in device.items():
            if not name.endswith("_large"):
                back = np.empty_like(host)
                check(
                    cu.cuMemcpyDtoH_v2(back.ctypes.data_as(ctypes.c_void_p), dptr, ctypes.c_size_t(host.nbytes)), "DtoH"
                )
                results[f"{name}::{arr}"] = back
            cu.cuMemFree_v2(dptr)
        cu.cuModuleUnload(mod)
        print(f"{name}: ok, {regs.value} registers", flush=True)
    np.savez(out / "outputs.npz", **results)
    (out / "registers.json").write_text(json.dumps(registers, indent=1))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
