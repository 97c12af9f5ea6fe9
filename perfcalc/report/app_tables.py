"""`perfcalc app`'s tables: one row per counted launch (Nsight Compute's view) and one per kernel
over the run (Nsight Systems' kernel summary). Each takes the runs of one program, one per --gpu:
with several, every table is one long table with a `gpu` column first."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perfcalc.analysis.launch_advice import what_to_change
from perfcalc.report.table import Table

LAUNCH_COLUMNS = [
    "index",
    "kernel",
    "grid",
    "block",
    "dynamic_shared_memory_bytes",
    "registers_per_thread",
    "occupancy",
    "limiters",
    "global_load_requests",
    "global_load_transactions",
    "global_store_requests",
    "global_store_transactions",
    "shared_load_wavefronts",
    "bank_conflicts",
    "flops",
    "predicted_time_s",
    "bound",
    "error_band",
]
HEADERS = {
    "index": "#",
    "dynamic_shared_memory_bytes": "dyn smem (B)",
    "registers_per_thread": "regs",
    "global_load_requests": "ld req",
    "global_load_transactions": "ld sectors",
    "global_store_requests": "st req",
    "global_store_transactions": "st sectors",
    "shared_load_wavefronts": "shared ld wavefronts",
    "bank_conflicts": "bank conflicts",
    "predicted_time_s": "predicted time",
    "error_band": "how sure (held-back launches)",
}


def _dims(d: Any) -> str:
    x, y, z = d
    return f"{x}" if y == z == 1 else (f"{x}x{y}" if z == 1 else f"{x}x{y}x{z}")


def _gpu(reports: Sequence[Any], report: Any) -> dict[str, Any]:
    """The row's leading `gpu` cell when the runs are on several GPUs."""
    return {"gpu": report.gpu} if len(reports) > 1 else {}


def _columns(reports: Sequence[Any], columns: list[str]) -> list[str]:
    return ["gpu", *columns] if len(reports) > 1 else columns


def _on(reports: Sequence[Any]) -> str:
    return ", ".join(r.gpu or "CC " + r.cc for r in reports)


def runs_document(reports: Sequence[Any]) -> Any:
    """The JSON: one run's report, or with several GPUs the program and one report per GPU (as
    `run` does)."""
    if len(reports) == 1:
        return reports[0]
    first = reports[0]
    runs = [r.to_dict() for r in reports]
    return {"files": list(first.files), "program_args": list(first.program_args), "runs": runs}


def launches_table(reports: Sequence[Any]) -> Table:
    rows = []
    notes: list[str] = []
    for report in reports:
        rows += _launch_rows(reports, report)
        where = f"on {report.gpu}: " if len(reports) > 1 else ""
        notes += [n for n in report.notes if n not in notes]
        notes += [where + n for n in _launch_notes(report)]
    return Table(
        _columns(reports, LAUNCH_COLUMNS),
        rows,
        title=f"Launches of {' '.join(reports[0].files)} on {_on(reports)}",
        headers=HEADERS,
        notes=notes,
        name="launches",
        main=True,
        percent=("occupancy",),
        none_text={"predicted_time_s": "- (no --gpu)", "bound": "-", "error_band": "-"},
    )


def _launch_rows(reports: Sequence[Any], report: Any) -> list[dict[str, Any]]:
    rows = []
    for r in report.launches:
        rows.append(
            {
                **_gpu(reports, report),
                "index": r.index,
                "kernel": r.short_name,
                "grid": _dims(r.grid),
                "block": _dims(r.block),
                "dynamic_shared_memory_bytes": r.dynamic_shared_memory_bytes,
                "registers_per_thread": r.registers_per_thread,
                "occupancy": r.occupancy,
                "limiters": ", ".join(r.limiters),
                **{k: r.counters.get(k) for k in LAUNCH_COLUMNS if k in r.counters},
                "predicted_time_s": r.predicted_time_s,
                "bound": r.bound or ("fault: " + r.fault if r.fault else None),
                "error_band": None if r.error_band is None else r.error_band.text,
            }
        )
    return rows


def _launch_notes(report: Any) -> list[str]:
    """Races, overruns, caches extrapolated and launches left uncounted: what the counts do not say."""
    notes = []
    for field_, thing, tool in (
        ("race", "a race or a divergent barrier", "racecheck or synccheck"),
        ("overrun", "an access past its allocation into memory the GPU has mapped", "memcheck"),
    ):
        first = {r.short_name: r for r in reversed(report.launches) if getattr(r, field_)}  # each kernel's first
        notes += [
            f"launch {r.index} ran through {thing}, as a GPU does (compute-sanitizer's {tool} reports it): "
            f"{getattr(r, field_)}"
            for r in sorted(first.values(), key=lambda r: r.index)
        ]
    first = {r.short_name: r for r in reversed(report.launches) if r.cache_sample}  # each kernel's first
    notes += [
        f"launch {r.index} ({r.short_name}): {r.cache_sample}" for r in sorted(first.values(), key=lambda r: r.index)
    ]
    if report.uncounted_launches:
        notes.append(f"{report.uncounted_launches} more launches ran exactly but are not counted (--kernel/--launch-*)")
    return notes


def kernels_table(reports: Sequence[Any]) -> Table:
    rows = [
        {
            **_gpu(reports, report),
            "kernel": k.kernel,
            "calls": k.calls,
            "total_time_s": k.total_time_s,
            "share": k.share,
            "average_time_s": k.average_time_s,
        }
        for report in reports
        for k in report.kernel_summary
    ]
    return Table(
        _columns(reports, ["kernel", "calls", "total_time_s", "share", "average_time_s"]),
        rows,
        title="Kernels over the run (predicted)",
        headers={"total_time_s": "total time", "average_time_s": "average time"},
        name="kernels",
        percent=("share",),
        notes=[
            ("on " + r.gpu + ": " if len(reports) > 1 else "") + f"the program exited with status {r.exit_status}"
            for r in reports
        ],
    )


def advice_table(reports: Sequence[Any]) -> Table:
    """What to change in each kernel, from its longest launch (on a product; empty without)."""
    rows = []
    for report in reports:
        longest: dict[str, Any] = {}
        for r in report.launches:
            if r.advice is not None and (
                r.short_name not in longest or r.predicted_time_s > longest[r.short_name].predicted_time_s
            ):
                longest[r.short_name] = r
        rows += [
            {**_gpu(reports, report), "kernel": name, "index": r.index, "change": change}
            for name, r in longest.items()
            for change in what_to_change(r.advice)
        ]
    return Table(
        _columns(reports, ["kernel", "index", "change"]),
        rows,
        title="What to change in each kernel (its longest launch)",
        headers={
            "index": "launch",
            "change": "change (from the occupancy engine, the counters and the time model's bound)",
        },
        name="advice",
        on_request=not rows,
    )
