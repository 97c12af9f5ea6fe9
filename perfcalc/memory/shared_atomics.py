"""Shared-memory atomics that wait for each other: lanes of a warp on one word go one at a time.

What the compiler makes of a shared atomic, read from ptxas's SASS for sm_90
(benchmarks/hw/serialisation_h100/sass.tgz, kernels of serialisation_micro.py and the corpus):

* an integer add, and an integer min, max, and, or, xor whose old value is not used, on an
  address every active lane shares: a warp reduction (REDUX) and one ATOMS for the warp, or for
  an add whose old value is used a vote-led loop with one ATOMS per distinct address: one step;
* every other integer atomic (those ops with a used old value or lanes on several words, exch,
  inc, dec): ATOMS, whose lanes on one word the shared unit applies one at a time;
* compare-and-swap: ATOMS.CAS, lane by lane, at about twice the integer cost;
* float and double add: a load and ATOMS.CAST.SPIN retry loop, a round trip per lane.

The cost of one warp instruction is therefore the lanes on its busiest word (one when combined)
times the class's measured rate per lane; a run's counters add those steps per class.
"""

from __future__ import annotations

import numpy as np

from perfcalc.memory.lanes import active_lanes, warp_address_pairs

# the compiler combines these when the address is uniform (and, for all but add, the old value
# is unused)
_COMBINABLE = ("add", "min", "max", "and", "or", "xor")
CLASSES = ("int", "cas", "float")


def atomic_class(op: str, is_float: bool) -> str:
    """The cost class of a shared atomic (module docstring)."""
    if is_float and op in ("add", "sub"):
        return "float"
    return "cas" if op == "cas" else "int"


def serial_steps(
    op: str, is_float: bool, result_used: bool, words: np.ndarray, mask: np.ndarray | None
) -> tuple[str, int]:
    """(cost class, steps) of one shared atomic over a chunk's lanes (32 a warp, lane order):
    per warp with an active lane, the most active lanes on one word, or 1 where the compiler
    combines the warp's lanes. `words` are word (or byte) addresses below 2^40, one per lane."""
    words, lane = active_lanes(words, mask)
    cls = atomic_class(op, is_float)
    if words.size == 0:
        return cls, 0
    pair_warp, _, per_pair = warp_address_pairs(words, lane)
    busiest = np.zeros(int(pair_warp[-1]) + 1, dtype=np.int64)
    np.maximum.at(busiest, pair_warp, per_pair)
    if cls == "int" and op in _COMBINABLE and (op == "add" or not result_used):
        distinct = np.bincount(pair_warp, minlength=busiest.size)
        busiest = np.where(distinct == 1, 1, busiest)
    return cls, int(busiest.sum())
