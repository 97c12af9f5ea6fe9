"""Rows for `perfcalc occupancy`: one configuration, the spreadsheet's sweeps, the block-size
suggestion and per-kernel ptxas results, plus the one-line hints and the JSON documents.

Numbers stay raw here (occupancy as a percentage column for tables, the fraction in JSON);
the renderer rounds. The sweeps are the data of NVIDIA's spreadsheet graphs ("Impact of Varying
Block Size / Register Count Per Thread / Shared Memory Usage Per Block"), computed in one
`occupancy_grid` call each and shared with `occupancy_plot`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, fields
from typing import Any

from perfcalc.model.hints import LIMITER_LABELS, Advice, hint_message
from perfcalc.model.occupancy import UNLIMITED, OccupancyInputs, OccupancyResult
from perfcalc.model.occupancy_sweep import Sweep
from perfcalc.report.render import to_jsonable
from perfcalc.report.table import Table
from perfcalc.specs import Arch
from perfcalc.specs.arch import display_file

CURRENT = "<- current"


# --- one configuration ---------------------------------------------------------------------


def input_rows(arch: Arch, inputs: OccupancyInputs) -> list[dict[str, Any]]:
    carveout = "default" if inputs.carveout is None else inputs.carveout
    rows = [
        ("compute capability", f"{arch.cc} ({arch.architecture})"),
        ("threads per block", inputs.block_size),
        ("registers per thread", inputs.registers_per_thread),
        ("static shared memory per block (bytes)", inputs.static_shared_memory_bytes),
        ("dynamic shared memory per block (bytes)", inputs.dynamic_shared_memory_bytes),
        ("shared memory carveout (%)", carveout),
        ("cache config", inputs.cache_config or "none"),
        ("barriers per block", inputs.block_barriers),
    ]
    return [{"input": k, "value": v} for k, v in rows]


def device_limit_rows(arch: Arch) -> list[dict[str, Any]]:
    """The CC's physical limits that occupancy uses, with the device-file key of each."""
    keys = [
        ("threads per warp", "warp_size"),
        ("max threads per block", "max_threads_per_block"),
        ("max warps per SM", "max_warps_per_sm"),
        ("max threads per SM", "max_threads_per_sm"),
        ("max blocks per SM", "max_blocks_per_sm"),
        ("registers per SM", "registers_per_sm"),
        ("max registers per block", "max_registers_per_block"),
        ("max registers per thread", "max_registers_per_thread"),
        ("register allocation unit", "register_allocation_unit"),
        ("register allocation granularity", "register_allocation_granularity"),
        ("warp allocation granularity", "warp_allocation_granularity"),
        ("sub-partitions", "sub_partitions"),
        ("shared memory per SM (bytes)", "shared_memory_per_sm_bytes"),
        ("max shared memory per block (bytes)", "max_shared_memory_per_block_bytes"),
        ("max shared memory per block, opt-in (bytes)", "max_shared_memory_per_block_optin_bytes"),
        ("reserved shared memory per block (bytes)", "reserved_shared_memory_per_block_bytes"),
        ("shared memory allocation unit (bytes)", "shared_memory_allocation_unit_bytes"),
        ("shared memory carveouts (KB)", "shared_memory_carveouts_kb"),
        ("L1/shared splits (shared KB)", "l1_shared_splits_kb"),
        ("block barriers per SM", "block_barriers_per_sm"),
    ]
    rows = []
    for label, key in keys:
        value = getattr(arch, key)
        if value is None:
            continue
        if key == "warp_allocation_granularity" and arch.register_allocation_granularity != "block":
            continue  # only 1.x rounds warps per block up (to pairs, H70); later CCs split by
            # sub-partitions, shown on their own row
        if key == "l1_shared_splits_kb":
            value = [shared for shared, _l1 in value]
        rows.append({"limit": label, "value": value, "key": key})
    return rows


