"""tabulate's "simple" and "plain" layouts for one-line text cells, without importing tabulate.

Why: tabulate 0.10 looks its own version up through importlib.metadata when it is imported
(14-20 ms of a ~150 ms answer on the 2-core CI machine, issue #13), and almost every table a
command prints in a terminal is one of these two layouts with short text cells. Anything else
-- wrapped columns, Markdown, HTML, a cell with a line break, a tab, an escape sequence, or a
character whose width tabulate would ask wcwidth for -- still goes to tabulate, so the output
never depends on which path drew it (tests/test_render.py compares the two on random tables).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

LAYOUTS = ("simple", "plain")
GAP = "  "  # both layouts separate columns by two spaces


def _one_width_per_character(text: str) -> bool:
    """Printable ASCII and Latin-1 letters/signs (µ, ×, °): one column each for tabulate too.

    The soft hyphen (U+00AD) is left out: wcwidth gives it no width."""
    return text.isprintable() and all(c < "\u0100" and c != "\u00ad" for c in text)


def drawable(cells: Iterable[str]) -> bool:
    """Whether every cell is one line of one-column characters (else tabulate draws the table)."""
    return all(_one_width_per_character(c) for c in cells)


def column_widths(headers: Sequence[str], rows: Sequence[Sequence[str]], header_pad: int) -> list[int]:
    """tabulate's column widths: the widest cell, or the header plus `header_pad`."""
    return [max([len(h) + header_pad, *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]


def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]], layout: str, header_pad: int) -> str | None:
    """The table as tabulate(rows, headers, tablefmt=layout, disable_numparse=True,
    preserve_whitespace=True) with MIN_PADDING = header_pad draws it, or None where only
    tabulate can (see the module docstring).

    Every column is text, so left-aligned, as wide as its widest cell or its header plus
    `header_pad`; "simple" rules the header off with dashes; trailing blanks are dropped.
    """
    if layout not in LAYOUTS or not headers or any(len(r) != len(headers) for r in rows):
        return None
    if not drawable(headers) or not all(drawable(r) for r in rows):
        return None
    widths = column_widths(headers, rows, header_pad)

    def line(cells: Sequence[str]) -> str:
        return GAP.join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    lines = [line(headers)]
    if layout == "simple":
        lines.append(GAP.join("-" * w for w in widths).rstrip())
    lines.extend(line(r) for r in rows)
    return "\n".join(lines)
