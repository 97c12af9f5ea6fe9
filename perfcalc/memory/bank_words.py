"""Which bank word each lane of one warp reads, and in which pass its bank delivers it: the
picture behind `banks --plot`.

A family processes a warp in lane groups (shared_memory.group_unit); within a group a bank
delivers one distinct word per pass, lanes asking for the same word share it (broadcast). So a
word's pass is its group's first pass plus the word's rank among the distinct words of its bank
in that group, and the warp's passes are the sum over groups of the largest bank's count. That
is shared_memory's rule wherever the rule is "distinct words per bank" (every family on
accesses without repeated words, and 2.x, 3.x and 5.x-12.x loads with them); the exceptions,
each priced by shared_memory and named in `exact`, are 1.x requests with a word repeated across
lanes (one broadcast word per step), 2.x 128-bit accesses (one more pass per quarter-warp) and
uniform lane pairs on 5.x-12.x (regrouped lanes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from perfcalc.memory.inputs import check_addresses, check_size, warp_arrays
from perfcalc.memory.shared_memory import _lane_groups, _uniform_pairs, _units, resolve_bank_mode
from perfcalc.specs import Arch, as_arch


@dataclass(frozen=True)
class BankWord:
    """One word a lane reads: its bank, the bank's row (word index // banks), the lane group and
    the pass (0-based, counted over the whole warp) in which the bank delivers it."""

    lane: int
    group: int
    bank: int
    row: int
    pass_index: int


@dataclass(frozen=True)
class BankWords:
    cc: str
    banks: int
    words: tuple[BankWord, ...]
    passes: int  # sum over groups of the busiest bank's distinct words
    exact: bool  # False where the family's rule differs from distinct words per bank (see module doc)


def bank_words(
    cc: Arch | str, addresses: Any, size: int = 4, active: Any = None, op: str = "load", bank_mode: int | None = None
) -> BankWords:
    """Every active lane's bank words for one warp-level shared access, with their passes."""
    arch = as_arch(cc)
    size = check_size(size)
    mode = resolve_bank_mode(arch, bank_mode)
    addr, mask = warp_arrays(addresses, active)
    check_addresses(addr, mask, size, "shared")
    family = arch.shared_family
    if family.rule == "half-warp":  # 1.x: 16 banks of 32-bit words, half-warps, 32-bit sub-requests
        k = max(1, size // 4)
        word = (addr[0] >> 2)[:, None] + np.arange(k)[None, :]
        bank, row = word & 15, word >> 4
        group = (np.arange(32) // 16)[:, None] * k + np.arange(k)[None, :]
        repeated = len({int(w) for w in word[mask[0]].ravel()}) < int(mask[0].sum()) * k
        exact = not repeated
    else:
        b, r, k = _units(family, addr, size, mode)
        bank, row = b[0].reshape(32, k), r[0].reshape(32, k)
        group = np.repeat(_lane_groups(family, size), k).reshape(32, k)
        uniform = family.uniform_pairs and op == "load" and size >= 8 and bool(_uniform_pairs(addr, mask)[0])
        exact = not (uniform or (family.quarter_warp_128 and size == 16))
    lanes = [lane for lane in range(32) if mask[0, lane]]
    slots: dict[tuple[int, int], list[int]] = {}  # (group, bank) -> its distinct rows, ascending
    for lane in lanes:
        for j in range(k):
            key = (int(group[lane, j]), int(bank[lane, j]))
            slots.setdefault(key, [])
            if int(row[lane, j]) not in slots[key]:
                slots[key].append(int(row[lane, j]))
    depth: dict[int, int] = {}
    for (g, _), rows in slots.items():
        rows.sort()
        depth[g] = max(depth.get(g, 0), len(rows))
    first = {g: sum(depth[h] for h in sorted(depth) if h < g) for g in depth}
    words = tuple(
        BankWord(
            lane,
            int(group[lane, j]),
            int(bank[lane, j]),
            int(row[lane, j]),
            first[int(group[lane, j])] + slots[(int(group[lane, j]), int(bank[lane, j]))].index(int(row[lane, j])),
        )
        for lane in lanes
        for j in range(k)
    )
    return BankWords(arch.cc, arch.shared_memory_banks, words, sum(depth.values()), exact)
