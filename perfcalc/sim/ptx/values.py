"""PTX types, registers and operands as NumPy arrays over the threads of a chunk.

Every register holds one value per thread in an array whose dtype follows its declared type
(predicates bool, .f32 float32, .b32/.u32/.s32 uint32 bits, ...); an instruction reads its
operands reinterpreted as the instruction's own type (`add.s32` sees int32, `mov.b32` raw bits),
exactly as PTX moves bits between registers.
"""

from __future__ import annotations

import functools
import re
import struct
from typing import cast

import numpy as np

from perfcalc.errors import CudaSyntaxError

NP: dict[str, np.dtype] = {
    name: np.dtype(dt)
    for name, dt in {
        "pred": np.bool_,
        "b8": np.uint8,
        "u8": np.uint8,
        "s8": np.int8,
        "b16": np.uint16,
        "u16": np.uint16,
        "s16": np.int16,
        "f16": np.float16,
        "bf16": np.uint16,
        "b32": np.uint32,
        "u32": np.uint32,
        "s32": np.int32,
        "f32": np.float32,
        "b64": np.uint64,
        "u64": np.uint64,
        "s64": np.int64,
        "f64": np.float64,
        "f16x2": np.uint32,
        "bf16x2": np.uint32,
    }.items()
}
# Storage of a register of each declared type: floats as floats, integers as raw unsigned bits.
STORAGE: dict[str, np.dtype] = {
    "pred": np.dtype(np.bool_),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "f16": np.dtype(np.float16),
}
_BITS: dict[int, np.dtype] = {
    1: np.dtype(np.uint8),
    2: np.dtype(np.uint16),
    4: np.dtype(np.uint32),
    8: np.dtype(np.uint64),
}
TYPE_NAMES = tuple(NP)
_REG = re.compile(r"^(%[A-Za-z_$][\w$]*?)(\d*)$")


def storage_dtype(ptx_type: str) -> np.dtype:
    if ptx_type in STORAGE:
        return STORAGE[ptx_type]
    return _BITS[NP[ptx_type].itemsize]


def as_type(value: np.ndarray | np.generic, ptx_type: str) -> np.ndarray:
    """Reinterpret (same width) or convert (other width, as PTX's relaxed register rules allow)
    a value as a PTX type."""
    want = NP[ptx_type]
    arr = np.asarray(value)
    if arr.dtype == want:
        return arr
    if arr.dtype.itemsize == want.itemsize and arr.dtype != np.bool_:
        return arr.view(want)
    if arr.dtype == np.bool_:
        return arr.astype(want)
    # different widths: integer truncation / zero or sign extension of the bits
    bits = arr.view(_BITS[arr.dtype.itemsize]) if arr.dtype.kind == "f" else arr
    if want.kind == "f":
        return bits.astype(_BITS[want.itemsize]).view(want)
    return bits.astype(want)


def float_immediate(text: str) -> float | None:
    """PTX float literals: `0f` and 8 hex digits (the f32 bits), `0d` and 16 hex digits (the f64
    bits); None for anything else (decimal literals are read by the caller)."""
    t = text.lower()
    if t.startswith("0f") and len(t) == 10:
        return struct.unpack("<f", int(t[2:], 16).to_bytes(4, "little"))[0]
    if t.startswith("0d") and len(t) == 18:
        return struct.unpack("<d", int(t[2:], 16).to_bytes(8, "little"))[0]
    return None


def immediate(text: str, ptx_type: str) -> np.generic:
    """An immediate operand as a scalar of the instruction's type."""
    want = NP[ptx_type]
    f = float_immediate(text)
    if f is not None:
        if want.kind == "f":
            return want.type(f)
        width = 4 if text.lower().startswith("0f") else 8
        if want.itemsize == width:  # `mov.b32 %r1, 0f00000000` (NVRTC 13 for sm_100+): the bits
            return cast(np.generic, np.array(int(text[2:], 16), dtype=_BITS[width]).view(want)[()])
        raise CudaSyntaxError(f"float literal {text} used as {ptx_type}")
    try:
        value = int(text.rstrip("Uu"), 0)
    except ValueError:
        try:
            value_f = float(text)
        except ValueError:
            raise CudaSyntaxError(f"cannot read the PTX operand {text!r}") from None
        return want.type(value_f)
    if want.kind == "f":
        return want.type(value)
    if want == np.bool_:
        return np.bool_(value != 0)
    bits = value & ((1 << (8 * want.itemsize)) - 1)
    return cast(np.generic, np.array(bits, dtype=_BITS[want.itemsize]).view(want)[()])


# Special registers the engine reads (execute.py answers each by name).
SPECIAL_NAMES = (
    "%laneid",
    "%warpid",
    "%nwarpid",
    "%smid",
    "%nsmid",
    "%clock",
    "%clock64",
    "%gridid",
    "%lanemask_eq",
    "%lanemask_lt",
    "%lanemask_le",
    "%lanemask_gt",
    "%lanemask_ge",
)

# Names that look like registers but are special registers (%clock covers %clock64, ...).
_NOT_REGISTERS = ("%tid", "%ntid", "%ctaid", "%nctaid", "%envreg", "%globaltimer", *SPECIAL_NAMES)


@functools.lru_cache(maxsize=4096)
def register_name(text: str) -> str | None:
    """'%r12' -> '%r12' when it names a register (not a special register)."""
    return text if _REG.match(text) and not text.startswith(_NOT_REGISTERS) else None
