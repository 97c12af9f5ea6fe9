"""Keep freed lane arrays in the process's heap instead of handing them back to the OS.

Why: both engines make and drop several temporaries of a chunk's size (up to 2^17 lanes, 0.5-1
MiB each) per instruction. glibc returns such memory to the kernel on free (its trim threshold
follows the largest freed block, 2x it), so the next instruction's arrays fault every page in
again. In this project's 2-core VM a page fault costs microseconds: fma.rn.f32 on 65,536 lanes
took 0.65 ms, 0.11 ms with freed memory kept (benchmarks/RESULTS.md). mallopt(3) raises the two
thresholds once per process; the memory stays reusable by the process (the peak is unchanged).
Only glibc on Linux has these knobs; elsewhere this does nothing.
"""

from __future__ import annotations

import functools
import sys

_M_TRIM_THRESHOLD = -1  # glibc's <malloc.h> parameter numbers
_M_MMAP_THRESHOLD = -3
TRIM_THRESHOLD = 256 << 20  # free memory kept at the top of the heap before trimming
MMAP_THRESHOLD = 32 << 20  # larger blocks (the user's big arrays) still come from mmap
LANES_WORTH_IT = 1 << 15  # chunks smaller than this make temporaries below a page fault's cost


@functools.cache
def keep_freed_memory() -> bool:
    """Set glibc's trim and mmap thresholds (once); True where they were set."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:  # not glibc (musl, say)
        return False
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is None:
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
