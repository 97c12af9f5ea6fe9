"""Compile a .cu file as its own build does: nvcc with the host compiler, the file's -I and -D,
its host code and headers as they are (issue 30).

Only the device code matters here, so what stops a compile in host code is worked around, one
step at a time, and said:
- a header that is not installed (cuBLAS's, MPI's, a profiler's) gets an empty stand-in; if the
  device code then needs a name from it, the compile is refused naming the header and the name;
- an error inside a host function (an API removed in CUDA 13, a name from a stood-in header) blanks
  the statement holding it, in a private copy of the file (so the launches and template calls
  beside it still instantiate their kernels), and the function's whole body where statements
  alone do not get there; every kernel template a blanked launch names stays instantiated
  (`(void)&k<T>;` stays where the launch was); a host declaration at file scope that fails is
  blanked whole.
What is left is device code nvcc cannot compile: refused by name (texture references, ...), or
with nvcc's own first error. The copies keep every line where it was, so line numbers, and the
PTX's `.file` names (mapped back), are the user's.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from perfcalc.errors import CudaSyntaxError, InputError
from perfcalc.sim.ptx.toolchain import CompileFlags, Toolchain, run_bounded

MAX_ATTEMPTS = 30
NARROW_MENDS = 40  # statements blanked one by one before whole function bodies are
COMPILE_SECONDS = 300.0
COMPILE_BYTES = 8 << 30
_MISSING = re.compile(r'(?:fatal error: ([^\s:]+): No such file or directory|cannot open source file "([^"]+)")')
_ERROR = re.compile(r"^(.*?)\((\d+)\): (?:error|catastrophic error): (.*)$", re.M)
_GCC_ERROR = re.compile(r"^(.*?):(\d+):\d+: (?:fatal )?error: (.*)$", re.M)
_UNDEFINED = re.compile(r'identifier "([^"]+)" is undefined')
_DEVICE = re.compile(r"\b(__global__|__device__)\b")
_DEVICE_VAR = re.compile(r"\b(__device__|__constant__|__shared__|__managed__)\b")

# Pre-included in every nvcc build: what CUDA 13 removed that old programs still use, as it was
# defined before (the cudaThread* runtime calls are the cudaDevice* ones they were renamed to;
# the warp intrinsics without _sync were the _sync ones over the full warp, as CUDA 9-12 defined
# them for sm_6x). Issue 30: "host APIs removed in CUDA 13 ... stop whole files".
COMPAT = """#pragma once
#include <cuda_runtime.h>
#if defined(CUDART_VERSION) && CUDART_VERSION >= 13000 && defined(__cplusplus)
static inline cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }
static inline cudaError_t cudaThreadExit(void) { return cudaDeviceReset(); }
static inline cudaError_t cudaThreadSetLimit(cudaLimit l, size_t v) { return cudaDeviceSetLimit(l, v); }
static inline cudaError_t cudaThreadGetLimit(size_t *v, cudaLimit l) { return cudaDeviceGetLimit(v, l); }
static inline cudaError_t cudaThreadSetCacheConfig(cudaFuncCache c) { return cudaDeviceSetCacheConfig(c); }
static inline cudaError_t cudaThreadGetCacheConfig(cudaFuncCache *c) { return cudaDeviceGetCacheConfig(c); }
#endif
#if defined(__CUDACC__)
template <typename T> static __device__ inline T __shfl(T v, int lane, int width = 32)
{ return __shfl_sync(0xffffffffu, v, lane, width); }
template <typename T> static __device__ inline T __shfl_up(T v, unsigned delta, int width = 32)
{ return __shfl_up_sync(0xffffffffu, v, delta, width); }
template <typename T> static __device__ inline T __shfl_down(T v, unsigned delta, int width = 32)
{ return __shfl_down_sync(0xffffffffu, v, delta, width); }
template <typename T> static __device__ inline T __shfl_xor(T v, int mask, int width = 32)
{ return __shfl_xor_sync(0xffffffffu, v, mask, width); }
static __device__ inline int __any(int p) { return __any_sync(0xffffffffu, p); }
static __device__ inline int __all(int p) { return __all_sync(0xffffffffu, p); }
static __device__ inline unsigned __ballot(int p) { return __ballot_sync(0xffffffffu, p); }
#endif
"""

# device-side constructs nvcc 13 no longer compiles, refused by name
REMOVED = (
    (re.compile(r"texture is not a template|\btexture<|tex[123]D(?:fetch)?\b.*undefined"), "texture references"),
    (re.compile(r"surface is not a template|\bsurface<"), "surface references"),
)


class CompileLimit(InputError):
    """The compile ran past its time or memory limit."""


@dataclass(frozen=True)
class Built:
    """The PTX of a whole file and what was done to get it."""

    ptx: str
    compiler: str
    stubbed: tuple[str, ...] = ()  # headers given empty stand-ins
    blanked: tuple[str, ...] = ()  # host code blanked: "file:line name"


@dataclass
class _Work:
    """One build's private folder: copies of the files changed, stand-in headers."""

    root: Path
    copies: dict[Path, str] = field(default_factory=dict)  # original path -> changed text
    stubs: list[str] = field(default_factory=list)
    blanked: list[str] = field(default_factory=list)
    spans: dict[Path, set[tuple[int, int]]] = field(default_factory=dict)

    @property
    def shadow(self) -> Path:
        return self.root / "shadow"

    @property
    def stub_dir(self) -> Path:
        return self.root / "stubs"

    def copy_of(self, original: Path) -> Path:
        return self.shadow / str(original).lstrip("/")

    def original(self, named: str, cwd: Path) -> Path:
        """The user's file behind a path in a compiler message (a copy's, or its own; a relative
        one is relative to the folder nvcc ran in)."""
        text = named.strip()
        prefix = str(self.shadow)
        if text.startswith(prefix):
            return Path("/" + text[len(prefix) :].lstrip("/"))
        path = Path(text)
        return path if path.is_absolute() else Path(os.path.normpath(cwd / path))

    def write(self) -> None:
        for original, text in self.copies.items():
            path = self.copy_of(original)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", errors="surrogateescape")


