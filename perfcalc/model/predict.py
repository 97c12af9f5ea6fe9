"""Analytic counters of a catalog kernel for a CC, computed without running the grid.

A catalog entry's model (kernels.yaml) lists, per memory access site, classes of warp executions
that cost the same: how many there are (an expression of the parameters) and the lane indices of
one representative warp (an expression of `lane`). Each representative warp is priced once
through `perfcalc.memory` for the CC, exactly as the execution core prices every warp it runs,
and multiplied by its count. The totals carry the execution core's counter names (see
`perfcalc.sim.counters`), so a prediction and a run line up field by field.

Global addresses are taken relative to a 256-byte aligned array base (cudaMalloc aligns to at
least 256 bytes; no family's rule looks at address bits above the 256-byte boundary); shared
addresses from the start of the array. The model is exact only where its classes are: a
kernel's `exact_when` condition says where (`Prediction.exact`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from perfcalc.errors import SpecError
from perfcalc.expr import MAX_MAGNITUDE, evaluate
from perfcalc.specs.counters import SITE_COUNTER_NAMES, CounterSet
from perfcalc.specs.kernels import KernelSpec, SiteSpec, WarpClass, arg_dtype, as_int, resolve_params
from perfcalc.specs.types import find_element_type

# A source line's predicted memory counters (all sites on the line summed); the other fields are 0.
SitePrediction = CounterSet


@dataclass(frozen=True, kw_only=True)
class Prediction(CounterSet):
    """The analytic model's counters for one kernel, parameters and CC (the counter schema's names).

    `global_load_elements` is the number of elements read from global memory by all threads
    and `cgma` = flops / global_load_elements (the seeds' compute to global memory access
    ratio; None when the kernel loads nothing). `exact` is False where the kernel's model
    states it is not exact for these parameters.
    """

    kernel: str
    cc: str
    params: dict[str, int]
    global_load_elements: int
    cgma: float | None
    exact: bool
    per_site: dict[int, SitePrediction] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def counters(self) -> dict[str, int]:
        """The predicted counters by the schema's names."""
        return self.values()


def _scalar(value: Any, what: str) -> Any:
    if np.ndim(value) != 0:
        raise SpecError(f"{what} depends on the lane; it must be one number per warp class")
    return value.item() if hasattr(value, "item") else value


def _shared_element_bytes(spec: KernelSpec, array: str) -> int:
    match = re.search(rf"__shared__\s+(?:volatile\s+)?(unsigned\s+int|\w+)\s+{re.escape(array)}\s*\[", spec.source)
    found = find_element_type(match.group(1)) if match else None
    if found is None:
        raise SpecError(f"kernel {spec.name}: cannot find the element type of __shared__ {array}")
    return found.size


def _global_layout(spec: KernelSpec, site: SiteSpec) -> tuple[int, int, int]:
    """(element bytes, field offset, access bytes) of a global site's array and field."""
    arg = spec.arg(site.array)
    dtype = arg_dtype(arg)
    if dtype.names is None:
        return dtype.itemsize, 0, dtype.itemsize
    fields = dtype.fields
    if fields is None or site.field is None:
        raise SpecError(f"access site {site.line}: a structured element needs the field it reads")
    field_dtype, offset = fields[site.field][:2]
    return dtype.itemsize, offset, field_dtype.itemsize


