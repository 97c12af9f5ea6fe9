"""The C-subset front end's run: bind arguments, run the grid chunk by chunk.

Blocks run in chunks of about `CHUNK_LANES` lanes (whole blocks), which bounds memory and keeps
the lane arrays cache-sized; every block of a chunk runs in lockstep, statement by statement.
"""

from __future__ import annotations

import contextlib
import functools
import math
import sys
from collections.abc import Iterator

import numpy as np

from perfcalc.errors import CudaSyntaxError, InputError
from perfcalc.sim.csubset import ctype as T
from perfcalc.sim.csubset.compiler import KernelCompiler
from perfcalc.sim.csubset.context import ChunkContext, LaunchState
from perfcalc.sim.csubset.ctypes_struct import StructType, dtype_matches
from perfcalc.sim.csubset.frontend import ParsedSource, parse_source
from perfcalc.sim.csubset.ir import CompiledKernel, ValueType
from perfcalc.sim.csubset.memories import SPACE_BASE, ConstantArray, GlobalArray, MemoryArray, SharedArray
from perfcalc.sim.launch import (
    DEFAULT_OPTIONS,
    LaunchInfo,
    RunOptions,
    SimResult,
    check_shared_memory,
    dims,
    make_caches,
    run_chunks,
    site_totals,
    validate_launch,
)
from perfcalc.sim.pricing import Pricer
from perfcalc.sim.scalar_args import float_scalar
from perfcalc.specs import Arch, as_arch

CHUNK_LANES = 1 << 17  # measured best of 2^13..2^20 on W = 512 and 1024 matmuls
_SHARED_ALIGN = 128


@functools.lru_cache(maxsize=64)
def _parse_cached(source: str, source_name: str, defines: tuple[tuple[str, object], ...]) -> ParsedSource:
    return parse_source(source, source_name, dict(defines))


def _shared_layout(kernel: CompiledKernel, dynamic: int, arch: Arch) -> tuple[dict[int, int], int, int]:
    """Byte offset of each shared array (128-aligned), packed static bytes, dynamic offset."""
    offsets: dict[int, int] = {}
    offset = 0
    static_bytes = 0
    for sd in kernel.shared:
        if sd.extern:
            continue
        size = math.prod(sd.dims) * sd.elem.size  # Python ints: np.prod wraps 2**32 x 2**32 to 0
        offsets[sd.key] = offset
        offset += -(-size // _SHARED_ALIGN) * _SHARED_ALIGN
        static_bytes = -(-static_bytes // sd.elem.size) * sd.elem.size + size
    check_shared_memory(arch, static_bytes, dynamic)
    return offsets, static_bytes, offset


def _scalar_arg(name: str, t: T.CType, value: object) -> np.generic:
    if t.dtype.kind == "b":  # a `bool` parameter: true/false, or the integers 0 and 1
        if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer)) and int(value) in (0, 1)):
            return np.bool_(bool(value))
        raise InputError(f"argument {name} = {value!r}: a bool parameter needs true/false or 0/1")
    if isinstance(value, (bool, np.bool_)):
        raise InputError(f"argument {name} = {value!r}: a {t.name} parameter needs a number")
    if t.is_float:
        if not isinstance(value, (int, float, np.integer, np.floating)):
            raise InputError(f"argument {name} = {value!r}: a {t.name} parameter needs a number")
        return float_scalar(name, t.name, value, t.dtype)
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value) or float(value) != int(value):
            raise InputError(f"argument {name} = {value!r}: a {t.name} parameter needs an integer")
        value = int(value)
    if not isinstance(value, (int, np.integer)):
        raise InputError(f"argument {name} = {value!r}: a {t.name} parameter needs an integer")
    info = np.iinfo(t.dtype)
    if not info.min <= int(value) <= info.max:
        raise InputError(
            f"argument {name} = {value} does not fit the parameter's C type {t.name} ({info.min}..{info.max})"
        )
    return t.dtype.type(int(value))


def _dtype_name(t: ValueType) -> str:
    if isinstance(t, StructType):
        return f"a structured dtype with the layout of {t.name} ({t.dtype})"
    return str(t.dtype)


