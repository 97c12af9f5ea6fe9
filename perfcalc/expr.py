"""Safe arithmetic expressions for data files and options (`Width / TILE_WIDTH`, `lane*2+1`).

Parsed with Python's `ast` and evaluated by walking a whitelist of node types: there is no
`eval`, no attribute access, no subscripts and no calls except the named functions below, so a
kernel file or a command-line option cannot run code. Values may be ints, floats or NumPy
arrays (a lane index, say); the operators then broadcast.
"""

from __future__ import annotations

import ast
import functools
import math
import operator
from collections.abc import Callable, Mapping
from functools import lru_cache
from types import ModuleType
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


def _np() -> ModuleType:
    """NumPy, imported on first use (a formula over plain numbers never loads it)."""
    import numpy

    return numpy


def _is_array(value: Value) -> bool:
    return hasattr(value, "shape") and getattr(value, "shape", ()) != ()


def _ceil(x: Value) -> Value:
    return _np().ceil(x).astype(int) if _is_array(x) else math.ceil(x)


def _floor(x: Value) -> Value:
    return _np().floor(x).astype(int) if _is_array(x) else math.floor(x)


def _ceil_div(a: Value, b: Value) -> Value:
    if _any_zero(b):
        raise ArithmeticError("divides by zero")
    return -((-a) // b)


def _min(*xs: Value) -> Value:
    return functools.reduce(_np().minimum, xs) if any(map(_is_array, xs)) else min(xs)


def _max(*xs: Value) -> Value:
    return functools.reduce(_np().maximum, xs) if any(map(_is_array, xs)) else max(xs)


def _log2(x: Value) -> Value:
    if bool((_np().asarray(x) <= 0).any()):
        raise ArithmeticError("log2 of a value <= 0")
    return _np().log2(x) if _is_array(x) else math.log2(x)


def _sqrt(x: Value) -> Value:
    if bool((_np().asarray(x) < 0).any()):
        raise ArithmeticError("sqrt of a negative value")
    return _np().sqrt(x) if _is_array(x) else math.sqrt(x)


MAX_EXPONENT = 64
# Every value, intermediate ones included, must fit a signed 64-bit integer (what an index, a
# size or a parameter becomes); a bigger one would wrap silently in NumPy or take unbounded
# time and memory as a Python integer ((3**64)**64 ...).
MAX_MAGNITUDE = 2**63 - 1
MAX_TEXT = 4096  # characters of one expression
MAX_DEPTH = 100  # nesting of operators and calls (the evaluator recurses)


def _any_zero(value: Value) -> bool:
    return bool((_np().asarray(value) == 0).any()) if _is_array(value) else value == 0


def _too_large_exponent(value: Value) -> bool:
    return bool((_np().abs(_np().asarray(value)) > MAX_EXPONENT).any())


# (fewest, most) arguments of each function; None = any number.
_ARITY: dict[str, tuple[int, int | None]] = {
    "min": (1, None),
    "max": (1, None),
    "abs": (1, 1),
    "ceil": (1, 1),
    "floor": (1, 1),
    "ceil_div": (2, 2),
    "log2": (1, 1),
    "sqrt": (1, 1),
}

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


def shorten(text: str, limit: int = 60) -> str:
    """`text` quoted for an error line: control characters escaped, long text cut in the middle."""
    quoted = repr(text)
    return quoted if len(quoted) <= limit else f"{quoted[: limit // 2]}...{quoted[-limit // 2 :]}"


@lru_cache(maxsize=1024)
def _parse(text: str) -> ast.Expression:
    if len(text) > MAX_TEXT:
        raise InputError(f"expression {shorten(text)} is {len(text)} characters long; the limit is {MAX_TEXT}")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except (SyntaxError, RecursionError, MemoryError, ValueError) as exc:
        col = (getattr(exc, "offset", None) or 1) - 1
        msg = getattr(exc, "msg", None) or "too deeply nested"
        raise InputError(f"cannot parse expression {shorten(text)} at column {col + 1}: {msg}") from None
    depth = _depth(tree)
    if depth > MAX_DEPTH:
        raise InputError(f"expression {shorten(text)} nests {depth} levels deep; the limit is {MAX_DEPTH}")
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
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            low, high = _ARITY[node.func.id]
            if len(node.args) < low or (high is not None and len(node.args) > high):
                wanted = f"{low}" if low == high else f"at least {low}" if high is None else f"{low} to {high}"
                raise InputError(
                    f"expression {text!r}: {node.func.id}() takes {wanted} argument(s), not {len(node.args)}"
                )
        if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)):
            raise InputError(f"expression {text!r}: constant {node.value!r} is not a number")
        if isinstance(node, ast.Constant):
            _Evaluator(text, {})._check_magnitude(node.value)
    return tree


_ALLOWED_NODES = (
    ast.Expression,
    ast.BinOp,
    ast.UnaryOp,
    ast.BoolOp,
    ast.Compare,
    ast.IfExp,
    ast.Call,
    ast.Name,
    ast.Load,
    ast.Constant,
    ast.USub,
    ast.UAdd,
    ast.Not,
    ast.Invert,
    ast.And,
    ast.Or,
    *_BINARY,
    *_COMPARE,
)


