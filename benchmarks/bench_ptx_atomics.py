"""PTX engine atomics on contended addresses: serialise_atomics (sim/atomics.py) against the
one-NumPy-step-per-round loop it replaced, same requests, same run; results must be identical.

    python benchmarks/bench_ptx_atomics.py

Requests: 2^17 lanes (a chunk of 512 blocks of 256) on 1, 5 and 64 addresses, for each kind of
path (fold: add; exchange; compare-and-swap; inc).
"""

from __future__ import annotations

import time

import numpy as np

from perfcalc.sim.atomics import ATOMIC_OPS as _ATOMIC_OPS
from perfcalc.sim.atomics import requester_ranks, serialise_atomics


def rounds(view: np.ndarray, idx: np.ndarray, v: np.ndarray, c: np.ndarray | None, op: str) -> np.ndarray:
    """The previous code: the r-th requester of every address in round r."""
    rank = requester_ranks(idx)
    old_all = np.zeros(rank.size, dtype=view.dtype)
    for r in range(int(rank.max()) + 1):
        sel = rank == r
        i = idx[sel]
        old = view[i]
        view[i] = np.asarray(_ATOMIC_OPS[op](old, v[sel], None if c is None else c[sel])).astype(view.dtype)
        old_all[sel] = old
    return old_all


def best(fn, base: np.ndarray, args: tuple, repeats: int = 3) -> float:
    """Best of `repeats` runs of fn(fresh copy of base, *args)."""
    times = []
    for _ in range(repeats):
        view = base.copy()
        start = time.perf_counter()
        fn(view, *args)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(0)
    n = 1 << 17
    print("| op | addresses | rounds loop s | serialise_atomics s | speed-up |")
    print("|---|---|---|---|---|")
    for op, dtype in (("add", np.float32), ("exch", np.int32), ("cas", np.int32), ("inc", np.uint32)):
        for addresses in (1, 5, 64):
            idx = np.sort(rng.integers(0, addresses, n))
            v = (
                rng.integers(0, 3, n) if op == "cas" else np.full(n, 1000) if op == "inc" else rng.uniform(-1, 1, n)
            ).astype(dtype)
            c = rng.integers(0, 3, n).astype(dtype) if op == "cas" else None
            base = np.zeros(addresses, dtype)
            a, b = base.copy(), base.copy()
            old_a, old_b = rounds(a, idx, v, c, op), serialise_atomics(b, idx, v, c, op)
            assert a.tobytes() == b.tobytes() and old_a.tobytes() == old_b.tobytes()
            args = (idx, v, c, op)
            slow = best(rounds, base, args, 1)
            fast = best(serialise_atomics, base, args)
            print(
                f"| {op} ({np.dtype(dtype).name}) | {addresses} | {slow:.3f} | {fast:.4f} | {slow / fast:.0f}x |",
                flush=True,
            )


if __name__ == "__main__":
    main()
