"""Shared-memory bank conflicts of warp-level loads and stores, for every bank family.

`shared_access_batch` is the one implementation (many warps, no Python loop per warp);
`shared_access` prices one warp through it and adds the bank of every lane.

Rules (reference/memory.md section 3): passes ("wavefronts" in Nsight) = sum over the lane
groups a family processes together of the largest number of distinct bank words one bank must
deliver. Groups: 1.x half-warps (and 32-bit sub-requests); 2.x and 5.x-9.0 the warp for <= 4-byte
words, half-warps for 8, quarter-warps for 16; 3.x the warp up to 8 bytes, half-warps for 16.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from perfcalc.errors import InputError
from perfcalc.memory import shared_cc1
from perfcalc.memory.inputs import (
    batch_arrays,
    check_addresses,
    check_op,
    check_size,
    warp_arrays,
)
from perfcalc.memory.runs import any_rows, bank_passes, distinct_banks, narrow_keys
from perfcalc.results import Result
from perfcalc.specs import Arch, as_arch
from perfcalc.specs.families import SharedFamily
from perfcalc.specs.registry import DeviceName

CHUNK_WARPS = 16384  # warps priced per step (temporaries stay in cache)
_PER_WARP = ("wavefronts", "ideal_wavefronts", "bank_conflicts", "conflict_degree")


@dataclass(frozen=True, eq=False)
class SharedBatchCost:
    """Per-warp arrays (shape (W,)) and totals. `uniform_pairs` marks 5.x-9.0 loads processed
    on 16 representative lanes (memory.md 3.4); None on other families."""

    cc: str
    family: str
    size: int
    op: str
    bank_mode: int
    wavefronts: np.ndarray
    ideal_wavefronts: np.ndarray
    bank_conflicts: np.ndarray
    conflict_degree: np.ndarray
    total_wavefronts: int
    total_ideal_wavefronts: int
    total_bank_conflicts: int
    uniform_pairs: np.ndarray | None = None


@dataclass(frozen=True)
class SharedAccessCost(Result):
    """What one warp-level shared instruction costs on one CC.

    wavefronts = serialized passes (both half-warps on 1.x); ideal_wavefronts = the byte-based
    minimum max(1, ceil(active lanes x size / bytes per pass)) per request, which is Nsight's
    ideal on the H100; bank_conflicts = max(0, wavefronts - ideal); conflict_degree = the "k" of
    the worst group's k-way conflict. lane_banks: bank of each lane's first word (None: inactive).
    """

    cc: str
    family: str
    size: int
    op: str
    bank_mode: int
    banks: int
    group_unit: str
    active_lanes: int
    wavefronts: int
    ideal_wavefronts: int
    bank_conflicts: int
    conflict_degree: int
    uniform_pairs: bool | None
    lane_banks: tuple[int | None, ...]


def resolve_bank_mode(arch: Arch, bank_mode: int | None) -> int:
    """Bank width in bytes: the CC's default (first of bank_widths_bytes) or a listed one."""
    widths = arch.bank_widths_bytes
    if bank_mode is None:
        return widths[0]
    if isinstance(bank_mode, bool) or not isinstance(bank_mode, (int, np.integer)) or bank_mode not in widths:
        listed = " or ".join(str(w) for w in widths)
        raise InputError(
            f"bank mode {bank_mode!r} bytes is not available on CC "
            f"{arch.cc}: its banks are {listed} bytes wide "
            f"({arch.cite('bank_widths_bytes')}; CUDA C Programming Guide 4.2, F.5.3)"
        )
    return int(bank_mode)


def bytes_per_pass(arch: Arch) -> int:
    """Bytes one pass can deliver to one request: 64 on 1.x (per half-warp), 128 on 2.x and
    5.x-9.0, 256 on 3.x whose 32 banks are 64 bits wide in both modes (memory.md 3.3)."""
    return arch.shared_memory_banks * max(arch.bank_widths_bytes)


def group_unit(family: SharedFamily, size: int, uniform: bool = False) -> str:
    if family.rule == "half-warp":
        return "half-warp" + (f" x {size // 4} 32-bit requests" if size > 4 else "")
    if family.eight_byte_mode:
        return "half-warp" if size == 16 else "warp"
    if uniform:
        return "warp (16 lanes)" if size == 8 else "half-warp (8 lanes)"
    return {8: "half-warp", 16: "quarter-warp"}.get(size, "warp")


