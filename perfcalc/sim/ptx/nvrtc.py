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

from perfcalc.errors import CudaSyntaxError, InputError, PerfcalcError
from perfcalc.sim.ptx import nvrtc_child

PACKAGE = "nvidia-cuda-nvrtc"


class CompilerUnavailable(PerfcalcError, RuntimeError):
    """NVRTC is not installed (or is the empty placeholder), so the PTX engine cannot run."""


class CompileLimit(InputError):
    """A compile ran past its time or memory limit: the source is too big, not wrong."""


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
def library_path() -> str:
    """The path of the first loadable libnvrtc; CompilerUnavailable naming the package when
    there is none (the compile child is given this path: it searches nothing itself)."""
    if os.environ.get("PERFCALC_NO_NVRTC"):
        raise CompilerUnavailable(
            f"the PTX engine needs NVIDIA's runtime compiler (pip install {PACKAGE}); it is "
            f"switched off here (PERFCALC_NO_NVRTC is set)"
        )
    override = os.environ.get("PERFCALC_NVRTC")
    for path in _candidates():
        try:
            nvrtc_child.load(str(path))
        except (OSError, AttributeError):
            if override and str(path) == override:  # a variable the user set is checked like an option
                raise CompilerUnavailable(
                    f"PERFCALC_NVRTC={override[:200]!r} is not a loadable NVRTC library "
                    f"(libnvrtc.so*); point it at one or unset it"
                ) from None
            continue
        return str(path)
    raise CompilerUnavailable(
        f"the PTX engine needs NVIDIA's runtime compiler: pip install {PACKAGE} (Linux and "
        f"Windows; on macOS only an empty placeholder exists, use --engine source)"
    )


@cache
def library() -> ctypes.CDLL:
    """The loaded libnvrtc, its signatures declared."""
    return nvrtc_child.load(library_path())


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
    """Compile `source` (host code already removed) with NVRTC in this process; `headers` are
    in-memory files `#include` finds by name. Errors become CudaSyntaxError carrying NVRTC's own
    first error (file, line and message)."""
    lib = library()
    try:
        out = nvrtc_child.compile_program(lib, source, name, options, name_expressions, headers or {})
    except nvrtc_child.NvrtcFailure as exc:
        raise CudaSyntaxError(str(exc)) from None
    return Compiled(out["ptx"], out["lowered"], out["log"], f"NVRTC {version()}", tuple(options))


# A compile's own limits, so a macro bomb, a 10**6-iteration `#pragma unroll` or an `#include`
# of a FIFO inside NVRTC cannot hang or exhaust the machine (issue 36). --max-seconds lowers
# the time; the address-space cap is generous for real files (the largest HeCBench compile
# measured peaks far below it) and is what ends a preprocessor that expands without end.
COMPILE_SECONDS = 300.0
COMPILE_BYTES = 8 << 30


def child_command() -> list[str]:
    """The compile child: this interpreter in isolated mode (`-I`: no working directory, no
    PYTHONPATH, no user site-packages on its path) running the stdlib-only nvrtc_child.py."""
    import sys

    return [sys.executable, "-I", str(Path(nvrtc_child.__file__))]


def compile_isolated(
    source: str,
    name: str,
    options: list[str],
    name_expressions: list[str],
    headers: dict[str, str] | None = None,
    max_seconds: float | None = None,
    max_bytes: int = COMPILE_BYTES,
) -> Compiled:
    """`compile_to_ptx` in a child process. NVRTC is NVIDIA's C++ compiler inside our process:
    on some malformed sources it crashes with SIGSEGV (found by the fuzzing suite on a mutated
    template functor), which would take perfcalc down with no message. In a child, a crash is
    one error line naming the signal, and the compile is bounded in time and memory; the cost
    is a process start per compilation, and compilations are cached (run.compile_cached)."""
    import json
    import signal
    import subprocess

    seconds = COMPILE_SECONDS if max_seconds is None else max(float(max_seconds), 0.001)
    request = json.dumps(
        {
            "library": library_path(),
            "source": source,
            "name": name,
            "options": options,
            "names": name_expressions,
            "headers": headers or {},
            "max_bytes": max_bytes,
        }
    )
    try:
        proc = subprocess.run(
            child_command(), input=request, capture_output=True, text=True, check=False, timeout=seconds
        )
    except subprocess.TimeoutExpired:
        raise CompileLimit(
            f"NVRTC {version()} did not finish compiling {name} within {seconds:g} s (the compile's time "
            "limit; --max-seconds raises it): the source expands to more than the compiler can finish"
        ) from None
    if proc.returncode < 0:
        signame = signal.Signals(-proc.returncode).name
        raise CudaSyntaxError(
            f"NVRTC {version()} crashed ({signame}) compiling {name}: NVIDIA's "
            "compiler failed on this source; check it with nvcc"
        )
    try:
        reply = json.loads(proc.stdout)
    except ValueError:
        reply = None
    text = f"{proc.stderr} {reply.get('error', '') if isinstance(reply, dict) else ''}"
    if (isinstance(reply, dict) and reply.get("memory")) or any(
        sign in text for sign in ("MemoryError", "bad_alloc", "out of memory")
    ):
        raise CompileLimit(
            f"NVRTC {version()} ran out of its {max_bytes >> 20} MiB memory limit compiling {name}: "
            "the source expands to more than the compiler can hold"
        )
    if not isinstance(reply, dict):
        raise CudaSyntaxError(
            f"NVRTC {version()} failed compiling {name} (exit {proc.returncode}): {proc.stderr.strip()[-200:]}"
        )
    if "error" in reply:
        raise CudaSyntaxError(str(reply["error"]))
    return Compiled(reply["ptx"], reply["lowered"], reply["log"], f"NVRTC {reply['version']}", tuple(options))
