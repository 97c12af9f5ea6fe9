"""Issue 37's three fuzz classes: the shapes the older generators never made.

- "catalog files": the shipped kernels.yaml with fields removed, retyped, wrapped or nested at
  any depth of one entry, run through `perfcalc run KERNEL --catalog`; the promise of
  fuzz_cases.run_case (exit 0 or one error line, no traceback).
- "options that do not apply": one option of a command, typed with two different valid values
  on a valid base command. Either perfcalc refuses it in one line, or the answers differ: if the
  base, value 1 and value 2 print the same answer, the option was ignored without a word.
- "library arguments of every type": each public function of `perfcalc` called with good
  arguments except one to three, which take a value of another type or range (None, bool,
  bytes, containers, NumPy scalars and arrays, paths, NaN, 2**70, callables ...); it may only
  return or raise perfcalc's own errors (fuzz_cases.run_library_call).
"""

from __future__ import annotations

import copy
import math
import os
import random
import tempfile
import time
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml
from fuzz_cases import (
    BOUND_S,
    NASTY_FLOAT,
    NASTY_INT,
    NASTY_TEXT,
    ROOT,
    Case,
    Outcome,
    _alarm,
    _Hang,
    one_error,
    run_library_call,
)

# --- catalog files ------------------------------------------------------------------------------

_SMALL = {"copy_stride": ["-p", "n=256"], "convolve": ["-p", "n=64"], "transpose_naive": ["-p", "n=32"]}


def _nasty_value(rng: random.Random) -> Any:
    return rng.choice([*NASTY_INT, *NASTY_FLOAT, *NASTY_TEXT[:16], [], {}, None, [1, 2], True, {"a": [1]}, [[]]])


def _mutate_at_depth(node: Any, rng: random.Random) -> None:
    """Walk 0-3 levels down from `node` and change one child there."""
    for _ in range(rng.randint(0, 3)):
        children = list(node.values() if isinstance(node, dict) else node)
        containers = [c for c in children if isinstance(c, dict | list) and c]
        if not containers:
            break
        node = rng.choice(containers)
    keys: list[Any] = list(node) if isinstance(node, dict) else list(range(len(node)))
    if not keys:
        return
    key = rng.choice(keys)
    pick = rng.random()
    if pick < 0.2:
        node.pop(key) if isinstance(node, dict) else node.pop(key)
    elif pick < 0.6:
        node[key] = _nasty_value(rng)
    elif pick < 0.7:
        node[key] = [node[key]]  # a scalar wrapped in a list
    elif pick < 0.8 and isinstance(node[key], list) and node[key]:
        node[key] = node[key][0]  # a list replaced by its first element
    elif pick < 0.9 and isinstance(node, dict):
        node[rng.choice(["extra", "é", "x" * 300])] = 1
    elif isinstance(node[key], int) and not isinstance(node[key], bool):
        node[key] = node[key] * rng.choice([0, -1, 1024, 10**20])
    else:
        node[key] = str(node[key])


def catalog_case(rng: random.Random) -> Case:
    """A catalog file holding one small shipped kernel, changed at 1-3 places of any depth."""
    data = yaml.safe_load((ROOT / "kernels.yaml").read_text())
    name = rng.choice(sorted(_SMALL))
    entry = copy.deepcopy(data["kernels"][name])
    for _ in range(rng.randint(1, 3)):
        _mutate_at_depth(entry, rng)
    data["kernels"] = {name: entry}
    argv = ["run", name, "--catalog", "cat.yaml", *_SMALL[name], "--max-seconds", "10"]
    return Case(argv, {"cat.yaml": yaml.safe_dump(data, allow_unicode=True).encode()})


# --- options that do not apply -------------------------------------------------------------------

_PATTERN_NEEDS = {"aos": ["--struct-size", "16"], "index": ["--index", "lane*3"], "tile-row": ["--tile-width", "8"]}
_PATTERN_NEEDS["tile-column"] = _PATTERN_NEEDS["tile-row"]
_BASES: list[list[str]] = [
    *(
        [command, "--pattern", p, *_PATTERN_NEEDS.get(p, []), *cc]
        for command in ("coalesce", "banks")
        for p in ("stride", "reversed", "permuted", "broadcast", "aos", "tile-row", "tile-column", "random", "index")
        for cc in ([], ["--cc", "9.0"], ["--cc", "3.5"])
    ),
    ["occupancy", "--cc", "9.0", "--block", "256", "--regs", "32"],
    ["occupancy", "--gpu", "h100-sxm", "--block", "256", "--regs", "32"],
    ["occupancy", "--cc", "7.0", "--block", "128", "--regs", "64", "--sweep", "block"],
    ["roofline", "--gpu", "h100-sxm"],
    ["matmul", "--no-simulate", "--width", "64"],
]
# Two valid values of each option that change the answer wherever the option applies.
_PAIRS = {
    "stride": ("2", "33"),
    "word": ("4", "8"),
    "offset": ("1", "7"),
    "base": ("0", "4"),
    "struct_size": ("32", "64"),
    "field_offset": ("4", "8"),
    "tile_width": ("4", "16"),
    "pad": ("1", "5"),
    "row": ("1", "3"),
    "column": ("1", "3"),
    "segment": ("256", "4096"),
    "seed": ("1", "2"),
    "index": ("lane*2", "lane*33"),
    "active": ("1", "f0f0f0f0"),
    "cache": ("l1", "l2"),
    "bank_mode": ("4", "8"),
    "op": ("load", "store"),
    "kernel": ("matmul_naive", "copy_stride"),
    "define": ("A=1", "A=2"),
    "dpi": ("100", "300"),
    "grid": ("1", "100000"),
    "barriers": ("8", "32"),
    "carveout": ("0", "100"),
    "cache_config": ("prefer-shared", "prefer-l1"),
    "smem": ("40000", "100000"),
    "dyn_smem": ("40000", "100000"),
    "intensity": ("0.5", "1000"),
    "param": ("Width=64", "Width=128"),
    "tile": ("8", "32"),
    "regs": ("64", "255"),
    "block": ("64", "1024"),
}


