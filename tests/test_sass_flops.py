"""Flops of the PTX instructions ptxas expands into FFMA/FMUL sequences, against an H100.

benchmarks/hw/sass_flops_on_gpu.py ran one probe kernel per PTX instruction (inline PTX on
operands in [1, 2)) on an NVIDIA H100 80GB HBM3 under Nsight Compute; sass_flops_h100/ keeps
its CSV. Here the same probes run on the PTX engine: the flops it counts per thread must be the
GPU's (FADD/FMUL 1, FFMA 2, doubles alike), instruction by instruction.
"""

from __future__ import annotations

import csv
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

from perfcalc.sim import run_kernel
from perfcalc.sim.ptx import nvrtc

HW = Path(__file__).resolve().parents[1] / "benchmarks" / "hw"
sys.path.insert(0, str(HW))
from sass_flops_on_gpu import FORMS, N, probe_kernel  # noqa: E402

pytestmark = pytest.mark.skipif(not nvrtc.available(), reason="NVRTC (pip install nvidia-cuda-nvrtc) is not installed")


def _measured() -> dict[str, float]:
    text = (HW / "sass_flops_h100" / "sass_flops.csv").read_text()
    per: dict[str, float] = defaultdict(float)
    for row in csv.DictReader(text[text.index('"ID"') :].splitlines()):
        weight = 2 if "fma_pred_on" in row["Metric Name"] else 1
        per[row["Kernel Name"]] += weight * float(row["Metric Value"].replace(",", ""))
    return {name: flops / N for name, flops in per.items()}


MEASURED = _measured()


@pytest.mark.parametrize(("name", "op", "type_", "operands"), FORMS, ids=[f[0] for f in FORMS])
def test_flops_per_thread_equal_the_h100s(name, op, type_, operands):
    source = probe_kernel("probe", op, type_, operands)
    dtype = np.float32 if type_ == "f32" else np.float64
    a = 1 + (np.arange(64) % 1000 / 1000).astype(dtype)
    args = {"a": a, "b": a[::-1].copy(), "out": np.zeros(64, dtype), "n": 64}
    result = run_kernel(source, "probe", 1, 64, args, "9.0", engine="ptx", compiler="nvrtc")
    assert result.counters.flops / 64 == MEASURED[name], (op, MEASURED[name])
