"""CC 1.x and 2.x occupancy, each value derived by hand from a documented rule.

cuda_occupancy.h of CUDA 13 does not cover these CCs, so the expectations below come from the
rules of reference/occupancy.md ("How CC 1.x / 2.x differed": H70 = the CUDA 7.0 header, XLS =
the occupancy spreadsheet), the lecture notes (seeds 000 and 003) and the device files' CHOSEN
lines. Each test's docstring carries its derivation.
"""

import pytest

from perfcalc import occupancy
from perfcalc.errors import InputError
from perfcalc.model.occupancy import OccupancyInputs
from perfcalc.model.occupancy_explain import explain_zero


def test_g80_16x16_tiles_seed_000():
    """Seed 000, "G80 Shared Memory and Threading": each SM has 16 KB of shared memory and a
    TILE_WIDTH 16 block uses 2*256*4 B = 2 KB, so shared memory alone allows 16384 / 2048 = 8
    blocks. Seed 003's limit table: 1.x holds at most 768 threads per SM, so 256-thread blocks
    stop at 768 / 256 = 3 (H70 warp limit: 24 warps // 8 warps). With 8 registers per thread
    a block takes 8 x 32 x 8 = 2048 registers (a multiple of 256), 8192 // 2048 = 4 blocks, so
    the threads are the only limit: 3 blocks, 24 warps, 100 %."""
    r = occupancy("1.0", 256, 8, static_shared_memory_bytes=2 * 256 * 4)
    assert r.block_limits["shared_memory"] == 8
    assert r.block_limits["warps"] == 3
    assert r.block_limits["registers"] == 4
    assert (r.active_blocks_per_sm, r.active_warps_per_sm, r.active_threads_per_sm) == (3, 24, 768)
    assert r.occupancy == 1.0
    assert r.limiters == ("warps",)
    assert r.allocated_shared_memory_per_block_bytes == 2048


def test_g80_8kb_tiles_allow_two_blocks_by_shared_memory_seed_000():
    """Seed 000: "The next TILE_WIDTH 32 would lead to 2*32*32*4B = 8KB shared memory usage per
    thread block, allowing only up to two thread blocks": 16384 // 8192 = 2 (shared-memory limit
    of any launchable block using 8 KB)."""
    r = occupancy("1.0", 256, 8, static_shared_memory_bytes=2 * 32 * 32 * 4)
    assert r.block_limits["shared_memory"] == 2
    assert r.active_blocks_per_sm == 2
    assert r.limiters == ("shared_memory",)


@pytest.mark.parametrize("cc", ["1.0", "1.1", "1.2", "1.3"])
def test_tile_width_32_cannot_launch_on_cc1(cc):
    """TILE_WIDTH 32 means 32 x 32 = 1024 threads per block; CC 1.x allows 512 threads per block
    (seed 003 table "Max. number of threads per block 512"; PG4 Table F-2): not an occupancy of
    0 but a launch the hardware refuses, reported plainly."""
    with pytest.raises(InputError) as err:
        occupancy(cc, 32 * 32, 10)
    assert str(err.value) == (
        f"block of 1024 threads exceeds CC {cc}'s limit of 512 threads per block "
        f"(max_threads_per_block in devices/cc_{cc.replace('.', '_')}.yaml); "
        "the hardware cannot launch it"
    )


def test_cc1_registers_per_block_with_warp_pairs_and_unit_256():
    """H70 1.x register rule: regs per block = roundUp(roundUp(warps, 2) x regs x 32, 256 on
    1.0/1.1); blocks = 8192 // that. One warp (32 threads) is charged as 2 warps:
    17 x 32 x 2 = 1088 -> 1280; 8192 // 1280 = 6 (not 7, as 8192 // 1088 would give).
    Warp limit: 24 // 2 = 12. Active: 6 blocks x 1 warp = 6 warps of 24 = 25 %."""
    r = occupancy("1.0", 32, 17)
    assert r.allocated_registers_per_block == 1280
    assert r.block_limits["registers"] == 6
    assert r.block_limits["warps"] == 12
    assert (r.active_blocks_per_sm, r.active_warps_per_sm) == (6, 6)
    assert r.occupancy == 0.25
    assert r.limiters == ("registers",)