def _options(command: str) -> dict[str, str]:
    """Python name -> the first long spelling of every option of `command` with a value pair."""
    import typer

    from perfcalc.cli import app

    group: Any = typer.main.get_command(app)
    params = group.commands[command].params
    return {p.name: next(o for o in p.opts if o.startswith("--")) for p in params if p.name in _PAIRS}


def _invoke(argv: list[str]) -> Any:
    from typer.testing import CliRunner

    from perfcalc.cli import app

    with tempfile.TemporaryDirectory() as tmp:
        here = os.getcwd()
        os.chdir(tmp)
        try:
            return CliRunner().invoke(app, argv)
        finally:
            os.chdir(here)


def relevance_check(rng: random.Random, bound_s: int = BOUND_S) -> Outcome:
    base = rng.choice(_BASES)
    options = _options(base[0])
    name = rng.choice(sorted(options))
    spelled, start = options[name], time.monotonic()
    runs = []
    try:
        with _alarm(bound_s):
            for extra in ([], [spelled, _PAIRS[name][0]], [spelled, _PAIRS[name][1]]):
                runs.append(_invoke([*base, *extra, "--format", "json"]))
    except _Hang:
        return Outcome(False, f"hang: {' '.join(base)} {spelled}", time.monotonic() - start)
    seconds = time.monotonic() - start
    for result in runs:
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            return Outcome(False, f"traceback: {type(result.exception).__name__} ({' '.join(base)} {spelled})", seconds)
        if result.exit_code not in (0, 2) or (result.exit_code == 2 and not one_error(result.stderr)):
            return Outcome(False, f"exit {result.exit_code}: {result.stderr[:200]!r}", seconds)
    if runs[0].exit_code:
        return Outcome(False, f"the base command fails: {' '.join(base)}: {runs[0].stderr[:200]}", seconds)
    if any(r.exit_code == 2 for r in runs[1:]):
        return Outcome(True, "refused", seconds)
    if runs[0].stdout == runs[1].stdout == runs[2].stdout:
        return Outcome(False, f"ignored without a word: {' '.join(base)} {spelled}", seconds)
    return Outcome(True, "taken", seconds)


# --- library arguments of every type --------------------------------------------------------------

_KERNEL = "__global__ void k(float* x, float s, int n) { int i = threadIdx.x; if (i < n) x[i] = s * x[i]; }\n"


def _wrong_values() -> list[Any]:
    import numpy as np

    return [
        None,
        True,
        False,
        0,
        -1,
        2**70,
        -(2**70),
        10**400,
        2**31,
        -(2**31),
        10**9,
        1.5,
        -1.5,
        0.0,
        1e300,
        math.nan,
        math.inf,
        -math.inf,
        "",
        "x",
        "9.0",
        "sm_90",
        "h100-sxm",
        "-1",
        "1e400",
        "x" * 5000,
        "\x00",
        b"9.0",
        [],
        [1],
        ["a", None],
        {},
        {"a": 1},
        {1: object()},
        (),
        (1, 2, 3, 4),
        set(),
        frozenset({1}),
        object(),
        1 + 2j,
        Fraction(1, 3),
        Decimal("1.5"),
        range(3),
        Path("/nonexistent/x.cu"),
        Path("."),
        np.int64(5),
        np.int8(-3),
        np.float32(1.5),
        np.float64("nan"),
        np.bool_(True),
        np.arange(32),
        np.zeros((2, 2)),
        np.array(["a"]),
        np.array([], dtype=np.float32),
        lambda *args, **kwargs: None,  # a callable: where a callback is taken, the user's own
        Ellipsis,
    ]


