"""The execution core: one instrumented machine (launch, pricing, counters, faults) behind two
front ends that never import each other -- sim/csubset/ runs the CUDA C subset as written, and
sim/ptx/ runs a whole .cu file as NVIDIA's compiler compiles it -- vectorised over all threads,
counting what really happens (global transactions, shared wavefronts, bank conflicts, flops,
divergent branches, barriers) while checking for out-of-bounds accesses, races, divergent
barriers and endless loops.

    run_kernel(source, kernel, grid, block, args, arch, ..., engine="source"|"ptx"|"auto")
"""

from __future__ import annotations

from perfcalc.sim.counters import COUNTER_NAMES, INSTRUCTION_KINDS, Counters
from perfcalc.sim.csubset.frontend import ParsedSource, parse_source
from perfcalc.sim.launch import ENGINES, LaunchInfo, SimResult, run_kernel
from perfcalc.sim.safety import Fault

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
