"""perfcalc against NVIDIA's own cuda_occupancy.h, compiled here, on random configurations.

Source of truth: the installed CUDA toolkit's cuda_occupancy.h (H13), fed a cudaOccDeviceProp
filled from the same device files perfcalc reads (tests/occ_driver/). For every configuration the
header's active blocks, limiting-factor bitmask, per-limiter block limits and allocated registers
and shared memory must equal perfcalc's. The seed is fixed (override with PERFCALC_OCC_SEED) and
printed in every failure message.
"""

from __future__ import annotations

import os
import subprocess

import numpy as np
import pytest
from occ_driver import build as driver

from perfcalc.model.occupancy import LIMITER_BITS, UNLIMITED, occupancy, occupancy_grid
from perfcalc.model.occupancy_suggest import suggest_block_size
from perfcalc.specs import all_archs

SEED = int(os.environ.get("PERFCALC_OCC_SEED", "20260521"))
H13_ARCHS = [a for a in all_archs() if a.major >= 3]
# >= 20,000 in all (issue #2) and >= 1,000 for each CC (issue #10: each of 10.0-12.1).
PER_CC = 1_000
CONFIGS_PER_RUN = max(20_000, PER_CC * len(H13_ARCHS))
CARVEOUTS = [-1, 0, 25, 50, 100]


@pytest.fixture(scope="session")
def occ_driver(tmp_path_factory):
    try:
        return driver.build(tmp_path_factory.mktemp("occ_driver"))
    except FileNotFoundError as exc:
        pytest.skip(f"cannot build the cuda_occupancy.h driver: {exc}")
    except subprocess.CalledProcessError as exc:
        pytest.fail(f"the cuda_occupancy.h driver does not compile: {exc.stderr}")


def _cache_configs(arch):
    """Cache configs the CC applies: legacy splits on 3.x, carveout stand-ins on 7.0+."""
    if arch.l1_shared_splits_kb is None and arch.shared_memory_carveouts_kb is None:
        return ["none"]
    return list(driver.CACHE_CONFIG_CODES)


def _draw(rng, arch, n):
    """n random legal configurations; half drawn small so every limiter gets its turn."""
    small = rng.random(n) < 0.5
    block = np.where(small, rng.integers(1, 257, n), rng.integers(1, arch.max_threads_per_block + 1, n))
    block[:4] = [1, arch.warp_size, arch.max_threads_per_block, arch.max_threads_per_block - 1]
    regs = np.where(small, rng.integers(0, 65, n), rng.integers(0, arch.max_registers_per_thread + 1, n))
    regs = np.minimum(regs, arch.max_registers_per_thread)
    regs[:4] = [0, arch.max_registers_per_thread, 1, 32]
    launchable = arch.max_shared_memory_per_block_launchable_bytes
    static = np.where(
        small,
        rng.integers(0, 4097, n),
        rng.integers(0, arch.max_shared_memory_per_block_bytes + 1, n),
    )
    static[rng.random(n) < 0.3] = 0
    room = launchable - static
    dynamic = np.where(
        rng.random(n) < 0.5,
        rng.integers(0, 8193, n) % (room + 1),
        (rng.random(n) * (room + 1)).astype(np.int64),
    )
    dynamic[rng.random(n) < 0.2] = 0
    # Some kernels ask for more than the opt-in limit: the header answers 0 blocks (a result).
    over = rng.random(n) < 0.05
    dynamic[over] = room[over] + rng.integers(1, 4097, int(over.sum()))
    dynamic[:2] = [0, room[1]]  # the largest block the CC can launch
    has_carveout = arch.shared_memory_carveouts_kb is not None
    carveout = rng.choice(CARVEOUTS, n) if has_carveout else np.full(n, -1)
    configs = _cache_configs(arch)
    cache = np.asarray(configs)[rng.integers(0, len(configs), n)]
    # Virtual resources per function: 0 (what cudaFuncAttributes gives) for most, else 1..160 so
    # the 10.x-12.x limit (128 per SM) is reached and exceeded; CCs without them ignore it.
    virtual = np.where(rng.random(n) < 0.7, 0, rng.integers(1, 161, n))
    return block, regs, static, dynamic, carveout, cache, virtual


