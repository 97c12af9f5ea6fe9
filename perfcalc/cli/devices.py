"""`perfcalc devices`: the compute capabilities perfcalc knows, and one in full."""

from __future__ import annotations

from typing import Annotated

import typer

from perfcalc.cli.common import Format, FormatOption, OutputOption, show, start_output, table_option


def register(app: typer.Typer) -> None:
    app.command("devices")(devices)


def devices(
    show_cc: Annotated[
        str | None,
        typer.Argument(
            metavar="[show CC|GPU | products]",
            help="'show' followed by a CC (8.6, 86, sm_86) prints every limit; 'show' followed by a "
            "GPU (v100) every product figure; 'products' lists the GPU products.",
        ),
    ] = None,
    cc: Annotated[str | None, typer.Argument(hidden=True)] = None,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
    table: Annotated[str | None, table_option("compute_capabilities, products (the list)")] = None,
) -> None:
    """List the compute capabilities (with their GPU products), or show one CC or GPU in full.

    Examples: perfcalc devices show 8.6 | perfcalc devices show v100 | perfcalc devices products
    """
    from perfcalc.errors import InputError
    from perfcalc.report.device_tables import (
        device_detail_table,
        devices_table,
        product_detail_table,
        products_table,
    )
    from perfcalc.specs import all_archs, all_gpus, get_arch, get_gpu, normalize_cc, resolve_device

    start_output(output)
    if show_cc is None:
        ccs = devices_table(all_archs(), all_gpus())
        products = products_table(all_gpus())
        show([ccs, products], fmt, output, table=table)
        return
    if show_cc == "products" and cc is None:
        show(products_table(all_gpus()), fmt, output, table=table)
        return
    if show_cc != "show" or cc is None:
        raise InputError(
            f"expected 'perfcalc devices', 'perfcalc devices products' or "
            f"'perfcalc devices show CC|GPU', got {show_cc!r}"
        )
    if normalize_cc(cc) is None:  # a product name or a data file (or an error listing them)
        arch, gpu = resolve_device(cc) if cc.strip().lower().endswith((".yaml", ".yml")) else (None, get_gpu(cc))
        if gpu is not None:
            show(product_detail_table(gpu), fmt, output, data=gpu, table=table)
            return
    else:
        arch = get_arch(cc)
    assert arch is not None
    show(device_detail_table(arch), fmt, output, data=arch, table=table)
