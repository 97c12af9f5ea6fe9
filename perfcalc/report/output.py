"""Write results atomically: a reader never sees half a file, a failure leaves none behind."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from perfcalc.errors import OutputError


def check_writable(path: str | Path) -> Path:
    """Fail before any work is done when the output path cannot be written."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise OutputError(f"cannot write {path}: it is a directory")
    if not parent.is_dir():
        raise OutputError(f"cannot write {path}: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise OutputError(f"cannot write {path}: directory {parent} is not writable")
    return path


def write_atomic(path: str | Path, text: str | bytes) -> None:
    """Write to a temporary file beside `path`, then rename it into place.

    The file gets the mode a plain `open()` would give it (an existing file keeps its own), not
    the 0600 of the temporary.
    """
    path = check_writable(path)
    mode = "wb" if isinstance(text, bytes) else "w"
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
        with os.fdopen(fd, mode, **({} if mode == "wb" else {"encoding": "utf-8", "newline": ""})) as fh:
            fh.write(text)
        os.chmod(tmp, _final_mode(path))
        os.replace(tmp, path)
    except OSError as exc:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None


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
