"""Safe arithmetic expressions for data files and options (`Width / TILE_WIDTH`, `lane*2+1`).

Parsed with Python's `ast` and evaluated by walking a whitelist of node types: there is no
`eval`, no attribute access, no subscripts and no calls except the named functions below, so a
kernel file or a command-line option cannot run code. Values may be ints, floats or NumPy
arrays (a lane index, say); the operators then broadcast.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from perfcalc.errors import InputError

Value = Any  # int | float | bool | numpy.ndarray

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
}


def _np():
    import numpy

    return numpy


def _is_array(value: Value) -> bool:
    return hasattr(value, "shape") and getattr(value, "shape", ()) != ()


def _ceil(x: Value) -> Value:
    return _np().ceil(x).astype(int) if _is_array(x) else math.ceil(x)


def _floor(x: Value) -> Value:
    return _np().floor(x).astype(int) if _is_array(x) else math.floor(x)


def _ceil_div(a: Value, b: Value) -> Value:
    return -((-a) // b)


def _min(*xs: Value) -> Value:
    return _np().minimum.reduce(xs) if any(map(_is_array, xs)) else min(xs)


def _max(*xs: Value) -> Value:
    return _np().maximum.reduce(xs) if any(map(_is_array, xs)) else max(xs)


def _log2(x: Value) -> Value:
    return _np().log2(x) if _is_array(x) else math.log2(x)


def _sqrt(x: Value) -> Value:
    return _np().sqrt(x) if _is_array(x) else math.sqrt(x)


MAX_EXPONENT = 64


def _any_zero(value: Value) -> bool:
    return bool((_np().asarray(value) == 0).any()) if _is_array(value) else value == 0


def _too_large_exponent(value: Value) -> bool:
    return bool((_np().abs(_np().asarray(value)) > MAX_EXPONENT).any())


FUNCTIONS: dict[str, Callable[..., Value]] = {
    "min": _min,
    "max": _max,
    "abs": abs,
    "ceil": _ceil,
    "floor": _floor,
    "ceil_div": _ceil_div,
    "log2": _log2,
    "sqrt": _sqrt,
}


@lru_cache(maxsize=1024)
def _parse(text: str) -> ast.expression:
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        col = (exc.offset or 1) - 1
        raise InputError(f"cannot parse expression {text!r} at column {col + 1}: {exc.msg}") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise InputError(
                f"expression {text!r} uses {type(node).__name__}, which is not allowed "
                f"(arithmetic, comparisons, 'x if c else y' and {', '.join(FUNCTIONS)} only)"
            )
        if isinstance(node, ast.Call) and not (
            isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS and not node.keywords
        ):
            raise InputError(f"expression {text!r}: only calls of {', '.join(FUNCTIONS)} are allowed")
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)):
            raise InputError(f"expression {text!r}: constant {node.value!r} is not a number")
    return tree


_ALLOWED_NODES = (
    ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Call,
    ast.Name, ast.Load, ast.Constant, ast.USub, ast.UAdd, ast.Not, ast.Invert, ast.And, ast.Or,
    *_BINARY, *_COMPARE,
)


def names_in(text: str) -> set[str]:
    """Identifiers an expression refers to (function names excluded)."""
    tree = _parse(text)
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in called}


def evaluate(text: str | int | float, names: Mapping[str, Value] | None = None) -> Value:
    """Value of `text` with `names` bound; numbers pass through unchanged."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        return text
    tree = _parse(str(text))
    return _Evaluator(str(text), names or {}).visit(tree.body)


class _Evaluator:
    def __init__(self, text: str, names: Mapping[str, Value]):
        self.text = text
        self.names = names

    def visit(self, node: ast.AST) -> Value:
        return getattr(self, "visit_" + type(node).__name__)(node)

    def visit_Constant(self, node: ast.Constant) -> Value:
        return node.value

    def visit_Name(self, node: ast.Name) -> Value:
        if node.id not in self.names:
            known = ", ".join(sorted(self.names)) or "none"
            raise InputError(f"expression {self.text!r}: unknown name {node.id!r} (known: {known})")
        return self.names[node.id]

    def visit_BinOp(self, node: ast.BinOp) -> Value:
        left, right = self.visit(node.left), self.visit(node.right)
        if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and _any_zero(right):
            # NumPy arrays divide by zero with a warning and a wrong value, never an exception.
            raise InputError(f"expression {self.text!r} divides by zero")
        if isinstance(node.op, (ast.Pow, ast.LShift)) and _too_large_exponent(right):
            raise InputError(f"expression {self.text!r}: exponent or shift {right!r} exceeds the "
                             f"limit of {MAX_EXPONENT} (keeps every value a machine-size number)")
        return _BINARY[type(node.op)](left, right)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Value:
        value = self.visit(node.operand)
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return +value
        if isinstance(node.op, ast.Invert):
            return ~value
        return _np().logical_not(value) if _is_array(value) else not value

    def visit_BoolOp(self, node: ast.BoolOp) -> Value:
        values = [self.visit(v) for v in node.values]
        if any(map(_is_array, values)):
            combine = _np().logical_and if isinstance(node.op, ast.And) else _np().logical_or
            return combine.reduce(values)
        return all(values) if isinstance(node.op, ast.And) else any(values)

    def visit_Compare(self, node: ast.Compare) -> Value:
        left = self.visit(node.left)
        result: Value = True
        for op, right_node in zip(node.ops, node.comparators, strict=True):
            right = self.visit(right_node)
            step = _COMPARE[type(op)](left, right)
            result = step if result is True else (result & step)
            left = right
        return result

    def visit_IfExp(self, node: ast.IfExp) -> Value:
        cond = self.visit(node.test)
        if _is_array(cond):
            return _np().where(cond, self.visit(node.body), self.visit(node.orelse))
        return self.visit(node.body) if cond else self.visit(node.orelse)

    def visit_Call(self, node: ast.Call) -> Value:
        args = [self.visit(a) for a in node.args]
        return FUNCTIONS[node.func.id](*args)
