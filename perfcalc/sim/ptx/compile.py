"""Compile a .cu file for the PTX engine: as its own build does (nvcc with the host compiler,
nvcc_build.py) or, without a host compiler, its host code blanked and NVRTC (hoststrip.py,
nvrtc.py); find the kernel's entry and parameters (kernels.py); run ptxas -v for its registers.
Every compile is cached under a key of every file it can read (includes.py)."""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from perfcalc import diskcache
from perfcalc.errors import CudaSyntaxError, InputError
from perfcalc.sim.ptx import includes, nvcc_build, nvrtc, toolchain
from perfcalc.sim.ptx.hoststrip import (
    CLIB_HEADER,
    HOST_HEADERS,
    DeviceSource,
    ParserUnavailable,
    choose_kernel,
    strip_host,
)
from perfcalc.sim.ptx.inline import parse_program
from perfcalc.sim.ptx.kernels import base_name, defines_kernel, entry_names, find_entry, kernel_parameters
from perfcalc.sim.ptx.parse import Function, Module
from perfcalc.sim.ptx.ptxas import remember, resource_log, sm_target
from perfcalc.specs import Arch


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


@dataclass(frozen=True)
class CompiledKernel:
    """A kernel as nvcc or NVRTC compiled it: the chosen name, the entry function, its
    parameters, ptxas's resource report (None without the nvcc wheel), the file whose lines the
    counts are kept at, and what was done to compile it (headers stood in, host code blanked)."""

    kernel: str
    module: Module
    fn: Function
    params: list[tuple[str, str]]
    compiler: str
    target: str
    ptxas_log: str | None
    ptxas_target: str
    source_file: str = ""
    notes: tuple[str, ...] = ()


@functools.lru_cache(maxsize=16)
def _parsed(ptx: str, main_file: str | None = None) -> Module:
    """parse_program (parse_module, calls inlined), once per PTX text in a process (the C
    engine's compile is cached the same way): a Module is only read after parsing, and a second
    run of a kernel then pays neither NVRTC (disk cache) nor the parse (3 ms for the seeds'
    matmul)."""
    return parse_program(ptx, main_file)


def compile_kernel(
    source: str,
    kernel: str | None,
    arch: Arch,
    defines: Mapping[str, int | float | str | None] | None = None,
    source_name: str = "<source>",
    include_dirs: tuple[str, ...] = (),
    compiler: str | None = None,
    nvcc: str | None = None,
) -> CompiledKernel:
    """The file compiled as its own build does (nvcc with the host compiler, toolchain.py) or,
    where there is no host compiler, its host code blanked and NVRTC; the entry found, ptxas -v
    run; all cached. `compiler`: "auto", "nvcc" or "nvrtc" (None: $PERFCALC_COMPILER, else auto)."""
    tools = toolchain.route(compiler, nvcc)
    target = compile_target(arch)
    flags = [f"-D{name}" if value is None else f"-D{name}={value}" for name, value in sorted((defines or {}).items())]
    real = bool(source_name) and not source_name.startswith("<") and Path(source_name).is_file()
    folders = tuple(os.path.abspath(d) for d in include_dirs)
    if tools is None:
        return _nvrtc_kernel(source, kernel, arch, target, flags, source_name, real, folders)
    main = Path(source_name).resolve() if real else Path.cwd() / (Path(source_name).name or "kernel.cu")
    own = real and main.read_text(encoding="utf-8", errors="surrogateescape") == source
    if not main.name.endswith((".cu", ".cuh")):
        main = main.with_name(main.name.replace(":", "_") + ".cu")
    wanted = toolchain.CompileFlags(target, folders, tuple(flags))
    built = nvcc_build.cached_build(main, source, own, tools, wanted)
    if kernel and "<" in kernel and not _instantiated(built.ptx, kernel):
        # an instantiation the file itself never makes (a template named `k<64, float>`): asked
        # for at the end of the file, where no line before it moves
        asked = f"{source}\nstatic void *const __perfcalc_instance = (void *)&{kernel};\n"
        built = nvcc_build.cached_build(main, asked, False, tools, wanted)
    device = _device_source(source)
    defining, text = _defining_file(source, main, kernel, folders, built.ptx)
    module = _parsed(built.ptx, str(defining))
    chosen = kernel or _only_kernel(device, module)
    fn = find_entry(module, chosen)
    params = kernel_parameters(text, chosen)
    notes = nvcc_build.summary(built)
    shown = str(defining) if real or defining != main else ""  # a source given as text is its own
    return _compiled(chosen, built.ptx, module, fn, params, built.compiler, target, arch, shown, notes)


@dataclass(frozen=True)
class CompiledFile:
    """A whole file compiled: the route's name, its kernels as C++ names them (every entry of
    the PTX, templates as instantiated), the kernels its source defines, and what was done."""

    compiler: str
    kernels: tuple[str, ...]
    defined: tuple[str, ...]
    launched: tuple[str, ...]
    notes: tuple[str, ...]
    ptx: str


