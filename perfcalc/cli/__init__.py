"""The `perfcalc` command line: thin typer commands over the library.

Each command parses options, makes one core call and one render call. Every `PerfcalcError`
(and every option-parsing error) becomes one `error: ...` line on stderr with exit code 2.
Command modules import their core layers inside the command body, so `perfcalc --help` and
one occupancy answer stay fast.
"""

from __future__ import annotations

import functools
import importlib
import math
import signal
import typing
import warnings
from collections.abc import Callable
from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup

from perfcalc.errors import InputError, PerfcalcError

# typer >= 0.20 vendors click; find its UsageError through a public class either way.
_UsageError = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")

# Each module defines `register(app)`; add a module here to add its commands.
COMMAND_MODULES = ("devices", "occupancy", "perf", "run", "memory")


class _ErrorBoundaryGroup(TyperGroup):
    """Turn user-facing failures into one stderr line and exit code 2, never a traceback."""

    def invoke(self, ctx: typer.Context):
        try:
            with warnings.catch_warnings():
                # a NumPy RuntimeWarning (overflow, invalid value) announces a wrong number:
                # it becomes the error it announces instead of a warning quoting our source
                warnings.simplefilter("error", RuntimeWarning)
                return super().invoke(ctx)
        except RuntimeWarning as exc:
            _fail(f"a calculation failed ({exc}); please report the command that caused it")
        except PerfcalcError as exc:
            _fail(str(exc))
        except _UsageError as exc:
            _fail(exc.format_message())
        except MemoryError as exc:  # e.g. NumPy refusing a 40 GiB array for a huge simulation
            _fail(f"not enough memory on this machine: {str(exc) or 'an allocation failed'}; try "
                  "smaller sizes")
        except KeyboardInterrupt:  # the library's own use, without main()'s handlers
            _fail(Stopped(signal.SIGINT).message, 130)
        except Stopped as stop:
            _fail(stop.message, stop.exit_code)


_LINE_LIMIT = 1000  # characters of one echoed line: a 10 MB value must not become a 10 MB line


def one_line(message: str) -> str:
    """`message` safe to print: control characters escaped, each line shortened.

    A newline is kept only before a quoted source line or caret (indented by four spaces, as
    the CUDA front end formats them); any other, e.g. one inside a file or kernel name, is
    escaped, so a value can never forge a second `error:` line.
    """
    lines = message.split("\n")
    kept = [lines[0]]
    for line in lines[1:]:
        if line.startswith("    ") and len(kept) < 3:
            kept.append(line)
        else:
            kept[-1] += "\\n" + line
    return "\n".join(_printable(line) for line in kept)


def _printable(line: str) -> str:
    text = "".join(c if c.isprintable() or c == "\t" else repr(c)[1:-1] for c in line)
    if len(text) > _LINE_LIMIT:
        half = _LINE_LIMIT // 2
        text = f"{text[:half]}...({len(text) - _LINE_LIMIT} characters)...{text[-half:]}"
    return text


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {one_line(message)}", err=True)
    raise typer.Exit(code)


class Stopped(BaseException):
    """SIGINT or SIGTERM, raised where the program is so that cleanup (`finally`) runs; a
    BaseException of our own, so that click's "Aborted!" handling of KeyboardInterrupt never
    answers instead of perfcalc's one line."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.name = signal.Signals(signum).name
        self.exit_code = 128 + signum  # the shell's convention: 130 for SIGINT, 143 for SIGTERM
        verb = "interrupted" if signum == signal.SIGINT else "terminated"
        self.message = f"{verb} ({self.name}); no partial output was left"


def on_signal(signum: int, frame: Any) -> None:
    raise Stopped(signum)


app = typer.Typer(
    cls=_ErrorBoundaryGroup,
    help="CUDA performance modelling for compute capability 1.0 to 12.1: occupancy, memory "
    "transactions and bank conflicts, CGMA and roofline, and a kernel simulator.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)



def _print_version(value: bool) -> None:
    if value:
        from perfcalc import __version__

        typer.echo(f"perfcalc {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: typing.Annotated[bool, typer.Option(
        "--version", help="Print perfcalc's version and exit.", callback=_print_version,
        is_eager=True)] = False) -> None:
    """CUDA performance modelling for compute capability 1.0 to 12.1."""


# Every integer a command receives becomes a NumPy int64 somewhere, and every float option means
# a finite quantity: refuse both kinds of value once here, naming the option, before any work.
_INT64_MAX = 2**63 - 1


def _option_names(callback: Callable[..., Any]) -> dict[str, str]:
    """Parameter name -> the option as a user types it (`intensity` -> `--intensity`)."""
    names = {}
    for name, hint in typing.get_type_hints(callback, include_extras=True).items():
        decls = [d for meta in getattr(hint, "__metadata__", ())
                 for d in (getattr(meta, "default", None), *(getattr(meta, "param_decls", None) or ()))
                 if isinstance(d, str) and d.startswith("--")]  # typer keeps the first in default
        names[name] = decls[0] if decls else "--" + name.replace("_", "-")
    return names


def _check_number(option: str, value: Any) -> None:
    if isinstance(value, bool):
        return
    if isinstance(value, int) and abs(value) > _INT64_MAX:
        raise InputError(f"{option} {value:.4g} is beyond the limit of 2**63 - 1 (a signed 64-bit "
                         "integer)")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{option} {value} is not a finite number")
    if isinstance(value, (list, tuple)):
        for item in value:
            _check_number(option, item)


def _checked(callback: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(callback)  # typer reads the options from the wrapped signature
    def run(**kwargs: Any) -> Any:
        options = _option_names(callback)  # here, not at import: `--help` stays fast
        for name, value in kwargs.items():
            _check_number(options.get(name, name), value)
        from perfcalc.report.output import all_or_nothing  # every file, or none

        with all_or_nothing():
            if "max_seconds" not in kwargs:
                return callback(**kwargs)
            from perfcalc.sim.launch import time_limit  # every simulation the command runs

            with time_limit(kwargs["max_seconds"]):
                return callback(**kwargs)

    return run


for _name in COMMAND_MODULES:
    importlib.import_module(f"perfcalc.cli.{_name}").register(app)
class _OnceCommand(TyperCommand):
    """An option that takes one value may be given once: `--cc 7.0 --cc 9.0` kept the last."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        seen: dict[str, str] = {}
        spelled = {o: p for p in self.params if not getattr(p, "multiple", True)
                   and not getattr(p, "is_flag", False) for o in (*p.opts, *p.secondary_opts)}
        for arg in args:
            if arg == "--":
                break
            flag = arg.split("=", 1)[0]
            param = spelled.get(flag) if arg.startswith("-") else None
            if param is not None:
                if param.name in seen:
                    also = "" if seen[param.name] == flag else f" (also as {seen[param.name]})"
                    raise _UsageError(f"{flag} is given twice{also}; give it once", ctx=ctx)
                seen[param.name] = flag
        return super().parse_args(ctx, args)


for _info in app.registered_commands:
    if _info.callback is not None:
        _info.callback = _checked(_info.callback)
    _info.cls = _OnceCommand


def main() -> None:
    """Console-script entry point."""
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        app(prog_name="perfcalc")
    except Stopped as stop:  # before or after a command ran (while options are parsed, say)
        typer.echo(f"error: {stop.message}", err=True)
        raise SystemExit(stop.exit_code) from None
    finally:  # a signal during interpreter shutdown: the default action, not a late exception
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
