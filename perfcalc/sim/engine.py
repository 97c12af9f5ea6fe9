"""Which front end runs a kernel, and `run_kernel`, the one entry to the execution core.

Engines: "source" runs the CUDA C subset as written (sim/csubset/, pure Python, portable);
"ptx" compiles the whole .cu file with NVIDIA's runtime compiler and runs the PTX as compiled
(sim/ptx/); "triton" compiles a @triton.jit function of a Python file (`source_name`) with Triton
and runs its PTX the same way; "auto" takes "ptx" where NVRTC is installed and working, else
"source". The front
ends import the shared machine (sim/launch.py); only this module imports the front ends.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from perfcalc.errors import CudaSyntaxError, InputError
from perfcalc.limits import time_limit
from perfcalc.memory.cache_hierarchy import CacheHierarchy
from perfcalc.sim.launch import CacheFactory, RunOptions, SimResult
from perfcalc.specs import as_arch
from perfcalc.specs.registry import DeviceName

ENGINES = ("auto", "ptx", "source")  # the user's choices; "triton" is chosen by --triton


def resolve_engine(engine: str) -> tuple[str, str | None]:
    """('ptx' | 'source', a one-line note or None) for an engine name ('auto' decides)."""
    if engine == "triton":  # `source` is a Python file's text, compiled by Triton (ptx/triton_run.py)
        return engine, None
    if engine not in ENGINES:
        raise InputError(f"engine {str(engine)[:40]!r} is not one of {', '.join(ENGINES)}")
    if engine != "auto":
        return engine, None
    from perfcalc.sim.ptx import toolchain
    from perfcalc.sim.ptx.nvrtc import CompilerUnavailable, library

    if toolchain.route() is not None:  # nvcc with a host compiler: the PTX engine needs no NVRTC
        return "ptx", None
    try:
        library()
    except CompilerUnavailable as exc:
        return "source", f"note: running the C-subset engine ({exc})"
    return "ptx", None


def run_kernel(
    source: str,
    kernel: str | None,
    grid: object,
    block: object,
    args: dict[str, object],
    arch: DeviceName,
    dynamic_shared_memory_bytes: int = 0,
    defines: Mapping[str, int | float | str] | None = None,
    iteration_cap: int = 1_000_000,
    cache: str | None = None,
    bank_mode: int | None = None,
    source_name: str = "<source>",
    raise_on_fault: bool = True,
    progress: Callable[[int, int], None] | None = None,
    engine: str = "source",
    include_dirs: tuple[str, ...] = (),
    caches: CacheHierarchy | CacheFactory | None = None,
    max_seconds: float | None = None,
    compiler: str | None = None,
    nvcc: str | None = None,
) -> SimResult:
    """Run `kernel` of CUDA `source` for every thread of the launch, count, check for faults.

    Pointer parameters are bound to the 1-D NumPy arrays in `args` and written in place;
    scalar parameters and `__constant__` arrays are taken from `args` by name. `engine` is
    "source" (the C subset as written), "ptx" (the whole file through NVRTC, as compiled) or
    "auto". Faults raise KernelFault (one line, compute-sanitizer style) unless
    `raise_on_fault` is False, in which case the run stops at the first fault and returns it.
    With `caches` (memory.cache_hierarchy, or a CacheFactory), every global access also feeds
    that L1/L2 model, the blocks run one wave per chunk, and the result carries its report.
    `compiler` ("auto", "nvcc", "nvrtc"; None: $PERFCALC_COMPILER, else auto) and `nvcc` (a path)
    choose how the PTX engine compiles (sim/ptx/toolchain.py). `max_seconds` bounds the
    simulation (None: an enclosing `time_limit`, else 10 minutes): a
    launch projected past it is refused (InputError), a loop still running then is a fault.
    """
    chosen, _note = resolve_engine(engine)
    _check_run_arguments(source, kernel, defines, bank_mode, chosen)
    _check_run_options(source_name, raise_on_fault, include_dirs, args)
    arch = as_arch(arch)
    options = RunOptions(
        dynamic_shared_memory_bytes=dynamic_shared_memory_bytes,
        defines=defines,
        iteration_cap=iteration_cap,
        cache=cache,
        bank_mode=bank_mode,
        source_name=source_name,
        raise_on_fault=raise_on_fault,
        progress=progress,
        caches=caches,
    )
    with time_limit(max_seconds):
        if chosen == "triton":
            from perfcalc.sim.ptx.triton_run import run_triton

            if kernel is None:
                raise InputError("a Triton run names its kernel (FILE.py::KERNEL)")
            return run_triton(source_name, kernel, grid, block, args, arch, options)
        if chosen == "ptx":
            from perfcalc.sim.ptx.run import run_ptx

            return run_ptx(source, kernel, grid, block, args, arch, options, include_dirs, compiler, nvcc)
        from perfcalc.sim.csubset.run import run_csubset

        try:
            return run_csubset(source, kernel, grid, block, args, arch, options)
        except CudaSyntaxError as exc:
            raise _suggest_ptx(exc) from None


def _suggest_ptx(exc: CudaSyntaxError) -> CudaSyntaxError:
    """The C engine's refusal, saying where the whole file runs (issue 30)."""
    text = str(exc)
    if "--engine ptx" in text:
        return exc
    first, newline, rest = text.partition("\n")
    hint = "; the C-subset engine reads the lecture notes' C: --engine ptx (or auto) runs the whole file as compiled"
    return CudaSyntaxError(first + hint + newline + rest)


