"""NVIDIA's assembler `ptxas` (from the nvidia-cuda-nvcc wheel, the same version as NVRTC) run
on the kernel's PTX with `-v`: registers, static shared memory, spills and barriers as the GPU
will allocate them -- what exact occupancy needs. The log is cached with the PTX.

ptxas must match NVRTC's version: an older ptxas rejects a newer PTX ISA (reference/
ptx-engine.md 2). It runs on the CPU; no GPU or driver is needed.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path
from typing import TypeVar

from perfcalc import diskcache
from perfcalc.errors import InputError

PACKAGE = "nvidia-cuda-nvcc"
# The real architectures ptxas 13 assembles for.
SM_TARGETS = (75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121)


ENV = "PERFCALC_PTXAS"
RUN_SECONDS = 120.0  # ptxas -v of the largest HeCBench kernel takes seconds


@cache
def ptxas_binary() -> Path | None:
    """The wheel's ptxas, else the CUDA toolkit's, or None (then occupancy falls back to an assumed
    register count).
    $PERFCALC_PTXAS is checked like an option: an executable file, or one error line."""
    override = os.environ.get(ENV)
    if override is not None:
        path = Path(override)
        try:
            usable = path.is_file() and os.access(path, os.X_OK)
        except (OSError, ValueError):
            usable = False
        if not usable:
            shown = override if len(override) <= 200 else override[:200] + "..."
            raise InputError(f"{ENV}={shown!r} is not an executable file; point it at ptxas or unset it")
        return path
    spec = importlib.util.find_spec("nvidia")
    for root in (spec.submodule_search_locations or []) if spec else []:
        for sub in ("cu13/bin/ptxas", "cu13/bin/ptxas.exe", "cuda_nvcc/bin/ptxas"):
            candidate = Path(root) / sub
            if candidate.is_file():
                return candidate
    # No wheel: an installed CUDA toolkit's ptxas (beside the nvcc perfcalc would compile with,
    # else on PATH), as a CUDA programmer's own `nvcc -Xptxas -v` would use; one that refuses the
    # PTX falls back as before.
    from perfcalc.sim.ptx.toolchain import nvcc_path

    nvcc = nvcc_path()
    beside = nvcc.with_name("ptxas") if nvcc is not None else None
    if beside is not None and beside.is_file() and os.access(beside, os.X_OK):
        return beside
    found = shutil.which("ptxas")
    return Path(found) if found else None


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


def _is_log(value: object) -> bool:
    return isinstance(value, str)


def resource_log(ptx: str, sm: str, cache_kind: str = "ptx") -> str | None:
    """`ptxas -v`'s report for the PTX (cached in perfcalc's cache under `cache_kind`), or None
    where ptxas is not installed or refuses the PTX. A ptxas that does not finish within
    RUN_SECONDS is an error naming it."""
    binary = ptxas_binary()
    if binary is None:
        return None
    key = diskcache.digest(f"perfcalc-ptxas-2\n{binary}\n{sm}\n{ptx}".encode())
    seen = _LOGS.get(key)
    if seen is not None:
        return seen
    kept = diskcache.read(cache_kind, key, _is_log)
    if kept is not None:
        return remember(_LOGS, key, str(kept))
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "kernel.ptx"
        src.write_text(ptx)
        try:
            done = subprocess.run(
                [str(binary), f"-arch={sm}", "-v", "-o", str(Path(tmp) / "k.cubin"), str(src)],
                capture_output=True,
                text=True,
                timeout=RUN_SECONDS,
            )
        except subprocess.TimeoutExpired:
            raise InputError(f"ptxas ({binary}) did not finish within {RUN_SECONDS:g} s") from None
        except OSError as exc:
            raise InputError(f"ptxas ({binary}) could not be started: {exc.strerror or exc}") from None
    if done.returncode != 0:
        return None
    log = done.stdout + done.stderr
    diskcache.write(cache_kind, key, log)
    return remember(_LOGS, key, log)
