"""The time limit of a simulation (--max-seconds), one per context, so every simulation a
command runs stops in bounded time. Here, below every layer, because the CLI sets it around a
command and the execution core reads it inside its loops.

A launch is refused before it starts when even 1 ns per thread (far below any kernel's cost
on NumPy) would pass the limit; after each chunk when the blocks so far project past it; and
inside any loop (every 1,024 iterations) once the limit has passed, which also ends a loop
that never finishes around a barrier, or nested loops each under the iteration cap, in
bounded time (sim/launch.py applies these rules).
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator
from contextvars import ContextVar

from perfcalc.errors import InputError
from perfcalc.units import binary_bytes, shortened

DEFAULT_MAX_SECONDS = 600.0
_LIMIT: ContextVar[tuple[float, float] | None] = ContextVar("perfcalc_time_limit", default=None)


def check_max_seconds(seconds: float) -> None:
    finite = isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and 0 < seconds < math.inf
    if finite and isinstance(seconds, int) and seconds.bit_length() > 1023:  # past any float: 10**400
        finite = False
    if not finite:
        raise InputError(f"max_seconds = {shortened(repr(seconds))} must be a finite number of seconds > 0")


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Simulations inside stop once `seconds` have passed (None: the enclosing limit, else
    DEFAULT_MAX_SECONDS)."""
    if seconds is None and _LIMIT.get() is not None:
        yield
        return
    seconds = DEFAULT_MAX_SECONDS if seconds is None else seconds
    check_max_seconds(seconds)
    token = _LIMIT.set((time.monotonic(), float(seconds)))
    try:
        yield
    finally:
        _LIMIT.reset(token)


def current_limit() -> tuple[float, float] | None:
    """(start, seconds) of the enclosing limit, or None outside any."""
    return _LIMIT.get()


def past_time_limit() -> bool:
    """Has the current simulation's time limit passed? (cheap: loops call it)."""
    limit = _LIMIT.get()
    return limit is not None and time.monotonic() - limit[0] > limit[1]


def time_limit_seconds() -> float:
    limit = _LIMIT.get()
    return DEFAULT_MAX_SECONDS if limit is None else limit[1]


def seconds_left() -> float | None:
    """Seconds until the enclosing limit passes (None outside any): what a compile may take."""
    limit = _LIMIT.get()
    return None if limit is None else max(limit[1] - (time.monotonic() - limit[0]), 0.001)


def free_memory_bytes() -> int | None:
    """Physical memory free now (Linux: available pages; elsewhere all of it), None if unknown."""
    import os

    for pages in ("SC_AVPHYS_PAGES", "SC_PHYS_PAGES"):
        try:
            return int(os.sysconf(pages)) * int(os.sysconf("SC_PAGE_SIZE"))
        except (AttributeError, ValueError, OSError):
            continue
    return None


def check_arrays_fit(nbytes: int, what: str, advice: str) -> None:
    """Refuse, before allocating, arrays a run cannot hold: it needs more than their bytes (the
    reference's results, the engine's per-chunk arrays), so twice theirs is the bound; past the
    free memory the machine swaps, or the kernel's OOM killer ends perfcalc."""
    free = free_memory_bytes()
    if free is not None and 2 * nbytes > free:
        raise InputError(
            f"{what} need {binary_bytes(nbytes)}, and a run more (twice that is the bound); this machine has "
            f"{binary_bytes(free)} free; {advice}"
        )
