"""The answers of perfcalc's commands, kept from the commit before issue 29's refactor of the path
from question to answer, so the refactor can be shown to change no number (issue 29: "counters,
results, predicted times unchanged to the last digit: compare against the committed outputs
before the change").

`benchmarks/golden_outputs.py --write` runs COMMANDS (and the PTX corpus) at a commit and writes
tests/data/golden/outputs.json with that commit's id; tests/test_golden_outputs.py runs them on
today's code and compares. Paths of this checkout and compiler version strings are normalised.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

GOLDEN = Path(__file__).parent / "data" / "golden" / "outputs.json"
REPO = Path(__file__).resolve().parents[1]
CATALOG = [
    "aos_float3",
    "aos_struct",
    "convolve",
    "copy_offset",
    "copy_stride",
    "matmul_naive",
    "matmul_tiled",
    "reduce_interleaved",
    "reduce_sequential",
    "soa_struct",
    "transpose_naive",
    "transpose_padded",
    "transpose_shared",
]


def commands(ptx: bool) -> list[list[str]]:
    """The command lines whose JSON is kept (the PTX engine's only where NVRTC is installed)."""
    out: list[list[str]] = []
    for k in CATALOG:
        out.append(["run", k, "-f", "json"])
        out.append(["run", k, "--cc", "2.0", "-f", "json"])
        out.append(["run", k, "--gpu", "a100", "-f", "json"])
        if ptx:
            out.append(["run", k, "--engine", "ptx", "-f", "json"])
            out.append(["run", k, "--gpu", "h100-sxm", "--engine", "ptx", "-f", "json"])
    out += [
        ["run", "copy_offset", "--gpu", "h100-sxm", "--gpu", "a100", "--gpu", "rtx4090", "-f", "json"],
        ["run", "matmul_tiled", "-p", "Width=256", "--gpu", "h100-sxm", "-f", "json"],
        ["matmul", "--width", "256", "-f", "json"],
        ["matmul", "--width", "64", "--cc", "1.0", "-f", "json"],
        ["matmul", "--width", "128", "--gpu", "a100", "-f", "json"],
        ["occupancy", "--cc", "7.0", "--block", "256", "--regs", "32", "-f", "json"],
        ["occupancy", "--cc", "9.0", "--block", "128", "--regs", "64", "--smem", "16K", "--sweep", "all", "-f", "json"],
        ["occupancy", "--gpu", "h100-sxm", "--block", "256", "--regs", "40", "--grid", "1000", "-f", "json"],
        ["roofline", "--gpu", "h100-sxm", "-f", "json"],
        ["roofline", "--gpu", "a100", "--kernel", "matmul_tiled", "--kernel", "copy_offset", "-f", "json"],
    ]
    if ptx:
        out += [
            ["matmul", "--width", "128", "--engine", "ptx", "-f", "json"],
            ["occupancy", "--source", "tests/data/cuda/matmul_tiled.cu", "--block", "256", "-f", "json"],
        ]
    return out


def normalise(text: str) -> Any:
    """The JSON with this checkout's path and the compiler's version string made neutral."""
    text = text.replace(str(REPO), "<repo>")
    # the compiler that made the PTX (NVRTC, or nvcc with its host compiler: issue 30) is named
    # in the output; the numbers must not depend on which
    text = re.sub(r"NVRTC \d+\.\d+|nvcc \d+\.\d+ \([^)]*\)", "<compiler>", text)
    return json.loads(text)


def corpus_outputs(every: int = 1) -> dict[str, Any]:
    """Per corpus launch (every `every`-th of them, in the manifest's order): total and per-line
    counters, and a hash of every written array."""
    import hashlib

    import corpus

    found = {}
    for name, entry in list(corpus.manifest().items())[::every]:
        result, args = corpus.run_on_ptx_engine(name, entry)
        arrays = corpus.written_arrays(entry, args)
        found[name] = {
            "counters": result.counters.values(),
            "per_site": {str(line): c.values() for line, c in result.per_site.items()},
            "outputs": {k: hashlib.sha256(v.tobytes()).hexdigest() for k, v in sorted(arrays.items())},
        }
    return found
