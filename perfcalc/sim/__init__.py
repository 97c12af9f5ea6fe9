"""The execution core: runs CUDA C kernels on NumPy, vectorised over all threads, and counts
what really happens (global transactions, shared wavefronts, bank conflicts, flops, divergent
branches, barriers) while checking for out-of-bounds accesses, shared-memory races, divergent
barriers and endless loops.

    run_kernel(source, kernel, grid, block, args, arch, ...) -> SimResult
"""

from __future__ import annotations

from perfcalc.sim.counters import COUNTER_NAMES, INSTRUCTION_KINDS, Counters
from perfcalc.sim.frontend import ParsedSource, parse_source
from perfcalc.sim.launch import LaunchInfo, SimResult, run_kernel
from perfcalc.sim.safety import Fault

__all__ = [
    "COUNTER_NAMES",
    "INSTRUCTION_KINDS",
    "Counters",
    "Fault",
    "LaunchInfo",
    "ParsedSource",
    "SimResult",
    "parse_source",
    "run_kernel",
]
