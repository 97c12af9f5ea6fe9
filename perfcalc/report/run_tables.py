"""Tables for `perfcalc run` and `perfcalc kernels`: simulated counters beside predictions.

Inputs are plain dicts (counter name -> int) so this module does not depend on the execution
core's or the model's classes; `run_document` assembles the JSON object of `perfcalc run`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from perfcalc.report.table import Table

MATCH_LABEL = {True: "yes", False: "NO", None: "-"}


def _match(simulated: Any, predicted: Any) -> bool | None:
    if predicted is None or simulated is None:
        return None
    return simulated == predicted


def compare(simulated: Mapping[str, int], predicted: Mapping[str, int] | None) -> dict[str, bool]:
    """Per predicted counter: does the run agree with the model?"""
    if predicted is None:
        return {}
    return {k: simulated.get(k, 0) == v for k, v in predicted.items()}


def summary_table(doc: Mapping[str, Any]) -> Table:
    """Kernel, CC, launch, result check and occupancy in one key/value table."""
    launch = doc["launch"]
    check = doc["result_check"]
    occ = doc.get("occupancy") or {}
    rows = [
        ("kernel", doc["kernel"]),
        ("engine", doc.get("engine", "source") + (f" ({doc['compiler']})" if doc.get("compiler") else "")),
        ("compute capability", doc["cc"]),
        ("parameters", ", ".join(f"{k}={v}" for k, v in doc["params"].items()) or "-"),
        ("grid", " x ".join(map(str, launch["grid"]))),
        ("block", " x ".join(map(str, launch["block"]))),
        ("threads / warps", f"{launch['threads']} / {launch['warps']}"),
        ("dynamic shared memory (bytes)", launch["dynamic_shared_memory_bytes"]),
        ("result check", {True: "passed", False: "FAILED", None: "no reference"}[check["passed"]]),
        ("max relative error", check["max_rel_error"]),
        ("tolerance", check["tolerance"]),
    ]
    if occ:
        rows += [
            ("occupancy (active / max warps per SM)", occ.get("occupancy")),
            (
                "active blocks / warps per SM",
                f"{occ.get('active_blocks_per_sm')} / {occ.get('active_warps_per_sm')}",
            ),
            ("limited by", ", ".join(occ.get("limiters", ())) or "-"),
            (f"registers per thread ({occ.get('registers_source', 'assumed')})", occ.get("registers_per_thread")),
        ]
    model = doc.get("model") or {}
    if model:
        rows.append(("global loads (elements, model)", model.get("global_load_elements")))
        rows.append(("CGMA = flops / global loads (model)", model.get("cgma")))
    if doc.get("predicted") is not None:
        matched = all(doc["match"].values())
        rows.append(("prediction", "matches the run" if matched else "DIFFERS from the run"))
    return Table(
        columns=["item", "value"],
        rows=[{"item": k, "value": v} for k, v in rows],
        title=f"perfcalc run {doc['kernel']}",
        headers={"item": "", "value": ""},
        name="summary",
        notes=list(doc.get("notes", ())),
    )


def counters_table(simulated: Mapping[str, int], predicted: Mapping[str, int] | None, names: Sequence[str]) -> Table:
    """One row per counter: simulated, predicted (where modelled) and whether they match."""
    rows = []
    for name in names:
        pred = None if predicted is None else predicted.get(name)
        sim = simulated.get(name, 0)
        rows.append(
            {
                "counter": name,
                "simulated": sim,
                "predicted": pred,
                "match": MATCH_LABEL[_match(sim, pred)],
            }
        )
    return Table(
        columns=["counter", "simulated", "predicted", "match"],
        rows=rows,
        title="Counters (whole launch)",
        name="counters",
        main=True,
    )


def sites_table(per_site: Sequence[Mapping[str, Any]], names: Sequence[str]) -> Table:
    """Per source line, each non-zero memory counter with its prediction."""
    rows = []
    for site in per_site:
        sim, pred = site["counters"], site.get("predicted")
        for name in names:
            s = sim.get(name, 0)
            p = None if pred is None else pred.get(name, 0)
            if not s and not p:
                continue
            rows.append(
                {
                    "line": site["line"],
                    "code": site["code"],
                    "counter": name,
                    "simulated": s,
                    "predicted": p,
                    "match": MATCH_LABEL[_match(s, p)],
                }
            )
    return Table(
        columns=["line", "code", "counter", "simulated", "predicted", "match"],
        rows=rows,
        title="Memory counters per source line",
        name="lines",
        fold="code",
    )


def _short(text: str, limit: int = 60) -> str:
    """The first clause of an origin note, for the catalog listing (`kernels NAME` shows all)."""
    prefix = "written for perfcalc after "
    if text.startswith(prefix):  # kernels the seeds discuss but do not print
        text = "after " + text[len(prefix) :]
    head = text.split(". ")[0].split(" (")[0].split(";")[0]
    return head if len(head) <= limit else head[: limit - 3].rstrip() + "..."


def kernels_table(specs: Sequence[Any]) -> Table:
    """The catalog: name, parameters with defaults, origin."""
    rows = [
        {
            "kernel": s.name,
            "params": ", ".join(f"{k}={v}" for k, v in s.params),
            "description": s.description,
            "origin": _short(s.origin),
        }
        for s in specs
    ]
    return Table(
        columns=["kernel", "params", "description", "origin"],
        rows=rows,
        title="Kernel catalog (perfcalc run KERNEL --param NAME=VALUE)",
        name="kernels",
    )


def kernels_document(specs: Sequence[Any]) -> dict[str, Any]:
    """JSON of the catalog: the table's rows with parameters as {name: value} and the origin whole."""
    rows = [
        {"kernel": s.name, "params": dict(s.params), "description": s.description, "origin": s.origin} for s in specs
    ]
    return {"rows": rows}


