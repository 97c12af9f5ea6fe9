"""Options that do not apply: the one place that refuses an option the user typed but the chosen
command path would ignore (issue 37). A silently ignored option is a wrong answer the user cannot
see: `coalesce --pattern random --tile-width 8` prices the random pattern and says nothing.

Only options typed on the command line count: a default (or a setting from the environment, were
an option to take one) is not the user's request for this command. Outside a click command (the
library) there is nothing to refuse.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from perfcalc.errors import InputError

# The running command's click context (typer vendors its own click, whose context stack is not
# click's): set by guards.OnceCommand around each command it runs.
_CONTEXT: ContextVar[Any] = ContextVar("perfcalc_cli_context", default=None)


@contextlib.contextmanager
def command_context(ctx: Any) -> Iterator[None]:
    token = _CONTEXT.set(ctx)
    try:
        yield
    finally:
        _CONTEXT.reset(token)


def given(name: str) -> bool:
    """Was the parameter `name` (its Python name) typed by the user?"""
    ctx = _CONTEXT.get()
    source = None if ctx is None else ctx.get_parameter_source(name)
    return source is not None and source.name == "COMMANDLINE"


def option_name(name: str) -> str:
    """The spelling the user typed for the parameter `name` (its first long option)."""
    ctx = _CONTEXT.get()
    params = [] if ctx is None else [p for p in ctx.command.params if p.name == name]
    opts = params[0].opts if params else []
    return next((o for o in opts if o.startswith("--")), f"--{name.replace('_', '-')}")


def refuse_unused(names: Iterable[str], goes_with: str, ignored_by: str) -> None:
    """InputError naming the first of `names` the user gave: it `goes_with` something else, and
    what was chosen (`ignored_by`) would ignore it."""
    for name in names:
        if given(name):
            raise InputError(f"{option_name(name)} goes with {goes_with}; {ignored_by} ignores it")


def check_plot(plot: Path | None, dpi: int) -> None:
    """--plot's file name and --dpi checked before any work; --dpi without --plot refused."""
    if plot is None:
        refuse_unused(["dpi"], "--plot", "a command without --plot")
        return
    from perfcalc.report.figures import check_dpi, check_figure_path

    check_figure_path(plot)
    check_dpi(dpi)
