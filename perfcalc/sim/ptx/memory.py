"""The state spaces a PTX kernel addresses: global (every array the launch binds, at 256-byte
aligned device addresses), shared (one window per block), param, const and local.

Global memory is one byte heap holding a copy of each bound array at its device address, so a
load or store at any byte address is one typed gather or scatter; arrays the kernel may write are
copied back when the launch ends. Addresses outside every array, or not aligned to the access
size, are faults named like compute-sanitizer's (parameter, element, byte offset).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

GLOBAL_BASE = 1 << 40  # device addresses of bound arrays start here (256-byte aligned)
SHARED_WINDOW = 1 << 56  # generic addresses of the shared window (cvta.shared)
LOCAL_WINDOW = 1 << 57  # generic addresses of the local window (cvta.local)
_GAP = 256


@dataclass
class Region:
    """One bound array (or module variable) in the heap."""

    name: str
    address: int
    nbytes: int
    array: np.ndarray | None  # the user's array, written back when writable
    element_bytes: int
    writable: bool


class Heap:
    """Global (and module-variable) memory as one uint8 array indexed by address - base."""

    def __init__(self, base: int = GLOBAL_BASE):
        self.base = base
        self.regions: list[Region] = []
        self._next = 0
        self.bytes = np.zeros(0, dtype=np.uint8)

    def add(self, name: str, array: np.ndarray, writable: bool) -> int:
        """Place an array's bytes at the next 256-byte boundary; returns its device address."""
        for r in self.regions:  # the same array bound twice gets the same address
            if r.array is not None and r.array is array:
                return r.address
        offset = self._next
        nbytes = int(array.nbytes)
        self._next = offset + -(-max(nbytes, 1) // _GAP) * _GAP + _GAP
        self.regions.append(Region(name, self.base + offset, nbytes, array, int(array.dtype.itemsize), writable))
        return self.base + offset

    def seal(self) -> None:
        """Allocate the heap and copy every array in (once, after all are added)."""
        self.bytes = np.zeros(-(-self._next // 16) * 16 + 16, dtype=np.uint8)
        self._starts = np.array([r.address for r in self.regions], dtype=np.uint64)
        self._ends = np.array([r.address + r.nbytes for r in self.regions], dtype=np.uint64)
        for r in self.regions:
            if r.array is not None and r.nbytes:
                off = r.address - self.base
                self.bytes[off : off + r.nbytes] = np.ascontiguousarray(r.array).view(np.uint8).ravel()

    def write_back(self) -> None:
        for r in self.regions:
            if r.writable and r.array is not None and r.nbytes:
                off = r.address - self.base
                r.array.view(np.uint8).ravel()[:] = self.bytes[off : off + r.nbytes]

    def inside_one(self, low: int, high: int, size: int) -> bool:
        """Whether the byte addresses low..high (accesses of `size` bytes) lie in one array."""
        region = self.region_at(low)
        return region is not None and high + size <= region[1]

    def region_at(self, address: int) -> tuple[int, int] | None:
        """(first byte, end) of the array holding byte `address`, or None."""
        if not 0 <= address < 1 << 64:
            return None
        idx = int(np.searchsorted(self._starts, np.uint64(address), side="right")) - 1
        if idx < 0 or address >= int(self._ends[idx]):
            return None
        return int(self._starts[idx]), int(self._ends[idx])

    def all_inside(self, addr: np.ndarray, mask: np.ndarray | None, size: int) -> bool:
        """True when every active address lies in one array (the common case, checked with
        two reductions instead of a search per lane); `mask` None: every lane is active."""
        if mask is None:
            active = addr
        elif not mask.any():
            return True
        else:
            active = addr[mask] if not mask.all() else addr
        return self.inside_one(int(active.min()), int(active.max()), size)

    def mapped(self, addr: np.ndarray, mask: np.ndarray, size: int) -> bool:
        """Whether every masked access lies in memory the GPU has mapped although it is past
        its array (a whole program's device memory: ArenaHeap); arrays given to one launch
        have nothing around them."""
        return False

    def locate(self, addr: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
        """(region index or -1, in-bounds) of each byte address for an access of `size` bytes."""
        idx = np.searchsorted(self._starts, addr, side="right").astype(np.int64) - 1
        ok = idx >= 0
        safe = np.where(ok, idx, 0)
        ok &= addr + np.uint64(size) <= self._ends[safe]
        return np.where(ok, idx, -1), ok

    def describe(self, address: int, size: int) -> tuple[str, str]:
        """(array name, 'name[i]' text) for a fault message about one address."""
        idx = int(np.searchsorted(self._starts, np.uint64(address), side="right")) - 1
        if idx < 0:
            return "?", f"address {address:#x} (below every array)"
        r = self.regions[idx]
        off = address - r.address
        element = off // r.element_bytes
        if off < r.nbytes:
            return r.name, f"{r.name}[{element}] (byte offset {off})"
        past = (off - r.nbytes) // r.element_bytes
        return r.name, (
            f"{r.name}[{element}] (byte offset {off}, {past} element(s) past the end "
            f"of '{r.name}', which has {r.nbytes // r.element_bytes} elements)"
        )


def gather(
    storage: np.ndarray, offsets: np.ndarray, dtype: np.dtype, mask: np.ndarray, full: bool = False
) -> np.ndarray:
    """Typed values at byte offsets (aligned, int64) of a uint8 storage; inactive lanes read
    element 0 (their offsets may be anything). `full`: every lane is active and in bounds."""
    view = storage.view(dtype)
    idx = _elements(offsets, dtype.itemsize)
    if not full:
        idx = np.where(mask, idx, 0)
    return view[idx]


def scatter(storage: np.ndarray, offsets: np.ndarray, values: np.ndarray, mask: np.ndarray, full: bool = False) -> None:
    """Typed store at byte offsets of the active lanes. When two lanes store to one address the
    highest-numbered thread's value stays (NumPy assigns in order); the hardware keeps one of
    them without saying which (PTX ISA, memory consistency: conflicting writes)."""
    view = storage.view(values.dtype)
    if full:
        view[_elements(offsets, values.dtype.itemsize)] = values
        return
    view[_elements(offsets[mask], values.dtype.itemsize)] = values[mask]


def _elements(offsets: np.ndarray, size: int) -> np.ndarray:
    """Aligned int64 byte offsets as element indices (a shift for power-of-two sizes)."""
    return offsets >> (size.bit_length() - 1) if size & (size - 1) == 0 else offsets // size
