"""The "what to change" advice.

Each expected value is derived by hand in the test's docstring from the documented allocation
rules (reference/occupancy.md: H13 = CUDA 13.0 cuda_occupancy.h for CC 3.0+, H70 = CUDA 7.0
header for 1.x/2.x) and the device limits in devices/cc_X_Y.yaml; none is copied from
perfcalc's output. Each hint is also re-checked: the suggested value gives what the hint says,
and one step further does not.
"""

from __future__ import annotations

from perfcalc.model.hints import advise, hint_message
from perfcalc.model.occupancy import OccupancyInputs, occupancy


def only(advice, kind):
    found = [h for h in advice.hints if h.kind == kind]
    assert len(found) == 1, advice.hints
    return found[0]


def test_register_hint_volta():
    """CC 7.0, 256 threads (8 warps), 33 registers: 33 x 32 = 1056 -> 1280 per warp (256-register
    units); 65536 / 4 sub-partitions = 16384 -> 12 warps each -> 48 warps -> 6 blocks (75 %).
    32 registers: 1024 per warp -> 16 warps each -> 64 warps -> 8 blocks (100 %)."""
    advice = advise("7.0", OccupancyInputs(256, 33))
    assert advice.result.active_blocks_per_sm == 6
    hint = only(advice, "resources")
    assert hint.changes == {"registers_per_thread": 32}
    assert (hint.active_blocks_per_sm, hint.occupancy) == (8, 1.0)
    assert hint_message(hint) == (
        "registers limit you: <= 32 registers per thread would allow 8 blocks (100 % occupancy)"
    )


def test_register_hint_kokkos_case():
    """CC 8.6, 224 threads (7 warps), 92 registers (kokkos PR #5739's example, 2 blocks):
    92 x 32 = 2944 -> 3072 per warp; 16384 / 3072 = 5 warps per sub-partition -> 20 -> 2 blocks.
    80 registers: 2560 per warp -> 6 -> 24 warps -> 3 blocks = 21 of 48 warps (43.75 %);
    81 registers: 2592 -> 2816 per warp -> 5 -> back to 2 blocks."""
    hint = only(advise("8.6", OccupancyInputs(224, 92)), "resources")
    assert hint.changes == {"registers_per_thread": 80}
    assert hint.active_blocks_per_sm == 3 and abs(hint.occupancy - 21 / 48) < 1e-12
    assert occupancy("8.6", 224, 81).active_blocks_per_sm == 2


def test_g80_register_hint():
    """CC 1.0 (8192 registers per SM, per-block allocation in 256-register units, H70), 256
    threads: 11 registers x 32 x 8 warps = 2816 -> 2 blocks; 10 registers: 2560 -> 3 blocks =
    768 threads, the SM's maximum (the Kirk & Hwu G80 example)."""
    advice = advise("1.0", OccupancyInputs(256, 11))
    assert advice.result.active_blocks_per_sm == 2
    hint = only(advice, "resources")
    assert hint.changes == {"registers_per_thread": 10}
    assert (hint.active_blocks_per_sm, hint.occupancy) == (3, 1.0)


def test_fermi_register_hint_seed_003():
    """Seed 003: CC 2.x, 32768 registers, 1536 threads; with 22 registers and 512-thread
    blocks only TWO blocks are active. H70 allocates 21 and 22 registers in 128-register units
    (22 x 32 = 704 -> 768 per warp; 32768 / 768 = 42 warps -> 2 blocks of 16), 20 registers in
    64-register units (640 per warp -> 51 warps -> 3 blocks, the 48-warp maximum). So the
    advice is <= 20, not the seed's simplified <= 21 (1536 x 21 < 32768 ignores the units)."""
    hint = only(advise("2.0", OccupancyInputs(512, 22)), "resources")
    assert hint.changes == {"registers_per_thread": 20}
    assert (hint.active_blocks_per_sm, hint.occupancy) == (3, 1.0)


def test_zero_fit_gets_a_reason_and_a_way_out():
    """CC 8.0, 800 threads x 80 registers (issue #2 item 6): 2560 registers per warp, the launch
    check rounds 25 warps up to 28 (4 sub-partitions): 71680 > 65536 -> 0 blocks. 72 registers:
    2304 per warp x 28 = 64512 <= 65536, 16384 / 2304 = 7 warps per sub-partition -> 28 warps
    -> 1 block of 25 warps (25/64 = 39.0625 %); 73 registers: 2336 -> 2560 again fails."""
    advice = advise("8.0", OccupancyInputs(800, 80))
    assert advice.result.active_blocks_per_sm == 0 and advice.result.occupancy == 0
    assert "71680" in advice.zero_fit_reason and "65536" in advice.zero_fit_reason
    hint = only(advice, "resources")
    assert hint.changes == {"registers_per_thread": 72}
    assert (hint.active_blocks_per_sm, hint.occupancy) == (1, 25 / 64)
    assert occupancy("8.0", 800, 73).active_blocks_per_sm == 0


