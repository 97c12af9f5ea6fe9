"""`perfcalc schema COMMAND`: the JSON Schema a command's `--format json` follows."""

from __future__ import annotations

from typing import Annotated

import typer

from perfcalc.cli.common import OutputOption, start_output


def register(app: typer.Typer) -> None:
    app.command("schema")(schema)


def schema(
    command: Annotated[
        str,
        typer.Argument(
            metavar="COMMAND",
            help="devices, occupancy, matmul, roofline, kernels, coalesce, banks or run.",
        ),
    ],
    output: OutputOption = None,
) -> None:
    """Print the JSON Schema (draft 2020-12) of COMMAND's --format json output.

    Every key is a field of perfcalc's result dataclasses (or one of the few document keys), with
    one meaning and one type across all commands. Example: perfcalc schema run -o run.schema.json
    """
    from perfcalc.report import emit
    from perfcalc.report.json_schema import shipped_text

    start_output(output)
    emit(shipped_text(command), None if output == "-" else output)
