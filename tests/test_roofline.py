"""Roofline, ceilings and the time model (perfcalc.model.roofline, perfcalc.model.timing).

Sources: ../shared/reference/perfmodel.md (a1 roofline and ridge table, a2 ERT-measured V100
ceilings, b4 Little's law worked example) and the CUDA C Programming Guide's shared-memory bank
bandwidth per CC (quoted in perfcalc/model/roofline.py).
"""

from __future__ import annotations

import pytest

from perfcalc.errors import InputError
from perfcalc.model.roofline import attainable, cgma, intensity, place, roofline
from perfcalc.model.timing import time_lower_bound
from perfcalc.specs import get_arch, get_gpu, resolve_device


def _roof(key):
    arch, gpu = resolve_device(key)
    return roofline(gpu, arch)


def test_attainable_is_min_of_peak_and_intensity_times_bandwidth():
    """Roofline (perfmodel.md a1) on V100 (15667.2 GFLOPS, 900 GB/s): ridge 17.4 flop/B;
    I = 1 -> 900 GFLOPS memory-bound; I = 100 -> the peak, compute-bound."""
    roof = _roof("v100")
    low, high = place(roof, 1.0), place(roof, 100.0)
    assert roof.ridge_flop_per_byte == pytest.approx(15667.2 / 900)
    assert (low.attainable_gflops, low.bound) == (900.0, "memory")
    assert (high.attainable_gflops, high.bound) == (15667.2, "compute")
    assert low.fraction_of_peak == pytest.approx(900 / 15667.2)


def test_at_the_ridge_point_both_roofs_meet():
    """I* = peak / bandwidth: G80 345.6 / 86.4 = 4.0 flop/B (perfmodel.md a1 table)."""
    point = attainable(4.0, 345.6, 86.4)
    assert point.bandwidth_bound_gflops == pytest.approx(345.6)
    assert point.ridge_flop_per_byte == pytest.approx(4.0)
    assert point.bound == "compute"


def test_cgma_and_intensity_definitions():
    """Seed 003: the naive kernel does 2*Width calculations per 2*Width global accesses: CGMA 1,
    i.e. 0.25 flop/B at 4 B per access."""
    assert cgma(2 * 1024, 2 * 1024) == 1
    assert intensity(2 * 1024, 4 * 2 * 1024) == 0.25


def test_shared_memory_ceiling_follows_bank_bandwidth():
    """Programming Guide bank bandwidth: 1.x 16 banks x 32 bits per 2 clocks; 5.x+ 32 banks x
    32 bits per clock. G80: 16 SMs x 16 x 2 B x 1.35 GHz = 691.2 GB/s; V100: 80 x 32 x 4 B x
    1.53 GHz = 15667.2 GB/s, which the ERT measured at 14336 GB/s (perfmodel.md a2, 91.5 %)."""
    shared = {c.name: c.value for c in _roof("g80").ceilings}["shared memory"]
    assert shared == pytest.approx(691.2)
    v100 = {c.name: c.value for c in _roof("v100").ceilings}
    assert v100["shared memory"] == pytest.approx(15667.2)
    assert 14336 / v100["shared memory"] == pytest.approx(0.915, abs=0.005)
    assert v100["L2 (measured)"] == 2996.77


def test_compute_ceilings_include_fp64_no_fma_and_tensor():
    """V100 (products.yaml): FP64 80 x 32 x 2 x 1.53 GHz = 7833.6; no-FMA roof = half the FMA
    roof (perfmodel.md a2); dense FP16 tensor 125337.6. G80 has no FP64 (CC 1.0)."""
    v100 = {c.name: c.value for c in _roof("v100").ceilings}
    assert v100["FP64 peak"] == pytest.approx(7833.6)
    assert v100["FP32 no FMA"] == pytest.approx(15667.2 / 2)
    assert v100["FP16 tensor (dense)"] == 125337.6
    assert "FP64 peak" not in {c.name for c in _roof("g80").ceilings}


def test_roofline_refuses_a_product_on_the_wrong_cc():
    with pytest.raises(InputError, match="v100 is CC 7.0, not 9.0"):
        roofline(get_gpu("v100"), get_arch("9.0"))


@pytest.mark.parametrize("bad", [0, -1.0])
def test_nonpositive_intensity_is_refused(bad):
    with pytest.raises(InputError, match="intensity must be > 0"):
        attainable(bad, 100, 10)


def test_time_lower_bound_is_the_larger_of_compute_and_memory_time():
    """T >= max(F / peak, B / bandwidth) (perfmodel.md a1). G80 naive W=1024: F = 2^31 flops,
    B = 4 x (2^31 + 2^20) bytes; memory time 8.59e9 / 86.4e9 = 0.0994 s > compute 0.0062 s."""
    flops, moved = 2 * 1024**3, 4 * (2 * 1024**3 + 1024**2)
    assert time_lower_bound(flops, moved, 345.6, 86.4) == pytest.approx(moved / 86.4e9)
    assert time_lower_bound(flops, 1.0, 345.6, 86.4) == pytest.approx(flops / 345.6e9)