def test_cc12_register_unit_512():
    """H70: 1.2/1.3 allocate registers in units of 512 per block. 96 threads = 3 warps, charged
    as 4: 17 x 32 x 4 = 2176 -> 2560; 16384 // 2560 = 6. Warp limit 32 // 4 = 8. Active:
    6 x 3 = 18 warps of 32 = 56.25 %."""
    r = occupancy("1.2", 96, 17)
    assert r.allocated_registers_per_block == 2560
    assert (r.active_blocks_per_sm, r.active_warps_per_sm) == (6, 18)
    assert r.occupancy == 18 / 32
    assert r.limiters == ("registers",)


def test_cc1_warp_limit_counts_warp_pairs():
    """devices/cc_1_0.yaml CHOSEN: warps per block are rounded up to 2 for the warp limit too, as
    H70's cudaOccWarpsAllocatedPerCTA does (the web ports would say 24 // 3 = 8). 96 threads =
    3 warps -> 4; 24 // 4 = 6 blocks, 6 x 3 = 18 active warps = 75 %."""
    r = occupancy("1.0", 96, 0)
    assert r.block_limits["warps"] == 6
    assert r.active_blocks_per_sm == 6
    assert r.occupancy == 0.75
    assert r.block_limits["registers"] > 8  # 0 registers: no register limit at all


def test_cc1_block_over_the_register_file_fits_nothing():
    """H70: 512 threads x 17 registers = 16 x 17 x 32 = 8704 > 8192 registers of a 1.0 SM: the
    block is launchable (<= 512 threads, <= 124 registers) but no block fits."""
    r = occupancy("1.0", 512, 17)
    assert r.active_blocks_per_sm == 0
    assert r.block_limits["registers"] == 0
    reason = explain_zero("1.0", OccupancyInputs(512, 17))
    assert "8704 registers per block" in reason and "8192" in reason


def test_cc2_22_registers_512_threads_two_blocks_seed_003():
    """Seed 003: on CC 2.x (32,768 registers, 1,536 threads per SM) 22 registers per thread
    allow at most 1,489 threads, "If you block size is 512, then you can only have TWO active
    blocks". H70: 22 registers use the 128 unit: 22 x 32 = 704 -> 768 per warp; registers split
    over 2 sub-partitions: 16384 // 768 = 21 warps each, 42 per SM; 42 // 16 warps = 2 blocks."""
    r = occupancy("2.0", 512, 22)
    assert r.allocated_registers_per_block == 16 * 768
    assert (r.active_blocks_per_sm, r.active_threads_per_sm) == (2, 1024)
    assert r.limiters == ("registers",)


def test_cc2_21_registers_use_the_128_unit_unlike_seed_003():
    """Seed 003 says 21 registers reach the full 1,536 threads because 1,536 x 21 < 32,768.
    That product ignores allocation granularity: H70 and the XLS allocate 21 registers per
    thread in units of 128 per warp (devices/cc_2_0.yaml CHOSEN): 21 x 32 = 672 -> 768, so
    42 warps fit (as with 22). 192-thread blocks: 42 // 6 = 7 blocks = 1,344 threads, 87.5 %.
    With 20 registers (640 per warp, a multiple of 64) 16384 // 640 = 25 warps per
    sub-partition, 50 per SM, 50 // 6 = 8 blocks; the 48 warp slots (48 // 6) and the 8-block
    limit give 8 as well: 8 blocks = 1,536 threads, three limiters tied."""
    r21 = occupancy("2.0", 192, 21)
    assert (r21.active_blocks_per_sm, r21.active_threads_per_sm) == (7, 1344)
    assert r21.occupancy == 42 / 48
    r20 = occupancy("2.0", 192, 20)
    assert (r20.active_blocks_per_sm, r20.active_threads_per_sm) == (8, 1536)
    assert r20.limiters == ("warps", "registers", "blocks")


