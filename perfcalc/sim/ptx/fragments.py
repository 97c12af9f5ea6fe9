"""Where each lane's fragment elements sit in the matrix: the PTX ISA's maps for mma.m16n8k*
("Matrix Fragments for mma.m16n8k16 with floating point type", and the other shapes), and the
layout the engine gives nvcuda::wmma fragments.

wmma's layout is unspecified by the PTX ISA; ptxas lowers an m16n16k16 (m16n16k8 for tf32)
wmma.mma to two m16n8 HMMA/IMMA instructions, so its fragments are the mma fragments: A's is
the m16n8 A fragment (repeated where the wmma fragment has more registers, as f16's 8 do), B's
and C's are those of the two 8-column halves one after the other. The H100's Nsight Compute
counts of wmma loads and stores (benchmarks/hw/tensor_run/) follow this: 4 requests of 8 sectors
per f16 load, 8-byte stores of accumulator pairs. Other shapes (m32n8k16, m8n32k16) keep a
row-major layout of the engine's own (lane l's element e is element l + 32 e).
"""

from __future__ import annotations

import re

import numpy as np

from perfcalc.errors import CudaSyntaxError
from perfcalc.sim.ptx.parse import Instr

_LANE = np.arange(32)
_G, _T = _LANE >> 2, _LANE & 3  # groupID, threadID_in_group
_SHAPE = re.compile(r"^m(\d+)n(\d+)k(\d+)$")


def _i(n: int) -> np.ndarray:
    return np.arange(n)[None, :]


def a_map(k: int, t: str) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols), each (32 lanes, elements): where lane l's element i of A sits."""
    g, tg = _G[:, None], _T[:, None]
    if t in ("f16", "bf16") and k == 16:
        i = _i(8)
        return g + 8 * ((i >> 1) & 1), tg * 2 + (i & 1) + 8 * (i >> 2)
    if t in ("f16", "bf16") and k == 8:
        i = _i(4)
        return g + 8 * (i >> 1), tg * 2 + (i & 1)
    if t == "tf32" and k == 8:
        i = _i(4)
        return g + 8 * (i & 1), tg + 4 * (i >> 1)
    if t == "tf32" and k == 4:
        i = _i(2)
        return g + 8 * i, tg + 0 * i
    if t in ("s8", "u8") and k == 32:
        i = _i(16)
        return g + 8 * ((i >> 2) & 1), tg * 4 + (i & 3) + 16 * (i >> 3)
    if t in ("s8", "u8") and k == 16:
        i = _i(8)
        return g + 8 * (i >> 2), tg * 4 + (i & 3)
    raise KeyError((k, t))


def b_map(k: int, t: str) -> tuple[np.ndarray, np.ndarray]:
    """(rows = k, cols = n) of lane l's element i of B."""
    g, tg = _G[:, None], _T[:, None]
    if t in ("f16", "bf16") and k == 16:
        i = _i(4)
        return tg * 2 + (i & 1) + 8 * (i >> 1), g + 0 * i
    if t in ("f16", "bf16") and k == 8:
        i = _i(2)
        return tg * 2 + i, g + 0 * i
    if t == "tf32" and k == 8:
        i = _i(2)
        return tg + 4 * i, g + 0 * i
    if t == "tf32" and k == 4:
        i = _i(1)
        return tg + 0 * i, g + 0 * i
    if t in ("s8", "u8") and k == 32:
        i = _i(8)
        return tg * 4 + (i & 3) + 16 * (i >> 2), g + 0 * i
    if t in ("s8", "u8") and k == 16:
        i = _i(4)
        return tg * 4 + i, g + 0 * i
    raise KeyError((k, t))


def c_map() -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of lane l's element i of C and D (m16n8, every type)."""
    i = _i(4)
    return _G[:, None] + 8 * (i >> 1), _T[:, None] * 2 + (i & 1)


def wmma_tile(instr: Instr) -> tuple[int, int, int]:
    shape = next((_SHAPE.match(p) for p in instr.parts if _SHAPE.match(p)), None)
    if shape is None:
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line} names no mMnNkK shape")
    mm, nn, kk = (int(x) for x in shape.groups())
    return mm, nn, kk


def operand_dims(which: str, tile: tuple[int, int, int]) -> tuple[int, int]:
    mm, nn, kk = tile
    return {"a": (mm, kk), "b": (kk, nn), "c": (mm, nn), "d": (mm, nn)}[which]


def wmma_layout(which: str, tile: tuple[int, int, int], t: str, elements: int) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols), each (32 lanes, elements), of a wmma fragment (module docstring)."""
    mm, nn, kk = tile
    machine_k = {"tf32": 8, "f16": 16, "bf16": 16, "s8": 16, "u8": 16}.get(t, 16)
    if (mm, nn) == (16, 16) and kk == machine_k or which in ("c", "d") and (mm, nn) == (16, 16):
        if which == "a":
            rows, cols = a_map(kk, t)
        elif which == "b":
            r0, c0 = b_map(kk, t)
            rows, cols = np.concatenate([r0, r0], axis=1), np.concatenate([c0, c0 + 8], axis=1)
        else:
            r0, c0 = c_map()
            rows, cols = np.concatenate([r0, r0], axis=1), np.concatenate([c0, c0 + 8], axis=1)
        unique = rows.shape[1]
        pick = np.arange(elements) % unique
        return rows[:, pick], cols[:, pick]
    rows_n, cols_n = operand_dims(which, tile)
    unique = rows_n * cols_n // 32
    flat = _LANE[:, None] + 32 * (np.arange(elements)[None, :] % unique)
    return flat // cols_n, flat % cols_n
