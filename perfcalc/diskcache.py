"""perfcalc's cache on disk: one private per-user folder, entries created atomically and never
written or read through a link, each carrying a hash of its own content that is checked when read.

Why this shape (issue 36): a cache is an input perfcalc did not get from the user. A dangling
symlink in the folder must not make a write land elsewhere, a symlink to another file must not
be read as an entry, a FIFO must not block a run, and a damaged or edited entry must never give a
different answer silently. So: the folder is created with mode 0700 (and refused if it is a link
or another user's); entries are written to a new temporary file (O_EXCL) and renamed over the
name, which replaces a link rather than following it; entries are opened with O_NOFOLLOW and
O_NONBLOCK and must be regular files; each holds `FORMAT sha256 key` on its first line and its
payload after it, checked before use. A bad entry is deleted, reported by a one-line CacheNote
warning, and rebuilt by the caller. The folder is kept under `MAX_BYTES` by removing the
least recently written entries.

The location: $PERFCALC_CACHE_DIR if set (checked like an option), else platformdirs' user cache
folder for perfcalc (~/.cache/perfcalc on Linux, ~/Library/Caches/perfcalc on macOS,
%LOCALAPPDATA%\\perfcalc\\Cache on Windows).
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from perfcalc.errors import InputError, PerfcalcNote

FORMAT = b"perfcalc-cache-2"
ENV = "PERFCALC_CACHE_DIR"
MAX_PATH = 1024  # characters of $PERFCALC_CACHE_DIR: PATH_MAX is 4096, and entries sit below it
MAX_ENTRY_BYTES = 64 * 1024 * 1024  # a PTX of a large file is a few MB
MAX_BYTES = 512 * 1024 * 1024  # the whole cache; README's "Files perfcalc writes" says so
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


class CacheNote(PerfcalcNote):
    """A cache entry was unusable and is being rebuilt (the CLI prints it as one `note:` line)."""


def _sha256() -> Any:
    """sha256 from the builtin module where Python has one (hashlib's OpenSSL load is ~2 ms of
    every start: the YAML cache is read on every CLI answer)."""
    try:
        from _sha2 import sha256  # type: ignore[import-not-found,unused-ignore]  # Python >= 3.12
    except ImportError:
        try:
            from _sha256 import sha256  # type: ignore[import-not-found,no-redef,unused-ignore]
        except ImportError:
            from hashlib import sha256
    return sha256


def digest(data: bytes) -> str:
    """The SHA-256 of `data` in hex (a cryptographic key: collisions cannot be made)."""
    return str(_sha256()(data).hexdigest())


def root() -> Path:
    """The cache's top folder (not created here); $PERFCALC_CACHE_DIR is checked like an option."""
    override = os.environ.get(ENV)
    if override is not None:
        if not override or "\0" in override:
            raise InputError(f"{ENV} is empty or holds a NUL byte; give a folder path or unset it")
        if len(override) > MAX_PATH:
            raise InputError(f"{ENV} is {len(override)} characters long; the limit is {MAX_PATH}")
        if not os.path.isabs(os.path.expanduser(override)):
            # a relative folder would put a cache into every folder perfcalc is run from
            raise InputError(f"{ENV}={override[:80]!r} is a relative path; give an absolute folder or unset it")
        return Path(os.path.expanduser(override))
    import platformdirs

    return Path(platformdirs.user_cache_dir("perfcalc", appauthor=False))


def folder(kind: str) -> Path | None:
    """root()/kind, created private (0700) where missing; None where it cannot be made or is
    not a private folder of this user (then nothing is cached: each answer is computed)."""
    path = root() / kind
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode):  # a link or a file where the folder belongs
        return None
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return None
    if info.st_mode & 0o077:  # made by an older perfcalc with the default permissions
        try:
            os.chmod(path, 0o700)
        except OSError:
            return None
    return path


def _note(path: Path, why: str) -> None:
    warnings.warn(f"discarded the cache entry {path.name} ({why}); computing it again", CacheNote, stacklevel=3)


def _discard(path: Path, why: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
    _note(path, why)


def read(kind: str, key: str, check: Callable[[Any], bool]) -> Any | None:
    """The payload stored under `key`, or None (absent, or bad: then deleted with a note).
    `check` says whether the payload has the shape its user needs."""
    base = folder(kind)
    if base is None:
        return None
    path = base / f"{key}.entry"
    try:
        fd = os.open(path, os.O_RDONLY | _O_NOFOLLOW | _O_NONBLOCK)
    except FileNotFoundError:
        return None
    except OSError as exc:  # a symlink (ELOOP), a name too long, no permission
        _discard(path, f"cannot be opened: {exc.strerror or exc}")
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            _discard(path, "not a regular file")
            return None
        if info.st_size > MAX_ENTRY_BYTES:
            _discard(path, f"{info.st_size} bytes, over the limit of {MAX_ENTRY_BYTES}")
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(MAX_ENTRY_BYTES + 1)
    except OSError as exc:
        _discard(path, f"cannot be read: {exc.strerror or exc}")
        return None
    finally:
        os.close(fd)
    head, _, body = data.partition(b"\n")
    parts = head.split(b" ")
    if len(parts) != 3 or parts[0] != FORMAT or parts[2].decode("ascii", "replace") != key:
        _discard(path, "not an entry of this perfcalc")
        return None
    if parts[1].decode("ascii", "replace") != digest(body):
        _discard(path, "its content does not match its checksum")
        return None
    try:
        payload = json.loads(body)
    except ValueError:
        _discard(path, "not JSON")
        return None
    if not check(payload):
        _discard(path, "its content has the wrong shape")
        return None
    return payload


def write(kind: str, key: str, payload: Any) -> None:
    """Store `payload` (JSON-able) under `key`: a new private file renamed into place. Any
    failure (read-only or full disk) only costs the next computation."""
    base = folder(kind)
    if base is None:
        return
    body = json.dumps(payload).encode()
    data = b"%s %s %s\n%s" % (FORMAT, digest(body).encode(), key.encode(), body)
    if len(data) > MAX_ENTRY_BYTES:
        return
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(dir=base, prefix=".", suffix=".tmp")  # O_EXCL, mode 0600
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, base / f"{key}.entry")  # replaces a link or file there, never follows it
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return
    _prune(base)


def _prune(base: Path) -> None:
    """Keep root() under MAX_BYTES: the least recently written entries go first (a check of the
    folder's total costs one listing per write, not per read)."""
    entries = []
    total = 0
    try:
        for item in os.scandir(base.parent):
            if not item.is_dir(follow_symlinks=False):
                continue
            for entry in os.scandir(item.path):
                if entry.name.endswith(".entry") and entry.is_file(follow_symlinks=False):
                    info = entry.stat(follow_symlinks=False)
                    entries.append((info.st_mtime_ns, info.st_size, entry.path))
                    total += info.st_size
    except OSError:
        return
    if total <= MAX_BYTES:
        return
    for _, size, path in sorted(entries):
        try:
            os.unlink(path)
        except OSError:
            continue
        total -= size
        if total <= MAX_BYTES * 3 // 4:
            break
