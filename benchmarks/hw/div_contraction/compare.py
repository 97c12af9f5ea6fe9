"""Here, after run.sh on the GPU: the probe run by `perfcalc app` on the H100 model, its nine
kernels' outputs against the GPU's (gpu.bin.xz), lane for lane and bit for bit. Lanes where both
are NaN but the payloads differ are counted apart: the GPU's float units return the canonical
NaN, and the engine's add keeps the input's payload (known, not a contraction matter). Exit 1 if
any other lane differs.

    python benchmarks/hw/div_contraction/compare.py [RUN_DIR]
"""

from __future__ import annotations

import lzma
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
FORMS = (
    "div.full + add",
    "div.approx + add",
    "div.full.ftz + add.ftz",
    "div.approx.ftz + add.ftz",
    "c - div.full",
    "div.full - c",
    "div.full.ftz + add (not fused)",
    "div.full + add, quotient read twice (not fused)",
    "1 / b + c",
)


def main(run: Path) -> int:
    gpu = np.frombuffer(lzma.decompress((run / "gpu.bin.xz").read_bytes()), dtype=np.uint32)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "engine.bin"
        cmd = [sys.executable, "-m", "perfcalc", "app", str(HERE / "probe.cu"), "--gpu", "h100-sxm", "--", str(out)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        ours = np.frombuffer(out.read_bytes(), dtype=np.uint32)
    lanes = gpu.size // len(FORMS)
    unequal = 0
    for k, form in enumerate(FORMS):
        g, o = gpu[k * lanes : (k + 1) * lanes], ours[k * lanes : (k + 1) * lanes]
        same = int((g == o).sum())
        payload = int(((g != o) & np.isnan(g.view(np.float32)) & np.isnan(o.view(np.float32))).sum())
        unequal += lanes - same - payload
        nans = f", {payload} NaNs of another payload" if payload else ""
        print(f"k{k + 1} {form}: {same}/{lanes} bit for bit{nans}")
    return 1 if unequal else 0


if __name__ == "__main__":
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "h200"
    if not (folder / "gpu.bin.xz").is_file():
        print(f"compare: {folder}: no gpu.bin.xz (a run.sh output folder)", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(folder))
