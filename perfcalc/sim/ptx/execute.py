"""Execute one PTX entry function for every thread of a chunk of blocks, vectorised with NumPy.

Threads are laid out block by block, each block padded to whole warps, so every warp is a row of
32 lanes. Each instruction is compiled once into a closure over (chunk state, active mask).

Divergence and reconvergence: one current PC and mask, and a table of waiting PCs with their
masks. After a branch both sides wait; the smallest waiting PC always runs next, and threads that
reach a PC where others wait are merged with them. For structured code (if/else, loops with
break/continue, early return) this is immediate post-dominator reconvergence; for unstructured
code it is a documented heuristic (reference/ptx-engine.md section 4). A `bar.sync` runs when
no thread waits at a smaller PC; a live thread of the same block that is elsewhere then has
skipped the barrier, which is reported (threads that exited count as arrived).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from perfcalc.errors import CudaSyntaxError
from perfcalc.sim import counters as C
from perfcalc.sim.ptx.memory import (
    Heap,
)
from perfcalc.sim.ptx.parse import Function, Instr
from perfcalc.sim.ptx.races import SharedRaces
from perfcalc.sim.ptx.values import NP, SPECIAL_NAMES, as_type, immediate, register_name, storage_dtype
from perfcalc.sim.safety import Fault, FaultSignal, fault_signal
from perfcalc.sim.separable import Core, Sep

Step = Callable[["Chunk", np.ndarray], None]
_THREAD_INDEX = ("%tid.x", "%tid.y", "%tid.z")
_BLOCK_INDEX = ("%ctaid.x", "%ctaid.y", "%ctaid.z")
_SEP_SPECIALS = _THREAD_INDEX + _BLOCK_INDEX  # kept as Seps: per-lane / per-block parts


@dataclass
class Env:
    """What every chunk of one launch shares: the program, memories, pricing and counts."""

    fn: Function
    kernel: str
    source_name: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    heap: Heap
    params: dict[str, bytes]
    symbols: dict[str, int]  # variable name -> address (shared offset, or heap address)
    shared_bytes: int
    local_bytes: int
    pricer: Any
    iteration_cap: int
    counts: dict[int, list[int]] = field(default_factory=dict)
    reg_types: dict[str, str] = field(default_factory=dict)
    # call-site line -> counts of the code inlined there from a __device__ function (the same
    # work is also in `counts` at the function's own lines; kept apart so totals count it once)
    inlined: dict[int, list[int]] = field(default_factory=dict)
    # a shared-memory race or a barrier part of a block reaches stops the launch as a fault
    # (compute-sanitizer's view), or, where False (a whole program, which a GPU runs through
    # both), is kept in `races` and the launch goes on
    race_faults: bool = True
    races: list[Fault] = field(default_factory=list)
    # each shared variable's offset (what ptxas knows of its address: shared_merge.py)
    shared_offsets: dict[str, int] = field(default_factory=dict)
    # with race_faults False, also a global access past its allocation that stays inside the
    # device memory a GPU has mapped there (Heap.mapped): kept here, the access goes on
    overruns: list[Fault] = field(default_factory=list)
    # the warps whose own chains of work are longest (warp_chains.py), over the chunks run
    longest_warps: tuple[tuple[int, int, int], ...] = ()
    _tees: dict[tuple[int, int], _Tee] = field(default_factory=dict)
    _param_space: tuple[dict[str, int], np.ndarray] | None = None

    def param_space(self) -> tuple[dict[str, int], np.ndarray]:
        """param_layout of this launch's parameters, laid out once."""
        if self._param_space is None:
            self._param_space = param_layout(self.params)
        return self._param_space

    def site(self, line: int, inlined_at: int | None = None) -> Any:
        """The counts to add to for an instruction at `line` (inlined at `inlined_at`: what is
        added also goes to the call site's inlined counts)."""
        found = self.counts.get(line)
        if found is None:
            found = self.counts[line] = C.new_site_counts()
        if inlined_at is None or inlined_at == line:
            return found
        tee = self._tees.get((line, inlined_at))
        if tee is None:
            mirror = self.inlined.get(inlined_at)
            if mirror is None:
                mirror = self.inlined[inlined_at] = C.new_site_counts()
            tee = self._tees[(line, inlined_at)] = _Tee(found, mirror)
        return tee