def compile_file(
    path: str,
    arch: Arch,
    include_dirs: tuple[str, ...] = (),
    defines: Mapping[str, str | None] | None = None,
    extra: tuple[str, ...] = (),
    compiler: str | None = None,
    nvcc: str | None = None,
) -> CompiledFile:
    """Compile every kernel of a file as its build does (benchmarks/corpus_compile.py, `perfcalc
    compile`): nvcc with the host compiler, or NVRTC with the launched templates named."""
    from perfcalc.files import read_text

    source = read_text(path, "--source", latin1_fallback=True)
    tools = toolchain.route(compiler, nvcc)
    target = compile_target(arch)
    flags = [f"-D{name}" if value is None else f"-D{name}={value}" for name, value in sorted((defines or {}).items())]
    folders = tuple(os.path.abspath(d) for d in include_dirs)
    device = _device_source(source)
    defined = device.kernels if device is not None else ()
    launched = device.launches if device is not None else ()
    if tools is not None:
        main = Path(path).resolve()
        wanted = toolchain.CompileFlags(target, folders, tuple(flags), extra)
        built = nvcc_build.cached_build(main, source, True, tools, wanted)
        ptx, name, notes = built.ptx, built.compiler, tuple(nvcc_build.summary(built))
    else:
        options = [f"--gpu-architecture={target}", "-lineinfo", "-std=c++17", "-default-device", *flags, *extra]
        options += [f"-I{d}" for d in (*folders, str(Path(path).resolve().parent), *nvrtc.include_dirs())]
        text = device.text if device is not None else source
        templates = [k for k in launched if "<" in k]
        compiled, notes = nvrtc_compile(text, str(Path(path)), options, templates, Path(path).resolve().parent, folders)
        ptx, name = compiled.ptx, compiled.compiler
    kernels = tuple(sorted(set(entry_names(_parsed(ptx)).values())))
    return CompiledFile(name, kernels, tuple(defined), tuple(launched), notes, ptx)


def _nvrtc_kernel(
    source: str,
    kernel: str | None,
    arch: Arch,
    target: str,
    flags: list[str],
    source_name: str,
    real: bool,
    folders: tuple[str, ...],
) -> CompiledKernel:
    """The NVRTC route: host code blanked (hoststrip.py), NVRTC -> PTX."""
    device = _device_source(source)
    kernel = choose_kernel(device, kernel) if device is not None else kernel
    if not kernel:
        raise InputError("name the kernel to run (--kernel NAME)")
    if device is not None:
        _check_named(kernel, device, source_name, real, folders)
    options = [f"--gpu-architecture={target}", "-lineinfo", "-std=c++17", "-default-device", *flags]
    # a real file keeps its path as the program's name, so NVRTC searches its folder for quoted
    # includes as nvcc does; every include folder is absolute, so the key names the folder meant
    # whatever the working directory (issue 36)
    here = [str(Path(source_name).resolve().parent)] if real else []
    options += [f"-I{d}" for d in (*folders, *here, *nvrtc.include_dirs())]
    text = device.text if device is not None else source
    name = source_name if real else (Path(source_name).name or "kernel.cu")
    folder = Path(source_name).resolve().parent if real else Path.cwd()
    compiled, notes = nvrtc_compile(text, name, options, [kernel], folder, folders)
    module = _parsed(compiled.ptx)
    fn = find_entry(module, kernel, compiled.lowered)
    main = Path(source_name).resolve() if real else Path(name)
    defining, defining_text = _defining_file(text, main, kernel, folders, compiled.ptx)
    if defining != main:  # the kernel's own file, its host code blanked as NVRTC compiled it
        defining_text = _device_text(defining_text)
    params = kernel_parameters(defining_text, kernel)
    module = _parsed(compiled.ptx, str(defining) if defining != main else None)
    return _compiled(kernel, compiled.ptx, module, fn, params, compiled.compiler, target, arch, str(defining), notes)


