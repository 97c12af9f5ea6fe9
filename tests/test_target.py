"""One Target from --cc and --gpu, one parser of launch dimensions, for every command (issue 29).

Expected values: the occupancy of a 256-thread, 32-register block under a device file whose
max_warps_per_sm is halved to 32 (and max_threads_per_sm to 1024 with it) is 32/32 warps = 1.0
with 4 blocks per SM, where the shipped CC 9.0 gives 64/64 warps with 8 blocks (cuda_occupancy.h's
rule: blocks = min(warp limit / 8 warps per block, ...)); the waves of a 256-block grid on the
H100 (132 SMs) at 8 blocks per SM: one wave of 1056 blocks, 256 of them filled.
"""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from perfcalc.cli import app
from perfcalc.errors import InputError
from perfcalc.specs.data_files import data_path
from perfcalc.specs.dims import dims_as_given, launch_dims
from perfcalc.specs.target import resolve_target


def _device(tmp_path, cc: str, **changes) -> str:
    stem = "cc_" + cc.replace(".", "_")
    data = yaml.safe_load(data_path(f"devices/{stem}.yaml").read_text(encoding="utf-8"))
    data.update(changes)
    path = tmp_path / f"my_{stem}.yaml"
    path.write_text(yaml.safe_dump(data))
    return str(path)


def _json(*args: str) -> dict:
    done = CliRunner().invoke(app, [*args, "-f", "json"])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


def test_a_device_file_with_a_product_is_used_not_dropped(tmp_path):
    """`run --cc my90.yaml --gpu h100-sxm` ran on the shipped CC 9.0 (issue 29)."""
    mine = _device(tmp_path, "9.0", max_warps_per_sm=32, max_threads_per_sm=1024)
    doc = _json("run", "copy_offset", "--cc", mine, "--gpu", "h100-sxm")
    occ = doc["occupancy"]
    assert (occ["active_warps_per_sm"], occ["active_blocks_per_sm"], occ["occupancy"]) == (32, 4, 1.0)
    shipped = _json("run", "copy_offset", "--gpu", "h100-sxm")["occupancy"]
    assert (shipped["active_warps_per_sm"], shipped["active_blocks_per_sm"]) == (64, 8)
    target = resolve_target(mine, "h100-sxm")
    assert target.arch.max_warps_per_sm == 32 and target.gpu is not None and target.gpu.key == "h100-sxm"


def test_a_device_file_of_another_cc_with_a_product_is_one_error(tmp_path):
    mine = _device(tmp_path, "8.0")
    done = CliRunner().invoke(app, ["run", "copy_offset", "--cc", mine, "--gpu", "h100-sxm"])
    assert done.exit_code == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "--gpu h100-sxm is CC 9.0" in lines[0] and "CC 8.0" in lines[0]
    with pytest.raises(InputError, match="CC 9.0"):
        resolve_target(mine, "h100-sxm")


@pytest.mark.parametrize("text", ["16,16", "16x16", "(16,16,1)", "16 x 16", "dim3(16, 16)", "16*16"])
def test_every_spelling_of_dimensions_is_read_alike(text):
    assert launch_dims(text, "--grid") == (16, 16, 1)
    assert dims_as_given(text, "--grid")[:2] == (16, 16)


@pytest.mark.parametrize("bad", ["", "16,,16", "1,2,3,4", "0x4", "-1", "16;16", "sixteen", "1e3"])
def test_bad_dimensions_are_one_error(bad):
    with pytest.raises(InputError, match="--grid"):
        launch_dims(bad, "--grid")


@pytest.mark.parametrize("grid", ["16,16", "16x16", "(16,16,1)", "256"])
def test_occupancy_reads_grid_as_run_does(grid):
    """`--grid 2x2` worked in `run` and was refused by `occupancy` (issue 29)."""
    doc = _json("occupancy", "--gpu", "h100-sxm", "--block", "256", "--regs", "32", "--grid", grid)
    waves = doc["waves"]
    assert waves["grid_blocks"] == 256 and waves["blocks_per_wave"] == 8 * 132 and waves["full_waves"] == 0


@pytest.mark.parametrize("grid,block", [("2x2", "16x16"), ("(2,2,1)", "(16,16,1)"), ("2,2", "16,16")])
def test_run_reads_every_spelling(tmp_path, grid, block):
    src = tmp_path / "k.cu"
    src.write_text(
        "__global__ void k(float *out, int w) {\n"
        "  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;\n"
        "  out[y * w + x] = 1.0f;\n}\n"
    )
    doc = _json(
        "run", "--source", str(src), "--grid", grid, "--block", block, "--array", "out=float32:1024", "-p", "w=32"
    )
    assert doc["launch"]["blocks"] == 4 and doc["launch"]["threads_per_block"] == 256
    assert doc["counters"]["global_store_requests"] == 4 * 8
