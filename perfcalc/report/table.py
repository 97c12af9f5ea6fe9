"""`Table`: what every command hands to the renderer — raw values, never pre-formatted."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Table:
    """Rows of raw values keyed by column name.

    `columns` are snake_case keys (used as CSV/JSON keys); `headers` optionally maps a key to
    the label shown in table and Markdown output. Numbers stay exact here; only the table and
    Markdown renderers round.

    Raw values keep one vocabulary in CSV and JSON: fractions 0..1, booleans, None for "none" or
    "unlimited". Only the text formats translate them: `percent` columns print x100 with a '%',
    `flags` map a boolean column to the text shown when it is true (blank otherwise), and
    `none_text` names what None means in a column (else '-').

    `context` says what every row is about (the CC, the inputs): CSV writes it as leading
    columns, so files from several runs concatenate into one frame; the text formats leave it
    to the title and the other sections.

    `name` is the table's stable identifier (`--table NAME`, JSON keys); without one it is the
    title in snake_case. A command's CSV is one table: the one marked `main`, else the first.
    An `on_request` table (a detail a flag such as --show-banks asks for) is left out unless its
    flag set it to False or `--table` names it.
    """

    columns: Sequence[str]
    rows: list[dict[str, Any]]
    title: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    name: str = ""
    main: bool = False
    on_request: bool = False
    percent: tuple[str, ...] = ()
    flags: dict[str, str] = field(default_factory=dict)
    none_text: dict[str, str] = field(default_factory=dict)
    context: dict[str, Any] = field(default_factory=dict)
    # a text column a terminal too narrow for the table prints above its rows (run's source lines)
    fold: str | None = None
    # a transposed table (rows = quantities): each row's vocabulary key, so the text formats give
    # its numbers the unit the key names (`_s`, `_gbs`, `_gflops`), or a percent where `percent`
    # names the key, as they do a column's
    row_keys: tuple[str, ...] = ()
    # the columns a terminal too narrow for the whole table (even wrapped) shows, with a line
    # saying how many more `--wide` or CSV give; empty: every column, whatever the width
    narrow: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """The name `--table` takes: `name`, else the title in snake_case."""
        return self.name or re.sub(r"[^a-z0-9]+", "_", self.title.lower()).strip("_") or "rows"

    def label(self, key: str) -> str:
        return self.headers.get(key, key)
