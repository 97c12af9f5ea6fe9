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

from perfcalc.analysis.launch_report import LaunchReport
from perfcalc.model.hints import Hint, advise
from perfcalc.specs.arch import Arch

SECTOR_BYTES = 32
# a warp reading 32 consecutive 4-byte words touches 128 bytes: 4 sectors of 32 bytes
COALESCED_SECTORS_PER_4_BYTE_REQUEST = 32 * 4 // SECTOR_BYTES


@dataclass(frozen=True)
class LaunchAdvice:
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


def advise_launch(report: LaunchReport, arch: Arch) -> LaunchAdvice:
    """The advice for a launch the analysis layer ran and timed."""
    c = report.counters
    hints = advise(arch, report.occupancy_inputs).hints
    shared_requests = c.shared_load_requests + c.shared_store_requests
    return LaunchAdvice(
        kernel=report.kernel,
        occupancy=report.occupancy,
        limiters=report.limiters,
        occupancy_hints=tuple(h for h in hints if h.kind != "none"),
        predicted_time_s=report.time.predicted_time_s,
        bound=report.time.bound,
        bound_detail=report.time.bound_detail,
        global_load_sectors_per_request=_ratio(c.global_load_transactions, c.global_load_requests),
        global_store_sectors_per_request=_ratio(c.global_store_transactions, c.global_store_requests),
        shared_bank_conflicts_per_request=_ratio(c.bank_conflicts, shared_requests),
        divergent_branches=c.divergent_branches,
    )


def _ratio(count: int, per: int) -> float | None:
    return count / per if per else None
