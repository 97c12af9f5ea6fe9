"""Cost of one warp-level memory access: global coalescing and shared-memory bank conflicts.

Rules: reference/memory.md, family by family (global section 1, shared section 3). The batch
functions are the one implementation; the single-warp functions are thin wrappers over them.

Batch API (stable; the execution core and the analytic model call it):

    global_access_batch(cc, addresses, size, active=None, op="load", cache=None, detail=False)
        -> GlobalBatchCost with per-warp int64 arrays `requests`, `transactions`,
           `bytes_moved`, `bytes_requested` (shape (W,)) and `total_requests`,
           `total_transactions`, `total_bytes_moved`, `total_bytes_requested`;
           with detail=True also `bytes_used`, `lines` (5.x+) and on 7.x-9.0 `tag_wavefronts`,
           `data_wavefronts`, `data_bank_conflicts`.
    shared_access_batch(cc, addresses, size, active=None, op="load", bank_mode=None)
        -> SharedBatchCost with per-warp arrays `wavefronts`, `ideal_wavefronts`,
           `bank_conflicts`, `conflict_degree` (and `uniform_pairs` on 5.x-9.0) and totals
           `total_wavefronts`, `total_ideal_wavefronts`, `total_bank_conflicts`.

    cc: an Arch or a CC spelling ("9.0", "90", "sm_90"); addresses: (W, 32) integer byte
    addresses (global) or byte offsets into the block's shared memory; size: 1, 2, 4, 8 or 16;
    active: (W, 32) bool or None (all lanes active); op: "load" or "store"; cache: None (the
    CC's default), or "l1" / "l2" on CC 2.x and 3.x; bank_mode: None or 4 / 8 (8 only on 3.x).

Single warp: global_access(...) -> GlobalAccessCost, shared_access(...) -> SharedAccessCost,
taking up to 32 lane addresses. Named address patterns for people: perfcalc.memory.patterns.
"""

from perfcalc.memory.global_memory import (
    GlobalAccessCost,
    GlobalBatchCost,
    global_access,
    global_access_batch,
)
from perfcalc.memory.shared_memory import (
    SharedAccessCost,
    SharedBatchCost,
    shared_access,
    shared_access_batch,
)

__all__ = [
    "GlobalAccessCost",
    "GlobalBatchCost",
    "SharedAccessCost",
    "SharedBatchCost",
    "global_access",
    "global_access_batch",
    "shared_access",
    "shared_access_batch",
]
