"""What a simulated run counts, per access site (source line) and in total.

Definitions (all counts are over the whole launch):

* ``global_load_requests`` / ``global_store_requests``: what ``memory.global_access_batch``
  returns as requests for each warp-level load/store instruction with at least one active lane
  (on CC >= 7.0 exactly one per such instruction; half-warps on CC 1.x: see memory.md §1.7).
* ``global_*_transactions``: the transactions memory/ returns for those instructions (32-byte
  sectors on CC >= 5.0, segments on older families); ``global_*_bytes``: the bytes moved it
  returns.
* ``shared_load_requests`` / ``shared_store_requests``: warp-level shared-memory instructions with
  at least one active lane; ``shared_*_wavefronts``: the passes memory/ returns for them;
  ``bank_conflicts``: memory/'s bank-conflict count, loads and stores together.
* ``flops``: float or double add, subtract and multiply, counted once per active thread (so
  ``a += b * c`` is 2 per thread, the usual FMA convention); divisions, comparisons and
  conversions are not flops.
* ``divergent_branches``: warp-level executions of an ``if`` condition or a loop condition in
  which the warp's active lanes disagree (``&&``, ``||`` and ``?:`` are compiled to selects, not
  counted).
* ``barriers``: block-level ``__syncthreads()`` executions: one per block that reaches it.
* ``warp_instructions``: C-level operations executed per warp with >= 1 active lane, by kind
  (``fp32``, ``fp64``, ``int``, ``global_load``, ``global_store``, ``shared_load``,
  ``shared_store``, ``constant_load``, ``atomic``, ``barrier``, ``branch``, ``call``): a
  source-level approximation of the SASS instruction mix, not the compiler's exact count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

COUNTER_NAMES = (
    "global_load_requests",
    "global_load_transactions",
    "global_load_bytes",
    "global_store_requests",
    "global_store_transactions",
    "global_store_bytes",
    "shared_load_requests",
    "shared_load_wavefronts",
    "shared_store_requests",
    "shared_store_wavefronts",
    "bank_conflicts",
    "flops",
    "divergent_branches",
    "barriers",
)
INSTRUCTION_KINDS = (
    "fp32", "fp64", "int", "global_load", "global_store", "shared_load", "shared_store",
    "constant_load", "atomic", "barrier", "branch", "call",
)
(GLD_REQ, GLD_TX, GLD_B, GST_REQ, GST_TX, GST_B, SLD_REQ, SLD_WF, SST_REQ, SST_WF, BANK, FLOPS,
 DIVERGENT, BARRIERS) = range(len(COUNTER_NAMES))
_N = len(COUNTER_NAMES)
_KIND_INDEX = {k: _N + i for i, k in enumerate(INSTRUCTION_KINDS)}


@dataclass(frozen=True)
class Counters:
    """Counts of one access site or of a whole run (definitions in the module docstring)."""

    global_load_requests: int = 0
    global_load_transactions: int = 0
    global_load_bytes: int = 0
    global_store_requests: int = 0
    global_store_transactions: int = 0
    global_store_bytes: int = 0
    shared_load_requests: int = 0
    shared_load_wavefronts: int = 0
    shared_store_requests: int = 0
    shared_store_wavefronts: int = 0
    bank_conflicts: int = 0
    flops: int = 0
    divergent_branches: int = 0
    barriers: int = 0
    warp_instructions: dict[str, int] = field(default_factory=dict)

    def __add__(self, other: Counters) -> Counters:
        if not isinstance(other, Counters):
            return NotImplemented
        kinds = dict(self.warp_instructions)
        for k, v in other.warp_instructions.items():
            kinds[k] = kinds.get(k, 0) + v
        values = {n: getattr(self, n) + getattr(other, n) for n in COUNTER_NAMES}
        return Counters(**values, warp_instructions=kinds)


def instruction_slot(kind: str) -> int:
    """Index of an instruction kind in a SiteCounts list."""
    return _KIND_INDEX[kind]


def new_site_counts() -> list[int]:
    """A mutable accumulator: the 14 counters then one slot per instruction kind."""
    return [0] * (_N + len(INSTRUCTION_KINDS))


def freeze(counts: list[int]) -> Counters:
    """A frozen Counters from an accumulator list."""
    kinds = {k: int(counts[_N + i]) for i, k in enumerate(INSTRUCTION_KINDS)
             if counts[_N + i]}
    return Counters(**{n: int(counts[i]) for i, n in enumerate(COUNTER_NAMES)},
                    warp_instructions=kinds)
