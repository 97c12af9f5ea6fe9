"""The counter schema: every counter perfcalc predicts or counts, defined once.

Each counter is one field of `CounterSet` with its unit, meaning and the Nsight Compute metric it
corresponds to in the field's metadata. The execution core (`sim/`), the analytic model
(`model/`) and the renderers (`report/`) all read names from here, so a new counter is one field.

Definitions (all counts are over the whole launch):

* global requests: warp-level load/store instructions with at least one active lane, as
  `memory.global_access_batch` prices them (one per instruction on CC >= 7.0; half-warps on 1.x).
* global transactions: 32-byte sectors on CC >= 5.0, segments/lines on older families; bytes:
  the bytes those transactions move.
* shared requests: warp-level shared-memory instructions with at least one active lane;
  wavefronts: the passes memory/ returns; bank conflicts: loads and stores together.
* flops: float/double add, subtract, multiply once per active thread, an FMA twice.
* divergent branches: warp-level executions of a branch whose active lanes disagree.
* barriers: block-level `__syncthreads()` executions (one per block that reaches it).
* constant requests: per warp-level `__constant__` load, the distinct addresses its active lanes
  read (the Programming Guide: a request is split into as many as there are distinct addresses).
* shared atomic steps: per warp-level shared atomic, the active lanes on its busiest word, or 1
  where the compiler combines the warp (memory/shared_atomics.py), by cost class.
* global load waits: warp-level executions of an instruction that reads (or overwrites) a register
  whose global load may still be in flight; loads issued before that instruction arrive by then,
  so one wait covers them (sim/ptx/load_waits.py). Counted by the PTX engine, which sees the
  compiled order of loads and uses; the source engine leaves it 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any


def _counter(unit: str, meaning: str, ncu_metric: str | None, *, per_site: bool = True) -> Any:
    return field(
        default=0,
        metadata={"unit": unit, "meaning": meaning, "ncu_metric": ncu_metric, "per_site": per_site},
    )


_GLD = "l1tex__t_{}_pipe_lsu_mem_global_op_ld.sum"
_GST = "l1tex__t_{}_pipe_lsu_mem_global_op_st.sum"


@dataclass(frozen=True)
class CounterSet:
    """One value per counter (a source line's or a whole launch's); adds field by field."""

    global_load_requests: int = _counter("requests", "warp-level global load instructions", _GLD.format("requests"))
    global_load_transactions: int = _counter(
        "transactions", "global load sectors (CC >= 5.0) or segments", _GLD.format("sectors")
    )
    global_load_bytes: int = _counter("bytes", "bytes the global load transactions move", _GLD.format("bytes"))
    global_store_requests: int = _counter("requests", "warp-level global store instructions", _GST.format("requests"))
    global_store_transactions: int = _counter(
        "transactions", "global store sectors (CC >= 5.0) or segments", _GST.format("sectors")
    )
    global_store_bytes: int = _counter("bytes", "bytes the global store transactions move", _GST.format("bytes"))
    shared_load_requests: int = _counter(
        "requests", "warp-level shared load instructions", "smsp__inst_executed_op_shared_ld.sum"
    )
    shared_load_wavefronts: int = _counter(
        "wavefronts",
        "shared load passes (1 per request without conflicts)",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    )
    shared_store_requests: int = _counter(
        "requests", "warp-level shared store instructions", "smsp__inst_executed_op_shared_st.sum"
    )
    shared_store_wavefronts: int = _counter(
        "wavefronts", "shared store passes", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
    )
    bank_conflicts: int = _counter(
        "conflicts",
        "extra shared passes caused by bank conflicts, loads and stores",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum",
    )
    flops: int = _counter(
        "flop",
        "float/double add, sub, mul per thread (FMA = 2)",
        "smsp__sass_thread_inst_executed_op_{f,d}{add,mul,fma}_pred_on.sum (fma x 2)",
        per_site=False,
    )
    divergent_branches: int = _counter(
        "branches",
        "warp-level branches whose active lanes disagree",
        "smsp__sass_branch_targets_threads_divergent.sum",
        per_site=False,
    )
    barriers: int = _counter("barriers", "block-level __syncthreads() executions", None, per_site=False)
    constant_requests: int = _counter(
        "requests",
        "__constant__ cache requests: one per distinct address a warp's load asks for",
        "idc__requests.sum (also counts the kernel-parameter loads)",
        per_site=False,
    )
    shared_atomic_int_steps: int = _counter(
        "steps", "integer shared atomics: lanes on each warp's busiest word (1 where combined)", None, per_site=False
    )
    shared_atomic_cas_steps: int = _counter(
        "steps", "shared compare-and-swap: lanes on each warp's busiest word", None, per_site=False
    )
    shared_atomic_float_steps: int = _counter(
        "steps", "shared float/double add: lanes on each warp's busiest word", None, per_site=False
    )
    global_load_waits: int = _counter(
        "waits",
        "points where a warp waits for a global load in flight (PTX engine; loads issued together count once)",
        None,
        per_site=False,
    )

    def __add__(self, other: CounterSet) -> CounterSet:
        if not isinstance(other, CounterSet):
            return NotImplemented
        return CounterSet(**{n: getattr(self, n) + getattr(other, n) for n in COUNTER_NAMES})

    def values(self) -> dict[str, int]:
        """The counters by name, in schema order."""
        return {n: getattr(self, n) for n in COUNTER_NAMES}


@dataclass(frozen=True)
class CounterSpec:
    """What one counter means: its name, unit, meaning and Nsight Compute metric."""

    name: str
    unit: str
    meaning: str
    ncu_metric: str | None
    per_site: bool


COUNTERS: tuple[CounterSpec, ...] = tuple(CounterSpec(name=f.name, **f.metadata) for f in fields(CounterSet))
COUNTER_NAMES: tuple[str, ...] = tuple(c.name for c in COUNTERS)
# Counters that need the compiled order of instructions: the PTX engine counts them, the source
# engine leaves them 0 (its consumers fall back to a rule of their own: analysis/timing.py).
PTX_ONLY_COUNTER_NAMES: tuple[str, ...] = ("global_load_waits",)

# The tensor-core machine instructions (HMMA/IMMA m16n8kK) an mma.sync or wmma.mma becomes, by
# input width and K: counted per warp by the PTX engine, priced by devices/timing.yaml.
TENSOR_KINDS: tuple[str, ...] = (
    "tensor_16bit_k16",
    "tensor_16bit_k8",
    "tensor_tf32_k8",
    "tensor_tf32_k4",
    "tensor_int8_k32",
    "tensor_int8_k16",
)
# The memory counters the analytic model predicts per access site (source line).
SITE_COUNTER_NAMES: tuple[str, ...] = tuple(c.name for c in COUNTERS if c.per_site)