class _Tee:
    """Counts at a line whose increments are mirrored into a call site's inlined counts."""

    __slots__ = ("own", "mirror")

    def __init__(self, own: list[int], mirror: list[int]):
        self.own, self.mirror = own, mirror

    def __getitem__(self, k: int) -> int:
        return self.own[k]

    def __setitem__(self, k: int, value: int) -> None:
        self.mirror[k] += value - self.own[k]
        self.own[k] = value


def _tiled(f: Callable[[], np.ndarray], nblocks: int) -> np.ndarray:
    return np.tile(f(), nblocks)


class _Specials(dict[str, Any]):
    """Special registers: scalars, and lane arrays built the first time an instruction reads
    them (most kernels read threadIdx and blockIdx only in their separable form)."""

    def __init__(self, make: dict[str, Callable[[], Any]], scalars: dict[str, Any]):
        super().__init__(scalars)
        self._make = make

    def __missing__(self, key: str) -> Any:
        value = self[key] = self._make[key]()
        return value


class Chunk:
    """The threads of a chunk of blocks: special registers, registers, shared and local memory."""

    def __init__(self, env: Env, block_ids: np.ndarray):
        bx, by, bz = env.block
        gx, gy, gz = env.grid
        tpb = bx * by * bz
        self.warps_per_block = -(-tpb // 32)
        width = self.warps_per_block * 32
        self.nblocks = nblocks = len(block_ids)
        self.n = self.nblocks * width
        self.env = env
        u32 = np.uint32
        # per lane of one block (padding lanes repeat the last thread) and per block of the chunk
        local = np.arange(width, dtype=np.int64)
        t = np.minimum(local, tpb - 1)
        tid = {"%tid.x": (t % bx).astype(u32), "%tid.y": ((t // bx) % by).astype(u32)}
        tid["%tid.z"] = (t // (bx * by)).astype(u32)
        block_ids = np.asarray(block_ids, dtype=np.int64)
        ctaid = {"%ctaid.x": (block_ids % gx).astype(u32), "%ctaid.y": ((block_ids // gx) % gy).astype(u32)}
        ctaid["%ctaid.z"] = (block_ids // (gx * gy)).astype(u32)
        lane = (local % 32).astype(u32)
        one = u32(1)
        per_lane = {
            "%laneid": lambda: lane,
            "%warpid": lambda: (local // 32).astype(u32),
            "%lanemask_eq": lambda: (one << lane).astype(u32),
            "%lanemask_lt": lambda: ((one << lane) - one).astype(u32),
            "%lanemask_le": lambda: (((one << lane) << one) - one).astype(u32),
            "%lanemask_gt": lambda: (~(((one << lane) << one) - one)).astype(u32),
            "%lanemask_ge": lambda: (~((one << lane) - one)).astype(u32),
        }
        make: dict[str, Callable[[], Any]] = {}
        for k, v in tid.items():
            make[k] = functools.partial(np.tile, v, nblocks)
        for k, v in ctaid.items():
            make[k] = functools.partial(np.repeat, v, width)
        for k, f in per_lane.items():
            make[k] = functools.partial(_tiled, f, nblocks)
        scalars = {
            "%ntid.x": u32(bx),
            "%ntid.y": u32(by),
            "%ntid.z": u32(bz),
            "%nctaid.x": u32(gx),
            "%nctaid.y": u32(gy),
            "%nctaid.z": u32(gz),
            "%nwarpid": u32(self.warps_per_block),
            "%smid": u32(0),
            "%nsmid": u32(1),
            "%clock": u32(0),
            "%clock64": np.uint64(0),
            "%gridid": np.uint64(0),
        }
        self.special = _Specials(make, scalars)
        # threadIdx and blockIdx as separable values (per-lane / per-block parts, sim/separable.py)
        zb, zl = np.zeros(nblocks, dtype=u32), np.zeros(width, dtype=u32)
        self.special_sep = {
            **{k: Sep.of(zb, v) for k, v in tid.items()},
            **{k: Sep.of(v, zl) for k, v in ctaid.items()},
        }
        # registers whose value is kept separable (integer address arithmetic, uniform values):
        # the array in `regs` is brought up to date only when something reads it as an array
        self.seps: dict[str, Sep] = {}
        # predicate registers whose value is the same in every lane (a loop's exit test on a
        # uniform counter): kept as a bool, so a branch on it splits no mask
        self.flags: dict[str, bool] = {}
        self.stale: set[str] = set()
        self._zero_cores: dict[np.dtype[Any], Core] = {}
        self._per_block: dict[tuple[str, int], np.ndarray] = {}
        self.regs: dict[str, np.ndarray] = {}
        self._storage: dict[str, np.dtype[Any]] = {}
        self.shared = np.zeros(self.nblocks * max(env.shared_bytes, 16), dtype=np.uint8)
        self.races = SharedRaces(self.shared.size, max(env.shared_bytes, 16), width)
        self.live = np.tile(local < tpb, nblocks)

    @functools.cached_property
    def shared_base(self) -> np.ndarray:
        """Each lane's first byte of its block's shared memory in `shared` (the general path
        adds every shared access's offset to it)."""
        width = self.warps_per_block * 32
        return np.repeat(np.arange(self.nblocks, dtype=np.int64) * max(self.env.shared_bytes, 16), width)

    @functools.cached_property
    def local(self) -> np.ndarray:
        """The lanes' local memory frames (allocated when a kernel first uses local memory)."""
        return np.zeros(self.n * max(self.env.local_bytes, 8), dtype=np.uint8)

    # ---- registers -------------------------------------------------------------------------
    def reg(self, name: str) -> np.ndarray:
        found = self.regs.get(name)
        if found is None:
            t = self.env.reg_types.get(name)
            if t is None:
                raise CudaSyntaxError(f"register {name} is used but not declared in the PTX")
            found = self.regs[name] = np.zeros(self.n, dtype=storage_dtype(t))
        if name in self.stale:  # its value is a Sep or a uniform flag: materialise it once
            self.stale.discard(name)
            kept = self.seps.get(name)
            if kept is None:
                found.fill(self.flags[name])
                return found
            v = kept.full()
            np.copyto(found, v if v.dtype == found.dtype else as_type(v, _type_of_dtype(found.dtype)))
        return found

    def shared_block_elements(self, size: int) -> np.ndarray:
        """Per block, the first element (of `size` bytes) of its shared memory in `shared`."""
        key = ("shared_blocks", size)
        found = self._per_block.get(key)
        if found is None:
            found = self._per_block[key] = np.arange(self.nblocks, dtype=np.int64) * (
                max(self.env.shared_bytes, 16) // size
            )
        return found

    def uniform(self, value: np.generic) -> Sep:
        """A value that is the same in every lane, as a Sep with zero parts."""
        dt = value.dtype
        core = self._zero_cores.get(dt)
        if core is None:
            zeros = np.zeros(1, dtype=dt)
            core = self._zero_cores[dt] = Core(
                np.broadcast_to(zeros, (self.nblocks,)), np.broadcast_to(zeros, (self.n // self.nblocks,))
            )
        return Sep(core, value)

    def bind(self, name: str, value: np.ndarray) -> None:
        """Make a fresh whole-chunk array of the register's storage dtype the register itself."""
        self._drop_kept(name)
        self.regs[name] = value

    def _drop_kept(self, name: str) -> None:
        """Forget a register's kept Sep or flag (its array is about to be the value)."""
        self.stale.discard(name)
        self.seps.pop(name, None)
        self.flags.pop(name, None)

    def write(self, name: str, value: Any, mask: np.ndarray, full: bool, fresh: bool = False) -> None:
        """Set a register for the lanes of `mask` (`full`: every lane). `fresh`: `value` is a new
        array nothing else refers to (a load's gather, an fma's result), so a full write keeps
        it as the register instead of copying it. A whole-register integer scalar or Sep is
        kept as a Sep, a bool scalar as a flag (the array is brought up to date when read)."""
        if (
            full
            and fresh
            and type(value) is np.ndarray
            and value.shape == (self.n,)
            and value.dtype == self.storage_of(name)
            and value.flags.c_contiguous
            and value.flags.writeable
        ):
            self.bind(name, value)
            return
        if full and not isinstance(value, Sep) and (type(value) is not np.ndarray or value.ndim == 0):
            scalar = np.asarray(value)[()]
            if isinstance(scalar, np.generic) and scalar.dtype.kind in "iu":
                value = self.uniform(scalar)
            elif isinstance(scalar, np.bool_) and self.storage_of(name) == np.bool_:
                self.seps.pop(name, None)
                self.flags[name] = bool(scalar)
                self.stale.add(name)
                return
        if isinstance(value, Sep):
            if full and value.dtype.itemsize == self.storage_of(name).itemsize:
                self.flags.pop(name, None)
                self.seps[name] = value
                self.stale.add(name)
                return
            value = value.full()
        if full:  # the whole register is overwritten: a kept Sep or flag is simply dropped
            self._drop_kept(name)
            target = self.reg(name)
        else:
            target = self.reg(name)  # a kept Sep is materialised first: other lanes keep it
            self.seps.pop(name, None)
            self.flags.pop(name, None)
        v = np.asarray(value)
        if v.dtype != target.dtype:
            v = as_type(v, _type_of_dtype(target.dtype))
        if full:
            if v.ndim == 0:
                target.fill(v)
            else:
                np.copyto(target, v)
        else:
            np.copyto(target, v, where=mask)

    def storage_of(self, name: str) -> np.dtype[Any]:
        """The dtype a register's array has (its declared type's storage)."""
        found = self._storage.get(name)
        if found is not None:
            return found
        t = self.env.reg_types.get(name)
        if t is None:
            raise CudaSyntaxError(f"register {name} is used but not declared in the PTX")
        found = self._storage[name] = storage_dtype(t)
        return found

    # ---- faults ----------------------------------------------------------------------------
    def race_found(self, signal: FaultSignal) -> bool:
        """Keep a race (the launch's first) instead of stopping, where the launch says so."""
        if self.env.race_faults:
            return False
        if not self.env.races:
            self.env.races.append(signal.fault)
        return True

    def overrun_found(self, signal: FaultSignal) -> bool:
        """Keep an access past its allocation into mapped memory (the launch's first) instead of
        stopping, where the launch runs through what a GPU runs through (a whole program)."""
        if self.env.race_faults:
            return False
        if not self.env.overruns:
            self.env.overruns.append(signal.fault)
        return True

    def fault(
        self, kind: str, instr: Instr, lanes: np.ndarray, what: str, array: str | None = None, index: int | None = None
    ) -> FaultSignal:
        lane = int(np.flatnonzero(lanes)[0])
        width = self.warps_per_block * 32
        bx, by, bz = (int(self.special_sep[k].b[lane // width]) for k in _BLOCK_INDEX)
        tx, ty, tz = (int(self.special_sep[k].lane[lane % width]) for k in _THREAD_INDEX)
        block, thread = (bx, by, bz), (tx, ty, tz)
        env = self.env
        return fault_signal(kind, env.kernel, env.source_name, instr.line, block, thread, what, array, index)


_DTYPE_TYPE = {
    np.dtype(np.bool_): "pred",
    np.dtype(np.uint8): "b8",
    np.dtype(np.uint16): "b16",
    np.dtype(np.uint32): "b32",
    np.dtype(np.uint64): "b64",
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
    np.dtype(np.float16): "f16",
}


def _type_of_dtype(dt: np.dtype) -> str:
    return _DTYPE_TYPE[dt]


def warps_with(mask: np.ndarray) -> np.ndarray:
    """Per warp of the chunk: does any lane of `mask` belong to it. A warp's 32 bools are read as
    four 64-bit words (several times faster than a boolean reduction along rows)."""
    if mask.dtype == np.bool_ and mask.flags.c_contiguous and mask.size % 32 == 0:
        words = mask.view(np.uint64).reshape(-1, 4)
        return np.asarray((words[:, 0] | words[:, 1] | words[:, 2] | words[:, 3]) != 0)
    return np.asarray(mask.reshape(-1, 32).any(axis=1))


# ---- operands ---------------------------------------------------------------------------------

Reader = Callable[[Chunk], Any]


def is_uniform(s: Sep) -> bool:
    """Whether a Sep has the same value in every lane (both parts zero)."""
    return s.core.bounds() == (0, 0, 0, 0)


def sep_as(s: Sep, ptx_type: str) -> Sep | np.generic | None:
    """A kept Sep read as integer PTX type `ptx_type`: a scalar where it is uniform, a Sep of
    the same width (reinterpreted), else None (the caller reads the register's array)."""
    want = NP[ptx_type]
    if is_uniform(s):
        if isinstance(s.off, np.generic) and s.off.dtype == want:
            return s.off
        scalar = as_type(np.asarray(s.off), ptx_type)[()]
        return scalar if isinstance(scalar, np.generic) else None
    if s.dtype == want:
        return s
    if s.dtype.itemsize == want.itemsize:
        r = s.astype(want)
        return r if isinstance(r, Sep) else None
    return None


Guard = bool | np.ndarray


def predicate(text: str, env: Env) -> Callable[[Chunk], Guard]:
    """A reader of a predicate operand (`%p`, `!%p`): a bool where the register holds the same
    value in every lane, else its lane array."""
    text = text.strip()
    negated = text.startswith("!")
    name = text[1:].strip() if negated else text
    if not (register_name(name) or name in env.reg_types):
        return operand(text, "pred", env)

    def read(ch: Chunk) -> Guard:
        flag = ch.flags.get(name)
        if flag is not None:
            return flag != negated
        r = as_type(ch.reg(name), "pred")
        return ~r if negated else r

    return read


def guarded(mask: np.ndarray, p: Guard) -> np.ndarray:
    """The lanes of `mask` whose guard predicate `p` is on."""
    if p is True:
        return mask
    if p is False:
        return np.zeros_like(mask)
    return mask & p


def operand(text: str, t: str, env: Env, sep_ok: bool = False) -> Reader:
    """A reader of one source operand as PTX type `t`. `sep_ok` (integer arithmetic that keeps
    separable values: add, sub, mul.lo, mad.lo, mul.wide, shl, mov, cvt, cvta): a register kept
    as a Sep is read as that Sep, or as a scalar where it is uniform."""
    text = text.strip()
    want = NP[t]
    is_register = bool(register_name(text)) or text in env.reg_types

    def read_array(ch: Chunk) -> Any:
        found = ch.reg(text)
        return found if found.dtype == want else as_type(found, t)

    if sep_ok and want.kind in "iu":
        if text in _SEP_SPECIALS:

            def read_special(ch: Chunk) -> Any:
                r = sep_as(ch.special_sep[text], t)
                return as_type(ch.special[text], t) if r is None else r

            return read_special
        if is_register:

            def read(ch: Chunk) -> Any:
                kept = ch.seps.get(text)
                if kept is not None:
                    r = sep_as(kept, t)
                    if r is not None:
                        return r
                return read_array(ch)

            return read
    if text.startswith("!"):
        inner = operand(text[1:], t, env)
        return lambda ch: ~inner(ch)
    if text.startswith("-") and not text[1:2].isdigit():  # a negated register (contracted fma)
        inner = operand(text[1:], t, env)
        return lambda ch: -inner(ch)
    if text.startswith("-0f") or text.startswith("-0d"):
        inner = operand(text[1:], t, env)
        return lambda ch: -inner(ch)
    if text in SPECIAL_NAMES or text.split(".")[0] in ("%tid", "%ntid", "%ctaid", "%nctaid"):
        return lambda ch: as_type(ch.special[text], t)
    if is_register:
        return read_array
    if text in env.symbols:
        value = as_type(np.asarray(env.symbols[text], dtype=np.uint64), t)[()]
        return lambda ch: value
    if text in env.params:  # a kernel parameter's address in the param space (`mov.b64 %rd1, k_param_0`)
        where = as_type(np.asarray(env.param_space()[0][text], dtype=np.uint64), t)[()]
        return lambda ch: where
    imm = immediate(text, t)
    return lambda ch: imm


def param_layout(params: dict[str, bytes]) -> tuple[dict[str, int], np.ndarray]:
    """The kernel's parameters in one param space, each at a 16-byte boundary in declaration
    order: where each starts, and the bytes. A kernel that indexes a by-value struct parameter
    takes its address and reads through it with ld.param (CUDA 12's param-space addressing)."""
    starts, size = {}, 0
    for name, raw in params.items():
        size = -(-size // 16) * 16
        starts[name] = size
        size += len(raw)
    image = np.zeros(max(-(-size // 16) * 16, 16), dtype=np.uint8)  # whole 16-byte words: any view
    for name, raw in params.items():
        image[starts[name] : starts[name] + len(raw)] = np.frombuffer(raw, dtype=np.uint8)
    return starts, image


_ADDR = re.compile(r"^\[\s*([^\]+]+?)\s*(?:\+\s*(-?\s*\w+))?\s*\]$")


def address_register(text: str, env: Env) -> tuple[str, int] | None:
    """(register, signed immediate) of a memory operand `[reg+off]`, None for other forms."""
    m = _ADDR.match(text.strip())
    if m is None:
        return None
    base, offset = m.group(1).strip(), m.group(2)
    if not (register_name(base) or base in env.reg_types):
        return None
    return base, int(offset.replace(" ", ""), 0) if offset else 0


def address(text: str, env: Env, width: str) -> Callable[[Chunk], Any]:
    """A reader of a memory operand `[reg+off]`, `[symbol+off]` as a uint64 address."""
    m = _ADDR.match(text.strip())
    if m is None:
        raise CudaSyntaxError(f"cannot read the PTX address {text!r}")
    base, offset = m.group(1).strip(), m.group(2)
    off = np.uint64(int(offset.replace(" ", ""), 0) & (2**64 - 1)) if offset else np.uint64(0)
    if register_name(base) or base in env.reg_types:
        # a 32-bit address register (shared, local) plus its offset wraps at 32 bits, as the
        # hardware adds them: [%r+68] with %r = -64 is address 4, [%r+-16] with %r = 16 is 0
        wrap = bool(offset) and env.reg_types.get(base, "")[-2:] == "32"
        low32 = np.uint64(0xFFFFFFFF)

        def read(ch: Chunk) -> Any:
            kept = ch.seps.get(base)
            if kept is not None:  # a separable address stays one (a loop's step moves its offset)
                # as the array path: the register's storage type, then zero-extended to 64 bits
                stored = kept.astype(ch.storage_of(base))
                u = stored.astype(np.uint64) if isinstance(stored, Sep) else None
                if isinstance(u, Sep) and (not wrap or u.bounds()[1] + int(off) <= 0xFFFFFFFF):
                    return u + off
            r = ch.reg(base)
            total = (r.astype(np.uint64) if r.dtype != np.uint64 else r) + off
            return total & low32 if wrap else total

        return read
    if base in env.symbols:
        value = np.asarray(np.uint64(env.symbols[base]) + off)
        return lambda ch: value
    if base in env.params:
        value = off
        return lambda ch: value
    raise CudaSyntaxError(f"the PTX address {text!r} names nothing this kernel declares")
