"""Worked occupancy cases from reference/occupancy.md (incl. the H100 measurements) and the issue.

MEAS rows were measured on an H100 (CC 9.0) with the CUDA runtime's occupancy API and agree with
cuda_occupancy.h; the other expectations are derived by hand from the header's steps (occupancy.md
section a), with the arithmetic in each docstring.
"""

import pytest

import perfcalc
from perfcalc.errors import InputError, UnknownDeviceError
from perfcalc.model.occupancy import UNLIMITED, OccupancyInputs
from perfcalc.model.occupancy_explain import explain_zero
from perfcalc.model.occupancy_suggest import suggest_block_size
from perfcalc.specs import get_arch


@pytest.mark.parametrize("cc", ["7.0", "70", "sm_70", get_arch("7.0")])
def test_issue_acceptance_volta_256_threads_32_registers(cc):
    """Issue #2: 7.0, 256 threads, 32 registers -> 8 blocks, 64 warps, 100 %. 32 x 32 = 1024
    registers per warp, 8 warps = 8192 per block; 65536 // 8192 = 8; warps 64 // 8 = 8."""
    r = perfcalc.occupancy(cc, 256, 32)
    assert (r.active_blocks_per_sm, r.active_warps_per_sm, r.occupancy) == (8, 64, 1.0)
    assert r.limiters == ("warps", "registers")
    assert r.allocated_registers_per_block == 8192
    assert r.block_limits["shared_memory"] == UNLIMITED  # no shared memory: H13's INT_MAX


@pytest.mark.parametrize(
    ("block", "dynamic", "carveout", "blocks", "smem_limit", "alloc"),
    [
        (128, 0, None, 16, 228, 1024),  # the 1 KB reservation is charged with no shared memory
        (128, 7168, None, 16, 28, 8192),
        (32, 8192, None, 25, 25, 9216),  # 28 without the reservation
        (128, 15360, None, 14, 14, 16384),
        (128, 15360, 50, 8, 8, 16384),  # 50 % of 228 KB = 114 KB, rounded up to 132 KB
    ],
)
def test_h100_measurements(block, dynamic, carveout, blocks, smem_limit, alloc):
    """reference/occupancy.md worked cases, MEAS on H100 (runtime = H13); 10 registers."""
    r = perfcalc.occupancy("9.0", block, 10, dynamic_shared_memory_bytes=dynamic, carveout=carveout)
    assert r.active_blocks_per_sm == blocks
    assert r.block_limits["shared_memory"] == smem_limit
    assert r.allocated_shared_memory_per_block_bytes == alloc
    if carveout == 50:
        assert r.shared_memory_per_sm_bytes == 132 * 1024


@pytest.mark.parametrize(
    ("dynamic", "blocks"),
    [
        (116736, 1),
        (58368, 3),
        (29184, 7),
        (14592, 14),  # the inverse query's sizes
        (116736 - 1024, 2),
        (58368 - 1024, 4),
        (29184 - 1024, 8),
        (14592 - 1024, 16),
    ],
)
def test_h100_inverse_query_shortfall(dynamic, blocks):
    """occupancy.md MEAS: the sizes cudaOccAvailableDynamicSMemPerBlock returns for 2, 4, 8, 16
    blocks give only 1, 3, 7, 14 blocks when fed back; 1 KB less restores 2, 4, 8, 16. (The
    measured kernel's block size is not recorded; with 128 threads and 10 registers, as in the
    other MEAS rows, warps allow 16 and registers 32, so shared memory alone decides.)"""
    assert perfcalc.occupancy("9.0", 128, 10, dynamic_shared_memory_bytes=dynamic).active_blocks_per_sm == blocks


@pytest.mark.parametrize(("dynamic", "blocks"), [(4096, 1), (2048, 2), (1024, 4)])
def test_h100_carveout_zero_grows_to_fit(dynamic, blocks):
    """occupancy.md MEAS at carveout 0: 4096, 2048, 1024 B give 1, 2, 4 blocks. Preference 0 KB
    cannot hold a block, so the carveout grows to the next capacity, 8 KB: 8192 // (d + 1024)."""
    r = perfcalc.occupancy("9.0", 128, 10, dynamic_shared_memory_bytes=dynamic, carveout=0)
    assert r.active_blocks_per_sm == blocks
    assert r.shared_memory_per_sm_bytes == 8192


