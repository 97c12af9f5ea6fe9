"""The results file of a sweep: one JSON line per finished point, so a run that dies loses nothing.

The first line names the sweep (its fingerprint: the request, the space's names, the source's
bytes); a re-run with the same file reads the points already there and runs only the others. A
file of another sweep is refused rather than mixed in; a last line cut short by a crash is
dropped and its point run again. Lines are flushed and synced as they are written.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any

from perfcalc.errors import InputError, OutputError

FORMAT = "perfcalc-tune-1"


class ResultsFile:
    """Points done so far, and an append handle for the rest."""

    def __init__(self, path: Path | None, fingerprint: str):
        self.path = path
        self.fingerprint = fingerprint
        self.done: dict[int, list[dict[str, Any]]] = {}
        self._handle: IO[str] | None = None
        if path is not None:
            self._open(path)

    def _open(self, path: Path) -> None:
        if path.exists() and path.stat().st_size > 0:
            good = self._read(path)
            try:
                with open(path, "r+") as f:  # drop a cut-short last line, keep every whole one
                    f.truncate(good)
            except OSError as exc:
                raise OutputError(f"cannot write the results file {path}: {exc.strerror}") from None
        try:
            self._handle = open(path, "a")  # noqa: SIM115 (held open while points finish; close() ends it)
        except OSError as exc:
            raise OutputError(f"cannot write the results file {path}: {exc.strerror}") from None
        if not self.done and path.stat().st_size == 0:
            self._write({"format": FORMAT, "sweep": self.fingerprint})

    def _read(self, path: Path) -> int:
        """Read the points in `path`; the byte length of its whole lines."""
        data = path.read_bytes()
        lines = data.split(b"\n")
        whole = lines[:-1]  # the text after the last newline is cut short (or empty)
        try:
            head = json.loads(whole[0]) if whole else None
        except ValueError:
            head = None
        if not isinstance(head, dict) or head.get("format") != FORMAT:
            raise InputError(f"{path} is not a perfcalc tune results file; name a new file or that sweep's own")
        if head.get("sweep") != self.fingerprint:
            raise InputError(
                f"{path} holds another sweep (its kernel, launch, space or source differ); name a new results file"
            )
        for line in whole[1:]:
            entry = json.loads(line)
            self.done[int(entry["point"])] = entry["rows"]
        return sum(len(line) + 1 for line in whole)

    def add(self, index: int, rows: list[dict[str, Any]]) -> None:
        self.done[index] = rows
        if self._handle is not None:
            self._write({"point": index, "rows": rows})

    def _write(self, entry: dict[str, Any]) -> None:
        assert self._handle is not None
        self._handle.write(json.dumps(entry, sort_keys=True) + "\n")
        self._handle.flush()
        os.fsync(self._handle.fileno())

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None
