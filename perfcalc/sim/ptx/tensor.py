"""Warp-level matrix instructions: mma.sync and ldmatrix.

Each is one operation of a whole warp: the 32 lanes' registers together hold the fragments of
A, B and C. The lane <-> (row, column) maps are the PTX ISA's ("Matrix Fragments for mma.m16n8k*",
"Warp-level matrix load instruction: ldmatrix"); the arithmetic is tensor_numerics.py's block
FMA of the target's generation, so results match the tensor cores bit for bit, not IEEE sums.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np

from perfcalc.errors import CudaSyntaxError
from perfcalc.sim.ptx import tensor_numerics as numerics
from perfcalc.sim.ptx.execute import Chunk, Env, operand, warps_with
from perfcalc.sim.ptx.fragments import a_map, b_map, c_map, operand_dims, wmma_layout, wmma_tile
from perfcalc.sim.ptx.parse import Instr
from perfcalc.sim.separable import dense

Op = Callable[[Chunk, np.ndarray, bool], None]
_SHAPE = re.compile(r"^m(\d+)n(\d+)k(\d+)$")


def _regs(text: str) -> list[str]:
    text = text.strip()
    if not text.startswith("{"):
        return [text]
    return [s.strip() for s in text.strip("{}").split(",")]


_WIDTH = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "s32": 32, "s8": 8, "u8": 8}


def _elements(words: list[np.ndarray], t: str) -> np.ndarray:
    """(warps, 32, elements) float64/int64 values packed in 32-bit registers, low bits first."""
    w = np.stack([x.reshape(-1, 32) for x in words], axis=-1).astype(np.uint32)  # (W, 32, regs)
    width = _WIDTH[t]
    per = 32 // width
    parts = [(w >> np.uint32(width * j)) & np.uint32((1 << width) - 1) for j in range(per)]
    bits = np.stack(parts, axis=-1).reshape(w.shape[0], 32, -1)  # element 2r+j: register r, part j
    if t == "f16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    if t == "bf16":
        return numerics.bf16_value(bits.astype(np.uint16))
    if t == "tf32":
        return numerics.tf32_value(bits)
    if t == "f32":
        return bits.view(np.float32).astype(np.float64)
    if t == "s32":
        return bits.view(np.int32).astype(np.int64)
    if t == "s8":
        return bits.astype(np.uint8).view(np.int8).astype(np.int64)
    return bits.astype(np.int64)  # u8


def machine_kind(atype: str, k: int) -> str:
    """The counters' kind of the HMMA/IMMA m16n8kK instruction for this input type and K."""
    width = {"f16": "16bit", "bf16": "16bit", "tf32": "tf32", "s8": "int8", "u8": "int8"}[atype]
    return f"tensor_{width}_k{k}"


def build_mma(instr: Instr, env: Env) -> tuple[Op, str, int]:
    """mma.sync.aligned.m16n8k{4,8,16,32}.row.col.dtype.atype.btype.ctype d, a, b, c: its run,
    and the machine instruction it is (one per warp)."""
    shape = next((_SHAPE.match(p) for p in instr.parts if _SHAPE.match(p)), None)
    types = [p for p in instr.parts if p in _WIDTH]
    if shape is None or len(types) != 4 or instr.parts[1] != "sync":
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: this mma form is not implemented")
    mm, nn, kk = (int(x) for x in shape.groups())
    dtype, atype, btype, ctype = types
    what = f"{instr.opcode} at line {instr.line}"
    if (mm, nn) != (16, 8) or atype != btype and {atype, btype} != {"s8", "u8"}:
        raise CudaSyntaxError(f"{what}: only m16n8 shapes with one input type are implemented")
    try:
        a_rows, a_cols = a_map(kk, atype)
        b_rows, b_cols = b_map(kk, btype)
    except KeyError:
        raise CudaSyntaxError(f"{what}: shape m{mm}n{nn}k{kk} on {atype} is not an mma.sync form") from None
    integer = atype in ("s8", "u8")
    if integer and (dtype, ctype) != ("s32", "s32") or not integer and dtype != ctype:
        raise CudaSyntaxError(f"{what}: accumulator types {dtype}/{ctype} are not implemented")
    cc = env.pricer.arch.cc
    if not integer:
        numerics.model(cc, atype)  # refuses a CC without a model now, not at run time
    satfinite = "satfinite" in instr.parts
    d_regs, a_regs, b_regs, c_regs = (_regs(o) for o in instr.operands[:4])
    read_a = [operand(r, "b32", env) for r in a_regs]
    read_b = [operand(r, "b32", env) for r in b_regs]
    read_c = [operand(r, "b32", env) for r in c_regs]
    c_rows, c_cols = c_map()

    def words(ch: Chunk, readers: list[Callable[[Chunk], object]]) -> list[np.ndarray]:
        return [np.broadcast_to(np.asarray(dense(r(ch))).view(np.uint32), (ch.n,)) for r in readers]

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        warps = warps_with(m)
        a_el, b_el = _elements(words(ch, read_a), atype), _elements(words(ch, read_b), btype)
        c_el = _elements(words(ch, read_c), ctype)
        nw = a_el.shape[0]
        A = np.zeros((nw, 16, kk))
        B = np.zeros((nw, kk, 8))
        Cm = np.zeros((nw, 16, 8))
        A[:, a_rows, a_cols] = a_el
        B[:, b_rows, b_cols] = b_el
        Cm[:, c_rows, c_cols] = c_el
        if not full:
            A, B, Cm = A[warps], B[warps], Cm[warps]
        if integer:
            D = np.einsum("wmk,wkn->wmn", A.astype(np.int64), B.astype(np.int64)) + Cm.astype(np.int64)
            D = np.clip(D, -(2**31), 2**31 - 1) if satfinite else (D + 2**31) % 2**32 - 2**31
            out_el = D[:, c_rows, c_cols].astype(np.int32).view(np.uint32)
        else:
            D = numerics.matmul(A, B, Cm, atype, cc, dtype)
            out_el = D[:, c_rows, c_cols].astype(np.float16 if dtype == "f16" else np.float32)
        if dtype == "f16":  # two halves per register, element 2r in the low bits
            packed = out_el.view(np.uint16).reshape(out_el.shape[0], 32, -1, 2).astype(np.uint32)
            regs = packed[..., 0] | (packed[..., 1] << np.uint32(16))
        else:
            regs = out_el.view(np.uint32)
        if not full:
            every = np.zeros((warps.size, 32, regs.shape[-1]), dtype=np.uint32)
            every[warps] = regs
            regs = every
        for j, name in enumerate(d_regs):
            value = np.ascontiguousarray(regs[:, :, j]).reshape(-1)
            ch.write(name, value.view(np.float32) if ch.storage_of(name) == np.float32 else value, m, full)

    return run, machine_kind(atype, kk), 1


