"""ld, st, atom and red on the global, shared, local, param and const state spaces (and generic
addresses that point into them), priced per warp through memory/ and counted per source line.

What is counted, as Nsight Compute counts the compiled code: a global load/store instruction is
one request per warp with at least one lane whose guard predicate is on, priced at the access
width (a `.v4.f32` is one 16-byte access per lane); a shared instruction is one request per warp
that executes it (smsp__inst_executed_op_shared_{ld,st}), its wavefronts and bank conflicts from
the lanes that access; a `__constant__` load one cache request per distinct address of a warp;
a shared atomic the steps its busiest word takes (memory/shared_atomics.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from perfcalc.errors import CudaSyntaxError
from perfcalc.memory.atomic_contention import atomic_kind
from perfcalc.memory.lanes import distinct_per_warp
from perfcalc.memory.shared_atomics import serial_steps
from perfcalc.sim import counters as C
from perfcalc.sim.atomics import ATOMIC_OPS, requester_ranks, serialise_atomics
from perfcalc.sim.ptx.execute import Chunk, Env, address, address_register, operand, warps_with
from perfcalc.sim.ptx.instructions import Op, type_of
from perfcalc.sim.ptx.memory import LOCAL_WINDOW, SHARED_WINDOW, gather, scatter
from perfcalc.sim.ptx.parse import Instr
from perfcalc.sim.ptx.sep_access import PRICEABLE, AccessPlan, access_plan
from perfcalc.sim.ptx.values import NP
from perfcalc.sim.separable import Sep


def _vector(instr: Instr) -> int:
    for p in instr.parts:
        if p in ("v2", "v4", "v8"):
            return int(p[1:])
    return 1


def _regs(text: str) -> list[str]:
    text = text.strip()
    if text.startswith("{"):
        return [s.strip() for s in text.strip("{}").split(",")]
    return [text]


class _Resolved:
    """Per-lane storage, byte offset and state space of a (possibly generic) address."""

    def __init__(self, storage: np.ndarray, offset: np.ndarray, space: str, whole: bool = False):
        self.storage, self.offset, self.space = storage, offset, space
        self.whole = whole  # every lane of the chunk takes part (no masking needed)


def _sep_access(ch: Chunk, space: str, kept: Sep, v: int, dt: np.dtype[Any]) -> tuple[AccessPlan, int] | None:
    """The plan and element offset of a whole-chunk global or shared access through an address
    register kept separable (`kept` + immediate = Core + v), or None where the lane-by-lane path
    must decide (a lane out of bounds, misaligned or wrapped: it reports)."""
    if space not in ("global", "shared"):
        return None
    plan = access_plan(ch, kept.core, space, dt, v)
    if plan is None:
        return None
    e = plan.element(v)
    return None if e is None else (plan, e)


class _Planned:
    """A load's or store's whole-chunk fast path: its address register and immediate, the
    instruction's last (Core, plan) pair (a loop finds it again on every iteration), and where
    its priced totals go."""

    __slots__ = ("space", "dt", "via", "last", "tally")

    def __init__(self, instr: Instr, env: Env, address_text: str, space: str, dt: np.dtype[Any], vec: int, op: str):
        self.space, self.dt = space, dt
        self.via = address_register(address_text, env) if vec == 1 else None
        self.last: tuple[Any, tuple[AccessPlan, int] | None] | None = None
        self.tally = _Tally(instr, space, op)

    def find(self, ch: Chunk, full: bool) -> tuple[AccessPlan, int, int] | None:
        """(plan, element offset, address offset) where every lane takes part and the address
        register is kept separable; None sends the access down the lane-by-lane path."""
        kept = ch.seps.get(self.via[0]) if full and self.via is not None else None
        if kept is None:
            return None
        assert self.via is not None
        at = int(kept.off) + self.via[1]
        last = self.last
        if last is not None and last[0] is kept.core and last[1] is not None:
            e = last[1][0].element(at)
            return None if e is None else (last[1][0], e, at)
        fast = _sep_access(ch, self.space, kept, at, self.dt)
        self.last = (kept.core, fast)
        return None if fast is None else (fast[0], fast[1], at)


class _Tally:
    """Where one global or shared instruction's priced totals go: its line's counts (looked up
    on first use; an instruction's closures live as long as its launch) and their slots."""

    __slots__ = ("instr", "op", "counts", "slots", "warp_slot")

    def __init__(self, instr: Instr, space: str, op: str):
        self.instr, self.op = instr, op
        self.counts: Any = None
        load = op == "load"
        if space == "global":
            base = C.GLD_REQ if load else C.GST_REQ
            self.slots: tuple[int, ...] = (base, base + 1, base + 2)
            self.warp_slot: tuple[int, ...] = (C.instruction_slot("global_load" if load else "global_store"),)
        else:
            self.slots = (C.SLD_WF if load else C.SST_WF, C.BANK)
            self.warp_slot = (C.SLD_REQ if load else C.SST_REQ, C.instruction_slot(f"shared_{op}"))

    def add(self, ch: Chunk, plan: AccessPlan, e: int) -> None:
        """Price a planned access (every lane active: every warp issues) and count it."""
        pricer = ch.env.pricer
        pricer.site = self.instr.line
        totals = plan.priced(pricer, e, self.op)
        counts = self.counts
        if counts is None:
            counts = self.counts = ch.env.site(self.instr.line, self.instr.inlined_at)
        for slot, value in zip(self.slots, totals, strict=True):
            counts[slot] += value
        warps = ch.n // 32
        for slot in self.warp_slot:
            counts[slot] += warps


def _check_priceable(instr: Instr, size: int) -> None:
    if size not in PRICEABLE:
        raise CudaSyntaxError(
            f"{instr.opcode} at line {instr.line}: {size}-byte accesses are not priced by any CC's rules"
        )


def _add_counts(ch: Chunk, instr: Instr, space: str, op: str, totals: tuple[int, ...], warps: int) -> None:
    """Add one access's priced totals (global: requests, sectors, bytes; shared: wavefronts,
    bank conflicts) and its `warps` issued instructions to the counts of its source line."""
    counts = ch.env.site(instr.line, instr.inlined_at)
    if space == "global":
        base = C.GLD_REQ if op == "load" else C.GST_REQ
        counts[base] += totals[0]
        counts[base + 1] += totals[1]
        counts[base + 2] += totals[2]
        counts[C.instruction_slot("global_load" if op == "load" else "global_store")] += warps
        return
    wave, conflicts = totals
    # a generic ld/st that reaches shared memory is an LD/ST in the SASS, not an LDS/STS: Nsight
    # Compute counts its wavefronts as shared ones but not its instruction among the shared loads
    # (HeCBench's rowwiseMoments reads a struct through a generic pointer: 0 shared-load
    # instructions and 160 shared-load wavefronts on the H100, benchmarks/hw/hecbench_h100_counters/)
    lds = instr.space != "generic"
    if op == "load":
        counts[C.SLD_REQ] += warps if lds else 0
        counts[C.SLD_WF] += wave
    else:
        counts[C.SST_REQ] += warps if lds else 0
        counts[C.SST_WF] += wave
    counts[C.BANK] += conflicts
    counts[C.instruction_slot("shared_load" if op == "load" else "shared_store")] += warps


def _issued_with_no_lane(
    ch: Chunk, instr: Instr, space: str, op: str, m: np.ndarray, full: bool, control: np.ndarray | None
) -> bool:
    """Whether this is a guarded shared access with every lane off (in the whole chunk), counted
    here: each warp that reaches it still issues it, which smsp__inst_executed_op_shared_*
    counts (no data moves: no wavefront). Where some lane is on, _price counts the same warps
    from `control`."""
    if space != "shared" or full or control is None or m.any():
        return False
    warps = int(warps_with(control).sum())
    if warps:
        _add_counts(ch, instr, "shared", op, (0, 0), warps)
    return True


def _resolve(
    ch: Chunk, instr: Instr, space: str, addr: np.ndarray, m: np.ndarray, size: int, op: str
) -> list[tuple[_Resolved, np.ndarray, np.ndarray]]:
    """Split the active lanes by state space; check bounds and alignment; return, per space,
    (storage + offsets, lane mask, the address each lane uses for pricing)."""
    addr = np.broadcast_to(np.asarray(addr, dtype=np.uint64), m.shape)
    every = bool(m.all())
    out = []
    parts: tuple[tuple[str, np.ndarray, np.ndarray], ...]
    if space == "generic":
        is_local = addr >= np.uint64(LOCAL_WINDOW)
        is_shared = ~is_local & (addr >= np.uint64(SHARED_WINDOW))
        parts = (
            ("global", m & ~is_local & ~is_shared, addr),
            ("shared", m & is_shared, addr - np.uint64(SHARED_WINDOW)),
            ("local", m & is_local, addr - np.uint64(LOCAL_WINDOW)),
        )
    else:
        parts = ((space, m, addr),)
    env = ch.env
    for sp, mask, a in parts:
        whole = every and mask is m
        if sp != "param" and not whole and not mask.any():
            continue
        # a power-of-two size (1..16 bytes) is a bit test; any other size takes the modulo
        odd = (a & np.uint64(size - 1)) != 0 if size & (size - 1) == 0 else a % np.uint64(size) != 0
        failing = _lanes_failing(mask, odd)
        if failing is not None:
            bad, lane = failing
            raise ch.fault(
                "misaligned",
                instr,
                bad,
                f"Invalid __{sp}__ {op} of size {size} bytes at address "
                f"{int(a[lane]):#x}: misaligned (not a multiple of {size})",
            )
        if sp == "global":
            heap = env.heap
            if not heap.all_inside(a, None if whole else mask, size):
                _, ok = heap.locate(a, size)
                outside = mask & ~ok
                if outside.any():
                    lane = int(np.flatnonzero(outside)[0])
                    name, what = heap.describe(int(a[lane]), size)
                    signal = ch.fault(
                        "out_of_bounds",
                        instr,
                        outside,
                        f"Invalid __global__ {op} of size {size} bytes: {what} is out of bounds",
                        name,
                    )
                    if not (heap.mapped(a, outside, size) and ch.overrun_found(signal)):
                        raise signal
            out.append(
                (
                    _Resolved(heap.bytes, (a - np.uint64(heap.base)).astype(np.int64), sp, whole),
                    mask,
                    a.astype(np.int64),
                )
            )
        elif sp == "shared":
            limit = max(env.shared_bytes, 0)
            beyond = a > np.uint64(limit - size) if limit >= size else np.ones(a.shape, dtype=bool)
            failing = _lanes_failing(mask, beyond)
            if failing is not None:
                bad, lane = failing
                raise ch.fault(
                    "out_of_bounds",
                    instr,
                    bad,
                    f"Invalid __shared__ {op} of size {size} bytes at shared offset "
                    f"{int(a[lane])}: the block has {limit} bytes of shared memory",
                )
            offset = a.astype(np.int64)
            flat = ch.shared_base + offset
            if op != "atomic":  # plain accesses between warps of one barrier interval
                ch.races.access(ch, instr, flat, offset, mask, size, op == "write")
            out.append((_Resolved(ch.shared, flat, sp, whole), mask, offset))
        elif sp == "local":
            limit = env.local_bytes
            bad = mask & (a + np.uint64(size) > np.uint64(limit))
            if bad.any():
                raise ch.fault(
                    "out_of_bounds",
                    instr,
                    bad,
                    f"Invalid __local__ {op} of size {size} bytes beyond the {limit}-byte local frame",
                )
            lane_index = np.arange(ch.n, dtype=np.int64)
            flat = lane_index * max(env.local_bytes, 8) + a.astype(np.int64)
            out.append((_Resolved(ch.local, flat, sp), mask, a.astype(np.int64)))
        else:
            raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: generic access to .{sp}")
    return out


def _lanes_failing(mask: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, int] | None:
    """The active lanes where `test` holds and the first of them, or None. Inactive lanes may
    hold any address, so the test over all lanes comes first and the mask only when it finds
    something (the common case: nothing)."""
    if not test.any():
        return None
    bad = mask & test
    if not bad.any():
        return None
    return bad, int(np.flatnonzero(bad)[0])


def _price(
    ch: Chunk,
    instr: Instr,
    space: str,
    price_addr: np.ndarray,
    size: int,
    mask: np.ndarray,
    control: np.ndarray,
    op: str,
    whole: bool = False,
) -> None:
    """Count one access's requests and price it; `whole`: every lane of the chunk is in `mask`."""
    nwarps = mask.size // 32 if whole else None
    ch.env.pricer.site = instr.line
    if space == "global":
        _check_priceable(instr, size)
        totals = ch.env.pricer.price_rows("global", price_addr, size, None if whole else mask, op)
        _add_counts(ch, instr, space, op, totals, nwarps if nwarps is not None else int(warps_with(mask).sum()))
    elif space == "shared":
        totals = ch.env.pricer.price_rows("shared", price_addr, size, None if whole else mask, op)
        _add_counts(ch, instr, space, op, totals, nwarps if nwarps is not None else int(warps_with(control).sum()))


def _every_lane(a: Any) -> Any:
    """An address operand's value per lane (a separable address expanded)."""
    return a.full() if isinstance(a, Sep) else a


def _price_vector(
    ch: Chunk, instr: Instr, space: str, read: Callable[[Chunk], Any], size: int, m: np.ndarray, op: str
) -> None:
    """Price the access at a merged vector's address (shared_merge.py) as the whole vector, for a
    chunk whose every lane is active (the planned path)."""
    offsets = np.asarray(_every_lane(read(ch))).astype(np.int64)
    _price(ch, instr, space, np.broadcast_to(offsets, m.shape), size, m, m, op, True)


def build_ld(instr: Instr, env: Env, priced_as: int | None = None) -> Op:
    """A load. `priced_as`: the bytes a lane's access is counted as where ptxas merges it with
    its neighbours into one vector load (shared_merge.py): the vector's at the load of the
    vector's address, 0 (not counted) at the others; None: its own."""
    t = type_of(instr)
    space = instr.space
    vec = _vector(instr)
    dests = _regs(instr.operands[0])
    dt = NP[t]
    size = dt.itemsize
    if space == "param":
        return _ld_param(instr, env, dests, t)
    if space == "const":
        return _ld_const(instr, env, dests, t)
    read = address(instr.operands[1], env, "u64")
    planned = _Planned(instr, env, instr.operands[1], space, dt, vec, "load")
    priced = size * vec if priced_as is None else priced_as

    def run(ch: Chunk, m: np.ndarray, full: bool, control: np.ndarray | None = None) -> None:
        if priced and _issued_with_no_lane(ch, instr, space, "load", m, full, control):
            return
        found = planned.find(ch, full)
        if found is not None:
            plan, e, at = found
            if space == "shared":
                ch.races.read_planned(ch, instr, plan, e, at, m)
            if dests[0] != "_":
                ch.write(dests[0], plan.take(e), m, True, fresh=True)
            if priced == size * vec:
                planned.tally.add(ch, plan, e)
            elif priced:
                _price_vector(ch, instr, space, read, priced, m, "load")
            return
        a = _every_lane(read(ch))
        for res, mask, price_addr in _resolve(ch, instr, space, a, m, size * vec, "read"):
            for k, d in enumerate(dests):
                if d == "_":
                    continue
                v = gather(res.storage, res.offset + k * size, dt, mask, res.whole)
                ch.write(d, v, mask, res.whole, fresh=True)
            ctl = control if control is not None else m
            if priced:
                _price(ch, instr, res.space, price_addr, priced, mask, ctl, "load", res.whole)

    return run


def _ld_param(instr: Instr, env: Env, dests: list[str], t: str) -> Op:
    import re

    m = re.match(r"^\[\s*([\w$]+)\s*(?:\+\s*(\d+))?\s*\]$", instr.operands[1].strip())
    if m is not None and m.group(1).startswith(("retval", "param")) and m.group(1) not in env.params:
        zero = NP[t].type(0)  # a call's return value (vprintf's count): 0

        def run_ret(ch: Chunk, mk: np.ndarray, full: bool, control: np.ndarray | None = None) -> None:
            for d in dests:
                ch.write(d, zero, mk, full)

        return run_ret
    if m is None:
        return _ld_param_through_register(instr, env, dests, t)
    if m.group(1) not in env.params:
        raise CudaSyntaxError(
            f"{instr.opcode} at line {instr.line}: parameter address {instr.operands[1]!r} is not a kernel parameter"
        )
    raw = env.params[m.group(1)]
    off = int(m.group(2) or 0)
    dt = NP[t]
    values = []
    for k in range(len(dests)):
        chunk = raw[off + k * dt.itemsize : off + (k + 1) * dt.itemsize]
        chunk = chunk + bytes(dt.itemsize - len(chunk))
        values.append(np.frombuffer(chunk, dtype=dt)[0])

    def run(ch: Chunk, mk: np.ndarray, full: bool, control: np.ndarray | None = None) -> None:
        for d, v in zip(dests, values, strict=True):
            ch.write(d, v, mk, full)

    return run


def _ld_param_through_register(instr: Instr, env: Env, dests: list[str], t: str) -> Op:
    """ld.param at an address in a register: a by-value parameter indexed at run time, read from
    the param space as Env.param_space lays it out (its address came from `mov %rd, k_param_N`)."""
    read = address(instr.operands[1], env, "u64")
    image = env.param_space()[1]
    dt = NP[t]

    def run(ch: Chunk, m: np.ndarray, full: bool, control: np.ndarray | None = None) -> None:
        off = np.broadcast_to(np.asarray(read(ch), dtype=np.uint64), m.shape).astype(np.int64)
        outside = m & ((off < 0) | (off + dt.itemsize * len(dests) > len(image)))
        if outside.any():
            raise ch.fault(
                "out_of_bounds",
                instr,
                outside,
                f"Invalid parameter read of size {dt.itemsize} bytes: outside the kernel's parameters",
            )
        crooked = m & (off % dt.itemsize != 0)
        if crooked.any():
            raise ch.fault("misaligned", instr, crooked, f"Misaligned parameter read of size {dt.itemsize} bytes")
        for k, d in enumerate(dests):
            ch.write(d, gather(image, off + k * dt.itemsize, dt, m, full), m, full)

    return run


def _ld_const(instr: Instr, env: Env, dests: list[str], t: str) -> Op:
    read = address(instr.operands[1], env, "u64")
    dt = NP[t]

    def run(ch: Chunk, m: np.ndarray, full: bool, control: np.ndarray | None = None) -> None:
        a = np.broadcast_to(np.asarray(read(ch), dtype=np.uint64), m.shape)
        heap = env.heap
        where, ok = heap.locate(a, dt.itemsize * len(dests))
        bad = m & ~ok
        if bad.any():
            lane = int(np.flatnonzero(bad)[0])
            name, what = heap.describe(int(a[lane]), dt.itemsize)
            raise ch.fault(
                "out_of_bounds",
                instr,
                bad,
                f"Invalid __constant__ read of size {dt.itemsize} bytes: {what} is out of bounds",
                name,
            )
        off = (a - np.uint64(heap.base)).astype(np.int64)
        for k, d in enumerate(dests):
            ch.write(d, gather(heap.bytes, off + k * dt.itemsize, dt, m, full), m, full)
        counts = env.site(instr.line, instr.inlined_at)
        counts[C.instruction_slot("constant_load")] += int(warps_with(m).sum())
        counts[C.CONST_REQ] += distinct_per_warp(off, m)

    return run


def build_st(instr: Instr, env: Env, priced_as: int | None = None) -> Op:
    """A store. `priced_as`: as build_ld's, where ptxas merges it with its neighbours into one
    vector store (shared_merge.py)."""
    t = type_of(instr)
    space = instr.space
    vec = _vector(instr)
    dt = NP[t]
    size = dt.itemsize
    if space == "param":  # arguments of a call sequence (printf, assert): nothing to keep

        def keep_nothing(ch: Chunk, m: np.ndarray, full: bool, control: np.ndarray | None = None) -> None:
            return None

        return keep_nothing
    if space == "const":
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: stores to .const are not allowed")
    read = address(instr.operands[0], env, "u64")
    sources = [operand(s, t, env) for s in _regs(instr.operands[1])]

    planned = _Planned(instr, env, instr.operands[0], space, dt, vec, "store")
    priced = size * vec if priced_as is None else priced_as

    def run(ch: Chunk, m: np.ndarray, full: bool, control: np.ndarray | None = None) -> None:
        if priced and _issued_with_no_lane(ch, instr, space, "store", m, full, control):
            return
        found = planned.find(ch, full)
        if found is not None:
            plan, e, at = found
            if space == "shared":
                ch.races.access(ch, instr, plan.flat_bytes(e), plan.offsets(at), m, size, True, full=True)
            plan.put(e, np.broadcast_to(np.asarray(sources[0](ch), dtype=dt), m.shape))
            if priced == size * vec:
                planned.tally.add(ch, plan, e)
            elif priced:
                _price_vector(ch, instr, space, read, priced, m, "store")
            return
        a = _every_lane(read(ch))
        for res, mask, price_addr in _resolve(ch, instr, space, a, m, size * vec, "write"):
            for k, src in enumerate(sources):
                v = np.broadcast_to(np.asarray(src(ch), dtype=dt), m.shape)
                scatter(res.storage, res.offset + k * size, v, mask, res.whole)
            ctl = control if control is not None else m
            if priced:
                _price(ch, instr, res.space, price_addr, priced, mask, ctl, "store", res.whole)

    return run


def build_atom(instr: Instr, env: Env) -> Op:
    """atom/red: the requests to one address are serialised in thread order, in rounds (the r-th
    requester of every address in round r), so float sums come out in a fixed, reproducible
    order (the hardware's order is unspecified)."""
    reduce_only = instr.base == "red"
    t = type_of(instr)
    space = instr.space
    op_name = next((p for p in instr.parts[1:] if p in ATOMIC_OPS), None)
    if op_name is None:
        raise CudaSyntaxError(f"{instr.opcode} at line {instr.line}: atomic operation not implemented")
    dt = NP[t]
    ops = list(instr.operands)
    dest = None if reduce_only else ops.pop(0).strip()
    read = address(ops[0], env, "u64")
    val = operand(ops[1], t, env)
    cmp_new = operand(ops[2], t, env) if op_name == "cas" else None
    is_float = np.dtype(dt).kind == "f"
    kind = atomic_kind(op_name, is_float)
    used = dest is not None and _read_elsewhere(env.fn.body, dest)

    def run(ch: Chunk, m: np.ndarray, full: bool, control: np.ndarray | None = None) -> None:
        a = read(ch)
        v_all = np.broadcast_to(np.asarray(val(ch), dtype=dt), m.shape)
        c_all = None if cmp_new is None else np.broadcast_to(np.asarray(cmp_new(ch), dtype=dt), m.shape)
        for res, mask, price_addr in _resolve(ch, instr, space, a, m, dt.itemsize, "atomic"):
            if res.space == "global" and ch.env.pricer.trace is not None:
                ch.env.pricer.site = instr.line  # not priced, but the caches see atomics
                ch.env.pricer.observe(price_addr, mask, dt.itemsize, "atomic", kind)
            elif res.space == "shared":
                cls, steps = serial_steps(op_name, is_float, used, res.offset, mask)
                env.site(instr.line, instr.inlined_at)[C.SHARED_ATOMIC_SLOT[cls]] += steps
                if cls == "float" and ch.env.pricer.arch.major == 9:
                    _retry_loop_counts(ch, instr, res.offset, mask, price_addr, dt.itemsize)
            lanes = np.flatnonzero(mask)
            if lanes.size == 0:
                continue
            offs = res.offset[lanes]
            order = np.lexsort((lanes, offs))
            lanes, offs = lanes[order], offs[order]
            view = res.storage.view(dt)
            with np.errstate(all="ignore"):
                old_all = serialise_atomics(
                    view, offs // dt.itemsize, v_all[lanes], None if c_all is None else c_all[lanes], op_name
                )
            if dest is not None:
                result = np.zeros(m.shape, dtype=dt)
                result[lanes] = old_all
                ch.write(dest, result, mask, False)
        env.site(instr.line, instr.inlined_at)[C.instruction_slot("atomic")] += int(warps_with(m).sum())

    return run


def _retry_loop_counts(
    ch: Chunk, instr: Instr, words: np.ndarray, mask: np.ndarray, price_addr: np.ndarray, size: int
) -> None:
    """What sm_90 issues for a shared float/double add: a retry loop (benchmarks/hw/flops_sass/,
    scatterAdd: LDS, FADD, ATOMS.CAST.SPIN, branch back while it failed). In each iteration one
    lane per word succeeds, so a warp loops once per lane on its busiest word; every iteration
    loads (a shared load, priced for the lanes still waiting) and adds (a flop per waiting lane)."""
    lanes = np.flatnonzero(mask)
    if lanes.size == 0:
        return
    key = (lanes // 32).astype(np.uint64) << np.uint64(40) | words[lanes].astype(np.uint64)
    order = np.lexsort((lanes, key))
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = requester_ranks(key[order])  # this lane's turn on its warp's word (0: the first)
    counts = ch.env.site(instr.line, instr.inlined_at)
    pricer = ch.env.pricer
    pricer.site = instr.line
    waiting = mask.copy()
    for turn in range(int(rank.max()) + 1):
        if turn:
            waiting[lanes[rank < turn]] = False
        totals = pricer.price_rows("shared", price_addr, size, waiting, "load")
        _add_counts(ch, instr, "shared", "load", totals, int(warps_with(waiting).sum()))
        counts[C.FLOPS] += int(waiting.sum())


def _read_elsewhere(body: list[Instr], reg: str) -> bool:
    """Does any instruction read register `reg` (it appears more often than its one write)?
    ptxas drops an atomic's unused old value, which lets it combine a warp's lanes."""
    pattern = re.compile(re.escape(reg) + r"(?![A-Za-z0-9_])")
    return sum(len(pattern.findall(op)) for i in body for op in i.operands) > 1
