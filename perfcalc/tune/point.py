"""One point of a sweep on every product: the function every backend runs (issue 34).

A `Sweep` holds the launch as the user wrote it, with the space's names in it: the grid, block,
array counts, scalars and dynamic shared memory are expressions (`N/BN,N/BM`), the kernel's
template arguments may name axes (`gemm<BM>`), and every axis is also passed as `-D NAME=VALUE`.
`run_point` makes that launch for one point and runs `analyze` once per product, so a
configuration that cannot launch on one product still gets its time on the others. It depends
on nothing but its arguments (inputs are seeded; the compile is cached), which is why the
process pool, Ray and a resumed run give the same table to the last digit.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfcalc.errors import InputError, PerfcalcError
from perfcalc.expr import evaluate, shorten
from perfcalc.tune.space import Point, Value

STATUSES = ("ok", "cannot launch", "failed")


@dataclass(frozen=True)
class Sweep:
    """What every point shares: the file, the kernel, the launch with expressions, the products."""

    source: str
    kernel: str | None
    grid: str
    block: str
    gpus: tuple[str, ...]
    arrays: tuple[str, ...] = ()
    scalars: Mapping[str, str] = field(default_factory=dict)
    defines: Mapping[str, str] = field(default_factory=dict)
    dynamic_shared: str = "0"
    include_dirs: tuple[str, ...] = ()
    compiler: str | None = None
    constants: Mapping[str, str] = field(default_factory=dict)  # names for the expressions only (--let)
    budget_s: float = 1.0  # simulation seconds per prediction (sampling.py); run's default is 5

    def fingerprint(self, names: tuple[str, ...]) -> str:
        """Names this sweep in a results file: the request, the space's names and the source's bytes."""
        request: tuple[object, ...] = (self.kernel, self.grid, self.block, self.gpus, self.arrays)
        request += (sorted(self.scalars.items()), sorted(self.defines.items()), self.dynamic_shared)
        request += (self.include_dirs, self.compiler, names, sorted(self.constants.items()), self.budget_s)
        parts = [repr(request), Path(self.source).read_bytes().hex()]
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def run_point(sweep: Sweep, index: int, point: Point) -> list[dict[str, Any]]:
    """One row per product for the point: its status, predicted time, bound, occupancy, registers."""
    from perfcalc.analysis.analyze import RunOptions, SourceKernel, analyze
    from perfcalc.limits import time_limit
    from perfcalc.specs.target import resolve_target

    base = {"point": index, **point}
    try:
        kernel = _launch(sweep, point)
    except PerfcalcError as exc:
        return [base | _row(gpu, "cannot launch", note=_line(exc)) for gpu in sweep.gpus]
    assert isinstance(kernel, SourceKernel)
    rows = []
    for gpu in sweep.gpus:
        target = resolve_target(None, gpu)
        try:
            with time_limit(None):
                options = RunOptions("ptx", compiler=sweep.compiler, budget_s=sweep.budget_s)
                run = analyze(kernel, target, options).run
        except PerfcalcError as exc:
            status = "cannot launch" if _is_launch_limit(exc) else "failed"
            rows.append(base | _row(target.name, status, note=_line(exc)))
            continue
        report = run.launch_report
        time = report.time if report is not None else None
        rows.append(
            base
            | _row(
                target.name,
                "ok",
                time_s=None if time is None else time.predicted_time_s,
                bound=None if time is None else time.bound,
                error_band=None if time is None or time.error_band is None else time.error_band.p90,
                occupancy=run.occupancy.occupancy,
                registers=run.registers.per_thread,
                limiters=" ".join(run.occupancy.limiters),
            )
        )
    return rows


def _row(gpu: str, status: str, **values: Any) -> dict[str, Any]:
    row = {"gpu": gpu, "status": status, "time_s": None, "bound": None, "error_band": None, "occupancy": None}
    row |= {"registers": None, "limiters": None, "note": None}
    row.update(values)
    return row


def _line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]


def _is_launch_limit(exc: PerfcalcError) -> bool:
    """Refusals of the launch itself (too many threads, too much shared memory, no block fits)."""
    text = str(exc)
    return isinstance(exc, InputError) and bool(
        re.search(r"exceeds the limit|cannot launch|no block fits|too many registers|more shared memory", text)
    )


def _launch(sweep: Sweep, point: Point) -> object:
    """The SourceKernel for a point: every expression evaluated with the point's numbers."""
    from perfcalc.analysis.analyze import SourceKernel

    numbers: dict[str, Any] = {k: v for k, v in point.items() if not isinstance(v, str)}
    numbers = {**{k: _number(v, numbers, f"--let {k}") for k, v in sweep.constants.items()}, **numbers}
    scalars = {k: _number(v, numbers, f"-p {k}") for k, v in sweep.scalars.items()}
    numbers = {**scalars, **numbers}
    defines: dict[str, Any] = {k: _define_value(v) for k, v in point.items()}
    defines.update({k: _substituted(v, point) for k, v in sweep.defines.items()})
    return SourceKernel(
        Path(sweep.source),
        None if sweep.kernel is None else _template_arguments(sweep.kernel, point),
        _dims(sweep.grid, numbers, "--grid"),
        _dims(sweep.block, numbers, "--block"),
        tuple(_array(a, numbers) for a in sweep.arrays),
        scalars,
        defines,
        _whole(sweep.dynamic_shared, numbers, "--dynamic-shared", minimum=0),
        sweep.include_dirs,
    )


