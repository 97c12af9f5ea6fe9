"""What `perfcalc coalesce` and `perfcalc banks` read: the warp pattern's options, declared once,
the pattern they describe, and the CC families to price it on."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from perfcalc.cli.choices import AccessOp, AccessPattern, GlobalCache

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
Seed = Annotated[int, typer.Option(help="permuted/random: random seed (0 to 2**63-1).", min=0, max=2**63 - 1)]
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
Cache = Annotated[
    GlobalCache | None,
    typer.Option(
        help="2.x/3.x only: l1 (128-byte lines; 2.x default) or l2 (32-byte segments; 3.x default).",
        case_sensitive=False,
    ),
]
ShowTransactions = Annotated[
    bool, typer.Option("--show-transactions", help="List each request's transactions in issue order.")
]
CoalescePlot = Annotated[
    Path | None,
    typer.Option(
        "--plot",
        help="Also draw lanes -> bytes -> transactions per CC family to FILE.png, .svg or .pdf (needs perfcalc[plot]).",
        dir_okay=False,
    ),
]
BankMode = Annotated[
    int | None, typer.Option(help="3.x only: bank width 4 (default) or 8 bytes (cudaDeviceSetSharedMemConfig).")
]
ShowBanks = Annotated[bool, typer.Option("--show-banks", help="Also print the bank of every lane.")]
BanksPlot = Annotated[
    Path | None,
    typer.Option(
        "--plot",
        help="Also draw banks x passes with each lane in its bank word, per CC family, to FILE.png, .svg "
        "or .pdf (needs perfcalc[plot]).",
        dir_okay=False,
    ),
]


def warp_pattern_of(
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

    if index is not None and not index.strip():
        raise InputError("--index '': give an expression of the lane, e.g. --index 'lane*2+1'")
    name = pattern.value if pattern is not None else ("index" if index else "stride")
    _refuse_options_of_other_patterns(name)
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


def _refuse_options_of_other_patterns(name: str) -> None:
    """`--tile-width` with `--pattern random` (and the like) is refused: the pattern ignores it."""
    from perfcalc.cli.relevance import refuse_unused
    from perfcalc.memory.patterns import PATTERN_OPTIONS

    for option in sorted({o for used in PATTERN_OPTIONS.values() for o in used} - set(PATTERN_OPTIONS[name])):
        users = [p for p, used in PATTERN_OPTIONS.items() if option in used]
        alternatives = ", ".join(users[:-1]) + (" or " if len(users) > 1 else "") + users[-1]
        refuse_unused([option], f"--pattern {alternatives}", f"--pattern {name}")


def cc_or_gpu(cc: str | None, gpu: str | None) -> str | None:
    """--gpu names a product, which brings its CC (and must agree with --cc when both are given)."""
    if gpu is None:
        return cc
    from perfcalc.specs.target import resolve_target

    resolve_target(cc, gpu)
    return gpu


def cc_targets(cc: str | None, all_cc: bool, family_key: str) -> list[tuple[str, Any]]:
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
    return [(span(g), g[0]) for g in groups]


def span(archs: list[Any]) -> str:
    first, last = archs[0].cc, archs[-1].cc
    return first if first == last else f"{first}-{last}"
