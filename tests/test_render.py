"""One renderer for every command: tables round, CSV and JSON stay exact."""

import csv
import importlib
import io
import json
from dataclasses import dataclass

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from perfcalc.report import Table, render
from perfcalc.report.text_table import text_table

render_module = importlib.import_module("perfcalc.report.render")  # the package re-exports render()


@dataclass(frozen=True)
class _Result:
    active_blocks_per_sm: int
    occupancy: float
    limiters: tuple[str, ...]


TABLE = Table(
    columns=["name", "value"], rows=[{"name": "occupancy", "value": 2 / 3}], title="T", headers={"value": "Value"}
)


def test_table_rounds_for_people_only():
    text = render(TABLE, "table")
    assert "0.6667" in text and "Value" in text
    assert "0.6666666666666666" in render(TABLE, "csv")


def test_json_uses_dataclass_field_names_and_plain_values():
    data = _Result(np.int64(8), np.float64(1.0), ("warps", "blocks"))
    out = json.loads(render(TABLE, "json", data))
    assert out == {"active_blocks_per_sm": 8, "occupancy": 1.0, "limiters": ["warps", "blocks"]}


def test_json_without_data_gives_rows():
    assert json.loads(render(TABLE, "json")) == {"rows": [{"name": "occupancy", "value": 2 / 3}]}


def test_csv_is_one_table_the_main_one_or_the_one_named():
    """Issue #11: a CSV is one table (pandas reads one frame): the table marked main, else the
    first; `table=` picks another by name; the text formats keep every table."""
    other = Table(columns=["a"], rows=[{"a": [1, 2]}], title="U")
    assert render([TABLE, other], "csv") == "name,value\noccupancy,0.6666666666666666\n"
    assert render([TABLE, other], "csv", table="u") == "a\n1;2\n"
    main = Table(columns=["b"], rows=[{"b": 1}], title="Main part", main=True)
    assert render([TABLE, main], "csv") == "b\n1\n"
    assert list(csv.DictReader(io.StringIO(render([TABLE, main], "csv", table="t"))))[0]["name"] == "occupancy"
    assert "T" in render([TABLE, other], "table") and "U" in render([TABLE, other], "table")
    assert json.loads(render([TABLE, other], "json")) == {"t": TABLE.rows, "u": other.rows}


def test_an_unknown_table_name_lists_the_known_ones():
    import pytest

    from perfcalc.errors import InputError

    with pytest.raises(InputError, match="'v' is not a table of this output; its tables: t, main_part"):
        render([TABLE, Table(columns=["b"], rows=[], title="Main part")], "csv", table="v")


def test_text_formats_translate_fractions_flags_and_none_csv_keeps_raw_values():
    t = Table(
        columns=["occupancy", "current", "blocks"],
        rows=[{"occupancy": 0.75, "current": True, "blocks": None}, {"occupancy": 1, "current": False, "blocks": 3}],
        percent=("occupancy",),
        flags={"current": "<- here"},
        none_text={"blocks": "unlimited"},
    )
    text = render(t, "table")
    assert "75 %" in text and "<- here" in text and "unlimited" in text and "100 %" in text
    assert render(t, "csv") == "occupancy,current,blocks\n0.75,True,\n1,False,3\n"


def test_markdown_has_title_and_pipe_table():
    text = render(TABLE, "markdown")
    assert text.startswith("## T\n\n| name")


# Cells as the commands make them (ASCII, 'µs', '×', source lines with indentation, empty
# cells) and characters only tabulate may measure: a tab, a line break, an escape sequence,
# a wide CJK character, a combining accent, the soft hyphen.
_CELL = st.text(alphabet=st.sampled_from(list("ab 1.-_%()µ×°") + ["\t", "\n", "\x1b", "あ", "\u0301", "\u00ad"]))


@given(
    columns=st.integers(1, 4),
    data=st.data(),
    layout=st.sampled_from(["simple", "plain"]),
    header_pad=st.sampled_from([0, 2]),
)
@settings(max_examples=300, deadline=None)
def test_text_tables_are_drawn_exactly_as_tabulate_draws_them(columns, data, layout, header_pad):
    """report/text_table.py draws the terminal's two layouts without importing tabulate
    (issue #13: start-up); the output must be tabulate's own, character for character, for any
    cells -- drawn here, or handed to tabulate where only tabulate can measure them."""
    import tabulate

    headers = data.draw(st.lists(_CELL, min_size=columns, max_size=columns))
    rows = data.draw(st.lists(st.lists(_CELL, min_size=columns, max_size=columns), max_size=4))
    saved = tabulate.MIN_PADDING
    tabulate.MIN_PADDING = header_pad
    try:
        expected = tabulate.tabulate(
            rows, headers=headers, tablefmt=layout, disable_numparse=True, preserve_whitespace=True
        )
    finally:
        tabulate.MIN_PADDING = saved
    assert render_module._tabulate(headers, rows, layout, header_pad) == expected
    drawn = text_table(headers, rows, layout, header_pad)
    assert drawn is None or drawn == expected


def test_a_commands_table_is_drawn_without_tabulate():
    """The occupancy answer's tables (ASCII, 'µs'-style Latin-1 signs) take the fast path, so a
    command that prints one does not pay tabulate's import (issue #13)."""
    headers, rows = ["limiter", "blocks", "time"], [["registers", "8", "97.09 µs"], ["warps ", "", "2 × 3"]]
    assert text_table(headers, rows, "simple", 2) == (
        "limiter    blocks    time\n"
        "---------  --------  --------\n"
        "registers  8         97.09 µs\n"
        "warps                2 × 3"
    )
    assert text_table(["a"], [["x\ty"]], "simple", 2) is None  # a tab: tabulate's to draw
