"""Front end: CUDA C subset text -> pycparser C AST, with line/column-exact error messages.

Choice (execution.md §2.4, §3.5): pycparser 3.12 after a small textual pre-pass, not a
hand-written parser. Measured there: all five teaching kernels parse in 1.7-2.6 ms once the
pre-pass has removed what pycparser cannot take (comments, directives, CUDA qualifiers, CUDA type
names). pycparser is pure Python, already a dependency, and gives every node a (line, column),
which the simulator needs for per-line counters and fault reports. Its limits (no C++, no
function-like macros) are outside the issue's subset anyway, and are refused here by name.

The pre-pass keeps line numbers and, wherever possible, columns:
* comments become spaces;
* directives: object-like `#define` (expanded textually, exactly as cpp would, recursively, a
  macro never re-expanding inside itself), `#undef`, `#ifdef/#ifndef/#else/#endif`, `#include`
  and `#pragma unroll|once` (dropped); any other directive is refused by name;
* CUDA qualifiers become C storage classes of the *same length* (so columns stay exact):
  `__global__`->`extern`, `__device__`->`static`, `__shared__`->`auto`,
  `extern __shared__`->`extern auto`, `__constant__`->`register`, `__restrict__`->`restrict`.
  Because a user may not write `static`, `auto`, `register` or `extern` themselves (refused by
  name), the storage class identifies the CUDA space unambiguously;
* a typedef prelude declares the CUDA type names (size_t, float2/3/4, int2/4, ...), followed by
  `#line 1` so pycparser's coordinates are the user's lines.
Macro expansion shifts columns; a per-line map translates pycparser columns back.

Caller-given `defines` act like `-D` but also replace a `#define` of the same name in the text
(the catalog varies TILE_WIDTH in seed sources that define it), so a run can never silently use
a different value from the one the caller asked for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pycparser import c_ast, c_parser
from pycparser.c_parser import ParseError

from perfcalc.errors import CudaSyntaxError
from perfcalc.specs.types import ELEMENT_TYPES

# CUDA's vector types, from the one type table (specs/types.py), plus dim3.
VECTOR_TYPE_NAMES = (*(name for name, t in ELEMENT_TYPES.items() if t.is_vector), "dim3")
_PRELUDE_TYPES = ("size_t", "bool") + VECTOR_TYPE_NAMES
_PRELUDE = "".join(f"typedef int {n};" for n in dict.fromkeys(_PRELUDE_TYPES))

# C++ and other words pycparser would misreport; refused by name before parsing.
_REFUSED_WORDS = {
    "template": "C++ templates",
    "typename": "C++ templates",
    "class": "C++ classes",
    "namespace": "C++ namespaces",
    "using": "C++ 'using'",
    "new": "C++ 'new'",
    "delete": "C++ 'delete'",
    "operator": "C++ operator overloading",
    "constexpr": "C++ constexpr",
    "auto": "'auto'",
    "static": "a user-written 'static' (only CUDA's __shared__/__device__ are simulated)",
    "register": "a user-written 'register'",
    "__managed__": "__managed__ variables",
    "__host__": None,  # dropped: __host__ __device__ functions run as device functions
    "__forceinline__": None,
    "__noinline__": None,
    "__inline__": None,
    "inline": None,
}

_QUALIFIERS = [
    (re.compile(r"\bextern(\s+)__shared__"), lambda m: "extern" + m.group(1) + "auto      "),
    (re.compile(r"\b__device__(\s+)__shared__"), lambda m: " " * 10 + m.group(1) + "auto      "),
    (re.compile(r"\b__device__(\s+)__constant__"), lambda m: " " * 10 + m.group(1) + "register    "),
    (re.compile(r"\b__shared__(\s+)__device__"), lambda m: "auto      " + m.group(1) + " " * 10),
    (re.compile(r"\b__constant__(\s+)__device__"), lambda m: "register    " + m.group(1) + " " * 10),
    (re.compile(r"\b__global__"), lambda m: "extern    "),
    (re.compile(r"\b__device__"), lambda m: "static    "),
    (re.compile(r"\b__shared__"), lambda m: "auto      "),
    (re.compile(r"\b__constant__"), lambda m: "register    "),
    (re.compile(r"\b__restrict__"), lambda m: "restrict    "),
]
_LAUNCH_BOUNDS = re.compile(r"\b__launch_bounds__\s*\([^()]*\)")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_DIRECTIVE = re.compile(r"^\s*#\s*(\w*)(.*)$")


@dataclass(frozen=True)
class ParsedSource:
    """The pycparser AST of one source plus what error messages need to quote it."""

    ast: c_ast.FileAST
    source_name: str
    lines: tuple[str, ...]  # the user's original lines (1-based: lines[n-1])
    column_maps: dict[int, tuple[tuple[int, int, int, int], ...]] = field(default_factory=dict)
    defines: dict[str, str] = field(default_factory=dict)

    def original_column(self, line: int, column: int) -> int:
        """Map a pycparser column on `line` back to the column in the user's text."""
        shift = 0
        for new_start, new_len, orig_start, orig_len in self.column_maps.get(line, ()):
            if column < new_start:
                break
            if column < new_start + new_len:
                return orig_start
            shift = (orig_start + orig_len) - (new_start + new_len)
        return column + shift

    def error(self, message: str, coord: object) -> CudaSyntaxError:
        """A CudaSyntaxError quoting the offending line with a caret under the column."""
        line = getattr(coord, "line", None) or 0
        column = getattr(coord, "column", None) or 0
        return make_error(self.source_name, self.lines, line,
                          self.original_column(line, column) if column else 0, message)


