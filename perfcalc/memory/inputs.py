"""Checking and normalising what callers hand to the pricing functions.

Everything a user can get wrong is rejected here with one line naming the value, the limit and
where the limit comes from, so the rule modules can assume clean (W, 32) int64 / bool arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from perfcalc.errors import InputError

WARP = 32
ACCESS_SIZES = (1, 2, 4, 8, 16)
OPS = ("load", "store")
_TOO_HIGH = 1 << 47  # keys pack 128-byte line numbers into 40 bits (memory/runs.py)
_HIGH_BITS = -_TOO_HIGH  # bit 47 and up, the sign bit included
_SIZE_SOURCE = (
    "a warp-level access moves 1, 2, 4, 8 or 16 bytes per lane (CUDA Programming Guide, 'Device Memory Accesses')"
)


def check_size(size: Any) -> int:
    bad_type = isinstance(size, bool) or not isinstance(size, (int, np.integer))
    if bad_type or int(size) not in ACCESS_SIZES:
        raise InputError(f"access size {size!r} bytes is not allowed: {_SIZE_SOURCE}")
    return int(size)


def check_op(op: str) -> str:
    if not isinstance(op, str) or op not in OPS:
        raise InputError(f"op {op!r} is not 'load' or 'store'")
    return op


def warp_arrays(addresses: Any, active: Any) -> tuple[np.ndarray, np.ndarray]:
    """One warp's lane addresses (up to 32) and mask -> (1, 32) arrays; missing lanes inactive."""
    addr = np.asarray(addresses)
    if addr.ndim != 1:
        raise InputError(f"addresses of one warp must be a flat list, got shape {addr.shape}")
    n = addr.shape[0]
    if n > WARP:
        raise InputError(f"{n} lane addresses given; a warp has {WARP} lanes (warp_size in devices/cc_X_Y.yaml)")
    full = np.zeros((1, WARP), dtype=np.int64)
    full[0, :n] = _as_int64(addr, "addresses")
    mask = np.zeros((1, WARP), dtype=bool)
    if active is None:
        mask[0, :n] = True
    else:
        act = np.asarray(active, dtype=bool)
        if act.shape != (n,):
            raise InputError(f"active mask has {act.size} entries but {n} addresses were given")
        mask[0, :n] = act
    return full, mask


def batch_arrays(addresses: Any, active: Any) -> tuple[np.ndarray, np.ndarray | None]:
    """(W, 32) addresses as int64 and the mask as bool (None when every lane is active)."""
    addr = np.asarray(addresses)
    if addr.ndim != 2 or addr.shape[1] != WARP:
        raise InputError(f"batch addresses must have shape (warps, {WARP}), got {addr.shape}")
    addr = _as_int64(addr, "addresses")
    if active is None:
        return addr, None
    mask = np.asarray(active)
    if mask.shape != addr.shape:
        raise InputError(f"active mask shape {mask.shape} differs from addresses shape {addr.shape}")
    mask = mask.astype(bool, copy=False)
    if mask.all():
        return addr, None
    return addr, mask


def _as_int64(addr: np.ndarray, what: str) -> np.ndarray:
    if addr.dtype == np.int64:
        return addr
    if addr.size and not np.issubdtype(addr.dtype, np.integer):
        if np.issubdtype(addr.dtype, np.floating) and np.all(np.mod(addr, 1) == 0):
            return addr.astype(np.int64)
        raise InputError(f"{what} must be integers (byte addresses), got dtype {addr.dtype}")
    return addr.astype(np.int64)


def check_addresses(addr: np.ndarray, mask: np.ndarray | None, size: int, space: str) -> None:
    """Active addresses must be non-negative and naturally aligned (else the hardware faults)."""
    if addr.size == 0:
        return
    # One OR-reduction over all lanes finds any sign bit or low bit that should not be set (no
    # temporaries); only when it does are inactive lanes excluded and the culprit located.
    if not int(np.bitwise_or.reduce(addr, axis=None)) & (_HIGH_BITS | (size - 1)):
        return
    checked = addr if mask is None else np.where(mask, addr, 0)
    bad = (checked < 0) | (checked >= _TOO_HIGH) | ((checked & (size - 1)) != 0)
    if not bad.any():
        return
    warp, lane = (int(i) for i in np.argwhere(bad)[0])
    where = f"lane {lane}" if addr.shape[0] == 1 else f"warp {warp} lane {lane}"
    value = int(addr[warp, lane])
    if value < 0:
        raise InputError(f"{where}: {space} address {value} is negative; byte addresses start at 0")
    if value >= _TOO_HIGH:
        raise InputError(
            f"{where}: {space} address {value} is beyond 2**47 bytes (128 TiB), "
            "the largest address perfcalc prices; give offsets into the buffer"
        )
    raise InputError(
        f"{where}: {space} address {value} is not a multiple of the {size}-byte "
        "access size; accesses must be naturally aligned or the hardware faults (CUDA "
        "Programming Guide, 'Size and Alignment Requirement')"
    )
