"""Does a value read from a data file have its field's declared type?

Device and product records are frozen dataclasses whose annotations are the schema; checking
each YAML value against its field's annotation (text, thanks to `from __future__ import
annotations`) turns "object of type 'int' has no len()" deep inside a model into an error that
names the file, the key and the expected type.
"""

from __future__ import annotations

import math
from typing import Any

# cudaDeviceProp holds every limit in a C `int`: a device file's integers must fit one.
MAX_LIMIT = 2**31 - 1


def _split_top(text: str) -> list[str]:
    """'int, tuple[int, int]' -> ['int', 'tuple[int, int]'] (commas inside brackets kept)."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += (c == "[") - (c == "]")
        if c == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    return [*parts, text[start:].strip()]


def conforms(value: Any, type_text: str) -> bool:
    """Does a YAML value have the field's declared type (from the dataclass annotation)?"""
    if type_text.endswith(" | None"):
        if value is None:
            return True
        type_text = type_text[: -len(" | None")]
    if type_text == "int":
        return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_LIMIT
    if type_text == "float":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if type_text in ("str", "bool"):
        return isinstance(value, str if type_text == "str" else bool)
    if type_text.startswith("tuple[") and isinstance(value, tuple):
        parts = _split_top(type_text[len("tuple[") : -1])
        if parts[-1] == "...":
            return all(conforms(v, parts[0]) for v in value)
        return len(value) == len(parts) and all(map(conforms, value, parts))
    return False


def describe(type_text: str) -> str:
    plain = type_text.removesuffix(" | None")
    words = {
        "int": f"an integer from 0 to {MAX_LIMIT} (a C int)",
        "str": "a string",
        "bool": "true or false",
        "float": "a finite number",
    }
    text = words.get(plain) or f"a list of the form {plain.replace('tuple', '')}, integers from 0 to {MAX_LIMIT}"
    return text + (" or null" if plain != type_text else "")
