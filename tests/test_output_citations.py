"""Outputs cite only what a user has (#11): the public sources themselves, or files shipped in
the package (devices/*.yaml, kernels.yaml) -- never the project's research notes
(`reference/...`, `memory.md 1.5`, `perfmodel.md a1`), and "the lecture notes" (README explains
them once) rather than "seed 000"."""

from __future__ import annotations

import re

import pytest
from test_json_schema import FORMS
from typer.testing import CliRunner

from perfcalc.cli import app

runner = CliRunner()
EXTRA = [
    ["matmul", "--width", "256", "--gpu", "g80", "--explain", "--no-simulate"],
    ["matmul", "--width", "256", "--gpu", "gtx780", "--no-simulate"],
    ["occupancy", "--cc", "1.0", "--block", "1024", "--regs", "10"],
    ["devices", "show", "10.0"],
    ["devices", "show", "rtx5080"],
    ["kernels", "aos_struct"],
    ["kernels", "reduce_sequential"],
    ["banks", "--cc", "1.0", "--pattern", "broadcast"],
    ["coalesce", "--cc", "9.0", "--cache", "l1"],  # an error message
    ["banks", "--cc", "9.0", "--bank-mode", "8"],  # an error message
]
UNAVAILABLE = re.compile(r'reference/|\b(memory|perfmodel|occupancy|execution|ptx-engine)\.md\b|\bseeds?\b(?!"? *[:=])')


@pytest.mark.parametrize("argv", FORMS + EXTRA, ids=lambda argv: " ".join(argv[:4]))
def test_no_output_cites_a_document_the_user_lacks(argv):
    for fmt in ("table", "json"):
        result = runner.invoke(app, [*argv, "-f", fmt])
        text = result.stdout + result.stderr
        found = UNAVAILABLE.search(text)
        assert found is None, text[max(0, found.start() - 120) : found.end() + 60]
