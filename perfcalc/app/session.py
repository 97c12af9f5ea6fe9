"""Run a built program in a child process and serve its GPU (issue 31).

The child gets a socket, the shared device-memory file and perfcalc's tables (each kernel's
parameter layout, each variable's initial bytes, the product's properties); its stdout and stderr
are the user's terminal. Every launch it makes comes here: it runs on the PTX engine over the
child's memory (analysis/app_launches.py), and the answer carries the launch's predicted time,
or the fault that stopped it (the program then sees cudaErrorIllegalAddress, as on a GPU).
A program that crashes, hangs or is killed is reported as its own failure; perfcalc's outputs
are made after it ends, all or nothing.
"""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfcalc.analysis.app_launches import LaunchRecord, launch_occupancy, resources, run_launch
from perfcalc.analysis.programs import Arena, ArenaLaunch, CompiledKernel, program_kernels
from perfcalc.analysis.sampling import DEFAULT_BUDGET_S
from perfcalc.app.build import Program
from perfcalc.errors import InputError, PerfcalcError, TimeLimitExceeded
from perfcalc.specs.target import Target
from perfcalc.units import seconds as seconds_text

ARENA_BYTES = 64 << 30  # virtual: the file is sparse, only what the program writes takes space


class ProgramFailed(PerfcalcError, RuntimeError):
    """The user's program did not run to its end (a crash, a hang past the limit)."""


@dataclass
class Selection:
    """Nsight Compute's launch filters: only matching launches are counted and reported (every
    launch runs, exactly: the program reads their results)."""

    kernel_regex: str | None = None
    skip: int = 0
    count: int | None = None
    seen: int = 0

    def wants(self, name: str) -> bool:
        import re

        if self.kernel_regex is not None and not re.search(self.kernel_regex, name):
            return False
        self.seen += 1
        if self.seen <= self.skip:
            return False
        return self.count is None or self.seen <= self.skip + self.count


@dataclass
class Outcome:
    """What happened: the program's exit status and every counted launch."""

    exit_status: int
    launches: list[LaunchRecord] = field(default_factory=list)
    uncounted: int = 0
    seconds: float = 0.0


def _table(program: Program, target: Target, kernels: dict[str, CompiledKernel]) -> str:
    """The child's tables: kernels' parameters, variables' initial bytes, device properties."""
    lines = []
    for name, ck in sorted(kernels.items()):
        sizes = " ".join(f"{p.size} {max(p.align, 1)}" for p in ck.fn.params)
        lines.append(f"K {name} {len(ck.fn.params)} {sizes}".rstrip())
    seen = set()
    for ck in kernels.values():
        for v in ck.module.variables:
            if v.space in ("const", "global") and v.name not in seen:
                seen.add(v.name)
                lines.append(f"V {v.name} {v.size} {v.init.hex()}".rstrip())
    lines += [f"P {k} {v}" for k, v in _properties(target).items()]
    return "\n".join(lines) + "\n"


def _properties(target: Target) -> dict[str, object]:
    arch, gpu = target.arch, target.gpu
    major, minor = arch.cc.split(".")
    props: dict[str, object] = {
        "name": f"perfcalc {gpu.name if gpu else 'CC ' + arch.cc}".replace("\n", " "),
        "major": major,
        "minor": minor,
        "maxThreadsPerBlock": arch.max_threads_per_block,
        "maxThreadsDimX": arch.max_block_dim[0],
        "maxThreadsDimY": arch.max_block_dim[1],
        "maxThreadsDimZ": arch.max_block_dim[2],
        "regsPerBlock": arch.max_registers_per_block,
        "regsPerMultiprocessor": arch.registers_per_sm,
        "maxThreadsPerMultiProcessor": arch.max_threads_per_sm,
        "maxBlocksPerMultiProcessor": arch.max_blocks_per_sm,
        "sharedMemPerBlock": arch.max_shared_memory_per_block_bytes,
        "sharedMemPerBlockOptin": arch.max_shared_memory_per_block_launchable_bytes,
        "sharedMemPerMultiprocessor": arch.shared_memory_per_sm_bytes,
    }
    if arch.max_grid_dim is not None:
        props.update(zip(("maxGridSizeX", "maxGridSizeY", "maxGridSizeZ"), arch.max_grid_dim, strict=True))
    if gpu is not None:
        props.update(multiProcessorCount=gpu.sm_count, clockRate=int(gpu.peak_clock_mhz * 1000))
        props["memoryBusWidth"] = gpu.memory_bus_width_bits
        if gpu.l2_cache_kb:
            props["l2CacheSize"] = gpu.l2_cache_kb * 1024
    return props


