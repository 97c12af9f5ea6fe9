"""Turn tables into text: a readable table, CSV, JSON or Markdown. The only place that formats."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections.abc import Sequence
from enum import Enum
from typing import Any

from perfcalc.report.table import Table

FORMATS = ("table", "csv", "json", "markdown")


def format_value(value: Any) -> str:
    """Human rounding for table/Markdown only: 4 significant digits, percent kept readable."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if value == int(value) and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(format_value(v) for v in value)
    if value is None:
        return "-"
    return str(value)


def to_jsonable(value: Any) -> Any:
    """Dataclasses, tuples, NumPy scalars and enums -> plain JSON values, keys kept as named."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, Enum):
        return value.value
    if hasattr(value, "item") and callable(value.item):  # NumPy scalar
        return value.item()
    if hasattr(value, "tolist"):  # NumPy array
        return value.tolist()
    return value


def _grid(table: Table) -> tuple[list[str], list[list[str]]]:
    headers = [table.label(c) for c in table.columns]
    rows = [[format_value(row.get(c)) for c in table.columns] for row in table.rows]
    return headers, rows


def _render_table(tables: Sequence[Table], markdown: bool) -> str:
    from tabulate import tabulate

    parts = []
    for t in tables:
        headers, rows = _grid(t)
        block = []
        if t.title:
            block.append(f"## {t.title}" if markdown else t.title)
            if markdown:
                block.append("")
        block.append(
            tabulate(rows, headers=headers, tablefmt="github" if markdown else "simple", disable_numparse=True)
        )
        if t.notes:
            block.append("")
            block.extend(f"- {n}" if markdown else n for n in t.notes)
        parts.append("\n".join(block))
    return "\n\n".join(parts) + "\n"


def _render_csv(tables: Sequence[Table]) -> str:
    """CSV of raw values; several tables are separated by a blank line and a '# title' row."""
    out = io.StringIO()
    for i, t in enumerate(tables):
        if len(tables) > 1:
            if i:
                out.write("\n")
            out.write(f"# {t.title}\n")
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(list(t.columns))
        for row in t.rows:
            writer.writerow([_csv_cell(row.get(c)) for c in t.columns])
    return out.getvalue()


def _csv_cell(value: Any) -> Any:
    value = to_jsonable(value)
    if isinstance(value, (list, dict)):
        return json.dumps(value) if isinstance(value, dict) else ";".join(map(str, value))
    return "" if value is None else value


def render(tables: Table | Sequence[Table], fmt: str, data: Any = None) -> str:
    """Render tables in `fmt`. JSON prints `data` (the result dataclasses) when given, else the rows."""
    if isinstance(tables, Table):
        tables = [tables]
    if fmt == "json":
        if data is None:
            data = (
                {t.title or f"table{i}": t.rows for i, t in enumerate(tables)}
                if len(tables) > 1
                else {"rows": tables[0].rows}
            )
        return json.dumps(to_jsonable(data), indent=2) + "\n"
    if fmt == "csv":
        return _render_csv(tables)
    if fmt in ("table", "markdown"):
        return _render_table(tables, markdown=fmt == "markdown")
    raise ValueError(f"unknown format {fmt!r}")
