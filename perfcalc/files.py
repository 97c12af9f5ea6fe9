"""Read a file a user named, safely: only regular files, of bounded size, in a known encoding.

Opening a FIFO or a device for reading blocks until a writer appears (or forever), and a 10 GB
file would be read whole; both are refused before `open()`, from `os.stat`. Text is UTF-8, with
or without a byte-order mark; UTF-16 with its byte-order mark is decoded too. Sources may fall
back to Latin-1, where every byte is a character, so a `// café` comment saved by an old editor
reads as it does in nvcc (comments are ignored anyway); data files that are not UTF-8 are refused
with the encoding named, since a wrong guess would change values silently.
"""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path

from perfcalc.errors import InputError, PerfcalcError

MAX_TEXT_BYTES = 16 * 1024 * 1024  # device files, catalogs, sources and ptxas logs are KBs


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def check_regular_file(path: str | Path, what: str, error: type[PerfcalcError] = InputError) -> os.stat_result:
    """`os.stat(path)` (which never blocks) if it is a regular file; anything else is `error`."""
    try:
        info = os.stat(path)
    except (OSError, ValueError) as exc:  # ValueError: a NUL byte in the name
        raise error(f"cannot read {what} {str(path)!r}: {getattr(exc, 'strerror', None) or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        raise error(f"cannot read {what} {str(path)!r}: it is {_kind(info.st_mode)}; perfcalc reads only regular files")
    return info


def read_bytes(
    path: str | Path, what: str, *, limit: int = MAX_TEXT_BYTES, error: type[PerfcalcError] = InputError
) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; anything else is `error`."""
    info = check_regular_file(path, what, error)
    if info.st_size > limit:
        raise error(f"{what} {str(path)!r} is {info.st_size} bytes; the limit is {limit}")
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise error(f"cannot read {what} {str(path)!r}: {exc.strerror or exc}") from None
    if len(data) > limit:  # grew since stat
        raise error(f"{what} {str(path)!r} is over the limit of {limit} bytes")
    return data


def read_stdin(what: str, *, limit: int = MAX_TEXT_BYTES, error: type[PerfcalcError] = InputError) -> bytes:
    """The bytes piped to standard input (an option given as '-'), at most `limit`; a terminal
    there is `error`, since reading it would wait for typing."""
    import sys

    if sys.stdin is None or sys.stdin.isatty():
        raise error(f"{what}: standard input is a terminal; pipe the data in, or name a file")
    data = sys.stdin.buffer.read(limit + 1)
    if len(data) > limit:
        raise error(f"{what}: standard input is over the limit of {limit} bytes")
    return data


def decode_text(
    data: bytes, path: str | Path, what: str, *, latin1_fallback: bool = False, error: type[PerfcalcError] = InputError
) -> str:
    """UTF-8 (a byte-order mark dropped) or BOM-marked UTF-16; else Latin-1 or `error`."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            pass
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if latin1_fallback:
            return data.decode("latin-1")
        raise error(
            f"{what} {str(path)!r} is not UTF-8 text (byte 0x{data[exc.start]:02x} at "
            f"offset {exc.start}); save it as UTF-8"
        ) from None


def read_text(
    path: str | Path,
    what: str,
    *,
    latin1_fallback: bool = False,
    limit: int = MAX_TEXT_BYTES,
    error: type[PerfcalcError] = InputError,
) -> str:
    """`read_bytes` then `decode_text`: one call for a user's text file."""
    return decode_text(
        read_bytes(path, what, limit=limit, error=error), path, what, latin1_fallback=latin1_fallback, error=error
    )
