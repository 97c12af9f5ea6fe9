"""Which compiler turns a .cu file into PTX: NVIDIA's nvcc with a host C++ compiler (the way the
file's own build compiles it), or NVRTC where no host compiler is installed.

Why nvcc first (issue 30): NVRTC has no host headers, so a file's `#include <sys/time.h>`, its
C library macros and the host code around its kernels had to be guessed away; 22 of the first 54
HeCBench files compiled that way, against 52 of 54 with nvcc as the Makefiles call it. nvcc comes
from the nvidia-cuda-nvcc wheel (the `cuda` extra, already there for ptxas) or from the user's own
toolkit (`--nvcc PATH`, `$PERFCALC_NVCC`, or `$CUDA_HOME/bin/nvcc`); the host compiler is `$CXX`,
else g++, clang++ or c++ on PATH, as nvcc itself would look for it.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from perfcalc.errors import InputError

ROUTES = ("auto", "nvcc", "nvrtc")
NVCC_ENV = "PERFCALC_NVCC"
ROUTE_ENV = "PERFCALC_COMPILER"


@dataclass(frozen=True)
class CompileFlags:
    """What one compile is asked for besides its files: the target (compute_XY), the include
    folders, the `-D` options and the nvcc options of the user's own build; all of them are part
    of every cache key."""

    target: str
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()

    def named_defines(self) -> dict[str, str]:
        """The `-D` options as the preprocessor sees them: -DN=V is V, -DN is 1, -DN= is empty."""
        named = {}
        for d in self.defines:
            name, eq, value = d[2:].partition("=")
            named[name] = value if eq else "1"
        return named


@dataclass(frozen=True)
class Toolchain:
    """nvcc, the host compiler it drives, and their versions (part of every cache key)."""

    nvcc: Path
    host: Path
    nvcc_version: str  # "13.0"
    host_version: str  # "g++ 12.2.0"

    @property
    def name(self) -> str:
        return f"nvcc {self.nvcc_version} ({self.host_version})"

    @property
    def include_dir(self) -> Path:
        """CUDA's own headers beside this nvcc (bin/../include)."""
        return self.nvcc.parent.parent / "include"


def _executable(path: Path) -> bool:
    try:
        return path.is_file() and os.access(path, os.X_OK)
    except (OSError, ValueError):
        return False


def _checked_env(name: str) -> str | None:
    value = os.environ.get(name)
    if value is None:
        return None
    if not value or "\0" in value or len(value) > 4096:
        raise InputError(f"{name} is empty or not a path; give the path of an executable or unset it")
    return value


def nvcc_path(override: str | None = None) -> Path | None:
    """--nvcc, else $PERFCALC_NVCC, else $CUDA_HOME/bin/nvcc, else the nvidia-cuda-nvcc wheel's."""
    chosen = override if override is not None else _checked_env(NVCC_ENV)
    if chosen is not None:
        path = Path(chosen)
        if path.is_dir():
            path = path / "bin" / "nvcc"
        if not _executable(path):
            raise InputError(f"nvcc {chosen[:200]!r} is not an executable file (--nvcc or ${NVCC_ENV})")
        return path
    home = os.environ.get("CUDA_HOME")
    if home and _executable(Path(home) / "bin" / "nvcc"):
        return Path(home) / "bin" / "nvcc"
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        for sub in ("cu13/bin/nvcc", "cuda_nvcc/bin/nvcc", "cu12/bin/nvcc"):
            candidate = Path(root) / sub
            if _executable(candidate):
                return candidate
    return None


def host_compiler() -> Path | None:
    """$CXX (checked like an option), else g++, clang++ or c++ on PATH."""
    cxx = _checked_env("CXX")
    if cxx is not None:
        found = shutil.which(cxx.split()[0])
        if found is None:
            raise InputError(f"CXX={cxx[:200]!r} is not a program on PATH; point it at g++ or clang++, or unset it")
        return Path(found)
    for name in ("g++", "clang++", "c++"):
        found = shutil.which(name)
        if found:
            return Path(found)
    return None


@functools.lru_cache(maxsize=8)
def _version(program: Path, pattern: str) -> str:
    try:
        done = subprocess.run([str(program), "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    m = re.search(pattern, done.stdout + done.stderr)
    return m.group(1) if m else "unknown"


def toolchain(nvcc_override: str | None = None) -> Toolchain | None:
    """The nvcc route's tools, or None where nvcc or a host compiler is missing."""
    nvcc, host = nvcc_path(nvcc_override), host_compiler()
    if nvcc is None or host is None:
        return None
    host_version = _version(host, r"(\d+\.\d+\.\d+)")
    return Toolchain(nvcc, host, _version(nvcc, r"release (\d+\.\d+)"), f"{host.name} {host_version}")


def route(preferred: str | None = None, nvcc_override: str | None = None) -> Toolchain | None:
    """The nvcc toolchain to compile with, or None for NVRTC. `preferred` (else
    $PERFCALC_COMPILER, else "auto"): "nvcc" insists on nvcc, "nvrtc" on NVRTC, "auto" takes nvcc
    where a host compiler and nvcc are installed."""
    choice = preferred if preferred is not None else (_checked_env(ROUTE_ENV) or "auto")
    if choice not in ROUTES:
        raise InputError(f"compiler {choice[:40]!r} is not one of {', '.join(ROUTES)} (--compiler / ${ROUTE_ENV})")
    if choice == "nvrtc":
        return None
    found = toolchain(nvcc_override)
    if found is None and choice == "nvcc":
        missing = (
            "nvcc (pip install nvidia-cuda-nvcc, or --nvcc PATH)"
            if nvcc_path(nvcc_override) is None
            else ("a host C++ compiler (g++ or clang++ on PATH, or $CXX)")
        )
        raise InputError(f"--compiler nvcc needs {missing}")
    return found


_LIMITED = (
    "import os, resource, sys\n"
    "limit = int(sys.argv[1])\n"
    "resource.setrlimit(resource.RLIMIT_AS, (limit, limit))\n"
    "os.execvp(sys.argv[2], sys.argv[2:])\n"
)


def run_bounded(
    command: list[str], seconds: float, max_bytes: int, cwd: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a compiler in a new process group, with an address-space cap (inherited by the
    processes it starts: nvcc runs cudafe++, cicc and the host compiler) and a time limit that
    ends the whole group. subprocess.TimeoutExpired past `seconds`."""
    import signal
    import sys

    limited = [sys.executable, "-I", "-c", _LIMITED, str(max_bytes), *command] if os.name == "posix" else command
    proc = subprocess.Popen(
        limited, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd, start_new_session=True
    )
    try:
        out, err = proc.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
        proc.communicate()
        raise
    return subprocess.CompletedProcess(command, proc.returncode, out, err)
