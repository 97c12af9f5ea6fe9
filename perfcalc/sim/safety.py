"""Kernel faults, reported the way compute-sanitizer would: one line with kernel, source line,
array, block, thread and the offending index.

Kinds (compute-sanitizer tool in brackets): ``out_of_bounds`` [memcheck], ``shared_race``
(read-after-write, write-after-read or write-after-write between different warps of a block
with no ``__syncthreads()`` between) [racecheck], ``divergent_barrier`` (threads of a block waiting at
different ``__syncthreads()``, or one that the rest of the block never reaches and never exits
past: a hang; the source engine also refuses one reached by part of the block, which the PTX
engine runs as an H100 does) [synccheck], ``iteration_cap`` (a loop that
runs past the cap: a kernel that would hang), ``endless_loop`` (a loop proven never to end:
its condition reads only variables the loop never assigns, and nothing breaks out of it),
``time_limit`` (a loop still running when the simulation's time limit passed, `max_seconds`:
an endless loop the two kinds before cannot prove, e.g. around a barrier or nested),
``division_by_zero`` (integer ``/`` or ``%`` by zero: undefined behaviour in C, no trap on the
GPU, so reported here rather than silently computed), ``integer_overflow`` (INT_MIN / -1),
``shift_out_of_range`` (a shift count outside 0..width-1; NumPy silently gives 0,
execution.md §2.5), ``read_only`` (a store through a const pointer). Signed overflow of + - *
is not reported: it wraps, as the hardware does (execution.md §2.5).
"""

from __future__ import annotations

from dataclasses import dataclass

from perfcalc.errors import KernelFault


@dataclass(frozen=True)
class Fault:
    """One detected fault; `message` is the one-line report."""

    kind: str
    kernel: str
    source_name: str
    line: int
    array: str | None
    block: tuple[int, int, int]
    thread: tuple[int, int, int]
    index: int | None
    message: str


class FaultSignal(KernelFault):
    """KernelFault carrying the structured Fault (raised inside the evaluator)."""

    def __init__(self, fault: Fault):
        super().__init__(fault.message)
        self.fault = fault


def fault_signal(
    kind: str,
    kernel: str,
    source_name: str,
    line: int,
    block: tuple[int, int, int],
    thread: tuple[int, int, int],
    what: str,
    array: str | None = None,
    index: int | None = None,
) -> FaultSignal:
    """The one fault record both front ends raise: kernel, file:line, thread and block in one
    line, as compute-sanitizer words it."""
    message = (
        f"{what} in kernel '{kernel}' at {source_name}:{line} "
        f"by thread ({thread[0]},{thread[1]},{thread[2]}) "
        f"in block ({block[0]},{block[1]},{block[2]})"
    )
    return FaultSignal(Fault(kind, kernel, source_name, line, array, block, thread, index, message))
