"""README.md's two set-up commands are the ones CI runs (.ci/run), word for word."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _blocks_after(heading: str) -> str:
    text = (ROOT / "README.md").read_text()
    section = text.split(f"## {heading}\n", 1)[1]
    return re.search(r"```\n(.+?)\n```", section, re.S).group(1).strip()


def test_ci_runs_the_readme_commands():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert _blocks_after("Install and run") in ci
    assert _blocks_after("Run the tests") in ci
