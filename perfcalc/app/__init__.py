"""Whole CUDA programs run as they are (issue 31): `perfcalc app prog.cu -- args`, and
`perfcalc.app(files, args)` in the library.

build.py builds the program as its build does against perfcalc's CUDA runtime stand-in;
session.py runs its main() in a child process and serves its GPU: every launch on the PTX engine
over the program's own memory, counted and (on a product) timed. The result is an AppReport: the
program's exit status and output, one LaunchRecord per counted launch, and a summary per kernel
like Nsight Systems' kernel summary.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfcalc.analysis.app_launches import LaunchRecord
from perfcalc.analysis.sampling import DEFAULT_BUDGET_S, check_budget
from perfcalc.errors import InputError
from perfcalc.results import Result, plain

__all__ = ["AppReport", "KernelSummary", "app"]


@dataclass(frozen=True)
class KernelSummary(Result):
    """One kernel over the whole run: calls, predicted time in total and as a share."""

    kernel: str
    calls: int
    total_time_s: float | None
    share: float | None
    average_time_s: float | None


@dataclass(frozen=True)
class AppReport(Result):
    """A whole program's run on the modelled GPU."""

    files: tuple[str, ...]
    program_args: tuple[str, ...]  # what its main() got
    exit_status: int
    compiler: str
    cc: str
    gpu: str | None
    launches: tuple[LaunchRecord, ...]
    kernel_summary: tuple[KernelSummary, ...]
    uncounted_launches: int
    seconds: float
    stdout: str | None = None
    stderr: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def predicted_time_s(self) -> float | None:
        times = [r.predicted_time_s for r in self.launches]
        return None if not times or any(t is None for t in times) else sum(t for t in times if t is not None)

    def to_dict(self) -> dict[str, Any]:
        doc = {f: plain(getattr(self, f)) for f in self.__dataclass_fields__}
        doc["predicted_time_s"] = self.predicted_time_s
        return doc


def summarise(launches: Sequence[LaunchRecord]) -> tuple[KernelSummary, ...]:
    """Per kernel, in order of predicted time (then calls): Nsight Systems' kernel summary."""
    by: dict[str, list[LaunchRecord]] = {}
    for r in launches:
        by.setdefault(r.short_name, []).append(r)
    timed = all(r.predicted_time_s is not None for r in launches) and bool(launches)
    total = sum(r.predicted_time_s or 0.0 for r in launches) if timed else None
    rows = []
    for name, rs in by.items():
        t = sum(r.predicted_time_s or 0.0 for r in rs) if timed else None
        rows.append(
            KernelSummary(
                name,
                len(rs),
                t,
                None if t is None or not total else t / total,
                None if t is None else t / len(rs),
            )
        )
    return tuple(sorted(rows, key=lambda k: (-(k.total_time_s or 0.0), -k.calls, k.kernel)))