def test_ampere_86_register_granularity_kokkos_case():
    """occupancy.md: 8.6, 224 threads, 92 registers -> 2 blocks (NCU 29.2 %). 92 x 32 = 2944 ->
    3072 per warp; 16384 // 3072 = 5 warps per sub-partition, 20 per SM; 20 // 7 = 2."""
    r = perfcalc.occupancy("8.6", 224, 92)
    assert r.active_blocks_per_sm == 2
    assert r.limiters == ("registers",)
    assert round(r.occupancy * 100, 1) == 29.2


def test_maxwell_52_partitioned_caching_off():
    """occupancy.md: 5.2, 128 threads, 85 registers -> 5 with partitioned global caching off
    (H13's default, NCU 31.25 %). 85 x 32 = 2720 -> 2816; 16384 // 2816 = 5 warps per
    sub-partition, 20 per SM; 20 // 4 = 5."""
    r = perfcalc.occupancy("5.2", 128, 85)
    assert r.active_blocks_per_sm == 5
    assert r.occupancy == 0.3125


@pytest.mark.parametrize("cc", ["8.0", "8.6", "8.7", "8.9", "9.0"])
def test_1024_threads_65_registers_fit_nothing(cc):
    """occupancy.md: 65 x 32 = 2080 -> 2304 per warp x 32 warps = 73728 > 65536: 0 blocks."""
    r = perfcalc.occupancy(cc, 1024, 65)
    assert r.active_blocks_per_sm == 0
    assert r.block_limits["registers"] == 0
    assert "73728" in explain_zero(cc, OccupancyInputs(1024, 65))


def test_issue_800_threads_80_registers_hardware_check():
    """Issue #2 / occupancy.md step 2: 25 warps x 2560 = 64000 <= 65536, but the hardware check
    counts 28 warps (a multiple of 4 sub-partitions) = 71680 > 65536: a result of 0, not an
    error."""
    r = perfcalc.occupancy("8.0", 800, 80)
    assert (r.active_blocks_per_sm, r.occupancy, r.limiters) == (0, 0.0, ("registers",))
    reason = explain_zero("8.0", OccupancyInputs(800, 80))
    assert "71680" in reason and "hardware check" in reason
    assert explain_zero("8.0", OccupancyInputs(256, 32)) is None


def test_gp100_rerun_as_gp10x():
    """H13 step 6: 6.0, 257 threads (9 warps) x 169 registers: 5408 -> 5632 per warp. On GP100's
    2 sub-partitions: 5632 x 10 = 56320 fits, 32768 // 5632 = 5 warps each, 10 // 9 = 1 block;
    as GP10x (4 sub-partitions) 5632 x 12 = 67584 > 65536 fails, so H13 reports 0. With 256
    threads (8 warps) both pass (5632 x 8 = 45056): 1 block."""
    assert perfcalc.occupancy("6.0", 257, 169).active_blocks_per_sm == 0
    assert "GP10x" in explain_zero("6.0", OccupancyInputs(257, 169))
    assert perfcalc.occupancy("6.0", 256, 169).active_blocks_per_sm == 1


@pytest.mark.parametrize(
    ("cache_config", "capacity", "blocks"),
    [
        (None, 114688, 14),
        ("prefer-shared", 114688, 14),
        ("prefer-l1", 81920, 10),
        ("prefer-equal", 98304, 12),
    ],
)
def test_kepler_37_cache_configs(cache_config, capacity, blocks):
    """H13 cudaOccSMemPreference for 3.x: high = 112 KB, L1 = high + 16 KB - 48 KB = 80 KB,
    equal = midpoint 96 KB (devices/cc_3_7.yaml splits). 128 threads, 10 registers, 8 KB:
    capacity // 8192, below the 16 warp and 16 block limits."""
    r = perfcalc.occupancy("3.7", 128, 10, static_shared_memory_bytes=8192, cache_config=cache_config)
    assert (r.shared_memory_per_sm_bytes, r.active_blocks_per_sm) == (capacity, blocks)