class _Channel:
    def __init__(self, sock: socket.socket):
        self.sock = sock

    def receive(self) -> bytes | None:
        head = self._exactly(4)
        if head is None:
            return None
        (n,) = struct.unpack("<I", head)
        return self._exactly(n)

    def _exactly(self, n: int) -> bytes | None:
        chunks, got = [], 0
        while got < n:
            part = self.sock.recv(n - got)
            if not part:
                return None
            chunks.append(part)
            got += len(part)
        return b"".join(chunks)

    def reply(self, body: bytes) -> None:
        self.sock.sendall(struct.pack("<I", len(body)) + body)


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.at = data, 0

    def take(self, fmt: str) -> tuple[int, ...]:
        size = struct.calcsize(fmt)
        values = struct.unpack_from(fmt, self.data, self.at)
        self.at += size
        return values

    def text(self) -> str:
        (n,) = self.take("<I")
        out = self.data[self.at : self.at + n].decode(errors="replace")
        self.at += n
        return out

    def blob(self) -> bytes:
        (n,) = self.take("<I")
        out = self.data[self.at : self.at + n]
        self.at += n
        return out


def run_program(
    program: Program,
    args: Sequence[str],
    target: Target,
    selection: Selection | None = None,
    max_seconds: float = 600.0,
    cwd: str | None = None,
    on_launch: Callable[[int, str], None] | None = None,
    iteration_cap: int = 1_000_000,
    streams: tuple[Any, Any, Any] = (subprocess.DEVNULL, None, None),
    cache_budget_s: float | None = DEFAULT_BUDGET_S,
) -> Outcome:
    """Run the program's main() with `args`; every launch on the engine (see the module
    docstring); `cache_budget_s` as analysis/app_launches.run_launch takes it."""
    kernels = program_kernels([(u.path, u.ptx) for u in program.units if u.ptx], target.arch, program.compiler)
    selection = selection or Selection()
    with tempfile.TemporaryDirectory(prefix="perfcalc-app-") as tmp:
        arena = Arena.create(tmp, ARENA_BYTES)
        table = Path(tmp) / "tables.txt"
        table.write_text(_table(program, target, kernels))
        parent, child = socket.socketpair()
        env = {
            **os.environ,
            "PERFCALC_APP_FD": str(child.fileno()),
            "PERFCALC_APP_ARENA": arena.path,
            "PERFCALC_APP_TABLE": str(table),
        }
        start = time.monotonic()
        try:
            proc = subprocess.Popen(
                [program.executable, *args],
                env=env,
                pass_fds=(child.fileno(),),
                cwd=cwd,
                start_new_session=True,
                stdin=streams[0],
                stdout=streams[1],
                stderr=streams[2],
            )
        except OSError as exc:
            raise ProgramFailed(f"the program could not be started: {exc.strerror or exc}") from None
        child.close()
        outcome = Outcome(0)
        try:
            serving = _Serving(arena, kernels, target, selection, outcome, on_launch, iteration_cap, cache_budget_s)
            _serve(_Channel(parent), proc, serving, start + max_seconds)
        finally:
            parent.close()
            if proc.poll() is None:
                _kill(proc)
            arena.close()
        outcome.exit_status = proc.wait()
        outcome.seconds = time.monotonic() - start
        return outcome