def app(
    files: Sequence[str],
    args: Sequence[str] = (),
    gpu: str | None = None,
    cc: str | None = None,
    include_dirs: Sequence[str] = (),
    defines: Sequence[str] = (),
    kernel: str | None = None,
    launch_skip: int = 0,
    launch_count: int | None = None,
    max_seconds: float = 600.0,
    cwd: str | None = None,
    nvcc: str | None = None,
    capture: bool = True,
    on_launch: Callable[[int, str], None] | None = None,
    stdout_to_stderr: bool = False,
    nvcc_options: Sequence[str] = (),
    exact: bool = False,
    cache_budget_s: float = DEFAULT_BUDGET_S,
) -> AppReport:
    """Build the program from `files` (its .cu, .cpp and .c sources, with -I `include_dirs` and
    -D `defines` as `NAME` or `NAME=VALUE`), run its main() with `args` on the modelled GPU
    (`gpu`: a product, which also times every launch; else `cc`'s rules, default CC 9.0), and
    report every launch. `nvcc_options`: the options of the program's build that change its
    device code (-std=c++NN, --extended-lambda, --expt-relaxed-constexpr, -use_fast_math, -ftz=,
    -prec-div=, -prec-sqrt=, -fmad=). `kernel` (a regex),
    `launch_skip` and `launch_count` select the launches counted, as Nsight Compute's
    --kernel-name, --launch-skip and --launch-count do; every launch runs. `capture`: keep the
    program's stdout and stderr in the report (else they pass through, its stdout to perfcalc's
    stderr with `stdout_to_stderr`, so a JSON on stdout stays clean)."""
    from perfcalc.analysis.programs import CompileFlags, compile_target, route
    from perfcalc.app.build import build, checked_nvcc_options
    from perfcalc.app.output import HEAD_BYTES, TAIL_BYTES, KeptOutput
    from perfcalc.app.session import Selection, run_program
    from perfcalc.specs.target import resolve_target
    from perfcalc.units import binary_bytes

    if isinstance(files, str) or not files:
        raise InputError("files must be a list of the program's source files (.cu, .cpp, .c)")
    if launch_skip < 0 or (launch_count is not None and launch_count < 1):
        raise InputError("launch_skip must be >= 0 and launch_count >= 1")
    check_budget(cache_budget_s, "cache_budget_s")
    options = checked_nvcc_options(nvcc_options)
    tools = route("nvcc", nvcc)
    assert tools is not None  # route("nvcc") raises where it cannot build
    target = resolve_target(cc, gpu, default_product=False)
    flags = tuple(d if d.startswith("-D") else f"-D{d}" for d in defines)
    wanted = CompileFlags(compile_target(target.arch), tuple(include_dirs), flags, options)
    program = build(list(files), tools, wanted, cwd=cwd)
    selection = Selection(kernel, launch_skip, launch_count)
    kept = (KeptOutput(), KeptOutput()) if capture else None
    try:
        passed = (None, 2 if stdout_to_stderr else None, None)
        streams = (subprocess.DEVNULL, kept[0].fd, kept[1].fd) if kept else passed
        budget = None if exact else cache_budget_s
        outcome = run_program(
            program, args, target, selection, max_seconds, cwd, on_launch, streams=streams, cache_budget_s=budget
        )
    finally:
        texts = [k.text() for k in kept] if kept else [None, None]
    streams_kept = zip(kept, ("stdout", "stderr"), strict=True) if kept else ()
    notes = [
        f"the program wrote {binary_bytes(k.total)} to {name}: the report keeps its first "
        f"{binary_bytes(HEAD_BYTES)} and last {binary_bytes(TAIL_BYTES)}"
        for k, name in streams_kept
        if k.left_out
    ]
    timed = any("cudaEventElapsedTime" in Path(u.path).read_text(errors="replace") for u in program.units)
    followed = sum(1 for r in outcome.launches if r.cache_sample is not None)
    if followed:
        notes.append(
            f"{followed} launch(es) ran past the cache model's budget ({cache_budget_s:g} s of its work): it "
            "followed their leading waves and extrapolated their caches and DRAM traffic; counters are exact "
            "(--exact follows every block)"
        )
    if gpu is None:
        notes.append("no --gpu: launches are counted, not timed" + (" (cudaEventElapsedTime reads 0)" if timed else ""))
    elif timed:
        notes.append(
            f"cudaEventElapsedTime in the program reads the predicted time of the launches between its events "
            f"on {target.name}, not a measurement"
        )
    return AppReport(
        tuple(os.path.relpath(u.path, cwd or ".") for u in program.units),
        tuple(args),
        outcome.exit_status,
        program.compiler,
        target.cc,
        None if target.gpu is None else target.gpu.key,
        tuple(outcome.launches),
        summarise(outcome.launches),
        outcome.uncounted,
        outcome.seconds,
        texts[0],
        texts[1],
        tuple(notes),
    )
