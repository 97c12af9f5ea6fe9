"""One renderer for every command: tables round, CSV and JSON stay exact."""

import csv
import io
import json
from dataclasses import dataclass

import numpy as np

from perfcalc.report import Table, render


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


def test_csv_of_several_tables_keeps_each_header():
    other = Table(columns=["a"], rows=[{"a": [1, 2]}], title="U")
    text = render([TABLE, other], "csv")
    assert text.startswith("# T\nname,value\n")
    assert "# U\na\n1;2\n" in text
    first = text.split("\n\n")[0].split("\n", 1)[1]
    assert list(csv.DictReader(io.StringIO(first)))[0]["name"] == "occupancy"


def test_markdown_has_title_and_pipe_table():
    text = render(TABLE, "markdown")
    assert text.startswith("## T\n\n| name")
