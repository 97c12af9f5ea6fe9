"""Tables for `perfcalc matmul`, `perfcalc roofline` and `perfcalc report`: rows of raw values.

`matmul_rows` is the JSON contract of `perfcalc matmul --format json` (one row per variant with
every figure of the side-by-side table under the same key); the table views put naive and tiled side by side and each
predicted counter beside the execution core's count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from perfcalc.model.roofline import Roofline, RooflinePoint
from perfcalc.model.time_model import TIME_KEYS
from perfcalc.report.table import Table

if TYPE_CHECKING:  # the matmul model brings NumPy: `roofline` and `report`'s ceilings need neither
    from perfcalc.model.matmul import MatmulAnalysis, MatmulVariant

# Side-by-side view: (key, label). Keys are MatmulVariant attributes (or _value's), and every
# one is also a key of the JSON rows and a CSV column: the table shows nothing the JSON lacks.
_SIDE_BY_SIDE = (
    ("threads_per_block", "threads per block"),
    ("blocks", "blocks"),
    ("global_loads_per_block_per_phase", "global loads per block per phase"),
    ("global_loads_per_block", "global loads per block"),
    ("global_loads_total", "global loads total"),
    ("global_stores_total", "global stores total"),
    ("flops_per_block_per_phase", "flops per block per phase"),
    ("flops_total", "flops total"),
    ("cgma", "CGMA (flops per global load)"),
    ("intensity_flop_per_requested_byte", "intensity (flop per requested B: 4 B per load and store)"),
    ("intensity_flop_per_byte", "intensity (flop per B the transactions move)"),
    ("registers_per_thread", "registers per thread"),
    ("shared_memory_per_block_bytes", "shared memory per block (B)"),
    ("occupancy", "occupancy (active / max warps per SM)"),
    ("active_blocks_per_sm", "blocks per SM"),
    ("limiters", "occupancy limiters"),
    ("transactions_per_request", "load transactions per request"),
    ("transactions_total", "transactions total (loads + stores)"),
    ("cgma_bound_gflops", "lecture notes' CGMA bound"),
    ("bandwidth_bound_gflops", "bandwidth-bound rate (moved bytes)"),
    ("compute_bound_gflops", "compute-bound rate (peak)"),
    ("attainable_gflops", "attainable rate (roofline)"),
    ("roofline_bound", "roofline bound (memory or compute)"),
    ("time_lower_bound_s", "time lower bound, compulsory bytes"),
    ("predicted_time_s", "predicted time"),
    ("predicted_gflops", "predicted rate"),
    ("bound_detail", "predicted time limited by"),
    ("time_basis", "time from (counted: no caches; simulated: L1/L2 model)"),
    ("result_check", "result check"),
)

# The JSON contract of `perfcalc matmul --format json`, one row per variant after `gpu` and `cc`:
# every row of the side-by-side table, then the time model's figures and the counters.
MATMUL_ROW_KEYS = (
    "variant",
    "width",
    "tile",
    *(key for key, _ in _SIDE_BY_SIDE if key != "result_check"),
    "bound",
    "dram_bytes_read",
    "dram_bytes_written",
    "l1_hit_rate",
    "l2_hit_rate",
    "predicted_dram_gbs",
    "predicted",
    "simulated",
    "simulated_by",
    "engine_counts",
    "result_check",
)
# time-model keys (issue #9 part 5) read from the variant's TimePrediction (the time and the
# bound have their own columns)
_TIME_KEYS = TIME_KEYS[2:]


def _value(v: MatmulVariant, key: str) -> Any:
    if key == "roofline_bound":
        return v.bound
    if key == "bound":  # JSON: the unit that limits the predicted time
        return None if v.time is None else v.time.bound
    if key in _TIME_KEYS:
        return None if v.time is None else getattr(v.time, key)
    return getattr(v, key)


def matmul_rows(analysis: MatmulAnalysis) -> list[dict[str, Any]]:
    """One JSON row per variant: the GPU and CC it is for, then MATMUL_ROW_KEYS."""
    return [
        {"gpu": analysis.gpu, "cc": analysis.cc, **{k: _value(v, k) for k in MATMUL_ROW_KEYS}}
        for v in analysis.variants
    ]


def _title(analysis: MatmulAnalysis) -> str:
    where = f"{analysis.gpu_name} (CC {analysis.cc})" if analysis.gpu else f"CC {analysis.cc}, no product"
    return f"Matrix multiply, width {analysis.width}, tile {analysis.tile}, on {where}"


def _notes(analysis: MatmulAnalysis) -> list[str]:
    notes = list(analysis.notes)
    naive = analysis.variant("naive")
    for i, note in enumerate(notes):  # the seeds' "about 15 GFLOPS" beside the prediction
        if "about 15 GFLOPS" in note and naive.predicted_gflops is not None:
            notes[i] = (
                f"{note} Predicted here for the naive kernel at width "
                f"{analysis.width}: {naive.predicted_gflops:.3g} GFLOPS "
                f"({naive.time.bound_detail if naive.time else ''})."
            )
    for v in analysis.variants:
        above = _above_roof(v)
        if above:
            notes.append(above)
    for v in analysis.variants:
        from perfcalc.model.matmul import mismatches

        for counter, (pred, sim) in mismatches(v).items():
            notes.append(f"MISMATCH {v.variant} {counter}: predicted {pred}, execution core {sim}")
    return notes


def _above_roof(v: MatmulVariant) -> str | None:
    """Say which cache level lets a predicted rate beat the roofline's attainable one (the roof
    prices every transaction byte as DRAM traffic), and by how much."""
    t = v.time
    gflops, roof = v.predicted_gflops, v.attainable_gflops
    if t is None or gflops is None or roof is None or gflops <= roof:
        return None
    moved = v.flops_total / v.intensity_flop_per_byte if v.intensity_flop_per_byte else None
    dram = t.dram_bytes_read + t.dram_bytes_written
    levels = ", ".join(
        f"{name} hit rate {rate:.1%}"
        for name, rate in (("L1", t.l1_hit_rate), ("L2", t.l2_hit_rate))
        if rate is not None and rate > 0
    )
    share = f"{dram:,} of {moved:,.0f} moved bytes" if moved else f"{dram:,} bytes"
    return (
        f"{v.variant}: predicted {gflops:.4g} GFLOPS is {gflops / roof:.2f}x the roofline's attainable "
        f"{roof:.4g}, which prices every transaction byte as DRAM traffic; the caches ({levels or 'L1/L2 model'}) "
        f"leave {share} for DRAM ({v.flops_total / dram if dram else float('inf'):.4g} flop per DRAM byte)."
    )


def matmul_side_by_side(analysis: MatmulAnalysis) -> Table:
    """Rows = quantities, columns = naive and tiled (the readable view)."""
    names = [v.variant for v in analysis.variants]
    rows = [
        {"quantity": label, **{v.variant: _value(v, key) for v in analysis.variants}} for key, label in _SIDE_BY_SIDE
    ]
    return Table(
        columns=["quantity", *names],
        rows=rows,
        title=_title(analysis),
        notes=_notes(analysis),
        name="variants",
        row_keys=tuple(key for key, _label in _SIDE_BY_SIDE),
    )


def matmul_counter_table(analysis: MatmulAnalysis) -> Table | None:
    """Each predicted counter beside the execution core's count, per variant."""
    counters: list[str] = []
    for v in analysis.variants:
        for name in [*(v.predicted or {}), *(v.simulated or {})]:
            if name not in counters:
                counters.append(name)
    if not counters:
        return None
    rows = []
    for name in counters:
        row: dict[str, Any] = {"counter": name}
        for v in analysis.variants:
            row[f"{v.variant}_predicted"] = (v.predicted or {}).get(name)
            row[f"{v.variant}_simulated"] = None if v.simulated is None else v.simulated.get(name)
        compared = [(v.predicted, v.simulated) for v in analysis.variants if v.simulated is not None and v.predicted]
        row["match"] = all(p.get(name) == s.get(name) for p, s in compared) if compared else None
        rows.append(row)
    columns = (
        ["counter"] + [f"{v.variant}_{s}" for v in analysis.variants for s in ("predicted", "simulated")] + ["match"]
    )
    engines = sorted({v.simulated_by for v in analysis.variants if v.simulated_by})
    title = "Predicted counts vs the execution core" + (f" ({', '.join(engines)} engine)" if engines else "")
    return Table(columns=columns, rows=rows, title=title, name="counters")


