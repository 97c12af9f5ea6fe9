"""Build and talk to the C++ driver over the installed toolkit's cuda_occupancy.h.

Shared by tests/test_occupancy_header.py and benchmarks/bench_occupancy_sweep.py: the device
line is filled from perfcalc's `Arch`, so the header sees exactly the numbers perfcalc uses.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from perfcalc.specs import Arch

SOURCE = Path(__file__).with_name("occ_driver.cpp")
CACHE_CONFIG_CODES = {"none": 0, "prefer-shared": 1, "prefer-l1": 2, "prefer-equal": 3}


def find_header_dir() -> Path | None:
    """The toolkit include directory holding cuda_occupancy.h (next to nvcc, or /usr/local/cuda)."""
    candidates = []
    if os.environ.get("CUDA_HOME"):
        candidates.append(Path(os.environ["CUDA_HOME"]) / "include")
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.append(Path(nvcc).resolve().parent.parent / "include")
    candidates.append(Path("/usr/local/cuda/include"))
    return next((c for c in candidates if (c / "cuda_occupancy.h").is_file()), None)


def find_compiler() -> str | None:
    return shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")


def build(out_dir: Path, optimize: str = "-O2") -> Path:
    """Compile the driver into out_dir; raises FileNotFoundError naming what is missing."""
    include, compiler = find_header_dir(), find_compiler()
    if include is None:
        raise FileNotFoundError("cuda_occupancy.h not found (looked next to nvcc, $CUDA_HOME, /usr/local/cuda)")
    if compiler is None:
        raise FileNotFoundError("no C++ compiler (g++, c++ or clang++) on PATH")
    exe = out_dir / "occ_driver"
    subprocess.run(
        [compiler, optimize, "-std=c++14", f"-I{include}", "-o", str(exe), str(SOURCE)],
        check=True,
        capture_output=True,
        text=True,
    )
    return exe


def device_fields(arch: Arch) -> str:
    """cudaOccDeviceProp as the driver reads it, from the device file's numbers."""
    return " ".join(
        str(v)
        for v in (
            arch.major,
            arch.minor,
            arch.max_threads_per_block,
            arch.max_threads_per_sm,
            arch.max_registers_per_block,
            arch.registers_per_sm,
            arch.warp_size,
            arch.max_shared_memory_per_block_bytes,
            arch.shared_memory_per_sm_bytes,
            arch.max_shared_memory_per_block_optin_bytes or 0,
            arch.reserved_shared_memory_per_block_bytes,
        )
    )


def run(exe: Path, requests: list[str]) -> list[list[float]]:
    """Send every request in one process run; one list of numbers back per request."""
    done = subprocess.run([str(exe)], input="\n".join(requests) + "\n", capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    if len(lines) != len(requests):
        raise RuntimeError(f"driver answered {len(lines)} of {len(requests)} requests: {done.stderr}")
    return [[float(x) if "." in x else int(x) for x in line.split()] for line in lines]
