"""NVIDIA's runtime compiler (NVRTC) through ctypes: CUDA C++ -> PTX with line information.

Why ctypes on the pip wheel's library and not `cuda-bindings`: the wheel `nvidia-cuda-nvrtc`
(CUDA 13 line) is all that is needed, it runs without a GPU or a driver, and the six C functions
used here are stable across CUDA 12 and 13. On macOS pip installs an empty placeholder of the
same name; `find_library` then finds no shared library and says so (reference/ptx-engine.md 2).
"""

from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from perfcalc.errors import CudaSyntaxError, PerfcalcError

PACKAGE = "nvidia-cuda-nvrtc"


class CompilerUnavailable(PerfcalcError, RuntimeError):
    """NVRTC is not installed (or is the empty placeholder), so the PTX engine cannot run."""


def _candidates() -> list[Path]:
    found: list[Path] = []
    override = os.environ.get("PERFCALC_NVRTC")
    if override:
        found.append(Path(override))
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        for sub in ("cu13/lib", "cuda_nvrtc/lib", "cu12/lib"):
            folder = Path(root) / sub
            if folder.is_dir():
                found.extend(sorted(folder.glob("libnvrtc.so*"), reverse=True))
                found.extend(sorted(folder.glob("nvrtc64*.dll"), reverse=True))
    return [p for p in found if "builtins" not in p.name]


@cache
def library() -> ctypes.CDLL:
    """The loaded libnvrtc; CompilerUnavailable naming the package when there is none."""
    if os.environ.get("PERFCALC_NO_NVRTC"):
        raise CompilerUnavailable(
            f"the PTX engine needs NVIDIA's runtime compiler (pip install {PACKAGE}); it is "
            f"switched off here (PERFCALC_NO_NVRTC is set)"
        )
    for path in _candidates():
        try:
            lib = ctypes.CDLL(str(path))
        except OSError:
            continue
        _declare(lib)
        return lib
    raise CompilerUnavailable(
        f"the PTX engine needs NVIDIA's runtime compiler: pip install {PACKAGE} (Linux and "
        f"Windows; on macOS only an empty placeholder exists, use --engine source)"
    )


def _declare(lib: ctypes.CDLL) -> None:
    c = ctypes
    lib.nvrtcCreateProgram.argtypes = [
        c.POINTER(c.c_void_p),
        c.c_char_p,
        c.c_char_p,
        c.c_int,
        c.POINTER(c.c_char_p),
        c.POINTER(c.c_char_p),
    ]
    lib.nvrtcCompileProgram.argtypes = [c.c_void_p, c.c_int, c.POINTER(c.c_char_p)]
    lib.nvrtcGetPTXSize.argtypes = [c.c_void_p, c.POINTER(c.c_size_t)]
    lib.nvrtcGetPTX.argtypes = [c.c_void_p, c.c_char_p]
    lib.nvrtcGetProgramLogSize.argtypes = [c.c_void_p, c.POINTER(c.c_size_t)]
    lib.nvrtcGetProgramLog.argtypes = [c.c_void_p, c.c_char_p]
    lib.nvrtcAddNameExpression.argtypes = [c.c_void_p, c.c_char_p]
    lib.nvrtcGetLoweredName.argtypes = [c.c_void_p, c.c_char_p, c.POINTER(c.c_char_p)]
    lib.nvrtcDestroyProgram.argtypes = [c.POINTER(c.c_void_p)]
    lib.nvrtcVersion.argtypes = [c.POINTER(c.c_int), c.POINTER(c.c_int)]


@functools.cache
def include_dirs() -> tuple[str, ...]:
    """CUDA's own headers (cuda_runtime.h, cooperative_groups.h, cuda_fp16.h, cuda/std, cub)
    from NVIDIA's runtime, crt and cccl wheels, where installed (looked up once per process)."""
    found = []
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        for sub in ("cu13/include", "cu13/include/cccl", "cuda_runtime/include", "cuda_cccl/include"):
            folder = Path(root) / sub
            if (folder / "cuda_runtime.h").is_file() or (folder / "cuda").is_dir():
                found.append(str(folder))
    return tuple(found)


def version() -> str:
    """'13.5' for the loaded library."""
    major, minor = ctypes.c_int(), ctypes.c_int()
    library().nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    return f"{major.value}.{minor.value}"


def available() -> bool:
    try:
        library()
    except CompilerUnavailable:
        return False
    return True


@dataclass(frozen=True)
class Compiled:
    """PTX of one program and the mangled ('lowered') name of each requested name expression."""

    ptx: str
    lowered: dict[str, str]
    log: str
    compiler: str
    options: tuple[str, ...]