def test_volta_cache_config_stands_in_for_default_carveout():
    """H13 cudaOccSMemPreferenceVoltaPlus: with the default carveout PREFER_L1 means 0 %: 0 KB
    cannot hold a 10240 B block (10000 rounded to 256), so it grows to 16 KB: 1 block. An
    explicit carveout wins: 50 % of 96 KB = 48 KB -> 64 KB; 65536 // 10240 = 6."""
    l1 = perfcalc.occupancy("7.0", 128, 10, 10000, cache_config="prefer-l1")
    assert (l1.shared_memory_per_sm_bytes, l1.active_blocks_per_sm) == (16384, 1)
    both = perfcalc.occupancy("7.0", 128, 10, 10000, carveout=50, cache_config="prefer-l1")
    assert (both.shared_memory_per_sm_bytes, both.active_blocks_per_sm) == (65536, 6)


def test_turing_zero_carveout_is_32_kb():
    """H13 cudaOccAlignUpShmemSizeVoltaPlus: Turing has 32 and 64 KB only, so 0 % -> 32 KB."""
    assert perfcalc.occupancy("7.5", 128, 10, carveout=0).shared_memory_per_sm_bytes == 32768


def test_hopper_barrier_limit():
    """H13 cudaOccMaxBlocksPerSMBlockBarrierLimit on 9.0: 32 blocks x 2 = 64 barriers. One
    barrier per block (the cudaFuncAttributes default) never binds; 3 per block allow
    64 // 3 = 21 blocks. The issue defines limiters as the limits equal to the minimum, so only
    "barriers" is named (H13 would keep the warps/blocks bits it set before the barrier step)."""
    one = perfcalc.occupancy("9.0", 64, 10)
    assert one.block_limits["barriers"] == 64 and one.active_blocks_per_sm == 32
    three = perfcalc.occupancy("9.0", 64, 10, block_barriers=3)
    assert (three.active_blocks_per_sm, three.limiters) == (21, ("barriers",))
    assert "barriers" not in perfcalc.occupancy("9.0", 64, 10, block_barriers=0).block_limits
    assert "barriers" not in perfcalc.occupancy("8.0", 64, 10).block_limits  # CC >= 9 only


def test_suggestion_h100_measurement():
    """occupancy.md MEAS: a 10-register kernel on H100 -> blockSize 1024, minGridSize 264 =
    2 blocks x 132 SMs."""
    s = suggest_block_size("9.0", 10)
    assert (s.block_size, s.active_blocks_per_sm, s.occupancy) == (1024, 2, 1.0)


def test_suggestion_limit_1000_and_ties_keep_the_larger_block():
    """occupancy.md section b: with a limit of 1000 the first candidate is 1000 itself (32 warps,
    2 blocks = 2000 threads). 512, 256, 128 and 64 threads all reach 2048 (4, 8, 16, 32 blocks);
    ties keep the larger, so 512."""
    s = suggest_block_size("9.0", 0, block_size_limit=1000)
    assert s.block_size == 512
    assert [c.block_size for c in s.ranking[:4]] == [512, 256, 128, 64]
    first = next(c for c in s.ranking if c.block_size == 1000)
    assert first.active_threads_per_sm == 2000


def test_suggestion_with_shared_memory_per_thread():
    """VariableSMem: 96 bytes per thread on 7.5 (64 KB per SM and opt-in per block, 32 warps).
    1024 threads need 98304 B: cannot launch, scores 0. 672 threads: 64512 B -> 1 block = 672;
    224: 21504 B -> 3 blocks = 672; 96: 9216 B -> 7 blocks = 672; nothing beats 672 (65536 / 96
    = 682 threads); ties keep the larger: 672."""
    s = suggest_block_size("7.5", 0, dynamic_shared_memory_bytes=lambda b: 96 * b)
    assert (s.block_size, s.active_blocks_per_sm) == (672, 1)
    assert [c.block_size for c in s.ranking[:3]] == [672, 224, 96]
    assert next(c for c in s.ranking if c.block_size == 1024).active_blocks_per_sm == 0


