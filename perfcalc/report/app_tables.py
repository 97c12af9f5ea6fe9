"""`perfcalc app`'s tables: one row per counted launch (Nsight Compute's view) and one per kernel
over the run (Nsight Systems' kernel summary)."""

from __future__ import annotations

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


def launches_table(report: Any) -> Table:
    rows = []
    for r in report.launches:
        rows.append(
            {
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
                "error_band": r.error_band,
            }
        )
    notes = list(report.notes)
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
    if report.uncounted_launches:
        notes.append(f"{report.uncounted_launches} more launches ran exactly but are not counted (--kernel/--launch-*)")
    return Table(
        LAUNCH_COLUMNS,
        rows,
        title=f"Launches of {' '.join(report.files)} on {report.gpu or 'CC ' + report.cc}",
        headers=HEADERS,
        notes=notes,
        name="launches",
        main=True,
        percent=("occupancy",),
        none_text={"predicted_time_s": "- (no --gpu)", "bound": "-", "error_band": "-"},
    )


def kernels_table(report: Any) -> Table:
    rows = [
        {
            "kernel": k.kernel,
            "calls": k.calls,
            "total_time_s": k.total_time_s,
            "share": k.share,
            "average_time_s": k.average_time_s,
        }
        for k in report.kernels
    ]
    return Table(
        ["kernel", "calls", "total_time_s", "share", "average_time_s"],
        rows,
        title="Kernels over the run (predicted)",
        headers={"total_time_s": "total time", "average_time_s": "average time"},
        name="kernels",
        percent=("share",),
        notes=[f"the program exited with status {report.exit_status}"],
    )


def advice_table(report: Any) -> Table:
    """What to change in each kernel, from its longest launch (on a product; empty without)."""
    longest: dict[str, Any] = {}
    for r in report.launches:
        if r.advice is not None and (
            r.short_name not in longest or r.predicted_time_s > longest[r.short_name].predicted_time_s
        ):
            longest[r.short_name] = r
    rows = [
        {"kernel": name, "index": r.index, "change": change}
        for name, r in longest.items()
        for change in what_to_change(r.advice)
    ]
    return Table(
        ["kernel", "index", "change"],
        rows,
        title="What to change in each kernel (its longest launch)",
        headers={
            "index": "launch",
            "change": "change (from the occupancy engine, the counters and the time model's bound)",
        },
        name="advice",
        on_request=not rows,
    )
