"""Block sampling (memory/block_sample.py, analysis/sampling.py): which blocks, and how counts
are extrapolated. Expected values follow from the documented schedule (block b on SM b mod S,
waves of S x blocks-per-SM) and formulas; the sampled-versus-full error table over the catalog
is benchmarks/bench_sampling.py's."""

from __future__ import annotations

import math

import pytest

from perfcalc.analysis.caches import cache_model_factory
from perfcalc.analysis.sampling import extrapolate_totals, run_with_sampling
from perfcalc.memory.block_sample import BlockSample
from perfcalc.sim.references import run_catalog_kernel
from perfcalc.specs import get_arch, get_gpu
from perfcalc.specs.kernels import get_kernel, launch_geometry, resolve_params


def test_sample_chunks_are_the_leading_waves_of_every_kth_sm():
    s = BlockSample(sm_stride=4, waves=2)
    chunks = list(s.chunks(nblocks=100, per_wave=24, sms=12))  # 2 blocks per SM
    assert len(chunks) == 2
    for wave, ids in enumerate(chunks):
        assert ids.min() >= wave * 24 and ids.max() < (wave + 1) * 24
        assert set(ids % 12) == {0, 4, 8}
    assert chunks[0].tolist() == [0, 4, 8, 12, 16, 20]
    assert BlockSample(1, 5).is_full(100, 24) and not BlockSample(1, 4).is_full(100, 24)


def test_extrapolation_formula():
    """First wave scaled to its real blocks, later blocks at the later waves' mean per block."""
    totals = ((0, 0), (10, 100), (14, 130), (18, 160))  # snapshots: wave starts, then the end
    blocks = (2, 2, 2)  # simulated blocks per wave
    got = extrapolate_totals(totals, blocks, nblocks=40, per_wave=8)
    # wave 0: 10 x 8 / 2 = 40; later: (40 - 8) x (4 + 4) / 4 = 64 -> 104
    # field 2: 100 x 8 / 2 = 400; later: 32 x (30 + 30) / 4 = 480 -> 880
    assert got == pytest.approx((104, 880))
    assert extrapolate_totals(((0,), (6,)), (3,), nblocks=30, per_wave=12) == pytest.approx((60,))


def _catalog_run(name, overrides, budget, exact=False):
    gpu, arch = get_gpu("h100-sxm"), get_arch("9.0")
    spec = get_kernel(name)
    params = resolve_params(spec, overrides)
    grid, block, dyn = launch_geometry(spec, params)

    def run(sample):
        f = cache_model_factory(gpu, arch, math.prod(block), 16, dyn, None, sample)
        return run_catalog_kernel(spec, params, arch, caches=f).result

    footprint = 4 * params["n"] * params["stride"]  # the input array's bytes
    return run_with_sampling(run, math.prod(grid), footprint, budget_s=budget, exact=exact)


def test_sampled_streaming_copy_matches_the_full_run():
    """copy_stride, 64 waves of one-element blocks: every block does the same work, so the
    extrapolated requests equal the full run's exactly, and DRAM reads (no reuse) within 2 %."""
    full = _catalog_run("copy_stride", {"n": 1 << 21, "stride": 1}, budget=60, exact=True)
    part = _catalog_run("copy_stride", {"n": 1 << 21, "stride": 1}, budget=0.05)
    assert full.sample is None and part.sample is not None
    assert part.simulated_blocks < full.simulated_blocks / 10
    f, p = full.result, part.result
    assert p.counters.global_load_requests == f.counters.global_load_requests
    assert p.counters.global_load_transactions == f.counters.global_load_transactions
    assert p.caches.dram_bytes_read == pytest.approx(f.caches.dram_bytes_read, rel=0.02)
    assert p.caches.global_wavefronts == f.caches.global_wavefronts


def test_small_launch_runs_whole():
    """A launch the budget covers is not sampled: its result is the plain run's."""
    r = _catalog_run("copy_stride", {"n": 4096, "stride": 1}, budget=60)
    assert r.sample is None and r.simulated_blocks == r.launch_blocks == 16


def test_user_kernel_arrays_count_towards_the_l2_fit_by_default():
    """analyze_source_kernel without input_bytes_total takes the bytes of the arrays make_args
    builds (it once took 0, which says 'fits in the L2' and drops every DRAM write): a copy of
    2 x 64 MiB on an H100 (50 MiB L2) sampled, with and without the figure, gives the same DRAM
    bytes, and writes back most of what it writes (at least the 64 - 50 MiB the L2 cannot hold)."""
    import numpy as np

    from perfcalc.analysis.launch_report import analyze_source_kernel

    n = 1 << 24
    source = """__global__ void copy(const float* a, float* b, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] = a[i]; }"""

    def make_args() -> dict:
        return {"a": np.ones(n, np.float32), "b": np.zeros(n, np.float32), "n": n}

    gpu = get_gpu("h100-sxm")
    arch = get_arch("9.0")
    runs = [
        analyze_source_kernel(source, "copy", (n // 256,), (256,), make_args, gpu, arch, budget_s=0.05, **extra)
        for extra in ({}, {"input_bytes_total": 8 * n})
    ]
    assert runs[0].sample is not None
    assert runs[0].time.dram_bytes_written == runs[1].time.dram_bytes_written
    assert runs[0].time.dram_bytes_written >= (4 * n - gpu.l2_cache_kb * 1024)


def test_a_run_of_every_block_past_the_cache_budget_is_exact_and_its_traffic_extrapolated():
    """Whole programs (analysis/app_launches.py): every block runs and is counted, the L1/L2
    model stops at the first wave boundary past its request budget, and its traffic is
    extrapolated from the waves it followed. copy_stride's blocks all do the same work, so the
    counters equal the model-followed run's exactly (they are not extrapolated), the output
    passes the catalog's reference (every block ran), and the extrapolated wavefronts equal the
    full run's; DRAM reads (no reuse) within 2 %."""
    from perfcalc.analysis.sampling import extrapolate_caches

    gpu, arch = get_gpu("h100-sxm"), get_arch("9.0")
    spec = get_kernel("copy_stride")
    params = resolve_params(spec, {"n": 1 << 21, "stride": 1})
    grid, block, dyn = launch_geometry(spec, params)

    def run(budget):
        f = cache_model_factory(gpu, arch, math.prod(block), 16, dyn, None, None, request_budget=budget)
        return run_catalog_kernel(spec, params, arch, caches=f).result  # check=True: the reference

    full, part = run(None), run(1000)
    blocks = math.prod(grid)
    assert sum(full.caches.chunk_blocks) == blocks
    # 1,000 requests are passed within the first wave: the model followed that wave, whole
    per_wave = part.caches.config.blocks_per_wave
    assert part.caches.chunk_blocks == (per_wave,) and blocks > 7 * per_wave
    assert part.counters == full.counters
    rep = extrapolate_caches(part.caches, blocks, 8 * params["n"], gpu.l2_cache_kb * 1024)
    assert rep.global_wavefronts == full.caches.global_wavefronts
    assert rep.dram_bytes_read == pytest.approx(full.caches.dram_bytes_read, rel=0.02)
