"""SASS instructions per PTX instruction (sim/ptx/sass_expansion.py): the table is the H100's
measurement kept in the repo, and the engine's instruction counts on CC 9.x carry it."""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from perfcalc.sim import run_kernel
from perfcalc.sim.ptx import nvrtc
from perfcalc.sim.ptx.sass_expansion import _MEASURED_SM90

HW = Path(__file__).resolve().parents[1] / "benchmarks" / "hw"
WARPS = (1 << 15) // 32  # the probes' launch: 2**15 threads


def _measured() -> dict[str, float]:
    """Per probe: SASS instructions per warp and PTX instruction, probe minus its type's baseline
    (Nsight Compute's smsp__inst_executed.sum, K instructions a thread; launches in the order of
    the probe script's FORMS)."""
    sys.path.insert(0, str(HW))
    from ptx_corpus_compare import ncu_values
    from sass_expansion_on_gpu import FORMS, K

    inst = [v["smsp__inst_executed.sum"] for v in ncu_values(HW / "sass_expansion_h100" / "expansion.csv")]
    by_name = dict(zip([f[0] for f in FORMS], inst, strict=False))
    base = {f[2]: by_name[f[0]] for f in FORMS if f[1] is None}  # C type -> its baseline probe
    return {name: (by_name[name] - base[ctype]) / WARPS / K for name, _op, ctype, _r, _k in FORMS}


def test_the_table_is_the_h100_measurement():
    measured = _measured()
    for opcode, count in _MEASURED_SM90.items():
        probe = re.sub(r"\.(u64|s64|b64|f32|f64)$", lambda m: "_" + m.group(1), opcode).replace(".", "_")
        probe = probe.replace("_s64", "_u64")
        assert probe in measured, opcode
        assert count == math.floor(measured[probe] + 0.05), (opcode, measured[probe])


SOURCE = """
__global__ void k(const unsigned long long* a, const unsigned long long* b, unsigned long long* c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] * b[i];
}
"""


@pytest.mark.skipif(not nvrtc.available(), reason="NVRTC (pip install nvidia-cuda-nvrtc) is not installed")
@pytest.mark.usefixtures("ptx_cache")
def test_a_64_bit_multiply_issues_four_instructions_on_cc_9():
    """The same kernel at CC 9.0 and 8.0: the integer count differs by the multiply's three extra
    SASS instructions per warp (the H100's 4 against one PTX instruction), nothing else."""
    counts = {}
    for cc in ("9.0", "8.0"):
        args = {n: np.arange(1, 257, dtype=np.uint64) for n in "ab"} | {"c": np.zeros(256, np.uint64)}
        result = run_kernel(SOURCE, "k", 2, 128, args, cc, engine="ptx")
        counts[cc] = result.counters.warp_instructions
        assert (args["c"] == np.arange(1, 257, dtype=np.uint64) ** 2).all()
    assert counts["9.0"]["int"] - counts["8.0"]["int"] == 3 * 8
    assert {k: v for k, v in counts["9.0"].items() if k != "int"} == {
        k: v for k, v in counts["8.0"].items() if k != "int"
    }
