"""Device data: every shipped file loads, look-ups accept the usual spellings, bad files fail clearly."""

from pathlib import Path

import pytest
import yaml

from perfcalc.errors import SpecError, UnknownDeviceError
from perfcalc.specs import all_archs, get_arch, known_ccs, load_arch_file, resolve_arch
from perfcalc.specs.registry import devices_dir

# The 24 CCs issue #2 asks for, and the five of issue #10 (CUDA 13's cuda_occupancy.h knows them).
ISSUE_CCS = [
    "1.0",
    "1.1",
    "1.2",
    "1.3",
    "2.0",
    "2.1",
    "3.0",
    "3.2",
    "3.5",
    "3.7",
    "5.0",
    "5.2",
    "5.3",
    "6.0",
    "6.1",
    "6.2",
    "7.0",
    "7.2",
    "7.5",
    "8.0",
    "8.6",
    "8.7",
    "8.9",
    "9.0",
    "10.0",
    "10.3",
    "11.0",
    "12.0",
    "12.1",
]
REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "cc_limits.yaml"
REFERENCE_10_12 = REFERENCE.with_name("cc_10_12.yaml")


def test_all_29_compute_capabilities_ship():
    assert known_ccs() == tuple(ISSUE_CCS)
    assert [a.cc for a in all_archs()] == ISSUE_CCS


@pytest.mark.parametrize("spelling", ["7.0", "70", "sm_70", "SM_70", "compute_70", 7.0])
def test_lookup_spellings(spelling):
    assert get_arch(spelling).cc == "7.0"


def test_unknown_cc_lists_the_known_ones():
    with pytest.raises(UnknownDeviceError, match=r"unknown compute capability '4\.0'; known: 1\.0, 1\.1"):
        get_arch("4.0")


@pytest.mark.skipif(not REFERENCE.exists(), reason="shared/reference/cc_limits.yaml not beside this checkout")
@pytest.mark.parametrize("cc", ISSUE_CCS[:24])
def test_limits_match_the_sourced_reference(cc):
    """Each device file carries the sourced values of reference/cc_limits.yaml (key renames only)."""
    ref = yaml.safe_load(REFERENCE.read_text())["cc"][cc]
    a = get_arch(cc)
    assert a.max_warps_per_sm == ref["max_warps_per_sm"]
    assert a.max_blocks_per_sm == ref["max_blocks_per_sm"]
    assert a.registers_per_sm == ref["registers_per_sm"]
    assert a.max_registers_per_block == ref["max_registers_per_block"]
    assert a.max_registers_per_thread == ref["max_registers_per_thread"]
    assert a.register_allocation_unit == ref["register_allocation_unit_size"]
    assert a.shared_memory_per_sm_bytes == ref["shared_memory_per_sm"]
    assert a.max_shared_memory_per_block_bytes == ref["max_shared_memory_per_block"]["default"]
    assert a.max_shared_memory_per_block_optin_bytes == ref["max_shared_memory_per_block"]["optin"]
    assert a.reserved_shared_memory_per_block_bytes == ref["reserved_shared_memory_per_block"]
    assert a.shared_memory_allocation_unit_bytes == ref["shared_memory_allocation_unit_size"]
    carve = ref["carveout_kb"]
    assert a.shared_memory_carveouts_kb == (tuple(carve) if carve else None)
    assert a.shared_memory_banks == ref["shared_memory_banks"]


