"""Issue #10: CC 10.0-12.1 and the one vocabulary that makes the next CC a one-file change.

Expected occupancy values are CUDA 13's cuda_occupancy.h (H13) as run in
../shared/reference/blackwell.md section 3 ("H13-RUN worked cases"); each is also derived by hand
in the test's docstring. tests/test_occupancy_header.py compares thousands more with the header.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

import perfcalc
from perfcalc.cli import app
from perfcalc.errors import InputError, UnknownDeviceError
from perfcalc.specs import get_arch, get_gpu, known_ccs, resolve_device
from perfcalc.specs.cc import ComputeCapability
from perfcalc.specs.registry import devices_dir

runner = CliRunner()


def invoke(*args: str):
    result = runner.invoke(app, list(args))
    return result


def occupancy_json(*args: str) -> dict:
    result = invoke("occupancy", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


# --- one CC parser ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spelling", "expected"),
    [
        ("7.0", "7.0"),
        ("70", "7.0"),
        ("sm_70", "7.0"),
        ("compute_90", "9.0"),
        ("sm_90a", "9.0"),
        ("10.0", "10.0"),
        ("100", "10.0"),
        ("sm_100", "10.0"),
        ("sm_100f", "10.0"),
        ("sm_120a", "12.0"),
        ("12.1", "12.1"),
        ("121", "12.1"),
        ("SM_103A", "10.3"),
        (8.6, "8.6"),
        ("compute_110", "11.0"),
    ],
)
def test_one_parser_reads_every_spelling(spelling, expected):
    """nvcc's target names (sm_XY, compute_XY, a/f suffixes), dotted and bare numbers: a bare
    number's last digit is the minor (minors are one digit), so 100 is 10.0 and 121 is 12.1."""
    assert str(ComputeCapability.parse(spelling)) == expected
    assert get_arch(spelling).cc == expected


@pytest.mark.parametrize("text", ["v100", "sm_", "1.10", "x.y", "", "0.5", "sm_9000"])
def test_parser_refuses_what_is_no_cc(text):
    assert ComputeCapability.try_parse(text) is None
    with pytest.raises(InputError):
        ComputeCapability.parse(text)


def test_ccs_order_numerically():
    """10.0 sorts after 9.0 (a string sort would put it after 1.3)."""
    ccs = known_ccs()
    assert ccs[-6:] == ("9.0", "10.0", "10.3", "11.0", "12.0", "12.1")


def test_ptxas_log_reads_two_digit_majors():
    from perfcalc.model.ptxas import parse_ptxas

    log = (
        "ptxas info    : Compiling entry function '_Z6kernelPf' for 'sm_120a'\n"
        "ptxas info    : Used 32 registers, used 1 barriers, 380 bytes cmem[0]\n"
    )
    (kernel,) = parse_ptxas(log)
    assert kernel.cc == "12.0"


# --- occupancy on the new CCs (H13 values) ---------------------------------------------------


def test_cc_12_0_block_256_regs_32():
    """H13: 6 blocks, 100 %. By hand: 8 warps per block into 48 warp slots = 6 blocks; registers
    allow 65536 / (8 x 1024) = 8."""
    res = occupancy_json("--cc", "12.0", "--block", "256", "--regs", "32")
    assert (res["active_blocks_per_sm"], res["active_warps_per_sm"], res["occupancy"]) == (6, 48, 1.0)
    assert res["limiters"] == ["warps"]


def test_cc_10_0_block_224_regs_92():
    """H13: 2 blocks, 21.875 %. By hand: 92 x 32 = 2944 -> 3072 registers per warp; 7 warps round
    to 8 for the sub-partition check (24576 <= 65536); 16384 / 3072 = 5 warps per sub-partition,
    x 4 = 20 warps, // 7 = 2 blocks = 14 of 64 warps."""
    res = occupancy_json("--cc", "10.0", "--block", "224", "--regs", "92")
    assert (res["active_blocks_per_sm"], res["occupancy"]) == (2, 0.21875)
    assert res["limiters"] == ["registers"]


def test_cc_11_0_limited_by_blocks_and_barriers():
    """H13: 24 blocks, 50 %, limiting factors 0x18 (blocks, barriers). By hand: 24 blocks per SM
    on 11.0, 24 x 1 barriers; 8192 + 1024 reserved = 9216 B into 228 KB allows 25."""
    res = occupancy_json("--cc", "11.0", "--block", "32", "--regs", "10", "--dyn-smem", "8192")
    assert (res["active_blocks_per_sm"], res["occupancy"]) == (24, 0.5)
    assert res["limiters"] == ["blocks", "barriers"]


def test_cc_12_0_dynamic_shared_memory_above_optin_fits_nothing():
    """H13: 0 blocks (103424 B > 99 KB opt-in + 1 KB reserve). perfcalc says why, exit 0."""
    result = invoke("occupancy", "--cc", "12.0", "--block", "128", "--regs", "10", "--dyn-smem", "102400")
    assert result.exit_code == 0, result.output
    assert "no block fits on an SM" in result.stdout
    assert "103424" in result.stdout and "102400-byte per-block limit" in result.stdout
    assert "devices/cc_12_0.yaml" in result.stdout


