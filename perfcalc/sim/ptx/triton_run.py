"""Triton kernels without a GPU (issue 33): compiled by `triton.compile` for the target's
GPUTarget, with the specialisation Triton's JIT would derive from the given arrays and scalars,
and their PTX run on the same engine as CUDA's.

The JIT's own rule decides each scalar's type and specialisation (triton.runtime.jit's
native_specialize_impl: an int that is 1 becomes a constant, one divisible by 16 is marked so,
floats and bools are not specialised); every array is 16-byte aligned (the heap places arrays at
256-byte boundaries, as cudaMalloc does), so its pointer is marked divisible by 16 as the JIT
marks a tensor's. Triton's Hopper and Blackwell code (wgmma, TMA, mbarrier, tcgen05) needs a
per-warp scheduler the engine does not have: a kernel whose code for the target uses them is
compiled for sm_80 instead (mma.sync, cp.async), and the run says so.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from perfcalc.errors import InputError
from perfcalc.sim.launch import DEFAULT_OPTIONS, RunOptions, SimResult, dims
from perfcalc.sim.ptx.compile import CACHE_KIND, CompiledKernel
from perfcalc.sim.ptx.inline import parse_program
from perfcalc.sim.ptx.memory import Heap
from perfcalc.sim.ptx.ptxas import resource_log, sm_target
from perfcalc.sim.ptx.run import Launch, _bind, _layout, execute
from perfcalc.specs import Arch

# numpy dtype -> Triton's pointee type and the C spelling the binder checks arrays against
_DTYPES = {
    "float32": ("fp32", "float"),
    "float16": ("fp16", "half"),
    "float64": ("fp64", "double"),
    "int32": ("i32", "int"),
    "int64": ("i64", "long long"),
    "int16": ("i16", "short"),
    "int8": ("i8", "int8_t"),
    "uint8": ("u8", "uint8_t"),
    "uint16": ("bf16", "uint16_t"),  # bfloat16 bits: NumPy has no bfloat16
    "uint32": ("u32", "unsigned int"),
    "uint64": ("u64", "unsigned long long"),
    "bool": ("i1", "bool"),
}
_SCALAR_C = {"i1": "bool", "u1": "bool", "i32": "int", "i64": "long long", "u64": "unsigned long long", "fp32": "float"}
_LAUNCH_OPTIONS = ("num_warps", "num_stages")
_LATER = re.compile(r"^\s*(wgmma|cp\.async\.bulk|mbarrier|tcgen05|stmatrix|elect|setmaxnreg)", re.MULTILINE)


@dataclass(frozen=True)
class TritonKernel:
    """A compiled Triton kernel: its PTX as a CompiledKernel, the PTX parameters' argument names
    (the kernel's non-constant arguments, then Triton's scratch pointers), and what it needs."""

    compiled: CompiledKernel
    arguments: tuple[str, ...]
    shared_bytes: int
    num_warps: int
    scratch_bytes: tuple[int, ...]
    notes: tuple[str, ...]
    ptx: str = ""


def triton_available() -> bool:
    return importlib.util.find_spec("triton") is not None


def _jit_function(path: Path, kernel: str) -> Any:
    if not path.is_file():
        raise InputError(f"--triton: no file {str(path)[:200]!r}")
    if not triton_available():
        raise InputError("Triton is not installed: pip install 'perfcalc[triton]' (Triton compiles without a GPU)")
    module = _module(str(path.resolve()), path.stat().st_mtime_ns)
    fn = getattr(module, kernel, None)
    if fn is None or not hasattr(fn, "arg_names") or not hasattr(fn, "params"):
        found = sorted(k for k, v in vars(module).items() if hasattr(v, "arg_names") and hasattr(v, "params"))
        raise InputError(
            f"--triton: {path} has no @triton.jit function {kernel!r} (it has: {', '.join(found) or 'none'})"
        )
    return fn


@functools.lru_cache(maxsize=16)
def _module(path: str, mtime_ns: int) -> ModuleType:
    """The user's file imported once per version (a run reads it for the launch, the compile and
    each sampled pass): Triton reads a function's source through its module."""
    name = f"perfcalc_triton_{abs(hash(path))}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InputError(f"--triton: {path} cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the user's file failed: its failure, in one line
        raise InputError(f"--triton: importing {path} failed: {type(exc).__name__}: {exc}") from None
    return module


