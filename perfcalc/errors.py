"""One exception root for everything perfcalc reports to a user.

The CLI catches `PerfcalcError` in one place and prints its message as one line on stderr with
exit code 2, so every message must name the offending value, the limit, and where the limit
comes from.
"""

from __future__ import annotations

from collections.abc import Callable


class PerfcalcError(Exception):
    """Root of every user-facing failure."""


class InputError(PerfcalcError, ValueError):
    """A value the user gave is out of range or malformed."""


class TimeLimitExceeded(InputError):
    """A simulation passed, or would pass, its time limit (--max-seconds): in a whole program
    the run ends out of time, never as an error the program is told of and may ignore. `what`
    is the message without the advice for a single launch."""

    def __init__(self, what: str, advice: str = ""):
        super().__init__(f"{what}; {advice}" if advice else what)
        self.what = what


class UnknownDeviceError(PerfcalcError, LookupError):
    """A compute capability or GPU product that perfcalc has no data for."""


class SpecError(PerfcalcError, ValueError):
    """A device or kernel data file is malformed, incomplete or inconsistent."""


class OutputError(PerfcalcError, OSError):
    """A result could not be written where the user asked."""


class CudaSyntaxError(PerfcalcError, ValueError):
    """The CUDA C source cannot be parsed, or uses a construct the simulator refuses."""


class KernelFault(PerfcalcError, RuntimeError):
    """A simulated kernel did something the hardware would fault on or hang at."""


def behind(exc: BaseException | None, wanted: Callable[[BaseException], bool]) -> BaseException | None:
    """The first of `exc`, its cause or the exception being handled when it arose, and so on
    down the chain, for which `wanted` holds; None if none does."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if wanted(exc):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def interruption_behind(exc: BaseException) -> BaseException | None:
    """The KeyboardInterrupt or other non-Exception (the CLI's signal) behind `exc`, or None. A C
    extension whose import is interrupted reports it as an ImportError (pybind11's
    "initialization failed", raised from the interruption): an optional package that "failed to
    import" that way was interrupted, not missing."""
    return behind(exc, lambda e: not isinstance(e, Exception))


class PerfcalcNote(UserWarning):
    """Something the user should know that did not stop the answer (a damaged cache entry was
    rebuilt, say): a warning in the library, one `note:` line on stderr in the CLI."""
