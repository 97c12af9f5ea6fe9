"""The execution core: one instrumented machine (launch, pricing, counters, faults) behind two
front ends that never import each other -- sim/csubset/ runs the CUDA C subset as written, and
sim/ptx/ runs a whole .cu file as NVIDIA's compiler compiles it -- vectorised over all threads,
counting what really happens (global transactions, shared wavefronts, bank conflicts, flops,
divergent branches, barriers) while checking for out-of-bounds accesses, races, divergent
barriers and endless loops.

    run_kernel(source, kernel, grid, block, args, arch, ..., engine="source"|"ptx"|"auto")
"""

from __future__ import annotations

from typing import Any

from perfcalc.sim.counters import INSTRUCTION_KINDS, Counters
from perfcalc.sim.launch import LaunchInfo, SimResult
from perfcalc.sim.safety import Fault
from perfcalc.specs.counters import COUNTER_NAMES

__all__ = [
    "COUNTER_NAMES",
    "ENGINES",
    "INSTRUCTION_KINDS",
    "Counters",
    "Fault",
    "LaunchInfo",
    "ParsedSource",
    "SimResult",
    "parse_source",
    "run_kernel",
]


def __getattr__(name: str) -> Any:
    """run_kernel and the engines (sim/engine.py, which imports both front ends) and the C front
    end's parser, loaded only when asked for: a front end importing this package's modules never
    loads the other front end, and no import runs in a circle."""
    if name in ("run_kernel", "ENGINES", "resolve_engine"):
        from perfcalc.sim import engine

        return getattr(engine, name)
    if name in ("ParsedSource", "parse_source"):
        from perfcalc.sim.csubset import frontend

        return getattr(frontend, name)
    raise AttributeError(f"module 'perfcalc.sim' has no attribute {name!r}")
