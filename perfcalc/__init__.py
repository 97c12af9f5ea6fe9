"""perfcalc: CUDA performance modelling for compute capability 1.0 to 12.1.

The public entry points are imported lazily, so `import perfcalc` (and the CLI) stay fast:

    perfcalc.occupancy(cc, block_size, registers_per_thread, ...)   -> OccupancyResult
    perfcalc.global_access(cc, addresses, size, ...)                 -> global-memory cost of one warp
    perfcalc.shared_access(cc, addresses, size, ...)                 -> shared-memory cost of one warp
    perfcalc.run_kernel(...)                                         -> execution-core run with counters
    perfcalc.get_arch(cc)                                            -> the CC's limits
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_LAZY = {
    "occupancy": "perfcalc.model.occupancy",
    "OccupancyResult": "perfcalc.model.occupancy",
    "global_access": "perfcalc.memory",
    "shared_access": "perfcalc.memory",
    "run_kernel": "perfcalc.sim",
    "get_arch": "perfcalc.specs",
    "Arch": "perfcalc.specs",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'perfcalc' has no attribute {name!r}")
