"""The PTX engine's run: compile (or take from the cache), bind the arguments to the kernel's
parameters, lay out shared and local memory, run the grid chunk by chunk, and return the same
SimResult the C engine returns."""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import numpy as np

from perfcalc import diskcache
from perfcalc.errors import CudaSyntaxError, InputError
from perfcalc.memory.cache_hierarchy import CacheHierarchy
from perfcalc.sim.launch import (
    CacheFactory,
    LaunchInfo,
    SimResult,
    arch_file,
    dims,
    make_caches,
    run_chunks,
    site_totals,
    validate_launch,
)
from perfcalc.sim.pricing import Pricer
from perfcalc.sim.ptx import includes, nvrtc
from perfcalc.sim.ptx.execute import Env
from perfcalc.sim.ptx.hoststrip import (
    HOST_HEADERS,
    DeviceSource,
    ParserUnavailable,
    choose_kernel,
    strip_host,
)
from perfcalc.sim.ptx.memory import Heap
from perfcalc.sim.ptx.parse import Function, Module, parse_module
from perfcalc.sim.ptx.program import compile_steps, run_chunk
from perfcalc.sim.ptx.ptxas import remember, resource_log, sm_target
from perfcalc.specs import Arch

CHUNK_LANES = 1 << 17  # measured best of 2^15..2^18 on W = 512 matmuls (as the C engine's)


def compile_target(arch: Arch) -> str:
    """compute_XY for the CC: the newest virtual architecture NVRTC 13 compiles for that is not
    newer than the CC (compute_75 below 7.5: the PTX is the same program, and its addresses are
    priced under the chosen CC's rules whatever the target). CC 10.0 to 12.1 get their own
    targets, so the PTX is what NVRTC writes for them (`.ptr` parameters and all)."""
    return f"compute_{sm_target(arch.cc_number)[3:]}"


COMPILE_FORMAT = "perfcalc-ptx-2"  # part of every key: a new layout never reads an old entry
CACHE_KIND = "ptx"


# this process's compiles by cache key (the key holds every file the preprocessor can reach, so
# a changed header still recompiles): a second launch reads no file
_COMPILED: dict[str, nvrtc.Compiled] = {}


def _is_compiled(value: object) -> bool:
    """The shape of a stored compile: what nvrtc.Compiled needs, with the right types."""
    if not isinstance(value, dict) or not isinstance(value.get("ptx"), str):
        return False
    lowered = value.get("lowered")
    return (
        isinstance(lowered, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in lowered.items())
        and isinstance(value.get("compiler"), str)
    )


def compile_cached(
    source: str,
    source_name: str,
    options: list[str],
    names: list[str],
    headers: dict[str, str] | None = None,
    max_seconds: float | None = None,
) -> nvrtc.Compiled:
    """NVRTC's PTX, cached on disk under a key of everything the compile reads: the source, its
    name (NVRTC searches its folder for quoted includes), the options (include folders made
    absolute by the caller), the names, the compiler version, the in-memory headers, and every
    file the preprocessor can reach (perfcalc/sim/ptx/includes.py). A file whose includes cannot
    all be resolved beforehand is compiled every time, never answered from the cache."""
    version = nvrtc.version()
    deps = _dependencies(source, source_name, options)
    key = diskcache.digest(
        json.dumps(
            [
                COMPILE_FORMAT,
                source,
                source_name,
                options,
                names,
                version,
                sorted((headers or {}).items()),
                deps.fingerprint(),
            ]
        ).encode()
    )
    if not deps.complete:
        return nvrtc.compile_isolated(source, source_name, options, names, headers, max_seconds)
    seen = _COMPILED.get(key)
    if seen is not None:
        return seen
    data = diskcache.read(CACHE_KIND, key, _is_compiled)
    if data is not None:
        found = nvrtc.Compiled(data["ptx"], data["lowered"], "", data["compiler"], tuple(options))
        return remember(_COMPILED, key, found)
    compiled = nvrtc.compile_isolated(source, source_name, options, names, headers, max_seconds)
    diskcache.write(CACHE_KIND, key, {"ptx": compiled.ptx, "lowered": compiled.lowered, "compiler": compiled.compiler})
    return remember(_COMPILED, key, compiled)


