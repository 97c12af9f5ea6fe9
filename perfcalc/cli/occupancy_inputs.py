"""What `perfcalc occupancy` reads: its options, declared once, and the parsing of their text
(byte counts with K, expressions of the block size, carveout names, whole numbers)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any

import typer

from perfcalc.cli.choices import CacheConfig, SweepAxis
from perfcalc.cli.common import table_option
from perfcalc.defaults import DEFAULT_CC
from perfcalc.errors import InputError
from perfcalc.expr import shorten

CARVEOUT_NAMES = {"default": None, "max-l1": 0, "max-shared": 100}  # cudaSharedCarveout enum
_BYTES = re.compile(r"^\s*(-?\d+)\s*(k|kb|kib)?\s*$", re.IGNORECASE)


CcOpt = Annotated[
    str | None,
    typer.Option(
        "--cc",
        metavar="CC",
        help=f"Compute capability (7.0, 70, sm_70), GPU name, or a device YAML file [default: {DEFAULT_CC}].",
    ),
]
BlockOpt = Annotated[str | None, typer.Option("--block", "-b", metavar="THREADS", help="Threads per block.")]
RegsOpt = Annotated[
    str | None, typer.Option("--regs", "-r", metavar="N", help="Registers per thread (ptxas 'Used N registers').")
]
SmemOpt = Annotated[
    str, typer.Option("--smem", metavar="BYTES", help="Static shared memory per block, bytes (2K = 2048).")
]
DynSmemOpt = Annotated[
    str,
    typer.Option(
        "--dyn-smem",
        metavar="BYTES|EXPR",
        help="Dynamic shared memory per block, bytes (the launch's 3rd argument), or an "
        "expression of the block size such as 'block*8' (used by --suggest and --sweep block).",
    ),
]
CarveoutOpt = Annotated[
    str,
    typer.Option(
        "--carveout",
        metavar="PCT",
        help="Shared-memory carveout 0-100 %, or default, max-l1, max-shared (CC 7.0+).",
    ),
]
CacheConfigOpt = Annotated[
    CacheConfig,
    typer.Option(
        "--cache-config", help="cudaFuncSetCacheConfig's preference (CC 2.x/3.x splits).", case_sensitive=False
    ),
]
BarriersOpt = Annotated[
    str,
    typer.Option("--barriers", metavar="N", help="Barriers per block (CC 9.0 barrier limit; the runtime assumes 1)."),
]
SweepOpt = Annotated[
    list[SweepAxis] | None,
    typer.Option("--sweep", help="The spreadsheet's graphs as tables (repeatable).", case_sensitive=False),
]
PlotOpt = Annotated[
    Path | None,
    typer.Option(
        "--plot",
        metavar="FILE",
        help="Draw the sweeps to a .png, .svg or .pdf, current point marked (needs the 'plot' extra).",
        dir_okay=False,
    ),
]
SuggestOpt = Annotated[
    bool,
    typer.Option(
        "--suggest",
        help="Best block size by NVIDIA's rule, and the ranking (with a GPU: the "
        "minimum grid size, blocks per SM x SMs).",
    ),
]
GpuOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--gpu",
        metavar="GPU",
        help="A GPU product (b200, rtx5090) or product YAML: its CC, SM count for --grid and --suggest. "
        "Repeat it to compare products: one row per GPU.",
    ),
]
GridOpt = Annotated[
    str | None,
    typer.Option(
        "--grid",
        metavar="BLOCKS",
        help="Blocks in the grid (N or X,Y,Z): with a GPU, the waves and the last wave's fill.",
    ),
]
PtxasOpt = Annotated[
    Path | None,
    typer.Option(
        "--ptxas",
        metavar="FILE",
        help="A saved 'nvcc -Xptxas -v' log ('-': piped in): occupancy of every kernel in it at --block.",
        dir_okay=False,
    ),
]
SourceOpt = Annotated[
    Path | None,
    typer.Option(
        "--source",
        metavar="FILE.cu",
        help="Compile a real .cu file (PTX engine: NVRTC + ptxas) and use its kernel's registers and shared memory.",
        dir_okay=False,
    ),
]
KernelOpt = Annotated[
    str | None, typer.Option("--kernel", help="Kernel in --source, as C++ names it (templates: 'k<16>').")
]
DefineOpt = Annotated[
    list[str] | None, typer.Option("--define", "-D", help="NAME or NAME=VALUE for --source, as nvcc takes it.")
]
ShowLimitsOpt = Annotated[
    bool,
    typer.Option(
        "--show-limits", help="Also print the CC's physical limits, each with its device-file key (in JSON always)."
    ),
]
TableOpt = Annotated[
    str | None,
    table_option(
        "occupancy, inputs, device_limits (with --show-limits), allocation, block_limits, waves (with --grid); "
        "with --suggest: suggestion, ranking; with --sweep: sweep_block_size, sweep_registers_per_thread, "
        "sweep_shared_memory_per_block_bytes; with --ptxas or --source: kernels (suggestions with --suggest)"
    ),
]


def parse_bytes(text: str, option: str) -> int:
    """'2048', '2K', '2KB', '2KiB' -> bytes (K = 1024)."""
    match = _BYTES.match(text)
    if not match:
        raise InputError(f"{option} {text!r} is not a byte count; give bytes such as 2048 or 2K")
    return int(match.group(1)) * (1024 if match.group(2) else 1)


def parse_dynamic(text: str) -> int | str:
    """--dyn-smem: bytes ('2K'), or an expression of the block size ('block*8', 'block/32*4 + 1K'
    is not accepted: write 1024), as cudaOccupancyMaxPotentialBlockSizeVariableSMem takes a
    function of the block size. Returns bytes, or the expression for `dynamic_bytes`."""
    if _BYTES.match(text):
        return parse_bytes(text, "--dyn-smem")
    from perfcalc.expr import names_in

    names = names_in(text)
    if not names or names - {"block"}:
        raise InputError(
            f"--dyn-smem {text[:60]!r} is not a byte count (2048, 2K) nor an expression of 'block' such as 'block*8'"
        )
    return text


def dynamic_bytes(dynamic: int | str, block: Any) -> Any:
    """The dynamic shared memory for a block size (scalar or array) from parse_dynamic's value."""
    if isinstance(dynamic, int):
        return dynamic
    import numpy as np

    from perfcalc.expr import evaluate

    value = np.asarray(evaluate(dynamic, {"block": np.asarray(block, dtype=np.int64)}))
    bad = ~np.isfinite(value.astype(float)) | (value < 0) | (value != np.floor(value))
    if bad.any():
        raise InputError(
            f"--dyn-smem {dynamic!r} gives {value[bad].flat[0]!r} bytes for a block size; it must give whole bytes >= 0"
        )
    return value.astype(np.int64) if value.ndim else int(value)


