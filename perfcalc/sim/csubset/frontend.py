"""Front end: CUDA C subset text -> pycparser C AST, with line/column-exact error messages.

Choice (execution.md §2.4, §3.5): pycparser 3.12 after a small textual pre-pass, not a
hand-written parser. Measured there: all five teaching kernels parse in 1.7-2.6 ms once the
pre-pass has removed what pycparser cannot take (comments, directives, CUDA qualifiers, CUDA type
names). pycparser is pure Python, already a dependency, and gives every node a (line, column),
which the simulator needs for per-line counters and fault reports. Its limits (no C++, no
function-like macros) are outside the issue's subset anyway, and are refused here by name.

The pre-pass keeps line numbers and, wherever possible, columns:
* comments become spaces;
* backslash-newline splices are removed first, as C's translation phase 2 does (the spliced
  line keeps its number; empty lines after it keep the later numbers);
* directives: object-like `#define` (expanded textually, exactly as cpp would, recursively, a
  macro never re-expanding inside itself; an expansion over MAX_EXPANSION characters per line or
  MAX_MACRO_DEPTH levels is refused), `#undef`, `#if/#ifdef/#ifndef/#elif/#else/#endif` (the
  `#if` expression evaluated as cpp does: `defined`, integer arithmetic, comparisons, logic,
  unknown names as 0), `#include` and `#pragma unroll|once` (dropped); any other directive
  is refused by name where it would take effect (in a skipped group it is ignored, as cpp
  ignores it there);
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
from typing import Any, NoReturn

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
        return make_error(
            self.source_name, self.lines, line, self.original_column(line, column) if column else 0, message
        )


def make_error(
    source_name: str, lines: tuple[str, ...] | list[str], line: int, column: int, message: str
) -> CudaSyntaxError:
    """Format `name:line:col: message`, then the source line and a caret (when known)."""
    if not line:
        return CudaSyntaxError(f"{source_name}: {message}")
    head = f"{source_name}:{line}:{column}: {message}" if column else f"{source_name}:{line}: {message}"
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


MAX_EXPANSION = 100_000  # characters one source line may expand to (20 doubling macros: 4 MB)
MAX_MACRO_DEPTH = 200  # macros expanding inside macros


def splice_lines(text: str) -> list[str]:
    """Remove backslash-newline (C translation phase 2), keeping the number of lines; lines
    split as `str.splitlines` splits them (CRLF too), as everywhere else in the front end."""
    out: list[str] = []
    pending: list[str] = []
    for line in text.splitlines():
        if line.endswith("\\"):
            pending.append(line[:-1])
            continue
        out.append("".join(pending) + line)
        out.extend("" for _ in pending)
        pending = []
    if pending:
        out.append("".join(pending))
        out.extend("" for _ in pending[1:])
    return out


@dataclass
class _Group:
    """One #if...#endif group: is its current branch taken, was any branch taken, #else seen."""

    enclosing_active: bool
    taking: bool
    taken: bool
    seen_else: bool = False


