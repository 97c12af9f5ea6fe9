"""NumPy references for the catalog kernels, their inputs, and the result check.

A catalog entry names its reference function (`reference: matmul`); each function takes the
kernel's arguments (arrays by name, as bound before the run) and parameters and returns the
expected contents of the output arrays, computed in float64 where the kernel accumulates.
`run_catalog_kernel` builds seeded inputs, runs the execution core and checks the outputs, so
the CLI and `perfcalc matmul` share one path.

Inputs are random, seeded per kernel and never zero (floats uniform in [0.5, 1.5), ints in
[1, 100]): positive data keeps relative errors meaningful and makes a forgotten write visible.
Outputs start as NaN (ints: -1), so an element the kernel never writes fails the check.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from perfcalc.errors import InputError, SpecError, TimeLimitExceeded
from perfcalc.expr import evaluate
from perfcalc.limits import check_arrays_fit, past_time_limit, time_limit_seconds
from perfcalc.specs.kernels import ArgSpec, KernelSpec, arg_dtype, as_int, launch_geometry, resolve_params
from perfcalc.specs.types import ELEMENT_TYPES

Arrays = Mapping[str, Any]


# ---------------------------------------------------------------------------------------------
# Reference functions (one per catalog `reference:` name)


def matmul(a: Arrays, p: Mapping[str, int]) -> dict[str, np.ndarray]:
    """Pd = Md x Nd for Width x Width row-major matrices (seed 000)."""
    w = p["Width"]
    m = a["Md"].reshape(w, w).astype(np.float64)
    n = a["Nd"].reshape(w, w).astype(np.float64)
    return {"Pd": (m @ n).ravel()}


def block_sums(a: Arrays, p: Mapping[str, int]) -> dict[str, np.ndarray]:
    """Sum of each block's `block` consecutive inputs (the last block may be partial)."""
    data = a["in"].astype(np.float64)
    starts = np.arange(0, p["n"], p["block"])
    return {"out": np.add.reduceat(data, starts)}


def convolve3(a: Arrays, p: Mapping[str, int]) -> dict[str, np.ndarray]:
    """output[i] = (input[i] + input[i+1] + input[i+2]) / 3 for i < N (seed 001)."""
    x = a["input"].astype(np.float64)
    n = p["n"]
    return {"output": (x[:n] + x[1 : n + 1] + x[2 : n + 2]) / 3.0}


def transpose(a: Arrays, p: Mapping[str, int]) -> dict[str, np.ndarray]:
    """odata = idata transposed, n x n row-major."""
    n = p["n"]
    return {"odata": a["idata"].reshape(n, n).T.ravel().copy()}


def gather_stride(a: Arrays, p: Mapping[str, int]) -> dict[str, np.ndarray]:
    """out[i] = in[i * stride]."""
    return {"out": a["in"][:: p["stride"]][: p["n"]].copy()}


def gather_offset(a: Arrays, p: Mapping[str, int]) -> dict[str, np.ndarray]:
    """out[i] = in[i + offset]."""
    return {"out": a["in"][p["offset"] : p["offset"] + p["n"]].copy()}


def aos_sum(a: Arrays, p: Mapping[str, int]) -> dict[str, np.ndarray]:
    """out[i] = in[i].index + in[i].value (int converted to double, seed 002)."""
    return {"out": a["in"]["index"].astype(np.float64) + a["in"]["value"]}


def soa_sum(a: Arrays, p: Mapping[str, int]) -> dict[str, np.ndarray]:
    """out[i] = index[i] + value[i]."""
    return {"out": a["index"].astype(np.float64) + a["value"]}


def float3_x(a: Arrays, p: Mapping[str, int]) -> dict[str, np.ndarray]:
    """out[i] = in[i].x."""
    return {"out": a["in"]["x"].copy()}


