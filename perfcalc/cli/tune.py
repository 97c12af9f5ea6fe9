"""`perfcalc tune FILE.cu --kernel NAME --space 'TILE=8,16,32' --gpu b200 --gpu h100-sxm ...`:
every configuration of a kernel predicted on every product, and the best per product (issue 34).

The launch options are `run --source`'s, with the space's names allowed in them as expressions
(`--grid 'N/BN,N/BM' --block 'BN/TN,BM/TM' --array A=float32:N*N`); each axis is also passed to
the compiler as -D NAME=VALUE.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from perfcalc.cli.common import DpiOption, Format, FormatOption, OutputOption, show, start_output, table_option
from perfcalc.cli.options import CompilerOption
from perfcalc.cli.relevance import check_plot

SourceArgument = Annotated[
    Path, typer.Argument(metavar="FILE.cu", help="The CUDA file with the kernel.", dir_okay=False)
]
SpaceOption = Annotated[
    list[str] | None,
    typer.Option("--space", help="An axis: NAME=8,16,32 or NAME=64..1024:*2 (or :+STEP). Repeat for more axes."),
]
SpaceFileOption = Annotated[
    Path | None,
    typer.Option(
        "--space-file", help="A YAML or TOML file: axis names to lists or ranges, and a `where` list.", dir_okay=False
    ),
]
WhereOption = Annotated[
    list[str] | None,
    typer.Option("--where", help="Keep only points where this expression holds, e.g. 'BM/TM*BN/TN<=1024'."),
]
TuneGpusOption = Annotated[list[str], typer.Option("--gpu", help="A product to predict on (repeat for several).")]
ExprGridOption = Annotated[str, typer.Option("--grid", help="Grid: 1 to 3 expressions of the axes, e.g. 'N/BN,N/BM'.")]
ExprBlockOption = Annotated[str, typer.Option("--block", help="Block: 1 to 3 expressions, e.g. 'BN/TN,BM/TM'.")]
ExprArrayOption = Annotated[
    list[str] | None,
    typer.Option("--array", help="NAME=DTYPE:COUNT (COUNT an expression such as N*N) or NAME=@FILE.npy."),
]
ExprParamOption = Annotated[
    list[str] | None, typer.Option("--param", "-p", help="NAME=EXPRESSION: a scalar argument of the kernel.")
]
LetOption = Annotated[
    list[str] | None,
    typer.Option("--let", help="NAME=EXPRESSION: a name for the other expressions only (not a kernel argument)."),
]
ExprDefineOption = Annotated[
    list[str] | None, typer.Option("--define", "-D", help="NAME=VALUE for the compiler; axes' names are replaced.")
]
ExprSharedOption = Annotated[str, typer.Option("--dynamic-shared", help="Dynamic shared memory bytes (an expression).")]
IncludeDirOption = Annotated[
    list[Path] | None, typer.Option("--include-dir", "-I", help="Header folder.", file_okay=False)
]
BackendOption = Annotated[
    str,
    typer.Option("--backend", help="process (a local pool, the default), ray (pip install 'perfcalc[ray]') or serial."),
]
WorkersOption = Annotated[
    int | None, typer.Option("--workers", help="Parallel workers [default: cores, as memory allows].")
]
AddressOption = Annotated[
    str | None, typer.Option("--address", help="Ray cluster to join (else $RAY_ADDRESS, else a local one).")
]
ResultsOption = Annotated[
    Path | None,
    typer.Option(
        "--results",
        help="JSON-lines file points are written to as they finish; a re-run resumes from it.",
        dir_okay=False,
    ),
]
PlotOption = Annotated[
    Path | None, typer.Option("--plot", help="Draw predicted time over the space (.png, .svg, .pdf).")
]


def register(app: typer.Typer) -> None:
    app.command("tune")(tune)


def _products(gpu: list[str]) -> tuple[str, ...]:
    """The --gpu products, each named once; an unknown one fails before any work."""
    from perfcalc.errors import InputError
    from perfcalc.specs.target import resolve_target

    if not gpu:
        raise InputError("give at least one --gpu PRODUCT to tune for (see `perfcalc devices`)")
    if len(set(gpu)) != len(gpu):
        raise InputError(f"--gpu repeats a product ({', '.join(gpu)}): name each once")
    return tuple(resolve_target(None, g).name for g in gpu)


def tune(
    source: SourceArgument,
    kernel: Annotated[
        str | None, typer.Option("--kernel", help="The __global__ function (template arguments may name axes).")
    ] = None,
    space: SpaceOption = None,
    space_file: SpaceFileOption = None,
    where: WhereOption = None,
    gpu: TuneGpusOption = [],  # noqa: B006 (typer reads the default; it is never mutated)
    grid: ExprGridOption = "1",
    block: ExprBlockOption = "256",
    array: ExprArrayOption = None,
    param: ExprParamOption = None,
    let: LetOption = None,
    define: ExprDefineOption = None,
    dynamic_shared: ExprSharedOption = "0",
    include: IncludeDirOption = None,
    compiler: CompilerOption = None,
    backend: BackendOption = "process",
    workers: WorkersOption = None,
    address: AddressOption = None,
    results: ResultsOption = None,
    plot: PlotOption = None,
    dpi: DpiOption = 200,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
    table: Annotated[str | None, table_option("points, best")] = None,
) -> None:
    """Predict every configuration of a kernel on every product; the best per product.

    Example: perfcalc tune gemm.cu --kernel gemm --space BM=32,64,128 --space TM=1..8:*2
    --grid 'N/BM,N/BM' --block 'BM/TM,BM/TM' -p N=1024 --array A=float32:N*N --gpu h100-sxm --gpu l4
    """
    import sys

    from perfcalc.report.tune_tables import best_table, points_table
    from perfcalc.tune import Sweep, space_from
    from perfcalc.tune import tune as run_tune

    start_output(output)
    names = _products(gpu)
    check_plot(plot, dpi)
    if results is not None:
        start_output(str(results))
    chosen = space_from(list(space or ()), list(where or ()), space_file)
    sweep = Sweep(
        str(source),
        kernel,
        grid,
        block,
        names,
        tuple(array or ()),
        _pairs(param, "--param"),
        _pairs(define, "--define"),
        dynamic_shared,
        tuple(str(d) for d in include or ()),
        None if compiler is None else compiler.value,
        _pairs(let, "--let"),
    )
    _check_source(source)
    progress = _progress if sys.stderr.isatty() else None
    report = run_tune(sweep, chosen, backend, workers, address, results, progress)
    if progress is not None:
        typer.echo("", err=True)
    if report.resumed:
        typer.echo(f"note: {report.resumed} of {report.points} points read back from {results}", err=True)
    if plot is not None:
        from perfcalc.report.tune_plot import save_tune_plot

        save_tune_plot(report, plot, dpi)
    show([best_table(report), points_table(report)], fmt, output, data=report, table=table)


def _pairs(items: list[str] | None, option: str) -> dict[str, str]:
    from perfcalc.errors import InputError

    out: dict[str, str] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not name.isidentifier():
            raise InputError(f"{option} {item[:60]!r}: expected NAME=VALUE")
        if name in out:
            raise InputError(f"{option} {name} is given twice; give each name once")
        out[name] = value if sep else "1"
    return out


def _check_source(source: Path) -> None:
    from perfcalc.files import check_regular_file

    check_regular_file(source, "FILE.cu")


def _progress(done: int, total: int) -> None:
    import sys

    sys.stderr.write(f"\r\x1b[Kpoint {done} of {total}")
    sys.stderr.flush()
