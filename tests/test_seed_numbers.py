"""The seeds' matrix-multiply numbers, reproduced by the model (issue #5 acceptance).

Seed 000 = ../shared/seeds/000_*.txt (Kirk & Hwu, "CUDA Memories", G80); seed 003 =
../shared/seeds/003_*.txt (COMP 4901Q lecture 8, GT 640 / GTX 780 timings). Cross-checks from
../shared/reference/perfmodel.md section c.
"""

from __future__ import annotations

import pytest

from perfcalc.model.matmul import analyze_matmul, catalog_counts
from perfcalc.model.roofline import bandwidth_needed_gbs, cgma_bound_gflops
from perfcalc.specs import get_gpu, resolve_device


@pytest.fixture(scope="module")
def g80_1024():
    arch, gpu = resolve_device("g80")
    return analyze_matmul(1024, 16, arch, gpu, predicted=catalog_counts(1024, 16, arch))


def test_two_accesses_eight_bytes_per_multiply_add(g80_1024):
    """Seed 000: 'Two memory accesses (8 bytes) per floating point multiply-add'."""
    naive = g80_1024.variant("naive")
    multiply_adds = naive.flops_total / 2
    assert naive.global_loads_total / multiply_adds == 2
    assert 4 * naive.global_loads_total / multiply_adds == 8


def test_peak_rating_needs_1386_gb_per_s():
    """Seed 000: '4 * 346.5 = 1386 GB/s required to achieve peak FLOP rating' (4 B per flop).
    With the G80's actual MAD peak 345.6 (products.yaml) the same rule gives 4 x 345.6 = 1382.4."""
    assert bandwidth_needed_gbs(346.5, 4) == pytest.approx(1386.0)
    assert bandwidth_needed_gbs(get_gpu("g80").peak_fp32_gflops, 4) == pytest.approx(1382.4)


def test_naive_kernel_is_limited_to_21_6_gflops(g80_1024):
    """Seed 000: '86.4 GB/s limits the code at 21.6 GFLOPS' = 86.4 / 4 B x CGMA 1.

    The requested-bytes intensity also counts the W^2 result stores: 2W^3 / (4 (2W^3 + W^2))
    = 0.25 x 2W / (2W + 1). The roofline's (as `perfcalc roofline` computes it) counts the bytes
    CC 1.0's transactions move, far more than requested: the naive kernel's Md reads are 16
    transactions of 32 B per half-warp (memory.md 1.1), so at W = 1024 it is 2^31 flops /
    (576 x 2^26 + 2^22) B = 0.0556 flop/B and the roofline allows 4.80 GFLOPS, not 21.6."""
    naive = g80_1024.variant("naive")
    assert naive.cgma == 1
    assert cgma_bound_gflops(86.4, 1) == pytest.approx(21.6)
    assert naive.cgma_bound_gflops == pytest.approx(21.6)
    assert naive.intensity_flop_per_requested_byte == pytest.approx(0.25 * 2048 / 2049)
    assert naive.bandwidth_bound_gflops == pytest.approx(86.4 * 2**31 / (576 * 2**26 + 2**22))
    assert naive.bound == "memory"


def test_16x16_tiles_512_loads_per_8192_mul_adds(g80_1024):
    """Seed 000: 'Each thread block perform 2*256 = 512 float loads from global memory for
    256 * (2*16) = 8,192 mul/add operations' (per phase), so CGMA = 8192 / 512 = 16."""
    tiled = g80_1024.variant("tiled")
    assert tiled.threads_per_block == 256
    assert tiled.global_loads_per_block_per_phase == 512
    assert tiled.flops_per_block_per_phase == 8192
    assert tiled.cgma == 16


def test_tiled_bound_is_345_6_not_the_printed_347_6(g80_1024):
    """Seed 000: 'The 86.4B/s bandwidth can now support (86.4/4)*16 = 347.6 GFLOPS!'.
    The arithmetic: 86.4 / 4 = 21.6, 21.6 x 16 = 345.6; the printed 347.6 is a slip, and the
    output says so."""
    tiled = g80_1024.variant("tiled")
    assert round(86.4 / 4 * 16, 9) == 345.6
    assert tiled.cgma_bound_gflops == pytest.approx(345.6)
    assert tiled.cgma_bound_gflops != pytest.approx(347.6)
    assert any("347.6" in n and "345.6" in n for n in g80_1024.notes)


def test_1024_matrix_needs_4096_blocks(g80_1024):
    """Seed 000: 'A 1024 * 1024 Pd gives 64 * 64 = 4096 Thread Blocks'."""
    assert g80_1024.variant("naive").blocks == 4096
    assert g80_1024.variant("tiled").blocks == 4096


def test_g80_runs_three_blocks_of_256(g80_1024):
    """perfmodel.md c2 (from the seed's G80 discussion): 768 threads per SM allow 3 blocks of
    256 (full thread occupancy) at the seeds' 10 registers per thread; 2 KB shared per block."""
    tiled = g80_1024.variant("tiled")
    assert tiled.shared_memory_per_block_bytes == 2 * 256 * 4
    assert tiled.active_blocks_per_sm == 3
    assert tiled.occupancy == 1.0


def _measured_gflops(n: int, seconds: float) -> float:
    return 2 * n**3 / seconds / 1e9