def _check_array(name: str, elem: ValueType, arr: object, writable: bool, what: str) -> np.ndarray:
    if not isinstance(arr, np.ndarray):
        raise InputError(f"argument {name}: {what} needs a NumPy array, got {type(arr).__name__}")
    if arr.ndim != 1:
        raise InputError(
            f"argument {name}: array has shape {arr.shape}; {what} needs a 1-D "
            "array (flatten it; the kernel indexes it linearly)"
        )
    ok = dtype_matches(elem, arr.dtype) if isinstance(elem, StructType) else arr.dtype == elem.dtype
    if not ok:
        raise InputError(
            f"argument {name}: array dtype {arr.dtype} does not match the C "
            f"element type; {what} needs {_dtype_name(elem)}"
        )
    if not arr.flags.c_contiguous:
        raise InputError(f"argument {name}: array is not contiguous (pass np.ascontiguousarray)")
    if writable and not arr.flags.writeable:
        raise InputError(f"argument {name}: array is read-only but the kernel parameter is not const")
    return arr


@contextlib.contextmanager
def _depth_bounded(source_name: str, kernel: str, doing: str) -> Iterator[None]:
    """pycparser and the compiled closures recurse once per nesting level: 300 nested `if`s,
    a 1,000-term sum or a 500-deep `__device__` call chain exhaust Python's recursion limit.
    That is this engine's limit, not the kernel's fault: say so in one line."""
    try:
        yield
    except RecursionError:
        raise CudaSyntaxError(
            f"{source_name}: kernel '{kernel}' nests too deeply for the source engine (Python's "
            f"limit of {sys.getrecursionlimit()} nested calls reached while {doing}: deeply "
            "nested expressions, statements or __device__ calls); split them, or use --engine "
            "ptx"
        ) from None