_PER_REG = {"f16": 2, "bf16": 2, "tf32": 1, "f32": 1, "s32": 1, "s8": 4, "u8": 4}


def build_wmma_mma(instr: Instr, env: Env) -> tuple[Op, str, int]:
    """wmma.mma.sync.aligned.alayout.blayout.shape.dtype{.atype.btype}.ctype d, a, b, c, in the
    fragment layout of matrix_memops.py (load, mma and store agree on it): its run, and the
    machine instructions it becomes (m16n8 tiles of K 16, or 4 for tf32, as ptxas lowers it)."""
    tile = wmma_tile(instr)
    types = [p for p in instr.parts[instr.parts.index(next(p for p in instr.parts if _SHAPE.match(p))) + 1 :]]
    types = [p for p in types if p in _PER_REG]
    if len(types) == 2:
        dtype, ctype = types
        atype = "f16"
    elif len(types) == 4:
        dtype, atype, _, ctype = types
    else:
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: this wmma.mma form is not implemented")
    integer = atype in ("s8", "u8")
    cc = env.pricer.arch.cc
    if not integer:
        numerics.model(cc, atype)
    satfinite = "satfinite" in instr.parts
    # ptxas lowers wmma m16n16k8 tf32 to HMMA.1684 (k = 4) on sm_90 (SASS in
    # benchmarks/hw/tensor_run/wmma_gemm.sass.txt): every 4 products round, not every 8
    machine_k = 4 if atype == "tf32" else None
    mm, nn, kk = tile
    step_k = machine_k or 16
    # m16n8 tiles of the output (m8n32 is computed transposed, as m32n8: 2 tiles, as the H100
    # counts), each one instruction per step of K
    count = max(1, mm * nn // 128) * -(-kk // step_k)
    d_regs, a_regs, b_regs, c_regs = (_regs(o) for o in instr.operands[:4])
    maps = {}
    for which, regs, t in (("a", a_regs, atype), ("b", b_regs, atype), ("c", c_regs, ctype), ("d", d_regs, dtype)):
        rows, cols = operand_dims(which, tile)
        maps[which] = (rows, cols, *wmma_layout(which, tile, t, len(regs) * _PER_REG[t]))
    readers = {w: [operand(r, "b32", env) for r in regs] for w, regs in (("a", a_regs), ("b", b_regs), ("c", c_regs))}
    kinds = {"a": atype, "b": atype, "c": ctype}

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        warps = warps_with(m)
        mats = {}
        for w in ("a", "b", "c"):
            rows, cols, r_of, c_of = maps[w]
            words = [np.broadcast_to(np.asarray(dense(r(ch))).view(np.uint32), (ch.n,)) for r in readers[w]]
            el = _elements(words, kinds[w])
            mat = np.zeros((el.shape[0], rows, cols))
            mat[:, r_of, c_of] = el  # repeated elements write the same value twice
            mats[w] = mat[warps]
        if integer:
            prod = np.einsum("wmk,wkn->wmn", mats["a"].astype(np.int64), mats["b"].astype(np.int64))
            D = prod + mats["c"].astype(np.int64)
            D = np.clip(D, -(2**31), 2**31 - 1) if satfinite else (D + 2**31) % 2**32 - 2**31
        else:
            D = numerics.matmul(mats["a"], mats["b"], mats["c"], atype, cc, dtype, machine_k)
        _, _, r_of, c_of = maps["d"]
        el = D[:, r_of, c_of]
        if integer:
            words = el.astype(np.int32).view(np.uint32)
        elif dtype == "f16":
            h = el.astype(np.float16).view(np.uint16).reshape(el.shape[0], 32, -1, 2).astype(np.uint32)
            words = h[..., 0] | (h[..., 1] << np.uint32(16))
        else:
            words = el.astype(np.float32).view(np.uint32)
        every = np.zeros((warps.size, 32, words.shape[-1]), dtype=np.uint32)
        every[warps] = words
        for j, name in enumerate(d_regs):
            value = np.ascontiguousarray(every[:, :, j]).reshape(-1)
            ch.write(name, value.view(np.float32) if ch.storage_of(name) == np.float32 else value, m, full)

    return run, machine_kind(atype, step_k), count
