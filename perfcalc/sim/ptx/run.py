"""The PTX engine's run: compile (or take from the cache), bind the arguments to the kernel's
parameters, lay out shared and local memory, run the grid chunk by chunk, and return the same
SimResult the C engine returns."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from perfcalc.errors import InputError
from perfcalc.memory.cache_hierarchy import CacheHierarchy
from perfcalc.sim.launch import (
    DEFAULT_OPTIONS,
    CacheFactory,
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
from perfcalc.sim.ptx.compile import CompiledKernel, compile_kernel
from perfcalc.sim.ptx.execute import Env
from perfcalc.sim.ptx.memory import Heap
from perfcalc.sim.ptx.parse import Function, Module
from perfcalc.sim.ptx.program import compile_steps, run_chunk
from perfcalc.sim.scalar_args import float_scalar
from perfcalc.specs import Arch

CHUNK_LANES = 1 << 17  # measured best of 2^15..2^18 on W = 512 matmuls (as the C engine's)


def run_ptx(
    source: str,
    kernel: str | None,
    grid: object,
    block: object,
    args: dict[str, object],
    arch: Arch,
    options: RunOptions = DEFAULT_OPTIONS,
    include_dirs: tuple[str, ...] = (),
    compiler: str | None = None,
    nvcc: str | None = None,
) -> SimResult:
    """Run `kernel` as nvcc (or NVRTC) compiles it (see perfcalc.sim.engine.run_kernel for arguments)."""
    if not isinstance(args, dict):
        raise InputError("args must be a dict of parameter name -> array or number")
    o = options
    g, b = dims(grid, "grid"), dims(block, "block")
    validate_launch(arch, g, b)
    ck = compile_kernel(source, kernel, arch, o.defines, o.source_name, include_dirs, compiler, nvcc)
    heap = Heap()
    param_bytes = _bind(ck.params, ck.fn, ck.module, args, heap, ck.kernel)
    symbols, shared_bytes, local_bytes = _layout(ck.fn, ck.module, o.dynamic_shared_memory_bytes, arch)
    symbols.update(_module_variables(ck.module, heap, args))
    heap.seal()
    launch = Launch(
        g, b, o.dynamic_shared_memory_bytes, o.iteration_cap, o.cache, o.bank_mode, o.source_name, o.raise_on_fault
    )
    try:
        return execute(ck, launch, arch, heap, param_bytes, symbols, (shared_bytes, local_bytes), o.progress, o.caches)
    finally:
        heap.write_back()


@dataclass(frozen=True)
class Launch:
    """How one launch runs: its geometry, dynamic shared memory, loop cap, cache and bank modes,
    the name faults cite, and whether a fault stops the run with an error or is returned."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dynamic_shared_memory_bytes: int = 0
    iteration_cap: int = 1_000_000
    cache: str | None = None
    bank_mode: int | None = None
    source_name: str = "<source>"
    raise_on_fault: bool = True
    race_faults: bool = True  # False: a shared-memory race is reported and the launch goes on


