"""Read a YAML mapping and check its keys exactly: a typo is an error, not a silent default.

The CLI reads a device file on every answer, and importing PyYAML and parsing cost ~20 ms of a
0.2 s start (benchmarks/bench_cli_latency.py). So a file's parsed mapping is kept as JSON in
perfcalc's cache (perfcalc/diskcache.py), keyed by the SHA-256 of the file's text: the next read of
the same text loads the JSON and never imports yaml. A cryptographic key, because a weak checksum
(the length, CRC-32 and Adler-32 of earlier versions) can be made to collide, and a user's own
device file could then stand in for the shipped one of the same key (issue 36). Only mappings that
JSON returns unchanged are kept (string keys, plain values); anything else, a missing or
unwritable cache folder or a bad entry just means the YAML is parsed again.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from perfcalc import diskcache
from perfcalc.errors import SpecError
from perfcalc.files import read_text

CACHE_FORMAT = "perfcalc-yaml-2"  # part of every key: a new layout never reads an old file
CACHE_KIND = "data"


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
    key = diskcache.digest(f"{CACHE_FORMAT}\0{text}".encode())
    kept = diskcache.read(CACHE_KIND, key, lambda value: isinstance(value, dict))
    if kept is not None:
        return dict(kept)
    import yaml

    # libyaml's loader parses several times faster than the pure-Python one; both are "safe"
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        _check_shape(text, path, yaml, loader)
        data = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or exc
        if "nesting depth" in str(problem):  # PyYAML >= 6.0.4 refuses deep nesting itself first
            raise SpecError(
                f"{path}{where}: nested more than {MAX_DEPTH} levels deep (the limit for a data file)"
            ) from None
        raise SpecError(f"{path}{where}: not valid YAML ({problem})") from None
    if not isinstance(data, dict):
        raise SpecError(f"{path}: expected a mapping of keys, got {type(data).__name__}")
    if _json_exact(data):
        diskcache.write(CACHE_KIND, key, data)
    return data


def _json_exact(value: Any) -> bool:
    """True where json.loads(json.dumps(value)) == value with the same types (no int keys, no
    tuples, dates or infinities)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_exact(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_exact(v) for v in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, (str, int, bool))


def _check_shape(text: str, path: Path, yaml: Any, loader: Any) -> None:
    """Refuse nesting deeper than MAX_DEPTH or more than MAX_NODES nodes after alias expansion."""
    stack: list[list[Any]] = [[None, 0]]  # [anchor, nodes so far] per open collection
    sizes: dict[str, int] = {}
    for event in yaml.parse(text, Loader=loader):
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
