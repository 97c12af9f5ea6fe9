"""The time model's rates per compute capability (devices/timing.yaml), with their sources.

A CC's entry replaces the `default` keys it names; null means no source gave the figure for
that CC, and the time model leaves that term out (and says so) rather than guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

from perfcalc.errors import SpecError
from perfcalc.specs.arch import Arch
from perfcalc.specs.counters import TENSOR_KINDS
from perfcalc.specs.registry import devices_dir
from perfcalc.specs.yaml_load import read_mapping

# the per-event rates measured on a GPU (ns; null where no GPU of the CC was measured)
_MEASURED_NS = (
    "block_dispatch_ns",
    "atomic_combined_request_ns",
    "atomic_float_lane_ns",
    "atomic_exchange_lane_ns",
    "shared_atomic_int_lane_ns",
    "shared_atomic_cas_lane_ns",
    "shared_atomic_float_lane_ns",
    "constant_request_ns",
)

_KEYS = (
    "issue_per_sm_per_clock_by_major",
    "dependent_issue_cycles_by_major",
    "fp64_dependent_issue_cycles_by_major",
    "int_lanes_per_sm_per_clock_by_major",
    "tensor_pipe_cycles_by_major",
    "l1_bytes_per_sm_per_clock",
    "l2_bytes_per_sm_per_clock",
    "dram_read_efficiency",
    "dram_write_efficiency",
    "dram_latency_ns",
    "dram_queue_ns",
    "block_life_ns",
    "dram_latency_cycles",
    "l2_latency_cycles",
    "l1_latency_cycles",
    "shared_latency_cycles",
    "launch_overhead_s",
    "event_latency_s",
    "int_divide_instructions",
    *_MEASURED_NS,
    "store_merge_lines",
    "sources",
)


@dataclass(frozen=True)
class TimingRates:
    """One CC's rates (None: not sourced for this CC) and where each comes from."""

    cc: str
    issue_per_sm_per_clock: float
    l1_bytes_per_sm_per_clock: float | None
    l2_bytes_per_sm_per_clock: float | None
    dram_read_efficiency: float
    dram_write_efficiency: float
    dram_latency_ns: float | None
    dram_queue_ns: float | None
    dram_latency_cycles: float
    l2_latency_cycles: float | None
    l1_latency_cycles: float | None
    shared_latency_cycles: float | None
    launch_overhead_s: float  # the GPU's own time for an empty launch (what Nsight Compute times)
    int_divide_instructions: float
    sources: tuple[str, ...]
    # what CUDA events around one launch add to the GPU's own time (the host's launch latency):
    # added where a prediction is compared with event timings, never to the prediction itself
    event_latency_s: float = 0.0
    # seconds-per-event rates measured on a GPU of the CC (None: not measured for it)
    block_dispatch_ns: float | None = None  # an SM taking one more block
    atomic_combined_request_ns: float | None = None  # one warp's integer reduction, one sector
    atomic_float_lane_ns: float | None = None  # one lane's float/double add on a contended line
    atomic_exchange_lane_ns: float | None = None  # one lane's cas/exch/inc/dec on it
    # per SM: one more lane on a contended shared word, by class; one more constant address
    shared_atomic_int_lane_ns: float | None = None
    shared_atomic_cas_lane_ns: float | None = None
    shared_atomic_float_lane_ns: float | None = None
    constant_request_ns: float | None = None
    store_merge_lines: int | None = None  # the L1's store merging limit (cache model)
    # a block's life beyond its warps' waits and instructions (its launch and exit), ns
    block_life_ns: float | None = None
    # cycles a warp's instruction waits for the one it depends on (None: not sourced for the CC)
    dependent_issue_cycles: float | None = None
    # the same for an FP64 instruction where measured (None: dependent_issue_cycles)
    fp64_dependent_issue_cycles: float | None = None
    # integer lanes the SM's ALU pipes complete per clock (None: not measured for the CC)
    int_lanes_per_sm_per_clock: float | None = None
    # tensor-pipe cycles per HMMA/IMMA machine instruction, by counters kind (empty: not sourced)
    tensor_pipe_cycles: dict[str, float] = field(default_factory=dict)


def _lines(value: object) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 64:
        raise SpecError(
            f"devices/timing.yaml: store_merge_lines must be a whole number of lines from 1 to 64, got {value!r}"
        )
    return value


@cache
def _table() -> dict[str, Any]:
    return read_mapping(devices_dir() / "timing.yaml")