def build(
    main: Path,
    text: str | None,
    tools: Toolchain,
    flags: CompileFlags,
    max_seconds: float | None = None,
) -> Built:
    """The whole file's PTX for `flags.target` (compute_XY); `text` replaces the file's own text
    (a catalog kernel, or a source given as text, compiled as if it were `main`)."""
    main = main.resolve() if main.exists() else main.absolute()
    root = Path(tempfile.mkdtemp(prefix="perfcalc-nvcc-"))
    work = _Work(root)
    if text is not None or not main.is_file():
        work.copies[main] = text if text is not None else ""
    try:
        for _attempt in range(MAX_ATTEMPTS):
            work.write()
            done = _compile(work, main, tools, flags, max_seconds)
            log = done.stdout + done.stderr
            if done.returncode == 0:
                ptx = (root / "out.ptx").read_text(errors="replace").replace(str(work.shadow), "")
                return Built(ptx, tools.name, tuple(work.stubs), tuple(work.blanked))
            if not _mend(work, log, main):
                raise CudaSyntaxError(_refusal(work, log, main))
        raise CudaSyntaxError(f"nvcc could not compile {main.name}: still failing after {MAX_ATTEMPTS} mends")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _compile(
    work: _Work,
    main: Path,
    tools: Toolchain,
    flags: CompileFlags,
    max_seconds: float | None,
) -> subprocess.CompletedProcess[str]:
    compiled = work.copy_of(main) if main in work.copies else main
    folders = [str(Path(d)) for d in flags.include_dirs]
    own = sorted({str(p.parent) for p in work.copies} | {str(main.parent)})
    includes = [f"-I{work.copy_of(Path(d))}" for d in folders] + [f"-I{d}" for d in [*folders, *own]]
    if work.stubs:
        includes.append(f"-I{work.stub_dir}")
    compat = work.root / "perfcalc_cuda_compat.h"
    if not compat.exists():
        compat.write_text(COMPAT)
    std = [] if any(e.startswith(("-std", "--std")) for e in flags.extra) else ["-std=c++17"]
    command = [
        str(tools.nvcc),
        "-ptx",
        f"-arch={flags.target}",
        "-lineinfo",
        "-ccbin",
        str(tools.host),
        *std,
        *flags.extra,
        *includes,
        *flags.defines,
        "-include",
        str(compat),
        str(compiled),
        "-o",
        str(work.root / "out.ptx"),
    ]
    seconds = COMPILE_SECONDS if max_seconds is None else max(max_seconds, 0.001)
    try:
        return run_bounded(command, seconds, COMPILE_BYTES, cwd=str(main.parent) if main.parent.is_dir() else None)
    except subprocess.TimeoutExpired:
        raise CompileLimit(
            f"nvcc did not finish compiling {main.name} within {seconds:g} s (the compile's time limit; "
            "--max-seconds raises it)"
        ) from None