def kernel_detail_tables(spec: Any) -> list[Table]:
    """One kernel: its facts, then its source with line numbers."""
    facts = [
        ("kernel", spec.name),
        ("function", spec.kernel),
        ("description", spec.description),
        ("origin", spec.origin),
        ("parameters", ", ".join(f"{k}={v}" for k, v in spec.params)),
        ("grid", ", ".join(spec.launch.grid)),
        ("block", ", ".join(spec.launch.block)),
        ("dynamic shared bytes", spec.launch.dynamic_shared_memory_bytes),
        ("reference", spec.reference),
        ("tolerance", spec.tolerance),
        ("flops", spec.model.flops),
        ("global loads (elements)", spec.model.global_load_elements),
        ("model notes", spec.model.notes or "-"),
    ]
    lines = [{"line": i, "code": text} for i, text in enumerate(spec.source.splitlines(), start=1)]
    return [
        Table(
            columns=["item", "value"],
            rows=[{"item": k, "value": v} for k, v in facts],
            title=f"kernel {spec.name}",
            headers={"item": "", "value": ""},
            name="kernel",
        ),
        Table(columns=["line", "code"], rows=lines, title="source", name="source"),
    ]


def run_tables(doc: Mapping[str, Any]) -> list[Table]:
    """Every table of one run's document (RunReport.to_dict()): summary, time and caches (on a
    product), counters, per source line."""
    from perfcalc.specs.counters import COUNTER_NAMES, SITE_COUNTER_NAMES

    names = [n for n in doc["counters"] if n != "warp_instructions"] or list(COUNTER_NAMES)
    tables = [
        summary_table(doc),
        counters_table(doc["counters"], doc["predicted"], names),
        sites_table(doc["per_site"], SITE_COUNTER_NAMES),
    ]
    if doc.get("caches"):
        tables[1:1] = [caches_table(doc["caches"]), cache_lines_table(doc["caches"])]
    if doc.get("time"):
        tables[1:1] = [time_table(doc)]
    if doc.get("advice"):
        tables.insert(1, advice_table([doc]))
    return tables