def _fraction(value: object, key: str) -> float:
    if not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise SpecError(f"devices/timing.yaml: {key} must be a fraction in (0, 1], got {value!r}")
    return float(value)


def _positive(value: object, key: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise SpecError(f"devices/timing.yaml: {key} must be a number > 0 or null, got {value!r}")
    return float(value)


def dram_latency_at(rates: TimingRates, utilization: float) -> float | None:
    """The DRAM latency (ns) at this utilization of the achievable bandwidth (0 <= U < 1):
    idle latency + queue x U / (1 - U); None without a measurement."""
    if rates.dram_latency_ns is None:
        return None
    u = min(max(utilization, 0.0), 0.999)
    return rates.dram_latency_ns + (rates.dram_queue_ns or 0.0) * u / (1 - u)


def timing_rates(arch: Arch) -> TimingRates:
    """The rates for `arch`'s compute capability (default keys, then the CC's own)."""
    table = _table()
    merged = dict(table.get("default") or {})
    own = (table.get("cc") or {}).get(arch.cc) or {}
    unknown = set(own) - set(_KEYS)
    if unknown:
        raise SpecError(
            f"devices/timing.yaml: unknown key(s) {sorted(unknown)} for CC {arch.cc}; known: {', '.join(_KEYS)}"
        )
    sources = tuple(merged.get("sources") or ()) + tuple(own.get("sources") or ())
    merged.update(own)
    by_major = merged["issue_per_sm_per_clock_by_major"]
    if arch.major not in by_major:
        raise SpecError(f"devices/timing.yaml: no issue rate for CC major {arch.major}")
    return TimingRates(
        cc=arch.cc,
        issue_per_sm_per_clock=float(by_major[arch.major]),
        l1_bytes_per_sm_per_clock=_positive(merged["l1_bytes_per_sm_per_clock"], "l1 rate"),
        l2_bytes_per_sm_per_clock=_positive(merged["l2_bytes_per_sm_per_clock"], "l2 rate"),
        dram_read_efficiency=_fraction(merged["dram_read_efficiency"], "dram_read_efficiency"),
        dram_write_efficiency=_fraction(merged["dram_write_efficiency"], "dram_write_efficiency"),
        dram_latency_ns=_positive(merged["dram_latency_ns"], "dram_latency_ns"),
        dram_queue_ns=_positive(merged["dram_queue_ns"], "dram_queue_ns"),
        dram_latency_cycles=float(merged["dram_latency_cycles"]),
        l2_latency_cycles=_positive(merged["l2_latency_cycles"], "l2_latency_cycles"),
        l1_latency_cycles=_positive(merged["l1_latency_cycles"], "l1_latency_cycles"),
        shared_latency_cycles=_positive(merged["shared_latency_cycles"], "shared_latency_cycles"),
        launch_overhead_s=float(merged["launch_overhead_s"]),
        event_latency_s=float(merged.get("event_latency_s") or 0.0),
        int_divide_instructions=_positive(merged["int_divide_instructions"], "int_divide_instructions") or 1.0,
        sources=sources,
        **{k: _positive(merged.get(k), k) for k in _MEASURED_NS},
        store_merge_lines=_lines(merged.get("store_merge_lines")),
        block_life_ns=_positive(merged.get("block_life_ns"), "block_life_ns"),
        dependent_issue_cycles=_positive(
            (merged.get("dependent_issue_cycles_by_major") or {}).get(arch.major), "dependent_issue_cycles_by_major"
        ),
        fp64_dependent_issue_cycles=_positive(
            (merged.get("fp64_dependent_issue_cycles_by_major") or {}).get(arch.major),
            "fp64_dependent_issue_cycles_by_major",
        ),
        int_lanes_per_sm_per_clock=_positive(
            (merged.get("int_lanes_per_sm_per_clock_by_major") or {}).get(arch.major),
            "int_lanes_per_sm_per_clock_by_major",
        ),
        tensor_pipe_cycles=_tensor_cycles((merged.get("tensor_pipe_cycles_by_major") or {}).get(arch.major)),
    )


def _tensor_cycles(table: object) -> dict[str, float]:
    if table is None:
        return {}
    if not isinstance(table, dict) or set(table) - set(TENSOR_KINDS):
        raise SpecError(
            f"devices/timing.yaml: tensor_pipe_cycles_by_major takes kinds {', '.join(TENSOR_KINDS)}, got {table!r}"
        )
    return {k: float(_positive(v, f"tensor_pipe_cycles_by_major {k}") or 0.0) for k, v in table.items()}
