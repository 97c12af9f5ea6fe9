"""Memory instructions of tensor-core kernels: ldmatrix, cp.async and wmma.load/store.

ldmatrix (PTX ISA "Warp-level matrix load instruction: ldmatrix"): lane 8j+r gives the shared
address of row r of 8x8 b16 matrix j; 32-bit word w of that row goes to lane 4r+w's register j
(.trans: lane t gets column t//4, rows 2(t%4) and 2(t%4)+1). Priced as one 16-byte shared read
per addressing lane.

cp.async (PTX ISA "cp.async"; Programming Guide "Using LDGSTS"): a global read and a shared write
of 4, 8 or 16 bytes, bytes past `src-size` zero-filled. The engine performs the copy when it is
issued, so commit_group / wait_group / wait_all have nothing left to wait for; a correct program
reads the data only after its wait, and sees the same values. For the time model a warp's
wait_all or wait_group 0 is one wait for global data (the copies issued before it overlap); a
wait_group N > 0 leaves the N newest groups in flight and waits for one committed N groups
earlier, whose latency the work issued since has covered (a cp.async pipeline's point), so it
counts no wait. A stage shorter than the load latency still stalls part of it; not modelled.

wmma.load/store: in the fragment layout of fragments.py (the mma fragments ptxas uses); load,
mma and store agree on it, and an element-wise operation on a fragment is layout-free, as CUDA
requires.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from perfcalc.errors import CudaSyntaxError
from perfcalc.sim import counters as C
from perfcalc.sim.ptx.execute import Chunk, Env, address, operand, warps_with
from perfcalc.sim.ptx.fragments import operand_dims, wmma_layout, wmma_tile
from perfcalc.sim.ptx.memops import _price, _regs, _resolve
from perfcalc.sim.ptx.memory import gather, scatter
from perfcalc.sim.ptx.parse import Instr
from perfcalc.sim.separable import Sep, dense

Op = Callable[..., None]
_LANE = np.arange(32)


def _addresses(read: Callable[[Chunk], object], ch: Chunk) -> np.ndarray:
    a = read(ch)
    if isinstance(a, Sep):
        a = a.full()
    return np.broadcast_to(np.asarray(a, dtype=np.uint64), (ch.n,))


def build_ldmatrix(instr: Instr, env: Env) -> Op:
    """ldmatrix.sync.aligned.m8n8.x{1,2,4}{.trans}.shared{::cta}.b16 d, [a]."""
    count = next((int(p[1:]) for p in instr.parts if p in ("x1", "x2", "x4")), 0)
    if "m8n8" not in instr.parts or count == 0 or "b16" not in instr.parts:
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: only ldmatrix m8n8 .b16 is implemented")
    trans = "trans" in instr.parts
    space = instr.space
    dests = _regs(instr.operands[0])
    read = address(instr.operands[1], env, "u64")
    lane = np.arange(32)

    def run(ch: Chunk, m: np.ndarray, full: bool, control: np.ndarray | None = None) -> None:
        giving = m & np.tile(lane < 8 * count, ch.n // 32)
        rows = np.zeros((ch.n, 4), dtype=np.uint32)
        for res, mask, price_addr in _resolve(ch, instr, space, _addresses(read, ch), giving, 16, "read"):
            for w in range(4):
                word = gather(res.storage, res.offset + 4 * w, np.dtype(np.uint32), mask, res.whole)
                rows[:, w] = np.where(mask, word, rows[:, w])
            _price_ldsm(ch, instr, price_addr, mask, control if control is not None else m)
        per_warp = rows.reshape(-1, 32, 4)  # (warps, addressing lane = 8j + r, word)
        t = np.arange(32)
        for j, d in enumerate(dests):
            if trans:
                halves = per_warp.view(np.uint16).reshape(-1, 32, 8)  # (warp, 8j + r, column)
                lo = halves[:, 8 * j + 2 * (t % 4), t // 4].astype(np.uint32)
                hi = halves[:, 8 * j + 2 * (t % 4) + 1, t // 4].astype(np.uint32)
                value = lo | (hi << np.uint32(16))
            else:
                value = per_warp[:, 8 * j + t // 4, t % 4]
            ch.write(d, np.ascontiguousarray(value).reshape(-1), m, full)

    return run


def _price_ldsm(ch: Chunk, instr: Instr, offsets: np.ndarray, mask: np.ndarray, control: np.ndarray) -> None:
    """An ldmatrix's shared wavefronts and bank conflicts, priced as 16-byte reads of the rows its
    lanes address. It is LDSM, not LDS: Nsight Compute counts it in smsp__inst_executed_op_ldsm,
    not in the shared-load requests (benchmarks/hw/tensor_run: 48 LDSM, 0 shared loads)."""
    ch.env.pricer.site = instr.line
    wave, conflicts = ch.env.pricer.price_rows("shared", offsets, 16, mask, "load")
    counts = ch.env.site(instr.line, instr.inlined_at)
    counts[C.SLD_WF] += wave
    counts[C.BANK] += conflicts
    counts[C.instruction_slot("shared_load")] += int(warps_with(control).sum())


def build_cp_async(instr: Instr, env: Env, guard_loads: int = 0) -> Op:
    """cp.async.{ca,cg}.shared{::cta}.global{.L2::...} [dst], [src], cp-size{, src-size}.
    `guard_loads`: the never-executed shared loads ptxas issues ahead of this copy
    (copy_guards.py), counted as shared-load instructions of each warp that reaches it."""
    if "bulk" in instr.parts or "mbarrier" in instr.parts:
        raise CudaSyntaxError(
            f"{instr.opcode} at line {instr.line}: bulk/TMA copies and mbarrier completion are not executed "
            "by the PTX engine (they need a per-warp scheduler)"
        )
    if "commit_group" in instr.parts:
        return lambda ch, m, full, control=None: None  # the copies are already done (see above)
    if "wait_group" in instr.parts or "wait_all" in instr.parts:
        if "wait_group" in instr.parts and int(instr.operands[0].strip(), 0) > 0:
            # N groups may stay in flight: the group waited for was committed N groups ago, and
            # its latency overlaps the work issued since (a pipeline's stages), not counted
            return lambda ch, m, full, control=None: None

        def wait(ch: Chunk, m: np.ndarray, full: bool, control: np.ndarray | None = None) -> None:
            # a warp waits here for the copies it just issued: one wait, as for loads used together
            ch.env.site(instr.line, instr.inlined_at)[C.GLD_WAIT] += int(warps_with(m).sum())

        return wait
    hint = any(p.startswith("L2::cache_hint") or p == "L2::cache_hint" for p in instr.parts)
    ops = [o.strip() for o in instr.operands]
    if hint:
        ops = ops[:-1]
    size = int(ops[2], 0)
    if size not in (4, 8, 16) or ("cg" in instr.parts and size != 16):
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: cp-size {size} is not 4, 8 or 16 (16 for .cg)")
    dst = address(ops[0], env, "u64")
    src = address(ops[1], env, "u64")
    src_size = operand(ops[3], "u32", env) if len(ops) > 3 else None
    pieces = size // 4

    def run(ch: Chunk, m: np.ndarray, full: bool, control: np.ndarray | None = None) -> None:
        ctl = control if control is not None else m
        keep = (
            np.broadcast_to(np.asarray(dense(src_size(ch))).astype(np.int64), (ch.n,))
            if src_size is not None
            else np.full(ch.n, size, dtype=np.int64)
        )
        data = np.zeros((ch.n, size), dtype=np.uint8)
        whole = m & (keep >= size)
        part = m & (keep < size) & (keep > 0)
        if guard_loads:
            # Nsight Compute's count only: no register waits on a load under the always-false
            # predicate, so they are not among the shared loads the time model's chains wait for
            # (their few issue slots are left out)
            ch.env.site(instr.line, instr.inlined_at)[C.SLD_REQ] += guard_loads * int(warps_with(ctl).sum())
        src_addr = _addresses(src, ch)
        if whole.any():
            for res, mask, _ in _resolve(ch, instr, "global", src_addr, whole, size, "read"):
                for k in range(pieces):
                    w = gather(res.storage, res.offset + 4 * k, np.dtype(np.uint32), mask, res.whole)
                    data[:, 4 * k : 4 * k + 4] = np.where(mask[:, None], w.view(np.uint8).reshape(-1, 4), 0)
        for b in range(size):  # a partial row: only the bytes below src-size are read
            byte_lanes = part & (keep > b)
            if byte_lanes.any():
                for res, mask, _ in _resolve(ch, instr, "global", src_addr + np.uint64(b), byte_lanes, 1, "read"):
                    v = gather(res.storage, res.offset, np.dtype(np.uint8), mask, False)
                    data[:, b] = np.where(mask, v, data[:, b])
        read = whole | part
        if read.any():
            # one LDGSTS: one request for its whole and partial lanes together (cp_async_sizes'
            # zero-filling copy: 1 request a warp on the H100, benchmarks/hw/tensor_run/counters.csv)
            every = bool(read.all())
            _price(ch, instr, "global", src_addr, size, read, ctl, "load", every)
        # the shared side of LDGSTS is not a shared store to Nsight Compute (no st instruction, no
        # wavefront, no bank conflict: benchmarks/hw/tensor_run/counters.csv), so it is not priced
        for res, mask, _ in _resolve(ch, instr, "shared", _addresses(dst, ch), m, size, "write"):
            for k in range(pieces):
                word = np.ascontiguousarray(data[:, 4 * k : 4 * k + 4]).view(np.uint32).reshape(-1)
                scatter(res.storage, res.offset + 4 * k, word, mask, res.whole)

    return run


# --- wmma ------------------------------------------------------------------------------------
_ESIZE = {"f16": 2, "bf16": 2, "f32": 4, "tf32": 4, "s32": 4, "s8": 1, "u8": 1, "f64": 8}


def _wmma_type(instr: Instr) -> str:
    t = next((p for p in reversed(instr.parts) if p in _ESIZE), None)
    if t is None or t == "f64":
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: this wmma element type is not implemented")
    return t


def _groups(rows: np.ndarray, cols: np.ndarray, unique: int, col_major: bool, esize: int) -> list[list[int]]:
    """The fragment's distinct elements in runs that are adjacent in memory in every lane (one
    access each, at most 8 bytes: what ptxas loads or stores with one instruction)."""
    groups: list[list[int]] = []
    for e in range(unique):
        if groups:
            last = groups[-1][-1]
            dr, dc = rows[:, e] - rows[:, last], cols[:, e] - cols[:, last]
            next_to = (dr == 1).all() and (dc == 0).all() if col_major else (dr == 0).all() and (dc == 1).all()
            if next_to and (len(groups[-1]) + 1) * esize <= 8:
                groups[-1].append(e)
                continue
        groups.append([e])
    return groups


def build_wmma_memory(instr: Instr, env: Env) -> Op:
    """wmma.load.{a,b,c}.sync.aligned.layout.shape{.ss}.type r, [p]{, stride} and
    wmma.store.d.sync.aligned.layout.shape{.ss}.type [p], r{, stride}, in the fragment layout of
    fragments.py; elements adjacent in memory move in one access, as ptxas's code does."""
    store = instr.parts[1] == "store"
    which = instr.parts[2]
    tile = wmma_tile(instr)
    t = _wmma_type(instr)
    esize = _ESIZE[t]
    col_major = "col" in instr.parts
    rows, cols = operand_dims(which, tile)
    regs = _regs(instr.operands[1] if store else instr.operands[0])
    per_reg = 4 // esize if t != "tf32" else 1
    elements = len(regs) * per_reg
    r_of, c_of = wmma_layout(which, tile, t, elements)
    unique = min(elements, rows * cols // 32)
    groups = _groups(r_of, c_of, unique, col_major, esize)
    space = instr.space
    where = address(instr.operands[0] if store else instr.operands[1], env, "u64")
    if len(instr.operands) < 3:
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: wmma without a stride operand is not implemented")
    stride = operand(instr.operands[2], "u32", env)
    sources = [operand(r, "b32", env) for r in regs] if store else []
    dt = np.dtype({1: np.uint8, 2: np.uint16, 4: np.uint32}[esize])

    def offsets(ch: Chunk, e: int) -> np.ndarray:
        ld = np.broadcast_to(np.asarray(dense(stride(ch))).astype(np.uint64), (ch.n,))
        r = np.tile(r_of[:, e], ch.n // 32).astype(np.uint64)
        c = np.tile(c_of[:, e], ch.n // 32).astype(np.uint64)
        index = c * ld + r if col_major else r * ld + c
        return _addresses(where, ch) + index * np.uint64(esize)

    def run(ch: Chunk, m: np.ndarray, full: bool, control: np.ndarray | None = None) -> None:
        ctl = control if control is not None else m
        if store:
            words = np.stack([np.broadcast_to(np.asarray(dense(s(ch))).view(np.uint32), (ch.n,)) for s in sources], 1)
            values = words.view(dt).reshape(ch.n, -1) if esize < 4 else words
            for g in groups:
                size = esize * len(g)
                for res, mask, price_addr in _resolve(ch, instr, space, offsets(ch, g[0]), m, size, "write"):
                    for k, e in enumerate(g):
                        scatter(
                            res.storage, res.offset + k * esize, np.ascontiguousarray(values[:, e]), mask, res.whole
                        )
                    _price(ch, instr, res.space, price_addr, size, mask, ctl, "store", res.whole)
            return
        loaded: np.ndarray = np.zeros((ch.n, elements), dtype=dt)
        for g in groups:
            size = esize * len(g)
            for res, mask, price_addr in _resolve(ch, instr, space, offsets(ch, g[0]), m, size, "read"):
                for k, e in enumerate(g):
                    v = gather(res.storage, res.offset + k * esize, dt, mask, res.whole)
                    loaded[:, e] = np.where(mask, v, loaded[:, e])
                _price(ch, instr, res.space, price_addr, size, mask, ctl, "load", res.whole)
        for e in range(unique, elements):  # a fragment with more registers repeats its elements
            loaded[:, e] = loaded[:, e % unique]
        packed = loaded.view(np.uint32) if esize < 4 else loaded
        for j, d in enumerate(regs):
            w = np.ascontiguousarray(packed[:, j])
            ch.write(d, w.view(np.float32) if ch.storage_of(d) == np.float32 else w, m, full)

    return run