def matmul_engines_table(analysis: MatmulAnalysis, why: Mapping[str, Mapping[str, str]]) -> Table | None:
    """Both engines' counters side by side (matmul --engine both); `why[variant][counter]`
    explains a difference (kernels.yaml engines_differ)."""
    ran = [v for v in analysis.variants if v.engine_counts and len(v.engine_counts) > 1]
    if not ran:
        return None
    engines = list(ran[0].engine_counts or {})
    names: list[str] = []
    for v in ran:
        for counts in (v.engine_counts or {}).values():
            names += [n for n in counts if n not in names]
    rows, notes = [], []
    for name in names:
        row: dict[str, Any] = {"counter": name}
        same = True
        for v in ran:
            values = [(v.engine_counts or {})[e].get(name) for e in engines]
            for e, x in zip(engines, values, strict=True):
                row[f"{v.variant}_{e}"] = x
            if len(set(values)) > 1:
                same = False
                notes.append(
                    f"{v.variant} {name}: "
                    + why.get(v.variant, {}).get(name, "not explained in kernels.yaml (engines_differ)")
                )
        row["same"] = same
        rows.append(row)
    if not notes:
        notes.append("the engines agree on every counter: the compiled code makes the source's accesses")
    columns = ["counter"] + [f"{v.variant}_{e}" for v in ran for e in engines] + ["same"]
    return Table(columns=columns, rows=rows, title="The two engines side by side", notes=notes, name="engines")