def _dependencies(source: str, source_name: str, options: list[str]) -> includes.Dependencies:
    """What the preprocessor can reach from `source` under these options (see includes.py)."""
    user_dirs = [Path(o[2:]) for o in options if o.startswith("-I")]
    system = set(nvrtc.include_dirs())
    defines = {}
    for o in options:
        if o.startswith("-D"):
            name, eq, value = o[2:].partition("=")
            defines[name] = value if eq else "1"
    path = Path(source_name)
    folder = path.resolve().parent if path.is_file() else Path.cwd()
    return includes.dependencies(
        source,
        folder,
        [d for d in user_dirs if str(d) not in system],
        [Path(d) for d in nvrtc.include_dirs()],
        defines,
    )


_SIGNATURE = (
    r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?(?:static\s+|inline\s+)*void\s+"
    r"(?:__launch_bounds__\s*\([^)]*\)\s*)?(?:[\w:]+::)?{name}\s*\("
)


def kernel_parameters(source: str, kernel: str) -> list[tuple[str, str]]:
    """(C++ name, C++ type) of each parameter of `kernel` (its base name, templates stripped)."""
    base = kernel.split("<")[0].strip().split("::")[-1]
    m = re.search(_SIGNATURE.format(name=re.escape(base)), source)
    if m is None:
        raise CudaSyntaxError(f"no __global__ function named '{base}' in the source")
    depth, i = 1, m.end()
    while depth and i < len(source):
        depth += {"(": 1, ")": -1}.get(source[i], 0)
        i += 1
    text = source[m.end() : i - 1]
    params = []
    depth, cur = 0, ""
    for ch in text + ",":
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            decl = cur.strip()
            cur = ""
            if not decl or decl == "void":
                continue
            decl = decl.split("=")[0].strip()
            name = re.search(r"([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*$", decl)
            if name is None:
                raise CudaSyntaxError(f"cannot read the parameter {decl!r} of '{base}'")
            params.append((name.group(1), decl[: name.start()].strip() or decl))
        else:
            cur += ch
    return params


@dataclass(frozen=True)
class CompiledKernel:
    """A kernel as NVRTC compiled it: the chosen name, the entry function, its parameters, and
    ptxas's resource report (None without the nvcc wheel)."""

    kernel: str
    module: Module
    fn: Function
    params: list[tuple[str, str]]
    compiler: str
    target: str
    ptxas_log: str | None
    ptxas_target: str


@functools.lru_cache(maxsize=16)
def _parsed(ptx: str) -> Module:
    """parse_module, once per PTX text in a process (the C engine's compile is cached the same
    way): a Module is only read after parsing, and a second run of a kernel then pays neither
    NVRTC (disk cache) nor the parse (3 ms for the seeds' matmul)."""
    return parse_module(ptx)


def compile_kernel(
    source: str,
    kernel: str | None,
    arch: Arch,
    defines: Mapping[str, int | float | str | None] | None = None,
    source_name: str = "<source>",
    include_dirs: tuple[str, ...] = (),
) -> CompiledKernel:
    """Host code blanked, NVRTC -> PTX (cached), the entry found, ptxas -v run (cached)."""
    device = _device_source(source)
    kernel = choose_kernel(device, kernel) if device is not None else kernel
    if not kernel:
        raise InputError("name the kernel to run (--kernel NAME)")
    target = compile_target(arch)
    options = [f"--gpu-architecture={target}", "-lineinfo", "-std=c++17", "-default-device"]
    for name, value in sorted((defines or {}).items()):
        options.append(f"-D{name}" if value is None else f"-D{name}={value}")  # -DX= is X empty, as in nvcc
    # a real file keeps its path as the program's name, so NVRTC searches its folder for quoted
    # includes as nvcc does; every include folder is absolute, so the key names the folder meant
    # whatever the working directory (issue 36)
    real = bool(source_name) and not source_name.startswith("<") and Path(source_name).is_file()
    here = [str(Path(source_name).resolve().parent)] if real else []
    folders = [os.path.abspath(d) for d in include_dirs]
    options += [f"-I{d}" for d in (*folders, *here, *nvrtc.include_dirs())]
    base = kernel.split("<")[0].strip().split("::")[-1]
    text = device.text if device is not None else source
    name = source_name if real else (Path(source_name).name or "kernel.cu")
    compiled = compile_cached(text, name, options, [kernel], HOST_HEADERS)
    module = _parsed(compiled.ptx)
    fn = _entry(module, compiled, kernel, base)
    params = kernel_parameters(text, kernel)
    if len(params) != len(fn.params):
        raise CudaSyntaxError(
            f"kernel '{kernel}' has {len(params)} parameters in the source but {len(fn.params)} in the compiled PTX"
        )
    sm = sm_target(arch.cc_number)
    log = resource_log(compiled.ptx, sm, CACHE_KIND)
    return CompiledKernel(kernel, module, fn, params, compiled.compiler, target, log, sm)


