"""The fixed choices of options, as enums: typer shows them in --help, completes and checks them.

Each enum's values are the library's own list (a test compares them), so the CLI cannot offer a
choice the library refuses.
"""

from __future__ import annotations

from enum import Enum


class AccessPattern(str, Enum):
    """memory/patterns.PATTERNS."""

    stride = "stride"
    reversed = "reversed"
    permuted = "permuted"
    broadcast = "broadcast"
    aos = "aos"
    tile_row = "tile-row"
    tile_column = "tile-column"
    random = "random"
    index_expression = "index"  # (not `index`: str.index)


class AccessOp(str, Enum):
    """memory/inputs.OPS."""

    load = "load"
    store = "store"


class GlobalCache(str, Enum):
    """The caching modes of CC 2.x/3.x global loads (specs/families.py)."""

    l1 = "l1"
    l2 = "l2"


class SweepAxis(str, Enum):
    """The spreadsheet's three graphs, or all of them."""

    block = "block"
    regs = "regs"
    smem = "smem"
    all = "all"


class CacheConfig(str, Enum):
    """model/occupancy_inputs.CACHE_CONFIGS (cudaFuncSetCacheConfig)."""

    none = "none"
    prefer_shared = "prefer-shared"
    prefer_l1 = "prefer-l1"
    prefer_equal = "prefer-equal"


class RunEngine(str, Enum):
    """sim/engine.ENGINES."""

    source = "source"
    ptx = "ptx"
    auto = "auto"


class MatmulEngine(str, Enum):
    """sim/launch.ENGINES, or both side by side."""

    source = "source"
    ptx = "ptx"
    auto = "auto"
    both = "both"


class Compiler(str, Enum):
    """sim/ptx/toolchain.ROUTES: how the PTX engine compiles a file."""

    auto = "auto"
    nvcc = "nvcc"
    nvrtc = "nvrtc"
