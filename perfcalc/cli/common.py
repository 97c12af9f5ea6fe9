"""Options every command shares, and the one path from tables to stdout or a file."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import typer


class Format(str, Enum):
    table = "table"
    csv = "csv"
    json = "json"
    markdown = "markdown"


FormatOption = Annotated[
    Format, typer.Option("--format", "-f", help="Output format.", case_sensitive=False)
]
OutputOption = Annotated[
    Path | None,
    typer.Option("--output", "-o", help="Write to this file (atomically) instead of stdout.",
                 dir_okay=False),
]


def start_output(output: Path | None) -> None:
    """Check the output path before any work, so a bad path fails fast and writes nothing."""
    if output is not None:
        from perfcalc.report import check_writable

        check_writable(output)


def show(tables: Any, fmt: Format, output: Path | None, data: Any = None) -> None:
    """Render tables (or `data` for JSON) and print or write them."""
    from perfcalc.report import emit, render

    emit(render(tables, fmt.value, data), output)
