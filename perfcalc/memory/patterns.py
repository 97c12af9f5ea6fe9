"""Named warp access patterns, so people can ask "what does this cost" without writing 32
addresses: stride, reversed / permuted lanes, broadcast, array-of-structs field, 2-D tile row
or column with padding, random words inside a segment, or any index expression of the lane.

Every pattern yields element indices per lane; byte address = base + word x (offset + index),
except the array-of-structs field (base + struct_size x (offset + lane) + field_offset). The
offset shifts the whole warp by elements: the seeds' "misaligned" cases.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from perfcalc.errors import InputError
from perfcalc.expr import MAX_MAGNITUDE
from perfcalc.memory.inputs import WARP, check_size

PATTERNS = ("stride", "reversed", "permuted", "broadcast", "aos", "tile-row", "tile-column", "random", "index")
_DESCRIPTIONS = {
    "stride": "lane l reads element offset + stride*l",
    "reversed": "lane l reads element offset + stride*(31-l)",
    "permuted": "lanes read elements offset + stride*k in a seeded random order",
    "broadcast": "every lane reads element offset",
    "aos": "lane l reads a field of struct offset + l",
    "tile-row": "tile[y][x] with x = l mod width, y = row + l div width",
    "tile-column": "tile[x][y] with x = l mod width, y = column + l div width",
    "random": "each lane reads a random element of one segment (seeded)",
    "index": "lane l reads element offset + INDEX(l)",
}

# What each pattern reads beyond the word, offset, base and active lanes every pattern uses (the
# CLI refuses the others when typed: they would be ignored).
PATTERN_OPTIONS: dict[str, tuple[str, ...]] = {
    "stride": ("stride",),
    "reversed": ("stride",),
    "permuted": ("stride", "seed"),
    "broadcast": (),
    "aos": ("struct_size", "field_offset"),
    "tile-row": ("tile_width", "pad", "row"),
    "tile-column": ("tile_width", "pad", "column"),
    "random": ("segment", "seed"),
    "index": ("index",),
}


@dataclass(frozen=True)
class WarpPattern:
    """The 32 lane byte addresses and active flags of one warp-level access."""

    name: str
    description: str
    word: int
    addresses: tuple[int, ...]
    active: tuple[bool, ...]

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return np.array(self.addresses, dtype=np.int64), np.array(self.active, dtype=bool)


def parse_lane_mask(text: str | None) -> np.ndarray:
    """'ffe7ffe7' or '0xffe7ffe7' (bit l = lane l) -> 32 bools; None -> all lanes."""
    if text is None:
        return np.ones(WARP, dtype=bool)
    try:
        bits = int(text, 16)
    except ValueError:
        raise InputError(f"active mask {text!r} is not hexadecimal (bit l = lane l, e.g. ffe7ffe7)") from None
    if not 0 <= bits < 1 << WARP:
        raise InputError(f"active mask {text!r} does not fit the {WARP} lanes of a warp")
    return np.array([(bits >> lane) & 1 == 1 for lane in range(WARP)], dtype=bool)


def warp_pattern(
    name: str = "stride",
    word: int = 4,
    *,
    stride: int = 1,
    offset: int = 0,
    base: int = 0,
    struct_size: int | None = None,
    field_offset: int = 0,
    tile_width: int = 32,
    pad: int = 0,
    row: int = 0,
    column: int = 0,
    segment: int = 128,
    seed: int = 0,
    index: str | None = None,
    active: str | None = None,
) -> WarpPattern:
    """Build one named pattern; every parameter error is an InputError naming the value."""
    numbers = {
        "stride": stride,
        "offset": offset,
        "base": base,
        "field_offset": field_offset,
        "tile_width": tile_width,
        "pad": pad,
        "row": row,
        "column": column,
        "segment": segment,
        "seed": seed,
        **({} if struct_size is None else {"struct_size": struct_size}),
    }
    for what, value in numbers.items():
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise InputError(f"{what} = {value!r:.40} must be a whole number")
    word = check_size(word)
    if name not in PATTERNS:
        raise InputError(f"pattern {name!r} is not one of: {', '.join(PATTERNS)}")
    # Python integers (object arrays): a stride of 2**62 must not wrap to address 0 silently.
    lane = np.arange(WARP, dtype=object)
    if name == "aos":
        addr = _aos(lane, word, offset, base, struct_size, field_offset)
    else:
        addr = base + word * (offset + _indices(name, lane, word, numbers, index).astype(object))
    _check_addresses(addr)
    description = _DESCRIPTIONS[name]
    if name == "index":
        description = f"lane l reads element offset + {index}"
    return WarpPattern(
        name, description, word, tuple(int(a) for a in addr), tuple(bool(b) for b in parse_lane_mask(active))
    )


ADDRESS_LIMIT = MAX_MAGNITUDE  # a byte address must fit a signed 64-bit integer (a pointer)


def _check_addresses(addr: np.ndarray) -> None:
    for lane, value in enumerate(addr):
        if abs(int(value)) > ADDRESS_LIMIT:
            raise InputError(
                f"lane {lane}'s byte address {int(value):.4g} is beyond the 64-bit address space (limit 2**63 - 1)"
            )


def _indices(name: str, lane: np.ndarray, word: int, numbers: dict[str, int], index: str | None) -> np.ndarray:
    """Each lane's element index under pattern `name`; `numbers` are warp_pattern's whole-number
    parameters by name, already checked."""
    stride, seed = numbers["stride"], numbers["seed"]
    if name == "stride":
        return stride * lane
    if name == "reversed":
        return stride * (WARP - 1 - lane)
    if name == "permuted":
        return stride * np.random.default_rng(seed).permutation(WARP).astype(object)
    if name == "broadcast":
        return np.zeros(WARP, dtype=np.int64)
    if name in ("tile-row", "tile-column"):
        return _tile(name, lane, numbers["tile_width"], numbers["pad"], numbers["row"], numbers["column"])
    if name == "random":
        segment = numbers["segment"]
        if segment <= 0 or segment % word:
            raise InputError(f"segment {segment} bytes must be a positive multiple of the {word}-byte word")
        return np.random.default_rng(seed).integers(0, segment // word, size=WARP)
    return _index_expression(index, lane)


def _tile(name: str, lane: np.ndarray, tile_width: int, pad: int, row: int, column: int) -> np.ndarray:
    if tile_width <= 0:
        raise InputError(f"tile width {tile_width} must be at least 1 element")
    if pad < 0:
        raise InputError(f"tile padding {pad} must not be negative")
    pitch = tile_width + pad  # elements per stored row, e.g. 32 + 1 = 33
    x = lane % tile_width
    y = lane // tile_width
    if name == "tile-row":
        return (row + y) * pitch + x
    return x * pitch + column + y


def _aos(lane: np.ndarray, word: int, offset: int, base: int, struct_size: int | None, field_offset: int) -> np.ndarray:
    if struct_size is None:
        raise InputError("pattern 'aos' needs the struct size in bytes (--struct-size)")
    if field_offset < 0 or field_offset + word > struct_size:
        raise InputError(f"field of {word} bytes at offset {field_offset} does not fit a {struct_size}-byte struct")
    return base + struct_size * (offset + lane) + field_offset


def _index_expression(index: str | None, lane: np.ndarray) -> np.ndarray:
    from perfcalc.expr import evaluate

    if not index:
        raise InputError("pattern 'index' needs an expression of the lane (--index 'lane*2+1')")
    value = np.broadcast_to(np.asarray(evaluate(index, {"lane": lane.astype(np.int64)})), lane.shape)
    if value.dtype == bool:
        raise InputError(f"index expression {index!r} gives true/false, not element numbers")
    fractional = np.flatnonzero(np.mod(value, 1) != 0)
    if fractional.size:
        lane_no = int(fractional[0])
        raise InputError(
            f"index expression {index!r} gives {value[lane_no]} for lane {lane_no}; "
            "element numbers must be whole (use // for integer division)"
        )
    return value.astype(np.int64)
