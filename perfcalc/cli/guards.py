"""What every command gets around its body: numbers checked once, files all or nothing, a time
limit, options given once, signals and errors as one line.

`cli/__init__.py` wraps each registered command with `checked` and gives it `OnceCommand`; its
error boundary prints with `one_line`.
"""

from __future__ import annotations

import functools
import math
import signal
import typing
from collections.abc import Callable
from typing import Any

import typer
from typer.core import TyperCommand

from perfcalc.errors import InputError, behind
from perfcalc.expr import MAX_MAGNITUDE

# typer >= 0.20 vendors click; find its UsageError through a public class either way.
UsageError: Any = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")

LINE_LIMIT = 1000  # characters of one echoed line: a 10 MB value must not become a 10 MB line


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
    if len(text) > LINE_LIMIT:
        half = LINE_LIMIT // 2
        text = f"{text[:half]}...({len(text) - LINE_LIMIT} characters)...{text[-half:]}"
    return text


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


RECEIVED: list[int] = []  # every signal on_signal handled, even one a library then swallowed


def on_signal(signum: int, frame: Any) -> None:
    RECEIVED.append(signum)
    raise Stopped(signum)


def stop_behind(exc: BaseException | None) -> Stopped | None:
    """The Stopped that `exc` is, or that caused it or was being handled when it arose: a signal
    that lands in code which wraps exceptions still ends the command as a signal (Python 3.11
    turns one raised inside a class's `__set_name__`, as while matplotlib is imported, into a
    RuntimeError). Where a library dropped it and raised an error of its own with no trace of it
    (matplotlib's Agg renderer, stopped inside `draw_path`: "ValueError: Invalid bounding box"),
    the signal that was handled is the answer all the same: the user asked the command to end."""
    found = behind(exc, lambda e: isinstance(e, Stopped))
    if isinstance(found, Stopped):
        return found
    return Stopped(RECEIVED[0]) if RECEIVED else None


@functools.cache
def _option_names(callback: Callable[..., Any]) -> dict[str, str]:
    """Parameter name -> the option as a user types it (`intensity_values` -> `--intensity`)."""
    names = {}
    for name, hint in typing.get_type_hints(callback, include_extras=True).items():
        decls = [
            d
            for meta in getattr(hint, "__metadata__", ())
            for d in (getattr(meta, "default", None), *(getattr(meta, "param_decls", None) or ()))
            if isinstance(d, str) and d.startswith("--")
        ]  # typer keeps the first in default
        names[name] = decls[0] if decls else "--" + name.replace("_", "-")
    return names


def _check_number(option: str, value: Any) -> None:
    """Every integer a command receives becomes a NumPy int64 somewhere, and every float
    option means a finite quantity."""
    if isinstance(value, bool):
        return
    if isinstance(value, int) and abs(value) > MAX_MAGNITUDE:
        raise InputError(f"{option} {value:.4g} is beyond the limit of 2**63 - 1 (a signed 64-bit integer)")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{option} {value} is not a finite number")
    if isinstance(value, (list, tuple)):
        for item in value:
            _check_number(option, item)


def checked(callback: Callable[..., Any]) -> Callable[..., Any]:
    """`callback` with its numbers checked first, its files written all or nothing, and, when
    it has a `max_seconds` option, every simulation it runs under that limit."""

    @functools.wraps(callback)  # typer reads the options from the wrapped signature
    def run(**kwargs: Any) -> Any:
        options = _option_names(callback)  # here, not at import: `--help` stays fast
        for name, value in kwargs.items():
            _check_number(options.get(name, name), value)
        from perfcalc.report.output import all_or_nothing  # every file, or none

        with all_or_nothing():
            if "max_seconds" not in kwargs:
                return callback(**kwargs)
            from perfcalc.limits import time_limit  # every simulation the command runs

            with time_limit(kwargs["max_seconds"]):
                return callback(**kwargs)

    return run


class OnceCommand(TyperCommand):
    """An option that takes one value may be given once: `--cc 7.0 --cc 9.0` kept the last."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        seen: dict[str, str] = {}
        spelled = {
            o: p
            for p in self.params
            if not getattr(p, "multiple", True) and not getattr(p, "is_flag", False)
            for o in (*p.opts, *p.secondary_opts)
        }
        for arg in args:
            if arg == "--":
                break
            flag = arg.split("=", 1)[0]
            param = spelled.get(flag) if arg.startswith("-") else None
            if param is not None and param.name is not None:
                if param.name in seen:
                    also = "" if seen[param.name] == flag else f" (also as {seen[param.name]})"
                    raise UsageError(f"{flag} is given twice{also}; give it once", ctx=ctx)
                seen[param.name] = flag
        return super().parse_args(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        from perfcalc.cli.relevance import command_context  # which options the user typed

        with command_context(ctx):
            return super().invoke(ctx)