REFERENCES: dict[str, Callable[[Arrays, Mapping[str, int]], dict[str, np.ndarray]]] = {
    f.__name__: f
    for f in (
        matmul,
        block_sums,
        convolve3,
        transpose,
        gather_stride,
        gather_offset,
        aos_sum,
        soa_sum,
        float3_x,
    )
}


def reference(name: str) -> Callable[[Arrays, Mapping[str, int]], dict[str, np.ndarray]]:
    """The reference function a catalog entry names."""
    if name not in REFERENCES:
        raise SpecError(
            f"kernel catalog names reference {name!r}, which perfcalc/sim/references.py "
            f"does not define (known: {', '.join(REFERENCES)})"
        )
    return REFERENCES[name]


# ---------------------------------------------------------------------------------------------
# Inputs


def numpy_dtype(arg: ArgSpec) -> np.dtype:
    """The NumPy dtype of a pointer argument; structs and vectors use C layout (aligned)."""
    return arg_dtype(arg)


# elements generated, converted and checked at a time: NumPy draws doubles and int64s, so a
# whole-array draw for a float32 input cost twice the input again (issue #13's footprint)
CHUNK_ELEMENTS = 1 << 20


def _chunks(size: int) -> Iterator[tuple[int, int]]:
    """(start, count) of CHUNK_ELEMENTS at a time; making a billion elements takes seconds too,
    so the command's time limit (--max-seconds) is checked before each."""
    for start in range(0, size, CHUNK_ELEMENTS):
        if past_time_limit():
            raise TimeLimitExceeded(
                f"making the kernel's arrays passed the limit of {time_limit_seconds():g} s (--max-seconds / "
                f"max_seconds) after {start:.3g} of {size:.3g} elements",
                "use a smaller launch",
            )
        yield start, min(CHUNK_ELEMENTS, size - start)


def _fill_random(out: np.ndarray, rng: np.random.Generator) -> None:
    """Uniform floats in [0.5, 1.5) or ints in [1, 100]: never zero. Drawn CHUNK_ELEMENTS at a
    time, which gives the same values as one draw of the whole array (each value takes the
    generator's next output), without a float64 or int64 copy of the whole array."""
    if out.dtype.names:
        for name in out.dtype.names:
            _fill_random(out[name], rng)
        return
    flat = out.reshape(-1)
    floating = np.issubdtype(out.dtype, np.floating)
    for start, n in _chunks(flat.size):
        flat[start : start + n] = rng.uniform(0.5, 1.5, size=n) if floating else rng.integers(1, 101, size=n)


def _fill_unwritten(out: np.ndarray) -> None:
    """NaN, -1 or the largest unsigned value: what a kernel that writes nowhere leaves."""
    if out.dtype.names:
        for name in out.dtype.names:
            _fill_unwritten(out[name])
        return
    if np.issubdtype(out.dtype, np.floating):
        marker: float | int = np.nan
    else:
        marker = -1 if np.issubdtype(out.dtype, np.signedinteger) else int(np.iinfo(out.dtype).max)
    for start, n in _chunks(len(out)):  # along the first axis: always a view, whatever the strides
        out[start : start + n] = marker


def new_array(dtype: np.dtype, size: int, role: str, rng: np.random.Generator) -> np.ndarray:
    """A kernel array: random for inputs (and in/out), 'unwritten' markers for outputs."""
    arr = np.empty(size, dtype=dtype)
    if role in ("in", "inout"):
        _fill_random(arr, rng)
    else:
        _fill_unwritten(arr)
    return arr


def _catalog_array_size(spec: KernelSpec, arg: Any, params: Mapping[str, int]) -> int:
    size = as_int(evaluate(_given(arg.size, spec, arg.name), params), f"{spec.name} size of {arg.name}")
    if size <= 0:
        raise InputError(f"kernel {spec.name}: array {arg.name} would have {size} elements for {dict(params)}")
    itemsize = numpy_dtype(arg).itemsize
    if size * itemsize > MAX_ARRAY_BYTES:
        raise InputError(
            f"kernel {spec.name}: array {arg.name} would have {size:.3g} elements of {itemsize} bytes "
            f"for {dict(params)}, over the limit of {MAX_ARRAY_BYTES >> 30} GiB for one array"
        )
    return size


