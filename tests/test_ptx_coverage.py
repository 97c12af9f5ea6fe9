"""benchmarks/ptx_opcode_coverage.md is what the corpus compiles to today, and every opcode in it
has an implementation in the PTX engine (issue #8 point 3)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from perfcalc.sim.ptx import nvrtc

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

pytestmark = pytest.mark.skipif(not nvrtc.available(), reason="NVRTC (pip install nvidia-cuda-nvrtc) is not installed")


def test_opcode_report_is_current_and_complete():
    from ptx_opcode_coverage import report

    text = report()
    assert text == (BENCH / "ptx_opcode_coverage.md").read_text(), (
        "regenerate: python benchmarks/ptx_opcode_coverage.py > benchmarks/ptx_opcode_coverage.md"
    )
    assert "NOT IMPLEMENTED" not in text and "REFUSED" not in text


def test_opcode_classification():
    from ptx_opcode_coverage import opcode_name, where

    assert opcode_name("ld.global.nc.v4.f32") == "ld.global.nc"
    assert opcode_name("fma.rn.f32") == "fma.rn"
    assert where("wgmma.mma_async") == "REFUSED (Hopper wgmma)"
    assert where("frobnicate") == "NOT IMPLEMENTED"
