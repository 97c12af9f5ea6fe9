"""Build a whole CUDA program as its own build does, against perfcalc's CUDA runtime stand-in
(issue 31): nvcc with the host compiler compiles each `.cu` file (its host code as it is, its
device code kept as PTX for the engine), the host compiler each `.cpp`/`.c` file, and the objects
are linked with runtime/perfcalc_cudart.cpp instead of libcudart.

Why a compiled stand-in (not LD_PRELOAD of the real runtime, not a build that needs no
compiling): the program's host code must run as compiled, and nvcc's generated launch code calls
a handful of registration and launch entry points (`__cudaRegisterFunction`, `__cudaLaunchKernel`,
...) that only a runtime of our own can answer by handing the launch to perfcalc. The stand-in is
compiled once per machine and cached; each program's build is cached under a key of everything
its compile reads, so a second run pays no compile.

A call the stand-in does not define (a library with no source: cuBLAS, cuFFT, cuDNN, NCCL; or a
runtime call not implemented) stops the link: the refusal names the function and its library.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from perfcalc import diskcache
from perfcalc.analysis.programs import COMPAT, CompileFlags, Toolchain, dependencies, run_bounded
from perfcalc.errors import InputError, PerfcalcError

BUILD_FORMAT = "perfcalc-app-1"
COMPILE_SECONDS = 600.0
COMPILE_BYTES = 8 << 30
_MISSING_HEADER = re.compile(r'fatal error: ([^\s:]+): No such file|cannot open source file "([^"]+)"')
_UNDEFINED = re.compile(r"undefined reference to [`']([^'`]+)'")
LIBRARIES = (
    ("cublas", "cuBLAS"),
    ("cufft", "cuFFT"),
    ("cusparse", "cuSPARSE"),
    ("cusolver", "cuSOLVER"),
    ("curand", "cuRAND"),
    ("cudnn", "cuDNN"),
    ("nccl", "NCCL"),
    ("nvtx", "NVTX"),
    ("cu", "the CUDA driver API"),
    ("MPI_", "MPI"),
)


class BuildError(PerfcalcError, RuntimeError):
    """The program does not build here: its own compile error, or a call with no source."""


@dataclass(frozen=True)
class Unit:
    """One source file of the program and, for a .cu file, the PTX of its device code."""

    path: str
    ptx: str | None


@dataclass(frozen=True)
class Program:
    """A built program: the executable and each file's device code."""

    executable: str
    units: tuple[Unit, ...]
    compiler: str
    target: str


def _runtime_source() -> str:
    return resources.files("perfcalc.app").joinpath("runtime/perfcalc_cudart.cpp").read_text()


