"""The one table of C/CUDA element types: name, C spelling, components, size and alignment.

Array element types appear in the kernel catalog (`dtype: float4`), on the command line
(`--array x=int2:1000`), in the analytic model (bytes per element of a `__shared__` array) and in
the execution core (struct layout of vector types). All of them look types up here.

Sizes follow nvcc on 64-bit Linux (LP64: `long` and `size_t` are 8 bytes); the vector types carry
the alignment CUDA's `vector_types.h` gives them (float2 8, float4 16, double2 16, while float3
and int3 are only 4-byte aligned, so a float3 is 12 bytes).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from perfcalc.errors import InputError


@dataclass(frozen=True)
class ElementType:
    """One element type: `name` as the catalog and `--array` write it, `c_names` as CUDA C does."""

    name: str
    c_names: tuple[str, ...]
    scalar: str  # NumPy name of one component ('float32')
    components: int = 1
    align: int = 0  # 0 = the component size (scalars, C structs); vector_types.h otherwise

    @property
    def component_size(self) -> int:
        return int(np.dtype(self.scalar).itemsize)

    @property
    def alignment(self) -> int:
        return self.align or self.component_size

    @property
    def size(self) -> int:
        """Bytes per element, padded to the alignment (float3 12, float4 16)."""
        raw = self.components * self.component_size
        return -(-raw // self.alignment) * self.alignment

    @property
    def is_vector(self) -> bool:
        return self.components > 1

    @property
    def fields(self) -> tuple[str, ...]:
        """Member names of a vector type ('x', 'y', ...); () for a scalar."""
        return tuple("xyzw"[: self.components]) if self.is_vector else ()

    def numpy_dtype(self) -> np.dtype:
        """The NumPy dtype with exactly this layout."""
        if not self.is_vector:
            return np.dtype(self.scalar)
        return np.dtype(
            {
                "names": list(self.fields),
                "formats": [self.scalar] * self.components,
                "offsets": [i * self.component_size for i in range(self.components)],
                "itemsize": self.size,
            }
        )


def _vectors(base: str, scalar: str, aligns: dict[int, int]) -> list[ElementType]:
    return [ElementType(f"{base}{n}", (f"{base}{n}",), scalar, n, a) for n, a in aligns.items()]


_FOUR_BYTE = {2: 8, 3: 4, 4: 16}  # vector_types.h: float2/int2 8, float3 4, float4 16
_EIGHT_BYTE = {2: 16, 3: 8, 4: 16}  # double2/long2 16, double3 8, double4 16 (CUDA 13: double4_16a)
_ONE_BYTE = {2: 2, 3: 1, 4: 4}
_TWO_BYTE = {2: 4, 3: 2, 4: 8}

ELEMENT_TYPES: dict[str, ElementType] = {
    t.name: t
    for t in [
        ElementType("bool", ("bool", "_Bool"), "bool"),
        ElementType("int8", ("char", "signed char"), "int8"),
        ElementType("uint8", ("unsigned char",), "uint8"),
        ElementType("int16", ("short", "short int", "signed short"), "int16"),
        ElementType("uint16", ("unsigned short", "unsigned short int"), "uint16"),
        ElementType("int32", ("int", "signed", "signed int"), "int32"),
        ElementType("uint32", ("unsigned", "unsigned int"), "uint32"),
        ElementType("int64", ("long", "long int", "long long", "long long int"), "int64"),
        ElementType(
            "uint64",
            ("unsigned long", "unsigned long long", "size_t", "unsigned long int"),
            "uint64",
        ),
        ElementType("float16", ("__half", "half"), "float16"),
        ElementType("float32", ("float",), "float32"),
        ElementType("float64", ("double",), "float64"),
        *_vectors("float", "float32", _FOUR_BYTE),
        *_vectors("int", "int32", _FOUR_BYTE),
        *_vectors("uint", "uint32", _FOUR_BYTE),
        *_vectors("double", "float64", _EIGHT_BYTE),
        *_vectors("longlong", "int64", _EIGHT_BYTE),
        *_vectors("char", "int8", _ONE_BYTE),
        *_vectors("uchar", "uint8", _ONE_BYTE),
        *_vectors("short", "int16", _TWO_BYTE),
        *_vectors("ushort", "uint16", _TWO_BYTE),
    ]
}
_BY_C_NAME = {c: t for t in ELEMENT_TYPES.values() for c in (*t.c_names, t.name)}


def element_type(name: str) -> ElementType:
    """A type by its catalog name ('float32', 'float4') or C spelling ('float', 'unsigned int')."""
    found = ELEMENT_TYPES.get(name) or _BY_C_NAME.get(" ".join(str(name).split()))
    if found is None:
        raise InputError(f"unknown element type {str(name)[:40]!r}; known: {', '.join(ELEMENT_TYPES)}")
    return found


def find_element_type(name: str) -> ElementType | None:
    """Like `element_type`, but None for an unknown name."""
    return ELEMENT_TYPES.get(name) or _BY_C_NAME.get(" ".join(str(name).split()))