def matmul_explain_table(analysis: MatmulAnalysis) -> Table:
    """Every figure with its formula and inputs (`--explain`)."""
    rows = [{"variant": f.variant, "figure": f.name, "value": f.value, "formula": f.formula} for f in analysis.figures]
    return Table(
        columns=["variant", "figure", "value", "formula"],
        rows=rows,
        title="How each figure was computed",
        name="explain",
    )


def matmul_flat_table(analysis: MatmulAnalysis) -> Table:
    """One row per variant with the JSON keys; counters spread into predicted_/simulated_ columns
    so a spreadsheet gets one number per cell (the CSV view)."""
    counters: list[str] = []
    for v in analysis.variants:
        for name in [*(v.predicted or {}), *(v.simulated or {})]:
            if name not in counters:
                counters.append(name)
    base = ["gpu", "cc", *(k for k in MATMUL_ROW_KEYS if k not in ("predicted", "simulated", "engine_counts"))]
    rows = []
    for v, row in zip(analysis.variants, matmul_rows(analysis), strict=True):
        flat = {k: row[k] for k in base}
        for name in counters:
            flat[f"predicted_{name}"] = (v.predicted or {}).get(name)
            flat[f"simulated_{name}"] = None if v.simulated is None else v.simulated.get(name)
        rows.append(flat)
    columns = base + [f"{p}_{n}" for n in counters for p in ("predicted", "simulated")]
    return Table(columns=columns, rows=rows, title=_title(analysis), notes=_notes(analysis), name="variants")


def matmul_tables(
    analysis: MatmulAnalysis, fmt: str, explain: bool = False, why: Mapping[str, Mapping[str, str]] | None = None
) -> list[Table]:
    """The tables a format shows, `variants` first: in CSV one flat row per variant (the JSON
    rows' keys), in the text formats naive and tiled side by side."""
    tables = [matmul_flat_table(analysis) if fmt == "csv" else matmul_side_by_side(analysis)]
    counter_table = matmul_counter_table(analysis)
    if counter_table is not None:
        tables.append(counter_table)
    engines_table = matmul_engines_table(analysis, why or {})
    if engines_table is not None:
        tables.append(engines_table)
    explained = matmul_explain_table(analysis)
    explained.on_request = not explain
    tables.append(explained)
    return tables


def ceilings_table(roof: Roofline) -> Table:
    rows = [
        {
            "ceiling": c.name,
            "kind": c.kind,
            "value": c.value,
            "unit": "GB/s" if c.kind == "memory" else "GFLOPS",
            "ridge_flop_per_byte": roof.peak_gflops / c.value if c.kind == "memory" else None,
            "formula": c.formula,
            "source": c.source,
        }
        for c in roof.ceilings
    ]
    return Table(
        columns=["ceiling", "kind", "value", "unit", "ridge_flop_per_byte", "formula", "source"],
        rows=rows,
        title=f"Roofline ceilings of {roof.gpu_name} (CC {roof.cc})",
        name="ceilings",
        notes=[
            f"FP32 ridge point: {roof.peak_gflops:g} GFLOPS / {roof.bandwidth_gbs:g} "
            f"GB/s = {roof.ridge_flop_per_byte:.4g} flop/B; below it a kernel is "
            f"memory-bound, above it compute-bound."
        ],
    )


