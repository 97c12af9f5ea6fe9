"""The library as a user finds it (issue #11): the public names, devices spelled as the CLI
spells them, and results that convert to dicts, frames and notebook tables."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

import perfcalc
from perfcalc.cli import app
from perfcalc.specs import get_arch, get_gpu

runner = CliRunner()


def _fresh(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_dir_lists_the_public_api_and_import_stays_lazy():
    """dir() and completion show the API, not `importlib` or `Any`; importing perfcalc loads
    neither NumPy nor the simulator until a name is used (start-up time, issue #13)."""
    out = json.loads(
        _fresh(
            "import json, sys, perfcalc; "
            "print(json.dumps([dir(perfcalc), 'numpy' in sys.modules, 'perfcalc.sim' in sys.modules]))"
        )
    )
    names, numpy_loaded, sim_loaded = out
    assert names == sorted(perfcalc.__all__) and not numpy_loaded and not sim_loaded
    for expected in ("occupancy", "suggest_block_size", "read_ptxas", "global_access", "shared_access"):
        assert expected in names
    for expected in ("run_kernel", "roofline", "matmul", "device", "product", "demangle"):
        assert expected in names
    assert "importlib" not in names and "Any" not in names
    assert all(getattr(perfcalc, n) is not None for n in perfcalc.__all__)


@pytest.mark.parametrize("spelling", ["9.0", "sm_90", 90, "h100-sxm", get_arch("9.0"), get_gpu("h100-sxm")])
def test_every_entry_point_takes_a_device_as_the_cli_does(spelling):
    """H100 (CC 9.0), 256 threads, 32 registers: 8 blocks (the warp limit, 64 / 8), 100 %."""
    assert perfcalc.occupancy(spelling, 256, 32).active_blocks_per_sm == 8
    assert perfcalc.suggest_block_size(spelling, 32).occupancy == 1.0
    # 32 consecutive floats: 4 sectors of 32 B; one shared wavefront (memory.md 1.5, 3)
    assert perfcalc.global_access(spelling, np.arange(32) * 4, 4).transaction_count == 4
    assert perfcalc.shared_access(spelling, np.arange(32) * 4, 4).wavefronts == 1
    assert perfcalc.device(spelling).cc == "9.0"


def test_run_kernel_accepts_a_cc_string_and_its_result_converts():
    src = "__global__ void fill(float* a) { a[threadIdx.x] = 1.0f; }"
    a = np.zeros(64, np.float32)
    result = perfcalc.run_kernel(src, "fill", grid=1, block=64, args={"a": a}, arch="9.0")
    assert (a == 1).all()
    data = result.to_dict()
    # 64 floats stored by 2 warps: 2 requests, 8 sectors (4 per warp)
    assert data["counters"]["global_store_requests"] == 2 and data["counters"]["global_store_transactions"] == 8
    json.dumps(data)  # plain values only


def test_results_convert_to_dict_frame_and_markdown():
    result = perfcalc.occupancy("7.0", 256, 32)
    data = result.to_dict()
    assert data["block_limits"]["shared_memory"] is None  # 'unlimited' is null, as in the JSON
    cli = json.loads(
        runner.invoke(app, ["occupancy", "--cc", "7.0", "--block", "256", "--regs", "32", "-f", "json"]).stdout
    )
    assert {k: cli[k] for k in data} == data  # the same names and values as --format json
    frame = result.to_frame()
    assert frame.shape[0] == 1 and frame.loc[0, "active_blocks_per_sm"] == 8
    assert frame.loc[0, "block_limits.warps"] == 8
    markdown = result._repr_markdown_()
    assert markdown.startswith("**OccupancyResult**") and "| occupancy | 1.0 |" in markdown


def test_matmul_and_roofline_from_the_library_match_the_lecture_notes():
    """Seed 000 on the G80 at W = 1024: 512 loads and 8192 flops per tiled block and phase,
    CGMA bounds (86.4 / 4) x 1 = 21.6 and x 16 = 345.6 GFLOPS."""
    analysis = perfcalc.matmul(1024, 16, "g80")
    naive, tiled = analysis.variant("naive"), analysis.variant("tiled")
    assert (tiled.global_loads_per_block_per_phase, tiled.flops_per_block_per_phase) == (512, 8192)
    assert naive.cgma_bound_gflops == pytest.approx(21.6) and tiled.cgma_bound_gflops == pytest.approx(345.6)
    assert analysis.to_dict()["variants"][1]["cgma"] == 16
    assert perfcalc.roofline("v100").ridge_flop_per_byte == pytest.approx(15667.2 / 900)
    with pytest.raises(perfcalc.PerfcalcError, match="unknown GPU"):
        perfcalc.roofline("9.0")


def test_read_ptxas_takes_a_path_or_the_text(tmp_path):
    log = (
        "ptxas info    : Compiling entry function '_Z3addiiPi' for 'sm_90'\n"
        "ptxas info    : Used 8 registers, used 0 barriers, 372 bytes cmem[0]\n"
    )
    (k,) = perfcalc.read_ptxas(log)
    assert (k.display_name, k.registers_per_thread) == ("add(int, int, int*)", 8)
    (tmp_path / "log.txt").write_text(log)
    assert perfcalc.read_ptxas(tmp_path / "log.txt") == (k,)