@pytest.mark.skipif(not REFERENCE_10_12.exists(), reason="shared/reference/cc_10_12.yaml not beside this checkout")
@pytest.mark.parametrize("cc", ["10.0", "10.3", "11.0", "12.0", "12.1"])
def test_blackwell_limits_match_the_sourced_reference(cc):
    """Issue #10: CC 10.0-12.1 carry reference/cc_10_12.yaml's values (NCU, CCCL, H13), with the
    flags resolved as the device files' CHOSEN lines say (255 registers, CCCL's opt-in)."""
    ref = yaml.safe_load(REFERENCE_10_12.read_text())["cc"][cc]
    a = get_arch(cc)
    for key in (
        "max_warps_per_sm",
        "max_threads_per_sm",
        "max_blocks_per_sm",
        "registers_per_sm",
        "max_registers_per_block",
        "max_registers_per_thread",
        "sub_partitions",
        "block_barriers_per_sm",
        "virtual_resources_per_sm",
        "warp_size",
        "max_threads_per_block",
    ):
        assert getattr(a, key) == ref[key], key
    assert a.shared_memory_per_sm_bytes == ref["shared_memory_per_sm"]
    assert a.max_shared_memory_per_block_bytes == ref["default_max_shared_memory_per_block"]
    assert a.max_shared_memory_per_block_optin_bytes == ref["max_shared_memory_per_block_optin"]
    assert a.reserved_shared_memory_per_block_bytes == ref["reserved_shared_memory_per_block"]
    assert a.shared_memory_allocation_unit_bytes == ref["shared_memory_allocation_unit_size"]
    assert a.register_allocation_unit == ref["register_allocation_unit_size"]
    assert a.shared_memory_carveouts_kb == tuple(ref["carveout_kb"])
    assert a.unified_l1_shared_kb == ref["unified_l1_shared_kb"]
    assert (a.max_block_dim, a.max_grid_dim) == (tuple(ref["max_block_dim"]), tuple(ref["max_grid_dim"]))


def test_well_known_limits():
    """Spot values from the CUDA programming guides (PG4 Table F-2, PG11/PG13 tables)."""
    g80 = get_arch("1.0")
    assert (g80.max_threads_per_sm, g80.max_threads_per_block, g80.shared_memory_per_sm_bytes) == (768, 512, 16384)
    assert get_arch("8.6").max_warps_per_sm == 48
    assert get_arch("9.0").shared_memory_per_sm_bytes == 228 * 1024
    assert get_arch("3.0").bank_widths_bytes == (4, 8)


def _write(tmp_path, data, name="cc_7_0.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


def _shipped(cc="7.0"):
    return yaml.safe_load((devices_dir() / f"cc_{cc.replace('.', '_')}.yaml").read_text())


def test_user_device_file_same_validation(tmp_path):
    data = _shipped()
    data["architecture"] = "my what-if Volta"
    assert resolve_arch(str(_write(tmp_path, data))).architecture == "my what-if Volta"


def test_device_file_with_the_older_key_name_still_loads(tmp_path):
    """Files written before #11's one vocabulary say `compute_capability:`; they load as `cc`."""
    data = _shipped()
    data["compute_capability"] = data.pop("cc")
    assert load_arch_file(_write(tmp_path, data)) == get_arch("7.0")


def test_unknown_key_is_an_error(tmp_path):
    data = _shipped()
    data["max_wraps_per_sm"] = 64
    with pytest.raises(SpecError, match="unknown key 'max_wraps_per_sm'"):
        load_arch_file(_write(tmp_path, data))


def test_missing_key_is_an_error(tmp_path):
    data = _shipped()
    del data["registers_per_sm"]
    with pytest.raises(SpecError, match="missing key 'registers_per_sm'"):
        load_arch_file(_write(tmp_path, data))


def test_inconsistent_limits_are_an_error(tmp_path):
    data = _shipped()
    data["max_threads_per_sm"] = 2000
    with pytest.raises(SpecError, match="max_threads_per_sm"):
        load_arch_file(_write(tmp_path, data))


def test_wrong_type_is_an_error(tmp_path):
    data = _shipped()
    data["warp_size"] = "32"
    with pytest.raises(SpecError, match="warp_size must be a non-negative integer"):
        load_arch_file(_write(tmp_path, data))


def test_file_name_must_match_cc(tmp_path):
    with pytest.raises(SpecError, match="does not match cc"):
        load_arch_file(_write(tmp_path, _shipped("7.0"), name="cc_7_5.yaml"))


def test_malformed_yaml_names_the_file(tmp_path):
    path = tmp_path / "cc_7_0.yaml"
    path.write_text("warp_size: [32\n")
    with pytest.raises(SpecError, match="not valid YAML"):
        load_arch_file(path)