def run_ptx(
    source: str,
    kernel: str | None,
    grid: object,
    block: object,
    args: dict[str, object],
    arch: Arch,
    dynamic_shared_memory_bytes: int = 0,
    defines: Mapping[str, int | float | str | None] | None = None,
    iteration_cap: int = 1_000_000,
    cache: str | None = None,
    bank_mode: int | None = None,
    source_name: str = "<source>",
    raise_on_fault: bool = True,
    progress: Callable[[int, int], None] | None = None,
    include_dirs: tuple[str, ...] = (),
    caches: CacheHierarchy | CacheFactory | None = None,
) -> SimResult:
    """Run `kernel` as NVRTC compiles it (see perfcalc.sim.engine.run_kernel for arguments)."""
    if not isinstance(args, dict):
        raise InputError("args must be a dict of parameter name -> array or number")
    if not isinstance(dynamic_shared_memory_bytes, int) or dynamic_shared_memory_bytes < 0:
        raise InputError(f"dynamic_shared_memory_bytes = {dynamic_shared_memory_bytes!r} must be an int >= 0")
    g, b = dims(grid, "grid"), dims(block, "block")
    validate_launch(arch, g, b)
    ck = compile_kernel(source, kernel, arch, defines, source_name, include_dirs)
    kernel, module, fn, params, target = ck.kernel, ck.module, ck.fn, ck.params, ck.target
    heap = Heap()
    param_bytes = _bind(params, fn, module, args, heap, kernel)
    symbols, shared_bytes, local_bytes = _layout(fn, module, heap, dynamic_shared_memory_bytes, arch, args)
    heap.seal()
    reg_types = _register_types(fn)
    env = Env(
        fn,
        kernel,
        source_name,
        g,
        b,
        heap,
        param_bytes,
        symbols,
        shared_bytes,
        local_bytes,
        Pricer(arch, cache, bank_mode),
        iteration_cap,
        reg_types=reg_types,
    )
    caches = make_caches(caches, shared_bytes - dynamic_shared_memory_bytes, ck.ptxas_log, fn.name)
    env.pricer.trace = caches
    steps = compile_steps(env)
    nblocks = g[0] * g[1] * g[2]
    threads = b[0] * b[1] * b[2]
    warps_pb = -(-threads // 32)
    try:
        faults = run_chunks(
            nblocks, warps_pb, CHUNK_LANES, caches, lambda ids: run_chunk(env, steps, ids), progress, raise_on_fault
        )
    finally:
        heap.write_back()
    per_site, total = site_totals(env.counts)
    info = LaunchInfo(
        g,
        b,
        nblocks,
        threads,
        nblocks * threads,
        warps_pb,
        nblocks * warps_pb,
        shared_bytes - dynamic_shared_memory_bytes,
        dynamic_shared_memory_bytes,
    )
    return SimResult(
        kernel,
        total,
        per_site,
        info,
        tuple(faults),
        engine="ptx",
        compiler=f"{ck.compiler}, {target}, -lineinfo",
        ptxas_log=ck.ptxas_log,
        entry=fn.name,
        caches=None if caches is None else caches.report(),
        inlined=site_totals(env.inlined)[0],
    )


@functools.lru_cache(maxsize=32)
def _device_source(source: str) -> DeviceSource | None:
    """The file with host code blanked; None (compile as given) without tree-sitter (once per
    text in a process: a DeviceSource is frozen)."""
    try:
        return strip_host(source)
    except ParserUnavailable:
        return None


def _entry(module: Module, compiled: nvrtc.Compiled, kernel: str, base: str) -> Function:
    lowered = compiled.lowered.get(kernel)
    if lowered and lowered in module.functions:
        return module.functions[lowered]
    entries = [f for f in module.functions.values() if f.is_entry]
    for f in entries:
        if f.name == base or re.match(rf"^_Z\d+{re.escape(base)}", f.name):
            return f
    names = ", ".join(f.name for f in entries) or "none"
    raise CudaSyntaxError(f"no compiled kernel matches '{kernel}' (entries in the PTX: {names})")


def _register_types(fn: Function) -> dict[str, str]:
    """Every register name the body uses -> its declared type (prefix declarations like
    `.reg .b32 %r<33>` cover %r0..%r32); worked out once per parsed function."""
    found = fn.analyses.get("register_types")
    if found is None:
        found = fn.analyses["register_types"] = _declared_types(fn)
    return cast(dict[str, str], found)


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
            writable = "const" not in ctype.split("*")[0] and value.flags.writeable
            addr = heap.add(name, value, writable)
            out[p.name] = int(addr).to_bytes(8, "little")
            continue
        out[p.name] = _scalar_bytes(name, ctype, value, p.ptx_type, p.size)
    return out


def _scalar_bytes(name: str, ctype: str, value: object, ptx_type: str, size: int) -> bytes:
    from perfcalc.sim.ptx.values import NP

    if isinstance(value, np.ndarray) and value.dtype.names is not None and value.ndim == 0:
        raw = value.tobytes()
    elif isinstance(value, np.void):
        raw = bytes(value.tobytes())
    elif isinstance(value, (bytes, bytearray)):
        raw = bytes(value)
    elif ptx_type in NP and ptx_type != "pred":
        dt = NP[ptx_type]
        if isinstance(value, (bool, np.bool_)) and "bool" not in ctype:
            raise InputError(f"argument {name} = {value!r}: a {ctype} parameter needs a number")
        if dt.kind == "f" or "float" in ctype or "double" in ctype:
            if not isinstance(value, (int, float, np.integer, np.floating)):
                raise InputError(f"argument {name} = {value!r}: a {ctype} parameter needs a number")
            fdt = np.dtype(np.float64) if "double" in ctype else np.dtype(np.float32) if "float" in ctype else dt
            raw = np.asarray(value, dtype=fdt).tobytes()
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


def _layout(
    fn: Function, module: Module, heap: Heap, dynamic: int, arch: Arch, args: dict[str, object]
) -> tuple[dict[str, int], int, int]:
    """Symbol addresses: shared variables from offset 0 (extern ones after the static ones),
    local depots at 0, module variables in the heap."""
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
    limit = arch.max_shared_memory_per_block_bytes
    src = arch_file(arch)
    if static > limit:
        raise InputError(
            f"static __shared__ memory of {static} bytes exceeds the limit {limit} "
            f"(max_shared_memory_per_block_bytes in {src})"
        )
    align = max([16, *(v.align for v in externs)])
    dyn_at = -(-offset // align) * align
    for v in externs:
        symbols[v.name] = dyn_at
    total = dyn_at + dynamic if externs else static + dynamic
    launchable = arch.max_shared_memory_per_block_launchable_bytes
    if static + dynamic > launchable:
        raise InputError(
            f"__shared__ memory of {static} static + {dynamic} dynamic bytes exceeds the limit {launchable} ({src})"
        )
    symbols["WARP_SZ"] = 32  # PTX's built-in warp-size constant (what warpSize compiles to)
    local = 0
    for v in fn.variables:
        if v.space == "local":
            symbols[v.name] = local
            local += v.size
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
    return symbols, total, local


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
