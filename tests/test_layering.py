"""The package's structure as DESIGN.md states it (issue 29): no import cycle, type-only and lazy
imports included; each layer imports only the layers below it; cli/ reaches model/ and sim/
only through analysis/; model/ and sim/ never import each other; nothing below cli/ imports
typer, nothing below report/ imports tabulate, rich or matplotlib.

Read from the source with `ast`, every import statement wherever it stands (inside functions,
under `if TYPE_CHECKING:`). `from X import Y` is an edge to X.Y where that is a module, else to
X. A package's own __init__ running before its submodules is Python's mechanism, not an edge.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "perfcalc"

# highest first; a module may import its own layer and any layer after it in this list
# "entry": the package's public face (`import perfcalc`'s lazy names, `python -m perfcalc`, the
# library functions of api.py); "base": what every layer may use (errors, safe file reading, the
# expression evaluator, result mix-ins, the cache on disk)
LAYERS = ["entry", "cli", "report", "app", "tune", "analysis", "model|sim", "memory", "specs", "base"]
ENTRY = {"__init__", "__main__", "api"}
BASE = {
    "arguments",
    "units",
    "errors",
    "files",
    "expr",
    "results",
    "diskcache",
    "limits",
    "_version",
    "defaults",
    "suggest",
}


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")
                parent = parent[: len(parent) - node.level + 1]
                base = ".".join([*parent, base] if base else parent)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in MODULES else base)
    return {m for m in found if m in MODULES and m != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return found


def _top(module: str) -> str:
    """perfcalc.sim.ptx.run -> 'sim'; the package itself -> '__init__'."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def layer(module: str) -> int:
    top = _top(module)
    if top in ENTRY:
        return LAYERS.index("entry")
    if top in BASE:
        return LAYERS.index("base")
    for i, name in enumerate(LAYERS):
        if top in name.split("|"):
            return i
    raise AssertionError(f"{module} is in no layer of DESIGN.md")


def test_the_walk_sees_imports_inside_functions():
    """A check of the reader itself: cli/run.py's imports are all inside functions."""
    assert any(m.startswith("perfcalc.analysis") for m in GRAPH["perfcalc.cli.run"])


def test_no_import_cycle():
    assert _cycles() == []


def test_every_import_goes_down_the_layers():
    up = sorted(
        (module, target) for module, targets in GRAPH.items() for target in targets if layer(target) < layer(module)
    )
    assert up == []


def test_cli_reaches_model_and_sim_only_through_analysis():
    direct = sorted(
        (module, target)
        for module, targets in GRAPH.items()
        if module.startswith("perfcalc.cli")
        for target in targets
        if target.startswith(("perfcalc.model", "perfcalc.sim"))
    )
    assert direct == []


def test_model_and_sim_never_import_each_other():
    crossing = sorted(
        (module, target)
        for module, targets in GRAPH.items()
        for target in targets
        if {_top(module), _top(target)} == {"model", "sim"}
    )
    assert crossing == []


def _third_party(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_presentation_libraries_stay_in_their_layers():
    wrong = []
    for name, path in MODULES.items():
        used = _third_party(path)
        if layer(name) > LAYERS.index("cli") and "typer" in used:
            wrong.append((name, "typer"))
        if layer(name) > LAYERS.index("report"):
            wrong += [(name, lib) for lib in ("tabulate", "rich", "matplotlib") if lib in used]
    assert wrong == []


def test_front_end_functions_and_command_modules_stay_short():
    """Issue 29's size rules, so a command does not grow back into the 200-line functions it
    replaced: no function of cli/ or report/ over 80 lines, no command module over 300."""
    package = PACKAGE
    long_functions = []
    for layer in ("cli", "report"):
        for path in sorted((package / layer).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    length = (node.end_lineno or node.lineno) - node.lineno + 1
                    if length > 80:
                        long_functions.append(f"{layer}/{path.name}:{node.name} {length} lines")
    long_commands = [
        f"cli/{p.name} {n} lines"
        for p in sorted((package / "cli").glob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 300
    ]
    assert long_functions == [] and long_commands == []