class _Preprocessor:
    """Line-by-line directive handling and object-like macro expansion (see module docstring)."""

    def __init__(self, source_name: str, lines: list[str], defines: dict[str, object]):
        self.source_name = source_name
        self.lines = lines
        self.forced = {k: _define_text(k, v) for k, v in defines.items()}
        self.macros: dict[str, str] = dict(self.forced)
        self.column_maps: dict[int, tuple[tuple[int, int, int, int], ...]] = {}
        self._budget = 0  # characters this line may still expand to

    def fail(self, line: int, column: int, message: str) -> CudaSyntaxError:
        return make_error(self.source_name, self.lines, line, column, message)

    def run(self, text_lines: list[str]) -> list[str]:
        out: list[str] = []
        groups: list[_Group] = []
        for lineno, line in enumerate(text_lines, 1):
            active = not groups or (groups[-1].enclosing_active and groups[-1].taking)
            m = _DIRECTIVE.match(line)
            if m:
                out.append("")
                self._directive(lineno, line, m.group(1), m.group(2).strip(), active, groups)
                continue
            out.append(self._expand_line(lineno, line) if active else "")
        if groups:
            raise self.fail(len(text_lines), 0, "#if/#ifdef/#ifndef without a matching #endif")
        return out

    def _directive(self, lineno: int, line: str, name: str, rest: str, active: bool, groups: list[_Group]) -> None:
        col = line.index("#") + 1
        if name in ("if", "ifdef", "ifndef"):
            if not active:
                groups.append(_Group(False, False, True))  # skipped: no branch is evaluated
                return
            if name == "if":
                value = self._condition(lineno, col, rest)
            else:
                value = (rest.split()[0] if rest else "") in self.macros
                value = value if name == "ifdef" else not value
            groups.append(_Group(True, bool(value), bool(value)))
            return
        if name in ("elif", "else", "endif"):
            if not groups:
                raise self.fail(lineno, col, f"#{name} without #if/#ifdef/#ifndef")
            group = groups[-1]
            if name == "endif":
                groups.pop()
            elif group.seen_else:
                raise self.fail(lineno, col, f"#{name} after #else")
            elif name == "else":
                group.seen_else = True
                group.taking = not group.taken
                group.taken = True
            else:
                group.taking = not group.taken and group.enclosing_active and bool(self._condition(lineno, col, rest))
                group.taken = group.taken or group.taking
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
                raise self.fail(
                    lineno,
                    col,
                    f"unsupported construct '#pragma {word}' (only '#pragma unroll' and '#pragma once' are accepted)",
                )
        else:
            raise self.fail(
                lineno,
                col,
                f"unsupported construct '#{name}' (the simulator's "
                "preprocessor handles #define, #undef, #if, #ifdef, #ifndef, #elif, "
                "#else, #endif, #include and #pragma unroll)",
            )

    def _condition(self, lineno: int, col: int, text: str) -> int:
        """The value of an #if/#elif expression, as cpp computes it (module docstring)."""
        text = re.sub(
            r"\bdefined\s*\(\s*([A-Za-z_]\w*)\s*\)|\bdefined\s+([A-Za-z_]\w*)",
            lambda m: "1" if (m.group(1) or m.group(2)) in self.macros else "0",
            text,
        )
        self._budget = MAX_EXPANSION
        try:
            expanded = self._expand(text, frozenset(), 0)
            return _PpExpression(expanded).value()
        except _PpError as exc:  # (an expansion's message reads after "the expression")
            raise self.fail(lineno, col, f"#if expression {text.strip()[:80]!r}: {exc}") from None

    def _define(self, lineno: int, line: str, rest: str) -> None:
        m = re.match(r"([A-Za-z_]\w*)(\(?)(.*)$", rest)
        col = line.index("define") + 1
        if not m:
            raise self.fail(lineno, col, "malformed #define")
        name, paren, body = m.group(1), m.group(2), m.group(3).strip()
        if paren:
            raise self.fail(
                lineno,
                col,
                f"unsupported construct 'function-like macro {name}(...)'"
                " (only object-like #define NAME value is supported)",
            )
        if name in self.forced:
            return  # the caller's value wins (module docstring)
        self.macros[name] = body

    def _expand(self, text: str, disabled: frozenset[str], depth: int) -> str:
        if depth > MAX_MACRO_DEPTH:
            raise _PpError(f"nests more than {MAX_MACRO_DEPTH} macros deep (the limit)")

        def repl(m: re.Match[str]) -> str:
            word = m.group(0)
            if word in self.macros and word not in disabled:
                self._budget -= len(self.macros[word])  # ~ the characters this adds
                if self._budget < 0:
                    raise _PpError(f"expands past {MAX_EXPANSION} characters on one line (the limit)")
                return self._expand(self.macros[word], disabled | {word}, depth + 1)
            return word

        return _IDENT.sub(repl, text)

    def _expand_line(self, lineno: int, line: str) -> str:
        for word_match in _IDENT.finditer(line):
            word = word_match.group(0)
            if word in _REFUSED_WORDS and _REFUSED_WORDS[word] is not None:
                raise self.fail(
                    lineno, word_match.start() + 1, f"unsupported construct '{word}': {_REFUSED_WORDS[word]}"
                )
            if word == "extern" and not re.match(r"extern\s+__shared__", line[word_match.start() :]):
                raise self.fail(
                    lineno, word_match.start() + 1, "unsupported construct 'extern' (only 'extern __shared__' arrays)"
                )
        if "<<<" in line:
            raise self.fail(
                lineno,
                line.index("<<<") + 1,
                "unsupported construct '<<<...>>>': host code and dynamic parallelism "
                "are not simulated (pass only the kernel and __device__ functions)",
            )
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
            pieces.append(line[pos : word_match.start()])
            new_len += word_match.start() - pos
            self._budget = MAX_EXPANSION
            try:
                body = self._expand(self.macros[word], frozenset({word}), 1)
            except _PpError as exc:
                raise self.fail(lineno, word_match.start() + 1, f"macro {word} {exc}") from None
            segments.append((new_len + 1, len(body), word_match.start() + 1, len(word)))
            pieces.append(body)
            new_len += len(body)
            pos = word_match.end()
        pieces.append(line[pos:])
        if segments:
            self.column_maps[lineno] = tuple(segments)
        return "".join(pieces)


