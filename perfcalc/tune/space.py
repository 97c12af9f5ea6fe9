"""A tuning space: named axes of values and their product, in one fixed order (issue 34).

`NAME=8,16,32` lists values; `NAME=64..1024:*2` doubles from 64 up to 1024; `NAME=1..8` and
`NAME=0..12:+4` step by adding. A YAML or TOML file maps names to lists or to the same range
text. `where` expressions (`BM/TM*BN/TN <= 1024`) drop points before anything runs. The
points are the axes' product in the order given, the last axis fastest, so every backend and
every resumed run numbers them alike.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfcalc.errors import InputError
from perfcalc.expr import evaluate, shorten

MAX_POINTS = 100_000  # a sweep of more is a mistake in the space, not a wish
MAX_AXIS_VALUES = 10_000
_NAME = re.compile(r"[A-Za-z_]\w{0,63}$")
_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*(?::\s*([*+])\s*(\d+))?\s*$")

Value = int | float | str
Point = dict[str, Value]


@dataclass(frozen=True)
class Space:
    """Axes in the order given and the constraints every point must meet."""

    axes: tuple[tuple[str, tuple[Value, ...]], ...]
    where: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.axes)

    def points(self) -> list[Point]:
        """Every point meeting `where`, the last axis varying fastest."""
        total = 1
        for _, values in self.axes:
            total *= len(values)
        if total > MAX_POINTS:
            raise InputError(f"the space has {total:,} points; at most {MAX_POINTS:,} (narrow an axis or add --where)")
        found = []
        for combo in itertools.product(*(values for _, values in self.axes)):
            point = dict(zip(self.names, combo, strict=True))
            if all(_holds(w, point) for w in self.where):
                found.append(point)
        if not found:
            raise InputError("no point of the space meets --where: " + " and ".join(self.where))
        return found


def _holds(condition: str, point: Point) -> bool:
    numbers = {k: v for k, v in point.items() if not isinstance(v, str)}
    return bool(evaluate(condition, numbers))


def parse_axis(text: str) -> tuple[str, tuple[Value, ...]]:
    """`NAME=VALUES` as --space takes it."""
    name, sep, values = text.partition("=")
    name = name.strip()
    if not sep or not values.strip():
        raise InputError(f"--space {shorten(text)!r}: expected NAME=VALUES such as TILE=8,16,32 or BLOCK=64..1024:*2")
    return _checked_name(name), axis_values(values, name)


def axis_values(values: object, name: str) -> tuple[Value, ...]:
    """An axis's values from range text, comma-separated text, or a list (from a file)."""
    if isinstance(values, str):
        found = _RANGE.match(values)
        items: list[Any] = _range(found, name) if found else [v.strip() for v in values.split(",")]
    elif isinstance(values, (list, tuple)):
        items = list(values)
    elif isinstance(values, (int, float)) and not isinstance(values, bool):
        items = [values]
    else:
        raise InputError(f"space axis {name}: give a list, a range such as 64..1024:*2, or values a,b,c")
    parsed = tuple(_value(v, name) for v in items)
    if not parsed or len(parsed) > MAX_AXIS_VALUES:
        raise InputError(f"space axis {name} has {len(parsed)} values; give 1 to {MAX_AXIS_VALUES:,}")
    if len(set(parsed)) != len(parsed):
        raise InputError(f"space axis {name} repeats a value: {', '.join(map(str, parsed))[:80]}")
    return parsed


def _range(found: re.Match[str], name: str) -> list[int]:
    start, stop = int(found.group(1)), int(found.group(2))
    op, step = found.group(3) or "+", int(found.group(4) or 1)
    if stop < start:
        raise InputError(f"space axis {name}: range {start}..{stop} runs backwards")
    if (op == "*" and (step < 2 or start < 1)) or (op == "+" and step < 1):
        raise InputError(f"space axis {name}: step {op}{step} from {start} never reaches {stop}")
    values = [start]
    while len(values) <= MAX_AXIS_VALUES:
        nxt = values[-1] * step if op == "*" else values[-1] + step
        if nxt > stop:
            break
        values.append(nxt)
    return values


def _value(v: object, name: str) -> Value:
    if isinstance(v, bool) or not isinstance(v, (int, float, str)):
        raise InputError(f"space axis {name}: {v!r} is not a number or a word")
    if isinstance(v, str):
        text = v.strip()
        if re.fullmatch(r"-?\d+", text):
            return int(text)
        try:
            return float(text)
        except ValueError:
            pass
        if not re.fullmatch(r"[\w:<>, ]{1,64}", text):
            raise InputError(f"space axis {name}: value {shorten(text)!r} is neither a number nor a C++ name")
        return text
    return v


def _checked_name(name: str) -> str:
    if not _NAME.match(name):
        raise InputError(f"space axis name {shorten(name)!r}: use a C identifier (it becomes -D {name}=VALUE)")
    return name


def space_from(axes: Sequence[str], where: Sequence[str] = (), file: Path | None = None) -> Space:
    """The space of --space options and a space file (file axes first), checked."""
    found: list[tuple[str, tuple[Value, ...]]] = []
    conditions = list(where)
    if file is not None:
        loaded, file_where = _read_file(file)
        found += [(_checked_name(str(k)), axis_values(v, str(k))) for k, v in loaded.items()]
        conditions = file_where + conditions
    found += [parse_axis(a) for a in axes]
    names = [n for n, _ in found]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InputError(f"space axis {twice[0]} is given twice")
    if not found:
        raise InputError("give the space: --space NAME=VALUES (repeatable) or --space-file FILE")
    for condition in conditions:
        evaluate(condition, {n: 1 for n in names})  # parses and names only axes (checked early)
    return Space(tuple(found), tuple(conditions))


def _read_file(file: Path) -> tuple[Mapping[str, Any], list[str]]:
    from perfcalc.files import read_text

    text = read_text(file, "space file")
    if file.suffix == ".toml":
        try:
            import tomllib  # type: ignore[import-not-found, unused-ignore]
        except ModuleNotFoundError:  # Python 3.10
            raise InputError(f"{file}: TOML needs Python 3.11 or newer; write the space as YAML") from None
        try:
            data: Any = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"{file}: not TOML: {exc}") from None
    else:
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise InputError(f"{file}: not YAML: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise InputError(f"{file}: expected a mapping of axis names to values (and an optional `where` list)")
    where = data.pop("where", [])
    if isinstance(where, str):
        where = [where]
    if not isinstance(where, list) or not all(isinstance(w, str) for w in where):
        raise InputError(f"{file}: `where` must be an expression or a list of them")
    return data, list(where)