def execute(
    ck: CompiledKernel,
    launch: Launch,
    arch: Arch,
    heap: Heap,
    param_bytes: dict[str, bytes],
    symbols: dict[str, int],
    sizes: tuple[int, int],
    progress: Callable[[int, int], None] | None = None,
    caches: CacheHierarchy | CacheFactory | None = None,
) -> SimResult:
    """Run a compiled kernel over a prepared global memory (`heap`) and parameter bytes: the
    machine's chunks, counters, caches and faults (`sizes`: shared and local bytes per block and
    thread). Both `run_ptx` (arrays given by the caller) and whole programs (their device memory,
    app/) run here."""
    g, b, dyn = launch.grid, launch.block, launch.dynamic_shared_memory_bytes
    fn, shared_bytes, local_bytes = ck.fn, sizes[0], sizes[1]
    env = Env(
        fn,
        ck.kernel,
        _fault_file(ck, launch.source_name),
        g,
        b,
        heap,
        param_bytes,
        symbols,
        shared_bytes,
        local_bytes,
        Pricer(arch, launch.cache, launch.bank_mode),
        launch.iteration_cap,
        reg_types=_register_types(fn),
        race_faults=launch.race_faults,
        shared_offsets=_shared_offsets(ck.module, fn, symbols),
    )
    model = make_caches(caches, shared_bytes - dyn, ck.ptxas_log, fn.name)
    env.pricer.trace = model
    steps = compile_steps(env)
    nblocks = g[0] * g[1] * g[2]
    threads = b[0] * b[1] * b[2]
    warps_pb = -(-threads // 32)
    faults = run_chunks(
        nblocks, warps_pb, CHUNK_LANES, model, lambda ids: run_chunk(env, steps, ids), progress, launch.raise_on_fault
    )
    per_site, total = site_totals(env.counts)
    info = LaunchInfo(g, b, nblocks, threads, nblocks * threads, warps_pb, nblocks * warps_pb, shared_bytes - dyn, dyn)
    return SimResult(
        ck.kernel,
        total,
        per_site,
        info,
        tuple(faults),
        engine="ptx",
        compiler=f"{ck.compiler}, {ck.target}, -lineinfo",
        ptxas_log=ck.ptxas_log,
        entry=fn.name,
        caches=None if model is None else model.report(),
        inlined=site_totals(env.inlined)[0],
        source_file=ck.source_file,
        compile_notes=ck.notes,
        races=tuple(env.races),
        overruns=tuple(env.overruns),
        longest_warps=env.longest_warps,
    )


def _register_types(fn: Function) -> dict[str, str]:
    """Every register name the body uses -> its declared type (prefix declarations like
    `.reg .b32 %r<33>` cover %r0..%r32); worked out once per parsed function."""
    return fn.derived("register_types", lambda: _declared_types(fn))


def _declared_types(fn: Function) -> dict[str, str]:
    types: dict[str, str] = {}
    for name, t in fn.registers.items():
        if not name.startswith("%"):
            types[name] = t  # scoped temporaries declared by name (`.reg .b16 low, high;`)
    for instr in fn.body:
        for op in (*instr.operands, instr.pred or ""):
            for name in re.findall(r"%[A-Za-z_$][\w$]*", op):
                if name in fn.registers:
                    types[name] = fn.registers[name]
                    continue
                prefix = re.sub(r"\d+$", "", name)
                if prefix in fn.registers:
                    types[name] = fn.registers[prefix]
    return types


def _bind(
    params: list[tuple[str, str]], fn: Function, module: Module, args: dict[str, object], heap: Heap, kernel: str
) -> dict[str, bytes]:
    """Parameter bytes by PTX parameter name; arrays placed in the heap."""
    known = {n for n, _ in params} | {v.name for v in module.variables if v.space in ("const", "global")}
    unknown = sorted(set(args) - known)
    if unknown:
        raise InputError(
            f"argument(s) {', '.join(unknown)} match no parameter or __constant__ / "
            f"__device__ variable of kernel '{kernel}' (it has: {', '.join(sorted(known))})"
        )
    out: dict[str, bytes] = {}
    for (name, ctype), p in zip(params, fn.params, strict=True):
        if name not in args:
            raise InputError(f"argument {name} of kernel '{kernel}' is missing")
        value = args[name]
        if "*" in ctype or (ctype.endswith("]")):
            if not isinstance(value, np.ndarray) or value.ndim != 1 or not value.flags.c_contiguous:
                raise InputError(f"argument {name}: pointer parameter {name} needs a contiguous 1-D NumPy array")
            _check_pointee(name, ctype, value)
            writable = "const" not in ctype.split("*")[0] and value.flags.writeable
            addr = heap.add(name, value, writable)
            out[p.name] = int(addr).to_bytes(8, "little")
            continue
        out[p.name] = _scalar_bytes(name, ctype, value, p.ptx_type, p.size)
    return out


# the element type a pointer parameter's array must have, by the C spelling of its pointee (the
# sizes of every platform CUDA supports); pointers to other types (structs, void, vectors) take
# any array, whose bytes are the data
_POINTEE = {
    "float": "f4",
    "double": "f8",
    "int": "i4",
    "signed int": "i4",
    "unsigned int": "u4",
    "unsigned": "u4",
    "short": "i2",
    "unsigned short": "u2",
    "long long": "i8",
    "long long int": "i8",
    "unsigned long long": "u8",
    "unsigned long long int": "u8",
    "int8_t": "i1",
    "uint8_t": "u1",
    "unsigned char": "u1",
    "signed char": "i1",
    "int16_t": "i2",
    "uint16_t": "u2",
    "int32_t": "i4",
    "uint32_t": "u4",
    "int64_t": "i8",
    "uint64_t": "u8",
    "size_t": "u8",
    "__half": "f2",
    "half": "f2",
    "bool": "b1",
}


def _check_pointee(name: str, ctype: str, value: np.ndarray) -> None:
    """An array of another element type than the parameter's would have its bytes read as the
    wrong type (issue 36: a float64 .npy for a float* was taken without a word): refused, both
    types named. A non-native byte order is refused too."""
    pointee = re.sub(r"\b(const|volatile|__restrict__|restrict)\b|\*.*$", "", ctype)
    pointee = " ".join(pointee.split())
    want = _POINTEE.get(pointee)
    if want is None or value.dtype.names is not None or value.dtype.kind not in "biuf":
        return
    element = np.dtype(want).name
    if not value.dtype.isnative:
        raise InputError(
            f"argument {name}: the array is {value.dtype.str} (not this machine's byte order); the GPU reads "
            f"little-endian {element}: convert it with .astype('{element}')"
        )
    if value.dtype != np.dtype(want) and not (want in ("i1", "u1") and value.dtype.itemsize == 1):
        raise InputError(
            f"argument {name}: a {value.dtype.name} array for the {ctype.strip()} parameter {name}, whose elements "
            f"are {element}; give a {element} array (--array {name}={element}:COUNT or .astype('{element}'))"
        )


_HALF = re.compile(r"\b(?:__)?half\b|\b__nv_half\b")
_BFLOAT16 = re.compile(r"\b(?:__)?nv_bfloat16\b|\b__bf16\b|\bbfloat16\b")


def _half_bytes(name: str, ctype: str, value: object) -> bytes:
    """A half or bfloat16 scalar from a number, rounded as __float2half_rn / __float2bfloat16_rn
    round the float the number is (ties to even; issue 30: `-p a=0.5` was refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise InputError(f"argument {name} = {value!r}: a {ctype} parameter needs a number")
    single = np.asarray(value, dtype=np.float32)
    if _HALF.search(ctype):
        return single.astype(np.float16).tobytes()
    bits = int(single.view(np.uint32))
    if np.isnan(single):
        return (0x7FC0 | (bits >> 16 & 0x8000)).to_bytes(2, "little")
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    return (rounded & 0xFFFF).to_bytes(2, "little")


def _scalar_bytes(name: str, ctype: str, value: object, ptx_type: str, size: int) -> bytes:
    from perfcalc.sim.ptx.values import NP

    if isinstance(value, np.ndarray) and value.dtype.names is not None and value.ndim == 0:
        raw = value.tobytes()
    elif isinstance(value, np.void):
        raw = bytes(value.tobytes())
    elif isinstance(value, (bytes, bytearray)):
        raw = bytes(value)
    elif _HALF.search(ctype) or _BFLOAT16.search(ctype):
        raw = _half_bytes(name, ctype, value)
    elif ptx_type in NP and ptx_type != "pred":
        dt = NP[ptx_type]
        if isinstance(value, (bool, np.bool_)) and "bool" not in ctype:
            raise InputError(f"argument {name} = {value!r}: a {ctype} parameter needs a number")
        if dt.kind == "f" or "float" in ctype or "double" in ctype:
            if not isinstance(value, (int, float, np.integer, np.floating)):
                raise InputError(f"argument {name} = {value!r}: a {ctype} parameter needs a number")
            fdt = np.dtype(np.float64) if "double" in ctype else np.dtype(np.float32) if "float" in ctype else dt
            raw = float_scalar(name, ctype, value, fdt).tobytes()
        else:
            if isinstance(value, (float, np.floating)):
                if not np.isfinite(value) or float(value) != int(value):
                    raise InputError(f"argument {name} = {value!r}: a {ctype} parameter needs an integer")
                value = int(value)
            if not isinstance(value, (int, np.integer, bool, np.bool_)):
                raise InputError(f"argument {name} = {value!r}: a {ctype} parameter needs an integer")
            bits = 8 * dt.itemsize
            lo = -(1 << (bits - 1)) if ("unsigned" not in ctype and "size_t" not in ctype) else 0
            hi = (1 << bits) - 1 if lo == 0 else (1 << (bits - 1)) - 1
            if not lo <= int(value) <= hi:
                raise InputError(f"argument {name} = {value} does not fit the parameter's C type {ctype} ({lo}..{hi})")
            raw = (int(value) & ((1 << bits) - 1)).to_bytes(dt.itemsize, "little")
    else:
        raise InputError(f"argument {name}: cannot pass {type(value).__name__} as {ctype}")
    if len(raw) != size:
        raise InputError(f"argument {name}: {len(raw)} bytes given for a {size}-byte parameter ({ctype})")
    return raw


def _shared_offsets(module: Module, fn: Function, symbols: dict[str, int]) -> dict[str, int]:
    """Each shared variable's offset in the block's shared memory (what ptxas knows of its
    address: sim/ptx/shared_merge.py)."""
    names = {v.name for v in [*module.variables, *fn.variables] if v.space == "shared"}
    return {n: symbols[n] for n in sorted(names) if n in symbols}


def _layout(fn: Function, module: Module, dynamic: int, arch: Arch) -> tuple[dict[str, int], int, int]:
    """Symbol addresses of shared variables (from offset 0, extern ones after the static ones)
    and local depots (at 0), with the shared and local bytes they take."""
    symbols: dict[str, int] = {}
    offset = 0
    externs = []
    for v in [*module.variables, *fn.variables]:
        if v.space != "shared":
            continue
        if v.extern:
            externs.append(v)
            continue
        offset = -(-offset // max(v.align, 1)) * max(v.align, 1)
        symbols[v.name] = offset
        offset += v.size
    static = offset
    check_shared_memory(arch, static, dynamic)
    align = max([16, *(v.align for v in externs)])
    dyn_at = -(-offset // align) * align
    for v in externs:
        symbols[v.name] = dyn_at
    total = dyn_at + dynamic if externs else static + dynamic
    symbols["WARP_SZ"] = 32  # PTX's built-in warp-size constant (what warpSize compiles to)
    local = 0
    for v in fn.variables:
        if v.space == "local":
            symbols[v.name] = local
            local += v.size
    return symbols, total, local


def _module_variables(module: Module, heap: Heap, args: dict[str, object]) -> dict[str, int]:
    """__constant__ and __device__ variables placed in the heap, with their initial bytes or the
    value the caller gave by name."""
    symbols = {}
    for v in module.variables:
        if v.space in ("const", "global"):
            data = np.frombuffer(v.init + bytes(max(v.size - len(v.init), 0)), dtype=np.uint8).copy()
            given = args.get(v.name)
            if given is not None:
                raw = _variable_bytes(v.name, given)
                if len(raw) > v.size:
                    raise InputError(
                        f"argument {v.name}: {len(raw)} bytes given for the "
                        f"{v.size}-byte __{'constant' if v.space == 'const' else 'device'}__ "
                        f"variable {v.name}"
                    )
                data[: len(raw)] = np.frombuffer(raw, dtype=np.uint8)
            symbols[v.name] = heap.add(v.name, data, v.space == "global")
    return symbols


def _variable_bytes(name: str, value: object) -> bytes:
    """A __constant__ / __device__ variable's initial bytes from an array or a number."""
    if isinstance(value, np.ndarray):
        return np.ascontiguousarray(value).tobytes()
    if isinstance(value, (np.generic,)):
        return value.tobytes()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(
            f"argument {name}: give a NumPy array or scalar for a __constant__ or "
            f"__device__ variable, got {type(value).__name__}"
        )
    return np.asarray(value, dtype=np.float32 if isinstance(value, float) else np.int32).tobytes()


def _fault_file(ck: CompiledKernel, source_name: str) -> str:
    """The file a fault names: the one the kernel's lines are in (`ck.source_file`) where that is
    not the file as the user named it (a kernel defined in a header the file includes), else the
    user's name as given."""
    own = ck.source_file
    return own if own and Path(own) != Path(source_name).resolve() else source_name
