"""Roofline, ceilings and the time model (perfcalc.model.roofline, perfcalc.model.timing).

Sources: ../shared/reference/perfmodel.md (a1 roofline and ridge table, a2 ERT-measured V100
ceilings, b4 Little's law worked example) and the CUDA C Programming Guide's shared-memory bank
bandwidth per CC (quoted in perfcalc/model/roofline.py).
"""

from __future__ import annotations

import pytest

from perfcalc.errors import InputError
from perfcalc.model.roofline import attainable, cgma, intensity, place, roofline
from perfcalc.model.timing import estimate_time, time_lower_bound
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
    flops, moved = 2 * 1024 ** 3, 4 * (2 * 1024 ** 3 + 1024 ** 2)
    assert time_lower_bound(flops, moved, 345.6, 86.4) == pytest.approx(moved / 86.4e9)
    assert time_lower_bound(flops, 1.0, 345.6, 86.4) == pytest.approx(flops / 345.6e9)


def _h100(warps, **kw):
    args = dict(flops=1e9, dram_bytes=1e9, peak_gflops=66908.2, bandwidth_gbs=3352,
                clock_mhz=1980, sm_count=132, active_warps_per_sm=warps, active_blocks_per_sm=1,
                blocks=132, bytes_per_warp_request=128, latency_cycles=600)
    args.update(kw)
    return estimate_time(**args)


def test_littles_law_matches_the_h100_worked_example():
    """perfmodel.md b4: H100 SXM 3352 GB/s / 132 SMs / 1.98 GHz = 12.8 B per cycle per SM; x 600
    cycles = 7.7 KB in flight per SM = 60 coalesced 128-byte warp loads, close to the 64-warp
    limit. So 64 warps with one load each hide the latency; 32 warps hide 32 / 60.1 of it."""
    full = _h100(64)
    per_sm = full.bytes_in_flight_needed / 132
    assert per_sm / 600 == pytest.approx(12.8, abs=0.05)
    assert per_sm / 128 == pytest.approx(60.1, abs=0.05)
    assert full.latency_hiding == 1.0 and full.limited_by == "memory bandwidth"
    half = _h100(32)
    assert half.latency_hiding == pytest.approx(32 / (per_sm / 128))
    assert half.limited_by == "memory latency"
    assert half.estimated_time_s == pytest.approx(full.memory_time_s / half.latency_hiding)


def test_partial_last_wave_stretches_the_estimate():
    """133 blocks at 1 block per SM on 132 SMs take 2 waves; the second is 1/132 full, so the
    efficiency is 133 / 264 and the time doubles (less one block's worth)."""
    one = _h100(64, blocks=132)
    two = _h100(64, blocks=133)
    assert (one.waves, two.waves) == (1, 2)
    assert two.wave_efficiency == pytest.approx(133 / 264)
    assert two.estimated_time_s == pytest.approx(one.estimated_time_s * 264 / 133)


def test_a_kernel_that_cannot_launch_has_no_time():
    with pytest.raises(InputError, match="0 blocks fit on an SM"):
        _h100(0, active_blocks_per_sm=0)


def test_lower_bound_uses_compulsory_bytes_and_the_estimate_transaction_bytes():
    """A cache can at best read each input once (perfmodel.md a1 'bytes moved to/from that
    level'), so the bound uses the compulsory bytes; the estimate uses the transaction bytes.
    10 GB of transactions, 1 GB compulsory, 3352 GB/s: bound 0.298 ms, estimate 2.98 ms."""
    t = _h100(64, flops=1.0, dram_bytes=10e9, compulsory_bytes=1e9)
    assert t.lower_bound_s == pytest.approx(1e9 / 3352e9)
    assert t.estimated_time_s == pytest.approx(10e9 / 3352e9)


def test_shared_memory_time_counts_wavefronts_per_sm_clock():
    """One wavefront per SM per bank cycle (Programming Guide: a bank serves 32 bits per clock
    on 5.x+, per two clocks on 1.x/2.x). 132 SMs x 1.98 GHz: 2.6136e11 wavefronts/s, so
    2.6136e8 wavefronts take 1 ms, twice that at 2 cycles each."""
    t = _h100(64, flops=1.0, dram_bytes=1.0, shared_wavefronts=2.6136e8)
    assert t.shared_time_s == pytest.approx(1e-3)
    assert t.limited_by == "shared memory" and t.estimated_time_s == pytest.approx(1e-3)
    assert _h100(64, shared_wavefronts=2.6136e8, cycles_per_wavefront=2).shared_time_s == (
        pytest.approx(2e-3))