def shared_access_batch(
    cc: DeviceName, addresses: Any, size: int, active: Any = None, op: str = "load", bank_mode: int | None = None
) -> SharedBatchCost:
    """Cost of one shared instruction executed by W warps: addresses (W, 32) int64 byte offsets
    in the block's shared memory, active (W, 32) bool or None (all lanes active)."""
    arch = as_arch(cc)
    size, op = check_size(size), check_op(op)
    mode = resolve_bank_mode(arch, bank_mode)
    addr, mask = batch_arrays(addresses, active)
    check_addresses(addr, mask, size, "shared")
    if addr.shape[0] <= CHUNK_WARPS:
        return _price(arch, addr, mask, size, op, mode)
    parts = [
        _price(arch, addr[i : i + CHUNK_WARPS], None if mask is None else mask[i : i + CHUNK_WARPS], size, op, mode)
        for i in range(0, addr.shape[0], CHUNK_WARPS)
    ]
    joined = {f: np.concatenate([getattr(p, f) for p in parts]) for f in _PER_WARP}
    uniform = None if parts[0].uniform_pairs is None else np.concatenate([p.uniform_pairs for p in parts])
    return _result(arch, size, op, mode, uniform=uniform, **joined)


def _price(arch: Arch, addr: np.ndarray, mask: np.ndarray | None, size: int, op: str, mode: int) -> SharedBatchCost:
    family = arch.shared_family
    warps = addr.shape[0]
    uniform = None
    if family.rule == "half-warp":
        passes, degree = shared_cc1.passes(addr, mask, size)
    else:
        if family.uniform_pairs:
            uniform = _uniform_pairs(addr, mask) if op == "load" and size >= 8 else np.zeros(warps, dtype=bool)
        passes, degree = _bank_rule(family, addr, mask, size, mode, uniform)
    ideal = _ideal(arch, mask, size, warps)
    return _result(arch, size, op, mode, passes, ideal, np.maximum(passes - ideal, 0), degree, uniform)


def _result(
    arch: Arch,
    size: int,
    op: str,
    mode: int,
    wavefronts: np.ndarray,
    ideal_wavefronts: np.ndarray,
    bank_conflicts: np.ndarray,
    conflict_degree: np.ndarray,
    uniform: np.ndarray | None,
) -> SharedBatchCost:
    return SharedBatchCost(
        cc=arch.cc,
        family=arch.shared_memory_family,
        size=size,
        op=op,
        bank_mode=mode,
        wavefronts=wavefronts,
        ideal_wavefronts=ideal_wavefronts,
        bank_conflicts=bank_conflicts,
        conflict_degree=conflict_degree,
        total_wavefronts=int(wavefronts.sum()),
        total_ideal_wavefronts=int(ideal_wavefronts.sum()),
        total_bank_conflicts=int(bank_conflicts.sum()),
        uniform_pairs=uniform,
    )


