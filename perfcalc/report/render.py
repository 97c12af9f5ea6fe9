"""Turn tables into text: a readable table, CSV, JSON or Markdown. The only place that formats."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from typing import Any

from perfcalc.errors import InputError
from perfcalc.report.table import Table
from perfcalc.report.text_table import GAP, column_widths, text_table
from perfcalc.results import plain
from perfcalc.units import format_value

FORMATS = ("table", "csv", "json", "markdown")


# Plain JSON values of results, dataclasses, NumPy values and enums (perfcalc/results.py).
to_jsonable = plain


def _grid(table: Table) -> tuple[list[str], list[list[str]]]:
    headers = [table.label(c) for c in table.columns]
    keys = table.row_keys or ("",) * len(table.rows)
    rows = [
        [_cell_text(table, c, row.get(c), key) for c in table.columns]
        for row, key in zip(table.rows, keys, strict=True)
    ]
    return headers, rows


def _cell_text(table: Table, column: str, value: Any, row_key: str = "") -> str:
    """A raw value as the text formats show it, after the table's own conventions."""
    if column in table.flags and isinstance(value, bool):
        return table.flags[column] if value else ""
    if value is None and column in table.none_text:
        return table.none_text[column]
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if (column in table.percent or row_key in table.percent) and number:
        return f"{format_value(float(value) * 100)} %"
    unit_key = column if column.endswith(_UNIT_SUFFIXES) else row_key  # a column's unit, else its row's
    if number and unit_key.endswith(_UNIT_SUFFIXES):  # a time or rate with its unit: '97.09 µs'
        return _with_unit(unit_key, float(value))
    return format_value(value)


_UNIT_SUFFIXES = ("_s", "_gbs", "_gflops")


def _with_unit(column: str, value: float) -> str:
    from perfcalc.units import giga_rate, seconds

    if column.endswith("_s"):
        return seconds(value)
    return giga_rate(value, "B/s" if column.endswith("_gbs") else "FLOPS")


def _render_table(tables: Sequence[Table], markdown: bool, width: int | None = None) -> str:

    parts = []
    for t in tables:
        headers, rows = _grid(t)
        block = []
        if t.title:
            block.append(f"## {t.title}" if markdown else t.title)
            if markdown:
                block.append("")
        if width is not None and _table_width(column_widths(headers, rows, _HEADER_PAD)) > width:
            block.append(_narrow(t, headers, rows, width))
        else:
            block.append(_tabulate(headers, rows, _table_format(headers, markdown)))
        if t.notes:
            block.append("")
            block.extend(f"- {n}" if markdown else _wrapped(n, width) for n in t.notes)
        parts.append("\n".join(block))
    return "\n\n".join(parts) + "\n"


LONGEST_UNBROKEN = 30  # a word (an identifier, a path) longer than this may be broken
_GAP = len(GAP)  # tabulate's "simple" and "plain" formats put two spaces between columns
_HEADER_PAD = 2  # and, by default, make a column at least its header plus two wide


def _tabulate(
    headers: Sequence[str], rows: Sequence[Sequence[str]], fmt: str, header_pad: int = _HEADER_PAD, **kw: Any
) -> str:
    if not kw:  # no wrapping: the common layouts are drawn without importing tabulate
        drawn = text_table(headers, rows, fmt, header_pad)
        if drawn is not None:
            return drawn
    import tabulate as tabulate_module

    saved = tabulate_module.MIN_PADDING
    tabulate_module.MIN_PADDING = header_pad  # tabulate reads it per call; it has no argument for it
    try:
        return tabulate_module.tabulate(
            rows,
            headers=headers,
            tablefmt=fmt,
            disable_numparse=True,
            preserve_whitespace=True,  # a kernel's source lines keep their indentation
            **kw,
        )
    finally:
        tabulate_module.MIN_PADDING = saved


def _table_width(widths: Sequence[int]) -> int:
    """The line length of columns this wide, with tabulate's gaps between them."""
    return sum(widths) + _GAP * (len(widths) - 1)


def _narrow(t: Table, headers: list[str], rows: list[list[str]], width: int) -> str:
    """A table too wide for the terminal: headers wrap at their words (no padding beyond the
    column gap), text columns wrap at spaces; a `fold` column that would have to wrap is
    printed above its rows instead, once per run of equal values (run's source lines)."""
    headers = [h.replace("_", " ") for h in headers]  # a key shown as a header wraps: 'naive predicted'
    fmt = _table_format(headers, False)
    widths = fitted_widths(headers, rows, width, header_pad=0)
    natural = column_widths(headers, rows, 0)
    if t.narrow and _table_width([w or n for w, n in zip(widths, natural, strict=True)]) > width:
        # still too wide once wrapped: the table's chosen columns, and a line saying what is left out
        keep = [i for i, c in enumerate(t.columns) if c in t.narrow]
        left_out = len(headers) - len(keep)
        headers, rows = [headers[i] for i in keep], [[r[i] for i in keep] for r in rows]
        widths = fitted_widths(headers, rows, width, header_pad=0)
        table = _tabulate(headers, rows, fmt, 0, maxcolwidths=widths, maxheadercolwidths=widths)
        return table + "\n" + _wrapped(f"({left_out} more columns: perfcalc --wide, or --format csv)", width)
    fold = t.columns.index(t.fold) if t.fold in t.columns else None
    if fold is None or widths[fold] is None:  # the fold column would not wrap: keep it beside its rows
        return _tabulate(headers, rows, fmt, 0, maxcolwidths=widths, maxheadercolwidths=widths)
    keep = [i for i in range(len(headers)) if i != fold]
    kept_rows = [[r[i] for i in keep] for r in rows]
    kept_headers = [headers[i] for i in keep]
    widths = fitted_widths(kept_headers, kept_rows, width, header_pad=0)
    lines = _tabulate(kept_headers, kept_rows, fmt, 0, maxcolwidths=widths, maxheadercolwidths=widths).splitlines()
    head = len(lines) - len(rows)
    if head < 0 or any("\n" in c for r in kept_rows for c in r):
        return "\n".join(lines)  # a row took several lines: no place to put the folded text
    out, previous = ["  " + line for line in lines[:head]], None
    for row, line in zip(rows, lines[head:], strict=True):
        if row[fold] != previous:
            out.append(_wrapped(row[fold].strip(), width))
            previous = row[fold]
        out.append("  " + line)
    return "\n".join(out)