def _mend(work: _Work, log: str, main: Path) -> bool:
    """One round of stand-ins and blanking for the errors in `log`; False when nothing could
    be mended (the errors are in device code)."""
    mended = False
    for m in _MISSING.finditer(log):
        name = m.group(1) or m.group(2)
        if name and name not in work.stubs and ".." not in Path(name).parts and not name.startswith("/"):
            path = work.stub_dir / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("#pragma once\n// perfcalc: a stand-in for a header that is not installed\n")
            work.stubs.append(name)
            mended = True
    if mended:
        return True
    for named, line in _error_places(log):
        original = work.original(named, main.parent)
        if not original.is_file() and original not in work.copies:
            continue
        if _blank_host_code(work, original, line):
            mended = True
    if mended and main.is_file() and main not in work.copies:
        # compiled from its copy too, so that its `#include "dir/header.h"` (looked up beside the
        # including file before any -I) finds the changed copy of a header, not the original
        work.copies[main] = main.read_text(encoding="utf-8", errors="surrogateescape")
    return mended


def _error_places(log: str) -> list[tuple[str, int]]:
    found = [(m.group(1), int(m.group(2))) for m in _ERROR.finditer(log)]
    found += [(m.group(1), int(m.group(2))) for m in _GCC_ERROR.finditer(log)]
    return list(dict.fromkeys(found))


def _blank_host_code(work: _Work, original: Path, line: int) -> bool:
    """Blank the host statement holding `line` in the file's copy (its function's body where
    statements have not been enough, or a host declaration at file scope)."""
    from perfcalc.sim.ptx.hoststrip import host_span_at

    text = work.copies.get(original)
    if text is None:
        text = original.read_text(encoding="utf-8", errors="surrogateescape")
    lines = text.splitlines()
    if 0 < line <= len(lines) and not lines[line - 1].strip():
        return False  # blanked by an earlier error of this round (one statement, two errors)
    data = text.encode("utf-8", errors="surrogateescape")
    done = work.spans.get(original, set())
    span = None
    for whole_body in (False, True) if len(work.blanked) < NARROW_MENDS else (True,):
        found = host_span_at(text, line, whole_body)
        if found is not None and data[found[0] : found[1]].strip() and found[:2] not in done:
            span = found
            break
    if span is None:
        return False  # nothing there to blank, or blanked already for an earlier error
    start, end, name, kept = span
    work.spans.setdefault(original, set()).add((start, end))
    middle = bytes(b if b in (10, 13) else 32 for b in data[start:end])
    if kept:  # the kernel templates the blanked launches named, still instantiated here (no
        # newline added: every line stays where it was)
        middle = " ".join(f"(void)&{k};" for k in kept).encode() + middle
    work.copies[original] = (data[:start] + middle + data[end:]).decode("utf-8", errors="surrogateescape")
    work.blanked.append(f"{original.name}:{line} {name}")
    return True