def _good_calls(folder: Path) -> dict[str, tuple[Callable[..., Any], dict[str, Any]]]:
    """Every public function and argument class of perfcalc, with good keyword arguments."""
    import numpy as np

    import perfcalc
    from perfcalc.specs.target import resolve_target

    source = folder / "k.cu"
    source.write_text(_KERNEL)
    ptxas = folder / "k.log"
    ptxas.write_text(
        "ptxas info    : Compiling entry function '_Z1kPffi' for 'sm_90'\n"
        "ptxas info    : Used 8 registers, 368 bytes cmem[0]\n"
    )
    x = np.arange(32, dtype=np.float32)
    return {
        "occupancy": (perfcalc.occupancy, {"cc": "9.0", "block_size": 256, "registers_per_thread": 32}),
        "suggest_block_size": (perfcalc.suggest_block_size, {"cc": "9.0", "registers_per_thread": 32}),
        "read_ptxas": (perfcalc.read_ptxas, {"log": ptxas}),
        "global_access": (perfcalc.global_access, {"cc": "9.0", "addresses": np.arange(32) * 4, "size": 4}),
        "shared_access": (perfcalc.shared_access, {"cc": "9.0", "addresses": np.arange(32) * 4, "size": 4}),
        "run_kernel": (
            perfcalc.run_kernel,
            {
                "source": _KERNEL,
                "kernel": "k",
                "grid": 1,
                "block": 32,
                "args": {"x": x, "s": 2.0, "n": 32},
                "arch": "9.0",
                "max_seconds": 10,
            },
        ),
        "roofline": (perfcalc.roofline, {"gpu": "h100-sxm"}),
        "matmul": (perfcalc.matmul, {"width": 64, "tile": 16, "gpu": "h100-sxm"}),
        "predict_time": (
            perfcalc.predict_time,
            {
                "source": source,
                "kernel": "k",
                "grid": 1,
                "block": 32,
                "arrays": ("x=float32:32",),
                "params": {"s": 2.0, "n": 32},
                "engine": "source",
            },
        ),
        "analyze": (
            perfcalc.analyze,
            {
                "kernel": perfcalc.CatalogKernel("copy_stride", {"n": 256}),
                "targets": resolve_target("9.0"),
                "options": perfcalc.RunOptions(engine="source", max_seconds=10),
            },
        ),
        "CatalogKernel": (perfcalc.CatalogKernel, {"name": "copy_stride", "params": {"n": 256}}),
        "SourceKernel": (
            perfcalc.SourceKernel,
            {
                "path": source,
                "kernel": "k",
                "grid": 1,
                "block": 32,
                "arrays": ("x=float32:32",),
                "scalars": {"s": 2.0, "n": 32},
            },
        ),
        "RunOptions": (perfcalc.RunOptions, {"engine": "source", "max_seconds": 10}),
        "device": (perfcalc.device, {"name": "9.0"}),
        "product": (perfcalc.product, {"name": "h100-sxm"}),
        "get_arch": (perfcalc.get_arch, {"cc": "9.0"}),
        "demangle": (perfcalc.demangle, {"name": "_Z1kPffi"}),
    }


_FOLDER: list[Path] = []


def library_type_call(rng: random.Random) -> Callable[[], object]:
    """A public function or argument class with 1-3 of its parameters of another type or range;
    an argument object built from bad values is also passed on to analyze (where it is used)."""
    import inspect

    import perfcalc
    from perfcalc.specs.target import resolve_target

    if not _FOLDER:  # one folder for the process's source and ptxas files, removed at its exit
        import atexit
        import shutil

        _FOLDER.append(Path(tempfile.mkdtemp(prefix="perfcalc-fuzz-")))
        atexit.register(shutil.rmtree, _FOLDER[0], True)
    calls = _good_calls(_FOLDER[0])
    name = rng.choice(sorted(calls))
    function, good = calls[name]
    params = list(inspect.signature(function).parameters)
    kwargs = dict(good)
    scalars = [key for key in ("args", "params", "scalars") if key in good]
    for param in rng.sample(params, k=min(len(params), rng.randint(0 if scalars else 1, 3))):
        kwargs[param] = rng.choice(_wrong_values())
    for key in scalars:  # a kernel's scalar of any value or type (alone, where nothing else changed)
        unchanged = all(kwargs[k] is v for k, v in good.items()) and len(kwargs) == len(good)
        if kwargs[key] is good[key] and (unchanged or rng.random() < 0.5):
            kwargs[key] = {**good[key], rng.choice(["s", "n"]): rng.choice(_wrong_values())}

    def call() -> object:
        made = function(**kwargs)
        if name in ("CatalogKernel", "SourceKernel"):
            options = perfcalc.RunOptions(engine="source", budget_s=2.0, max_seconds=10)
            return perfcalc.analyze(made, resolve_target("9.0"), options)
        if name == "RunOptions":
            return perfcalc.analyze(perfcalc.CatalogKernel("copy_stride", {"n": 256}), resolve_target("9.0"), made)
        return made

    return call


def library_type_check(rng: random.Random) -> Outcome:
    return run_library_call(library_type_call(rng))


CASES: dict[str, Callable[[random.Random], Case]] = {"catalog files": catalog_case}
CHECKS: dict[str, Callable[[random.Random], Outcome]] = {
    "options that do not apply": relevance_check,
    "library arguments of every type": library_type_check,
}
