"""What to change in one launch: the occupancy engine's own hints plus the waste the run counted.

A report paragraph per kernel (issue #12) needs "what to change". Nothing here is a rule of
thumb with a made-up threshold: occupancy changes are configurations the engine was asked
about (model/hints.py); the memory findings are counted waste that is zero in a kernel without
it — extra shared passes from bank conflicts (CUDA C Best Practices Guide, "Shared Memory and
Memory Banks"), divergent branches (Programming Guide, "SIMT Architecture"), and global sectors
per request against the 4 a warp of consecutive 4-byte words needs (Best Practices Guide,
"Coalesced Access to Global Memory"; the CC >= 5.0 sector size is 32 bytes).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from perfcalc.analysis.launch_report import LaunchReport
from perfcalc.model.hints import Hint, advise, hint_message
from perfcalc.model.occupancy import OccupancyInputs
from perfcalc.model.time_model import TimePrediction
from perfcalc.results import Result
from perfcalc.sim.counters import Counters
from perfcalc.specs.arch import Arch
from perfcalc.units import format_value

SECTOR_BYTES = 32
# a warp reading 32 consecutive 4-byte words touches 128 bytes: 4 sectors of 32 bytes
COALESCED_SECTORS_PER_4_BYTE_REQUEST = 32 * 4 // SECTOR_BYTES


@dataclass(frozen=True)
class LaunchAdvice(Result):
    """One launch's limiter, bound and counted waste, and the engine's occupancy hints."""

    kernel: str
    occupancy: float
    limiters: tuple[str, ...]
    occupancy_hints: tuple[Hint, ...]
    predicted_time_s: float
    bound: str
    bound_detail: str
    global_load_sectors_per_request: float | None
    global_store_sectors_per_request: float | None
    shared_bank_conflicts_per_request: float | None
    divergent_branches: int

    def to_dict(self) -> dict[str, Any]:
        """The sentences of what to change, then the numbers behind them."""
        return {"what_to_change": what_to_change(self), **super().to_dict()}


def advise_launch(report: LaunchReport, arch: Arch) -> LaunchAdvice:
    """The advice for a launch the analysis layer ran and timed."""
    return advise_counts(
        report.kernel, arch, report.occupancy_inputs, report.limiters, report.counters, report.time, report.occupancy
    )


def advise_counts(
    kernel: str,
    arch: Arch,
    inputs: OccupancyInputs,
    limiters: tuple[str, ...],
    c: Counters,
    time: TimePrediction,
    occupancy: float,
) -> LaunchAdvice:
    """The advice from a launch's configuration, its counters and its predicted time (a launch
    of `perfcalc run`, or one of a whole program's)."""
    hints = advise(arch, inputs).hints
    shared_requests = c.shared_load_requests + c.shared_store_requests
    return LaunchAdvice(
        kernel=kernel,
        occupancy=occupancy,
        limiters=tuple(limiters),
        occupancy_hints=tuple(h for h in hints if h.kind != "none"),
        predicted_time_s=time.predicted_time_s,
        bound=time.bound,
        bound_detail=time.bound_detail,
        global_load_sectors_per_request=_ratio(c.global_load_transactions, c.global_load_requests),
        global_store_sectors_per_request=_ratio(c.global_store_transactions, c.global_store_requests),
        shared_bank_conflicts_per_request=_ratio(c.bank_conflicts, shared_requests),
        divergent_branches=c.divergent_branches,
    )


def _ratio(count: int, per: int) -> float | None:
    return count / per if per else None


def what_to_change(a: LaunchAdvice) -> list[str]:
    """The occupancy engine's hints, then each waste the run counted; never empty."""
    changes = [hint_message(h) for h in a.occupancy_hints]
    if a.shared_bank_conflicts_per_request:
        changes.append(
            f"bank conflicts cost {format_value(a.shared_bank_conflicts_per_request)} extra shared passes per "
            "request: pad the shared array or change its indexing so a warp's lanes hit different banks"
        )
    worst = max(a.global_load_sectors_per_request or 0, a.global_store_sectors_per_request or 0)
    if worst > COALESCED_SECTORS_PER_4_BYTE_REQUEST:
        changes.append(
            f"global accesses touch up to {format_value(worst)} sectors per request where a warp of consecutive "
            f"4-byte words needs {COALESCED_SECTORS_PER_4_BYTE_REQUEST}: if the elements are 4 bytes, let "
            "consecutive threads access consecutive addresses (coalescing)"
        )
    if a.divergent_branches:
        changes.append(
            f"{format_value(a.divergent_branches)} branches split a warp: where the work allows, make the "
            "condition uniform across each warp (e.g. index by warp, not by thread)"
        )
    if a.bound in BOUND_ADVICE:  # the detail names the bound and its term: '... (29.91 µs of 32.13 µs)'
        changes.append(f"{a.bound_detail}: {BOUND_ADVICE[a.bound]}")
    return changes or ["nothing the model or the counters point at"]


# what makes the limiting unit of the time model (model/time_model.py's terms) less busy, as the
# CUDA C Best Practices Guide puts it for each resource
BOUND_ADVICE = {
    "DRAM bandwidth": "only fewer DRAM bytes make it faster (reuse data through shared memory or registers)",
    "L2 bandwidth": "fewer L2 sectors: coalesce so each fetched sector is used, keep reused data in shared memory",
    "L1/shared wavefronts": "fewer L1/shared wavefronts per flop: no bank conflicts, several outputs per thread "
    "from each loaded value (register tiling)",
    "shared-memory wavefronts": "fewer shared wavefronts per flop: no bank conflicts, several outputs per thread "
    "from each loaded value (register tiling)",
    "instruction issue": "fewer instructions per element: unrolled loops, index arithmetic hoisted, no divergence",
    "FP32 pipe": "at the FP32 pipe's rate: only fewer flops (or tensor cores, not modelled here) make it faster",
    "integer pipe": "integer instructions at half the FP32 rate: less index arithmetic per element (hoist it out "
    "of loops, step pointers instead of recomputing offsets, fewer but wider accesses)",
    "FP64 pipe": "at the FP64 pipe's rate: only fewer flops or single precision make it faster",
    "block dispatch": "many short blocks: give each block more work (a grid-stride loop)",
    "memory latency": "too few loads in flight: more warps per SM or more independent loads per thread",
    "longest warp": "one warp does far more than the rest and the launch waits for it: spread its work over "
    "many threads (a parallel reduction, not one thread's loop; blocks of even work)",
    "atomic contention": "many lanes update one address: combine per warp or per block before the global atomic",
    "shared atomics": "many lanes update one shared word: combine per warp (shuffle) first",
    "constant requests": "a warp reads several __constant__ addresses and they serialise: index it uniformly",
}