def _refusal(work: _Work, log: str, main: Path) -> str:
    """The one line that says why the device code does not compile."""
    errors = [m.group(3).strip() for m in _ERROR.finditer(log)] + [m.group(3).strip() for m in _GCC_ERROR.finditer(log)]
    places = _error_places(log)
    where = f"{work.original(places[0][0], main.parent).name}:{places[0][1]}" if places else main.name
    first = errors[0] if errors else (log.strip().splitlines() or ["no message"])[-1][:300]
    for pattern, construct in REMOVED:
        if pattern.search(log):
            return f"{where}: {construct} are not supported by CUDA 13's nvcc (nor by perfcalc): {first}"
    undefined = _UNDEFINED.search(first)
    if undefined and work.stubs:
        return (
            f"{where}: the device code needs '{undefined.group(1)}', which would come from a header that is not "
            f"installed here ({', '.join(work.stubs)}); install it, or compile without that code"
        )
    if work.stubs:  # the error may come from what the missing header would have declared
        return (
            f"nvcc could not compile {main.name} with headers not installed here stood in by empty ones "
            f"({', '.join(work.stubs)}): {where}: {first}; install them, or compile without the code that uses them"
        )
    return f"nvcc could not compile {main.name}: {where}: {first}"


def summary(built: Built) -> list[str]:
    """Notes on what was done to compile the file (for the run's notes)."""
    notes = []
    if built.stubbed:
        notes.append(f"headers not installed here, stood in by empty ones: {', '.join(built.stubbed)}")
    if built.blanked:
        notes.append(f"host code blanked (it plays no part in the device code): {', '.join(built.blanked)}")
    return notes


CACHE_FORMAT = "perfcalc-nvcc-7"


def _is_built(value: object) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("ptx"), str)
        and isinstance(value.get("compiler"), str)
        and all(_strings(value.get(k)) for k in ("stubbed", "blanked"))
    )


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


_BUILT: dict[str, Built] = {}


def cached_build(
    main: Path,
    text: str,
    own_text: bool,
    tools: Toolchain,
    flags: CompileFlags,
    max_seconds: float | None = None,
) -> Built:
    """`build`, cached on disk under a key of everything the compile reads: the tools and their
    versions, the target, the file's path and text, the flags, and every file the preprocessor
    can reach from it (includes.py; a file whose includes cannot all be followed is built every
    time). `own_text` False: `text` stands in for the file (see `build`)."""
    import json

    from perfcalc import diskcache
    from perfcalc.sim.ptx import includes
    from perfcalc.sim.ptx.ptxas import remember

    system = [tools.include_dir, tools.include_dir / "cccl"]
    user = [Path(d) for d in flags.include_dirs]
    folder = main.parent if main.parent.is_dir() else Path.cwd()
    deps = includes.dependencies(text, folder, user, system, flags.named_defines())
    key = diskcache.digest(
        json.dumps(
            [CACHE_FORMAT, tools.name, str(tools.nvcc), str(tools.host), flags.target, str(main), own_text, text]
            + [list(flags.include_dirs), list(flags.defines), list(flags.extra), deps.fingerprint()]
        ).encode()
    )
    if deps.complete:
        seen = _BUILT.get(key)
        if seen is not None:
            return seen
        data = diskcache.read("ptx", key, _is_built)
        if data is not None:
            found = Built(data["ptx"], data["compiler"], tuple(data["stubbed"]), tuple(data["blanked"]))
            return remember(_BUILT, key, found)
    built = build(main, None if own_text else text, tools, flags, max_seconds)
    if deps.complete:
        payload = {"ptx": built.ptx, "compiler": built.compiler}
        diskcache.write("ptx", key, {**payload, "stubbed": list(built.stubbed), "blanked": list(built.blanked)})
        remember(_BUILT, key, built)
    return built
