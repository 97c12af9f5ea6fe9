"""Speed of the memory pricing engine on 1 M warp accesses (32 M lane addresses).

Run by hand (not part of the tests; needs about 2 GB of memory):

    .venv/bin/python benchmarks/bench_memory.py [--warps 1000000] [--repeat 5] [--only-global]

The mix imitates what the execution core feeds in: mostly coalesced rows, some misaligned,
strided, column (stride 32), broadcast and scattered rows, and a tenth of the warps with a
partial active mask (loop tails, divergent branches). Each pricing time is printed next to one
bare NumPy pass over the same addresses, `(addr >> 5).sum(axis=1)`, timed in the same run.
"""

from __future__ import annotations

import argparse
import platform

import numpy as np
from _timing import best_of

from perfcalc.memory import global_access_batch, shared_access_batch


def realistic_mix(warps: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(W, 32) 4-byte-aligned byte addresses and an active mask."""
    rng = np.random.default_rng(seed)
    lane = np.arange(32, dtype=np.int64)
    kind = rng.choice(6, size=warps, p=[0.60, 0.10, 0.10, 0.05, 0.05, 0.10])
    base = rng.integers(0, 1 << 24, size=warps, dtype=np.int64)[:, None] * 128
    addr = base + 4 * lane  # 0: coalesced
    misaligned = kind == 1
    addr[misaligned] += 4 * rng.integers(1, 32, size=(int(misaligned.sum()), 1))
    addr[kind == 2] = base[kind == 2] + 8 * lane  # stride 2
    addr[kind == 3] = base[kind == 3] + 128 * lane  # column of a 32-wide float tile
    addr[kind == 4] = base[kind == 4]  # broadcast
    scattered = kind == 5
    addr[scattered] = rng.integers(0, 1 << 26, size=(int(scattered.sum()), 32)) * 4
    active = np.ones((warps, 32), dtype=bool)
    tails = rng.random(warps) < 0.10
    active[tails] = lane[None, :] < rng.integers(1, 32, size=(int(tails.sum()), 1))
    return addr, active


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warps", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--only-global", action="store_true", help="time the global-memory rows only (skips the slower shared rows)"
    )
    args = parser.parse_args()
    addr, active = realistic_mix(args.warps)
    baseline = best_of(lambda: (addr >> 5).sum(axis=1), args.repeat)[0]
    print(
        f"machine: {platform.machine()}, Python {platform.python_version()}, "
        f"NumPy {np.__version__}; {args.warps} warps = {addr.size} addresses"
    )
    print(f"baseline (addr >> 5).sum(axis=1): {baseline:.3f} s")
    cases = [
        ("global load, CC 9.0", lambda: global_access_batch("9.0", addr, 4, active)),
        ("global load, CC 1.2", lambda: global_access_batch("1.2", addr, 4, active)),
        ("global load, CC 1.0", lambda: global_access_batch("1.0", addr, 4, active)),
        ("global load, CC 2.0 (L1)", lambda: global_access_batch("2.0", addr, 4, active)),
        ("shared load, CC 9.0", lambda: shared_access_batch("9.0", addr & 0xBFFC, 4, active)),
        ("shared load, CC 1.2", lambda: shared_access_batch("1.2", addr & 0xBFFC, 4, active)),
    ]
    if args.only_global:
        cases = [case for case in cases if case[0].startswith("global")]
    print("| case | seconds | x baseline |")
    print("|---|---|---|")
    for name, fn in cases:
        t = best_of(fn, args.repeat)[0]
        print(f"| {name} | {t:.3f} | {t / baseline:.1f} |")


if __name__ == "__main__":
    main()
