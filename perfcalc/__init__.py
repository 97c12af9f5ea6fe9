"""perfcalc: CUDA performance modelling for compute capability 1.0 to 12.1.

The public API (each name is imported on first use, so `import perfcalc` and the CLI stay fast):

    occupancy(device, block_size, registers_per_thread, ...)   -> OccupancyResult
    suggest_block_size(device, registers_per_thread, ...)      -> BlockSizeSuggestion
    read_ptxas(path_or_text)                                   -> kernels' registers and shared memory
    global_access(device, addresses, size, ...)                -> GlobalAccessCost of one warp
    shared_access(device, addresses, size, ...)                -> SharedAccessCost of one warp
    run_kernel(source, kernel, grid, block, args, arch, ...)   -> SimResult with counters
    roofline(gpu)                                              -> Roofline
    analyze(CatalogKernel(...) | SourceKernel(...), target(cc, gpu)) -> RunReport: counters,
        time, bound and what to change (`.run.advice`)
    matmul(width, tile, gpu)                                   -> MatmulAnalysis
    device(cc_or_gpu), devices(), product(name), products()    -> Arch / Gpu records
    demangle(name)                                             -> a kernel name as c++filt prints it

A device is whatever --cc/--gpu accept: an Arch, a Gpu, '9.0', 90, 'sm_90', 'h100-sxm' or a
device file. Results have to_dict(), to_frame() (with pandas) and a Jupyter display.
"""

from __future__ import annotations

import importlib
import types
from typing import Any

from perfcalc._version import __version__

_LAZY = {
    "occupancy": "perfcalc.model.occupancy",
    "OccupancyResult": "perfcalc.model.occupancy",
    "suggest_block_size": "perfcalc.model.occupancy_suggest",
    "BlockSizeSuggestion": "perfcalc.model.occupancy_suggest",
    "read_ptxas": "perfcalc.api",
    "global_access": "perfcalc.memory",
    "shared_access": "perfcalc.memory",
    "GlobalAccessCost": "perfcalc.memory",
    "SharedAccessCost": "perfcalc.memory",
    "run_kernel": "perfcalc.sim",
    "SimResult": "perfcalc.sim",
    "roofline": "perfcalc.api",
    "matmul": "perfcalc.api",
    "predict_time": "perfcalc.api",
    "analyze": "perfcalc.analysis.analyze",
    "SourceKernel": "perfcalc.analysis.analyze",
    "CatalogKernel": "perfcalc.analysis.analyze",
    "RunOptions": "perfcalc.analysis.analyze",
    "device": "perfcalc.api",
    "target": "perfcalc.api",
    "Target": "perfcalc.specs.target",
    "devices": "perfcalc.api",
    "product": "perfcalc.api",
    "products": "perfcalc.api",
    "demangle": "perfcalc.specs.demangle",
    "get_arch": "perfcalc.specs",
    "Arch": "perfcalc.specs",
    "Gpu": "perfcalc.specs",
    "PerfcalcError": "perfcalc.errors",
    "InputError": "perfcalc.errors",
    "UnknownDeviceError": "perfcalc.errors",
}

__all__ = ["__version__", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        if isinstance(value, types.FunctionType):  # the library's entry: argument types checked (issue 37)
            from perfcalc.arguments import checked_arguments

            value = checked_arguments(value)
        globals()[name] = value  # later look-ups skip this function
        return value
    raise AttributeError(f"module 'perfcalc' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The public API (what `dir()`, `help()` and IPython's completion show)."""
    return list(__all__)
