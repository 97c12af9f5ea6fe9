"""Read a YAML mapping and check its keys exactly: a typo is an error, not a silent default."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from perfcalc.errors import SpecError

# libyaml's loader parses a device file several times faster than the pure-Python one; both
# are "safe" (plain data only). The CLI reads a device file on every answer.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_mapping(path: Path) -> dict[str, Any]:
    """Load a YAML file that must hold one mapping; errors name the file."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        data = yaml.load(text, Loader=_SAFE_LOADER)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise SpecError(f"{path}{where}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(data, dict):
        raise SpecError(f"{path}: expected a mapping of keys, got {type(data).__name__}")
    return data


def check_keys(
    data: dict[str, Any], required: Iterable[str], where: str, optional: Iterable[str] = ()
) -> None:
    """Fail on the first missing or unknown key, naming the file and the key."""
    required = list(required)
    allowed = set(required) | set(optional)
    for key in required:
        if key not in data:
            raise SpecError(f"{where}: missing key '{key}'")
    for key in data:
        if key not in allowed:
            raise SpecError(f"{where}: unknown key '{key}' (allowed: {', '.join(sorted(allowed))})")