def _class_rows(
    spec: KernelSpec,
    site: SiteSpec,
    cls: WarpClass,
    names: Mapping[str, Any],
    elem: int,
    offset: int,
) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(count, byte addresses[32], active[32]) of each representative warp of a class."""
    rows = []
    over_names = [n for n, _ in cls.over]
    ranges = [range(as_int(evaluate(e, names), f"{spec.name} {site.at!r} over {n}")) for n, e in cls.over]
    for values in itertools.product(*ranges):
        scope = dict(names)
        scope.update(zip(over_names, values, strict=True))
        for n, e in cls.let:
            scope[n] = evaluate(e, scope)
        count = as_int(
            _scalar(evaluate(cls.count, scope), f"count of {site.at!r}"),
            f"{spec.name} count of {site.at!r}",
        )
        if not 0 <= count <= MAX_MAGNITUDE:
            raise SpecError(f"kernel {spec.name}: count of site {site.at!r} is {count:.4g}, outside 0 to 2**63 - 1")
        if count == 0:
            continue
        index = np.broadcast_to(np.asarray(evaluate(cls.index, scope), dtype=np.int64), (32,))
        active = (
            np.ones(32, dtype=bool)
            if cls.active is None
            else np.broadcast_to(np.asarray(evaluate(cls.active, scope), dtype=bool), (32,))
        )
        rows.append((count, index * elem + offset, active))
    return rows


def _price_site(
    spec: KernelSpec,
    site: SiteSpec,
    names: Mapping[str, Any],
    arch: Any,
    cache: str | None,
    bank_mode: int | None,
) -> SitePrediction:
    from perfcalc.memory import global_access_batch, shared_access_batch

    if site.space == "global":
        elem, offset, size = _global_layout(spec, site)
    else:
        elem = size = _shared_element_bytes(spec, site.array)
        offset = 0
    rows = [r for cls in site.classes for r in _class_rows(spec, site, cls, names, elem, offset)]
    if not rows:
        return SitePrediction()
    counts = np.array([r[0] for r in rows], dtype=np.int64)
    addresses = np.stack([r[1] for r in rows]).astype(np.int64)
    active = np.stack([r[2] for r in rows])
    if site.space == "global":
        cost = global_access_batch(arch, addresses, size, active, op=site.op, cache=cache)
        kind = f"global_{site.op}"
        return SitePrediction(
            **{
                f"{kind}_requests": int(np.dot(counts, np.asarray(cost.requests, dtype=np.int64))),
                f"{kind}_transactions": int(np.dot(counts, np.asarray(cost.transactions, dtype=np.int64))),
                f"{kind}_bytes": int(np.dot(counts, np.asarray(cost.bytes_moved, dtype=np.int64))),
            }
        )
    shared = shared_access_batch(arch, addresses, size, active, op=site.op, bank_mode=bank_mode)
    issued = active.any(axis=1).astype(np.int64)
    kind = f"shared_{site.op}"
    return SitePrediction(
        **{
            f"{kind}_requests": int(np.dot(counts, issued)),
            f"{kind}_wavefronts": int(np.dot(counts, np.asarray(shared.wavefronts, dtype=np.int64))),
            "bank_conflicts": int(np.dot(counts, np.asarray(shared.bank_conflicts, dtype=np.int64))),
        }
    )


def model_scope(spec: KernelSpec, params: Mapping[str, int]) -> dict[str, Any]:
    """Parameters, `lane` and the model's vars, evaluated in order."""
    scope: dict[str, Any] = dict(params)
    scope["lane"] = np.arange(32, dtype=np.int64)
    for name, text in spec.model.vars:
        scope[name] = evaluate(text, scope)
    return scope


def predict(
    kernel_spec: KernelSpec,
    params: Mapping[str, int] | None,
    arch: Any,
    cache: str | None = None,
    bank_mode: int | None = None,
) -> Prediction:
    """Predicted counters of `kernel_spec` with `params` (defaults filled in) on `arch`.

    `arch` is an Arch or any spelling `resolve_arch` accepts; `cache` and `bank_mode` are
    passed to memory/ as the execution core passes them.
    """
    from perfcalc.specs import resolve_arch

    if isinstance(arch, str):
        arch = resolve_arch(arch)
    spec = kernel_spec
    params = resolve_params(spec, params)
    scope = model_scope(spec, params)
    per_site: dict[int, SitePrediction] = {}
    for site in spec.model.sites:
        cost = _price_site(spec, site, scope, arch, cache, bank_mode)
        per_site[site.line] = per_site.get(site.line, SitePrediction()) + cost
    totals = SitePrediction()
    for cost in per_site.values():
        totals = totals + cost

    def total(text: str, what: str) -> int:
        return as_int(_scalar(evaluate(text, scope), what), f"{spec.name} {what}")

    flops = total(spec.model.flops, "flops")
    loads = total(spec.model.global_load_elements, "global_load_elements")
    exact = True if spec.model.exact_when is None else bool(evaluate(spec.model.exact_when, scope))
    notes = (
        ()
        if exact
        else (
            f"the model of {spec.name} is exact only when {spec.model.exact_when}; "
            f"these parameters ({', '.join(f'{k}={v}' for k, v in params.items())}) are outside it",
        )
    )
    return Prediction(
        kernel=spec.name,
        cc=arch.cc,
        params=dict(params),
        **{n: getattr(totals, n) for n in SITE_COUNTER_NAMES},
        flops=flops,
        divergent_branches=total(spec.model.divergent_branches, "divergent_branches"),
        barriers=total(spec.model.barriers, "barriers"),
        global_load_elements=loads,
        cgma=flops / loads if loads else None,
        exact=exact,
        per_site=dict(sorted(per_site.items())),
        notes=notes,
    )
