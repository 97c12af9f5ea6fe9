"""The kernel catalog (`kernels.yaml`, or a user's file of the same schema) as frozen dataclasses.

Loading checks keys exactly (a typo is an error naming the file, kernel and key), parses every
expression once so a bad one fails at load time rather than mid-run, and locates each model
site's source line from its `at` text. Evaluating a kernel's parameters, launch geometry and
requirements also lives here: it needs only `perfcalc.expr`, no NumPy.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from perfcalc.errors import InputError, SpecError
from perfcalc.expr import evaluate, names_in
from perfcalc.results import Result
from perfcalc.specs.data_files import data_path
from perfcalc.specs.types import ELEMENT_TYPES
from perfcalc.specs.yaml_load import check_keys, modern_keys, read_mapping

SCHEMA_VERSION = 1
POINTER_ROLES = ("in", "out", "inout")
ROLES = (*POINTER_ROLES, "scalar")
LANE_NAMES = ("lane",)

_KERNEL_KEYS = (
    "description",
    "origin",
    "kernel",
    "params",
    "launch",
    "args",
    "seed",
    "reference",
    "tolerance",
    "source",
    "model",
)
_KERNEL_OPTIONAL = ("defines", "requires", "engines_differ", "realistic")
_MODEL_KEYS = ("flops", "global_load_elements", "barriers", "divergent_branches", "sites")
_MODEL_OPTIONAL = ("vars", "exact_when", "notes")
_SITE_KEYS = ("at", "space", "op", "array", "classes")
_CLASS_KEYS = ("count", "index")
_CLASS_OPTIONAL = ("over", "let", "active")


@dataclass(frozen=True)
class ArgSpec:
    """One kernel parameter: a pointer bound to an array (`dtype`, `size`) or a scalar (`value`)."""

    name: str
    role: str
    dtype: str | None = None
    fields: tuple[tuple[str, str], ...] = ()
    size: str | None = None
    value: str | None = None

    @property
    def is_pointer(self) -> bool:
        return self.role in POINTER_ROLES

    @property
    def field_names(self) -> tuple[str, ...]:
        if self.dtype in ELEMENT_TYPES and ELEMENT_TYPES[self.dtype].is_vector:
            return ELEMENT_TYPES[self.dtype].fields
        return tuple(name for name, _ in self.fields)


def arg_dtype(arg: ArgSpec) -> np.dtype:
    """The NumPy dtype of a pointer argument's elements, in C layout (structs aligned)."""
    if arg.dtype in ELEMENT_TYPES:
        return ELEMENT_TYPES[arg.dtype].numpy_dtype()
    if arg.dtype == "struct":
        return np.dtype([(f, ELEMENT_TYPES[t].numpy_dtype()) for f, t in arg.fields], align=True)
    raise SpecError(f"argument {arg.name}: unknown dtype {arg.dtype!r}")


@dataclass(frozen=True)
class WarpClass:
    """Warp executions that cost the same: a count and one representative warp's lane indices."""

    count: str
    index: str
    over: tuple[tuple[str, str], ...] = ()
    let: tuple[tuple[str, str], ...] = ()
    active: str | None = None


@dataclass(frozen=True)
class SiteSpec:
    """One memory access in the source: where it is, what it touches, and its warp classes."""

    at: str
    line: int
    space: str
    op: str
    array: str
    classes: tuple[WarpClass, ...]
    field: str | None = None


@dataclass(frozen=True)
class ModelSpec:
    """The analytic model: totals as expressions and per-site warp classes."""

    flops: str
    global_load_elements: str
    barriers: str
    divergent_branches: str
    sites: tuple[SiteSpec, ...]
    vars: tuple[tuple[str, str], ...] = ()
    exact_when: str | None = None
    notes: str = ""


@dataclass(frozen=True)
class Requirement:
    check: str
    message: str


@dataclass(frozen=True)
class LaunchSpec:
    grid: tuple[str, ...]
    block: tuple[str, ...]
    dynamic_shared_memory_bytes: str


