"""The probe's inputs, the same here and on the device (no random generator whose stream could
change between NumPy versions: a fixed integer hash of the index).

- `rsqrt_grid`: every float32 in [1, 4) (2^24: every mantissa at both exponent parities).
- `ex2_grid`: k / 2^23 for k in [-2^23, 2^23) (every 23-bit fraction of [-1, 1), both signs).
- `rcp_grid`: every float32 in [1, 2); `sqrt_grid`: the rsqrt grid's inputs.
- `any_random`: 2^16 bit patterns of either sign (for rcp and sqrt).
- `rsqrt_random`: 2^16 non-negative bit patterns (any exponent: subnormals, inf and NaN too).
- `ex2_wide`: 2^16 values in [-160, 160]; `ex2_fine`: 2^16 full-precision values in (-1, 1),
  magnitudes down to 2^-27 (bits below the 23-bit fraction).
"""

from __future__ import annotations

import numpy as np

SAMPLES = 1 << 16


def fmix32(i: np.ndarray, seed: int) -> np.ndarray:
    """MurmurHash3's finaliser of (index ^ seed): uniform 32-bit words."""
    h = (i.astype(np.uint32) ^ np.uint32(seed)).astype(np.uint32)
    h ^= h >> np.uint32(16)
    h *= np.uint32(0x85EBCA6B)
    h ^= h >> np.uint32(13)
    h *= np.uint32(0xC2B2AE35)
    h ^= h >> np.uint32(16)
    return h


def rsqrt_grid() -> np.ndarray:
    return (np.uint32(0x3F800000) + np.arange(1 << 24, dtype=np.uint32)).view(np.float32)


def ex2_grid() -> np.ndarray:
    return (np.arange(-(1 << 23), 1 << 23, dtype=np.int64) / float(1 << 23)).astype(np.float32)


def rcp_grid() -> np.ndarray:
    return (np.uint32(0x3F800000) + np.arange(1 << 23, dtype=np.uint32)).view(np.float32)


def any_random(seed: int = 5, samples: int = SAMPLES) -> np.ndarray:
    return fmix32(np.arange(samples), seed).view(np.float32)


def rsqrt_random() -> np.ndarray:
    return (fmix32(np.arange(SAMPLES), 1) & np.uint32(0x7FFFFFFF)).view(np.float32)


def ex2_wide() -> np.ndarray:
    u = fmix32(np.arange(SAMPLES), 2).astype(np.float64) / 2.0**32
    return (u * 320.0 - 160.0).astype(np.float32)


def ex2_fine() -> np.ndarray:
    h = fmix32(np.arange(SAMPLES), 3)
    sign = (h & np.uint32(1)) << np.uint32(31)
    exponent = (np.uint32(100) + (h >> np.uint32(1)) % np.uint32(27)) << np.uint32(23)
    mantissa = fmix32(np.arange(SAMPLES), 4) & np.uint32(0x7FFFFF)
    return (sign | exponent | mantissa).astype(np.uint32).view(np.float32)


SETS = {
    "rsqrt_grid": (rsqrt_grid, ("rsqrt_ftz",)),
    "ex2_grid": (ex2_grid, ("ex2_ftz",)),
    "rcp_grid": (rcp_grid, ("rcp_ftz",)),
    "sqrt_grid": (rsqrt_grid, ("sqrt_ftz",)),
    "rsqrt_random": (rsqrt_random, ("rsqrt_ftz", "rsqrt")),
    "any_random": (any_random, ("rcp_ftz", "rcp", "sqrt_ftz", "sqrt")),
    "ex2_wide": (ex2_wide, ("ex2_ftz", "ex2")),
    "ex2_fine": (ex2_fine, ("ex2_ftz", "ex2")),
}