def advice_table(docs: Sequence[Mapping[str, Any]]) -> Table:
    """What to change on each product, each line with the number behind it (analysis/launch_advice.py)."""
    rows = [
        {"gpu": d["gpu"], "change": change} for d in docs if d.get("advice") for change in d["advice"]["what_to_change"]
    ]
    gpus = ", ".join(d["gpu"] for d in docs)
    return Table(
        columns=["gpu", "change"] if len(docs) > 1 else ["change"],
        rows=rows,
        title=f"what to change on {gpus}",
        headers={"gpu": "GPU", "change": "change (from the occupancy engine, the counters and the time model's bound)"},
        name="advice",
    )


def run_document(
    *,
    kernel: str,
    source_name: str,
    cc: str,
    params: Mapping[str, Any],
    launch: Mapping[str, Any],
    counters: Mapping[str, Any],
    predicted: Mapping[str, int] | None,
    per_site: Sequence[Mapping[str, Any]],
    result_check: Mapping[str, Any],
    occupancy: Mapping[str, Any] | None,
    predicted_exact: bool | None,
    model: Mapping[str, Any] | None = None,
    notes: Sequence[str] = (),
    engine: str = "source",
    compiler: str | None = None,
    caches: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON object of `perfcalc run` (field names as in the issue)."""
    return {
        "kernel": kernel,
        "engine": engine,
        "compiler": compiler,
        "source": source_name,
        "cc": cc,
        "params": dict(params),
        "launch": dict(launch),
        "counters": dict(counters),
        "predicted": None if predicted is None else dict(predicted),
        "match": compare(counters, predicted),
        "predicted_exact": predicted_exact,
        "model": None if model is None else dict(model),
        "per_site": list(per_site),
        "result_check": dict(result_check),
        "occupancy": None if occupancy is None else dict(occupancy),
        "caches": None if caches is None else dict(caches),
        "notes": list(notes),
    }


def _pct(x: Any) -> str:
    return "-" if x is None else f"{100 * x:.1f} %"


def cache_lines_table(caches: Mapping[str, Any]) -> Table:
    """The cache model per source line of a global access."""
    rows = [
        {
            "line": r["line"],
            "l1": _pct(r["l1_hit_rate"]),
            "l2": _pct(r["l2_hit_rate"]),
            "l2_read": r["l2_bytes_read"],
            "l2_written": r["l2_bytes_written"],
            "dram_read": r["dram_bytes_read"],
        }
        for r in caches["per_line"]
    ]
    return Table(
        columns=["line", "l1", "l2", "l2_read", "l2_written", "dram_read"],
        rows=rows,
        title="caches per source line",
        name="cache_lines",
        headers={
            "line": "line",
            "l1": "L1 hit (loads)",
            "l2": "L2 hit",
            "l2_read": "L2 bytes read",
            "l2_written": "L2 bytes written",
            "dram_read": "DRAM bytes read",
        },
    )


def caches_table(caches: Mapping[str, Any]) -> Table:
    """The L1/L2 model's figures for one run (--gpu): hit rates as percentages, bytes."""
    pct = _pct

    rows = [
        (
            "GPU",
            f"{caches['gpu_name']} ({caches['sms']} SMs, L2 {caches['l2_bytes'] // 1024} KB, "
            f"L1 {caches['l1_bytes'] // 1024} KB per SM for global data)",
        ),
        ("L1 hit rate, global loads", pct(caches["l1_hit_rate"])),
        ("L2 hit rate", pct(caches["l2_hit_rate"])),
        ("L2 bytes read / written", f"{caches['l2_bytes_read']} / {caches['l2_bytes_written']}"),
        ("DRAM bytes read / written", f"{caches['dram_bytes_read']} / {caches['dram_bytes_written']}"),
        ("bytes still dirty in L2 at the end", caches["l2_dirty_bytes_at_end"]),
    ]
    return Table(
        columns=["item", "value"],
        rows=[{"item": k, "value": v} for k, v in rows],
        title="caches (L1/L2 model, cold start)",
        headers={"item": "", "value": ""},
        name="caches",
    )


def time_table(doc: Mapping[str, Any]) -> Table:
    """The time model's answer for --gpu: the time, the bound, and every term with its formula."""
    from perfcalc.units import giga_rate, seconds

    t = doc["time"]
    rows = [
        {
            "item": "predicted time",
            "time_s": doc["predicted_time_s"],
            "formula": f"launch overhead {seconds(t['launch_overhead_s'])} + the largest term; {doc['bound_detail']}"
            + (f"; {t['error_band']['text']}" if t.get("error_band") else ""),
        }
    ]
    rows += [{"item": x["name"], "time_s": x["time_s"], "formula": x["formula"]} for x in t["terms"]]
    rows += [{"item": "left out", "time_s": None, "formula": why} for why in t["omitted"]]
    if t["sampled"]:
        s = t["sampled"]
        rows.append(
            {
                "item": "sampled",
                "time_s": None,
                "formula": f"{s['simulated_blocks']} of {s['launch_blocks']} blocks "
                f"simulated (first {s['waves']} wave(s), 1 SM in "
                f"{s['sm_stride']}), extrapolated",
            }
        )
    rows.append(
        {
            "item": "predicted rates",
            "time_s": None,
            "formula": f"{giga_rate(doc['predicted_gflops'], 'FLOPS')}, "
            f"{giga_rate(doc['predicted_dram_gbs'], 'B/s')} DRAM",
        }
    )
    return Table(
        columns=["item", "time_s", "formula"],
        rows=rows,
        title=f"time on {doc['gpu']} (the time model)",
        name="time",
        headers={"item": "term", "time_s": "time", "formula": "formula / inputs"},
    )


def gpu_comparison_table(docs: Sequence[Mapping[str, Any]]) -> Table:
    """The same launch on several products (run --gpu A --gpu B): a tidy table, one row per
    product with its counters, time and caches (raw values; CSV loads as one frame with a gpu
    column, issue 35)."""
    counters = (
        "global_load_requests",
        "global_load_transactions",
        "global_store_transactions",
        "shared_load_wavefronts",
        "bank_conflicts",
    )
    quantities: list[tuple[str, str, Callable[[Mapping[str, Any]], Any]]] = [
        ("cc", "CC", lambda d: d["cc"]),
        ("occupancy", "occupancy", lambda d: d["occupancy"]["occupancy"] if d.get("occupancy") else None),
        ("predicted_time_s", "predicted time", lambda d: d["predicted_time_s"]),
        ("bound", "bound", lambda d: d.get("bound")),
        ("predicted_gflops", "predicted rate", lambda d: d["predicted_gflops"]),
        ("predicted_dram_gbs", "predicted DRAM bandwidth", lambda d: d["predicted_dram_gbs"]),
        ("dram_bytes_read", "DRAM bytes read", lambda d: d["dram_bytes_read"]),
        ("dram_bytes_written", "DRAM bytes written", lambda d: d["dram_bytes_written"]),
        ("l1_hit_rate", "L1 hit rate (loads)", lambda d: d["l1_hit_rate"]),
        ("l2_hit_rate", "L2 hit rate", lambda d: d["l2_hit_rate"]),
        *[(c, c.replace("_", " "), lambda d, c=c: d["counters"].get(c)) for c in counters],
    ]
    names = [d["gpu"] for d in docs]
    rows = [{"gpu": d["gpu"], **{key: get(d) for key, _label, get in quantities}} for d in docs]
    params = ", ".join(f"{k}={v}" for k, v in docs[0]["params"].items())
    return Table(
        columns=["gpu", *(key for key, _label, _get in quantities)],
        rows=rows,
        title=f"{docs[0]['kernel']} ({params}) on {', '.join(names)}",
        headers={"gpu": "GPU", **{key: label for key, label, _get in quantities}},
        name="gpus",
        main=True,
        percent=("occupancy", "l1_hit_rate", "l2_hit_rate"),
        notes=[f"{d['gpu']}: {n}" for d in docs for n in d["notes"] if n.startswith("sampled")],
        narrow=("gpu", "cc", "occupancy", "predicted_time_s", "bound", "l2_hit_rate"),
    )
