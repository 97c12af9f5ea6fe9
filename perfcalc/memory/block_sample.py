"""Which blocks a sampled run simulates (issue #9, part 3): the leading waves of every k-th SM.

The cache model's schedule (memory/cache_hierarchy) puts block b on SM b mod S and runs the grid
in waves of S x (blocks per SM) blocks. A sample keeps whole waves, so each simulated SM sees its
blocks in the order and company the schedule gives them, and within a wave only the blocks of
SMs 0, k, 2k, ...: their L1s are modelled exactly, and the L2 they share is given 1/k of the
product's capacity (the share of the sampled SMs; a statistical approximation whose error the
benchmark benchmarks/bench_sampling.py measures). analysis/sampling.py extrapolates the counts.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class BlockSample:
    """Simulate the first `waves` waves, of every `sm_stride`-th SM only."""

    sm_stride: int = 1
    waves: int = 2

    def chunks(self, nblocks: int, per_wave: int, sms: int) -> Iterator[np.ndarray]:
        """Each simulated wave's block ids (ascending), skipping waves with no sampled block."""
        for wave in range(min(self.waves, -(-nblocks // per_wave))):
            ids = np.arange(wave * per_wave, min((wave + 1) * per_wave, nblocks), dtype=np.int64)
            if self.sm_stride > 1:
                ids = ids[(ids % sms) % self.sm_stride == 0]
            if ids.size:
                yield ids

    def is_full(self, nblocks: int, per_wave: int) -> bool:
        """True when the sample is the whole launch."""
        return self.sm_stride == 1 and self.waves * per_wave >= nblocks