def _depth(tree: ast.AST) -> int:
    """Deepest nesting of `tree`, found without recursion (the tree may be very deep)."""
    deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


_LEAVES = (ast.Constant, ast.Name)


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
    names = names or {}
    evaluator = _Evaluator(str(text), names)
    try:
        with _np().errstate(all="raise"):
            value = evaluator.visit(tree.body)
        evaluator._check_magnitude(value)  # a bare name
        return value
    except InputError:
        raise
    except (ArithmeticError, ValueError, TypeError) as exc:
        # log2(0), sqrt(-1), ~1.5, lane**-1, an overflow: the expression, not perfcalc, is wrong.
        raise InputError(f"expression {shorten(str(text))}: {exc}") from None


class _Evaluator:
    def __init__(self, text: str, names: Mapping[str, Value]):
        self.text = text
        self.names = names

    def visit(self, node: ast.AST) -> Value:
        value = getattr(self, "visit_" + type(node).__name__)(node)
        if not isinstance(node, _LEAVES):  # constants are checked when parsed, names at the end
            self._check_magnitude(value)
        return value

    def _check_magnitude(self, value: Value) -> None:
        """Every value is finite and fits int64. Signed integer arrays fit by construction
        (`_check_wrap` bounds their arithmetic before it runs), so only floats, unsigned arrays
        and Python integers are looked at: this runs at every node of every evaluation."""
        if _is_array(value):
            kind = value.dtype.kind
            if kind == "f":
                finite = bool(_np().isfinite(value).all())
                biggest = 0
            else:
                finite = True
                biggest = int(value.max()) if kind == "u" and value.size else 0
        elif isinstance(value, float):
            finite, biggest = math.isfinite(value), 0
        elif isinstance(value, int):
            finite, biggest = True, abs(value)
        elif isinstance(value, complex):  # (-8) ** (1/3): Python's power gives a complex root
            raise InputError(f"expression {shorten(self.text)} produces a complex number ({value:.3g})")
        else:
            return
        if not finite:
            raise InputError(f"expression {shorten(self.text)} produces a value that is not finite")
        if biggest > MAX_MAGNITUDE:
            size = f"{biggest:.3g}" if biggest < 1e300 else f"a {int(biggest).bit_length()}-bit number"
            raise InputError(
                f"expression {shorten(self.text)} produces {size}, beyond "
                f"the limit of 2**63 - 1 (a signed 64-bit integer)"
            )

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
            raise InputError(
                f"expression {self.text!r}: exponent or shift {right!r} exceeds the "
                f"limit of {MAX_EXPONENT} (keeps every value a machine-size number)"
            )
        if isinstance(node.op, (ast.LShift, ast.RShift)) and bool((_np().asarray(right) < 0).any()):
            raise InputError(f"expression {shorten(self.text)} shifts by a negative count, which C leaves undefined")
        if isinstance(node.op, ast.Pow):
            self._check_power(left, right)
        elif isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.LShift)):
            self._check_wrap(node.op, left, right)
        return _BINARY[type(node.op)](left, right)

    def _check_wrap(self, op: ast.operator, left: Value, right: Value) -> None:
        """NumPy integer arrays wrap silently: bound the result before computing it."""
        np = _np()
        if not any(_is_array(v) and v.dtype.kind in "iu" for v in (left, right)):
            return  # Python integers are exact; visit() checks the result
        a = float(np.abs(np.asarray(left, dtype=float)).max(initial=0.0))
        b = float(np.abs(np.asarray(right, dtype=float)).max(initial=0.0))
        bound = a * 2.0**b if isinstance(op, ast.LShift) else a * b if isinstance(op, ast.Mult) else a + b
        if bound > MAX_MAGNITUDE:
            raise InputError(
                f"expression {shorten(self.text)} may produce {bound:.3g}, beyond the "
                "limit of 2**63 - 1 (a signed 64-bit integer)"
            )

    def _check_power(self, base: Value, exponent: Value) -> None:
        """Refuse a power whose result cannot fit before computing it (3**64 is fine, 3**64**64 not)."""
        np = _np()
        exp = np.asarray(exponent)
        if exp.dtype.kind in "iu" and np.asarray(base).dtype.kind in "iub" and bool((exp < 0).any()):
            raise InputError(f"expression {shorten(self.text)} raises an integer to a negative power")
        largest = float(np.abs(np.asarray(base, dtype=float)).max()) if np.size(base) else 0.0
        if largest > 1 and float(np.max(exp)) * math.log2(largest) > 63:
            raise InputError(
                f"expression {shorten(self.text)}: a power beyond the limit of 2**63 - 1 (a signed 64-bit integer)"
            )

    def visit_UnaryOp(self, node: ast.UnaryOp) -> Value:
        value = self.visit(node.operand)
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return +value
        if isinstance(node.op, ast.Invert):
            if isinstance(value, float) or (_is_array(value) and value.dtype.kind == "f"):
                raise InputError(f"expression {shorten(self.text)}: ~ needs an integer")
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
        assert isinstance(node.func, ast.Name)  # _parse admits calls of named functions only
        return FUNCTIONS[node.func.id](*args)
