"""Run-time state of one chunk of blocks: thread layout, active masks, variables, counters.

Lanes of a chunk are laid out block after block; inside a block by the linear thread index
x + y*bdx + z*bdx*bdy (warp w of a block = lanes 32w..32w+31, memory.md §0), padded to a whole
number of warps, the padding lanes permanently inactive. So `array.reshape(-1, 32)` is always
the chunk's warps.

A `Mask` is the set of active lanes. `arr is None` means "every real lane" (the fast path: no
masking work at all); active-lane and active-warp counts are computed once per new mask because
every counter needs them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from perfcalc.sim.pricing import Pricer
from perfcalc.sim.safety import FaultSignal, fault_signal
from perfcalc.sim.separable import Sep, Value
from perfcalc.specs import Arch


class BoundArray(Protocol):
    """An array a chunk reaches by compiled key: memories.py's GlobalArray, SharedArray or
    ConstantArray (memories.py builds on this module, so it is named here by what it has;
    memories.readable and its siblings narrow it back)."""

    name: str


class ChunkSharedArray(Protocol):
    """A chunk's __shared__ array, as a barrier sees it (memories.SharedArray)."""

    def barrier(self) -> None: ...


@dataclass
class LaunchState:
    """What every chunk of one launch shares: the device, the options, names for messages, and
    the pricer (with its memo and the cache model's trace)."""

    arch: Arch
    cache: str | None
    bank_mode: int | None
    source_name: str
    kernel_name: str
    pricer: Pricer


class Mask:
    """Active lanes: `arr` (bool per lane, or None = all real lanes), with cached counts."""

    __slots__ = ("arr", "nact", "nwarps", "block_uniform")

    def __init__(self, arr: np.ndarray | None, nact: int, nwarps: int):
        self.arr = arr
        self.nact = nact
        self.nwarps = nwarps
        self.block_uniform: bool | None = None  # same lanes active in every block? (lazy)


@dataclass
class LoopFrame:
    """Lanes that executed `continue` in the current iteration (rejoin at its end)."""

    continued: np.ndarray | None = None


@dataclass
class FunctionFrame:
    """Lanes that returned from the current function, and its return-value slot."""

    returned: np.ndarray | None = None
    value: Value = None