def roofline_curve_table(roof: Roofline, intensities: Sequence[float]) -> Table:
    """Attainable GFLOPS at sample intensities under each memory ceiling and the FP32 peak."""
    memory = [c for c in roof.ceilings if c.kind == "memory"]
    keys = {c.name: f"{_slug(c.name)}_gflops" for c in memory}
    rows = []
    for x in intensities:
        row: dict[str, Any] = {"intensity_flop_per_byte": x}
        for c in memory:
            row[keys[c.name]] = min(roof.peak_gflops, x * c.value)
        rows.append(row)
    return Table(
        columns=["intensity_flop_per_byte", *keys.values()],
        rows=rows,
        title="Attainable FP32 GFLOPS = min(peak, intensity x bandwidth)",
        headers={key: f"under {name}" for name, key in keys.items()},
        name="curve",
    )


def _slug(name: str) -> str:
    """A ceiling's name as a key: 'L2 (measured)' -> 'l2_measured'."""
    return "_".join("".join(ch if ch.isalnum() else " " for ch in name.lower()).split())


def points_table(points: Sequence[RooflinePoint], notes: Sequence[str] = ()) -> Table:
    rows = [
        {
            "kernel": p.label,
            "intensity_flop_per_byte": p.intensity_flop_per_byte,
            "bandwidth_bound_gflops": p.bandwidth_bound_gflops,
            "compute_bound_gflops": p.compute_bound_gflops,
            "attainable_gflops": p.attainable_gflops,
            "bound": p.bound,
            "fraction_of_peak": p.fraction_of_peak,
        }
        for p in points
    ]
    return Table(
        columns=[
            "kernel",
            "intensity_flop_per_byte",
            "bandwidth_bound_gflops",
            "compute_bound_gflops",
            "attainable_gflops",
            "bound",
            "fraction_of_peak",
        ],
        rows=rows,
        title="Kernels on the roofline",
        headers={"intensity_flop_per_byte": "intensity (flop per moved B)"},
        name="points",
        notes=list(notes),
    )


def kernels_table(rows: list[dict[str, Any]], title: str, notes: Sequence[str] = ()) -> Table:
    """Catalog kernels with their predicted counts, intensity, bound and time (report command)."""
    columns = list(rows[0]) if rows else ["kernel"]
    return Table(columns=columns, rows=rows, title=title, notes=list(notes))


def launch_reports_table(reports: Sequence[Any], roof: Roofline, title: str, notes: Sequence[str] = ()) -> Table:
    """Launches at their predicted performance (analysis/launch_report.LaunchReport), with the
    roof above each: intensity against the DRAM bytes the L1/L2 model leaves, the roof there
    (min(peak, intensity x bandwidth)) and the predicted GFLOP/s as a fraction of it."""
    rows = []
    for r in reports:
        t = r.time
        ai = r.intensity_flop_per_dram_byte
        roof_at = None if ai is None else min(roof.peak_gflops, ai * roof.bandwidth_gbs)
        rows.append(
            {
                "kernel": r.kernel,
                "params": ", ".join(f"{k}={v}" for k, v in r.params.items()),
                "occupancy": r.occupancy,
                "limiters": ", ".join(r.limiters),
                "registers_per_thread": r.registers_per_thread,
                "intensity_flop_per_dram_byte": ai,
                "roof_gflops": roof_at,
                "predicted_gflops": t.predicted_gflops if r.counters.flops else None,
                "fraction_of_roof": (t.predicted_gflops / roof_at) if roof_at else None,
                "predicted_time_s": t.predicted_time_s,
                "bound": t.bound,
                "predicted_dram_gbs": t.predicted_dram_gbs,
                "l1_hit_rate": t.l1_hit_rate,
                "l2_hit_rate": t.l2_hit_rate,
                "simulated_blocks": f"{r.simulated_blocks}/{r.launch_blocks}",
            }
        )
    columns = list(rows[0]) if rows else ["kernel"]
    return Table(
        columns=columns,
        rows=rows,
        title=title,
        notes=list(notes),
        headers={"intensity_flop_per_dram_byte": "flop per DRAM B (L1/L2 model)", "roof_gflops": "roof there"},
        name="predicted",
    )