def test_seed_003_cached_gpus_beat_the_cgma_1_bound():
    """Seed 003: GT 640 (28.5 GB/s) naive N=1024 in 141 ms; GTX 780 (288 GB/s) N=2048 in
    112.7 ms ('2x2048^3/112.7ms = 152.4GFlops'). perfmodel.md c3: 15.2 and 152.4 GFLOPS, 2.1x
    above the CGMA-1 bounds 7.1 and 72.1, because L1/L2 serve the reused rows and columns."""
    for key, n, seconds, gflops, bound in (("gt640", 1024, 0.141, 15.2, 7.1), ("gtx780", 2048, 0.1127, 152.4, 72.1)):
        gpu = get_gpu(key)
        measured = _measured_gflops(n, seconds)
        cgma1 = cgma_bound_gflops(gpu.memory_bandwidth_gbs, 1)
        assert round(measured, 1) == gflops
        assert round(cgma1, 1) == bound
        assert measured / cgma1 == pytest.approx(2.1, abs=0.05)
        arch, _ = resolve_device(key)
        notes = analyze_matmul(n, 16, arch, gpu).notes
        assert any("beat the CGMA-1 DRAM bound" in note for note in notes)


def test_seed_003_tiled_gt640_stays_below_its_bound():
    """Seed 003: the 16x16 tiled kernel on GT 640, N=1024, in 50.7 ms = 42.4 GFLOPS; its CGMA-16
    bound is 28.5 / 4 x 16 = 114 GFLOPS, so it reaches 0.37 of it (perfmodel.md c3)."""
    measured = _measured_gflops(1024, 0.0507)
    bound = cgma_bound_gflops(get_gpu("gt640").memory_bandwidth_gbs, 16)
    assert round(measured, 1) == 42.4 and bound == pytest.approx(114.0)
    assert round(measured / bound, 2) == 0.37


def test_uncached_g80_lands_below_its_bound(g80_1024):
    """Seed 000: 'The actual code runs at about 15 GFLOPS' on G80, below the 21.6 bound (no cache
    for global memory on CC 1.0), unlike the cached GPUs above."""
    assert g80_1024.variant("naive").cgma_bound_gflops > 15


def test_seed_003_tiled_time_estimate_is_the_shared_memory_time():
    """Seed 003: the tiled kernel on GT 640, N=1024, takes 50.7 ms. GT 640 (products.yaml): 2
    SMX at 900 MHz. Per warp and k the kernel reads a broadcast Mds word and a 16-float Nds row
    (2 rows per warp, 32 distinct banks): 1 wavefront each (memory.md 3.3); with the two tile
    stores per phase, 4096 blocks x 8 warps x 64 phases x 34 = 71,303,168 wavefronts at one per
    SM clock = 71303168 / (2 x 0.9e9) = 39.6 ms, the largest term of the time model from counts
    alone (CC 3.0 has no sourced L1 rate, so the global loads are not in that term); with the
    launch overhead the estimate is 78 % of the measured time (it counts only the FMAs' issue).
    The naive estimate is slower than measured (141 ms): counts alone send every transaction to
    DRAM, and the GT 640's caches are what make it faster (perfmodel.md c3)."""
    arch, gpu = resolve_device("gt640")
    a = analyze_matmul(1024, 16, arch, gpu, predicted=catalog_counts(1024, 16, arch))
    tiled, naive = a.variant("tiled"), a.variant("naive")
    assert tiled.time.bound == "shared-memory wavefronts"
    shared = next(t for t in tiled.time.terms if t.name == "shared-memory wavefronts")
    assert shared.time_s == pytest.approx(71303168 / (2 * 0.9e9))
    assert tiled.predicted_time_s == pytest.approx(tiled.time.launch_overhead_s + shared.time_s)
    assert round(tiled.predicted_time_s / 0.0507, 2) == 0.78
    assert naive.predicted_time_s > 0.141


def test_g80_naive_prediction_stands_beside_the_seeds_15_gflops():
    """Seed 000: the naive kernel 'runs at about 15 GFLOPS' on G80. perfcalc's answer at W =
    1024, derived: per half-warp and k, CC 1.0 reads the one Md word as 16 separate 32-byte
    transactions and the 16 Nd words as one 64-byte one (memory.md 1.1): 576 B per 32 flops, so
    1024^3 x 36 B = 38.65 GB read, 4 MB written; no cache on CC 1.0, so at 86.4 GB/s x 0.8825
    (devices/timing.yaml) the kernel is DRAM-bound: 2 x 1024^3 flops / that time = 4.24 GFLOPS,
    which `perfcalc matmul --gpu g80` prints beside the seeds' 15 (whose source was not found)."""
    from perfcalc.report.perf_tables import matmul_side_by_side
    from perfcalc.specs.timing import timing_rates

    arch, gpu = resolve_device("g80")
    naive = analyze_matmul(1024, 16, arch, gpu, predicted=catalog_counts(1024, 16, arch)).variant("naive")
    rates = timing_rates(arch)
    read, written = 1024**3 * 36, 4 * 1024**2
    seconds = (
        rates.launch_overhead_s
        + read / (86.4e9 * rates.dram_read_efficiency)
        + written / (86.4e9 * rates.dram_write_efficiency)
    )
    assert naive.time.dram_bytes_read == read and naive.time.bound == "DRAM bandwidth"
    assert naive.predicted_gflops == pytest.approx(2 * 1024**3 / seconds / 1e9)
    assert round(naive.predicted_gflops, 2) == 4.24
    a = analyze_matmul(1024, 16, arch, gpu, predicted=catalog_counts(1024, 16, arch))
    notes = " ".join(matmul_side_by_side(a).notes)
    assert "about 15 GFLOPS" in notes and "Predicted here for the naive kernel at width 1024: 4.24" in notes
