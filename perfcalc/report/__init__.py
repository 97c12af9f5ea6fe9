"""Formatting and output: the only layer that imports tabulate (lazily) or matplotlib."""

from perfcalc.report.output import all_or_nothing, check_writable, emit, write_atomic
from perfcalc.report.render import FORMATS, render, to_jsonable
from perfcalc.report.table import Table
from perfcalc.units import format_value

__all__ = [
    "FORMATS",
    "Table",
    "all_or_nothing",
    "check_writable",
    "emit",
    "format_value",
    "render",
    "to_jsonable",
    "write_atomic",
]