def make_args(spec: KernelSpec, params: Mapping[str, int]) -> dict[str, Any]:
    """The kernel's arguments for these parameters: arrays by the catalog's rules, scalars."""
    rng = np.random.default_rng(spec.seed)
    sizes = {arg.name: _catalog_array_size(spec, arg, params) for arg in spec.args if arg.is_pointer}
    check_arrays_fit(
        sum(size * numpy_dtype(spec.arg(name)).itemsize for name, size in sizes.items()),
        f"kernel {spec.name}'s arrays for {dict(params)}",
        "give smaller parameters (-p)",
    )
    args: dict[str, Any] = {}
    for arg in spec.args:
        if arg.is_pointer:
            args[arg.name] = new_array(numpy_dtype(arg), sizes[arg.name], arg.role, rng)
        else:
            args[arg.name] = as_int(
                evaluate(_given(arg.value, spec, arg.name), params), f"{spec.name} scalar {arg.name}"
            )
    return args


# ---------------------------------------------------------------------------------------------
# Result check


@dataclass(frozen=True)
class ResultCheck:
    """Outputs against the reference: max relative error over all output elements.

    `max_rel_error` is |got - expected| / |expected| (expected values are never zero for the
    catalog's positive inputs; a zero expected value counts |got|). It is None, and the check
    fails, when an output element was never written (still NaN) or is not finite.
    """

    passed: bool | None
    max_rel_error: float | None
    tolerance: float | None
    unwritten: int = 0
    worst: str = ""


def check_result(spec: KernelSpec, args: Arrays, expected: Mapping[str, np.ndarray]) -> ResultCheck:
    """Compare each output array with its expected contents."""
    worst_err, worst_at, unwritten = 0.0, "", 0
    for name, want in expected.items():
        got = np.asarray(args[name])
        if got.shape != np.shape(want):
            raise SpecError(
                f"reference {spec.reference} returned {np.shape(want)} for {name}, the kernel's array has {got.shape}"
            )
        flat_got, flat_want = got.reshape(-1), np.asarray(want).reshape(-1)
        for start in range(0, flat_got.size, CHUNK_ELEMENTS):  # float64 temporaries of one chunk only
            got64 = flat_got[start : start + CHUNK_ELEMENTS].astype(np.float64)
            want64 = flat_want[start : start + CHUNK_ELEMENTS].astype(np.float64)
            bad = ~np.isfinite(got64)
            unwritten += int(np.count_nonzero(bad))
            denom = np.where(want64 != 0, np.abs(want64), 1.0)
            err = np.where(bad, 0.0, np.abs(got64 - want64) / denom)
            i = int(np.argmax(err))
            if err[i] > worst_err or not worst_at:
                worst_err, worst_at = float(err[i]), f"{name}[{start + i}]"
    if unwritten:
        return ResultCheck(
            False,
            None,
            spec.tolerance,
            unwritten,
            f"{unwritten} output elements never written or not finite",
        )
    return ResultCheck(worst_err <= spec.tolerance, worst_err, spec.tolerance, 0, worst_at)


# ---------------------------------------------------------------------------------------------
# One catalog run


@dataclass(frozen=True)
class CatalogRun:
    """A catalog kernel run by the execution core, with its result check."""

    kernel: str
    params: dict[str, int]
    grid: tuple[int, ...]
    block: tuple[int, ...]
    dynamic_shared_memory_bytes: int
    result: Any  # perfcalc.sim.SimResult
    result_check: ResultCheck | None  # None: not checked (check=False)