def allocation_rows(result: OccupancyResult, warps: int) -> list[dict[str, Any]]:
    return [
        {"resource": "warps per block", "value": warps},
        {"resource": "registers per block (allocated)", "value": result.allocated_registers_per_block},
        {
            "resource": "shared memory per block (allocated, bytes)",
            "value": result.allocated_shared_memory_per_block_bytes,
        },
        {"resource": "shared memory per SM (configured, bytes)", "value": result.shared_memory_per_sm_bytes},
    ]


def limiter_rows(result: OccupancyResult) -> list[dict[str, Any]]:
    rows = []
    for name, blocks in result.block_limits.items():
        rows.append(
            {
                "limiter": LIMITER_LABELS[name],
                "blocks_per_sm": None if blocks == UNLIMITED else blocks,
                "is_limiter": name in result.limiters,
            }
        )
    return rows


def result_row(result: OccupancyResult) -> dict[str, Any]:
    return {
        "active_blocks_per_sm": result.active_blocks_per_sm,
        "active_warps_per_sm": result.active_warps_per_sm,
        "active_threads_per_sm": result.active_threads_per_sm,
        "occupancy": result.occupancy,
        "limiters": ", ".join(LIMITER_LABELS[n] for n in result.limiters),
    }


RESULT_HEADERS = {
    "active_blocks_per_sm": "active blocks/SM",
    "active_warps_per_sm": "active warps/SM",
    "active_threads_per_sm": "active threads/SM",
    "occupancy": "occupancy",
    "limiters": "limited by",
}
# How the text formats show the raw columns of the occupancy tables (Table's docstring).
SHOWN: dict[str, Any] = {
    "percent": ("occupancy", "tail_fill", "average_fill"),
    "flags": {"current": CURRENT, "is_limiter": "<- limiter"},
    "none_text": {"blocks_per_sm": "unlimited"},
}


def advice_lines(advice: Advice) -> list[str]:
    lines = [advice.zero_fit_reason] if advice.zero_fit_reason else []
    return lines + [hint_message(h) for h in advice.hints]


