"""`perfcalc coalesce` and `perfcalc banks`: what one warp-level access costs, per CC family."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from perfcalc.cli.choices import AccessOp, AccessPattern, GlobalCache
from perfcalc.cli.common import DpiOption, Format, FormatOption, OutputOption, show, start_output, table_option


def register(app: typer.Typer) -> None:
    app.command("coalesce")(coalesce)
    app.command("banks")(banks)


Pattern = Annotated[
    AccessPattern | None,
    typer.Option(
        "--pattern",
        help="Which lanes read which elements (default: stride, or index when --index is given).",
        case_sensitive=False,
    ),
]
Stride = Annotated[int, typer.Option(help="Elements between neighbouring lanes.")]
Word = Annotated[int, typer.Option(help="Bytes per lane access: 1, 2, 4, 8 or 16.")]
Offset = Annotated[int, typer.Option(help="Shift the warp by this many elements (misalignment).")]
Base = Annotated[int, typer.Option(help="Byte address of element 0 (cudaMalloc: 256-aligned).")]
StructSize = Annotated[int | None, typer.Option(help="aos: struct size in bytes.")]
FieldOffset = Annotated[int, typer.Option(help="aos: byte offset of the field in the struct.")]
TileWidth = Annotated[int, typer.Option(help="tile-*: tile width in elements.")]
Pad = Annotated[int, typer.Option(help="tile-*: padding elements per tile row (32x33: 1).")]
Row = Annotated[int, typer.Option(help="tile-row: first row read.")]
Column = Annotated[int, typer.Option(help="tile-column: first column read.")]
Segment = Annotated[int, typer.Option(help="random: bytes the random words are drawn from.")]
Seed = Annotated[int, typer.Option(help="permuted/random: random seed.")]
Index = Annotated[
    str | None, typer.Option(help="Element index of lane `lane` as an expression, e.g. 'lane*2+1' (never eval'd).")
]
Active = Annotated[
    str | None, typer.Option(help="Active lanes as a hex mask, bit l = lane l (e.g. ffe7ffe7); default all 32.")
]
CC = Annotated[
    str | None,
    typer.Option(
        "--cc", help="Compute capability (7.0, 70, sm_70), product or device file; default: every family (--all-cc)."
    ),
]
Gpu = Annotated[str | None, typer.Option("--gpu", help="A GPU product (h100-sxm, v100, ...): its CC's rules.")]
AllCC = Annotated[bool, typer.Option("--all-cc", help="One row per CC family (the default).")]
Op = Annotated[AccessOp, typer.Option(help="A load or a store.", case_sensitive=False)]


def _pattern(
    pattern: Any,
    word: int,
    stride: int,
    offset: int,
    base: int,
    struct_size: int | None,
    field_offset: int,
    tile_width: int,
    pad: int,
    row: int,
    column: int,
    segment: int,
    seed: int,
    index: str | None,
    active: str | None,
) -> Any:
    from perfcalc.errors import InputError
    from perfcalc.memory.patterns import warp_pattern

    name = pattern.value if pattern is not None else ("index" if index else "stride")
    if index and name != "index":
        raise InputError(f"--index goes with --pattern index, not --pattern {name} (which would ignore it)")
    return warp_pattern(
        name,
        word,
        stride=stride,
        offset=offset,
        base=base,
        struct_size=struct_size,
        field_offset=field_offset,
        tile_width=tile_width,
        pad=pad,
        row=row,
        column=column,
        segment=segment,
        seed=seed,
        index=index,
        active=active,
    )


def _cc_or_gpu(cc: str | None, gpu: str | None) -> str | None:
    """--gpu names a product, which brings its CC (and must agree with --cc when both are given)."""
    if gpu is None:
        return cc
    from perfcalc.cli.common import device_and_product

    device_and_product(cc, gpu)
    return gpu


def _targets(cc: str | None, all_cc: bool, family_key: str) -> list[tuple[str, Any]]:
    """[(label, Arch)]: the one CC asked for, or the first CC of each family ('7.0-9.0')."""
    from perfcalc.errors import InputError
    from perfcalc.specs import all_archs, resolve_arch

    if cc is not None:
        if all_cc:
            raise InputError("give either --cc or --all-cc, not both")
        arch = resolve_arch(cc)
        return [(arch.cc, arch)]
    groups: list[list[Any]] = []
    for arch in all_archs():
        if groups and getattr(groups[-1][0], family_key) == getattr(arch, family_key):
            groups[-1].append(arch)
        else:
            groups.append([arch])
    return [(_span(g), g[0]) for g in groups]


def _span(archs: list[Any]) -> str:
    first, last = archs[0].cc, archs[-1].cc
    return first if first == last else f"{first}-{last}"


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
    cache: Annotated[
        GlobalCache | None,
        typer.Option(
            help="2.x/3.x only: l1 (128-byte lines; 2.x default) or l2 (32-byte segments; 3.x default).",
            case_sensitive=False,
        ),
    ] = None,
    op: Op = AccessOp.load,
    show_transactions: Annotated[
        bool, typer.Option("--show-transactions", help="List each request's transactions in issue order.")
    ] = False,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            help="Also draw lanes -> bytes -> transactions per CC family to FILE.png, .svg or .pdf "
            "(needs perfcalc[plot]).",
            dir_okay=False,
        ),
    ] = None,
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
    if plot is not None:
        from perfcalc.report.figures import check_figure_path

        check_figure_path(plot)
    pat = _pattern(
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
    for label, arch in _targets(_cc_or_gpu(cc, gpu), all_cc, "global_memory_family"):
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
    bank_mode: Annotated[
        int | None, typer.Option(help="3.x only: bank width 4 (default) or 8 bytes (cudaDeviceSetSharedMemConfig).")
    ] = None,
    op: Op = AccessOp.load,
    show_banks: Annotated[bool, typer.Option("--show-banks", help="Also print the bank of every lane.")] = False,
    plot: Annotated[
        Path | None,
        typer.Option(
            "--plot",
            help="Also draw banks x passes with each lane in its bank word, per CC family, to FILE.png, .svg "
            "or .pdf (needs perfcalc[plot]).",
            dir_okay=False,
        ),
    ] = None,
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
    if plot is not None:
        from perfcalc.report.figures import check_figure_path

        check_figure_path(plot)
    pat = _pattern(
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
    for label, arch in _targets(_cc_or_gpu(cc, gpu), all_cc, "shared_memory_family"):
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