def parse_count(text: str | None, option: str) -> int | None:
    """A whole number as typed (range checks are the engine's, with the CC's limits)."""
    if text is None:
        return None
    if not re.fullmatch(r"\s*-?\d+\s*", text):
        raise InputError(f"{option} {shorten(text)} is not a whole number")
    if len(text.strip().lstrip("-")) > 19:  # int() of 5,000 digits raises; int64 has 19
        raise InputError(f"{option} {shorten(text)} is beyond the limit of 2**63 - 1 (a signed 64-bit integer)")
    return int(text)


def parse_carveout(text: str) -> int | None:
    """'default' | 'max-l1' | 'max-shared' | a percentage -> None or 0..100 (checked later)."""
    name = text.strip().lower()
    if name in CARVEOUT_NAMES:
        return CARVEOUT_NAMES[name]
    if re.fullmatch(r"-?\d+%?", name):
        return int(name.rstrip("%"))
    raise InputError(
        f"--carveout {text!r} is not a percentage 0..100 or one of "
        f"{', '.join(CARVEOUT_NAMES)} (cudaFuncAttributePreferredSharedMemoryCarveout)"
    )


def parse_sweeps(values: list[SweepAxis] | None) -> tuple[str, ...]:
    axes: list[str] = []
    for value in values or []:
        name = value.value
        for axis in ("block", "regs", "smem") if name == "all" else (name,):
            if axis not in axes:
                axes.append(axis)
    return tuple(axes)


def require(value: Any, option: str, why: str) -> Any:
    if value is None:
        raise InputError(f"{option} is required {why}")
    return value