def _requests(arch, block, regs, static, dynamic, carveout, cache, virtual, barriers=1):
    dev = driver.device_fields(arch)
    return [
        f"occ {dev} {b} {r} {s} {d} {c} {driver.CACHE_CONFIG_CODES[k]} {barriers} {v}"
        for b, r, s, d, c, k, v in zip(block, regs, static, dynamic, carveout, cache, virtual, strict=True)
    ]


def _header_results(exe, arch, *inputs, barriers=1):
    requests = _requests(arch, *inputs, barriers=barriers)
    return np.asarray(driver.run(exe, requests), dtype=np.int64)


def _perfcalc_results(arch, block, regs, static, dynamic, carveout, cache, virtual):
    """Columns as the driver prints them, one grid call per (cache config, virtual count)."""
    out = np.zeros((len(block), 11), dtype=np.int64)
    for config, count in {(str(c), int(v)) for c, v in zip(cache, virtual, strict=True)}:
        sel = (cache == config) & (virtual == count)
        grid = occupancy_grid(
            arch,
            block[sel],
            regs[sel],
            static[sel],
            dynamic[sel],
            carveout[sel],
            config,
            virtual_resources=count,
        )

        def or_unlimited(limit, n=int(sel.sum())):
            return limit if limit is not None else np.full(n, UNLIMITED)

        bars = or_unlimited(grid.limit_barriers)
        out[sel] = np.stack(
            [
                np.zeros(sel.sum(), dtype=np.int64),
                grid.active_blocks,
                grid.limiter_mask,
                grid.limit_registers,
                grid.limit_shared_memory,
                grid.limit_warps,
                grid.limit_blocks,
                bars,
                grid.allocated_registers,
                grid.allocated_shared_memory,
                or_unlimited(grid.limit_virtual_resources),
            ],
            axis=1,
        )
    return out


COLUMNS = [
    "status",
    "active_blocks",
    "limiting_factors",
    "limit_registers",
    "limit_shared_memory",
    "limit_warps",
    "limit_blocks",
    "limit_barriers",
    "allocated_registers",
    "allocated_shared_memory",
    "limit_virtual_resources",
]


def _compare(arch, expected, got, inputs, seed):
    bad = np.nonzero((expected != got).any(axis=1))[0]
    if len(bad) == 0:
        return
    lines = []
    for i in bad[:5]:
        block, regs, static, dynamic, carveout, cache, virtual = (x[i] for x in inputs)
        diff = {c: (int(e), int(g)) for c, e, g in zip(COLUMNS, expected[i], got[i], strict=True) if e != g}
        lines.append(
            f"  block={block} regs={regs} static={static} dynamic={dynamic} carveout={carveout} "
            f"cache={cache} virtual={virtual}: (header, perfcalc) {diff}"
        )
    pytest.fail(
        f"CC {arch.cc}: {len(bad)} of {len(expected)} configurations differ "
        f"from cuda_occupancy.h (seed {seed}):\n" + "\n".join(lines)
    )


