"""Device side: launch every case of h100_cases.py through CuPy and check its result.

Run under Nsight Compute by run_on_h100.sh; prints one JSON line per case (the result check)
so the profile's kernel rows can be matched to cases in launch order. Needs CuPy, NumPy,
PyYAML and pycparser (perfcalc's catalog loader), nothing from perfcalc's CLI.
"""

import json
import sys
from pathlib import Path

import cupy
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from h100_cases import CASES, case_id  # noqa: E402

from perfcalc.sim.references import check_result, make_args, reference  # noqa: E402
from perfcalc.specs.kernels import get_kernel, launch_geometry, resolve_params  # noqa: E402


def launch(name: str, overrides: dict[str, int]) -> dict:
    spec = get_kernel(name)
    params = resolve_params(spec, overrides)
    grid, block, dyn = launch_geometry(spec, params)
    args = make_args(spec, params)
    inputs = {a.name: args[a.name].copy() for a in spec.args if a.role in ("in", "inout")}
    options = ("-std=c++17",) + tuple(f"-D{d}={params[d]}" for d in spec.defines)
    module = cupy.RawModule(code=spec.source, options=options, name_expressions=[spec.kernel])
    kernel = module.get_function(spec.kernel)
    device, call = {}, []
    for a in spec.args:
        if a.is_pointer:
            host = np.ascontiguousarray(args[a.name])
            device[a.name] = cupy.asarray(host.view(np.uint8))
            call.append(device[a.name])
        else:
            call.append(np.int32(args[a.name]))
    grid3 = tuple(grid) + (1,) * (3 - len(grid))
    block3 = tuple(block) + (1,) * (3 - len(block))
    kernel(grid3, block3, tuple(call), shared_mem=dyn)
    cupy.cuda.runtime.deviceSynchronize()
    for a in spec.args:
        if a.is_pointer and a.role in ("out", "inout"):
            args[a.name] = cupy.asnumpy(device[a.name]).view(args[a.name].dtype)
    check = check_result(spec, args, reference(spec.reference)({**args, **inputs}, params))
    return {
        "case": case_id(name, overrides),
        "kernel": spec.kernel,
        "passed": bool(check.passed),
        "max_rel_error": check.max_rel_error,
    }


if __name__ == "__main__":
    cupy.cuda.set_allocator(None)  # plain cudaMalloc per array, so memcheck sees real bounds
    for name, params in CASES:
        print(json.dumps(launch(name, params)), flush=True)