def _runtime_object(tools: Toolchain) -> Path:
    """The stand-in compiled for this host compiler and these CUDA headers (once, cached)."""
    source = _runtime_source()
    key = hashlib.sha256(f"{source}\0{tools.host}\0{tools.host_version}\0{tools.include_dir}".encode()).hexdigest()
    folder = diskcache.folder("app")
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="perfcalc-app-"))
    target = folder / f"runtime-{key[:32]}.o"
    if target.is_file():
        return target
    with tempfile.TemporaryDirectory(prefix="perfcalc-rt-") as tmp:
        src = Path(tmp) / "perfcalc_cudart.cpp"
        src.write_text(source)
        out = Path(tmp) / "runtime.o"
        done = subprocess.run(
            [str(tools.host), "-std=c++17", "-O2", "-fPIC", "-c", f"-I{tools.include_dir}", str(src), "-o", str(out)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode != 0:
            raise BuildError(
                f"perfcalc's CUDA runtime stand-in does not compile with {tools.host_version}: {done.stderr[-300:]}"
            )
        partial = folder / f".runtime-{os.getpid()}.o"
        shutil.copyfile(out, partial)
        os.replace(partial, target)
    return target


def _key(files: list[Path], tools: Toolchain, flags: CompileFlags) -> str | None:
    """Everything the build reads, or None where a file's includes cannot all be followed."""
    head = [BUILD_FORMAT, tools.name, str(tools.nvcc), str(tools.host), flags.target, _runtime_source()]
    parts: list[object] = [*head, list(flags.include_dirs), list(flags.defines), list(flags.extra)]
    named = flags.named_defines()
    for f in files:
        text = f.read_text(encoding="utf-8", errors="surrogateescape")
        deps = dependencies(text, f.parent, [Path(d) for d in flags.include_dirs], [tools.include_dir], named)
        if not deps.complete:
            return None
        parts += [str(f), hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest(), deps.fingerprint()]
    return diskcache.digest(json.dumps(parts).encode())


# nvcc options a program's build passes that change what its device code means (HeCBench's
# Makefiles: --expt-relaxed-constexpr for std::max or numeric_limits in kernels, --extended-lambda
# for __device__ lambdas, -std=c++NN), the ones benchmarks/corpus_compile.py reads from them; and
# the floating-point ones that change the machine code (-use_fast_math: MUFU approximations for
# expf/powf/division and flush-to-zero, 32 of HeCBench's Makefiles; -ftz, -prec-div, -prec-sqrt,
# -fmad).
_DEVICE_CODE_OPTION = re.compile(
    r"--?std=(?:c|gnu)\+\+\d\d|--?(?:expt-)?extended-lambda|--?expt-relaxed-constexpr"
    r"|--?use_fast_math|--?(?:ftz|prec-div|prec-sqrt|fmad)=(?:true|false)"
)


def is_nvcc_option(word: str) -> bool:
    return bool(_DEVICE_CODE_OPTION.fullmatch(word))


def checked_nvcc_options(options: Sequence[str]) -> tuple[str, ...]:
    """The program's own nvcc options, checked: only those that change device code's meaning
    (others, such as -o or -ccbin, would change what perfcalc builds and runs)."""
    for option in options:
        if not isinstance(option, str) or not is_nvcc_option(option):
            raise InputError(
                f"nvcc option {str(option)[:80]!r} is not one perfcalc app passes to nvcc: it takes -std=c++NN, "
                "--extended-lambda, --expt-relaxed-constexpr, -use_fast_math, -ftz=, -prec-div=, -prec-sqrt= and -fmad="
            )
    return tuple(dict.fromkeys(options))


def build(files: list[str], tools: Toolchain, flags: CompileFlags, cwd: str | None = None) -> Program:
    """The program built (or taken from the cache): `files` its .cu, .cpp and .c sources,
    include folders relative to `cwd`."""
    paths = [Path(cwd or ".", f).resolve() for f in files]
    for p in paths:
        if not p.is_file():
            raise InputError(f"{p} is not a file; name the program's .cu (and .cpp) files")
        if p.suffix not in (".cu", ".cpp", ".cc", ".cxx", ".c"):
            raise InputError(f"{p.name}: perfcalc app builds .cu, .cpp and .c files")
    folders = tuple(os.path.abspath(os.path.join(cwd or ".", d)) for d in flags.include_dirs)
    flags = dataclasses.replace(flags, include_dirs=folders)
    key = _key(paths, tools, flags)
    cached = _cached(key)
    if cached is not None:
        return cached
    work = Path(tempfile.mkdtemp(prefix="perfcalc-app-build-"))
    try:
        program = _build_in(work, paths, tools, flags)
        return _keep(key, work, program) if key is not None else program
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise


def _build_in(work: Path, paths: list[Path], tools: Toolchain, flags: CompileFlags) -> Program:
    target, folders, defines, extra = flags.target, flags.include_dirs, flags.defines, flags.extra
    compat = work / "perfcalc_cuda_compat.h"
    compat.write_text(COMPAT)
    objects, units = [], []
    std = [] if any(e.startswith(("-std", "--std")) for e in extra) else ["-std=c++17"]
    for i, path in enumerate(paths):
        obj = work / f"unit{i}.o"
        if path.suffix == ".cu":
            keep = work / f"keep{i}"
            keep.mkdir()
            command = [str(tools.nvcc), "-c", f"-arch={target}", f"-code={target}", "-lineinfo", "-cudart=none"]
            command += ["-ccbin", str(tools.host), "--keep", "--keep-dir", str(keep), *std, *extra]
            command += [f"-I{d}" for d in (*folders, str(path.parent))] + list(defines)
            command += ["-include", str(compat), str(path), "-o", str(obj)]
            _run(command, path, str(path.parent))
            ptx = next(iter(sorted(keep.glob("*.ptx"))), None)
            units.append(Unit(str(path), ptx.read_text(errors="replace") if ptx else None))
        else:
            command = [str(tools.host), "-c", f"-I{tools.include_dir}", *[f"-I{d}" for d in folders], *defines]
            command += [*([] if path.suffix == ".c" else std or _host_std(extra)), str(path), "-o", str(obj)]
            _run(command, path, str(path.parent))
            units.append(Unit(str(path), None))
        objects.append(str(obj))
    executable = work / "program"
    link = [str(tools.host), *objects, str(_runtime_object(tools)), "-o", str(executable), "-lpthread", "-ldl", "-lm"]
    link += ["-lgomp"] if _calls_openmp(paths) else []
    done = subprocess.run(link, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise BuildError(_link_refusal(done.stdout + done.stderr))
    return Program(str(executable), tuple(units), tools.name, target)


def _host_std(extra: tuple[str, ...]) -> list[str]:
    """The C++ standard the program's nvcc options name, for its host-only files too."""
    return [f"-std={e.split('=', 1)[1]}" for e in extra if e.lstrip("-").startswith("std=")][:1]


def _calls_openmp(paths: list[Path]) -> bool:
    """Whether a source calls OpenMP's runtime (omp_get_wtime, ...): then libgomp is linked so
    the calls resolve. Sources are compiled without -fopenmp, so their pragmas run the host
    loops one thread at a time (the device work is the same) and `#ifdef _OPENMP` code stays
    out, as in the builds whose Makefile does not pass it (HeCBench's amgmk does not compile
    with it)."""
    import re

    pattern = re.compile(rb"\bomp_\w+\s*\(")
    return any(pattern.search(p.read_bytes()) for p in paths if p.is_file())


def _run(command: list[str], path: Path, cwd: str) -> None:
    try:
        done = run_bounded(command, COMPILE_SECONDS, COMPILE_BYTES, cwd=cwd)
    except subprocess.TimeoutExpired:
        raise BuildError(f"compiling {path.name} took longer than {COMPILE_SECONDS:g} s") from None
    if done.returncode != 0:
        log = (done.stdout + done.stderr).strip().splitlines()
        first = next((ln for ln in log if "error" in ln), log[-1] if log else "no message")
        missing = _MISSING_HEADER.search(first)
        if missing is not None:
            header = missing.group(1) or missing.group(2)
            library = next(
                (lib for prefix, lib in LIBRARIES if Path(header).name.lower().startswith(prefix.lower())), None
            )
            what = f" ({library}, a library with no source perfcalc can run)" if library else " (not installed here)"
            raise BuildError(f"the program includes {header}{what}: {path.name}")
        raise BuildError(f"the program does not compile: {path.name}: {first.strip()[:300]}")


def _link_refusal(log: str) -> str:
    missing = sorted(set(_UNDEFINED.findall(log)))
    if not missing:
        return f"the program does not link: {log.strip()[-300:]}"
    if "main" in missing:  # the C runtime's start-up calls it: the files hold no program
        return (
            "the files define no main(): perfcalc app runs a whole program; for a kernel alone use "
            "perfcalc run --source FILE --kernel NAME"
        )
    for name in missing:
        for prefix, library in LIBRARIES:
            if name.lower().startswith(prefix.lower()) and not name.startswith("cuda"):
                return (
                    f"the program calls {name} ({library}), a library with no source perfcalc can run; "
                    f"{len(missing)} such call(s): {', '.join(missing[:6])}"
                )
    return (
        f"the program calls {missing[0]}, which perfcalc's CUDA runtime stand-in does not implement "
        f"({len(missing)} missing: {', '.join(missing[:6])})"
    )


def _cached(key: str | None) -> Program | None:
    if key is None:
        return None
    base = diskcache.folder("app")
    if base is None:
        return None
    manifest = base / key / "manifest.json"
    try:
        data = json.loads(manifest.read_text())
        executable = base / key / "program"
        digest = hashlib.sha256(executable.read_bytes()).hexdigest()
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("sha256") != digest:
        return None
    units = tuple(Unit(u["path"], u.get("ptx")) for u in data["units"])
    return Program(str(executable), units, data["compiler"], data["target"])


def _keep(key: str, work: Path, program: Program) -> Program:
    """Move the build into the cache folder (renamed into place: all or nothing)."""
    base = diskcache.folder("app")
    if base is None:
        return program
    executable = Path(program.executable)
    manifest = {
        "sha256": hashlib.sha256(executable.read_bytes()).hexdigest(),
        "units": [{"path": u.path, "ptx": u.ptx} for u in program.units],
        "compiler": program.compiler,
        "target": program.target,
    }
    staging = Path(tempfile.mkdtemp(prefix=".build-", dir=base))
    shutil.copyfile(executable, staging / "program")
    os.chmod(staging / "program", 0o700)
    (staging / "manifest.json").write_text(json.dumps(manifest))
    try:
        os.rename(staging, base / key)
    except OSError:  # another run kept it first
        shutil.rmtree(staging, ignore_errors=True)
    found = _cached(key)
    if found is None:
        return program  # the build folder stays: the program runs from it
    shutil.rmtree(work, ignore_errors=True)
    return found