def test_random_configurations_match_the_header(occ_driver):
    """>= 20,000 random configurations over CC 3.0-12.1, >= 1,000 per CC (block 1..max, registers
    0..max, static and dynamic shared memory up to the opt-in limit and 5 % beyond it, carveout
    default/0/25/50/100, every cache config the CC applies, virtual resources 0..160), all sent
    to the header in one process run."""
    rng = np.random.default_rng(SEED)
    per_cc = -(-CONFIGS_PER_RUN // len(H13_ARCHS))
    assert per_cc >= PER_CC
    drawn = {a.cc: _draw(rng, a, per_cc) for a in H13_ARCHS}
    requests, spans = [], {}
    for arch in H13_ARCHS:
        start = len(requests)
        requests += _requests(arch, *drawn[arch.cc])
        spans[arch.cc] = slice(start, len(requests))
    assert len(requests) >= 20_000
    assert {"10.0", "10.3", "11.0", "12.0", "12.1"} <= set(spans)
    answers = np.asarray(driver.run(occ_driver, requests), dtype=np.int64)
    for arch in H13_ARCHS:
        inputs = drawn[arch.cc]
        expected = answers[spans[arch.cc]]
        _compare(arch, expected, _perfcalc_results(arch, *inputs), inputs, SEED)


def test_every_limiter_and_zero_occupancy_is_exercised(occ_driver):
    """The random draw is only worth something if it reaches each limiter and 0-block cases:
    count them in the header's own answers for the same seed."""
    rng = np.random.default_rng(SEED)
    seen = 0
    zero = 0
    for arch in H13_ARCHS:
        inputs = _draw(rng, arch, 300)
        answers = _header_results(occ_driver, arch, *inputs)
        for mask in answers[:, 2]:
            seen |= int(mask)
        zero += int((answers[:, 1] == 0).sum())
    for name in ("warps", "registers", "shared_memory", "blocks", "virtual_resources"):
        assert seen & LIMITER_BITS[name], f"no configuration was limited by {name} (seed {SEED})"
    assert zero > 0, f"no zero-occupancy configuration drawn (seed {SEED})"


def test_scalar_occupancy_matches_the_header(occ_driver):
    """occupancy() (the 0-d grid) on a sample, one configuration at a time."""
    rng = np.random.default_rng(SEED + 1)
    for arch in H13_ARCHS:
        inputs = _draw(rng, arch, 12)
        answers = _header_results(occ_driver, arch, *inputs)
        for i, row in enumerate(answers):
            block, regs, static, dynamic, carveout, cache, virtual = (x[i] for x in inputs)
            res = occupancy(
                arch,
                int(block),
                int(regs),
                int(static),
                int(dynamic),
                int(carveout),
                str(cache),
                virtual_resources=int(virtual),
            )
            assert res.active_blocks_per_sm == row[1], (arch.cc, block, regs, SEED)
            mask = sum(LIMITER_BITS[n] for n in res.limiters)
            assert mask == row[2]
            assert res.allocated_registers_per_block == row[8]
            assert res.allocated_shared_memory_per_block_bytes == row[9]


def test_block_size_suggestion_matches_the_header(occ_driver):
    """suggest_block_size == cudaOccMaxPotentialOccupancyBlockSize (block size, and blocks per SM
    = minGridSize with numSms = 1) on random kernels, including odd block-size limits."""
    rng = np.random.default_rng(SEED + 2)
    requests, cases = [], []
    for arch in H13_ARCHS:
        for _ in range(12):
            regs = int(rng.integers(0, arch.max_registers_per_thread + 1))
            static = int(rng.integers(0, 8193)) if rng.random() < 0.5 else 0
            dynamic = int(rng.integers(0, 40000)) if rng.random() < 0.5 else 0
            carveout = int(rng.choice(CARVEOUTS)) if arch.shared_memory_carveouts_kb else -1
            limit = int(rng.choice([arch.max_threads_per_block, 1000, 200, 33]))
            cases.append((arch, regs, static, dynamic, carveout, limit))
            requests.append(f"suggest {driver.device_fields(arch)} {regs} {static} {dynamic} {carveout} 0 {limit}")
    answers = driver.run(occ_driver, requests)
    for (arch, regs, static, dynamic, carveout, limit), (status, block, blocks) in zip(cases, answers, strict=True):
        assert status == 0
        got = suggest_block_size(arch, regs, static, dynamic, carveout, block_size_limit=limit)
        assert (got.block_size, got.active_blocks_per_sm) == (block, blocks), (
            arch.cc,
            regs,
            static,
            dynamic,
            carveout,
            limit,
            SEED,
        )
