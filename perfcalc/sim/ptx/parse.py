"""Read the PTX NVRTC produces into entry functions of instructions, each tagged with its source
line (from `.loc`), so the executor can run them and attribute every count to a line.

Only the structure is parsed here (declarations, labels, predicates, opcodes, operand texts);
the executor gives each opcode its meaning and refuses, by name and line, what it does not know.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar, cast

from perfcalc.errors import CudaSyntaxError


@dataclass(frozen=True)
class Instr:
    """One PTX instruction: `@p op.mod1.mod2 a, b, c;` at a source line."""

    opcode: str
    operands: tuple[str, ...]
    line: int
    column: int
    pred: str | None = None
    pred_negated: bool = False
    inlined_at: int | None = None  # the call site's line, for code inlined from a device function

    @functools.cached_property
    def parts(self) -> tuple[str, ...]:
        return tuple(self.opcode.split("."))

    @functools.cached_property
    def base(self) -> str:
        return self.opcode.split(".", 1)[0]

    @functools.cached_property
    def space(self) -> str:
        """The state space the instruction names first (`.shared::cta` is "shared"), or "generic"
        where it names none."""
        for p in self.parts[1:]:
            name = p.split("::")[0]
            if name in STATE_SPACES:
                return name
        return "generic"


STATE_SPACES = ("global", "shared", "local", "param", "const")
T = TypeVar("T")


# Instructions that end a straight-line stretch of code (branches, returns, calls, barriers,
# traps): ptxas predicates, moves and merges nothing across them.
CONTROL = frozenset({"bra", "brx", "ret", "exit", "call", "bar", "barrier", "trap", "brkpt"})
# The float arithmetic Nsight Compute's flop counters count (FADD, FMUL, FFMA and the DP forms).
FLOAT_ARITHMETIC = frozenset({"add", "sub", "mul", "fma", "mad"})


@dataclass(frozen=True)
class Param:
    name: str
    ptx_type: str  # u64, u32, f32, b8 (array), ...
    size: int
    align: int
    pointee_space: str | None = None  # `.ptr .global`: the state space the pointer points into
    pointee_align: int | None = None  # `.ptr .align 4`: the alignment the compiler assumes


@dataclass(frozen=True)
class Variable:
    """A .shared/.local/.const/.global variable: name, bytes, alignment, initial bytes."""

    space: str
    name: str
    size: int
    align: int
    extern: bool = False
    init: bytes = b""


@dataclass
class Function:
    name: str
    is_entry: bool
    params: list[Param] = field(default_factory=list)
    registers: dict[str, str] = field(default_factory=dict)  # register prefix -> type
    variables: list[Variable] = field(default_factory=list)
    body: list[Instr] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)
    files: dict[int, str] = field(default_factory=dict)
    # the file its line numbers are in, where that is not the compiled file itself (a kernel
    # defined in a header that the file includes, with no code of the file's own inlined)
    source_file: str | None = None
    branch_tables: dict[str, list[str]] = field(default_factory=dict)  # brx.idx targets
    # what the executor derives from the body alone (contraction, wait points), kept with it:
    # a parsed module is cached per PTX text, so a second launch derives nothing again
    analyses: dict[str, object] = field(default_factory=dict, repr=False, compare=False)

    def derived(self, key: str, make: Callable[[], T]) -> T:
        """`make()`, worked out once per parsed function and kept in `analyses` under `key`."""
        found = self.analyses.get(key)
        if found is None:
            found = self.analyses[key] = make()
        return cast(T, found)

    def branch_target(self, instr: Instr) -> int | None:
        """Where a `bra` jumps, as an index into the body (None for any other instruction, or a
        label the function lacks)."""
        if instr.base != "bra" or not instr.operands:
            return None
        return self.labels.get(instr.operands[0].strip())


@dataclass
class Module:
    version: str
    target: str
    functions: dict[str, Function]
    variables: list[Variable]
    files: dict[int, str]


MAIN_FILE = 1  # NVRTC numbers the compiled program's own file 1; headers get other numbers
_TYPE_BYTES = {
    "b8": 1,
    "u8": 1,
    "s8": 1,
    "b16": 2,
    "u16": 2,
    "s16": 2,
    "f16": 2,
    "bf16": 2,
    "b32": 4,
    "u32": 4,
    "s32": 4,
    "f32": 4,
    "b64": 8,
    "u64": 8,
    "s64": 8,
    "f64": 8,
    "pred": 1,
    "f16x2": 4,
    "bf16x2": 4,
}
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_LOC = re.compile(
    r"\.loc\s+(\d+)\s+(\d+)\s+(\d+)(?:\s*,\s*function_name\s+\S+\s*,\s*inlined_at\s+"
    r"(\d+)\s+(\d+)\s+(\d+))?"
)
_FILE = re.compile(r'\.file\s+(\d+)\s+"([^"]*)"')
_ENTRY = re.compile(
    r"^\s*(?:\.visible\s+|\.weak\s+|\.extern\s+)*\.(entry|func)\s*"
    r"(?:\(([^)]*)\)\s*)?([\w$]+)\s*\(",
    re.M,
)
_VAR = re.compile(
    r"^\s*(\.extern\s+|\.visible\s+|\.global\s+(?=\.))?\s*\.(shared|local|const|global)"
    r"\s+(?:\.align\s+(\d+)\s+)?\.(\w+)\s+([\w$]+)(?:\[(\d*)\])?(?:\s*=\s*\{([^}]*)\})?"
    r"\s*;"
)
_REG = re.compile(r"^\s*\.reg\s*\.(\w+)\s+(.+?)\s*;")
# `.param [.align N] .type [.ptr [.space] [.align N]] name [count]`: the `.ptr` attribute (with the
# pointee's state space and alignment) is what NVRTC 13 writes for pointer parameters of kernels
# compiled for CC 10.0 to 12.1 (PTX ISA, "Kernel Function Parameter Attribute: .ptr"); the
# parameter itself stays a .u64 aligned as one.
_PARAM = re.compile(
    r"\.param\s+(?:\.align\s+(\d+)\s+)?\.(\w+)\s+"
    r"(?:\.ptr\s+(?:\.(global|const|shared|local)\s+)?(?:\.align\s+(\d+)\s+)?)?"
    r"([\w$]+)(?:\[(\d+)\])?"
)


def parse_module(ptx: str, main_file: str | None = None) -> Module:
    """The whole PTX text -> entries, device functions and module-level variables. Counts are
    kept at the lines of `main_file` (the path the PTX's `.file` names; NVRTC's program, file 1,
    when not given): code inlined from other files counts at the line that called it."""
    files = {int(n): name for n, name in _FILE.findall(ptx)}
    main = next((n for n, name in files.items() if main_file is not None and name == main_file), MAIN_FILE)
    version = _directive(ptx, "version")
    target = _directive(ptx, "target")
    text = _COMMENT.sub("", ptx)
    functions: dict[str, Function] = {}
    module_vars: list[Variable] = []
    pos = 0
    for match in _ENTRY.finditer(text):
        module_vars.extend(_variables(text[pos : match.start()]))
        params_end = _matching(text, match.end() - 1, "(", ")")
        params = text[match.end() : params_end]
        body_start = text.find("{", params_end)
        semicolon = text.find(";", params_end)
        if body_start < 0 or (0 <= semicolon < body_start):  # a declaration without a body
            pos = semicolon + 1
            continue
        body_end = _matching(text, body_start, "{", "}")
        fn = Function(match.group(3), match.group(1) == "entry", files=files)
        fn.params = [_param(p) for p in _split_top(params) if p.strip()]
        home = main
        if main_file is not None and main_file not in files.values():
            # nothing of the compiled file itself is in the PTX: the kernel's lines are its header's
            first = _LOC.search(text, body_start, body_end)
            home = int(first.group(1)) if first else main
            fn.source_file = files.get(home)
        _parse_body(fn, text[body_start + 1 : body_end], ptx, home)
        functions[fn.name] = fn
        pos = body_end + 1
    module_vars.extend(_variables(text[pos:]))
    return Module(version, target, functions, module_vars, files)


def _directive(ptx: str, name: str) -> str:
    """The argument of a module directive (`.version 9.0`, `.target sm_90`), or ''."""
    found = re.search(rf"\.{name}\s+(\S+)", ptx)
    return found.group(1) if found else ""


def _matching(text: str, start: int, open_: str, close: str) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] == open_:
            depth += 1
        elif text[i] == close:
            depth -= 1
            if depth == 0:
                return i
    raise CudaSyntaxError(f"unbalanced {open_}{close} in the PTX")


def _split_top(text: str) -> list[str]:
    """Split on commas outside brackets and braces."""
    parts: list[str] = []
    cur: list[str] = []
    depth = 0
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _param(text: str) -> Param:
    m = _PARAM.search(text)
    if m is None:
        raise CudaSyntaxError(f"cannot read the PTX parameter {text.strip()!r}")
    t = m.group(2)
    count = int(m.group(6)) if m.group(6) else 1
    size = _TYPE_BYTES.get(t, 1) * count
    align = int(m.group(1)) if m.group(1) else _TYPE_BYTES.get(t, 1)
    pointee_align = int(m.group(4)) if m.group(4) else None
    return Param(m.group(5), t, size, align, m.group(3), pointee_align)


def _variables(text: str) -> list[Variable]:
    found = []
    for chunk in text.split(";"):
        line = chunk.strip().rsplit("\n", 1)[-1]
        m = _VAR.match(line + ";")
        if m is None:
            continue
        found.append(_variable(m))
    return found


def _variable(m: re.Match[str]) -> Variable:
    t = m.group(4)
    unit = _TYPE_BYTES.get(t, 1)
    count = int(m.group(6)) if m.group(6) else (0 if m.group(6) == "" else 1)
    init = b""
    if m.group(7):
        values = [int(v.strip(), 0) for v in m.group(7).split(",") if v.strip()]
        init = b"".join(v.to_bytes(unit, "little", signed=v < 0) for v in values)
    return Variable(
        m.group(2),
        m.group(5),
        unit * count,
        int(m.group(3) or unit),
        extern=bool(m.group(1) and "extern" in m.group(1)),
        init=init,
    )


# an opcode's parts may carry a qualifier after '::' (st.shared::cta, ld.global.L1::evict_last)
_INSTR = re.compile(r"^(?:@(!?)(%?[A-Za-z_$][\w$]*)\s+)?([a-z][\w.]*(?:::[\w.:]+)*)\s*(.*)$", re.S)


def _parse_body(fn: Function, body: str, original: str, main: int = MAIN_FILE) -> None:
    line, col, inlined = 0, 0, None
    for raw in _statements(body):
        stmt = raw.strip()
        if not stmt:
            continue
        if re.match(r"\.loc\s", stmt):
            m = _LOC.match(stmt)
            if m:
                at_main = m.group(4) is not None and int(m.group(4)) == main
                inlined = int(m.group(5)) if m.group(5) and at_main else None
                if int(m.group(1)) == main:
                    line, col = int(m.group(2)), int(m.group(3))
                else:
                    # code from an included header (nvcc names CUDA's headers; NVRTC does not):
                    # counted at the line of the user's file that called it, where the PTX says,
                    # else at the user's line last seen
                    line, col, inlined = (inlined if inlined is not None else line), 0, None
            continue
        label = re.match(r"^([\w$]+):\s*(.*)$", stmt, re.S)
        if label and not stmt.startswith("."):
            fn.labels[label.group(1)] = len(fn.body)
            stmt = label.group(2).strip()
            if stmt.startswith(".branchtargets"):
                fn.branch_tables[label.group(1)] = [
                    t.strip() for t in stmt[len(".branchtargets") :].split(",") if t.strip()
                ]
                continue
            if not stmt:
                continue
        if stmt.startswith(".reg"):
            m = _REG.match(stmt + ";")
            if m:
                for decl in m.group(2).split(","):
                    name = re.sub(r"<\d+>$", "", decl.strip())
                    if name:
                        fn.registers[name] = m.group(1)
            continue
        if stmt.startswith((".shared", ".local", ".extern", ".const", ".global")):
            m = _VAR.match(stmt + ";")
            if m:
                fn.variables.append(_variable(m))
            continue
        if stmt in ("{", "}") or stmt.startswith(
            (".pragma", ".maxntid", ".reqntid", ".minnctapersm", ".maxnreg", ".file", ".section")
        ):
            continue
        if stmt.startswith("."):
            continue
        m = _INSTR.match(stmt)
        if m is None:
            raise CudaSyntaxError(f"cannot read the PTX instruction {stmt[:60]!r}")
        operands = tuple(_split_top(m.group(4)))
        fn.body.append(Instr(m.group(3), operands, line, col, m.group(2), m.group(1) == "!", inlined))


def _unscope(stmt: str) -> str:
    """Drop the scope braces inline asm wraps around its instructions: `{add.f16 ...` ->
    `add.f16 ...` (a brace before an operand list is part of the instruction and stays)."""
    text = stmt.strip()
    while text.startswith("{") and len(text) > 1 and (text[1:].lstrip()[:1].isalpha() or text[1:].lstrip()[:1] == "."):
        text = text[1:].strip()
    return text


def _statements(body: str) -> list[str]:
    """Statements end at ';' (a call sequence spans lines); `.loc` lines, labels and scope
    braces end at their line."""
    out: list[str] = []
    pending = ""
    for chunk in body.split("\n"):
        text = chunk.strip()
        if not text:
            continue
        if not pending and (re.match(r"\.(loc|file)\s", text) or text in ("{", "}") or re.fullmatch(r"[\w$]+:", text)):
            out.append(text)
            continue
        pending = f"{pending} {text}" if pending else text
        while ";" in pending:
            stmt, pending = pending.split(";", 1)
            out.append(_unscope(stmt))
            pending = pending.strip()
            while pending.startswith("}"):  # the end of an inline-asm scope
                pending = pending[1:].strip()
    if pending:
        out.append(pending)
    return out
