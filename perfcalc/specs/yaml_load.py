"""Read a YAML mapping and check its keys exactly: a typo is an error, not a silent default."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from perfcalc.errors import SpecError
from perfcalc.files import read_text

# libyaml's loader parses a device file several times faster than the pure-Python one; both
# are "safe" (plain data only). The CLI reads a device file on every answer.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# libyaml composes nested collections recursively: 25,000 levels of `[` crash the interpreter
# (SIGSEGV) and 5,000 overflow Python's recursion limit, and a 5 KB file of aliases of aliases
# ("billion laughs") expands to 10**10 nodes. Our own files nest 9 levels and expand to a few
# thousand nodes; the limits below leave ample room and are checked on the event stream (which
# libyaml produces without recursion) before anything is composed.
MAX_DEPTH = 64
MAX_NODES = 1_000_000


def read_mapping(path: Path) -> dict[str, Any]:
    """Load a YAML file that must hold one mapping; errors name the file."""
    text = read_text(path, "data file", error=SpecError)
    try:
        _check_shape(text, path)
        data = yaml.load(text, Loader=_SAFE_LOADER)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        raise SpecError(f"{path}{where}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(data, dict):
        raise SpecError(f"{path}: expected a mapping of keys, got {type(data).__name__}")
    return data


def _check_shape(text: str, path: Path) -> None:
    """Refuse nesting deeper than MAX_DEPTH or more than MAX_NODES nodes after alias expansion."""
    stack: list[list[Any]] = [[None, 0]]  # [anchor, nodes so far] per open collection
    sizes: dict[str, int] = {}
    for event in yaml.parse(text, Loader=_SAFE_LOADER):
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            stack.append([event.anchor, 1])
            if len(stack) - 1 > MAX_DEPTH:
                line = f" line {event.start_mark.line + 1}" if event.start_mark else ""
                raise SpecError(f"{path}{line}: nested more than {MAX_DEPTH} levels deep (the limit for a data file)")
            continue
        if isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            anchor, size = stack.pop()
        elif isinstance(event, yaml.ScalarEvent):
            anchor, size = event.anchor, 1
        elif isinstance(event, yaml.AliasEvent):
            anchor, size = None, sizes.get(event.anchor or "", 1)
        else:
            continue
        if anchor is not None:
            sizes[anchor] = size
        stack[-1][1] += size
        if stack[-1][1] > MAX_NODES:
            raise SpecError(
                f"{path}: expands to more than {MAX_NODES} values through its aliases (the limit for a data file)"
            )


# Keys files written for perfcalc before the one-vocabulary change (#11) may still use.
OLDER_SPELLINGS = {"compute_capability": "cc", "dynamic_shared_bytes": "dynamic_shared_memory_bytes"}


def modern_keys(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with older key spellings renamed, so a user's existing device file still loads."""
    return {OLDER_SPELLINGS.get(k, k) if OLDER_SPELLINGS.get(k, k) not in data else k: v for k, v in data.items()}


def check_keys(data: dict[str, Any], required: Iterable[str], where: str, optional: Iterable[str] = ()) -> None:
    """Fail on the first missing or unknown key, naming the file and the key."""
    required = list(required)
    allowed = set(required) | set(optional)
    for key in required:
        if key not in data:
            raise SpecError(f"{where}: missing key '{key}'")
    for key in data:
        if key not in allowed:
            raise SpecError(f"{where}: unknown key '{key}' (allowed: {', '.join(sorted(allowed))})")