class ChunkContext:
    """Everything a compiled kernel needs while running one chunk of blocks."""

    def __init__(
        self, run: LaunchState, block_ids: np.ndarray, block_dim: tuple[int, int, int], grid_dim: tuple[int, int, int]
    ):
        self.run = run
        self.block_ids = block_ids
        self.nblocks = int(block_ids.size)
        bdx, bdy, bdz = block_dim
        threads = bdx * bdy * bdz
        self.threads_per_block = threads
        self.warps_per_block = -(-threads // 32)
        self.lanes_per_block = 32 * self.warps_per_block
        self.nlanes = self.nblocks * self.lanes_per_block
        tid = np.arange(self.lanes_per_block, dtype=np.int64)
        real = tid < threads
        self.lane_tid = np.tile(tid, self.nblocks)  # linear thread index in block
        self.lane_block = np.repeat(
            np.arange(self.nblocks, dtype=np.int64), self.lanes_per_block
        )  # block index within the chunk
        self.lane_warp = self.lane_tid >> 5  # warp index within its block
        self.lane_warp1 = self.lane_warp + 1  # the warp field of race-detection tags
        self._write_tags: tuple[int, np.ndarray] | None = None
        gx, gy, _ = grid_dim
        u32 = np.uint32
        tid = tid.astype(u32)
        zl = np.zeros(self.lanes_per_block, dtype=u32)
        zb = np.zeros(self.nblocks, dtype=u32)
        # threadIdx/blockIdx as separable values (separable.py): per-lane and per-block parts
        self.tid_xyz = (
            Sep.of(zb, tid % u32(bdx)),
            Sep.of(zb, (tid // u32(bdx)) % u32(bdy)),
            Sep.of(zb, tid // u32(bdx * bdy)),
        )
        self.bid_xyz = (
            Sep.of((block_ids % gx).astype(u32), zl),
            Sep.of(((block_ids // gx) % gy).astype(u32), zl),
            Sep.of((block_ids // (gx * gy)).astype(u32), zl),
        )
        self.block_dim = tuple(u32(v) for v in block_dim)
        self.grid_dim = tuple(u32(v) for v in grid_dim)
        if threads == self.lanes_per_block:
            self.full = Mask(None, self.nlanes, self.nlanes // 32)
            self.real_lanes = None
        else:
            real_all = np.tile(real, self.nblocks)
            self.real_lanes = real_all
            self.full = Mask(real_all, self.nblocks * threads, self.nblocks * self.warps_per_block)
        self.all_lanes = np.ones(self.nlanes, dtype=bool)
        self.empty = Mask(np.zeros(self.nlanes, dtype=bool), 0, 0)
        self.mask = self.full
        self.slots: list[Value] = []  # variables and scalar parameters, by compiled slot
        self.mems: list[BoundArray] = []  # arrays by compiled key (run.py binds them)
        self.shared_arrays: list[ChunkSharedArray] = []  # this chunk's __shared__ arrays
        self.loops: list[LoopFrame] = []
        self.funcs: list[FunctionFrame] = []
        self.kernel_frame = FunctionFrame()
        self.epoch = 1  # barrier intervals, for race detection (shadows start at epoch 0)

    # ---- masks -------------------------------------------------------------------------
    def make_mask(self, arr: np.ndarray, warp_any: np.ndarray | np.bool_ | None = None) -> Mask:
        """A Mask for a bool lane array (counts computed once)."""
        nact = int(np.count_nonzero(arr))
        if nact == 0:
            return self.empty
        if nact == self.full.nact:
            return self.full
        if warp_any is None:
            warp_any = np.asarray(arr.reshape(-1, 32).any(axis=1))
        return Mask(arr, nact, int(np.count_nonzero(warp_any)))

    def mask_block_uniform(self) -> bool:
        """Whether every block of the chunk has the same active lanes (cached per mask)."""
        m = self.mask
        if m.block_uniform is None:
            if m.arr is None or self.nblocks == 1:
                m.block_uniform = True
            else:
                m3 = m.arr.reshape(self.nblocks, self.lanes_per_block)
                m.block_uniform = bool((m3 == m3[0]).all())
        return m.block_uniform

    def write_tags(self, warp_bits: int) -> np.ndarray:
        """Per lane (epoch << warp_bits) + warp + 1, the race shadow's tag of a shared write in
        the current barrier interval (computed once per interval; never modified in place)."""
        cached = self._write_tags
        if cached is None or cached[0] != self.epoch:
            cached = self._write_tags = (self.epoch, (self.epoch << warp_bits) + self.lane_warp1)
        return cached[1]

    def active_arr(self, mask: Mask | None = None) -> np.ndarray:
        """The lane array of a mask (materialised for the all-lanes case)."""
        m = self.mask if mask is None else mask
        if m.arr is not None:
            return m.arr
        return self.all_lanes

    def union(self, a: Mask, b: Mask) -> Mask:
        if a.nact == 0:
            return b
        if b.nact == 0:
            return a
        if a.arr is None or b.arr is None:
            return self.full
        return self.make_mask(a.arr | b.arr)

    def minus(self, m: Mask, lanes: np.ndarray | None) -> Mask:
        """`m` without `lanes` (None = nothing removed)."""
        if lanes is None or m.nact == 0:
            return m
        return self.make_mask(self.active_arr(m) & ~lanes)

    # ---- identification ----------------------------------------------------------------
    def first_lane(self, lanes: np.ndarray) -> int:
        return int(np.flatnonzero(lanes)[0])

    def first_active(self, where: np.ndarray | bool | np.bool_) -> int | None:
        """The first active lane where `where` holds (per lane, or one value for all), or None:
        a fault is only a fault on a lane that runs."""
        if isinstance(where, np.ndarray):
            lanes = where & self.mask.arr if self.mask.arr is not None else where
            return self.first_lane(lanes) if lanes.any() else None
        return self.first_lane(self.active_arr()) if where and self.mask.nact else None

    def thread_of(self, lane: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """(block index, thread index) of a chunk lane, as CUDA's (x,y,z)."""
        bx, by, bz = (int(a[lane]) for a in self.bid_xyz)
        tx, ty, tz = (int(a[lane]) for a in self.tid_xyz)
        return (bx, by, bz), (tx, ty, tz)

    def fault(
        self, kind: str, line: int, lane: int, what: str, array: str | None = None, index: int | None = None
    ) -> FaultSignal:
        """A FaultSignal whose one-line message names kernel, line, block and thread."""
        block, thread = self.thread_of(lane)
        return fault_signal(kind, self.run.kernel_name, self.run.source_name, line, block, thread, what, array, index)