def input_bytes(spec: KernelSpec, params: Mapping[str, int]) -> int:
    """Bytes of the launch's input arrays (in and inout), from the catalog's sizes."""
    return sum(
        as_int(evaluate(_given(a.size, spec, a.name), params), f"{spec.name} size of {a.name}")
        * int(numpy_dtype(a).itemsize)
        for a in spec.args
        if a.role in ("in", "inout")
    )


def _given(expression: str | None, spec: KernelSpec, name: str) -> str:
    """An argument's size or value expression, which the catalog's validation guarantees."""
    if expression is None:
        raise SpecError(f"kernel {spec.name}: argument {name} has no size or value expression")
    return expression


def run_catalog_kernel(
    spec: KernelSpec, params: Mapping[str, int] | None, arch: Any, check: bool = True, **run_options: Any
) -> CatalogRun:
    """Resolve parameters, build inputs, run the kernel's source and check its outputs (unless
    `check` is False: a sampled run, whose outputs are partial, skips the reference).

    `run_options` go to `perfcalc.sim.run_kernel` (cache, bank_mode, iteration_cap, ...).
    """
    from perfcalc.sim import run_kernel

    params = resolve_params(spec, params)
    grid, block, dyn = launch_geometry(spec, params)
    args = make_args(spec, params)
    # the reference reads the inputs as they were: an in/out array is overwritten by the kernel, so it
    # is kept; an input (const in the catalog's kernels) is not copied
    inputs = {a.name: args[a.name].copy() for a in spec.args if a.role == "inout"} if check else {}
    defines = {d: params[d] for d in spec.defines}
    result = run_kernel(
        spec.source,
        spec.kernel,
        grid,
        block,
        args,
        arch,
        dynamic_shared_memory_bytes=dyn,
        defines=defines or None,
        source_name=f"kernels.yaml:{spec.name}",
        **run_options,
    )
    if not check:
        return CatalogRun(spec.name, dict(params), grid, block, dyn, result, None)
    expected = reference(spec.reference)({**args, **inputs}, params)
    outputs = {a.name for a in spec.args if a.role in ("out", "inout")}
    if set(expected) != outputs:
        raise SpecError(
            f"reference {spec.reference} returns {sorted(expected)}, kernel {spec.name} has outputs {sorted(outputs)}"
        )
    return CatalogRun(spec.name, dict(params), grid, block, dyn, result, check_result(spec, args, expected))


_BYTES = re.compile(r"^bytes([1-9][0-9]*)$")


@dataclass(frozen=True)
class UserArray:
    """One --array: generated (dtype and element count) or loaded from a .npy file (path)."""

    name: str
    dtype: str | None = None
    count: int = 0
    path: str | None = None


# C and CUDA spellings of the element types (issue 35: `--array A=float:N` is what a CUDA
# programmer types); the sizes are those of every platform CUDA supports (LP64, and LLP64 for
# Windows where `long` is 4 bytes: it is left out rather than guessed)
C_TYPES = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "__half": "float16",
    "char": "int8",
    "signed char": "int8",
    "unsigned char": "uint8",
    "short": "int16",
    "unsigned short": "uint16",
    "int": "int32",
    "unsigned": "uint32",
    "unsigned int": "uint32",
    "long long": "int64",
    "unsigned long long": "uint64",
    "size_t": "uint64",
    **{f"{s}int{b}_t": f"{s}int{b}" for s in ("", "u") for b in (8, 16, 32, 64)},
}
MAX_ARRAY_BYTES = 1 << 40  # 1 TiB: past any machine's memory; a bigger count is a typo


def _user_dtype(text: str, dtype: str) -> np.dtype:
    dtype = C_TYPES.get(" ".join(dtype.split()), dtype)
    if dtype in ELEMENT_TYPES:
        return ELEMENT_TYPES[dtype].numpy_dtype()
    m = _BYTES.match(dtype)
    if m and int(m.group(1)) <= 4096:
        return np.dtype((np.void, int(m.group(1))))
    raise InputError(
        f"--array {text[:80]!r}: dtype {dtype[:40]!r} is not one of "
        f"{', '.join(ELEMENT_TYPES)}, their C names (float, unsigned char, __half, ...) "
        f"or bytesN (an opaque N-byte record, N <= 4096)"
    )