def run_csubset(
    source: str,
    kernel: str | None,
    grid: object,
    block: object,
    args: dict[str, object],
    arch: Arch | str,
    options: RunOptions = DEFAULT_OPTIONS,
) -> SimResult:
    """Run `kernel` (None: the file's only __global__ function) of CUDA C `source` on NumPy for
    every thread of the launch and count.

    The source engine behind `perfcalc.sim.engine.run_kernel` (which documents the options).
    `options.progress`, if given, is called as progress(blocks_done, blocks_total) after each
    chunk of blocks.
    """
    arch = as_arch(arch)
    o = options
    g = dims(grid, "grid")
    b = dims(block, "block")
    validate_launch(arch, g, b)
    dkey = tuple(sorted((o.defines or {}).items()))
    with _depth_bounded(o.source_name, kernel or "(the only one)", "parsing and compiling"):
        parsed = _parse_cached(source, o.source_name, dkey)
        compiled = KernelCompiler(parsed, kernel, o.iteration_cap).compile()
    kernel = compiled.name  # None named the file's only kernel
    offsets, static_bytes, dyn_offset = _shared_layout(compiled, o.dynamic_shared_memory_bytes, arch)
    run = LaunchState(arch, o.cache, o.bank_mode, o.source_name, kernel, Pricer(arch, o.cache, o.bank_mode))
    caches = make_caches(o.caches, static_bytes, None, kernel)
    run.pricer.trace = caches
    mems, scalars = _bind(compiled, args)

    nblocks = g[0] * g[1] * g[2]
    threads = b[0] * b[1] * b[2]
    warps_pb = -(-threads // 32)

    def body(ids: np.ndarray) -> None:
        ctx = ChunkContext(run, ids, b, g)
        _prepare_chunk(ctx, compiled, mems, scalars, offsets, dyn_offset, o.dynamic_shared_memory_bytes)
        compiled.body(ctx)

    with _depth_bounded(o.source_name, kernel, "running"):
        faults = run_chunks(nblocks, warps_pb, CHUNK_LANES, caches, body, o.progress, o.raise_on_fault)
    per_site, total = site_totals(compiled.site_counts)
    info = LaunchInfo(
        g,
        b,
        nblocks,
        threads,
        nblocks * threads,
        warps_pb,
        nblocks * warps_pb,
        static_bytes,
        o.dynamic_shared_memory_bytes,
    )
    return SimResult(kernel, total, per_site, info, tuple(faults), caches=None if caches is None else caches.report())


def _bind(
    compiled: CompiledKernel, args: dict[str, object]
) -> tuple[dict[int, GlobalArray | ConstantArray], dict[int, np.generic]]:
    if not isinstance(args, dict):
        raise InputError("args must be a dict of parameter name -> array or number")
    known = {p.name for p in compiled.params} | {c.name for c in compiled.constants}
    unknown = sorted(set(args) - known)
    if unknown:
        raise InputError(
            f"argument(s) {', '.join(unknown)} match no parameter or __constant__ "
            f"array of kernel '{compiled.name}' (it has: {', '.join(sorted(known))})"
        )
    mems: dict[int, GlobalArray | ConstantArray] = {}
    scalars: dict[int, np.generic] = {}
    next_base = SPACE_BASE
    bases: dict[tuple[int, int], int] = {}
    for p in compiled.params:
        if p.name not in args:
            raise InputError(f"argument {p.name} of kernel '{compiled.name}' is missing")
        value = args[p.name]
        if p.kind == "scalar":
            assert isinstance(p.t, T.CType)  # compiler.py refuses a struct passed by value
            scalars[p.slot_or_key] = _scalar_arg(p.name, p.t, value)
            continue
        arr = _check_array(p.name, p.t, value, not p.readonly, f"pointer parameter {p.name}")
        ident = (arr.__array_interface__["data"][0], arr.nbytes)
        if ident not in bases:
            bases[ident] = next_base
            next_base += -(-max(arr.nbytes, 1) // 256) * 256 + 256
        mems[p.slot_or_key] = GlobalArray(p.name, arr, bases[ident], p.readonly)
    for c in compiled.constants:
        if c.name in args:
            arr = _check_array(c.name, c.elem, args[c.name], False, f"__constant__ {c.name}")
            if arr.shape[0] > c.length:
                raise InputError(
                    f"argument {c.name}: {arr.shape[0]} elements given for "
                    f"__constant__ {c.name}[{c.length}] (declared at line "
                    f"{c.line})"
                )
            full = np.zeros(c.length, dtype=arr.dtype)
            full[: arr.shape[0]] = arr
        else:
            dt = c.elem.dtype
            full = np.zeros(c.length, dtype=dt)
            if c.init:
                full[: len(c.init)] = c.init
        mems[c.key] = ConstantArray(c.name, full)
    return mems, scalars


def _prepare_chunk(
    ctx: ChunkContext,
    compiled: CompiledKernel,
    mems: dict[int, GlobalArray | ConstantArray],
    scalars: dict[int, np.generic],
    offsets: dict[int, int],
    dyn_offset: int,
    dynamic: int,
) -> None:
    ctx.slots = [None] * compiled.nslots
    for slot, v in scalars.items():
        ctx.slots[slot] = v
    ctx.funcs = [ctx.kernel_frame]
    by_key: dict[int, MemoryArray] = dict(mems)
    ctx.shared_arrays = []
    dyn_buffer = None
    for sd in compiled.shared:
        if sd.extern:
            width = -(-dynamic // 16) * 16
            if dyn_buffer is None:
                dyn_buffer = np.zeros(ctx.nblocks * max(width, 16), dtype=np.uint8)
            storage = dyn_buffer.view(sd.elem.dtype)
            stride = max(width, 16) // sd.elem.size
            arr = SharedArray(ctx, sd.name, storage, dynamic // sd.elem.size, (), dyn_offset, stride)
        else:
            n = math.prod(sd.dims)
            storage = np.zeros(ctx.nblocks * n, dtype=sd.elem.dtype)
            arr = SharedArray(ctx, sd.name, storage, n, sd.dims, offsets[sd.key])
        by_key[sd.key] = arr
        ctx.shared_arrays.append(arr)
    ctx.mems = [by_key[key] for key in range(compiled.nmem)]