def test_volta_dynamic_shared_memory_above_optin_is_zero_not_an_error():
    """The same rule on 7.0 (98304 opt-in, no reserve): 96 KB + 1 KB static = 99328 B."""
    res = perfcalc.occupancy("7.0", 256, 32, 1024, 96 * 1024)
    assert res.active_blocks_per_sm == 0 and res.limiters == ("shared_memory",)


@pytest.mark.parametrize("cc", ["10.7", "10.1", "13.0"])
def test_ccs_cuda_13_does_not_know_fail_loudly(cc):
    """H13 returns CUDA_OCC_ERROR_UNKNOWN_DEVICE for 10.1 (renumbered 11.0) and 10.7 (Rubin)."""
    result = invoke("occupancy", "--cc", cc, "--block", "128", "--regs", "10")
    assert result.exit_code == 2
    assert "known: 1.0" in result.output and "12.1" in result.output
    assert len(result.output.strip().splitlines()) == 1
    if cc == "10.1":
        assert "renumbered CC 10.1 as 11.0" in result.output


def test_virtual_resources_limit_blocks_on_10_x_only():
    """H13 cudaOccMaxBlocksPerSMVirtualResource: 128 per SM on majors 10-12; 50 per block -> 2."""
    res = perfcalc.occupancy("10.0", 64, 16, virtual_resources=50)
    assert (res.active_blocks_per_sm, res.limiters) == (2, ("virtual_resources",))
    assert perfcalc.occupancy("9.0", 64, 16, virtual_resources=50).active_blocks_per_sm == 32


# --- products ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key",
    [
        "b200",
        "gb200",
        "b300",
        "gb300",
        "rtx5090",
        "rtx5080",
        "rtx-pro-6000",
        "dgx-spark",
        "jetson-agx-thor",
        "h200",
        "l4",
        "l40s",
        "a10",
        "a40",
        "rtx4080",
        "rtx4070",
        "rtx3080",
    ],
)
def test_issue_products_ship(key):
    gpu = get_gpu(key)
    assert gpu.cc in known_ccs()
    assert gpu.sources


def test_b200_flag_is_kept_in_the_notes():
    """blackwell.md section 4: 75 TF (TechPowerUp-derived) vs NVIDIA's 80 TF must stay visible."""
    notes = get_gpu("b200").notes
    assert "80 TF" in notes and "75 TF" in notes


def test_devices_lists_every_cc_and_product_in_every_format():
    data = json.loads(invoke("devices", "--format", "json").stdout)
    assert [r["cc"] for r in data["compute_capabilities"]] == list(known_ccs())
    assert {p["key"] for p in data["products"]} >= {"b200", "dgx-spark", "rtx5090"}
    csv = invoke("devices", "--format", "csv").stdout
    assert "12.1" in csv and "dgx-spark" in csv
    for fmt in ("table", "markdown"):
        out = invoke("devices", "--format", fmt).stdout
        assert "12.1" in out and "jetson-agx-thor" in out
    assert invoke("devices", "show", "b200").exit_code == 0
    assert "12.1" in invoke("devices", "show", "12.1").stdout


def test_users_own_product_file(tmp_path):
    """--gpu my_gpu.yaml: the shipped schema and validation, one product per file."""
    shipped = yaml.safe_load((devices_dir() / "products.yaml").read_text())
    mine = next(p for p in shipped["products"] if p["key"] == "rtx5090")
    mine = {**mine, "key": "my5090", "name": "My RTX 5090", "aliases": []}
    path = tmp_path / "my_gpu.yaml"
    path.write_text(yaml.safe_dump({"schema_version": 1, "sources": shipped["sources"], "products": [mine]}))
    arch, gpu = resolve_device(str(path))
    assert (arch.cc, gpu.key) == ("12.0", "my5090")
    result = invoke("roofline", "--gpu", str(path))
    assert result.exit_code == 0, result.output
    mine["peak_fp32_gflops"] = 1.0
    path.write_text(yaml.safe_dump({"schema_version": 1, "sources": shipped["sources"], "products": [mine]}))
    result = invoke("roofline", "--gpu", str(path))
    assert result.exit_code == 2 and "peak_fp32_gflops" in result.output


# --- the next CC is one file -------------------------------------------------------------------


