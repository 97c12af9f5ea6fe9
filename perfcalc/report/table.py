"""`Table`: what every command hands to the renderer — raw values, never pre-formatted."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Table:
    """Rows of raw values keyed by column name.

    `columns` are snake_case keys (used as CSV/JSON keys); `headers` optionally maps a key to
    the label shown in table and Markdown output. Numbers stay exact here; only the table and
    Markdown renderers round.
    """

    columns: Sequence[str]
    rows: list[dict[str, Any]]
    title: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def label(self, key: str) -> str:
        return self.headers.get(key, key)