def warps_per_block(arch: Arch, inputs: OccupancyInputs) -> int:
    return -(-inputs.block_size // arch.warp_size)


def occupancy_context(arch: Arch, inputs: OccupancyInputs) -> dict[str, Any]:
    """What an occupancy row is about, under the library's names (CSV's leading columns)."""
    return {
        "cc": arch.cc,
        "block_size": inputs.block_size,
        "registers_per_thread": inputs.registers_per_thread,
        "static_shared_memory_bytes": inputs.static_shared_memory_bytes,
        "dynamic_shared_memory_bytes": inputs.dynamic_shared_memory_bytes,
    }


def occupancy_tables(arch: Arch, advice: Advice) -> list[Table]:
    """Inputs, physical limits, allocations, per-limiter blocks, the result and what to change."""
    result = advice.result
    return [
        Table(["input", "value"], input_rows(arch, advice.inputs), title="Inputs", name="inputs"),
        Table(
            ["limit", "value", "key"],
            device_limit_rows(arch),
            title=f"Physical limits of CC {arch.cc}",
            name="device_limits",
            headers={"key": display_file(arch.source_file)},
        ),
        Table(
            ["resource", "value"],
            allocation_rows(result, warps_per_block(arch, advice.inputs)),
            title="Allocated resources",
            name="allocation",
        ),
        Table(
            ["limiter", "blocks_per_sm", "is_limiter"],
            limiter_rows(result),
            title="Blocks per SM by each limit",
            headers={"blocks_per_sm": "blocks/SM", "is_limiter": "limiting"},
            name="block_limits",
            **SHOWN,
        ),
        Table(
            list(RESULT_HEADERS),
            [result_row(result)],
            title="Occupancy",
            headers=RESULT_HEADERS,
            notes=advice_lines(advice),
            name="occupancy",
            main=True,
            context=occupancy_context(arch, advice.inputs),
            **SHOWN,
        ),
    ]


def occupancy_document(arch: Arch, advice: Advice) -> dict[str, Any]:
    """JSON: the OccupancyResult fields (same names) at the top level, plus context.

    Added keys: cc, inputs (OccupancyInputs fields), warps_per_block,
    device_limits (the Arch keys shown in the table), zero_fit_reason (null when a block fits),
    hints (kind, limiters, changes, active_blocks_per_sm, occupancy, message).
    """
    doc: dict[str, Any] = {"cc": arch.cc, "inputs": asdict(advice.inputs)}
    doc.update(advice.result.to_dict())  # 'unlimited' limits as null
    doc["warps_per_block"] = warps_per_block(arch, advice.inputs)
    doc["device_limits"] = {r["key"]: getattr(arch, r["key"]) for r in device_limit_rows(arch)}
    doc["zero_fit_reason"] = advice.zero_fit_reason
    doc["hints"] = [{**to_jsonable(h), "message": hint_message(h)} for h in advice.hints]
    return to_jsonable(doc)


# `perfcalc occupancy --format json` has one shape whatever the options (issue 35): one
# configuration's fields at the top level, null where no single configuration was asked for
# (--suggest alone, --sweep, --ptxas, several --gpu), then every section, null where not asked for.
SINGLE_KEYS = (
    "cc",
    "inputs",
    *(f.name for f in fields(OccupancyResult)),  # occupancy_document's keys, in its order
    "warps_per_block",
    "device_limits",
    "zero_fit_reason",
    "hints",
)
SECTIONS = ("waves", "sweeps", "suggestion", "kernels", "gpus")


def occupancy_json(
    single: dict[str, Any] | None = None,
    *,
    cc: str | None = None,
    inputs: dict[str, Any] | None = None,
    notes: Sequence[str] = (),
    **sections: Any,
) -> dict[str, Any]:
    """The one JSON document of `perfcalc occupancy` from the parts a command line asked for."""
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        raise ValueError(f"not a section of occupancy's JSON: {sorted(unknown)}")
    doc: dict[str, Any] = dict.fromkeys(SINGLE_KEYS)
    doc.update(cc=cc, inputs=inputs)
    if single is not None:
        doc.update(single)
    doc.update({k: sections.get(k) for k in SECTIONS})
    doc["notes"] = list(notes)
    return doc


def sections_json(parts: dict[str, Any]) -> dict[str, Any]:
    """The one document from one configuration's sections (name -> its document: occupancy,
    waves, sweeps, suggestion), as `occupancy` builds them."""
    parts = dict(parts)
    single, swept = parts.pop("occupancy", None), parts.pop("sweeps", None)
    cc = next(doc["cc"] for doc in (single, swept, parts.get("suggestion")) if doc is not None)
    return occupancy_json(
        single,
        cc=cc,
        inputs=None if swept is None else swept["inputs"],
        sweeps=None if swept is None else swept["sweeps"],
        **parts,
    )


# --- the spreadsheet's three graphs ----------------------------------------------------------

SWEEP_TITLES = {
    "block": "Impact of Varying Block Size",
    "regs": "Impact of Varying Register Count Per Thread",
    "smem": "Impact of Varying Shared Memory Usage Per Block",
}
SWEEP_COLUMNS = {"block": "block_size", "regs": "registers_per_thread", "smem": "shared_memory_per_block_bytes"}
SWEEP_UNITS = {"block": "threads per block", "regs": "registers per thread", "smem": "shared memory per block (bytes)"}


def sweep_steps(sweep: Sweep) -> list[dict[str, Any]]:
    """Ranges of equal results (from..to), limiters as their keys, the current range marked."""
    first = 1 if sweep.axis == "block" else int(sweep.values[0])
    rows: list[dict[str, Any]] = []
    start = first
    n = sweep.values.size
    for i in range(n):
        last = i == n - 1
        same_next = not last and (
            sweep.active_blocks[i] == sweep.active_blocks[i + 1]
            and sweep.active_warps[i] == sweep.active_warps[i + 1]
            and sweep.limiters[i] == sweep.limiters[i + 1]
        )
        if same_next:
            continue
        end = int(sweep.values[i])
        rows.append(
            {
                "from": start,
                "to": end,
                "active_blocks_per_sm": int(sweep.active_blocks[i]),
                "active_warps_per_sm": int(sweep.active_warps[i]),
                "occupancy": float(sweep.occupancy[i]),
                "limiters": list(sweep.limiters[i]),
                "current": start <= sweep.current <= end,
            }
        )
        start = end + 1
    return rows


def sweep_table(sweep: Sweep) -> Table:
    """Steps of equal results as from..to ranges, the current point's range marked."""
    rows = [{**r, "limiters": ", ".join(LIMITER_LABELS[x] for x in r["limiters"])} for r in sweep_steps(sweep)]
    return Table(
        ["from", "to", "active_blocks_per_sm", "active_warps_per_sm", "occupancy", "limiters", "current"],
        rows,
        title=SWEEP_TITLES[sweep.axis],
        headers={**RESULT_HEADERS, "from": f"{SWEEP_UNITS[sweep.axis]} from", "to": "to", "current": "current"},
        name=f"sweep_{SWEEP_COLUMNS[sweep.axis]}",
        **SHOWN,
    )


def sweep_document(arch: Arch, inputs: Any, sweeps: Sequence[Sweep]) -> dict[str, Any]:
    """JSON: the CC and the inputs held fixed, then per axis (`axis` names the swept input) every
    swept value with its result (full resolution) and the table's ranges of equal results as
    `steps`."""
    docs = []
    for s in sweeps:
        docs.append(
            {
                "axis": SWEEP_COLUMNS[s.axis],
                "title": SWEEP_TITLES[s.axis],
                "current": s.current,
                "points": [
                    {
                        SWEEP_COLUMNS[s.axis]: int(v),
                        "active_blocks_per_sm": int(b),
                        "active_warps_per_sm": int(w),
                        "occupancy": float(o),
                        "limiters": list(lim),
                    }
                    for v, b, w, o, lim in zip(
                        s.values, s.active_blocks, s.active_warps, s.occupancy, s.limiters, strict=True
                    )
                ],
                "steps": sweep_steps(s),  # the table's from..to ranges of equal results
            }
        )
    return {"cc": arch.cc, "inputs": asdict(inputs), "sweeps": docs}


# --- block-size suggestion -------------------------------------------------------------------


def suggestion_tables(
    arch: Arch, suggestion: Any, current: int | None = None, product: Any = None, min_grid: int | None = None
) -> list[Table]:
    """The pick (cudaOccMaxPotentialOccupancyBlockSize) and the ranking, best first; the
    user's own block size, when given, is marked in the ranking; with a product, the minimum
    grid size (blocks per SM x SMs) the runtime call returns."""
    pick: dict[str, Any] = {
        "block_size": suggestion.block_size,
        "active_blocks_per_sm": suggestion.active_blocks_per_sm,
        "occupancy": suggestion.occupancy,
    }
    notes = [
        "NVIDIA's rule (cudaOccMaxPotentialOccupancyBlockSize): the most active threads per "
        "SM; ties keep the larger block."
    ]
    if product is not None:
        pick["min_grid_size"] = min_grid
        notes.append(
            f"min grid size = {suggestion.active_blocks_per_sm} blocks per SM x "
            f"{product.sm_count} SMs of the {product.name} (cudaOccupancyMaxPotentialBlockSize)"
        )
    if not suggestion.block_size:
        notes.append("no block size fits a block on an SM with these registers and shared memory")
    rows = [
        {
            "rank": i + 1,
            "block_size": c.block_size,
            "active_blocks_per_sm": c.active_blocks_per_sm,
            "active_threads_per_sm": c.active_threads_per_sm,
            "occupancy": c.occupancy,
            "limiters": ", ".join(LIMITER_LABELS[x] for x in c.limiters),
            "current": c.block_size == current,
        }
        for i, c in enumerate(suggestion.ranking)
    ]
    headers = {
        **RESULT_HEADERS,
        "block_size": "block size",
        "current": "current",
        "min_grid_size": "min grid size (blocks)",
    }
    return [
        Table(
            list(pick),
            [pick],
            title=f"Suggested block size (CC {arch.cc})",
            headers=headers,
            notes=notes,
            name="suggestion",
            context={"cc": arch.cc},
            **SHOWN,
        ),
        Table(
            [
                "rank",
                "block_size",
                "active_blocks_per_sm",
                "active_threads_per_sm",
                "occupancy",
                "limiters",
                "current",
            ],
            rows,
            title="Ranking",
            headers=headers,
            name="ranking",
            context={"cc": arch.cc},
            **SHOWN,
        ),
    ]


def waves_table(found: Any, product: Any) -> Table:
    """The grid's waves on a product: blocks per wave, waves, the tail and how full it is."""
    row = {
        "grid_blocks": found.grid_blocks,
        "blocks_per_wave": found.blocks_per_wave,
        "waves": found.waves,
        "full_waves": found.full_waves,
        "tail_blocks": found.tail_blocks,
        "tail_fill": found.tail_fill,
        "average_fill": found.average_fill,
    }
    headers = {
        "grid_blocks": "grid (blocks)",
        "blocks_per_wave": "blocks per wave",
        "waves": "waves",
        "full_waves": "full waves",
        "tail_blocks": "last-wave blocks",
        "tail_fill": "last wave full",
        "average_fill": "average fill",
    }
    notes = [
        f"blocks per wave = {found.active_blocks_per_sm} active blocks per SM x "
        f"{found.sm_count} SMs of the {product.name}; equal-time blocks assumed"
    ]
    return Table(
        list(row), [row], title=f"Waves on {product.name}", headers=headers, notes=notes, name="waves", **SHOWN
    )


# --- ptxas kernels ---------------------------------------------------------------------------


def mangled_notes(kernels: Any) -> list[str]:
    """Why a kernel's name is shown mangled, once per name (model/demangle.py)."""
    from perfcalc.specs.demangle import why_mangled

    notes = []
    for name in dict.fromkeys(k.name for k in kernels):
        why = why_mangled(name)
        if why:
            notes.append(f"{name} is shown mangled: {why}")
    return notes


def ptxas_table(entries: Sequence[tuple[Any, Arch, Advice]], block_size: int) -> Table:
    """One row per kernel: what ptxas reported and the occupancy at the given block size.

    `entries` are (KernelResources, Arch used, Advice); the notes carry the first hint (or why
    it fits zero blocks) of each kernel below 100 %.
    """
    rows, notes = [], []
    for kernel, arch, advice in entries:
        r = advice.result
        rows.append(
            {
                "kernel": kernel.display_name,
                "compiled_for": kernel.compiled_for or "-",
                "cc": arch.cc,
                "registers_per_thread": kernel.registers_per_thread,
                "static_shared_memory_bytes": kernel.static_shared_memory_bytes,
                "block_barriers": kernel.block_barriers,
                "spill_store_bytes": kernel.spill_store_bytes,
                **result_row(r),
            }
        )
        lines = advice_lines(advice)
        if r.occupancy < 1.0 and lines:
            notes.append(f"{kernel.display_name} [{arch.cc}]: {lines[0]}")
    notes.extend(mangled_notes(kernel for kernel, _arch, _advice in entries))
    headers = {
        **RESULT_HEADERS,
        "compiled_for": "compiled for",
        "cc": "CC",
        "registers_per_thread": "regs",
        "static_shared_memory_bytes": "static smem (B)",
        "spill_store_bytes": "spill stores (B)",
    }
    return Table(
        [
            "kernel",
            "compiled_for",
            "cc",
            "registers_per_thread",
            "static_shared_memory_bytes",
            "block_barriers",
            "spill_store_bytes",
            *RESULT_HEADERS,
        ],
        rows,
        title=f"Kernels from ptxas at {block_size} threads per block",
        headers=headers,
        notes=notes,
        name="kernels",
        **SHOWN,
    )


def ptxas_document(entries: Sequence[tuple[Any, Arch, Advice]], notes: Sequence[str] = ()) -> dict[str, Any]:
    """JSON: per kernel, the ptxas record and the occupancy document at this block size."""
    kernels = [
        {"kernel": to_jsonable(kernel), "occupancy": occupancy_document(arch, advice)}
        for kernel, arch, advice in entries
    ]
    return occupancy_json(kernels=kernels, notes=notes)  # each kernel's inputs hold the block size


def ptxas_suggestion_table(found: Sequence[tuple[Any, Arch, Any]]) -> Table:
    """One row per kernel: the block size NVIDIA's rule picks for it."""
    rows = [
        {
            "kernel": k.display_name,
            "compiled_for": k.compiled_for or "-",
            "cc": arch.cc,
            "registers_per_thread": k.registers_per_thread,
            "static_shared_memory_bytes": k.static_shared_memory_bytes,
            "block_size": s.block_size,
            "active_blocks_per_sm": s.active_blocks_per_sm,
            "occupancy": s.occupancy,
        }
        for k, arch, s in found
    ]
    headers = {
        **RESULT_HEADERS,
        "compiled_for": "compiled for",
        "cc": "CC",
        "registers_per_thread": "regs",
        "static_shared_memory_bytes": "static smem (B)",
        "block_size": "suggested block size",
    }
    mangled = mangled_notes(k for k, _arch, _s in found)
    return Table(
        list(rows[0]),
        rows,
        title="Suggested block size per kernel",
        headers=headers,
        name="suggestions",
        **SHOWN,
        notes=[
            "NVIDIA's rule (cudaOccMaxPotentialOccupancyBlockSize): the most active "
            "threads per SM; ties keep the larger block; 0 = nothing fits.",
            *mangled,
        ],
    )


def ptxas_suggestion_document(found: Sequence[tuple[Any, Arch, Any]], notes: Sequence[str] = ()) -> dict[str, Any]:
    return occupancy_json(
        kernels=[{"kernel": to_jsonable(k), "cc": arch.cc, "suggestion": to_jsonable(s)} for k, arch, s in found],
        notes=notes,
    )


def gpus_table(docs: list[dict[str, Any]]) -> Table:
    """One configuration on several products (occupancy --gpu A --gpu B): a tidy table, one row
    per GPU, raw values (occupancy a fraction; its text formats print a percent)."""
    first = docs[0]["inputs"]
    rows = []
    for d in docs:
        row = {
            "gpu": d["gpu"],
            "cc": d["cc"],
            "sm_count": d["sm_count"],
            "occupancy": d["occupancy"],
            "active_blocks_per_sm": d["active_blocks_per_sm"],
            "active_warps_per_sm": d["active_warps_per_sm"],
            "max_warps_per_sm": d["device_limits"]["max_warps_per_sm"],
            "limiters": ", ".join(d["limiters"]),
        }
        if "waves" in d:
            row.update(waves=d["waves"]["waves"], tail_fill=d["waves"]["tail_fill"])
        rows.append(row)
    headers = {
        "gpu": "GPU",
        "cc": "CC",
        "sm_count": "SMs",
        "occupancy": "occupancy",
        "active_blocks_per_sm": "active blocks / SM",
        "active_warps_per_sm": "active warps / SM",
        "max_warps_per_sm": "max warps / SM",
        "limiters": "limited by",
        "waves": "waves",
        "tail_fill": "last wave full",
    }
    title = (
        f"Occupancy of {first['block_size']} threads, {first['registers_per_thread']} registers, "
        f"{first['static_shared_memory_bytes'] + first['dynamic_shared_memory_bytes']} B shared memory per block"
    )
    return Table(
        list(rows[0]),
        rows,
        title=title,
        headers=headers,
        name="gpus",
        main=True,
        percent=("occupancy", "tail_fill"),
        context={k: first[k] for k in ("block_size", "registers_per_thread", "static_shared_memory_bytes")},
    )
