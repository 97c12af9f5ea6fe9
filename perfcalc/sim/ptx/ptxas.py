"""NVIDIA's assembler `ptxas` (from the nvidia-cuda-nvcc wheel, the same version as NVRTC) run
on the kernel's PTX with `-v`: registers, static shared memory, spills and barriers as the GPU
will allocate them -- what exact occupancy needs. The log is cached with the PTX.

ptxas must match NVRTC's version: an older ptxas rejects a newer PTX ISA (reference/
ptx-engine.md 2). It runs on the CPU; no GPU or driver is needed.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import tempfile
from functools import cache
from pathlib import Path
from typing import TypeVar

PACKAGE = "nvidia-cuda-nvcc"
# The real architectures ptxas 13 assembles for.
SM_TARGETS = (75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121)


@cache
def ptxas_binary() -> Path | None:
    """The wheel's ptxas, or None (then occupancy falls back to an assumed register count)."""
    override = os.environ.get("PERFCALC_PTXAS")
    if override:
        return Path(override)
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        for sub in ("cu13/bin/ptxas", "cu13/bin/ptxas.exe", "cuda_nvcc/bin/ptxas"):
            candidate = Path(root) / sub
            if candidate.is_file():
                return candidate
    return None


def sm_target(cc_number: int) -> str:
    """sm_XY ptxas assembles for: the CC itself where ptxas knows it, else the nearest older."""
    known = [t for t in SM_TARGETS if t <= max(cc_number, SM_TARGETS[0])]
    return f"sm_{known[-1]}"


# this process's reports by key (ptxas binary, target, PTX): a second launch reads no file
_LOGS: dict[str, str] = {}
MEMO_ENTRIES = 256
_V = TypeVar("_V")


def remember(memo: dict[str, _V], key: str, value: _V) -> _V:
    """Keep `value` in a per-process memo; a long session of many files starts the memo over
    at MEMO_ENTRIES rather than let it grow (the disk cache still holds everything)."""
    if len(memo) >= MEMO_ENTRIES:
        memo.clear()
    memo[key] = value
    return value


def resource_log(ptx: str, sm: str, cache_dir: Path) -> str | None:
    """`ptxas -v`'s report for the PTX (cached), or None where ptxas is not installed or fails."""
    binary = ptxas_binary()
    if binary is None:
        return None
    key = hashlib.sha256(f"{binary}\n{sm}\n{ptx}".encode()).hexdigest()
    seen = _LOGS.get(key)
    if seen is not None:
        return seen
    cached = cache_dir / f"{key}.ptxas.txt"
    if cached.is_file():
        return remember(_LOGS, key, cached.read_text())
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "kernel.ptx"
        src.write_text(ptx)
        done = subprocess.run(
            [str(binary), f"-arch={sm}", "-v", "-o", str(Path(tmp) / "k.cubin"), str(src)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    if done.returncode != 0:
        return None
    log = done.stdout + done.stderr
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        cached.write_text(log)
    except OSError:
        pass
    return log
