"""Argument types checked where a library call enters perfcalc (issue 37), from the annotations
mypy already checks inside: a caller who passes `source_name=None` or `targets="9.0"` gets an
InputError naming the argument, what it takes and what came, instead of an AttributeError from
three layers down. Ranges stay each function's own check; this is only the types.

What the check accepts: `int` and `float` take any real number but bool (NumPy's too; whether
an int is whole and in range is the function's own check, in its own words), `str` text, `Path`
a str or os.PathLike, containers their kind with each item checked, unions any member,
`Any`/`object` and names that cannot be resolved at run time everything.
"""

from __future__ import annotations

import collections.abc as abc
import dataclasses
import functools
import inspect
import numbers
import os
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from perfcalc.errors import InputError

F = TypeVar("F", bound=Callable[..., Any])
_ANYTHING = object()  # an annotation that takes every value


def _accepts(hint: Any, value: Any) -> bool:
    if hint is _ANYTHING or hint is Any or hint is object:
        return True
    if hint is None or hint is type(None):
        return value is None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_accepts(h, value) for h in typing.get_args(hint))
    if origin is typing.Literal:
        return value in typing.get_args(hint)
    if hint is bool:
        return isinstance(value, bool | _numpy_bool())
    if hint is int or hint is float:  # a whole float for an int: the function's own check words it
        return isinstance(value, numbers.Real) and not isinstance(value, bool | _numpy_bool())
    if hint is Path:
        return isinstance(value, str | os.PathLike)
    if origin is not None:
        return _accepts_container(origin, typing.get_args(hint), value)
    if isinstance(hint, type):
        return isinstance(value, hint)
    return True  # a TypeVar, a Protocol, a string that did not resolve: not checked here


def _accepts_container(origin: Any, args: tuple[Any, ...], value: Any) -> bool:
    if origin in (abc.Callable, typing.Callable):
        return callable(value)
    if origin is type:
        return isinstance(value, type)
    if not isinstance(value, origin) or isinstance(value, str | bytes) and origin is not str:
        return False
    if origin in (dict, abc.Mapping, abc.MutableMapping) and len(args) == 2:
        return all(_accepts(args[0], k) and _accepts(args[1], v) for k, v in value.items())
    if origin is tuple and args and args[-1] is not Ellipsis:
        return len(value) == len(args) and all(_accepts(a, v) for a, v in zip(args, value, strict=True))
    if args and origin in (tuple, list, set, frozenset, abc.Sequence, abc.Iterable, abc.Collection):
        return all(_accepts(args[0], v) for v in value)
    return True


@functools.cache
def _numpy_bool() -> type:
    import numpy as np

    return np.bool_


def _describe(hint: Any) -> str:
    text = str(hint).replace("typing.", "").replace("collections.abc.", "").replace("pathlib.", "")
    return text.replace("NoneType", "None").replace("perfcalc.", "").replace("<class '", "").replace("'>", "")


def _shown(value: Any) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text[:40]}{'...' if len(text) > 40 else ''}"


@functools.cache
def _hints(owner: Any) -> dict[str, Any]:
    """The annotations of a function's parameters or a class's fields, each resolved alone (one
    unresolvable name, imported for the type checker only, skips one check)."""
    module = sys.modules.get(owner.__module__)
    namespace = dict(vars(module)) if module is not None else {}
    raw: dict[str, Any] = _class_annotations(owner) if isinstance(owner, type) else dict(owner.__annotations__)
    resolved = {}
    for name, text in raw.items():
        if name == "return":
            continue
        try:
            resolved[name] = eval(text, namespace) if isinstance(text, str) else text  # noqa: S307 - own annotations
        except Exception:  # noqa: BLE001
            resolved[name] = _ANYTHING
    return resolved


def _class_annotations(cls: type) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for base in reversed(cls.__mro__):
        found.update(base.__dict__.get("__annotations__", {}))
    return found


def check_argument(where: str, name: str, hint: Any, value: Any) -> None:
    if not _accepts(hint, value):
        raise InputError(f"{where}: {name} takes {_describe(hint)}, not {_shown(value)}")


def checked_arguments(function: F) -> F:
    """`function` with every argument's type checked against its annotation on entry."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise InputError(f"{function.__name__}: {exc}") from None
        hints = _hints(function)
        for name, value in bound.arguments.items():
            if name in hints:
                check_argument(function.__name__, name, hints[name], value)
        return function(*args, **kwargs)

    return typing.cast(F, call)


def check_fields(instance: Any) -> None:
    """A dataclass's fields checked against their annotations (call from __post_init__)."""
    hints = _hints(typing.cast(Any, type(instance)))
    for f in dataclasses.fields(instance):
        if f.name in hints:
            check_argument(type(instance).__name__, f.name, hints[f.name], getattr(instance, f.name))