def _check_run_options(source_name: object, raise_on_fault: object, include_dirs: object, args: object) -> None:
    """The rest of run_kernel's arguments, checked at the entry (issue 37: None, -1, 1.5, [] for
    source_name ended in AttributeError from inside)."""
    if not isinstance(source_name, str):
        raise InputError(f"source_name = {source_name!r} must be a str (the name errors quote)")
    if not isinstance(raise_on_fault, bool):
        raise InputError(f"raise_on_fault = {raise_on_fault!r} must be True or False")
    if not isinstance(include_dirs, (tuple, list)) or not all(isinstance(d, str) for d in include_dirs):
        raise InputError(f"include_dirs = {include_dirs!r} must be a tuple of folder names (str)")
    if not isinstance(args, dict) or not all(isinstance(k, str) for k in args):
        raise InputError(f"args must be a dict of parameter name -> array or number, got {type(args).__name__}")


def _check_run_arguments(
    source: object,
    kernel: object,
    defines: object,
    bank_mode: object,
    engine: object,
) -> None:
    """The library's own checks, so a wrong type is an InputError naming the argument, never an
    AttributeError from deep inside a front end."""
    if not isinstance(source, str):
        raise InputError(f"source must be the CUDA C text (a str), got {type(source).__name__}")
    if not (kernel is None or (isinstance(kernel, str) and kernel.strip())):
        raise InputError(
            f"kernel must be the name of a __global__ function (or None for the file's only one), got {kernel!r}"
        )
    if bank_mode is not None and (
        isinstance(bank_mode, bool) or not isinstance(bank_mode, int) or bank_mode not in (4, 8)
    ):
        raise InputError(f"bank_mode = {bank_mode!r} must be 4 or 8 (bytes per bank) or None")
    if defines is not None and not isinstance(defines, dict):
        raise InputError(f"defines must be a dict of NAME -> value, got {type(defines).__name__}")
    for name, value in (defines or {}).items():
        if not isinstance(name, str) or not name.isidentifier():
            raise InputError(f"define name {name!r} is not an identifier")
        if engine != "ptx" and isinstance(value, str) and any(c in value for c in ";{}#\n\\"):
            raise InputError(
                f"define {name}={value[:40]!r}: the source engine substitutes a value "
                "or expression, not statements (';', braces, '#' or a newline)"
            )
