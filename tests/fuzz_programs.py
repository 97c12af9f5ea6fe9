"""Issue 36's whole-program class: `perfcalc.app` runs tests/data/cuda_app/behaviours.cu (one
build, cached) with one to four actions drawn at random: exit codes, abort, SIGSEGV, signals
(SIGSTOP among them), spinning and sleeping without end, host and device allocations up to 2**40
bytes and (size_t)-1, forks whose children call CUDA, threads that launch together, output
without end on stdout or stderr, launches with zero, huge and over-limit grids and blocks, copies
past an allocation, closed file descriptors (perfcalc's channel among them).

The promise: the call returns a report or raises perfcalc's own error, within the bound; a
program that can finish is reported as itself (its exit status as the actions make it, a signal
the fuzzing process ignores ignored by the program too, as exec passes SIG_IGN on; its output
ending in `end` when it ends normally); only a program that cannot finish within `max_seconds` (it
spins, sleeps or writes without end, stops itself, or launches more blocks than the engine runs
in that time) may end as "ran past its time limit".
"""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

from fuzz_cases import BOUND_S, Outcome, _alarm, _Hang

DATA = Path(__file__).parent / "data" / "cuda_app"
MAX_SECONDS = 3.0
_HUGE = ["0", "1", "4096", str(1 << 30), str(1 << 40), "-1"]


def _action(rng: random.Random) -> list[str]:
    kind = rng.choices(
        [
            "exit",
            "abort",
            "segv",
            "kill",
            "spin",
            "sleep",
            "malloc",
            "cudamalloc",
            "fork",
            "write",
            "launch",
            "close",
            "threads",
            "memcpy",
        ],
        weights=[4, 2, 2, 3, 1, 1, 4, 4, 4, 4, 8, 3, 4, 4],
    )[0]
    if kind in ("abort", "segv"):
        return [kind]
    if kind == "exit":
        return [kind, rng.choice(["0", "1", "3", "255", "256", "-1"])]
    if kind == "kill":
        return [kind, str(rng.choice([2, 6, 9, 11, 15, 19]))]
    if kind in ("spin", "sleep"):
        return [kind, rng.choice(["0", "1", "-1"])]
    if kind in ("malloc", "cudamalloc"):
        return [kind, rng.choice(_HUGE)]
    if kind in ("fork", "threads"):
        return [kind, rng.choice(["0", "1", "3", "8"])]
    if kind == "write":
        return [kind, rng.choice(["0", "100", str(1 << 20), str(5 << 20), "-1"]), rng.choice(["1", "2"])]
    if kind == "launch":
        grid = rng.choice(["0", "1", "2", "300", "65536", "-1"])
        return [kind, grid, rng.choice(["0", "1", "32", "1024", "1025", "-1"])]
    if kind == "close":
        return [kind, str(rng.randint(0, 8))]
    return [kind, rng.choice(["0", "64", "65", "100000", "-5"])]


def program_case(rng: random.Random) -> list[str]:
    return [w for _ in range(rng.randint(1, 4)) for w in _action(rng)]


def _expected(words: list[str]) -> tuple[int | None, bool, bool]:
    """(exit status or None where any is right, whether it may run past the limit, whether its
    last line must be `end`)."""
    i, long, closed = 0, False, False
    while i < len(words):
        kind, arg = words[i], words[i + 1] if i + 1 < len(words) else ""
        if kind == "exit":
            return (None if closed else int(arg) & 255), long, False
        if kind in ("abort", "segv"):
            return (None if closed else -(signal.SIGABRT if kind == "abort" else signal.SIGSEGV)), long, False
        if kind == "kill":
            if arg == "19":
                return None, True, False
            if signal.getsignal(int(arg)) is not signal.SIG_IGN:  # an ignored one passes to the
                return (None if closed else -int(arg)), long, False  # program (a background job's SIGINT)
        if (kind in ("spin", "sleep") and arg == "-1") or (kind == "write" and arg == "-1"):
            long = True
        if kind == "launch" and arg in ("65536", "-1"):
            long = True  # 65,536 or 2**32 - 1 blocks: more than the engine runs in MAX_SECONDS
        if kind == "close":
            closed = True  # stdout, or perfcalc's channel (the runtime then ends the program)
        i += 1 if kind in ("abort", "segv") else 3 if kind in ("write", "launch") else 2
    return (None if closed else 0), long, not closed


def program_check(rng: random.Random) -> Outcome:
    import perfcalc.app
    from perfcalc.errors import PerfcalcError

    words = program_case(rng)
    status, long, ends = _expected(words)
    start = time.monotonic()
    try:
        with _alarm(BOUND_S):
            report = perfcalc.app.app(["behaviours.cu"], words, max_seconds=MAX_SECONDS, cwd=str(DATA))
    except _Hang:
        return Outcome(False, f"hang: over {BOUND_S} s", time.monotonic() - start)
    except PerfcalcError as exc:
        seconds = time.monotonic() - start
        if "\n" in str(exc).strip():
            return Outcome(False, f"a perfcalc error of several lines: {str(exc)[:160]}", seconds)
        if long and "time limit" in str(exc):
            return Outcome(True, "ran past its time limit", seconds)
        return Outcome(False, f"perfcalc error for a program that finishes: {str(exc)[:160]}", seconds)
    except Exception as exc:  # noqa: BLE001 - that is what the suite looks for
        return Outcome(False, f"foreign exception {type(exc).__name__}: {str(exc)[:160]}", time.monotonic() - start)
    seconds = time.monotonic() - start
    if status is not None and report.exit_status != status:
        return Outcome(False, f"exit status {report.exit_status}, expected {status}", seconds)
    stdout = report.stdout or ""
    if ends and status == 0 and not stdout.endswith("end\n"):  # after a partial line of `write`, too
        return Outcome(False, f"output ends {stdout[-40:]!r}, expected 'end'", seconds)
    return Outcome(True, f"exit {report.exit_status}", seconds)


CHECKS = {"whole programs": program_check}
