"""`perfcalc devices`: the compute capabilities perfcalc knows, and one in full."""

from __future__ import annotations

from typing import Annotated

import typer

from perfcalc.cli.common import Format, FormatOption, OutputOption, show, start_output


def register(app: typer.Typer) -> None:
    app.command("devices")(devices)


def devices(
    show_cc: Annotated[str | None, typer.Argument(
        metavar="[show CC]", help="'show' followed by a CC (8.6, 86, sm_86) prints every limit.")] = None,
    cc: Annotated[str | None, typer.Argument(hidden=True)] = None,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
) -> None:
    """List the compute capabilities with their key limits, or show one in full.

    Example: perfcalc devices show 8.6
    """
    from perfcalc.errors import InputError
    from perfcalc.report.device_tables import device_detail_table, devices_table
    from perfcalc.specs import all_archs, get_arch

    start_output(output)
    if show_cc is None:
        show(devices_table(all_archs()), fmt, output)
        return
    if show_cc != "show" or cc is None:
        raise InputError(f"expected 'perfcalc devices' or 'perfcalc devices show CC', got {show_cc!r}")
    arch = get_arch(cc)
    show(device_detail_table(arch), fmt, output, data=arch)
