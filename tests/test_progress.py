"""Long work shows a bar with the count, the elapsed time and an ETA (#12), on a terminal only."""

from __future__ import annotations

import io

from perfcalc.cli import progress as progress_module
from perfcalc.cli.progress import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_bar_counts_and_gives_elapsed_time_and_eta(monkeypatch):
    monkeypatch.setattr(progress_module, "SHOW_AFTER_S", 0.0)
    screen = _Terminal()
    bar = Progress("simulating", stream=screen)
    for done in (0, 2048, 4096):
        bar(done, 4096)
    text = screen.getvalue()
    assert "simulating" in text and "4096/4096" in text and "blocks" in text
    assert "ETA" in text and "0:00:00" in text  # elapsed and remaining as h:mm:ss


def test_steps_name_what_is_done(monkeypatch):
    monkeypatch.setattr(progress_module, "SHOW_AFTER_S", 0.0)
    screen = _Terminal()
    bar = Progress("report", total=3, unit="steps", stream=screen)
    for name in ("ceilings", "roofline", "kernels"):
        bar.step(name)
    assert "3/3" in screen.getvalue() and "kernels" in screen.getvalue()


def test_silent_off_a_terminal_and_for_short_work():
    piped = io.StringIO()
    Progress("simulating", stream=piped)(10, 10)
    assert piped.getvalue() == ""
    screen = _Terminal()
    bar = Progress("simulating", stream=screen)  # the default: nothing before one second
    bar(1, 10)
    assert screen.getvalue() == ""
