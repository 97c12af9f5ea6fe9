"""Warp-level matrix instructions: mma.sync and ldmatrix.

Each is one operation of a whole warp: the 32 lanes' registers together hold the fragments of
A, B and C. The lane <-> (row, column) maps are the PTX ISA's ("Matrix Fragments for mma.m16n8k*",
"Warp-level matrix load instruction: ldmatrix"); the arithmetic is tensor_numerics.py's block
FMA of the target's generation, so results match the tensor cores bit for bit, not IEEE sums.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from perfcalc.errors import CudaSyntaxError
from perfcalc.sim.ptx import tensor_numerics as numerics
from perfcalc.sim.ptx.execute import Chunk, Env, operand, warps_with
from perfcalc.sim.ptx.fragments import a_map, b_map, c_map, operand_dims, wmma_layout, wmma_tile
from perfcalc.sim.ptx.lowprec import bf16_decode
from perfcalc.sim.ptx.memops import _regs
from perfcalc.sim.ptx.parse import Instr
from perfcalc.sim.separable import dense

Op = Callable[[Chunk, np.ndarray, bool], None]


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
        return bf16_decode(bits)
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


Layout = tuple[int, int, np.ndarray, np.ndarray]  # rows, cols, and each lane's element positions


def _warp_mma(
    env: Env,
    operands: list[list[str]],
    layouts: dict[str, Layout],
    types: dict[str, str],
    satfinite: bool,
    machine_k: int | None = None,
) -> Op:
    """The run of one warp-wide D = A B + C (mma.sync and wmma.mma alike): gather each warp's
    fragments into matrices by `layouts`, multiply (integers exactly, floats by the target's
    block FMA, blocks no longer than the machine instruction's K), scatter D back."""
    d_regs, a_regs, b_regs, c_regs = operands
    readers = {"a": a_regs, "b": b_regs, "c": c_regs}
    reads = {w: [operand(r, "b32", env) for r in regs] for w, regs in readers.items()}
    integer = types["a"] in ("s8", "u8")
    cc, dtype = env.pricer.arch.cc, types["d"]

    def run(ch: Chunk, m: np.ndarray, full: bool) -> None:
        warps = warps_with(m)
        mats = {}
        for w in "abc":
            rows, cols, r_of, c_of = layouts[w]
            words = [np.broadcast_to(np.asarray(dense(r(ch))).view(np.uint32), (ch.n,)) for r in reads[w]]
            el = _elements(words, types[w])
            mat = np.zeros((el.shape[0], rows, cols))
            mat[:, r_of, c_of] = el  # a fragment's repeated elements write the same value twice
            mats[w] = mat if full else mat[warps]
        if integer:
            D = np.einsum("wmk,wkn->wmn", mats["a"].astype(np.int64), mats["b"].astype(np.int64)) + mats["c"].astype(
                np.int64
            )
            D = np.clip(D, -(2**31), 2**31 - 1) if satfinite else (D + 2**31) % 2**32 - 2**31
        else:
            D = numerics.matmul(mats["a"], mats["b"], mats["c"], types["a"], cc, dtype, machine_k)
        el = D[:, layouts["d"][2], layouts["d"][3]]
        if integer:
            regs = el.astype(np.int32).view(np.uint32)
        elif dtype == "f16":  # two halves per register, element 2r in the low bits
            h = el.astype(np.float16).view(np.uint16).reshape(el.shape[0], 32, -1, 2).astype(np.uint32)
            regs = h[..., 0] | (h[..., 1] << np.uint32(16))
        else:
            regs = el.astype(np.float32).view(np.uint32)
        if not full:
            every = np.zeros((warps.size, 32, regs.shape[-1]), dtype=np.uint32)
            every[warps] = regs
            regs = every
        for j, name in enumerate(d_regs):
            value = np.ascontiguousarray(regs[:, :, j]).reshape(-1)
            ch.write(name, value.view(np.float32) if ch.storage_of(name) == np.float32 else value, m, full)

    return run


def _operands(instr: Instr) -> list[list[str]]:
    """The d, a, b, c register lists of an mma or wmma.mma."""
    if len(instr.operands) != 4:
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line} takes 4 operands (d, a, b, c)")
    return [_regs(o) for o in instr.operands]


def build_mma(instr: Instr, env: Env) -> tuple[Op, str, int]:
    """mma.sync.aligned.m16n8k{4,8,16,32}.row.col.dtype.atype.btype.ctype d, a, b, c: its run,
    and the machine instruction it is (one per warp)."""
    tile = wmma_tile(instr)
    types = [p for p in instr.parts if p in _WIDTH]
    if len(types) != 4 or instr.parts[1] != "sync":
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: this mma form is not implemented")
    mm, nn, kk = tile
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
    if not integer:
        numerics.model(env.pricer.arch.cc, atype)  # refuses a CC without a model now, not at run time
    c_rows, c_cols = c_map()
    layouts: dict[str, Layout] = {
        "a": (16, kk, a_rows, a_cols),
        "b": (kk, 8, b_rows, b_cols),
        "c": (16, 8, c_rows, c_cols),
        "d": (16, 8, c_rows, c_cols),
    }
    operands = _operands(instr)
    types_of = {"a": atype, "b": btype, "c": ctype, "d": dtype}
    return _warp_mma(env, operands, layouts, types_of, "satfinite" in instr.parts), machine_kind(atype, kk), 1


def build_wmma_mma(instr: Instr, env: Env) -> tuple[Op, str, int]:
    """wmma.mma.sync.aligned.alayout.blayout.shape.dtype{.atype.btype}.ctype d, a, b, c, in the
    fragment layout of fragments.py (load, mma and store agree on it): its run, and the machine
    instructions it becomes (m16n8 tiles of K 16, or 4 for tf32, as ptxas lowers it)."""
    tile = wmma_tile(instr)
    types = [p for p in instr.parts if p in _WIDTH]
    if len(types) == 2:
        dtype, ctype = types
        atype = "f16"
    elif len(types) == 4:
        dtype, atype, _, ctype = types
    else:
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: this wmma.mma form is not implemented")
    if atype not in ("s8", "u8"):
        numerics.model(env.pricer.arch.cc, atype)
    # ptxas lowers wmma m16n16k8 tf32 to HMMA.1684 (k = 4) on sm_90 (SASS in
    # benchmarks/hw/tensor_run/wmma_gemm.sass.txt): every 4 products round, not every 8
    machine_k = 4 if atype == "tf32" else None
    mm, nn, kk = tile
    step_k = machine_k or 16
    # m16n8 tiles of the output (m8n32 is computed transposed, as m32n8: 2 tiles, as the H100
    # counts), each one instruction per step of K
    count = max(1, mm * nn // 128) * -(-kk // step_k)
    operands = _operands(instr)
    types_of = {"a": atype, "b": atype, "c": ctype, "d": dtype}
    layouts: dict[str, Layout] = {}
    for which, regs in zip("dabc", operands, strict=True):
        rows, cols = operand_dims(which, tile)
        elements = len(regs) * 32 // _WIDTH[types_of[which]]
        layouts[which] = (rows, cols, *wmma_layout(which, tile, types_of[which], elements))
    run = _warp_mma(env, operands, layouts, types_of, "satfinite" in instr.parts, machine_k)
    return run, machine_kind(atype, step_k), count
