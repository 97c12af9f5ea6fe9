"""A whole program's device memory as the PTX engine's global memory (issue 31).

The program (app/) runs in a child process against perfcalc's CUDA runtime stand-in, whose device
memory is a file both processes map: the program's device pointers are addresses in its mapping,
and here the same bytes are one NumPy array at that base address. A launch then reads and writes
the program's own buffers in place (no copy per launch), and a fault names the allocation it
left (`cudaMalloc #3`, or a `__device__` variable by name) as compute-sanitizer does.
"""

from __future__ import annotations

import contextlib
import functools
import mmap
import os
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from perfcalc.errors import InputError
from perfcalc.memory.cache_hierarchy import CacheHierarchy
from perfcalc.sim.launch import CacheFactory, SimResult, validate_launch
from perfcalc.sim.ptx.compile import CompiledKernel
from perfcalc.sim.ptx.memory import Heap, Region
from perfcalc.sim.ptx.parse import Param
from perfcalc.sim.ptx.run import Launch, _layout, execute
from perfcalc.specs import Arch

GPU_PAGE = 2 << 20  # bytes: the granularity in which the CUDA driver maps cudaMalloc'd memory


class Arena:
    """The shared file of device memory, mapped here; `base` is where the program mapped it."""

    def __init__(self, path: str, size: int):
        self.path = path
        self.size = size
        self.base = 0
        with open(path, "r+b") as f:
            self._map = mmap.mmap(f.fileno(), size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        self.bytes = np.frombuffer(self._map, dtype=np.uint8)
        self.allocations: list[tuple[int, int]] = []  # (address, bytes) in address order
        self.variables: dict[str, tuple[int, int]] = {}  # __device__/__constant__ name -> (address, bytes)

    @staticmethod
    def create(folder: str, size: int) -> Arena:
        """A new sparse file of `size` bytes (nothing is written until the program writes)."""
        path = os.path.join(folder, "device-memory")
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.ftruncate(fd, size)
        finally:
            os.close(fd)
        return Arena(path, size)

    def close(self) -> None:
        """Unmap now where nothing still views the bytes; else when the last view goes."""
        self.bytes = np.zeros(0, dtype=np.uint8)
        with contextlib.suppress(BufferError):  # a view still held: the GC closes it with the view
            self._map.close()


class ArenaHeap(Heap):
    """Heap over the arena: every allocation and variable is a region at its program address."""

    def __init__(self, arena: Arena):
        super().__init__(arena.base)
        self.bytes = arena.bytes
        names = {address: name for name, (address, _) in arena.variables.items()}
        spans = sorted(
            [(a, n, names.get(a)) for a, n in arena.allocations]
            + [(a, n, name) for name, (a, n) in arena.variables.items() if a not in dict(arena.allocations)]
        )
        for i, (address, nbytes, name) in enumerate(spans):
            self.regions.append(Region(name or f"cudaMalloc #{i}", address, nbytes, None, 1, True))
        self._starts = np.array([r.address for r in self.regions], dtype=np.uint64)
        self._ends = np.array([r.address + r.nbytes for r in self.regions], dtype=np.uint64)

    @functools.cached_property
    def _pages(self) -> np.ndarray:
        """The 2 MiB pages that hold part of an allocation (worked out at the first overrun)."""
        pages = [np.arange(r.address // GPU_PAGE, -(-(r.address + r.nbytes) // GPU_PAGE)) for r in self.regions]
        return np.unique(np.concatenate(pages)) if pages else np.zeros(0, dtype=np.int64)

    def mapped(self, addr: np.ndarray, mask: np.ndarray, size: int) -> bool:
        """Every masked access inside a 2 MiB page that holds part of an allocation (the driver
        maps device memory in such pages, so a GPU runs through an access just past an array,
        where compute-sanitizer's memcheck reports it) and inside this arena's bytes."""
        a = addr[mask].astype(np.int64)
        if not len(a) or int(a.min()) < self.base or int(a.max()) + size > self.base + len(self.bytes):
            return False
        first, last = a // GPU_PAGE, (a + size - 1) // GPU_PAGE
        return bool(np.isin(first, self._pages).all() and np.isin(last, self._pages).all())

    def seal(self) -> None:  # the program's bytes are the heap already
        pass

    def write_back(self) -> None:
        pass


def split_parameters(params: list[Param], raw: bytes) -> dict[str, bytes]:
    """The launch's packed parameter bytes (each at its alignment, as the stand-in packs them)
    by PTX parameter name."""
    out: dict[str, bytes] = {}
    at = 0
    for p in params:
        align = max(p.align, 1)
        at = -(-at // align) * align
        out[p.name] = raw[at : at + p.size]
        at += p.size
    if at > len(raw):
        raise InputError(f"the launch passed {len(raw)} bytes of parameters where the kernel takes {at}")
    return out


@dataclass(frozen=True)
class ArenaLaunch:
    """One launch the program made: which compiled kernel, its geometry and its parameters."""

    kernel: CompiledKernel
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    dynamic_shared_memory_bytes: int
    parameters: bytes


def run_in_arena(
    launch: ArenaLaunch,
    arena: Arena,
    arch: Arch,
    source_name: str,
    iteration_cap: int = 1_000_000,
    caches: CacheHierarchy | CacheFactory | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SimResult:
    """Run one of the program's launches over its device memory; a fault is returned in the
    result (the program then sees the error, as on a GPU), never raised. A shared-memory race
    does not stop it (a GPU runs through one): it is kept in the result's `races`."""
    ck = launch.kernel
    validate_launch(arch, launch.grid, launch.block)
    heap = ArenaHeap(arena)
    params = split_parameters(ck.fn.params, launch.parameters)
    symbols, shared_bytes, local_bytes = _layout(ck.fn, ck.module, launch.dynamic_shared_memory_bytes, arch)
    for v in ck.module.variables:
        if v.space in ("const", "global"):
            found = arena.variables.get(v.name)
            if found is None:
                raise InputError(f"the program did not register the __device__ variable {v.name} of kernel {ck.kernel}")
            symbols[v.name] = found[0]
    how = Launch(
        launch.grid,
        launch.block,
        launch.dynamic_shared_memory_bytes,
        iteration_cap,
        source_name=source_name,
        raise_on_fault=False,
        race_faults=False,
    )
    return execute(ck, how, arch, heap, params, symbols, (shared_bytes, local_bytes), progress, caches)