def _signature(fn: Any, args: Mapping[str, object]) -> tuple[dict[str, str], dict[str, object], dict[Any, Any]]:
    from triton.backends.compiler import BaseBackend
    from triton.runtime.jit import native_specialize_impl

    signature: dict[str, str] = {}
    constants: dict[str, object] = {}
    attrs: dict[Any, Any] = {}
    for i, (name, p) in enumerate(zip(fn.arg_names, fn.params, strict=True)):
        if name not in args:
            if p.has_default:
                continue
            raise InputError(f"argument {name} of Triton kernel {fn.__name__} is missing (an --array or -p {name}=...)")
        value = args[name]
        if p.is_constexpr:
            signature[name], constants[name] = "constexpr", value
            continue
        if isinstance(value, np.ndarray):
            found = _DTYPES.get(value.dtype.name)
            if found is None:
                raise InputError(f"argument {name}: Triton takes no {value.dtype.name} array here")
            signature[name] = "*" + found[0]
            attrs[(i,)] = [["tt.divisibility", 16]]  # 256-byte aligned, as the JIT marks a tensor
            continue
        ty, spec = native_specialize_impl(BaseBackend, value, False, not p.do_not_specialize, True)
        if ty == "constexpr":  # the JIT makes an int equal to 1 a constant
            signature[name], constants[name] = "constexpr", spec
            continue
        signature[name] = ty
        if spec == "D":
            attrs[(i,)] = [["tt.divisibility", 16]]
    return signature, constants, attrs


def compile_triton(
    path: Path, kernel: str, args: Mapping[str, object], arch: Arch, options: Mapping[str, int]
) -> TritonKernel:
    """Compile the kernel for `arch` (or sm_80, see the module docstring) as its JIT would, once
    per file version and specialisation."""
    fn = _jit_function(path, kernel)
    signature, constants, attrs = _signature(fn, args)
    wanted = {k: int(v) for k, v in options.items()}
    key = (
        str(path.resolve()),
        path.stat().st_mtime_ns,
        kernel,
        repr(sorted(signature.items())),
        repr(sorted(constants.items())),
        repr(sorted(attrs.items())),
        arch.cc,
        repr(sorted(wanted.items())),
    )
    found = _COMPILED.get(key)
    if found is None:
        found = _COMPILED[key] = _compiled(fn, path, kernel, (signature, constants, attrs), arch, wanted)
        while len(_COMPILED) > 32:
            _COMPILED.pop(next(iter(_COMPILED)))
    return found


# compiled kernels by file version, kernel, specialisation, target and options: a run compiles
# once for its launch shape and once more for nothing in its sampled passes
_COMPILED: dict[tuple[Any, ...], TritonKernel] = {}


def _compiled(
    fn: Any,
    path: Path,
    kernel: str,
    specialisation: tuple[dict[str, str], dict[str, object], dict[Any, Any]],
    arch: Arch,
    wanted: dict[str, int],
) -> TritonKernel:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    signature, constants, attrs = specialisation
    notes: list[str] = []

    def build(capability: int) -> Any:
        src = ASTSource(fn, signature, constants, attrs)
        try:
            with warnings.catch_warnings():  # Triton 3.9's notice that its fp-fusion default will change
                warnings.simplefilter("ignore", UserWarning)
                return triton.compile(src, target=GPUTarget("cuda", capability, 32), options=wanted)
        except Exception as exc:  # the user's kernel does not compile: Triton's own message
            first = str(exc).strip().splitlines()
            raise InputError(
                f"Triton could not compile {kernel}: {first[-1] if first else type(exc).__name__}"
            ) from None

    compiled = build(arch.cc_number)
    if arch.cc_number > 80 and _LATER.search(compiled.asm["ptx"]):
        compiled = build(80)
        notes.append(
            f"Triton's code for sm_{arch.cc_number} uses wgmma/TMA/mbarrier (not executed by the PTX engine): "
            "compiled for sm_80 instead (mma.sync, cp.async); the tensor-core arithmetic is still the target's"
        )
    ptx = compiled.asm["ptx"]
    meta = compiled.metadata
    module = parse_program(ptx, str(path))
    entry = module.functions.get(meta.name)
    if entry is None:
        raise InputError(f"Triton's PTX for {kernel} has no entry {meta.name}")
    names = [n for n in fn.arg_names if n in signature and signature[n] != "constexpr"]
    scratch = [int(getattr(meta, "global_scratch_size", 0) or 0), int(getattr(meta, "profile_scratch_size", 0) or 0)]
    extra = len(entry.params) - len(names)
    if not 0 <= extra <= 2:
        raise InputError(f"Triton's PTX for {kernel} has {len(entry.params)} parameters for {len(names)} arguments")
    arguments = (*names, *("__triton_global_scratch", "__triton_profile_scratch")[:extra])
    ctypes = [_ctype(signature[n]) for n in names] + ["uint8_t*"] * extra
    sm = module.target if (module.target or "").endswith("a") else sm_target(arch.cc_number)
    log = resource_log(ptx, sm, CACHE_KIND)  # an sm_90a PTX assembles for sm_90a only
    ck = CompiledKernel(
        kernel,
        module,
        entry,
        list(zip(arguments, ctypes, strict=True)),
        f"Triton {triton.__version__}",
        module.target or sm,
        log,
        sm,
        str(path),
        tuple(notes),
    )
    return TritonKernel(ck, arguments, int(meta.shared), int(meta.num_warps), tuple(scratch[:extra]), tuple(notes), ptx)


