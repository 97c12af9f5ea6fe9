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
    """Write to a temporary file beside `path`, then rename it into place."""
    path = check_writable(path)
    mode = "wb" if isinstance(text, bytes) else "w"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent or ".")
    try:
        with os.fdopen(fd, mode, **({} if mode == "wb" else {"encoding": "utf-8", "newline": ""})) as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None


def emit(text: str, output: str | Path | None) -> None:
    """Print to stdout, or write the file atomically when an output path is given."""
    if output is None:
        sys.stdout.write(text)
    else:
        write_atomic(output, text)
