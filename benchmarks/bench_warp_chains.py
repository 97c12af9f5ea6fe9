"""What keeping each warp's own chain (sim/ptx/warp_chains.py, issue 32) costs the PTX engine, on
the kind of launch where it does the most work: a block reduction whose warps diverge at every
step and whose thread 0 then loops over a block-dependent count (every warp's chain differs).

    python benchmarks/bench_warp_chains.py [--base CHECKOUT] [--rounds 3]

Prints the best and median of 5 runs of 1,024 blocks, in this checkout and (with --base, e.g. a
`git worktree` of the commit before) in that one, alternating rounds, each in its own process.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ONE_RUN = r"""
import time, numpy as np
from perfcalc.sim import run_kernel
from perfcalc.specs import get_arch
SOURCE = '''
__global__ void k(const float* x, float* out) {
  __shared__ float s[256];
  int t = threadIdx.x;
  s[t] = x[blockIdx.x * 256 + t];
  __syncthreads();
  for (int st = 128; st > 0; st >>= 1) { if (t < st) s[t] += s[t + st]; __syncthreads(); }
  if (t == 0) { float a = 0; for (int i = 0; i < (blockIdx.x % 64); i++) a += x[i]; out[blockIdx.x] = s[0] + a; }
}
'''
times = []
for _ in range(5):
    args = {"x": np.random.default_rng(0).random(1024 * 256, dtype=np.float32), "out": np.zeros(1024, np.float32)}
    start = time.perf_counter()
    run_kernel(SOURCE, "k", (1024,), (256,), args, get_arch("9.0"), engine="ptx")
    times.append(time.perf_counter() - start)
times.sort()
print(f"{times[0]:.3f} {times[2]:.3f}")
"""


def run_in(checkout: Path) -> str:
    """Best and median seconds of the launch, run by the perfcalc of `checkout`."""
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    done = subprocess.run([sys.executable, "-c", ONE_RUN], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, help="another checkout to compare with")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    here = Path(__file__).resolve().parents[1]
    print("| round | checkout | best s | median s |\n|---|---|---|---|")
    for k in range(args.rounds):
        for name, checkout in ((("base", args.base),) if args.base else ()) + (("this", here),):
            best, median = run_in(checkout).split()
            print(f"| {k + 1} | {name} | {best} | {median} |")


if __name__ == "__main__":
    main()