def _ctype(ty: str) -> str:
    if ty.startswith("*"):
        pointee = next((c for t, c in _DTYPES.values() if t == ty[1:]), "uint8_t")
        return f"{pointee}*"
    return _SCALAR_C.get(ty, "int")


def _split_options(
    path: Path, kernel: str, args: dict[str, object], launch_options: Mapping[str, int] | None
) -> tuple[dict[str, object], dict[str, int]]:
    """(the kernel's arguments, its launch options): num_warps / num_stages given among the
    arguments are launch options, as in kernel[grid](..., num_warps=8), unless the kernel has
    parameters of those names."""
    given = dict(launch_options or {})
    fn_args = set(_jit_function(path, kernel).arg_names)
    rest = dict(args)
    for option in _LAUNCH_OPTIONS:
        if option in rest and option not in fn_args:
            value = rest.pop(option)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"{option} = {value!r} must be an int >= 1")
            given[option] = value
    unknown = set(given) - set(_LAUNCH_OPTIONS)
    if unknown:
        raise InputError(f"Triton launch options are {', '.join(_LAUNCH_OPTIONS)}, not {', '.join(sorted(unknown))}")
    return rest, given


def triton_launch(path: str | Path, kernel: str, args: dict[str, object], arch: Arch) -> tuple[int, int]:
    """(threads per program, dynamic shared bytes) of the kernel as Triton compiles it for `arch`
    with these arguments: what occupancy and the launch need before the run."""
    rest, options = _split_options(Path(path), kernel, args, None)
    tk = compile_triton(Path(path), kernel, rest, arch, options)
    return 32 * tk.num_warps, tk.shared_bytes


def run_triton(
    path: str | Path,
    kernel: str,
    grid: object,
    block: object | None,
    args: dict[str, object],
    arch: Arch,
    options: RunOptions = DEFAULT_OPTIONS,
    launch_options: Mapping[str, int] | None = None,
) -> SimResult:
    """Run Triton kernel `kernel` of `path` over `grid` programs (its block is 32 x num_warps
    threads: `block`, when given, must say the same), pointers bound to `args`' arrays (written
    in place); num_warps / num_stages among `args` or in `launch_options`."""
    rest, given = _split_options(Path(path), kernel, args, launch_options)
    tk = compile_triton(Path(path), kernel, rest, arch, given)
    threads = 32 * tk.num_warps
    shape = None if block is None else dims(block, "block")
    if shape is not None and shape != (threads, 1, 1):
        raise InputError(
            f"--block of {shape[0] * shape[1] * shape[2]} threads: a Triton program of num_warps={tk.num_warps} "
            f"runs {threads} threads (leave --block out)"
        )
    g = dims(grid, "grid")
    programs = g[0] * g[1] * g[2]
    bound = {k: v for k, v in rest.items() if k in tk.arguments}
    for name, size in zip(tk.arguments[len(tk.arguments) - len(tk.scratch_bytes) :], tk.scratch_bytes, strict=True):
        bound[name] = np.zeros(max(size * programs, 1), dtype=np.uint8)
    heap = Heap()
    ck = tk.compiled
    param_bytes = _bind(ck.params, ck.fn, ck.module, bound, heap, kernel)
    symbols, shared_bytes, local_bytes = _layout(ck.fn, ck.module, tk.shared_bytes, arch)
    heap.seal()
    o = options
    launch = Launch(
        g, (threads, 1, 1), tk.shared_bytes, o.iteration_cap, o.cache, o.bank_mode, str(path), o.raise_on_fault
    )
    try:
        return execute(ck, launch, arch, heap, param_bytes, symbols, (shared_bytes, local_bytes), o.progress, o.caches)
    finally:
        heap.write_back()