def test_a_new_cc_is_one_yaml_file(small_device):
    made_up_cc_13 = small_device  # tests/conftest.py: cc_12_0.yaml as CC 13.0
    """occupancy, coalesce and run all work on it, and every limit message cites that file."""
    occ = occupancy_json("--cc", str(made_up_cc_13), "--block", "256", "--regs", "32")
    assert occ["active_blocks_per_sm"] == 6
    coalesce = invoke("coalesce", "--cc", str(made_up_cc_13), "--stride", "2", "--format", "json")
    assert coalesce.exit_code == 0, coalesce.output
    assert json.loads(coalesce.stdout)["results"][0]["cost"]["transaction_count"] == 8
    run = invoke("run", "copy_offset", "--cc", str(made_up_cc_13), "--format", "json")
    assert run.exit_code == 0, run.output
    doc = json.loads(run.stdout)
    assert doc["result_check"]["passed"] is True and doc["cc"] == "13.0"
    assert all(doc["match"].values()), doc["match"]
    bad = invoke("occupancy", "--cc", str(made_up_cc_13), "--block", "2048", "--regs", "32")
    assert bad.exit_code == 2 and str(made_up_cc_13) in bad.output
    assert "devices/cc_9_0.yaml" not in bad.output


def test_shipping_a_new_cc_needs_no_code_change(tmp_path, monkeypatch):
    """Dropped into a copy of devices/, cc_13_0.yaml is listed and looked up like the others."""
    from perfcalc.specs import registry

    devices = tmp_path / "devices"
    shutil.copytree(devices_dir(), devices)
    data = yaml.safe_load((devices / "cc_12_0.yaml").read_text())
    data["cc"] = "13.0"
    (devices / "cc_13_0.yaml").write_text(yaml.safe_dump(data))
    monkeypatch.setattr(registry, "devices_dir", lambda: Path(devices))
    for cached in (registry.known_ccs, registry._get_arch, registry.all_gpus):
        cached.cache_clear()
    try:
        assert registry.known_ccs()[-1] == "13.0"
        assert registry.get_arch("sm_130").cc == "13.0"
        assert perfcalc.occupancy("130", 256, 32).active_blocks_per_sm == 6
    finally:
        for cached in (registry.known_ccs, registry._get_arch, registry.all_gpus):
            cached.cache_clear()


def test_unknown_cc_error_lists_the_new_ones():
    with pytest.raises(UnknownDeviceError, match=r"12\.1"):
        get_arch("13.0")


# --- occupancy extras: minimum grid, block-dependent shared memory, waves --------------------


def test_suggest_with_a_product_gives_the_minimum_grid():
    """cuda_occupancy.h cudaOccMaxPotentialOccupancyBlockSize: minGridSize = blocks per SM x
    numSms. B200, 32 registers: 1024-thread blocks, 2 per SM (64 warps), x 148 SMs = 296."""
    data = json.loads(invoke("occupancy", "--gpu", "b200", "--regs", "32", "--suggest", "--format", "json").stdout)
    data = data["suggestion"]
    assert (data["block_size"], data["active_blocks_per_sm"]) == (1024, 2)
    assert (data["gpu"], data["sm_count"], data["min_grid_size"]) == ("b200", 148, 296)


def test_dynamic_shared_memory_as_a_function_of_the_block_size():
    """--dyn-smem 'block*100' is cudaOccupancyMaxPotentialBlockSizeVariableSMem's function: the
    CLI's pick equals suggest_block_size with the same lambda, and a single configuration is
    evaluated at its own block size (256 x 100 = 25600 bytes)."""
    from perfcalc.model.occupancy_suggest import suggest_block_size

    cli = json.loads(
        invoke(
            "occupancy", "--cc", "8.6", "--regs", "40", "--suggest", "--dyn-smem", "block*100", "--format", "json"
        ).stdout
    )["suggestion"]
    lib = suggest_block_size("8.6", 40, dynamic_shared_memory_bytes=lambda b: b * 100)
    assert (cli["block_size"], cli["active_blocks_per_sm"]) == (lib.block_size, lib.active_blocks_per_sm)
    one = occupancy_json("--cc", "8.6", "--block", "256", "--regs", "40", "--dyn-smem", "block*100")
    assert one["inputs"]["dynamic_shared_memory_bytes"] == 25600
    bad = invoke("occupancy", "--cc", "8.6", "--block", "256", "--regs", "40", "--dyn-smem", "warp*2")
    assert bad.exit_code == 2 and "'block'" in bad.output


def test_waves_and_the_tail_of_the_last_wave():
    """H100 SXM, 256 threads x 64 registers: 4 blocks per SM (registers) x 132 SMs = 528 blocks
    per wave; 1000 blocks = 1 full wave + 472 (89.4 % of a wave); average fill 1000 / 1056."""
    data = json.loads(
        invoke(
            "occupancy", "--gpu", "h100-sxm", "--block", "256", "--regs", "64", "--grid", "1000", "--format", "json"
        ).stdout
    )["waves"]
    assert (data["blocks_per_wave"], data["waves"], data["full_waves"], data["tail_blocks"]) == (528, 2, 1, 472)
    assert data["tail_fill"] == pytest.approx(472 / 528)
    assert data["average_fill"] == pytest.approx(1000 / 1056)
    assert invoke("occupancy", "--cc", "9.0", "--block", "256", "--regs", "64", "--grid", "1000").exit_code == 2