def test_shared_memory_hint():
    """CC 7.0, 128 threads, 32 registers, 20000 B dynamic smem: 20000 -> 20224 (256-byte
    units); 98304 // 20224 = 4 blocks (16 of 64 warps). Five blocks need <= 98304 / 5 = 19660.8
    -> 19456 B (76 units): 98304 // 19456 = 5 -> 20 warps = 31.25 %."""
    advice = advise("7.0", OccupancyInputs(128, 32, dynamic_shared_memory_bytes=20000))
    assert advice.result.active_blocks_per_sm == 4
    hint = only(advice, "resources")
    assert hint.changes == {"shared_memory_per_block_bytes": 19456}
    assert (hint.active_blocks_per_sm, hint.occupancy) == (5, 0.3125)
    assert hint_message(hint).startswith("shared memory limits you: <= 19456 bytes")


def test_carveout_hint():
    """Same kernel with carveout 25 %: 0.25 x 98304 = 24576 rounds up to the 32 KB capacity
    (H13 cudaOccAlignUpShmemSizeVoltaPlus) -> 1 block. 34 % = 33423 B rounds up to 64 KB ->
    65536 // 20224 = 3 blocks (12 warps = 18.75 %); 33 % = 32440 B still rounds to 32 KB."""
    advice = advise("7.0", OccupancyInputs(128, 32, dynamic_shared_memory_bytes=20000, carveout=25))
    assert advice.result.active_blocks_per_sm == 1
    hint = only(advice, "carveout")
    assert hint.changes == {"carveout": 34}
    assert (hint.active_blocks_per_sm, hint.occupancy) == (3, 0.1875)
    assert occupancy("7.0", 128, 32, 0, 20000, carveout=33).active_blocks_per_sm == 1


def test_registers_and_shared_memory_together():
    """CC 7.0, 256 threads, 64 registers, 24576 B static: registers 2048 per warp -> 8 per
    sub-partition -> 32 warps -> 4 blocks; smem 98304 / 24576 -> 4 blocks: a tie, so neither
    alone helps. Five blocks need <= 48 registers (1536 per warp -> 10 -> 40 warps) and
    <= 19456 B (as above): 40 of 64 warps = 62.5 %."""
    advice = advise("7.0", OccupancyInputs(256, 64, static_shared_memory_bytes=24576))
    assert set(advice.result.limiters) == {"registers", "shared_memory"}
    hint = only(advice, "resources")
    assert hint.limiters == ("registers", "shared_memory")
    assert hint.changes == {"registers_per_thread": 48, "shared_memory_per_block_bytes": 19456}
    assert (hint.active_blocks_per_sm, hint.occupancy) == (5, 0.625)
    assert "limit you together" in hint_message(hint)


def test_block_size_hint_prefers_the_larger_of_two_equally_near():
    """CC 7.0, 96 threads (3 warps), 32 registers: 64 // 3 = 21 blocks = 63 warps (98.4 %).
    64 and 128 threads are equally near and both reach 64 warps (32 blocks of 2, 16 of 4): the
    larger one is proposed (fewer blocks; the same preference as NVIDIA's tie rule)."""
    hint = only(advise("7.0", OccupancyInputs(96, 32)), "block_size")
    assert hint.changes == {"block_size": 128}
    assert (hint.active_blocks_per_sm, hint.occupancy) == (16, 1.0)


def test_full_occupancy_needs_nothing():
    """The issue's acceptance case, CC 7.0 / 256 threads / 32 registers: 8 blocks, 64 warps."""
    advice = advise("7.0", OccupancyInputs(256, 32))
    assert [h.kind for h in advice.hints] == ["none"]
    assert advice.zero_fit_reason is None
    assert hint_message(advice.hints[0]) == "nothing to change: 100 % theoretical occupancy"


def test_seed_g80_tiles_need_nothing():
    """Seed 000: 16x16 tiles use 2 KB, so shared memory alone allows 8 blocks (16 KB / 2 KB),
    but 768 threads per SM allow 3 blocks of 256: 100 % with 10 registers (2560 per block)."""
    advice = advise("1.0", OccupancyInputs(256, 10, static_shared_memory_bytes=2048))
    assert advice.result.block_limits["shared_memory"] == 8
    assert advice.result.active_blocks_per_sm == 3
    assert [h.kind for h in advice.hints] == ["none"]


def test_cache_config_hint_kepler():
    """CC 3.5, 192 threads (6 warps), 63 registers, 12 KB static, cudaFuncCachePreferL1: the
    16 KB shared split holds 16384 // 12288 = 1 block. Registers allow 5 (2016 -> 2048 per warp,
    16384 / 2048 = 8 per sub-partition -> 32 warps // 6); prefer-shared's 48 KB split holds 4
    -> 24 of 64 warps = 37.5 % (prefer-equal's 32 KB only 2)."""
    advice = advise("3.5", OccupancyInputs(192, 63, static_shared_memory_bytes=12288, cache_config="prefer-l1"))
    assert advice.result.active_blocks_per_sm == 1
    hint = only(advice, "cache_config")
    assert hint.changes == {"cache_config": "prefer-shared"}
    assert (hint.active_blocks_per_sm, hint.occupancy) == (4, 0.375)
