"""A bounded copy of what a program writes to stdout or stderr (issue 36: a program that writes
without end filled the disk: its output went to a temporary file, ~0.4 GB/s here, until the
600 s default limit). The report keeps the first HEAD_BYTES and the last TAIL_BYTES and says
how much it left out; the program is never slowed or stopped for it (the pipe is always read)."""

from __future__ import annotations

import collections
import os
import threading

HEAD_BYTES = 1 << 20
TAIL_BYTES = 1 << 16
_CHUNK = 1 << 16


class KeptOutput:
    """A pipe whose write end is the program's stream, drained by a thread into head and tail."""

    def __init__(self) -> None:
        self._read, self.fd = os.pipe()
        self._head = bytearray()
        self._tail: collections.deque[bytes] = collections.deque()
        self._tail_bytes = 0
        self.total = 0
        self._thread = threading.Thread(target=self._drain, name="perfcalc-app-output", daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while chunk := os.read(self._read, _CHUNK):
            self.total += len(chunk)
            room = HEAD_BYTES - len(self._head)
            if room > 0:
                self._head += chunk[:room]
                chunk = chunk[room:]
            if chunk:
                self._tail.append(chunk)
                self._tail_bytes += len(chunk)
                while self._tail_bytes - len(self._tail[0]) >= TAIL_BYTES:
                    self._tail_bytes -= len(self._tail.popleft())
        os.close(self._read)

    def close_writer(self) -> None:
        """Our copy of the write end, once the program has it (or could not start)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def text(self) -> str:
        """Everything the program wrote, or its head and tail with a line saying what was left out."""
        self.close_writer()
        self._thread.join(timeout=10)  # EOF: the program and its process group are gone
        tail = b"".join(self._tail)[-TAIL_BYTES:] if self._tail else b""
        if not self.left_out:
            return (bytes(self._head) + tail).decode(errors="replace")
        from perfcalc.units import binary_bytes

        middle = f"\n[perfcalc: {binary_bytes(self.left_out)} of this output left out here]\n"
        return bytes(self._head).decode(errors="replace") + middle + tail.decode(errors="replace")

    @property
    def left_out(self) -> int:
        """Bytes between the kept head and tail."""
        return max(self.total - HEAD_BYTES - TAIL_BYTES, 0)
