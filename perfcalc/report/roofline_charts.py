"""One roofline chart per product, and several products' charts merged into one set of tables
(`perfcalc roofline --gpu A --gpu B`): each table once, its rows from every product with a
leading `gpu` column, the titles without a product's name."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from perfcalc.model.roofline import Roofline
from perfcalc.report.table import Table


@dataclass
class RooflineChart:
    """One product's roofline: its tables, its JSON document and what the figure draws."""

    gpu: str  # the product's key
    roof: Roofline
    tables: list[Table]
    data: dict[str, Any]
    points: list[Any] = field(default_factory=list)
    predicted_points: list[Any] = field(default_factory=list)


def compared(charts: list[RooflineChart]) -> tuple[list[Table], dict[str, Any]]:
    """Several products: each table once, its rows from every product with a leading `gpu`."""
    merged: dict[str, Table] = {}
    products = ", ".join(c.gpu for c in charts)
    for chart in charts:
        for t in chart.tables:
            rows = [{"gpu": chart.gpu, **row} for row in t.rows]
            if t.key not in merged:
                merged[t.key] = Table(
                    columns=["gpu", *t.columns],
                    rows=rows,
                    title=without_product(t.title, chart.roof) + f" ({products})",
                    headers=t.headers,
                    notes=list(t.notes),
                    name=t.key,
                )
                continue
            into = merged[t.key]
            into.rows += rows
            into.columns = list(dict.fromkeys([*into.columns, *t.columns]))  # a ceiling only some have
            into.notes += [n for n in t.notes if n not in into.notes]
    data = {
        "rooflines": [c.roof for c in charts],
        **{
            name: [{"gpu": c.gpu, **_plain(row)} for c in charts for row in c.data[name]]
            for name in ("ceilings", "curve", "points", "predicted")
        },
    }
    return list(merged.values()), data


def without_product(title: str | None, roof: Roofline) -> str:
    """'Roofline ceilings of Tesla V100 (SXM2) (CC 7.0)' -> 'Roofline ceilings'."""
    title = title or ""
    for words in (f" of {roof.gpu_name} (CC {roof.cc})", f" of {roof.gpu_name}", f" on {roof.gpu_name}"):
        title = title.replace(words, "")
    return title


def _plain(row: Any) -> dict[str, Any]:
    """A row or a result dataclass as a plain dict (points are RooflinePoint objects)."""
    from perfcalc.results import plain

    value = plain(row)
    assert isinstance(value, dict)
    return value
