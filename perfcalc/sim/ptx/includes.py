"""Every file a compile can read, found before it runs: what the compile cache keys on.

NVRTC has no dependency output (`-M`, `-MD` are "unrecognized option" in NVRTC 13), so the
files it reads are found here, as its preprocessor finds them and erring on the side of more:
every `#include` in every branch (an `#if 0` too), quoted names searched from the including
file's folder and then the include directories, angle names from the include directories, an
`#include MACRO` through every object-like definition of that name in any file seen or in `-D`,
nested headers followed to any depth. A name found in a user's folder contributes its bytes to
the key; a name found in CUDA's own header folders contributes its size and modification time
(they change only with the wheels, which the compiler version also keys). An include whose
operand cannot be resolved this way (a function-like macro, token pasting) makes the file
uncacheable: it is compiled afresh every time, never answered from an old entry (issue 36).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from perfcalc.errors import InputError

# `#include` and `#include_next`, the operand up to the end of the (continued) line
_INCLUDE = re.compile(r"^[ \t]*#[ \t]*include(?:_next)?\b[ \t]*(.*)$", re.M)
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])[ \t]*(.*)$", re.M)
_NAME = re.compile(r"[A-Za-z_]\w*")
MAX_HEADER_BYTES = 16 * 1024 * 1024
MAX_FILES = 10_000  # a tree of headers larger than this is not cached (compiled each time)
MAX_EXPANSION = 16  # macro-to-macro steps followed for one `#include MACRO`


@dataclass
class Dependencies:
    """What the preprocessor can reach: user files by content, CUDA's headers by size and
    time; `complete` False when some `#include` could not be resolved (then: do not cache)."""

    user: dict[str, str] = field(default_factory=dict)  # absolute path -> sha256 of its bytes
    system: dict[str, str] = field(default_factory=dict)  # absolute path -> "size:mtime_ns"
    missing: set[str] = field(default_factory=set)  # names searched and not found
    complete: bool = True
    spelled: dict[str, str] = field(default_factory=dict)  # a user file's name as #included -> path

    def fingerprint(self) -> list[object]:
        """A JSON-able, order-independent description for the cache key."""
        return [sorted(self.user.items()), sorted(self.system.items()), sorted(self.missing), self.complete]


def _join_continued(text: str) -> str:
    return text.replace("\\\r\n", "").replace("\\\n", "")


def _regular(path: Path) -> os.stat_result | None:
    """stat of `path` if it is a regular file; None if absent; a FIFO, device or folder named by
    an `#include` is refused here, since the compiler would block reading it."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if stat.S_ISDIR(info.st_mode):
        return None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(
            f"the header {str(path)!r} is not a regular file (a FIFO or a device); perfcalc reads only regular files"
        )
    return info


class _Scan:
    """The worklist: files' texts give defines and include operands; operands give files."""

    def __init__(self, user_dirs: list[Path], system_dirs: list[Path], defines: dict[str, str]) -> None:
        self.user_dirs = user_dirs
        self.system_dirs = system_dirs
        self.macros: dict[str, set[str]] = {k: {v} for k, v in defines.items()}
        self.deps = Dependencies()
        self.operands: list[tuple[str, Path | None]] = []  # every (operand, includer's folder) seen
        self.done: set[tuple[bool, str, str]] = set()  # (quoted, name, folder) already resolved

    def text(self, text: str, folder: Path | None) -> None:
        text = _join_continued(text)
        for name, value in _DEFINE.findall(text):
            self.macros.setdefault(name, set()).add(value.strip())
        self.operands.extend((operand.strip(), folder) for operand in _INCLUDE.findall(text))

    def run(self) -> Dependencies:
        """Resolve operands until nothing new is found: a macro defined in a header scanned
        later can name a further header through an operand seen earlier."""
        before = (-1, -1)
        while before != (len(self.operands), sum(len(v) for v in self.macros.values())):
            before = (len(self.operands), sum(len(v) for v in self.macros.values()))
            unresolved = False
            for operand, folder in list(self.operands):
                names = self._names(operand, 0)
                unresolved |= names is None
                for quoted, name in names or []:
                    self._include(name, quoted, folder)
                if len(self.deps.user) > MAX_FILES:
                    self.deps.complete = False
                    return self.deps
        self.deps.complete = self.deps.complete and not unresolved
        return self.deps

    def _names(self, operand: str, depth: int) -> list[tuple[bool, str]] | None:
        """(quoted?, name) for each header `operand` can name; None if it cannot be resolved."""
        m = re.match(r'\s*"([^"\n]*)"', operand)
        if m:
            return [(True, m.group(1))]
        m = re.match(r"\s*<([^>\n]*)>", operand)
        if m:
            return [(False, m.group(1))]
        m = _NAME.match(operand.strip())
        if m is None or depth >= MAX_EXPANSION or m.group(0) not in self.macros:
            return None
        found: list[tuple[bool, str]] = []
        for value in sorted(self.macros[m.group(0)]):
            names = self._names(value, depth + 1)
            if names is None:
                return None
            found.extend(names)
        return found

    def _include(self, name: str, quoted: bool, folder: Path | None) -> None:
        key = (quoted, name, str(folder))
        if key in self.done or not name or "\0" in name:
            return
        self.done.add(key)
        order = ([folder] if quoted and folder is not None else []) + self.user_dirs
        for d in order:
            path = d / name
            info = _regular(path)
            if info is not None:
                self.deps.spelled.setdefault(name, str(path.resolve()))
                self._user_file(path.resolve(), info)
                return
        for d in self.system_dirs:
            path = d / name
            info = _regular(path)
            if info is not None:
                self.deps.system[str(path)] = f"{info.st_size}:{info.st_mtime_ns}"
                return
        self.deps.missing.add(("q:" if quoted else "a:") + name)

    def _user_file(self, path: Path, info: os.stat_result) -> None:
        if str(path) in self.deps.user:
            return
        if info.st_size > MAX_HEADER_BYTES:
            raise InputError(f"the header {str(path)!r} is {info.st_size} bytes; the limit is {MAX_HEADER_BYTES}")
        try:
            data = path.read_bytes()
        except OSError:
            self.deps.complete = False
            return
        self.deps.user[str(path)] = hashlib.sha256(data).hexdigest()
        self.text(data.decode("utf-8", errors="replace"), path.parent)


def dependencies(
    source: str,
    source_dir: Path | None,
    user_dirs: list[Path],
    system_dirs: list[Path],
    defines: dict[str, str],
) -> Dependencies:
    """Every file an `#include` in `source` (or in what it includes) can reach; see the module
    docstring for the rules."""
    scan = _Scan(user_dirs, system_dirs, defines)
    scan.text(source, source_dir)
    return scan.run()