def make_error(source_name: str, lines: tuple[str, ...] | list[str], line: int, column: int,
               message: str) -> CudaSyntaxError:
    """Format `name:line:col: message`, then the source line and a caret (when known)."""
    if not line:
        return CudaSyntaxError(f"{source_name}: {message}")
    head = f"{source_name}:{line}:{column}: {message}" if column else \
        f"{source_name}:{line}: {message}"
    if 1 <= line <= len(lines):
        text = lines[line - 1].expandtabs(1).rstrip()
        caret = " " * max(column - 1, 0) + "^" if column else ""
        return CudaSyntaxError(f"{head}\n    {text}\n    {caret}".rstrip())
    return CudaSyntaxError(head)


def _strip_comments(text: str) -> str:
    """Replace comments by spaces (newlines kept), leaving string/char literals alone."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        else:
            i += 1
    return "".join(out)


class _Preprocessor:
    """Line-by-line directive handling and object-like macro expansion (see module docstring)."""

    def __init__(self, source_name: str, lines: list[str], defines: dict[str, object]):
        self.source_name = source_name
        self.lines = lines
        self.forced = {k: _define_text(k, v) for k, v in defines.items()}
        self.macros: dict[str, str] = dict(self.forced)
        self.column_maps: dict[int, tuple[tuple[int, int, int, int], ...]] = {}

    def fail(self, line: int, column: int, message: str) -> CudaSyntaxError:
        return make_error(self.source_name, self.lines, line, column, message)

    def run(self, text_lines: list[str]) -> list[str]:
        out: list[str] = []
        active_stack: list[bool] = []
        continued = ""
        for lineno, raw in enumerate(text_lines, 1):
            line = continued + raw
            if line.rstrip().endswith("\\") and _DIRECTIVE.match(line):
                continued = line.rstrip()[:-1] + " "
                out.append("")
                continue
            continued = ""
            active = all(active_stack)
            m = _DIRECTIVE.match(line)
            if m:
                out.append("")
                self._directive(lineno, line, m.group(1), m.group(2).strip(), active,
                                active_stack)
                continue
            out.append(self._expand_line(lineno, line) if active else "")
        if active_stack:
            raise self.fail(len(text_lines), 0, "#ifdef/#ifndef without a matching #endif")
        return out

    def _directive(self, lineno: int, line: str, name: str, rest: str, active: bool,
                   stack: list[bool]) -> None:
        col = line.index("#") + 1
        if name in ("ifdef", "ifndef"):
            ident = rest.split()[0] if rest else ""
            defined = ident in self.macros
            stack.append(defined if name == "ifdef" else not defined)
            return
        if name == "else":
            if not stack:
                raise self.fail(lineno, col, "#else without #ifdef/#ifndef")
            stack[-1] = not stack[-1]
            return
        if name == "endif":
            if not stack:
                raise self.fail(lineno, col, "#endif without #ifdef/#ifndef")
            stack.pop()
            return
        if not active:
            return
        if name == "define":
            self._define(lineno, line, rest)
        elif name == "undef":
            ident = rest.split()[0] if rest else ""
            if ident not in self.forced:
                self.macros.pop(ident, None)
        elif name == "include":
            return
        elif name == "pragma":
            word = rest.split()[0] if rest else ""
            if word not in ("unroll", "once", "nounroll"):
                raise self.fail(lineno, col, f"unsupported construct '#pragma {word}' "
                                "(only '#pragma unroll' and '#pragma once' are accepted)")
        else:
            raise self.fail(lineno, col, f"unsupported construct '#{name}' (the simulator's "
                            "preprocessor handles #define, #undef, #ifdef, #ifndef, #else, "
                            "#endif, #include and #pragma unroll)")

    def _define(self, lineno: int, line: str, rest: str) -> None:
        m = re.match(r"([A-Za-z_]\w*)(\(?)(.*)$", rest)
        col = line.index("define") + 1
        if not m:
            raise self.fail(lineno, col, "malformed #define")
        name, paren, body = m.group(1), m.group(2), m.group(3).strip()
        if paren:
            raise self.fail(lineno, col, f"unsupported construct 'function-like macro {name}(...)'"
                            " (only object-like #define NAME value is supported)")
        if name in self.forced:
            return  # the caller's value wins (module docstring)
        self.macros[name] = body

    def _expand(self, text: str, disabled: frozenset[str]) -> str:
        def repl(m: re.Match[str]) -> str:
            word = m.group(0)
            if word in self.macros and word not in disabled:
                return self._expand(self.macros[word], disabled | {word})
            return word

        return _IDENT.sub(repl, text)

    def _expand_line(self, lineno: int, line: str) -> str:
        for word_match in _IDENT.finditer(line):
            word = word_match.group(0)
            if word in _REFUSED_WORDS and _REFUSED_WORDS[word] is not None:
                raise self.fail(lineno, word_match.start() + 1,
                                f"unsupported construct '{word}': {_REFUSED_WORDS[word]}")
            if word == "extern" and not re.match(r"extern\s+__shared__", line[word_match.start():]):
                raise self.fail(lineno, word_match.start() + 1,
                                "unsupported construct 'extern' (only 'extern __shared__' arrays)")
        if "<<<" in line:
            raise self.fail(lineno, line.index("<<<") + 1,
                            "unsupported construct '<<<...>>>': host code and dynamic parallelism "
                            "are not simulated (pass only the kernel and __device__ functions)")
        line = _LAUNCH_BOUNDS.sub(lambda m: " " * len(m.group(0)), line)
        for word in ("__host__", "__forceinline__", "__noinline__", "__inline__", "inline"):
            line = re.sub(rf"\b{word}\b", " " * len(word), line)
        for pattern, repl in _QUALIFIERS:
            line = pattern.sub(repl, line)
        if not self.macros:
            return line
        pieces: list[str] = []
        segments: list[tuple[int, int, int, int]] = []
        pos = 0
        new_len = 0
        for word_match in _IDENT.finditer(line):
            word = word_match.group(0)
            if word not in self.macros:
                continue
            pieces.append(line[pos:word_match.start()])
            new_len += word_match.start() - pos
            body = self._expand(self.macros[word], frozenset({word}))
            segments.append((new_len + 1, len(body), word_match.start() + 1, len(word)))
            pieces.append(body)
            new_len += len(body)
            pos = word_match.end()
        pieces.append(line[pos:])
        if segments:
            self.column_maps[lineno] = tuple(segments)
        return "".join(pieces)


def _define_text(name: str, value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise CudaSyntaxError(f"define {name}={value!r}: a define value must be an int or float")
    return repr(value) if isinstance(value, float) else str(value)


class _Parser(c_parser.CParser):
    """pycparser's parser, but errors without a position get the next token's position."""

    def _parse_error(self, msg, coord):  # type: ignore[no-untyped-def]
        if not hasattr(coord, "line"):
            try:
                tok = self._peek()
                if tok is not None:
                    coord = self._tok_coord(tok)
            except Exception:  # noqa: BLE001 - best effort only; the message still says what
                pass
        raise ParseError(f"{coord}: {msg}")


_PARSE_ERROR = re.compile(r"^(?P<file>.*?):(?P<line>\d+)(?::(?P<col>\d+))?: (?P<msg>.*)$", re.S)


def parse_source(source: str, source_name: str = "<source>",
                 defines: dict[str, object] | None = None) -> ParsedSource:
    """Pre-process and parse CUDA C text; raise CudaSyntaxError with a caret on failure."""
    lines = source.splitlines()
    pre = _Preprocessor(source_name, lines, dict(defines or {}))
    body = pre.run(_strip_comments(source).splitlines())
    text = _PRELUDE + f'\n#line 1 "{_escape(source_name)}"\n' + "\n".join(body) + "\n"
    try:
        ast = _Parser().parse(text, source_name)
    except ParseError as exc:
        m = _PARSE_ERROR.match(str(exc))
        if not m:
            raise CudaSyntaxError(f"{source_name}: syntax error: {exc}") from None
        line = int(m.group("line"))
        col = int(m.group("col") or 0)
        parsed = ParsedSource(c_ast.FileAST([]), source_name, tuple(lines), pre.column_maps)
        msg = m.group("msg")
        if msg.startswith("before: "):
            msg = f"syntax error before '{msg[8:]}'"
        else:
            msg = f"syntax error: {msg[0].lower()}{msg[1:]}"
        raise parsed.error(msg, _Coord(line, col)) from None
    return ParsedSource(ast, source_name, tuple(lines), pre.column_maps, dict(pre.macros))


@dataclass(frozen=True)
class _Coord:
    line: int
    column: int


def _escape(name: str) -> str:
    return name.replace("\\", "/").replace('"', "'")