def test_cc2_hardware_check_over_two_sub_partitions():
    """H70 hardware check on 2.x (2 sub-partitions): 672 threads = 21 warps x 48 registers =
    1536 per warp; 21 x 1536 = 32256 fits the 32768 per block, but the check counts
    roundUp(21, 2) = 22 warps = 33792 > 32768: no block fits."""
    r = occupancy("2.1", 672, 48)
    assert r.active_blocks_per_sm == 0
    assert r.limiters == ("registers",)
    assert "33792" in explain_zero("2.1", OccupancyInputs(672, 48))


def test_cc2_shared_memory_unit_128():
    """H70: 2.x shared memory is allocated in 128-byte units: 6145 B -> 6272 B;
    49152 // 6272 = 7 blocks."""
    r = occupancy("2.0", 64, 0, static_shared_memory_bytes=6145)
    assert r.allocated_shared_memory_per_block_bytes == 6272
    assert r.active_blocks_per_sm == 7
    assert r.limiters == ("shared_memory",)


@pytest.mark.parametrize(
    ("cache_config", "capacity", "blocks"),
    [
        (None, 49152, 6),  # default = 48 KB shared: warps bind, 48 // 8 = 6
        ("prefer-shared", 49152, 6),
        ("prefer-l1", 16384, 4),  # 16 KB shared: 16384 // 4096 = 4
        ("prefer-equal", 49152, 6),  # H70: Fermi has no equal split; treated as 48 KB
    ],
)
def test_cc2_cache_config_splits(cache_config, capacity, blocks):
    """H70 cudaOccSMemPerMultiprocessor for 2.x: 48 KB shared, or 16 KB with PREFER_L1
    (devices/cc_2_0.yaml l1_shared_splits_kb [[48, 16], [16, 48]]). 256 threads (8 warps),
    4 KB of shared memory."""
    r = occupancy("2.0", 256, 10, static_shared_memory_bytes=4096, cache_config=cache_config)
    assert r.shared_memory_per_sm_bytes == capacity
    assert r.active_blocks_per_sm == blocks


def test_cc2_prefer_l1_grows_to_fit_one_block():
    """H70: "User requested shared memory limit is used as long as ... at least one CTA can be
    launched. Otherwise, the maximum shared memory limit is used": 20 KB blocks with PREFER_L1
    (16 KB) run on the full 48 KB: 49152 // 20480 = 2."""
    r = occupancy("2.0", 128, 10, static_shared_memory_bytes=20480, cache_config="prefer-l1")
    assert r.shared_memory_per_sm_bytes == 49152
    assert r.active_blocks_per_sm == 2


@pytest.mark.parametrize(
    ("call", "needle"),
    [
        (
            lambda: occupancy("1.0", 64, 125),
            "125 registers per thread is outside CC 1.0's range of 0 to 124",
        ),
        (
            lambda: occupancy("2.0", 64, 64),
            "64 registers per thread is outside CC 2.0's range of 0 to 63",
        ),
        (
            lambda: occupancy("1.3", 64, 10, 16385),
            "static shared memory of 16385 bytes exceeds CC 1.3's limit of 16384 bytes per block",
        ),
        (lambda: occupancy("1.1", 64, 10, cache_config="prefer-l1"), "does not apply to CC 1.1"),
        (lambda: occupancy("2.0", 64, 10, carveout=50), "50 % does not apply to CC 2.0"),
        (lambda: occupancy("2.0", 0, 10), "block size 0 is not launchable"),
    ],
)
def test_legacy_bad_input_names_value_and_limit(call, needle):
    """Limits from the device files (CHOSEN: 124 registers on 1.x from the XLS; 63 on 2.x, PG4;
    16 KB per block on 1.x, PG4); cache configs and carveouts only where the CC has them."""
    with pytest.raises(InputError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        call()
