"""What whole programs (app/) need of the execution core, through the one layer that joins the
core and the models (DESIGN: app/ and tune/ only ever ask analysis/): the toolchain and the
include scan to build them, the shared device memory and a launch over it, and the kernels of a
built program."""

from __future__ import annotations

from perfcalc.sim.ptx.arena import Arena, ArenaLaunch
from perfcalc.sim.ptx.compile import CompiledKernel, compile_target, program_kernels
from perfcalc.sim.ptx.includes import dependencies
from perfcalc.sim.ptx.nvcc_build import COMPAT
from perfcalc.sim.ptx.toolchain import CompileFlags, Toolchain, route, run_bounded

__all__ = [
    "COMPAT",
    "Arena",
    "ArenaLaunch",
    "CompileFlags",
    "CompiledKernel",
    "Toolchain",
    "compile_target",
    "dependencies",
    "program_kernels",
    "route",
    "run_bounded",
]