class _PpError(Exception):
    """A preprocessor expression or expansion problem; the caller adds file, line and column."""


_PP_TOKEN = re.compile(
    r"\s*(?:(0[xX][0-9a-fA-F]+|\d+)[uUlL]*|([A-Za-z_]\w*)|"
    r"(<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%<>&^|!~()?:]))"
)
_PP_BINARY: dict[str, tuple[int, Any]] = {  # operator: (precedence, function), C's table
    "||": (1, lambda a, b: int(bool(a) or bool(b))),
    "&&": (2, lambda a, b: int(bool(a) and bool(b))),
    "|": (3, lambda a, b: a | b),
    "^": (4, lambda a, b: a ^ b),
    "&": (5, lambda a, b: a & b),
    "==": (6, lambda a, b: int(a == b)),
    "!=": (6, lambda a, b: int(a != b)),
    "<": (7, lambda a, b: int(a < b)),
    ">": (7, lambda a, b: int(a > b)),
    "<=": (7, lambda a, b: int(a <= b)),
    ">=": (7, lambda a, b: int(a >= b)),
    "<<": (8, lambda a, b: a << b),
    ">>": (8, lambda a, b: a >> b),
    "+": (9, lambda a, b: a + b),
    "-": (9, lambda a, b: a - b),
    "*": (10, lambda a, b: a * b),
    "/": (10, lambda a, b: _c_quotient(a, b)),
    "%": (10, lambda a, b: a - b * _c_quotient(a, b)),
}


def _c_quotient(a: int, b: int) -> int:
    """C's integer division, which truncates toward zero (Python's // floors)."""
    quotient = abs(a) // abs(b)
    return quotient if (a < 0) == (b < 0) else -quotient


def _c_integer(text: str) -> int:
    """A C integer literal without its suffix: 0x.. hexadecimal, 0.. octal, else decimal."""
    if text.lower().startswith("0x"):
        return int(text, 16)
    return int(text, 8) if text.startswith("0") and len(text) > 1 else int(text)


