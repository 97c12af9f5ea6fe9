"""The options several commands take, declared once (their help, spellings and checks), so each
command's signature is a list of names and a command reads as parse -> one call -> render."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from perfcalc.cli.choices import Compiler, GlobalCache, RunEngine
from perfcalc.defaults import DEFAULT_CC

DEFAULT_REGISTERS = 32  # analysis.launch_report.ASSUMED_REGISTERS (a test checks they agree)

CcOption = Annotated[
    str | None,
    typer.Option("--cc", help=f"Compute capability, product name or device YAML [default: {DEFAULT_CC}]."),
]
GpusOption = Annotated[
    list[str] | None,
    typer.Option(
        "--gpu",
        help="Product (see `perfcalc devices`): also model its L1/L2 caches over the run's addresses "
        "(hit rates, DRAM bytes) and predict the time. Repeat it to compare products side by side.",
    ),
]
ParamOption = Annotated[
    list[str] | None,
    typer.Option("--param", "-p", help="NAME=VALUE: a catalog parameter, or a scalar argument of --source."),
]
CatalogOption = Annotated[
    Path | None,
    typer.Option(
        "--catalog", help="Your own kernel catalog (kernels.yaml schema) instead of the shipped one.", dir_okay=False
    ),
]
SourceOption = Annotated[
    Path | None,
    typer.Option("--source", help="Run your own CUDA C file instead of a catalog kernel.", dir_okay=False),
]
KernelOption = Annotated[str | None, typer.Option("--kernel", help="__global__ function in --source.")]
TritonOption = Annotated[
    str | None,
    typer.Option(
        "--triton",
        metavar="FILE.py::KERNEL",
        help="Run a @triton.jit kernel instead (needs perfcalc[triton]; no GPU): --grid is its program "
        "grid, -p its scalars, constexprs and num_warps/num_stages, --array its tensors.",
    ),
]
GridOption = Annotated[str | None, typer.Option("--grid", help="Grid for --source: 64, 64,64, 64x64 or (64,64,1).")]
BlockOption = Annotated[str | None, typer.Option("--block", help="Block for --source: 256, 16,16, 16x16 or (16,16,1).")]
ArrayOption = Annotated[
    list[str] | None,
    typer.Option(
        "--array",
        help="A pointer argument of --source: NAME=DTYPE:ELEMENTS (random, seeded, never "
        "zero; any scalar type such as float16, bool, int8, uint64, a vector type such as "
        "float4 or double2, or bytesN for an opaque N-byte record) or NAME=@FILE.npy (your "
        "own 1-D array, as stored).",
    ),
]
DefineOption = Annotated[
    list[str] | None,
    typer.Option(
        "--define",
        "-D",
        help="NAME=VALUE #define for --source (e.g. TILE_WIDTH=16); with "
        "--engine ptx as nvcc takes it (NAME, or NAME=any tokens).",
    ),
]
IncludeOption = Annotated[
    list[Path] | None,
    typer.Option("--include-dir", "-I", help="Header folder for --source (--engine ptx).", file_okay=False),
]
DynamicSharedOption = Annotated[int, typer.Option("--dynamic-shared", help="Dynamic shared memory bytes for --source.")]
GlobalCacheOption = Annotated[
    GlobalCache | None,
    typer.Option(
        "--cache", help="Global caching mode on CC 2.x/3.x: l1 (128-byte lines) or l2 (32-byte).", case_sensitive=False
    ),
]
BankModeOption = Annotated[int | None, typer.Option("--bank-mode", help="Shared bank width on CC 3.x: 4 or 8 bytes.")]
RegsOption = Annotated[
    int,
    typer.Option(
        "--regs",
        help=f"Registers per thread for the occupancy figure (the simulator cannot know the "
        f"compiler's allocation; default {DEFAULT_REGISTERS}).",
    ),
]
IterationCapOption = Annotated[
    int, typer.Option("--iteration-cap", help="Loop iterations after which a loop counts as endless (a fault).")
]
RunEngineOption = Annotated[
    RunEngine | None,
    typer.Option(
        "--engine",
        help="source: the CUDA C subset as written (portable); ptx: the file as NVIDIA's "
        "compiler compiles it (needs the cuda extra); auto: ptx where NVRTC works, else source. "
        "[default: source for a catalog kernel (the lecture notes' C, as the model counts it), auto for --source]",
        case_sensitive=False,
        show_default=False,
    ),
]
CompilerOption = Annotated[
    Compiler | None,
    typer.Option(
        "--compiler",
        help="How the PTX engine compiles: nvcc with the host compiler, as the file's own build does; "
        "nvrtc (no host compiler needed: host code blanked); auto: nvcc where g++/clang++ and nvcc are "
        "installed [default: $PERFCALC_COMPILER, else auto].",
        case_sensitive=False,
        show_default=False,
    ),
]
NvccOption = Annotated[
    str | None,
    typer.Option(
        "--nvcc",
        metavar="PATH",
        help="Your own nvcc (CUDA 12.x or 13.x; its folder works too) [default: $PERFCALC_NVCC, "
        "$CUDA_HOME/bin/nvcc, else the nvidia-cuda-nvcc wheel's].",
    ),
]
ExactOption = Annotated[
    bool,
    typer.Option(
        "--exact",
        help="With --gpu: simulate every block even when the launch is large (by default a launch that "
        "would take more than a few seconds is sampled: the first waves of every k-th SM, extrapolated).",
    ),
]
RunPlotOption = Annotated[
    Path | None,
    typer.Option(
        "--plot",
        help="Also draw the kernel's source with a heat map of each line's global requests, sectors per "
        "request, shared requests and bank conflicts to FILE.png, .svg or .pdf (needs perfcalc[plot]).",
        dir_okay=False,
    ),
]
