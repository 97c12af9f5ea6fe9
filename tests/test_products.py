"""GPU products (devices/products.yaml): data against the research table, look-up, validation.

Expected values come from ../shared/reference/products.yaml (the row named in each test) and the
ridge-point table of ../shared/reference/perfmodel.md section a1.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from perfcalc.errors import SpecError, UnknownDeviceError
from perfcalc.specs import (
    all_gpus,
    get_arch,
    get_gpu,
    known_ccs,
    known_gpus,
    load_products_file,
    resolve_arch,
    resolve_device,
)
from perfcalc.specs.registry import devices_dir

# Issue #5's list, with the CC each row has in reference/products.yaml.
REQUIRED = {
    "g80": "1.0",
    "gtx280": "1.3",
    "c2050": "2.0",
    "gtx580": "2.0",
    "gt640": "3.0",
    "gtx680": "3.0",
    "gtx780": "3.5",
    "k40": "3.5",
    "gtx980": "5.2",
    "p100": "6.0",
    "gtx1080": "6.1",
    "v100": "7.0",
    "t4": "7.5",
    "a100": "8.0",
    "rtx3090": "8.6",
    "rtx4090": "8.9",
    "l40": "8.9",
    "h100-sxm": "9.0",
    "h100-pcie": "9.0",
}


def test_every_required_product_is_shipped_with_its_cc():
    """Issue #5 build step 1 lists these products; CCs from reference/products.yaml."""
    for key, cc in REQUIRED.items():
        assert get_gpu(key).cc == cc, key
    assert set(REQUIRED) <= set(known_gpus())


def test_every_product_cc_has_a_device_file():
    """A product brings its CC, so that CC's limits must exist (devices/cc_X_Y.yaml)."""
    for gpu in all_gpus():
        assert gpu.cc in known_ccs(), gpu.key


def test_g80_matches_the_seed_and_the_reference_row():
    """reference/products.yaml 'GeForce 8800 GTX': 16 SMs x 8 SPs at the 1350 MHz shader clock,
    345.6 GFLOPS (MAD), 86.4 GB/s, no L2 for global memory (texture-only)."""
    g = get_gpu("g80")
    assert (g.sm_count, g.fp32_cores_per_sm, g.peak_clock_mhz) == (16, 8, 1350)
    assert g.peak_clock_basis == "shader clock"
    assert g.peak_fp32_gflops == 345.6
    assert g.peak_fp32_mad_plus_mul_gflops == 518.4
    assert g.memory_bandwidth_gbs == 86.4
    assert g.l2_cache_kb == 0


@pytest.mark.parametrize(
    ("key", "ridge"),
    [
        ("g80", 4.0),
        ("c2050", 7.2),
        ("gt640", 24.3),
        ("gtx680", 16.1),
        ("gtx780", 13.8),
        ("p100", 14.5),
        ("v100", 17.4),
        ("t4", 25.4),
        ("a100", 12.5),
        ("rtx3090", 38.0),
        ("rtx4090", 81.9),
        ("h100-sxm", 20.0),
        ("h200", 13.9),
    ],
)
def test_ridge_points_match_perfmodel_table(key, ridge):
    """perfmodel.md a1 table: ridge = peak FP32 / bandwidth, printed to one decimal."""
    assert round(get_gpu(key).ridge_flop_per_byte, 1) == ridge


def test_peaks_are_units_times_two_times_the_stated_clock():
    """K40: NVIDIA's 4.29 / 1.43 TF = 15 SMX x 192 (64 FP64) x 2 x 0.745 GHz (base clock);
    H100 SXM: 132 x 128 x 2 x 1.98 GHz = 66908.16 GFLOPS (reference rows)."""
    k40 = get_gpu("k40")
    assert k40.peak_clock_basis == "base clock" and k40.peak_clock_mhz == 745
    assert k40.peak_fp32_gflops == pytest.approx(15 * 192 * 2 * 0.745, abs=0.05)
    assert k40.peak_fp64_gflops == pytest.approx(15 * 64 * 2 * 0.745, abs=0.05)
    h100 = get_gpu("h100-sxm")
    assert h100.peak_fp32_gflops == pytest.approx(132 * 128 * 2 * 1.98, abs=0.05)
    assert h100.tensor_clock_mhz == 1830


@pytest.mark.parametrize("spelling", ["v100", "V100", "Tesla V100", "tesla-v100", "V100_SXM2"])
def test_product_names_ignore_case_and_separators(spelling):
    """Issue #5: a product name (case-insensitive) works wherever a CC does and brings its CC."""
    assert resolve_arch(spelling).cc == "7.0"


def test_resolve_device_keeps_cc_spellings_and_returns_the_product():
    arch, gpu = resolve_device("h100-sxm")
    assert arch.cc == "9.0" and gpu is not None and gpu.sm_count == 132
    for cc in ("7.0", "70", "sm_70"):
        arch, gpu = resolve_device(cc)
        assert arch == get_arch("7.0") and gpu is None


def test_unknown_device_names_the_value_and_the_known_ones():
    with pytest.raises(UnknownDeviceError, match=r"'gtx9999'.*g80.*h100-sxm"):
        resolve_arch("gtx9999")
    with pytest.raises(UnknownDeviceError, match=r"unknown GPU 'nope'; known: g80"):
        get_gpu("nope")


def _write_products(tmp_path: Path, change) -> Path:
    data = yaml.safe_load((devices_dir() / "products.yaml").read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / "products.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_a_peak_that_does_not_match_its_clock_is_rejected(tmp_path):
    """GTX 680: 3250 GFLOPS is the boost-clock figure; claiming it at the 1006 MHz base clock is
    the base/boost mix-up perfmodel.md d3 warns about (8 x 192 x 2 x 1.006 = 3090.4)."""

    def change(d):
        next(p for p in d["products"] if p["key"] == "gtx680")["peak_fp32_gflops"] = 3250.2

    with pytest.raises(SpecError, match=r"gtx680.*peak_fp32_gflops \(3250.2\).*3090.4"):
        load_products_file(_write_products(tmp_path, change))


def test_unknown_key_missing_key_and_unknown_source_are_named(tmp_path):
    def typo(d):
        d["products"][0]["memory_bandwith_gbs"] = 1

    with pytest.raises(SpecError, match="unknown key 'memory_bandwith_gbs'"):
        load_products_file(_write_products(tmp_path, typo))

    def missing(d):
        del d["products"][0]["sm_count"]

    with pytest.raises(SpecError, match="missing key 'sm_count'"):
        load_products_file(_write_products(tmp_path, missing))

    def bad_source(d):
        d["products"][0]["sources"] = ["S-NOWHERE"]

    with pytest.raises(SpecError, match="'S-NOWHERE' is not in the file's sources legend"):
        load_products_file(_write_products(tmp_path, bad_source))


def test_two_products_cannot_share_a_name(tmp_path):
    def clash(d):
        d["products"][1]["aliases"] = ["G80"]

    with pytest.raises(SpecError, match="'g80' of product 'c870' already names product 'g80'"):
        load_products_file(_write_products(tmp_path, clash))
