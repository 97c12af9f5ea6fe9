"""README's examples are true (issue #11): every `$ perfcalc ...` line in a code block is run and
its output compared with the lines under it, and the Python examples run as doctests.

A block's output may start with a line `...`: then only its last lines are compared (README
shows the end of a long answer). Commands run in the repository root through bash, so pipes
such as `| tail -4` work; stderr is shown with stdout, as in a terminal.
"""

from __future__ import annotations

import doctest
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def examples() -> list[tuple[int, str, list[str]]]:
    """(line number, command, expected output lines) for every `$ perfcalc` line."""
    found: list[tuple[int, str, list[str]]] = []
    in_block, current = False, None
    for number, line in enumerate(README.read_text(encoding="utf-8").splitlines(), start=1):
        if line.startswith("```"):
            in_block, current = not in_block, None
            continue
        if not in_block:
            continue
        if line.startswith("$ "):
            current = (number, line[2:], [])
            if line.startswith("$ perfcalc"):
                found.append(current)
        elif current is not None:
            current[2].append(line)
    return found


def _run(command: str) -> str:
    shell = re.sub(r"^perfcalc\b", f'"{sys.executable}" -m perfcalc', command)
    done = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {shell} 2>&1"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    return done.stdout


def _trimmed(lines: list[str]) -> list[str]:
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return [line.rstrip() for line in lines]


@pytest.mark.parametrize(("line", "command", "expected"), examples(), ids=lambda v: str(v)[:40])
def test_readme_command_prints_what_readme_shows(line, command, expected):
    want = _trimmed(expected)
    got = _trimmed(_run(command).splitlines())
    if want and want[0] == "...":
        want = want[1:]
        got = got[-len(want) :] if want else got
    assert got == want, f"README.md line {line}: {command}"


def test_readme_has_command_examples():
    assert len(examples()) >= 10


def test_readme_python_examples_run():
    result = doctest.testfile(
        str(README), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted >= 3 and result.failed == 0


def test_readme_pictures_exist_and_each_is_made_by_regenerate_sh():
    """Issue #12: the pictures README shows are committed PNGs, each one a file that
    docs/img/regenerate.sh writes (so they can be remade with the code that draws them)."""
    shown = re.findall(r"!\[[^\]]*\]\((docs/img/[^)]+)\)", README.read_text(encoding="utf-8"))
    script = (ROOT / "docs" / "img" / "regenerate.sh").read_text(encoding="utf-8")
    assert len(shown) == 5
    for path in shown:
        assert (ROOT / path).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", path
        assert f"--plot {Path(path).name}" in script, path
