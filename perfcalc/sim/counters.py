"""What a simulated run counts, per access site (source line) and in total.

The counters and their definitions are the schema in `perfcalc.specs.counters` (one definition
for the simulator, the model and the reports). The execution core adds one thing of its own:

* ``warp_instructions``: C-level operations executed per warp with >= 1 active lane, by kind
  (``fp32``, ``fp64``, ``int``, ``int_divide`` (integer / and % by a divisor that is not a
  compile-time constant: many machine instructions each), ``global_load``, ``global_store``,
  ``shared_load``, ``shared_store``, ``constant_load``, ``atomic``, ``barrier``, ``branch``,
  ``call``, ``tensor_<input>_k<K>`` (the HMMA/IMMA machine instructions of mma / wmma.mma)): a
  source-level approximation of the SASS instruction mix, not the compiler's exact count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from perfcalc.specs.counters import COUNTER_NAMES, TENSOR_KINDS, CounterSet

INSTRUCTION_KINDS = (
    "fp32",
    "fp64",
    "int",
    "int_divide",
    "global_load",
    "global_store",
    "shared_load",
    "shared_store",
    "constant_load",
    "atomic",
    "barrier",
    "branch",
    "call",
    *TENSOR_KINDS,
)
(
    GLD_REQ,
    GLD_TX,
    GLD_B,
    GST_REQ,
    GST_TX,
    GST_B,
    SLD_REQ,
    SLD_WF,
    SST_REQ,
    SST_WF,
    BANK,
    FLOPS,
    DIVERGENT,
    BARRIERS,
    CONST_REQ,
    SATOM_INT,
    SATOM_CAS,
    SATOM_FLOAT,
    GLD_WAIT,
) = range(len(COUNTER_NAMES))
_N = len(COUNTER_NAMES)
# the counter of each shared-atomic cost class (memory/shared_atomics.py)
SHARED_ATOMIC_SLOT = {"int": SATOM_INT, "cas": SATOM_CAS, "float": SATOM_FLOAT}
_KIND_INDEX = {k: _N + i for i, k in enumerate(INSTRUCTION_KINDS)}


@dataclass(frozen=True)
class Counters(CounterSet):
    """Counts of one access site or of a whole run (schema in `perfcalc.specs.counters`)."""

    warp_instructions: dict[str, int] = field(default_factory=dict)

    def __add__(self, other: CounterSet) -> Counters:
        if not isinstance(other, CounterSet):
            return NotImplemented
        kinds = dict(self.warp_instructions)
        for k, v in getattr(other, "warp_instructions", {}).items():
            kinds[k] = kinds.get(k, 0) + v
        values = {n: getattr(self, n) + getattr(other, n) for n in COUNTER_NAMES}
        return Counters(**values, warp_instructions=kinds)


def instruction_slot(kind: str) -> int:
    """Index of an instruction kind in a SiteCounts list."""
    return _KIND_INDEX[kind]


def new_site_counts() -> list[int]:
    """A mutable accumulator: the counters then one slot per instruction kind."""
    return [0] * (_N + len(INSTRUCTION_KINDS))


def freeze(counts: list[int]) -> Counters:
    """A frozen Counters from an accumulator list."""
    kinds = {k: int(counts[_N + i]) for i, k in enumerate(INSTRUCTION_KINDS) if counts[_N + i]}
    return Counters(**{n: int(counts[i]) for i, n in enumerate(COUNTER_NAMES)}, warp_instructions=kinds)
