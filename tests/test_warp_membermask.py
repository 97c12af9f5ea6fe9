"""Warp collectives over each lane's own membermask (PTX ISA, vote.sync / redux.sync /
match.sync: a thread outside the membermask takes no part; its ballot bit is 0).

Found on public code: HeCBench bscan computes each lane's exclusive prefix as
`__popc(__ballot_sync(lanemask_lt, p))` and failed its own check under perfcalc when the
membermask was ignored. Expected values: that definition, computed here with NumPy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from perfcalc.sim import run_kernel
from perfcalc.sim.ptx import toolchain

pytestmark = pytest.mark.skipif(
    toolchain.route("auto") is None, reason="needs nvcc (cuda extra) and a host C++ compiler"
)

KERNEL = r"""
__global__ void collectives(const int* x, unsigned* prefix, int* half_sum, unsigned* half_match,
                            int* half_all, int* half_any)
{
    unsigned lane = threadIdx.x & 31;
    int v = x[threadIdx.x];
    unsigned below = (1u << lane) - 1;                              // %lanemask_lt
    unsigned half = lane < 16 ? 0x0000ffffu : 0xffff0000u;          // the lane's own half-warp
    prefix[threadIdx.x] = __popc(__ballot_sync(below, v > 0));
    half_sum[threadIdx.x] = __reduce_add_sync(half, v);
    half_match[threadIdx.x] = __match_any_sync(half, v & 3);
    half_all[threadIdx.x] = __all_sync(half, v > -3);
    half_any[threadIdx.x] = __any_sync(half, v > 5);
}
"""


def test_each_lane_votes_over_its_own_membermask(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    x = rng.integers(-4, 8, 64).astype(np.int32)
    x[32:48] = np.maximum(x[32:48], -2)  # one half-warp where every lane is above -3
    outs = {
        k: np.zeros(64, np.uint32 if k in ("prefix", "half_match") else np.int32)
        for k in ("prefix", "half_sum", "half_match", "half_all", "half_any")
    }
    path = tmp_path / "collectives.cu"
    path.write_text(KERNEL)
    run_kernel(KERNEL, "collectives", 1, 64, {"x": x, **outs}, "9.0", engine="ptx", source_name=str(path))
    for warp in range(2):
        w = x[32 * warp : 32 * warp + 32]
        lanes = slice(32 * warp, 32 * warp + 32)
        np.testing.assert_array_equal(outs["prefix"][lanes], np.concatenate([[0], np.cumsum(w > 0)[:-1]]))
        halves = [w[:16], w[16:]]
        sums = np.repeat([h.sum() for h in halves], 16)
        np.testing.assert_array_equal(outs["half_sum"][lanes], sums)
        alls = np.repeat([int((h > -3).all()) for h in halves], 16)
        anys = np.repeat([int((h > 5).any()) for h in halves], 16)
        assert (outs["half_all"][lanes] != 0).astype(int).tolist() == alls.tolist()
        assert (outs["half_any"][lanes] != 0).astype(int).tolist() == anys.tolist()
        for lane in range(32):
            base = 0 if lane < 16 else 16
            same = [j for j in range(base, base + 16) if (w[j] & 3) == (w[lane] & 3)]
            assert outs["half_match"][32 * warp + lane] == sum(1 << j for j in same), (warp, lane)
    assert outs["half_all"][32:48].all()  # the half-warp chosen to be all above -3
