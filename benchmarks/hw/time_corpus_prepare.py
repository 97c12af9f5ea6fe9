"""Here, before the GPU run: the PTX-engine corpus at realistic sizes (time_corpus.yaml), compiled
as the PTX engine compiles it (NVRTC 13.5 -> PTX -> the same version's ptxas for sm_90), for the
time model's hardware check (issue #9).

    python benchmarks/hw/time_corpus_prepare.py .hw_time_corpus

Arrays are not written (hundreds of MB each): each parameter keeps its corpus spec, and the GPU
machine builds the same bytes with tests/corpus.py's seeded generators (time_corpus_on_gpu.py).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import yaml

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "tests"))

import corpus  # noqa: E402
from ptx_corpus_prepare import prepare  # noqa: E402

TIME_CORPUS = HERE / "time_corpus.yaml"


def time_entries() -> dict[str, dict[str, Any]]:
    """Each corpus launch with time_corpus.yaml's grid, block and arguments put over its own."""
    scaled = yaml.safe_load(TIME_CORPUS.read_text())
    entries = {}
    for name, entry in corpus.manifest().items():
        change = scaled[name]
        merged = dict(entry)
        merged["grid"] = change["grid"]
        merged["block"] = change.get("block", entry["block"])
        merged["args"] = {**entry["args"], **change["args"]}
        merged["scaled_args"] = sorted(change["args"])
        merged["device"] = {"reset": change.get("reset", []), "restore": change.get("restore", [])}
        entries[name] = merged
    return entries


# stands for a large array: prepare needs only to know the argument is one
_PLACEHOLDER = np.empty(0, np.uint8)


def launch_entries() -> list[dict[str, Any]]:
    """prepare()'s launch entries; the scaled arrays as placeholders (built on the GPU machine),
    scalars and the corpus's small arrays (__constant__ tables) as values."""
    out = []
    for name, entry in time_entries().items():
        args = {}
        for arg, spec in entry["args"].items():
            big = arg in entry["scaled_args"] and isinstance(spec, str)
            args[arg] = _PLACEHOLDER if big else corpus.argument(name, arg, spec)
        out.append(
            {
                "name": name,
                "text": corpus.source(entry),
                "source_name": str(corpus.CORPUS / entry["file"]),
                "kernel": entry.get("kernel"),
                "defines": entry.get("defines") or {},
                "grid": entry["grid"],
                "block": entry["block"],
                "dynamic_shared": entry.get("dynamic_shared", 0),
                "args": args,
                "specs": entry["args"],
                "device": entry["device"],
            }
        )
    return out


if __name__ == "__main__":
    prepare(Path(sys.argv[1] if len(sys.argv) > 1 else ".hw_time_corpus"), launch_entries(), save_inputs=False)