def compile_to_ptx(
    source: str, name: str, options: list[str], name_expressions: list[str], headers: dict[str, str] | None = None
) -> Compiled:
    """Compile `source` (host code already removed) with NVRTC; `headers` are in-memory files
    `#include` finds by name. Errors become CudaSyntaxError carrying NVRTC's own first error
    (file, line and message)."""
    lib = library()
    prog = ctypes.c_void_p()
    headers = headers or {}
    count = len(headers)
    contents = (ctypes.c_char_p * max(count, 1))(*(v.encode() for v in headers.values()))
    names = (ctypes.c_char_p * max(count, 1))(*(k.encode() for k in headers))
    _check(
        lib,
        lib.nvrtcCreateProgram(
            ctypes.byref(prog),
            source.encode(),
            name.encode(),
            count,
            contents if count else None,
            names if count else None,
        ),
        "nvrtcCreateProgram",
    )
    try:
        for expr in name_expressions:
            _check(lib, lib.nvrtcAddNameExpression(prog, expr.encode()), "nvrtcAddNameExpression")
        opts = (ctypes.c_char_p * len(options))(*(o.encode() for o in options))
        status = lib.nvrtcCompileProgram(prog, len(options), opts)
        log = _log(lib, prog)
        if status != 0:
            first = next((ln for ln in log.splitlines() if "error" in ln), log.strip()[:300])
            raise CudaSyntaxError(f"NVRTC {version()} could not compile {name}: {first.strip()}")
        size = ctypes.c_size_t()
        lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetPTX(prog, buf)
        lowered = {}
        for expr in name_expressions:
            out = ctypes.c_char_p()
            if lib.nvrtcGetLoweredName(prog, expr.encode(), ctypes.byref(out)) == 0 and out.value:
                lowered[expr] = out.value.decode()
        return Compiled(buf.value.decode(), lowered, log, f"NVRTC {version()}", tuple(options))
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def _log(lib: ctypes.CDLL, prog: ctypes.c_void_p) -> str:
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    buf = ctypes.create_string_buffer(max(size.value, 1))
    lib.nvrtcGetProgramLog(prog, buf)
    return buf.value.decode(errors="replace")


def _check(lib: ctypes.CDLL, status: int, what: str) -> None:
    if status != 0:
        raise CudaSyntaxError(f"NVRTC {what} failed with status {status}")


def compile_isolated(
    source: str, name: str, options: list[str], name_expressions: list[str], headers: dict[str, str] | None = None
) -> Compiled:
    """`compile_to_ptx` in a child process. NVRTC is NVIDIA's C++ compiler inside our process:
    on some malformed sources it crashes with SIGSEGV (found by the fuzzing suite on a mutated
    template functor), which would take perfcalc down with no message. In a child, a crash is
    one error line naming the signal; the cost is a process start per compilation, and
    compilations are cached (run.compile_cached)."""
    import json
    import signal
    import subprocess
    import sys

    request = json.dumps(
        {"source": source, "name": name, "options": options, "names": name_expressions, "headers": headers or {}}
    )
    proc = subprocess.run([sys.executable, "-c", _CHILD], input=request, capture_output=True, text=True, check=False)
    if proc.returncode < 0:
        signame = signal.Signals(-proc.returncode).name
        raise CudaSyntaxError(
            f"NVRTC {version()} crashed ({signame}) compiling {name}: NVIDIA's "
            "compiler failed on this source; check it with nvcc"
        )
    try:
        reply = json.loads(proc.stdout)
    except ValueError:
        raise CudaSyntaxError(
            f"NVRTC {version()} failed compiling {name} (exit {proc.returncode}): {proc.stderr.strip()[-200:]}"
        ) from None
    if "error" in reply:
        error = CompilerUnavailable if reply.get("unavailable") else CudaSyntaxError
        raise error(reply["error"])
    return Compiled(reply["ptx"], reply["lowered"], reply["log"], reply["compiler"], tuple(reply["options"]))


_CHILD = """
import json, sys
from perfcalc.sim.ptx import nvrtc
r = json.loads(sys.stdin.read())
try:
    c = nvrtc.compile_to_ptx(r["source"], r["name"], r["options"], r["names"], r["headers"])
    out = {"ptx": c.ptx, "lowered": c.lowered, "log": c.log, "compiler": c.compiler,
           "options": list(c.options)}
except nvrtc.CompilerUnavailable as exc:
    out = {"error": str(exc), "unavailable": True}
except Exception as exc:
    out = {"error": str(exc)}
sys.stdout.write(json.dumps(out))
"""
