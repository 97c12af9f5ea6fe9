"""On the device, after run_on_gpu.py (`python3 validate_on_gpu.py OUT`): perfcalc's MUFU
emulation (perfcalc/sim/ptx/mufu.py, the tables measured before) against the GPU on 2^24 fresh
random inputs per form (pairs for the divisions); prints the counts of unequal outputs and the
first few, and keeps the first 2^14 quotients of each division form."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from inputs import fmix32  # noqa: E402

spec = importlib.util.spec_from_file_location("mufu", HERE.parents[2] / "perfcalc/sim/ptx/mufu.py")
mufu = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mufu)

N = 1 << 24
i = np.arange(N)


def near_one(seed: int) -> np.ndarray:
    """Random floats in +-[2^-20, 2^20]: ordinary quotients."""
    h = fmix32(i, seed)
    sign = (h & np.uint32(1)) << np.uint32(31)
    exponent = (np.uint32(107) + (h >> np.uint32(1)) % np.uint32(41)) << np.uint32(23)
    return (sign | exponent | (fmix32(i, seed + 100) & np.uint32(0x7FFFFF))).astype(np.uint32).view(np.float32)


sets = {
    "rsqrt": [(fmix32(i, 11) & np.uint32(0x7FFFFFFF)).view(np.float32)],
    "ex2_wide": [((fmix32(i, 12).astype(np.float64) / 2.0**32) * 320.0 - 160.0).astype(np.float32)],
    "ex2_any": [fmix32(i, 13).view(np.float32)],
    "rcp": [fmix32(i, 14).view(np.float32)],
    "sqrt": [fmix32(i, 15).view(np.float32)],
    "div_any": [fmix32(i, 16).view(np.float32), fmix32(i, 17).view(np.float32)],
    "div_near": [near_one(18), near_one(19)],
}
KEPT = 1 << 14  # of the random pairs' quotients, kept for the tests (tests/test_mufu.py)
kept = {}
for name, xs in sets.items():
    np.concatenate(xs).tofile("/tmp/in.bin")
    base = name.split("_")[0]
    variants = (
        [("full", True), ("full", False), ("approx", True), ("approx", False)]
        if base == "div"
        else [(None, True), (None, False)]
    )
    for kind, ftz in variants:
        op = base + (f"_{kind}" if kind else "") + ("_ftz" if ftz else "")
        subprocess.run(["./mufu_probe", op, "/tmp/in.bin", "/tmp/out.bin"], check=True)
        hw = np.fromfile("/tmp/out.bin", dtype=np.uint32)
        with np.errstate(all="ignore"):
            if base == "div":
                got = mufu.div_f32(xs[0], xs[1], kind == "full", ftz).view(np.uint32)
            else:
                got = mufu.MEASURED[base](xs[0], ftz).view(np.uint32)
        if name == "div_any":
            kept[op] = hw[:KEPT]
        bad = np.flatnonzero(got != hw)  # bit for bit: a NaN's bits count too
        print(f"{name} {op}: {len(bad)} of {N} unequal")
        for k in bad[:5]:
            args = " ".join(f"{x.view(np.uint32)[k]:#010x}" for x in xs)
            print(f"   x={args} gpu={hw[k]:#010x} perfcalc={got[k]:#010x}")
np.savez_compressed(sys.argv[1] + "/division_outputs.npz", **kept)