class _PpExpression:
    """An #if expression over intmax_t values: a precedence-climbing parser, no recursion past
    the nesting of parentheses (bounded)."""

    def __init__(self, text: str):
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        text = text.strip()
        while pos < len(text):
            m = _PP_TOKEN.match(text, pos)
            if not m or m.end() == pos:
                raise _PpError(f"unexpected {text[pos : pos + 10]!r}")
            number, ident, op = m.groups()
            if number:
                self.tokens.append(("n", str(_c_integer(number))))
            elif ident:
                self.tokens.append(("n", "0"))  # an identifier left after expansion is 0 (cpp)
            else:
                self.tokens.append(("o", op))
            pos = m.end()
        self.pos = 0
        self.depth = 0

    def value(self) -> int:
        result = self._ternary()
        if self.pos != len(self.tokens):
            raise _PpError(f"unexpected {self.tokens[self.pos][1]!r}")
        return result

    def _peek(self) -> str | None:
        return self.tokens[self.pos][1] if self.pos < len(self.tokens) else None

    def _take(self, expected: str) -> None:
        if self._peek() != expected:
            raise _PpError(f"expected {expected!r}")
        self.pos += 1

    def _ternary(self) -> int:
        cond = self._binary(1)
        if self._peek() != "?":
            return cond
        self.pos += 1
        yes = self._ternary()
        self._take(":")
        no = self._ternary()
        return yes if cond else no

    def _binary(self, lowest: int) -> int:
        left = self._unary()
        while (op := self._peek()) in _PP_BINARY and _PP_BINARY[op][0] >= lowest and self.tokens[self.pos][0] == "o":
            precedence, apply = _PP_BINARY[op]
            self.pos += 1
            right = self._binary(precedence + 1)
            if op in ("/", "%") and right == 0:
                raise _PpError("division by zero")
            if op in ("<<", ">>") and not 0 <= right < 64:
                raise _PpError(f"shift by {right} (must be 0..63)")
            left = apply(left, right)
            if abs(left) >= 2**63:
                raise _PpError(f"value {left} overflows intmax_t")
        return left

    def _unary(self) -> int:
        if self.pos >= len(self.tokens):
            raise _PpError("expression ends early")
        kind, tok = self.tokens[self.pos]
        self.pos += 1
        if kind == "n":
            return int(tok)
        if tok == "(":
            self.depth += 1
            if self.depth > MAX_MACRO_DEPTH:
                raise _PpError(f"parentheses nest more than {MAX_MACRO_DEPTH} levels")
            inner = self._ternary()
            self._take(")")
            self.depth -= 1
            return inner
        if tok in ("!", "~", "-", "+"):
            operand = self._unary()
            return {"!": int(not operand), "~": ~operand, "-": -operand, "+": operand}[tok]
        raise _PpError(f"unexpected {tok!r}")


def _define_text(name: str, value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise CudaSyntaxError(f"define {name}={value!r}: a define value must be an int or float")
    return repr(value) if isinstance(value, float) else str(value)


class _Parser(c_parser.CParser):  # type: ignore[misc]  # pycparser ships no type information
    """pycparser's parser, but errors without a position get the next token's position."""

    def _parse_error(self, msg: str, coord: Any) -> NoReturn:
        if not hasattr(coord, "line"):
            try:
                tok = self._peek()
                if tok is not None:
                    coord = self._tok_coord(tok)
            except Exception:  # noqa: BLE001 - best effort only; the message still says what
                pass
        raise ParseError(f"{coord}: {msg}")


_PARSE_ERROR = re.compile(r"^(?P<file>.*?):(?P<line>\d+)(?::(?P<col>\d+))?: (?P<msg>.*)$", re.S)


def parse_source(source: str, source_name: str = "<source>", defines: dict[str, object] | None = None) -> ParsedSource:
    """Pre-process and parse CUDA C text; raise CudaSyntaxError with a caret on failure."""
    lines = source.splitlines()
    pre = _Preprocessor(source_name, lines, dict(defines or {}))
    body = pre.run(_strip_comments("\n".join(splice_lines(source))).split("\n"))
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
    parsed = ParsedSource(ast, source_name, tuple(lines), pre.column_maps, dict(pre.macros))
    _refuse_redefinitions(parsed)
    return parsed


def _refuse_redefinitions(parsed: ParsedSource) -> None:
    """Two definitions of one function are an error in C and CUDA (pycparser accepts them)."""
    first: dict[str, object] = {}
    for node in parsed.ast.ext:
        if isinstance(node, c_ast.FuncDef):
            name = node.decl.name
            if name in first:
                line = getattr(first[name], "line", "?")
                raise parsed.error(f"redefinition of '{name}' (first defined on line {line})", node.decl.coord)
            first[name] = node.decl.coord


@dataclass(frozen=True)
class _Coord:
    line: int
    column: int


def _escape(name: str) -> str:
    return name.replace("\\", "/").replace('"', "'")