def parse_array_option(text: str) -> UserArray:
    """`name=float32:1024` (random, seeded) or `name=@data.npy` (a user's own 1-D array)."""
    name, sep, rest = text.partition("=")
    if not sep or not name.isidentifier():
        raise InputError(f"--array {text[:80]!r}: expected NAME=DTYPE:ELEMENTS (e.g. A=float32:1024) or NAME=@FILE.npy")
    if rest.startswith("@"):
        return UserArray(name, path=rest[1:])
    dtype, sep2, count = rest.rpartition(":")
    dtype = C_TYPES.get(" ".join(dtype.split()), dtype)
    if not sep2:
        raise InputError(f"--array {text[:80]!r}: expected NAME=DTYPE:ELEMENTS, e.g. A=float32:1024")
    _user_dtype(text, dtype)
    try:
        n = int(count)
    except ValueError:
        raise InputError(f"--array {text!r}: element count {count!r} is not an integer") from None
    if n <= 0:
        raise InputError(f"--array {text[:80]!r}: element count must be positive")
    size = _user_dtype(text, dtype).itemsize
    if n * size > MAX_ARRAY_BYTES:
        raise InputError(
            f"--array {text[:80]!r}: {n:.3g} elements of {size} bytes is over the limit of "
            f"{MAX_ARRAY_BYTES >> 30} GiB for one array"
        )
    return UserArray(name, dtype, n)


def _load_npy(spec: UserArray) -> np.ndarray:
    from perfcalc.files import check_regular_file

    where = f"--array {spec.name}=@{spec.path}"
    assert spec.path is not None  # a loaded array (parse_array_option sets path or dtype)
    check_regular_file(spec.path, f"--array {spec.name}")  # np.load of a FIFO would block forever
    try:
        with open(str(spec.path), "rb") as f:
            magic = f.read(6)
            f.seek(0)
            arr = np.load(f, allow_pickle=False) if magic == b"\x93NUMPY" else None
    except FileNotFoundError:
        raise InputError(f"{where}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{where}: a folder, not a .npy file") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"{where}: unreadable .npy file ({str(exc)[:120]})") from None
    if arr is None:  # not the .npy format's magic string
        raise InputError(f"{where}: not a NumPy .npy file (save it with numpy.save)")
    if arr.ndim != 1 or arr.size == 0:  # (object arrays fail to load without pickle)
        raise InputError(
            f"{where}: shape {arr.shape}; a kernel's array must be one non-empty dimension (flatten it with .ravel())"
        )
    return np.ascontiguousarray(arr)


def make_user_arrays(specs: list[UserArray], seed: int = 0) -> dict[str, np.ndarray]:
    """A user source's arrays: loaded ones as stored, generated ones random (same rules as the
    catalog's inputs; opaque records as random non-zero bytes)."""
    rng = np.random.default_rng(seed)
    made = [s for s in specs if s.path is None]
    check_arrays_fit(
        sum(s.count * _user_dtype(s.name, str(s.dtype)).itemsize for s in made),
        "the --array arrays",
        "give smaller element counts",
    )
    out = {}
    for spec in specs:
        if spec.path is not None:
            out[spec.name] = _load_npy(spec)
            continue
        dtype = _user_dtype(spec.name, str(spec.dtype))
        if dtype.kind == "V" and not dtype.names:
            raw = rng.integers(1, 101, size=spec.count * dtype.itemsize).astype(np.uint8)
            out[spec.name] = raw.view(dtype)
        else:
            out[spec.name] = new_array(dtype, spec.count, "in", rng)
    return out
