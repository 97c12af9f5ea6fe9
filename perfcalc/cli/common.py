"""Options every command shares, and the one path from tables to stdout or a file."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer

from perfcalc.defaults import DEFAULT_CC, DEFAULT_GPU


class Format(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"
    markdown = "markdown"


FormatOption = Annotated[Format, typer.Option("--format", "-f", help="Output format.", case_sensitive=False)]
OutputOption = Annotated[
    str | None,  # text, not Path: Path('') is '.', Path('new/') drops the slash
    typer.Option("--output", "-o", help="Write to this file (atomically) instead of stdout."),
]


def table_option(names: str) -> Any:
    """`--table NAME` for a command whose output has several tables, `names` listing them:
    `table: Annotated[str | None, table_option("a, b")] = None`."""
    return typer.Option(
        "--table",
        metavar="NAME",
        help="Show or write only this table. A CSV is always one table: the first named here "
        f"unless --table picks another. Tables: {names}.",
    )


DpiOption = Annotated[
    int,
    typer.Option("--dpi", help="Resolution of a PNG plot (dots per inch; SVG and PDF are vector).", min=50, max=1200),
]

MaxSecondsOption = Annotated[
    float,
    typer.Option(
        "--max-seconds",
        help="Refuse a simulation that would take longer than this, "
        "and stop a loop still running after it (an endless loop).",
        min=0.001,
    ),
]


def start_output(output: str | Path | None) -> None:
    """Check the output path before any work, so a bad path fails fast and writes nothing."""
    if output is not None and output != "-":
        from perfcalc.report import check_writable

        check_writable(output)


DEFAULT_NOTE = f"default: {DEFAULT_GPU}, CC {DEFAULT_CC}"


def show(tables: Any, fmt: Format, output: str | Path | None, data: Any = None, table: str | None = None) -> None:
    """Render tables (or `data` for JSON) and print or write them; `table` picks one by name.
    `-o -` is stdout; a file named `x.csv`, `x.json` or `x.md` with the default format gets
    that format. Tables printed to a terminal wrap their long text to its width (not with
    `perfcalc --wide`, nor in a file or a pipe)."""
    from perfcalc.report import emit, render

    if output == "-":
        output = None
    fmt = effective_format(fmt, output)
    emit(render(tables, fmt.value, data, table, width=terminal_width() if output is None else None), output)


def effective_format(fmt: Format, output: str | Path | None) -> Format:
    """The format a command's output takes: a file named x.csv, x.json or x.md with the default
    format gets that format (a command that shapes its tables by format asks here first)."""
    if output is not None and output != "-" and fmt == Format.table:
        return _SUFFIX_FORMATS.get(Path(output).suffix.lower(), fmt)
    return fmt


class _Layout:
    wide = False  # `perfcalc --wide`: tables at full width on a terminal too


def set_wide(wide: bool) -> None:
    _Layout.wide = wide


def terminal_width() -> int | None:
    """The width to fit tables to: the terminal's (COLUMNS first, as the shell sets it), or None
    when stdout is not a terminal or --wide was given."""
    import shutil
    import sys

    if _Layout.wide or not sys.stdout.isatty():
        return None
    return max(40, shutil.get_terminal_size().columns)


_SUFFIX_FORMATS = {".csv": Format.csv, ".json": Format.json, ".md": Format.markdown, ".markdown": Format.markdown}
