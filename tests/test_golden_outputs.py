"""Issue 29's refactor changes no number: every command of tests/golden.py and every PTX-corpus
launch give today the JSON they gave at the commit recorded in tests/data/golden/outputs.json
(written there by benchmarks/golden_outputs.py), to the last digit."""

from __future__ import annotations

import json

import golden
import pytest
from typer.testing import CliRunner

from perfcalc.cli import app
from perfcalc.sim.ptx import nvrtc

KEPT = json.loads(golden.GOLDEN.read_text())
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("command", golden.commands(nvrtc.available()), ids=" ".join)
def test_command_output_is_unchanged(command, monkeypatch):
    monkeypatch.chdir(golden.REPO)
    done = CliRunner().invoke(app, command)
    assert done.exit_code == 0, done.output
    assert golden.normalise(done.stdout) == KEPT["commands"][" ".join(command)]


@pytest.mark.skipif(not nvrtc.available(), reason="NVRTC (pip install nvidia-cuda-nvrtc) is not installed")
def test_corpus_counters_and_outputs_are_unchanged(monkeypatch):
    """On the NVRTC route, as at a719014: per line too. (nvcc names CUDA's headers in its line
    table, so there the lines of header code differ, by design: tests/test_compile_routes.py.)"""
    monkeypatch.setenv("PERFCALC_COMPILER", "nvrtc")
    assert golden.corpus_outputs() == KEPT["corpus"]