def _units(family: SharedFamily, addr: np.ndarray, size: int, mode: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Bank-array words each lane touches: (bank, row) arrays of shape (W, 32 * k), lane-major.
    Two entries conflict when they share a bank but not a row."""
    warps = addr.shape[0]
    unit_bytes = 8 if (family.eight_byte_mode and mode == 8) else 4
    k = max(1, size // unit_bytes)
    unit = narrow_keys(addr, 3 if unit_bytes == 8 else 2)
    if k > 1:
        unit = (unit[:, :, None] + np.arange(k, dtype=np.int64)).reshape(warps, 32 * k)
    # 3.x 4-byte mode: words i and i+32 of one 64-word segment share a 64-bit bank row.
    row_shift = 6 if (family.eight_byte_mode and mode == 4) else 5
    return unit & 31, unit >> row_shift, k


def _lane_groups(family: SharedFamily, size: int) -> np.ndarray:
    lanes = (16 if size == 16 else 32) if family.eight_byte_mode else {8: 16, 16: 8}.get(size, 32)
    return np.arange(32, dtype=np.int64) // lanes


def _bank_rule(
    family: SharedFamily, addr: np.ndarray, mask: np.ndarray | None, size: int, mode: int, uniform: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    bank, row, k = _units(family, addr, size, mode)
    group = np.repeat(_lane_groups(family, size), k)[None, :] if k > 1 else _lane_groups(family, size)[None, :]
    if uniform is not None and uniform.any():
        # Uniform pairs: 64-bit loads run as one group, 128-bit loads as two (memory.md 3.4);
        # the duplicate lanes add no distinct word, so regrouping all lanes is exact.
        merged = np.repeat(np.arange(32, dtype=np.int64) // (32 if size == 8 else 16), k)
        group = np.where(uniform[:, None], merged[None, :], group)
    group = np.broadcast_to(group, bank.shape)
    valid = mask if (mask is None or k == 1) else np.repeat(mask, k, axis=1)
    group_units = k * (32 // (int(_lane_groups(family, size)[-1]) + 1))
    easy = distinct_banks(bank, valid, group_units)
    if uniform is not None:
        easy &= ~uniform
    passes = np.zeros(addr.shape[0], dtype=np.int64)
    groups = np.zeros(addr.shape[0], dtype=np.int64)
    rows = np.flatnonzero(easy)
    if rows.size:  # every bank word distinct per group: one pass per group with a lane
        per_row = 32 * k // group_units
        if valid is None:
            groups[rows] = per_row
        else:
            present = any_rows(valid[rows].reshape(rows.size * per_row, group_units))
            groups[rows] = present.reshape(rows.size, per_row).sum(axis=1)
        passes[rows] = groups[rows]
    largest = np.minimum(passes, 1)
    rows = np.flatnonzero(~easy)
    if rows.size:
        sub_valid = None if valid is None else valid[rows]
        passes[rows], largest[rows], groups[rows] = bank_passes(bank[rows], row[rows], group[rows], sub_valid)
    if family.quarter_warp_128 and size == 16:
        # 2.x 128-bit: "add 1 to the maximum number of threads in a quarter-warp that access
        # different addresses belonging to the same bank" (PG 4.2 F.4.3); memory.md 8.4 reading:
        # each active quarter-warp costs that degree.
        return passes + groups, largest + (groups > 0)
    return passes, largest


def _uniform_pairs(addr: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """Per warp: every active lane l has lane l^1 (or every one has lane l^2) active with the
    same address (memory.md 3.4; pairs l <-> l^16 do not count)."""
    lanes = np.arange(32)
    out = np.zeros(addr.shape[0], dtype=bool)
    any_active = np.ones(addr.shape[0], dtype=bool) if mask is None else mask.any(axis=1)
    for flip in (1, 2):
        partner = lanes ^ flip
        same = addr == addr[:, partner]
        if mask is not None:
            same = ~mask | (mask[:, partner] & same)
        out |= same.all(axis=1)
    return out & any_active


def _ideal(arch: Arch, mask: np.ndarray | None, size: int, warps: int) -> np.ndarray:
    """max(1, ceil(active bytes / bytes per pass)) per request with an active lane."""
    per_pass = bytes_per_pass(arch)
    parts = arch.shared_family.parts_per_warp
    lanes = 32 // parts
    if mask is None:
        active = np.full((warps, parts), lanes, dtype=np.int64)
    else:
        active = mask.reshape(warps, parts, lanes).sum(axis=2)
    ideal = np.where(active > 0, np.maximum(1, -(-active * size // per_pass)), 0)
    return ideal.sum(axis=1)


def lane_banks(arch: Arch, addr: np.ndarray, mask: np.ndarray, mode: int) -> np.ndarray:
    """Bank of each lane's first word: (address / bank width) mod banks, -1 for inactive."""
    width = 8 if (arch.shared_family.eight_byte_mode and mode == 8) else 4
    banks = (addr // width) % arch.shared_memory_banks
    return np.where(mask, banks, -1)


def shared_access(
    cc: DeviceName, addresses: Any, size: int, active: Any = None, op: str = "load", bank_mode: int | None = None
) -> SharedAccessCost:
    """Cost of one warp-level shared load or store: up to 32 lane byte offsets, the access size
    (1, 2, 4, 8 or 16 bytes), an optional active mask and the bank mode (4 or 8) on 3.x."""
    arch = as_arch(cc)
    size, op = check_size(size), check_op(op)
    mode = resolve_bank_mode(arch, bank_mode)
    addr, mask = warp_arrays(addresses, active)
    check_addresses(addr, mask, size, "shared")
    r = _price(arch, addr, mask, size, op, mode)
    uniform = None if r.uniform_pairs is None else bool(r.uniform_pairs[0])
    banks = lane_banks(arch, addr, mask, mode)[0]
    return SharedAccessCost(
        cc=arch.cc,
        family=r.family,
        size=size,
        op=op,
        bank_mode=mode,
        banks=arch.shared_memory_banks,
        group_unit=group_unit(arch.shared_family, size, bool(uniform)),
        active_lanes=int(mask.sum()),
        wavefronts=int(r.wavefronts[0]),
        ideal_wavefronts=int(r.ideal_wavefronts[0]),
        bank_conflicts=int(r.bank_conflicts[0]),
        conflict_degree=int(r.conflict_degree[0]),
        uniform_pairs=uniform,
        lane_banks=tuple(None if b < 0 else int(b) for b in banks),
    )
