"""`NAME=VALUE` command-line options (--param, --define), read one way for every command."""

from __future__ import annotations

import math
from typing import Any

from perfcalc.errors import InputError


def name_values(items: list[str] | None, option: str) -> dict[str, int | float]:
    """`NAME=VALUE` options -> dict; integers stay integers."""
    out: dict[str, int | float] = {}
    for item in items or []:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            raise InputError(f"{option} {item[:60]!r}: expected NAME=VALUE, e.g. {option} Width=256")
        if name in out:
            raise InputError(f"{option} {name} is given twice ({out[name]} and {text[:40]}); give each name once")
        try:
            out[name] = int(text, 0)
        except ValueError:
            try:
                out[name] = float(text)
            except ValueError:
                raise InputError(f"{option} {item[:60]!r}: {text[:40]!r} is not a number") from None
            if not math.isfinite(out[name]):
                raise InputError(f"{option} {item[:60]!r}: {text!r} is not a finite number") from None
    return out


def defines(items: list[str] | None, numbers_only: bool) -> dict[str, Any]:
    """-D NAME[=VALUE]: numbers only for the C engine (`numbers_only`: its pre-pass substitutes
    numbers); any token sequence where NVIDIA's preprocessor reads it, as nvcc would."""
    if numbers_only:
        return name_values(items, "--define")
    out: dict[str, Any] = {}
    for item in items or []:
        name, _sep, text = item.partition("=")
        name = name.strip()
        if not name.isidentifier() or "\n" in text or "\r" in text:
            raise InputError(f"--define {item[:60]!r}: expected NAME or NAME=VALUE")
        out[name] = text if _sep else None
    return out
