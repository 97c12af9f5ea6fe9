"""Progress of long work on stderr: a bar with the count, the elapsed time and an ETA.

rich (which typer brings) draws it; it is imported only once a piece of work has run for a
second on a terminal, so short answers and pipes never pay for it (rich.progress costs ~60 ms
to import). One class for every command: `run`'s blocks, `matmul`'s two simulations,
`report`'s steps.
"""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

SHOW_AFTER_S = 1.0


class Progress:
    """Call it as progress(done, total) (the execution core's callback), or `step(label)` for
    a known number of steps; `close()` ends the line. Silent unless `stream` is a terminal."""

    def __init__(self, description: str, total: int = 0, unit: str = "blocks", stream: TextIO | None = None) -> None:
        self.description, self.total, self.unit = description, total, unit
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self._start = time.monotonic()
        self._bar: Any = None
        self._task: Any = None

    def __call__(self, done: int, total: int) -> None:
        self.done, self.total = done, total
        if total <= 0 or not self._live():
            return
        if self._bar is None:
            if time.monotonic() - self._start < SHOW_AFTER_S:
                return
            self._open()
        self._bar.update(self._task, completed=done, total=total, description=self.description)
        if done >= total:
            self.close()

    def step(self, label: str) -> None:
        """One more of `total` steps done; `label` says which."""
        self.description = label
        self(self.done + 1, self.total)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def _live(self) -> bool:
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def _open(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )
        from rich.progress import Progress as Bar

        self._bar = Bar(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(self.unit),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(file=self.stream),
            transient=False,
        )
        self._bar.start()
        # the elapsed time counts from the start of the work, not from when the bar appeared
        self._task = self._bar.add_task(self.description, total=self.total, start=True)
        self._bar.tasks[0].start_time = self._bar.get_time() - (time.monotonic() - self._start)