def check_sweep(sweep: Sweep, point: Point) -> None:
    """Fail before any work where the launch's expressions are wrong at the first point (an
    unknown name, a syntax error): a mistake in the command, not a configuration that fails."""
    from perfcalc.expr import names_in

    known = set(point) | set(sweep.scalars) | set(sweep.constants)
    texts = [
        *sweep.constants.values(),
        *sweep.grid.split(","),
        *sweep.block.split(","),
        sweep.dynamic_shared,
        *sweep.scalars.values(),
    ]
    texts += [a.partition("=")[2].rpartition(":")[2] for a in sweep.arrays if ":" in a and "=@" not in a]
    for text in texts:
        unknown = sorted(names_in(text) - known)
        if unknown:
            raise InputError(
                f"expression {shorten(text)!r}: unknown name {unknown[0]!r} "
                f"(known: the axes, -p and --let names {', '.join(sorted(known))})"
            )


def _define_value(v: Value) -> str:
    return str(v)


def _substituted(text: str, point: Point) -> str:
    """A -D value with the space's names replaced by the point's values."""
    return re.sub(r"\b[A-Za-z_]\w*\b", lambda m: str(point.get(m.group(0), m.group(0))), text)


def _template_arguments(kernel: str, point: Point) -> str:
    """`gemm<BM, float>` with BM the point's value; names outside <...> are left alone."""
    head, sep, rest = kernel.partition("<")
    return head + sep + _substituted(rest, point) if sep else kernel


def _dims(text: str, numbers: Mapping[str, Any], option: str) -> tuple[int, ...]:
    parts = [p for p in re.split(r"\s*,\s*", text.strip()) if p]
    if not 1 <= len(parts) <= 3:
        raise InputError(f"{option} {shorten(text)!r}: give 1 to 3 expressions separated by commas")
    return tuple(_whole(p, numbers, option, minimum=1) for p in parts)


def _whole(text: str, numbers: Mapping[str, Any], option: str, *, minimum: int) -> int:
    value = evaluate(text, numbers)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InputError(f"{option} {shorten(text)!r} = {value!r} at this point: expected a whole number >= {minimum}")
    return value


def _number(text: str, numbers: Mapping[str, Any], option: str) -> int | float:
    value = evaluate(text, numbers)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{option} {shorten(text)!r}: expected a number")
    return value


def _array(text: str, numbers: Mapping[str, Any]) -> str:
    """`A=float32:N*N` -> `A=float32:1048576`; `A=@file.npy` as given."""
    name, sep, spec = text.partition("=")
    dtype, colon, count = spec.rpartition(":")
    if not sep or spec.startswith("@") or not colon:
        return text
    return f"{name}={dtype}:{_whole(count, numbers, f'--array {name}', minimum=1)}"
