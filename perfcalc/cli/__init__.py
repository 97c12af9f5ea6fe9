"""The `perfcalc` command line: thin typer commands over the library.

Each command parses options, makes one core call and one render call. Every `PerfcalcError`
(and every option-parsing error) becomes one `error: ...` line on stderr with exit code 2.
Command modules import their core layers inside the command body, so `perfcalc --help` and
one occupancy answer stay fast.
"""

from __future__ import annotations

import importlib

import typer
from typer.core import TyperGroup

from perfcalc.errors import PerfcalcError

# typer >= 0.20 vendors click; find its UsageError through a public class either way.
_UsageError = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")

# Each module defines `register(app)`; add a module here to add its commands.
COMMAND_MODULES = ("devices", "occupancy", "perf", "run", "memory")


class _ErrorBoundaryGroup(TyperGroup):
    """Turn user-facing failures into one stderr line and exit code 2, never a traceback."""

    def invoke(self, ctx: typer.Context):
        try:
            return super().invoke(ctx)
        except PerfcalcError as exc:
            _fail(str(exc))
        except _UsageError as exc:
            _fail(exc.format_message())
        except MemoryError as exc:  # e.g. NumPy refusing a 40 GiB array for a huge simulation
            _fail(f"not enough memory on this machine: {exc or 'allocation failed'}; try smaller sizes")


def _fail(message: str) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


app = typer.Typer(
    cls=_ErrorBoundaryGroup,
    help="CUDA performance modelling for compute capability 1.0 to 12.1: occupancy, memory "
    "transactions and bank conflicts, CGMA and roofline, and a kernel simulator.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)



@app.callback()
def _root() -> None:
    """CUDA performance modelling for compute capability 1.0 to 12.1."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"perfcalc.cli.{_name}").register(app)


def main() -> None:
    """Console-script entry point."""
    app(prog_name="perfcalc")
