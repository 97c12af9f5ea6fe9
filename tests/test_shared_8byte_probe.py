"""8-byte shared accesses counted as the GPU counts them (memory/shared_memory.py: half-warps for
8-byte words on 5.x-9.0, Nsight's ideal of one wavefront per 128 bytes): lds64_probe.cu's 64
launches, run on an H200 (sm_90, the H100's SASS and counters) under Nsight Compute
(benchmarks/hw/lds64_h200/), against the PTX engine on the same kernels and data."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

HW = Path(__file__).resolve().parents[1] / "benchmarks" / "hw"


def _gpu_counters() -> list[dict[str, int]]:
    text = (HW / "lds64_h200" / "probe_ncu.csv").read_text()
    launches: dict[int, dict[str, int]] = {}
    for row in csv.DictReader(text[text.index('"ID"') :].splitlines()):
        launches.setdefault(int(row["ID"]), {})[row["Metric Name"]] = int(row["Metric Value"].replace(",", ""))
    return [launches[i] for i in sorted(launches)]


def test_eight_byte_loads_and_stores_wavefronts_and_conflicts_are_the_gpus():
    """One warp's LDS.64 / STS.64 at word (lane x stride) mod 512, strides 1, 2, 3, 4, 8, 16, 17,
    32 and 32, 16, 8 or 20 active lanes (with the kernels' fill and read-back loops): every
    launch's shared-load and shared-store wavefronts and bank conflicts equal the GPU's, and
    load64's shared instructions too (e.g. stride 16, 32 lanes: 32 wavefronts, 30 conflicts; 20
    lanes: 20 and 18). store64's shared-store instructions are not compared: ptxas unrolls its
    fill loop again (a 16-wide body, an 8-wide one and a predicated tail), and the GPU issues 21
    where the PTX has 17."""
    from perfcalc.sim import run_kernel
    from perfcalc.sim.ptx import nvrtc

    if not nvrtc.available():
        pytest.skip("NVRTC (pip install nvidia-cuda-nvrtc) is not installed")
    source = (HW / "lds64_probe.cu").read_text()  # the kernels the GPU ran
    printed = (HW / "lds64_h200" / "probe_output.txt").read_text().splitlines()
    data = np.arange(512) * 0.5
    gpu = _gpu_counters()
    assert len(printed) == len(gpu) == 64
    for line, g in zip(printed, gpu, strict=True):
        kernel, stride, active, checksum = line.split()
        out = np.zeros(32)
        args = {"in": data.copy(), "out": out, "stride": np.int32(stride), "active": np.int32(active)}
        c = run_kernel(source, kernel, 1, 32, args, "9.0", engine="ptx").counters
        assert c.shared_load_wavefronts == g["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"], line
        assert c.shared_store_wavefronts == g["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"], line
        assert c.bank_conflicts == (
            g["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"]
            + g["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"]
        ), line
        assert c.shared_load_requests == g["smsp__inst_executed_op_shared_ld.sum"], line
        if kernel == "load64":
            assert c.shared_store_requests == g["smsp__inst_executed_op_shared_st.sum"], line
        assert float(np.dot(out, np.arange(1, 33))) == float(checksum), line
