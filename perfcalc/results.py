"""What every result of the library can turn into: plain values, a pandas frame, a notebook table.

The result dataclasses (occupancy, access costs, runs, rooflines, matmul analyses, devices)
derive from `Result`, so `r.to_dict()` gives the values `--format json` prints under the same
names, `r.to_frame()` a one-row pandas DataFrame (nested fields flattened with dots), and
Jupyter shows a two-column table of the fields (`_repr_markdown_`).
"""

from __future__ import annotations

import dataclasses
from enum import Enum
from typing import Any


def plain(value: Any) -> Any:
    """Dataclasses, tuples, NumPy scalars/arrays and enums -> JSON values, keys kept as named;
    a Result converts itself (its `to_dict`, which may add or translate fields)."""
    if isinstance(value, Result):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, Enum):
        return value.value
    if hasattr(value, "item") and callable(value.item):  # NumPy scalar
        return value.item()
    if hasattr(value, "tolist"):  # NumPy array
        return value.tolist()
    return value


class Result:
    """Mixin for the library's frozen result dataclasses (no fields of its own)."""

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """The fields as plain JSON values, under the dataclass names."""
        assert dataclasses.is_dataclass(self)
        return {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)}

    def to_frame(self) -> Any:
        """A one-row pandas DataFrame of the fields (nested ones as 'outer.inner' columns)."""
        try:
            import pandas as pd
        except ImportError:  # pandas is not a dependency of perfcalc
            from perfcalc.errors import InputError

            raise InputError("to_frame() needs pandas: pip install pandas") from None
        return pd.json_normalize(self.to_dict())

    def _repr_markdown_(self) -> str:
        rows = [f"| {key} | {_cell(value)} |" for key, value in self.to_dict().items()]
        return "\n".join([f"**{type(self).__name__}**", "", "| field | value |", "|---|---|", *rows])


def _cell(value: Any) -> str:
    text = str(value)
    text = text if len(text) <= 120 else text[:117] + "..."
    return text.replace("|", "\\|").replace("\n", " ")