@dataclass(frozen=True)
class KernelSpec(Result):
    """One catalog entry, validated."""

    name: str
    description: str
    origin: str
    kernel: str
    params: tuple[tuple[str, int], ...]
    launch: LaunchSpec
    args: tuple[ArgSpec, ...]
    seed: int
    reference: str
    tolerance: float
    source: str
    model: ModelSpec
    defines: tuple[str, ...] = ()
    requires: tuple[Requirement, ...] = ()
    # counters where the PTX engine (the code as NVRTC compiles it) counts differently from the
    # C engine (the source as written) at the default parameters, each with why
    engines_differ: tuple[tuple[str, str], ...] = ()
    # parameter overrides for a launch of realistic size (several full waves or >= 50 us on an
    # H100): what `report` times the kernel at
    realistic: tuple[tuple[str, int], ...] = ()
    path: str = field(default="", compare=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON values; parameters as {name: value} objects, as every output spells them."""
        return {**super().to_dict(), "params": dict(self.params), "realistic": dict(self.realistic)}

    @property
    def defaults(self) -> dict[str, int]:
        return dict(self.params)

    def arg(self, name: str) -> ArgSpec:
        for a in self.args:
            if a.name == name:
                return a
        raise KeyError(name)


# ---------------------------------------------------------------------------------------------
# Loading


def _expr(value: Any, where: str, allowed: set[str] | None = None) -> str:
    """Check that `value` is an expression (or a plain number) and return it as text."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise SpecError(f"{where}: expected an expression, got {value!r}")
    text = str(value)
    try:
        used = names_in(text)
    except InputError as exc:
        raise SpecError(f"{where}: {exc}") from None
    if allowed is not None:
        unknown = sorted(used - allowed)
        if unknown:
            raise SpecError(
                f"{where}: expression {text!r} uses unknown name {unknown[0]!r} (known: {', '.join(sorted(allowed))})"
            )
    return text


def _mapping(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise SpecError(f"{where}: expected a mapping, got {type(value).__name__}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    """A YAML list; absent (None) is empty. A bare string is refused, not read letter by letter."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise SpecError(f"{where}: expected a list, got {type(value).__name__} {value!r}")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SpecError(f"{where}: expected non-empty text, got {value!r}")
    return value


def _dtype(value: Any, where: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    if isinstance(value, str):
        if value in ELEMENT_TYPES:
            return value, ()
    elif isinstance(value, dict) and list(value) == ["struct"] and isinstance(value["struct"], dict):
        fields = tuple((str(k), v) for k, v in value["struct"].items())
        bad = [v for _, v in fields if v not in ELEMENT_TYPES or ELEMENT_TYPES[v].is_vector]
        if fields and not bad:
            return "struct", fields
    known = ", ".join(ELEMENT_TYPES)
    raise SpecError(f"{where}: dtype must be one of {known} or {{struct: {{field: dtype}}}}, got {value!r}")


def _args(raw: Any, where: str, params: set[str]) -> tuple[ArgSpec, ...]:
    if not isinstance(raw, list) or not raw:
        raise SpecError(f"{where}: args must be a non-empty list")
    out = []
    for i, item in enumerate(raw):
        w = f"{where}[{i}]"
        item = _mapping(item, w)
        role = item.get("role")
        if role not in ROLES:
            raise SpecError(f"{w}: role must be one of {', '.join(ROLES)}, got {role!r}")
        if role == "scalar":
            check_keys(item, ["name", "role", "value"], w)
            out.append(
                ArgSpec(
                    name=_text(item["name"], w),
                    role=role,
                    value=_expr(item["value"], f"{w}.value", params),
                )
            )
        else:
            check_keys(item, ["name", "role", "dtype", "size"], w)
            dtype, fields = _dtype(item["dtype"], f"{w}.dtype")
            out.append(
                ArgSpec(
                    name=_text(item["name"], w),
                    role=role,
                    dtype=dtype,
                    fields=fields,
                    size=_expr(item["size"], f"{w}.size", params),
                )
            )
    names = [a.name for a in out]
    if len(set(names)) != len(names):
        raise SpecError(f"{where}: argument names repeat: {names}")
    return tuple(out)


def _find_line(source: str, text: str, where: str) -> int:
    hits = [i for i, line in enumerate(source.splitlines(), start=1) if text in line]
    if len(hits) != 1:
        what = "does not occur" if not hits else f"occurs on lines {hits}"
        raise SpecError(f"{where}: 'at' text {text!r} {what} in the source; it must name exactly one line")
    return hits[0]


def _pairs(raw: Any, where: str, allowed: set[str]) -> tuple[tuple[str, str], ...]:
    """An ordered {name: expr} mapping whose later entries may use the earlier ones."""
    out = []
    allowed = set(allowed)
    for name, value in _mapping(raw, where).items():
        out.append((str(name), _expr(value, f"{where}.{name}", allowed)))
        allowed.add(str(name))
    return tuple(out)


def _classes(raw: Any, where: str, names: set[str]) -> tuple[WarpClass, ...]:
    if not isinstance(raw, list) or not raw:
        raise SpecError(f"{where}: classes must be a non-empty list")
    out = []
    for i, item in enumerate(raw):
        w = f"{where}[{i}]"
        item = _mapping(item, w)
        check_keys(item, _CLASS_KEYS, w, optional=_CLASS_OPTIONAL)
        over = _pairs(item.get("over", {}), f"{w}.over", names)
        scope = names | {n for n, _ in over}
        let = _pairs(item.get("let", {}), f"{w}.let", scope)
        scope |= {n for n, _ in let}
        active = item.get("active")
        out.append(
            WarpClass(
                count=_expr(item["count"], f"{w}.count", scope),
                index=_expr(item["index"], f"{w}.index", scope),
                over=over,
                let=let,
                active=None if active is None else _expr(active, f"{w}.active", scope),
            )
        )
    return tuple(out)


def _shared_arrays(source: str) -> set[str]:
    return set(re.findall(r"__shared__\s+[\w\s]*?\b(\w+)\s*\[", source))


def _model(raw: Any, where: str, params: set[str], source: str, args: tuple[ArgSpec, ...]) -> ModelSpec:
    raw = _mapping(raw, where)
    check_keys(raw, _MODEL_KEYS, where, optional=_MODEL_OPTIONAL)
    vars_ = _pairs(raw.get("vars", {}), f"{where}.vars", params | set(LANE_NAMES))
    names = params | set(LANE_NAMES) | {n for n, _ in vars_}
    pointers = {a.name: a for a in args if a.is_pointer}
    shared = _shared_arrays(source)
    sites = []
    raw_sites = raw["sites"]
    if not isinstance(raw_sites, list):
        raise SpecError(f"{where}.sites: expected a list")
    for i, item in enumerate(raw_sites):
        w = f"{where}.sites[{i}]"
        item = _mapping(item, w)
        check_keys(item, _SITE_KEYS, w, optional=("field",))
        space, op = item["space"], item["op"]
        array = _text(item["array"], f"{w}.array")
        if not isinstance(space, str) or space not in ("global", "shared"):
            raise SpecError(f"{w}: space must be global or shared, got {space!r}")
        if not isinstance(op, str) or op not in ("load", "store"):
            raise SpecError(f"{w}: op must be load or store, got {op!r}")
        fld = item.get("field")
        if fld is not None:
            fld = _text(fld, f"{w}.field")
        if space == "global":
            if array not in pointers:
                raise SpecError(
                    f"{w}: global array {array!r} is not a pointer argument (pointers: {', '.join(pointers) or 'none'})"
                )
            if fld is not None and fld not in pointers[array].field_names:
                raise SpecError(
                    f"{w}: {array} has no field {fld!r} (fields: {', '.join(pointers[array].field_names) or 'none'})"
                )
            if fld is None and pointers[array].field_names:
                raise SpecError(f"{w}: {array} is a struct/vector array; name the field accessed")
        elif array not in shared:
            raise SpecError(
                f"{w}: {array!r} is not a __shared__ array of the source (found: {', '.join(sorted(shared)) or 'none'})"
            )
        at = _text(item["at"], f"{w}.at")
        sites.append(
            SiteSpec(
                at=at,
                line=_find_line(source, at, w),
                space=space,
                op=op,
                array=array,
                field=fld,
                classes=_classes(item["classes"], f"{w}.classes", names),
            )
        )
    exact = raw.get("exact_when")
    return ModelSpec(
        flops=_expr(raw["flops"], f"{where}.flops", names - set(LANE_NAMES)),
        global_load_elements=_expr(
            raw["global_load_elements"], f"{where}.global_load_elements", names - set(LANE_NAMES)
        ),
        barriers=_expr(raw["barriers"], f"{where}.barriers", names - set(LANE_NAMES)),
        divergent_branches=_expr(raw["divergent_branches"], f"{where}.divergent_branches", names - set(LANE_NAMES)),
        sites=tuple(sites),
        vars=vars_,
        exact_when=None if exact is None else _expr(exact, f"{where}.exact_when", names),
        notes=str(raw.get("notes", "")).strip(),
    )


def kernel_from_mapping(name: str, raw: Any, where: str) -> KernelSpec:
    """Validate one catalog entry (`where` is the file it comes from)."""
    path, where = where, f"{where}: kernel {name}"
    raw = _mapping(raw, where)
    check_keys(raw, _KERNEL_KEYS, where, optional=_KERNEL_OPTIONAL)
    params_raw = _mapping(raw["params"], f"{where}.params")
    for p, v in params_raw.items():
        if isinstance(v, bool) or not isinstance(v, int):
            raise SpecError(f"{where}.params.{p}: default must be an integer, got {v!r}")
    params = {str(k): int(v) for k, v in params_raw.items()}
    pnames = set(params)
    defines = tuple(_list(raw.get("defines"), f"{where}.defines"))
    for d in defines:
        if not isinstance(d, str) or d not in pnames:
            raise SpecError(f"{where}.defines: {d!r} is not a parameter ({', '.join(pnames)})")
    requires = []
    for i, item in enumerate(_list(raw.get("requires"), f"{where}.requires")):
        w = f"{where}.requires[{i}]"
        item = _mapping(item, w)
        check_keys(item, ["check", "message"], w)
        requires.append(
            Requirement(
                _expr(item["check"], f"{w}.check", pnames),
                " ".join(_text(item["message"], f"{w}.message").split()),
            )
        )
    launch_raw = modern_keys(_mapping(raw["launch"], f"{where}.launch"))
    check_keys(launch_raw, ["grid", "block", "dynamic_shared_memory_bytes"], f"{where}.launch")
    dims = {}
    for key in ("grid", "block"):
        value = launch_raw[key]
        if not isinstance(value, list) or not 1 <= len(value) <= 3:
            raise SpecError(f"{where}.launch.{key}: expected a list of 1 to 3 expressions")
        dims[key] = tuple(_expr(v, f"{where}.launch.{key}", pnames) for v in value)
    launch = LaunchSpec(
        dims["grid"],
        dims["block"],
        _expr(launch_raw["dynamic_shared_memory_bytes"], f"{where}.launch", pnames),
    )
    source = _text(raw["source"], f"{where}.source")
    kernel = _text(raw["kernel"], f"{where}.kernel")
    if not re.search(rf"__global__\s+void\s+{re.escape(kernel)}\s*\(", source):
        raise SpecError(f"{where}: the source has no '__global__ void {kernel}('")
    args = _args(raw["args"], f"{where}.args", pnames)
    seed = raw["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise SpecError(f"{where}.seed: must be a non-negative integer, got {seed!r}")
    tol = raw["tolerance"]
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or tol < 0:
        raise SpecError(f"{where}.tolerance: must be a number >= 0, got {tol!r}")
    reference = _text(raw["reference"], f"{where}.reference")
    if not reference.isidentifier():
        raise SpecError(f"{where}.reference: must be a function name, got {reference!r}")
    differ = _engines_differ(raw.get("engines_differ"), f"{where}.engines_differ")
    realistic = _mapping(raw.get("realistic") or {}, f"{where}.realistic")
    for p, v in realistic.items():
        if p not in pnames or isinstance(v, bool) or not isinstance(v, int):
            raise SpecError(
                f"{where}.realistic.{p}: must be a parameter with an integer value, "
                f"got {v!r} (parameters: {', '.join(sorted(pnames))})"
            )
    return KernelSpec(
        name=name,
        description=" ".join(_text(raw["description"], f"{where}.description").split()),
        origin=" ".join(_text(raw["origin"], f"{where}.origin").split()),
        kernel=kernel,
        params=tuple(params.items()),
        launch=launch,
        args=args,
        seed=seed,
        reference=reference,
        tolerance=float(tol),
        source=source,
        model=_model(raw["model"], f"{where}.model", pnames, source, args),
        defines=defines,
        requires=tuple(requires),
        engines_differ=differ,
        realistic=tuple((str(k), int(v)) for k, v in realistic.items()),
        path=path,
    )


def _engines_differ(raw: Any, where: str) -> tuple[tuple[str, str], ...]:
    """counter name -> why the two engines count it differently (counter names checked)."""
    if raw is None:
        return ()
    from perfcalc.specs.counters import COUNTER_NAMES

    items = _mapping(raw, where)
    out = []
    for name, why in items.items():
        if name not in COUNTER_NAMES:
            raise SpecError(f"{where}: {name!r} is not a counter ({', '.join(COUNTER_NAMES)})")
        out.append((str(name), " ".join(_text(why, f"{where}.{name}").split())))
    return tuple(out)


def load_kernel_file(path: str | Path) -> dict[str, KernelSpec]:
    """Load and validate a catalog file (the shipped one or a user's own)."""
    path = Path(path)
    data = read_mapping(path)
    check_keys(data, ["schema_version", "kernels"], str(path))
    if data["schema_version"] != SCHEMA_VERSION:
        raise SpecError(f"{path}: schema_version is {data['schema_version']!r}, this perfcalc reads {SCHEMA_VERSION}")
    kernels = _mapping(data["kernels"], f"{path}: kernels")
    if not kernels:
        raise SpecError(f"{path}: kernels is empty")
    return {str(name): kernel_from_mapping(str(name), raw, str(path)) for name, raw in kernels.items()}


@cache
def catalog() -> dict[str, KernelSpec]:
    """The shipped catalog, loaded once."""
    return load_kernel_file(data_path("kernels.yaml"))


def get_kernel(name: str, catalog_file: str | Path | None = None) -> KernelSpec:
    """A kernel from the shipped catalog, or from `catalog_file` when given."""
    kernels = catalog() if catalog_file is None else load_kernel_file(catalog_file)
    if name not in kernels:
        where = "kernels.yaml" if catalog_file is None else str(catalog_file)
        from perfcalc.suggest import did_you_mean

        raise InputError(
            f"unknown kernel {name!r}{did_you_mean(str(name), kernels)} in {where}; known: {', '.join(kernels)}"
        )
    return kernels[name]


# ---------------------------------------------------------------------------------------------
# Evaluating a kernel for given parameters


def resolve_params(spec: KernelSpec, overrides: Mapping[str, int] | None = None) -> dict[str, int]:
    """Defaults with the user's overrides, checked against the kernel's requirements."""
    params = spec.defaults
    for name, value in (overrides or {}).items():
        if name not in params:
            raise InputError(f"kernel {spec.name} has no parameter {name!r} (parameters: {', '.join(params)})")
        if isinstance(value, bool) or not isinstance(value, int):
            raise InputError(f"parameter {name}={value!r} of kernel {spec.name} must be an integer")
        params[name] = value
    for req in spec.requires:
        if not evaluate(req.check, params):
            shown = ", ".join(f"{k}={v}" for k, v in params.items())
            raise InputError(f"kernel {spec.name} with {shown}: {req.message} (kernels.yaml requires '{req.check}')")
    return params


def as_int(value: Any, what: str) -> int:
    """An expression result that must be a whole number (counts, sizes, launch dimensions)."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, float):
        if not value.is_integer():
            raise InputError(f"{what} evaluates to {value}, which is not a whole number")
        value = int(value)
    if hasattr(value, "item"):
        return as_int(value.item(), what)
    if not isinstance(value, int):
        raise InputError(f"{what} evaluates to {value!r}, not a number")
    return value


def launch_geometry(spec: KernelSpec, params: Mapping[str, int]) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """(grid, block, dynamic shared bytes) for the parameters."""
    grid = tuple(as_int(evaluate(e, params), f"{spec.name} grid '{e}'") for e in spec.launch.grid)
    block = tuple(as_int(evaluate(e, params), f"{spec.name} block '{e}'") for e in spec.launch.block)
    dyn = as_int(evaluate(spec.launch.dynamic_shared_memory_bytes, params), f"{spec.name} dynamic_shared_memory_bytes")
    for what, dims in (("grid", grid), ("block", block)):
        if any(d <= 0 for d in dims):
            raise InputError(f"kernel {spec.name}: {what} {dims} has a dimension <= 0 for {dict(params)}")
    return grid, block, dyn