def test_suggestion_nothing_fits():
    """occupancy.md section b: "blockSize 0 means nothing fits". 70000 B of dynamic shared memory
    for every block size exceeds 7.5's 65536 B per block, so every candidate scores 0."""
    s = suggest_block_size("7.5", 10, dynamic_shared_memory_bytes=lambda b: 70000)
    assert (s.block_size, s.active_blocks_per_sm, s.occupancy) == (0, 0, 0.0)


def test_suggestion_register_heavy_kernel():
    """8.0, 255 registers: 8160 -> 8192 per warp, 2 warps per sub-partition, 8 per SM. 256
    threads (8 warps) = 1 block, 128 = 2 blocks, 64 = 4, 32 = 8: all 256 threads; larger blocks
    fail the 65536 per-block check. Ties keep the larger: 256."""
    s = suggest_block_size("8.0", 255)
    assert (s.block_size, s.active_blocks_per_sm) == (256, 1)
    assert [c.block_size for c in s.ranking[:4]] == [256, 128, 64, 32]


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (
            lambda: perfcalc.occupancy("7.0", 1025, 10),
            "block of 1025 threads exceeds CC 7.0's limit of 1024",
        ),
        (
            lambda: perfcalc.occupancy("9.0", 128, 256),
            "256 registers per thread is outside CC 9.0's range of 0 to 255",
        ),
        (
            lambda: perfcalc.occupancy("3.0", 128, 64),
            "64 registers per thread is outside CC 3.0's range of 0 to 63",
        ),
        (
            lambda: perfcalc.occupancy("8.6", 128, 10, 49153),
            "static shared memory of 49153 bytes exceeds",
        ),
        (
            lambda: perfcalc.occupancy("9.0", 128, 10, -1),
            "static shared memory of -1 bytes is negative",
        ),
        (
            lambda: perfcalc.occupancy("9.0", 128, 10, carveout=101),
            "carveout 101 is outside 0..100",
        ),
        (
            lambda: perfcalc.occupancy("9.0", 128, 10, cache_config="bogus"),
            "unknown cache config 'bogus'",
        ),
        (
            lambda: perfcalc.occupancy("5.2", 128, 10, cache_config="prefer-l1"),
            "does not apply to CC 5.2",
        ),
        (lambda: perfcalc.occupancy("3.5", 128, 10, carveout=0), "0 % does not apply to CC 3.5"),
        (
            lambda: perfcalc.occupancy("9.0", 12.5, 10),
            "block size must be a whole number, got 12.5",
        ),
        (lambda: perfcalc.occupancy("9.0", -3, 10), "block size -3 is not launchable"),
    ],
)
def test_bad_input_is_one_line_naming_value_and_limit(call, needle):
    """Limits from the device files (devices/cc_*.yaml, CHOSEN 255 registers on 9.0 and 63 on
    3.0; 227 KB opt-in on 9.0; no opt-in before 7.0), carveouts 0..100 on 7.0+ only."""
    with pytest.raises(InputError) as err:
        call()
    message = str(err.value)
    assert needle in message and "\n" not in message


def test_unknown_cc_is_an_unknown_device_error():
    with pytest.raises(UnknownDeviceError):
        perfcalc.occupancy("4.0", 128, 10)


def test_prefer_l1_dropped_when_a_block_outgrows_it():
    """H13 cudaOccMaxBlocksPerSMSmemLimit before Volta: the preferred split is used only while
    one block fits in it, else the full sharedMemPerMultiprocessor. 3.5 with PREFER_L1 (16 KB):
    16384 B blocks -> 16384 // 16384 = 1; 16640 B blocks no longer fit 16 KB, so 49152 // 16640
    = 2: more shared memory, more blocks (why the monotonicity property assumes no preference)."""
    fits = perfcalc.occupancy("3.5", 128, 10, 16384, cache_config="prefer-l1")
    outgrows = perfcalc.occupancy("3.5", 128, 10, 16640, cache_config="prefer-l1")
    assert (fits.shared_memory_per_sm_bytes, fits.active_blocks_per_sm) == (16384, 1)
    assert (outgrows.shared_memory_per_sm_bytes, outgrows.active_blocks_per_sm) == (49152, 2)
