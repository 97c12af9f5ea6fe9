"""Write results atomically: a reader never sees half a file, a failure leaves none behind.

Every file is written to a temporary file beside its target and renamed into place. Inside
`all_or_nothing()` (the CLI runs every command in one) the renames wait until the block ends
without an exception, so a command that writes several files (a table and a plot, the report's
ten files) leaves either all of them or none: a full disk, an error in the second file, Ctrl-C
or SIGTERM remove every temporary file. `--output` through a symlink writes the file the link
points to; FIFOs, devices and names that cannot be files are refused before any work.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import sys
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

from perfcalc.errors import OutputError

NAME_MAX = 255  # bytes in one file name on Linux, macOS and Windows file systems
_PENDING: ContextVar[list[tuple[str, Path]] | None] = ContextVar("perfcalc_pending", default=None)
_CREATED: ContextVar[list[Path] | None] = ContextVar("perfcalc_created", default=None)


def check_writable(path: str | Path, follow_link: bool = True) -> Path:
    """Fail before any work is done when the output path cannot be written; return the path
    the bytes will go to: a symlink's target where the user named the link (`-o link.csv`, as a
    shell's `>` does), the link itself (replaced, never written through) where perfcalc names
    the file (a report's files inside the folder the user named; issue 36)."""
    text = os.fspath(path)
    if not text:
        raise OutputError("cannot write to an empty path: name a file")
    if text.endswith(("/", os.sep)) and not os.path.isdir(text):
        raise OutputError(f"cannot write {text!r}: a name ending in '/' must be an existing directory")
    target = Path(os.path.realpath(text)) if follow_link and os.path.islink(text) else Path(text)
    for part in target.parts:
        if len(os.fsencode(part)) > NAME_MAX:
            raise OutputError(
                f"cannot write {_short(text)}: a file name of "
                f"{len(os.fsencode(part))} bytes, over the limit of {NAME_MAX}"
            )
    parent = target.parent if str(target.parent) else Path(".")
    try:
        info = (os.stat(target) if follow_link else os.lstat(target)) if os.path.lexists(target) else None
        parent_ok = parent.is_dir()
    except OSError as exc:
        raise OutputError(f"cannot write {_short(text)}: {exc.strerror or exc}") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise OutputError(f"cannot write {_short(text)}: it is a directory")
    if info is not None and not stat.S_ISREG(info.st_mode) and not stat.S_ISLNK(info.st_mode):
        raise OutputError(
            f"cannot write {_short(text)}: it is not a regular file (a FIFO, device or socket); --output writes files"
        )
    if not parent_ok:
        raise OutputError(f"cannot write {_short(text)}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise OutputError(f"cannot write {_short(text)}: directory {parent} is not writable")
    return target


def _short(text: str) -> str:
    return repr(text) if len(text) <= 80 else repr(text[:40] + "..." + text[-20:])


@contextlib.contextmanager
def all_or_nothing() -> Iterator[None]:
    """Files written inside appear only if the block completes (module docstring)."""
    if _PENDING.get() is not None:
        yield
        return
    pending: list[tuple[str, Path]] = []
    created: list[Path] = []
    token, token_dirs = _PENDING.set(pending), _CREATED.set(created)
    try:
        yield
    except BaseException:
        for tmp, _ in pending:
            Path(tmp).unlink(missing_ok=True)
        for directory in reversed(created):
            with contextlib.suppress(OSError):  # only if empty: never a user's files
                directory.rmdir()
        raise
    finally:
        _PENDING.reset(token)
        _CREATED.reset(token_dirs)
    with _signals_held():  # SIGTERM/Ctrl-C wait until every rename is done
        for i, (tmp, final) in enumerate(pending):
            try:
                os.replace(tmp, final)
            except OSError as exc:
                for later, _ in pending[i:]:
                    Path(later).unlink(missing_ok=True)
                raise OutputError(f"cannot write {final}: {exc.strerror or exc}") from None


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT/SIGTERM that arrive inside are handled when it ends. Python runs signal handlers
    in the main thread whichever thread the signal reached (a BLAS thread, say), so the handlers
    are swapped for a recorder, not only masked."""
    held = (signal.SIGINT, signal.SIGTERM)
    arrived: list[int] = []
    try:
        previous = {s: signal.signal(s, lambda signum, frame: arrived.append(signum)) for s in held}
    except ValueError:  # not the main thread: nothing can be swapped (nor delivered here)
        yield
        return
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for signum in arrived[:1]:
            handler = previous[signal.Signals(signum)]
            if callable(handler):
                handler(signum, None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(signum)


def make_directory(path: str | Path) -> Path:
    """Create an output directory (its parent must exist); inside `all_or_nothing`, one this
    call created is removed again if the block fails."""
    text = os.fspath(path)
    if not text:
        raise OutputError("cannot write to an empty path: name a directory")
    directory = Path(text)
    if not directory.parent.is_dir():
        raise OutputError(f"cannot create {_short(text)}: directory {directory.parent} does not exist")
    if directory.exists() and not directory.is_dir():
        raise OutputError(f"cannot create {_short(text)}: it exists and is not a directory")
    if not directory.exists():
        try:
            directory.mkdir()
        except OSError as exc:
            raise OutputError(f"cannot create {_short(text)}: {exc.strerror or exc}") from None
        created = _CREATED.get()
        if created is not None:
            created.append(directory)
    return directory


def write_atomic(path: str | Path, text: str | bytes, follow_link: bool = True) -> None:
    """Write to a temporary file beside `path`, then rename it into place (at the end of an
    `all_or_nothing` block, if one is open).

    The file gets the mode a plain `open()` would give it (an existing file keeps its own), not
    the 0600 of the temporary.
    """
    target = check_writable(path, follow_link)
    tmp = None
    try:
        with _signals_held():  # a signal inside mkstemp would leave a file no name points to
            import tempfile  # only when a file is written (2 ms of every start otherwise)

            fd, tmp = tempfile.mkstemp(prefix=".perfcalc-", suffix=".tmp", dir=target.parent)
        if isinstance(text, bytes):
            with os.fdopen(fd, "wb") as raw:
                raw.write(text)
        else:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
        os.chmod(tmp, _final_mode(target))
        pending = _PENDING.get()
        if pending is not None:
            pending.append((tmp, target))
            return
        os.replace(tmp, target)
    except BaseException as exc:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise


def _final_mode(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def emit(text: str, output: str | Path | None) -> None:
    """Print to stdout, or write the file atomically when an output path is given."""
    if output is None:
        sys.stdout.write(text)
    else:
        write_atomic(output, text)
