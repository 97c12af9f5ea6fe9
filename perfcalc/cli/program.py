"""`perfcalc app FILE.cu [more files] [-I DIR] [-D NAME=VALUE] [NVCC OPTIONS] [--gpu PRODUCT]... -- ARGS`: the whole
program run as it is on the modelled GPU, like `ncu ./prog args` (issue 31); on each of several
GPUs, like running it on each machine (issue 35)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from perfcalc.cli.common import Format, FormatOption, MaxSecondsOption, OutputOption, show, start_output, table_option
from perfcalc.cli.options import CcOption, NvccOption

FilesArgument = Annotated[
    list[str],
    typer.Argument(
        metavar="FILES... [-- ARGS...]",
        help="The program's .cu (and .cpp, .c) files and the nvcc options its build gives that change device code "
        "(-std=c++NN, --extended-lambda, --expt-relaxed-constexpr, -use_fast_math, -ftz=, -prec-div=, -prec-sqrt=, "
        "-fmad=); after `--`, the arguments its main() gets.",
    ),
]
IncludeOption = Annotated[
    list[Path] | None, typer.Option("--include-dir", "-I", help="Header folder.", file_okay=False)
]
DefineOption = Annotated[list[str] | None, typer.Option("--define", "-D", help="NAME or NAME=VALUE, as nvcc takes it.")]
AppGpuOption = Annotated[
    list[str] | None,
    typer.Option(
        "--gpu",
        help="Product to model (its caches and time for every launch); without it, counts only. Repeat it to "
        "compare products: the program runs once on each (it sees each one's properties), one table with a gpu column.",
    ),
]
KernelRegexOption = Annotated[
    str | None, typer.Option("--kernel", help="Count only launches of kernels whose name matches this regex.")
]
SkipOption = Annotated[int, typer.Option("--launch-skip", help="Count from the (N+1)-th selected launch.", min=0)]
CountOption = Annotated[int | None, typer.Option("--launch-count", help="Count this many selected launches.", min=1)]


AppExactOption = Annotated[
    bool,
    typer.Option(
        "--exact",
        help="With --gpu: follow every block of every launch through the L1/L2 model (by default, past "
        "--cache-budget seconds of its work a launch's later waves run and are counted exactly but outside the "
        "model, and its cache and DRAM traffic is extrapolated from the leading waves).",
    ),
]
CacheBudgetOption = Annotated[
    float,
    typer.Option("--cache-budget", help="Seconds of L1/L2-model work per launch before --exact matters.", min=0.01),
]


def register(app: typer.Typer) -> None:
    app.command("app", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})(run_app)


def run_app(
    ctx: typer.Context,
    files: FilesArgument,
    include: IncludeOption = None,
    define: DefineOption = None,
    gpu: AppGpuOption = None,
    cc: CcOption = None,
    kernel: KernelRegexOption = None,
    launch_skip: SkipOption = 0,
    launch_count: CountOption = None,
    nvcc: NvccOption = None,
    max_seconds: MaxSecondsOption = 600.0,
    exact: AppExactOption = False,
    cache_budget: CacheBudgetOption = 5.0,
    fmt: FormatOption = Format.table,
    output: OutputOption = None,
    table: Annotated[str | None, table_option("launches, kernels")] = None,
) -> None:
    """Run a whole CUDA program on the modelled GPU: its own main(), its own data, every launch
    counted (and timed with --gpu).

    Example: perfcalc app softmax.cu --gpu h100-sxm -- 1024 4096
    """
    import sys
    import time

    from perfcalc.app import app as run_program
    from perfcalc.report.app_tables import advice_table, kernels_table, launches_table, runs_document
    from perfcalc.specs.target import resolve_targets

    start_output(output)
    sources, options, args = _split(files, list(ctx.args))
    resolve_targets(cc, gpu, default_product=False)  # every product checked before the first run
    progress = _progress() if sys.stderr.isatty() else None
    deadline = time.monotonic() + max_seconds  # --max-seconds bounds the whole command
    reports = []
    products: list[str | None] = [*gpu] if gpu else [None]
    for product in products:
        reports.append(
            run_program(
                sources,
                args,
                product,
                cc,
                [str(d) for d in include or ()],
                list(define or ()),
                kernel,
                launch_skip,
                launch_count,
                max(deadline - time.monotonic(), 0.001),
                nvcc=nvcc,
                capture=False,
                on_launch=progress,
                stdout_to_stderr=fmt != Format.table and output in (None, "-"),
                nvcc_options=options,
                exact=exact,
                cache_budget_s=cache_budget,
            )
        )
        if progress is not None:
            typer.echo("", err=True)
    tables = [launches_table(reports), kernels_table(reports), advice_table(reports)]
    show(tables, fmt, output, data=runs_document(reports), table=table)
    for report in reports:
        if report.exit_status != 0:
            on = f" on {report.gpu}" if len(reports) > 1 else ""
            typer.echo(f"note: the program exited with status {report.exit_status}{on} (its own failure)", err=True)


def _split(files: list[str], extra: list[str]) -> tuple[list[str], list[str], list[str]]:
    """(sources, nvcc options, the program's arguments). Click takes `--` away, so the words
    are read in order: sources and the nvcc options perfcalc passes on, then from the first
    other word everything is an argument of the program (`app k.cu -- --extended-lambda` can
    not give that word to main(); typer hands over what it does not know as extra arguments)."""
    from perfcalc.app.build import is_nvcc_option

    words = [*files, *extra]
    sources: list[str] = []
    options: list[str] = []
    for i, word in enumerate(words):
        if Path(word).suffix in (".cu", ".cpp", ".cc", ".cxx", ".c"):
            sources.append(word)
        elif is_nvcc_option(word):
            options.append(word)
        else:
            return sources, options, words[i:]
    return sources, options, []


# nvcc's floating-point options as Makefiles write them, one dash, whatever the value
_ONE_DASH_FLOAT_OPTION = re.compile(r"-(?:use_fast_math|(?:ftz|prec-div|prec-sqrt|fmad)=.*)")


def with_long_nvcc_options(argv: list[str]) -> list[str]:
    """The command line with the nvcc options written with one dash, as Makefiles write them
    (`-use_fast_math`, `-ftz=true`), given the two dashes nvcc reads the same way: click would
    split `-ftz=true` into short options and read perfcalc's own `-f` (--format) with `tz=true`.
    A floating-point option with a value nvcc does not take (`-ftz=maybe`) is refused by name, as
    the library refuses it (InputError). The words after `--` are the program's and stay as they
    are."""
    from perfcalc.app.build import checked_nvcc_options, is_nvcc_option

    cut = argv.index("--") if "--" in argv else len(argv)
    mine = []
    for word in argv[:cut]:
        one_dash = word.startswith("-") and not word.startswith("--")
        if _ONE_DASH_FLOAT_OPTION.fullmatch(word) or (one_dash and is_nvcc_option(word)):
            checked_nvcc_options([word])  # as written: the refusal names the user's word
            word = "-" + word
        mine.append(word)
    return mine + argv[cut:]


def _progress() -> Callable[[int, str], None]:
    """A progress line per launch, the kernel's name on it (a terminal only)."""
    import sys

    def line(index: int, kernel: str) -> None:
        sys.stderr.write(f"\r\x1b[Klaunch {index}: {kernel[:80]}")
        sys.stderr.flush()

    return line
