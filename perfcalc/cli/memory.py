"""`perfcalc coalesce` and `perfcalc banks`: what one warp-level access costs, per CC family."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from perfcalc.cli.choices import AccessOp
from perfcalc.cli.common import DpiOption, Format, FormatOption, OutputOption, show, start_output, table_option
from perfcalc.cli.memory_inputs import (
    CC,
    Active,
    AllCC,
    BankMode,
    BanksPlot,
    Base,
    Cache,
    CoalescePlot,
    Column,
    FieldOffset,
    Gpu,
    Index,
    Offset,
    Op,
    Pad,
    Pattern,
    Row,
    Seed,
    Segment,
    ShowBanks,
    ShowTransactions,
    Stride,
    StructSize,
    TileWidth,
    Word,
    cc_or_gpu,
    cc_targets,
    warp_pattern_of,
)
from perfcalc.cli.relevance import check_plot


def register(app: typer.Typer) -> None:
    app.command("coalesce")(coalesce)
    app.command("banks")(banks)


def coalesce(
    pattern: Pattern = None,
    stride: Stride = 1,
    word: Word = 4,
    offset: Offset = 0,
    base: Base = 0,
    struct_size: StructSize = None,
    field_offset: FieldOffset = 0,
    tile_width: TileWidth = 32,
    pad: Pad = 0,
    row: Row = 0,
    column: Column = 0,
    segment: Segment = 128,
    seed: Seed = 0,
    index: Index = None,
    active: Active = None,
    cc: CC = None,
    gpu: Gpu = None,
    all_cc: AllCC = False,
    cache: Cache = None,
    op: Op = AccessOp.load,
    show_transactions: ShowTransactions = False,
    plot: CoalescePlot = None,
    dpi: DpiOption = 200,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
    table: Annotated[str | None, table_option("access, transactions (with --show-transactions)")] = None,
) -> None:
    """Global-memory transactions, bytes and efficiency of one warp-level access.

    Example: perfcalc coalesce --pattern stride --stride 2 --word 4 --all-cc
    """
    from perfcalc.memory import global_access
    from perfcalc.report.memory_tables import coalesce_table, transactions_table

    start_output(output)
    check_plot(plot, dpi)
    pat = warp_pattern_of(
        pattern,
        word,
        stride,
        offset,
        base,
        struct_size,
        field_offset,
        tile_width,
        pad,
        row,
        column,
        segment,
        seed,
        index,
        active,
    )
    addr, mask = pat.arrays()
    results = []
    for label, arch in cc_targets(cc_or_gpu(cc, gpu), all_cc, "global_memory_family"):
        chosen = None if cache is None else cache.value
        mode = chosen if (cc is not None or arch.global_family.cache_modes) else None
        results.append((label, global_access(arch, addr, pat.word, mask, op=op.value, cache=mode)))
    details = transactions_table(results)
    details.on_request = not show_transactions
    _show_access([coalesce_table(results, _title("Global", op, pat)), details], pat, results, fmt, output, table)
    if plot is not None:
        from perfcalc.report.coalesce_plot import plot_coalesce

        plot_coalesce(pat, results, plot, dpi)


def banks(
    pattern: Pattern = None,
    stride: Stride = 1,
    word: Word = 4,
    offset: Offset = 0,
    base: Base = 0,
    struct_size: StructSize = None,
    field_offset: FieldOffset = 0,
    tile_width: TileWidth = 32,
    pad: Pad = 0,
    row: Row = 0,
    column: Column = 0,
    segment: Segment = 128,
    seed: Seed = 0,
    index: Index = None,
    active: Active = None,
    cc: CC = None,
    gpu: Gpu = None,
    all_cc: AllCC = False,
    bank_mode: BankMode = None,
    op: Op = AccessOp.load,
    show_banks: ShowBanks = False,
    plot: BanksPlot = None,
    dpi: DpiOption = 200,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
    table: Annotated[str | None, table_option("access, lane_banks (with --show-banks)")] = None,
) -> None:
    """Shared-memory passes (wavefronts) and bank conflicts of one warp-level access.

    Example: perfcalc banks --stride 2 --word 4 --all-cc
    """
    from perfcalc.memory import shared_access
    from perfcalc.report.memory_tables import banks_table, lane_banks_table

    start_output(output)
    check_plot(plot, dpi)
    pat = warp_pattern_of(
        pattern,
        word,
        stride,
        offset,
        base,
        struct_size,
        field_offset,
        tile_width,
        pad,
        row,
        column,
        segment,
        seed,
        index,
        active,
    )
    addr, mask = pat.arrays()
    priced = []  # (label, arch, bank mode)
    for label, arch in cc_targets(cc_or_gpu(cc, gpu), all_cc, "shared_memory_family"):
        if cc is None and arch.shared_family.eight_byte_mode and bank_mode is None:
            # both Kepler modes side by side
            priced += [(f"{label} ({mode}-byte banks)", arch, mode) for mode in arch.bank_widths_bytes]
            continue
        priced.append((label, arch, bank_mode if (cc is not None or arch.shared_family.eight_byte_mode) else None))
    results = [
        (label, shared_access(arch, addr, pat.word, mask, op=op.value, bank_mode=mode)) for label, arch, mode in priced
    ]
    lanes = lane_banks_table(results, pat.addresses)
    lanes.on_request = not show_banks
    _show_access([banks_table(results, _title("Shared", op, pat)), lanes], pat, results, fmt, output, table)
    if plot is not None:
        from perfcalc.memory.bank_words import bank_words
        from perfcalc.report.banks_plot import plot_banks

        words = [bank_words(arch, addr, pat.word, mask, op=op.value, bank_mode=mode) for _l, arch, mode in priced]
        plot_banks(pat, [(label, cost, w) for (label, cost), w in zip(results, words, strict=True)], plot, dpi)


def _title(space: str, op: AccessOp, pat: Any) -> str:
    """'Global load: lane l reads element offset + stride*l, 4-byte words'."""
    return f"{space} {op.value}: {_verb(pat.description, op.value)}, {pat.word}-byte words"


def _show_access(
    tables: list[Any], pat: Any, results: list[Any], fmt: Format, output: str | None, table: str | None
) -> None:
    """coalesce's and banks' output: the tables, and in JSON the pattern and each family's cost."""
    data = {"pattern": pat, "results": [{"ccs": label, "cost": cost} for label, cost in results]}
    show(tables, fmt, output, data=data, table=table)


def _verb(description: str, op: str) -> str:
    """Pattern descriptions say 'reads'; a store writes."""
    return description.replace(" reads ", " writes ") if op == "store" else description