def _kill(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()
    proc.wait()


@dataclass(frozen=True)
class _Serving:
    """What answering the program's requests needs: its memory, its kernels, the GPU, which
    launches to count, where the counts go, the progress callback, the loop cap and the cache
    model's budget per launch."""

    arena: Arena
    kernels: dict[str, CompiledKernel]
    target: Target
    selection: Selection
    outcome: Outcome
    on_launch: Callable[[int, str], None] | None
    iteration_cap: int
    cache_budget_s: float | None


def _serve(channel: _Channel, proc: subprocess.Popen[bytes], serving: _Serving, deadline: float) -> None:
    from perfcalc.limits import time_limit

    channel.sock.settimeout(1.0)
    limit = max(deadline - time.monotonic(), 0.001)
    with time_limit(limit):
        while True:
            if time.monotonic() > deadline:
                _kill(proc)
                raise ProgramFailed(
                    f"the program ran past its time limit ({seconds_text(limit)}, --max-seconds) and was stopped: "
                    "give it smaller arguments"
                )
            try:
                message = channel.receive()
            except TimeoutError:
                if proc.poll() is not None:
                    return
                continue
            if message is None:
                return
            channel.reply(_answer(message, serving))


def _answer(message: bytes, s: _Serving) -> bytes:
    kind, body, arena = message[:1], _Reader(message[1:]), s.arena
    if kind == b"H":
        arena.base, _size = body.take("<QQ")
        return b"K"
    if kind == b"V":
        name = body.text()
        address, size = body.take("<QQ")
        arena.variables[name] = (address, size)
        return b"K"
    if kind == b"L":
        return _launch(body, s)
    if kind in (b"A", b"O"):
        name = body.text()
        a, b = body.take("<QQ")
        ck = s.kernels.get(name)
        if ck is None:
            return b"Q" + struct.pack("<q", 0)
        if kind == b"O":
            occ = launch_occupancy(ck, s.target, int(a), int(b))
            return b"Q" + struct.pack("<q", int(occ.active_blocks_per_sm))
        found = resources(ck)
        regs = found.registers_per_thread if found else 32
        static = found.static_shared_memory_bytes if found else 0
        local = sum(v.size for v in ck.fn.variables if v.space == "local")
        return b"Q" + struct.pack(
            "<6i", regs, static, local, s.target.arch.max_threads_per_block, 0, s.target.arch.cc_number
        )
    return b"F" + b"unknown request"


def _launch(body: _Reader, s: _Serving) -> bytes:
    arena, outcome = s.arena, s.outcome
    name = body.text()
    grid = body.take("<III")
    block = body.take("<III")
    shared, _stream = body.take("<QQ")
    params = body.blob()
    (count,) = body.take("<I")
    if count != 0xFFFFFFFF:
        arena.allocations = [body.take("<QQ") for _ in range(count)]  # type: ignore[misc]
    ck = s.kernels.get(name)
    if ck is None:
        return b"D" + f"no compiled kernel {name}".encode()
    index = len(outcome.launches) + outcome.uncounted
    if s.on_launch is not None:
        s.on_launch(index, ck.kernel)
    try:
        record = run_launch(
            index,
            ArenaLaunch(ck, (grid[0], grid[1], grid[2]), (block[0], block[1], block[2]), int(shared), params),
            arena,
            s.target,
            ck.source_file,
            s.iteration_cap,
            cache_budget_s=s.cache_budget_s,
        )
    except TimeLimitExceeded as exc:  # the run's limit, not the launch's fault: the run ends
        raise ProgramFailed(_out_of_time(index, ck.kernel, exc.what)) from None
    except InputError as exc:  # a launch the device refuses (too many threads, too much shared):
        return b"C" + str(exc).encode()  # cudaErrorInvalidConfiguration, not sticky
    if record.sim is not None and record.sim.faults and record.sim.faults[0].kind == "time_limit":
        raise ProgramFailed(_out_of_time(index, ck.kernel, record.fault or ""))
    if s.selection.wants(ck.kernel):
        outcome.launches.append(record)
    else:
        outcome.uncounted += 1
    if record.fault is not None:
        return b"F" + record.fault.encode()
    return b"K" + struct.pack("<d", record.predicted_time_s or 0.0)


def _out_of_time(index: int, kernel: str, why: str) -> str:
    return f"the program ran past its time limit in launch {index} ({kernel}): {why}; give it smaller arguments"
