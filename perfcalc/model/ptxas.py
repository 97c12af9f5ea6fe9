"""Read the per-kernel resource usage that `nvcc -Xptxas -v` / `--resource-usage` prints.

Occupancy needs three numbers per kernel that only the compiler knows: registers per thread,
static shared memory per block and named barriers. ptxas prints them once per entry function
and target architecture, e.g. (CUDA 13.0, captured in tests/data/ptxas_seeds_sm75.txt):

    ptxas info    : Compiling entry function '_Z15MatrixMulKernelPfS_S_i' for 'sm_75'
    ptxas info    : Function properties for _Z15MatrixMulKernelPfS_S_i
        0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
    ptxas info    : Used 52 registers, used 0 barriers, 380 bytes cmem[0]

Older toolkits print `A+B bytes smem` on CC 1.x, where B is the kernel parameters: on 1.x they
are passed in shared memory (CUDA C Programming Guide 3.x, "__global__ function parameters ...
via shared memory and are limited to 256 bytes on devices of compute capability 1.x"), so both
parts occupy the block's shared memory and are added here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from perfcalc.errors import InputError
from perfcalc.results import Result
from perfcalc.specs.cc import ComputeCapability
from perfcalc.specs.demangle import demangle

# Quotes may arrive as typographic ones when a log was pasted through a forum or a word processor.
_ENTRY = re.compile(
    r"Compiling entry function ['\u2018]([^'\u2019]+)['\u2019]"
    r"(?: for ['\u2018](\w+)['\u2019])?"
)
_PROPERTIES = re.compile(r"Function properties for (\S+)")
_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers(.*)$")
_BARRIERS = re.compile(r"used (\d+) barriers")
_SMEM = re.compile(r"(\d+)(?:\+(\d+))? bytes smem")
_LMEM = re.compile(r"(\d+)(?:\+(\d+))? bytes lmem")
_CMEM = re.compile(r"(\d+) bytes cmem\[(\d+)\]")
_ERROR = re.compile(r"ptxas (?:error|fatal)\s*:?(.*)$")
# A run of more digits than an int64 holds: refused first, because the patterns above would
# backtrack over it from every start position (a 40 KB line took two minutes) and int() of
# more than 4,300 digits raises.
_HUGE_NUMBER = re.compile(r"\d{20,}")


@dataclass(frozen=True)
class KernelResources(Result):
    """What ptxas reports for one entry function compiled for one architecture.

    `static_shared_memory_bytes` is the static shared memory per block (on CC 1.x including the
    `+B` kernel-parameter part, kept separately in `parameter_shared_memory_bytes`). Fields ptxas
    did not print are None (older toolkits print no barrier count, for example).
    """

    name: str
    demangled: str | None
    compiled_for: str | None  # ptxas's target, e.g. 'sm_75'
    registers_per_thread: int
    static_shared_memory_bytes: int
    parameter_shared_memory_bytes: int
    block_barriers: int | None
    stack_frame_bytes: int | None
    spill_store_bytes: int | None
    spill_load_bytes: int | None
    local_memory_bytes: int | None
    constant_memory_bytes: tuple[tuple[int, int], ...]

    @property
    def display_name(self) -> str:
        return self.demangled or self.name

    @property
    def cc(self) -> str | None:
        """'sm_75' -> '7.5', 'sm_100a' -> '10.0'; None for a missing or unusual target name."""
        if not (self.compiled_for or "").lower().startswith("sm_"):
            return None
        found = ComputeCapability.try_parse(self.compiled_for)
        return None if found is None else str(found)


def _sum_parts(match: re.Match[str] | None) -> tuple[int | None, int]:
    if match is None:
        return None, 0
    extra = int(match.group(2) or 0)
    return int(match.group(1)) + extra, extra


def _resources(name: str, arch: str | None, used: re.Match[str], frame: re.Match[str] | None) -> KernelResources:
    rest = used.group(2)
    smem, smem_params = _sum_parts(_SMEM.search(rest))
    lmem, _ = _sum_parts(_LMEM.search(rest))
    barriers = _BARRIERS.search(rest)
    return KernelResources(
        name=name,
        demangled=demangle(name),
        compiled_for=arch,
        registers_per_thread=int(used.group(1)),
        static_shared_memory_bytes=smem or 0,
        parameter_shared_memory_bytes=smem_params,
        block_barriers=int(barriers.group(1)) if barriers else None,
        stack_frame_bytes=int(frame.group(1)) if frame else None,
        spill_store_bytes=int(frame.group(2)) if frame else None,
        spill_load_bytes=int(frame.group(3)) if frame else None,
        local_memory_bytes=lmem,
        constant_memory_bytes=tuple((int(b), int(n)) for n, b in _CMEM.findall(rest)),
    )


def parse_ptxas(text: str, source: str = "ptxas output") -> tuple[KernelResources, ...]:
    """Every entry function's resources, in the order ptxas printed them.

    A `Used N registers` line belongs to the entry function announced before it; one that
    follows the properties of a non-entry (device) function is skipped. A `Used` line with no
    entry announced at all (a pasted fragment) becomes an unnamed kernel. Raises InputError
    naming `source` when no kernel is found or ptxas reported an error (the compilation failed,
    so the numbers it still printed describe no kernel that can run).
    """
    kernels: list[KernelResources] = []
    entry: tuple[str, str | None] | None = None
    props_name: str | None = None
    frame: re.Match[str] | None = None
    errors: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        if huge := _HUGE_NUMBER.search(line):  # greedy: the whole run of digits
            raise InputError(
                f"{source} line {number}: a number of {len(huge.group())} digits, "
                "beyond the limit of 2**63 - 1 (19 digits)"
            )
        if m := _ENTRY.search(line):
            entry, props_name, frame = (m.group(1), m.group(2)), None, None
        elif m := _PROPERTIES.search(line):
            props_name, frame = m.group(1), None
        elif m := _FRAME.search(line):
            frame = m
        elif m := _USED.search(line):
            if entry is None and props_name is None:
                kernels.append(_resources(f"kernel_{len(kernels) + 1}", None, m, frame))
            elif entry is not None and props_name in (None, entry[0]):
                kernels.append(_resources(entry[0], entry[1], m, frame))
            entry, props_name, frame = None, None, None
        elif m := _ERROR.search(line):
            errors.append(m.group(1).strip())
    if errors:
        raise InputError(
            f"{source} records a failed compilation (ptxas error: {errors[0]}); fix the kernel and compile again"
        )
    if not kernels:
        raise InputError(
            f"no kernel resource usage found in {source}: expected the output of nvcc -Xptxas -v "
            'or nvcc --resource-usage, with lines like "ptxas info : Used 32 registers"'
        )
    return tuple(kernels)


def entry_resources(log: str | None, entry: str, source: str = "ptxas output") -> KernelResources | None:
    """The report of entry function `entry` (its mangled name) in a ptxas -v log, if there."""
    if not log:
        return None
    return next((k for k in parse_ptxas(log, source) if k.name == entry), None)


def read_ptxas_file(path: str | Path) -> tuple[KernelResources, ...]:
    """Parse a saved ptxas log; unreadable or kernel-free files raise InputError."""
    from perfcalc.files import read_bytes

    path = Path(path)
    text = read_bytes(path, "ptxas file").decode("utf-8", errors="replace")
    return parse_ptxas(text, source=f"ptxas file {path}")