def fitted_widths(
    headers: Sequence[str], rows: Sequence[Sequence[str]], width: int, header_pad: int = _HEADER_PAD
) -> list[int | None]:
    """Per column, the width to wrap it at (None: as wide as it is) so the table fits `width`.

    The widest columns give up characters first; text wraps at spaces, so no column goes below
    its longest word (at most LONGEST_UNBROKEN) or its header's longest word: numbers and
    identifiers stay whole, formulas, sources and source lines wrap."""
    natural, floor = column_widths(headers, rows, header_pad), []
    for i, header in enumerate(headers):
        words = [len(w) for r in rows for w in r[i].split()] or [0]
        floor.append(max([min(LONGEST_UNBROKEN, max(words)), *(len(w) + header_pad for w in header.split())]))
    widths = list(natural)
    budget = width - _GAP * (len(widths) - 1)
    while sum(widths) > budget:
        shrinkable = [i for i in range(len(widths)) if widths[i] > floor[i]]
        if not shrinkable:
            break  # as narrow as it gets: the terminal wraps the rest
        widest = max(shrinkable, key=lambda i: widths[i])
        widths[widest] -= 1
    return [None if w == n else w for w, n in zip(widths, natural, strict=True)]


def _wrapped(text: str, width: int | None) -> str:
    if width is None or len(text) <= width:
        return text
    import textwrap

    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False))


def _table_format(headers: Sequence[str], markdown: bool) -> str:
    """Markdown's pipe table; in a terminal a rule under the headers, or, for a list of items
    whose columns are unnamed (the caches and summary tables), no header line at all."""
    if markdown:
        return "github"
    return "plain" if not any(h.strip() for h in headers) else "simple"


def shown_tables(tables: Sequence[Table], name: str | None) -> list[Table]:
    """The tables an output holds: the one `name` picks (any, on-request ones included), else
    every table that is not on request."""
    if name is not None:
        return [pick_table(tables, name)]
    return [t for t in tables if not t.on_request]


def main_table(tables: Sequence[Table]) -> Table:
    """The table a CSV holds when none is named: the one marked `main`, else the first."""
    return next((t for t in tables if t.main), tables[0])


def pick_table(tables: Sequence[Table], name: str) -> Table:
    """The table called `name` (`--table NAME`); an unknown name is an error listing the known."""
    for t in tables:
        if t.key == name:
            return t
    known = ", ".join(t.key for t in tables)
    raise InputError(f"--table {name!r} is not a table of this output; its tables: {known}")


def _render_csv(table: Table) -> str:
    """One tidy table of raw values: a header row of column keys, then one line per row, so
    `pandas.read_csv` reads it into one frame; the table's context leads every row."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*table.context, *table.columns])
    lead = [_csv_cell(v) for v in table.context.values()]
    for row in table.rows:
        writer.writerow([*lead, *(_csv_cell(row.get(c)) for c in table.columns)])
    return out.getvalue()


def _csv_cell(value: Any) -> Any:
    value = to_jsonable(value)
    if isinstance(value, (list, dict)):
        return json.dumps(value) if isinstance(value, dict) else ";".join(map(str, value))
    return "" if value is None else value


def render(
    tables: Table | Sequence[Table], fmt: str, data: Any = None, table: str | None = None, width: int | None = None
) -> str:
    """Render tables in `fmt`. JSON prints `data` (the result dataclasses) when given, else the
    rows of each table under its name. CSV is one table: `table` by name, else the main one;
    the text formats show every table, or only `table` when it is named. With `width`, the
    terminal format wraps long text cells and notes to fit that many columns where it can."""
    if isinstance(tables, Table):
        tables = [tables]
    tables = shown_tables(tables, table)
    if fmt == "json":
        if data is None:
            data = {t.key: t.rows for t in tables} if len(tables) > 1 else {"rows": tables[0].rows}
        return json.dumps(to_jsonable(data), indent=2) + "\n"
    if fmt == "csv":
        return _render_csv(main_table(tables))
    if fmt in ("table", "markdown"):
        return _render_table(tables, markdown=fmt == "markdown", width=None if fmt == "markdown" else width)
    raise ValueError(f"unknown format {fmt!r}")


def html_table(table: Table) -> str:
    """One table as an HTML <table> (cells escaped), numbers as the terminal shows them."""
    headers, rows = _grid(table)
    return _tabulate(headers, rows, "html")
