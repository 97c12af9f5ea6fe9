"""Properties every occupancy answer must have, on random legal configurations of all 24 CCs.

Derivations: the register and shared-memory allocations only grow with the request and the
per-SM capacities are fixed, so the blocks they allow never grow (with the default cache
config; see the documented exception below); the active warps are blocks x warps per block with
blocks <= max_warps_per_sm // warps per block; the result is the min of the limits (H13 step 7).
"""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from perfcalc import occupancy
from perfcalc.model.occupancy import LIMITERS, occupancy_grid
from perfcalc.specs import all_archs

ARCHS = all_archs()
SETTINGS = settings(max_examples=120, deadline=None)


@st.composite
def configs(draw, arch=None):
    arch = arch or draw(st.sampled_from(ARCHS))
    block = draw(st.integers(1, arch.max_threads_per_block))
    regs = draw(st.integers(0, arch.max_registers_per_thread))
    static = draw(st.integers(0, arch.max_shared_memory_per_block_bytes))
    dynamic = draw(st.integers(0, arch.max_shared_memory_per_block_launchable_bytes - static))
    carveout = draw(st.sampled_from([None, 0, 25, 50, 100])) if arch.shared_memory_carveouts_kb else None
    return arch, block, regs, static, dynamic, carveout


@SETTINGS
@given(configs(), st.data())
def test_more_registers_never_raise_occupancy(config, data):
    arch, block, regs, static, dynamic, carveout = config
    more = data.draw(st.integers(regs, arch.max_registers_per_thread))
    low = occupancy(arch, block, regs, static, dynamic, carveout)
    high = occupancy(arch, block, more, static, dynamic, carveout)
    assert high.active_blocks_per_sm <= low.active_blocks_per_sm
    assert high.allocated_registers_per_block >= low.allocated_registers_per_block


@SETTINGS
@given(configs(), st.data())
def test_more_shared_memory_never_raises_occupancy(config, data):
    """Default cache config. (With prefer-l1 on 2.x/3.x it can: a block that no longer fits the
    small split gets the full 48 KB, H13/H70 cudaOccMaxBlocksPerSMSmemLimit; see
    test_occupancy_cases.py::test_prefer_l1_dropped_when_a_block_outgrows_it.)"""
    arch, block, regs, static, dynamic, carveout = config
    launchable = arch.max_shared_memory_per_block_launchable_bytes
    more_static = data.draw(st.integers(static, min(arch.max_shared_memory_per_block_bytes, launchable - dynamic)))
    more_dynamic = data.draw(st.integers(dynamic, launchable - more_static))
    low = occupancy(arch, block, regs, static, dynamic, carveout)
    high = occupancy(arch, block, regs, more_static, more_dynamic, carveout)
    assert high.active_blocks_per_sm <= low.active_blocks_per_sm
    assert high.allocated_shared_memory_per_block_bytes >= low.allocated_shared_memory_per_block_bytes


@SETTINGS
@given(configs())
def test_result_is_consistent(config):
    arch, block, regs, static, dynamic, carveout = config
    r = occupancy(arch, block, regs, static, dynamic, carveout)
    warps_per_block = -(-block // arch.warp_size)
    assert r.active_warps_per_sm <= arch.max_warps_per_sm
    assert r.active_warps_per_sm == r.active_blocks_per_sm * warps_per_block
    assert r.active_threads_per_sm == r.active_blocks_per_sm * block <= arch.max_threads_per_sm
    assert 0.0 <= r.occupancy <= 1.0
    assert r.occupancy == r.active_warps_per_sm / arch.max_warps_per_sm
    assert r.active_blocks_per_sm == min(r.block_limits.values())
    assert r.limiters == tuple(n for n in LIMITERS if r.block_limits.get(n) == r.active_blocks_per_sm)
    assert r.allocated_registers_per_block >= regs * block
    assert r.allocated_shared_memory_per_block_bytes >= static + dynamic + arch.reserved_shared_memory_per_block_bytes
    assert r.allocated_shared_memory_per_block_bytes % arch.shared_memory_allocation_unit_bytes == 0


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(ARCHS).flatmap(lambda a: st.lists(configs(a), min_size=1, max_size=12)))
def test_grid_form_equals_scalar_form(batch):
    """One occupancy_grid call over arrays gives, point by point, what occupancy() gives."""
    arch = batch[0][0]
    _, block, regs, static, dynamic, carveout = (np.array(col) for col in zip(*batch, strict=True))
    carve = np.array([-1 if c is None else c for c in carveout])
    grid = occupancy_grid(arch, block, regs, static, dynamic, carve)
    for i, (_, b, r, s, d, c) in enumerate(batch):
        assert grid.result_at(i) == occupancy(arch, b, r, s, d, c)


def test_broadcast_grid_shape_and_values():
    """Block sizes x registers x shared memory broadcast to a 3-D grid whose points are the
    scalar answers (7.0: 256 threads x 32 registers x 0 B is the issue's 8-block case)."""
    blocks = np.array([128, 256])[:, None, None]
    regs = np.array([16, 32, 64])[None, :, None]
    smem = np.array([0, 16384])[None, None, :]
    grid = occupancy_grid("7.0", blocks, regs, smem)
    assert grid.shape == (2, 3, 2)
    assert int(grid.active_blocks[1, 1, 0]) == 8
    for idx in np.ndindex(grid.shape):
        b, r, s = int(blocks[idx[0], 0, 0]), int(regs[0, idx[1], 0]), int(smem[0, 0, idx[2]])
        assert grid.result_at(idx) == occupancy("7.0", b, r, s)