def _check_named(kernel: str, device: DeviceSource, source_name: str, real: bool, folders: tuple[str, ...]) -> None:
    """A kernel the file (and the user files it includes) does not define is refused naming
    the ones it does, the closest first, before NVRTC would answer with its own internals."""
    import difflib

    known = set(device.kernels)
    if base_name(kernel) in known:
        return
    folder = Path(source_name).resolve().parent if real else Path.cwd()
    for path in includes.dependencies(device.text, folder, [Path(d) for d in folders], [], {}).user:
        found = _device_source(Path(path).read_text(encoding="utf-8", errors="surrogateescape"))
        known |= set(found.kernels if found is not None else ())
    if base_name(kernel) in known:
        return
    close = difflib.get_close_matches(base_name(kernel), sorted(known), n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise CudaSyntaxError(
        f"no __global__ function '{kernel}' in the file (its kernels: {', '.join(sorted(known)) or 'none'}){hint}"
    )


_MISSING_HEADER = re.compile(r'cannot open source file "([^"]+)"')
MAX_STAND_INS = 12


def nvrtc_compile(
    text: str, name: str, options: list[str], names: list[str], folder: Path, folders: tuple[str, ...]
) -> tuple[nvrtc.Compiled, tuple[str, ...]]:
    """NVRTC on the device text, with what it lacks supplied: the C library's device names
    pre-included, the user's own headers with their host code blanked (in memory, under the
    names the file includes them by), and an empty stand-in for each header that is not there
    (a host library's); notes say which headers were stood in."""
    headers = dict(HOST_HEADERS)
    deps = includes.dependencies(text, folder, [Path(d) for d in folders], [], {})
    for spelling, path in deps.spelled.items():
        headers[spelling] = _device_text(Path(path).read_text(encoding="utf-8", errors="surrogateescape"))
    options = [*options, f"-include={CLIB_HEADER}"]
    stood_in: list[str] = []
    for _ in range(MAX_STAND_INS):
        try:
            return compile_cached(text, name, options, names, headers), _stand_in_note(stood_in)
        except CudaSyntaxError as exc:
            missing = _MISSING_HEADER.search(str(exc))
            if missing is None or missing.group(1) in headers:
                raise
            headers[missing.group(1)] = ""
            stood_in.append(missing.group(1))
    return compile_cached(text, name, options, names, headers), _stand_in_note(stood_in)


def _stand_in_note(stood_in: list[str]) -> tuple[str, ...]:
    return (f"headers not installed here, stood in by empty ones: {', '.join(stood_in)}",) if stood_in else ()


def _device_text(text: str) -> str:
    found = _device_source(text)
    return text if found is None else found.text


def _compiled(
    kernel: str,
    ptx: str,
    module: Module,
    fn: Function,
    params: list[tuple[str, str]],
    compiler: str,
    target: str,
    arch: Arch,
    source_file: str,
    notes: tuple[str, ...] | list[str],
) -> CompiledKernel:
    if len(params) != len(fn.params):
        raise CudaSyntaxError(
            f"kernel '{kernel}' has {len(params)} parameters in the source but {len(fn.params)} in the compiled PTX"
        )
    sm = sm_target(arch.cc_number)
    log = resource_log(ptx, sm, CACHE_KIND)
    own = fn.source_file or source_file  # a header's, where the PTX holds none of the file's lines
    return CompiledKernel(kernel, module, fn, params, compiler, target, log, sm, own, tuple(notes))


def _instantiated(ptx: str, kernel: str) -> bool:
    try:
        find_entry(_parsed(ptx), kernel)
    except CudaSyntaxError:
        return False
    return True


def _only_kernel(device: DeviceSource | None, module: Module) -> str:
    """The kernel to run when none is named: the compiled file's only entry (its one
    instantiation of a template, or a kernel in an included file); several: the file's only
    kernel by name, or an error listing them."""
    names = sorted(set(entry_names(module).values()))
    if len(names) > 1 and device is not None and len(device.kernels) == 1:
        return device.kernels[0]  # find_entry lists the instantiations where there are several
    if len(names) == 1:
        return names[0]
    if not names:
        raise CudaSyntaxError("the file defines no __global__ function")
    raise CudaSyntaxError(f"the file compiles {len(names)} kernels ({', '.join(names)}): name one with --kernel")


def _defining_file(source: str, main: Path, kernel: str | None, folders: tuple[str, ...], ptx: str) -> tuple[Path, str]:
    """The file that defines the kernel and its text: the main file, or a user file it includes
    (a Rodinia-style main.cu that #includes kernel.cu)."""
    if kernel is None or defines_kernel(source, kernel):
        return main, source
    deps = includes.dependencies(source, main.parent, [Path(d) for d in folders], [], {})
    for path in deps.user:
        text = Path(path).read_text(encoding="utf-8", errors="surrogateescape")
        if defines_kernel(text, kernel):
            return Path(path), text
    return main, source


@functools.lru_cache(maxsize=32)
def _device_source(source: str) -> DeviceSource | None:
    """The file with host code blanked; None (compile as given) without tree-sitter (once per
    text in a process: a DeviceSource is frozen)."""
    try:
        return strip_host(source)
    except ParserUnavailable:
        return None


def program_kernels(units: list[tuple[str, str]], arch: Arch, compiler: str) -> dict[str, CompiledKernel]:
    """Every kernel of a built program by its PTX entry name (the name its launches carry): each
    file's PTX parsed once, with ptxas's report for its registers (app/, issue 31)."""
    sm = sm_target(arch.cc_number)
    found: dict[str, CompiledKernel] = {}
    for path, ptx in units:
        module = parse_program(ptx, path)
        log = resource_log(ptx, sm, CACHE_KIND)
        target = module.target or sm
        names = entry_names(module)
        for fn in module.functions.values():
            if fn.is_entry:
                own = fn.source_file or path  # a header's, where the PTX holds none of the file's lines
                found[fn.name] = CompiledKernel(names[fn.name], module, fn, [], compiler, target, log, sm, own, ())
    return found
