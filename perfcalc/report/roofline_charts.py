"""One roofline chart per product, and several products' charts merged into one set of tables
(`perfcalc roofline --gpu A --gpu B`): each table once, its rows from every product with a
leading `gpu` column, the titles without a product's name."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
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
    merged = merge_by_gpu([(c.gpu, c.roof, c.tables) for c in charts])
    data = {
        "rooflines": [c.roof for c in charts],
        **{
            name: [{"gpu": c.gpu, **_plain(row)} for c in charts for row in c.data[name]]
            for name in ("ceilings", "curve", "points", "predicted")
        },
    }
    return merged, data


def merge_by_gpu(parts: Sequence[tuple[str, Roofline, Sequence[Table]]]) -> list[Table]:
    """Each product's tables (product key, its roofline, its tables) as one table per name (see
    `stacked`)."""
    groups: dict[str, list[tuple[str, Roofline, Table]]] = {}
    for gpu, roof, tables in parts:
        for t in tables:
            groups.setdefault(t.key, []).append((gpu, roof, t))
    return [stacked(group) for group in groups.values()]


def stacked(per_gpu: Sequence[tuple[str, Roofline, Table]]) -> Table:
    """One table from each product's own: its rows from every product under a leading `gpu`,
    the title without a product's name; the first table's labels and formats (percent columns,
    what None means) kept. A transposed table's row keys follow its rows; a context that differs
    between products becomes columns of each row."""
    first = per_gpu[0][2]
    products = ", ".join(gpu for gpu, _, _ in per_gpu)
    title = without_product(first.title, per_gpu[0][1]) + f" ({products})"
    same_context = all(t.context == first.context for _, _, t in per_gpu)
    merged = replace(
        first,
        columns=["gpu"],
        rows=[],
        title=title,
        notes=[],
        name=first.key,
        context=first.context if same_context else {},
        row_keys=tuple(k for _, _, t in per_gpu for k in t.row_keys),
    )
    for gpu, _, t in per_gpu:
        own = {} if same_context else dict(t.context)
        merged.rows += [{"gpu": gpu, **own, **row} for row in t.rows]
        merged.columns = list(dict.fromkeys([*merged.columns, *own, *t.columns]))  # a ceiling only some have
        merged.notes += [n for n in t.notes if n not in merged.notes]
    return merged


def without_product(title: str | None, roof: Roofline) -> str:
    """'Roofline ceilings of Tesla V100 (SXM2) (CC 7.0)' -> 'Roofline ceilings'."""
    title = title or ""
    for words in (
        f" of {roof.gpu_name} (CC {roof.cc})",
        f", on {roof.gpu_name} (CC {roof.cc})",
        f" of {roof.gpu_name}",
        f" on {roof.gpu_name}",
    ):
        title = title.replace(words, "")
    return title


def _plain(row: Any) -> dict[str, Any]:
    """A row or a result dataclass as a plain dict (points are RooflinePoint objects)."""
    from perfcalc.results import plain

    value = plain(row)
    assert isinstance(value, dict)
    return value
