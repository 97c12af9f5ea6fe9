"""The `perfcalc` command line: thin typer commands over the library.

Each command parses options, makes one core call and one render call. Every `PerfcalcError`
(and every option-parsing error) becomes one `error: ...` line on stderr with exit code 2.
Command modules import their core layers inside the command body, so `perfcalc --help` and
one occupancy answer stay fast.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys
import typing
import warnings

# typer formats help with rich when rich is installed, and imports it up front for that: ~140 ms
# of a 0.3 s `perfcalc --help` (python -X importtime). Plain help is click's; TYPER_USE_RICH=1
# brings the boxes back. Set before typer is imported (it reads the variable at import).
os.environ.setdefault("TYPER_USE_RICH", "0")

import typer  # noqa: E402
from typer.core import TyperGroup  # noqa: E402

from perfcalc.cli.guards import (
    RECEIVED,
    OnceCommand,
    Stopped,
    UsageError,
    checked,
    on_signal,
    one_line,
    stop_behind,
)
from perfcalc.errors import PerfcalcError, PerfcalcNote

__all__ = ["Stopped", "app", "main", "on_signal"]

# Each module defines `register(app)`; add a module here to add its commands.
COMMAND_MODULES = ("devices", "occupancy", "perf", "report", "run", "program", "tune", "memory", "schema")


class _ErrorBoundaryGroup(TyperGroup):
    """Turn user-facing failures into one stderr line and exit code 2, never a traceback."""

    def invoke(self, ctx: typing.Any) -> typing.Any:
        RECEIVED.clear()  # this command's signals only: in one process (a notebook, tests) commands follow each other
        try:
            with warnings.catch_warnings():
                # a NumPy RuntimeWarning (overflow, invalid value) announces a wrong number:
                # it becomes the error it announces instead of a warning quoting our source
                warnings.simplefilter("error", RuntimeWarning)
                warnings.showwarning = _show_note
                return super().invoke(ctx)
        except RuntimeWarning as exc:
            _fail(f"a calculation failed ({exc}); please report the command that caused it")
        except PerfcalcError as exc:
            _fail(str(exc))
        except UsageError as exc:
            _fail(exc.format_message())
        except MemoryError as exc:  # e.g. NumPy refusing a 40 GiB array for a huge simulation
            _fail(f"not enough memory on this machine: {str(exc) or 'an allocation failed'}; try smaller sizes")
        except KeyboardInterrupt:  # Ctrl-C without main()'s handlers
            stop = Stopped(signal.SIGINT)
            _fail(stop.message, stop.exit_code)
        except (Stopped, Exception) as exc:  # a signal, also one that a library wrapped
            found = stop_behind(exc)
            if found is None:
                raise
            _fail(found.message, found.exit_code)


_show_warning = warnings.showwarning


def _show_note(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: typing.TextIO | None = None,
    line: str | None = None,
) -> None:
    """A PerfcalcNote as one `note:` line on stderr; other warnings as Python shows them."""
    if issubclass(category, PerfcalcNote):
        typer.echo(f"note: {one_line(str(message))}", err=True)
    else:
        _show_warning(message, category, filename, lineno, file, line)


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {one_line(message)}", err=True)
    raise typer.Exit(code)


app = typer.Typer(
    cls=_ErrorBoundaryGroup,
    help="CUDA performance modelling for compute capability 1.0 to 12.1: occupancy, memory "
    "transactions and bank conflicts, CGMA and roofline, and a kernel simulator.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        from perfcalc._version import __version__

        typer.echo(f"perfcalc {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: typing.Annotated[
        bool,
        typer.Option("--version", help="Print perfcalc's version and exit.", callback=_print_version, is_eager=True),
    ] = False,
    wide: typing.Annotated[
        bool,
        typer.Option("--wide", help="Print tables at full width (on a terminal they wrap long text to fit)."),
    ] = False,
) -> None:
    """CUDA performance modelling for compute capability 1.0 to 12.1."""
    from perfcalc.cli.common import set_wide

    set_wide(wide)


for _name in COMMAND_MODULES:
    importlib.import_module(f"perfcalc.cli.{_name}").register(app)
for _info in app.registered_commands:
    if _info.callback is not None:
        _info.callback = checked(_info.callback)
    _info.cls = OnceCommand


def invoked_command(argv: list[str]) -> str | None:
    """The registered command `argv` names (its first word that is not an option), or None
    (`perfcalc --help`, an unknown name, shell completion: they need every command)."""
    if os.environ.get("_PERFCALC_COMPLETE"):
        return None
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first in {info.name for info in app.registered_commands} else None


def main() -> None:
    """Console-script entry point."""
    # typer turns every registered command into a click command at each start (~30 ms of
    # annotation evaluation for ten commands); a run of one command needs only that one
    command = invoked_command(sys.argv[1:])
    if command is not None:
        app.registered_commands = [info for info in app.registered_commands if info.name == command]
    if command == "app":  # nvcc's one-dash options would read as perfcalc's short ones
        from perfcalc.cli.program import with_long_nvcc_options
        from perfcalc.errors import InputError

        try:
            sys.argv[1:] = with_long_nvcc_options(sys.argv[1:])
        except InputError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise SystemExit(2) from None
    _check_completion_environment()
    try:
        try:
            signal.signal(signal.SIGTERM, on_signal)
            signal.signal(signal.SIGINT, on_signal)
            app(prog_name="perfcalc")
        except SystemExit as exit_:
            if RECEIVED:  # also one that a library swallowed (an import's fallback) and went on
                _end_now(exit_.code if isinstance(exit_.code, int) else 128 + RECEIVED[0])
            raise
        finally:  # a signal during interpreter shutdown: the default action, not a late exception
            _default_signals()
    except OSError as exc:
        if not {"--install-completion", "--show-completion"} & set(sys.argv):
            raise
        _default_signals()  # typer writes the shell's start-up file: a HOME that is a file, say
        typer.echo(f"error: cannot install shell completion: {exc.strerror}: {exc.filename}", err=True)
        raise SystemExit(2) from None
    except (Stopped, Exception) as exc:  # before or after a command ran, or while the handlers were reset
        stop = stop_behind(exc)
        if stop is None:
            raise
        _default_signals()
        typer.echo(f"error: {stop.message}", err=True)
        _end_now(stop.exit_code)


def _end_now(code: int) -> typing.NoReturn:
    """End a command that a signal stopped without the interpreter's shutdown, as the signal's
    default action would: its cleanup already ran (every `finally` as the Stopped unwound), and
    a C extension whose import the signal interrupted (numpy's, matplotlib's) can crash the
    shutdown: "Fatal Python error: PyThreadState_Get", SIGABRT, seen 1 in ~300 runs of report."""
    _default_signals()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def _check_completion_environment() -> None:
    """The shell's completion request (click reads COMP_WORDS and COMP_CWORD when
    _PERFCALC_COMPLETE is set) checked like an option: one line, exit 2, never a traceback."""
    if not os.environ.get("_PERFCALC_COMPLETE"):
        return
    words, cword = os.environ.get("COMP_WORDS"), os.environ.get("COMP_CWORD", "")
    if words is None or not cword.isdigit() or len(words) > 100_000:
        typer.echo(
            f"error: shell completion needs COMP_WORDS and a whole-number COMP_CWORD (got {cword[:20]!r}); "
            "the shell sets them, see `perfcalc --install-completion`",
            err=True,
        )
        raise SystemExit(2)


def _default_signals() -> None:
    """SIGTERM and SIGINT back to their default actions (a Stopped raised by one that arrives
    while this runs reaches main's `except`, which calls it again)."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
