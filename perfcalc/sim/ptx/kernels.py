"""Kernels as C++ names them: the parameters of a kernel's definition, and the compiled entry a
name means (issue 30).

- Parameter names come from the definition, not from an earlier declaration with other names
  (C++ uses the definition's); `__launch_bounds__(...)` with nested parentheses, `extern "C"`
  written against `__global__`, `static`/`inline` are read through.
- An entry is found by the name NVRTC lowered, else by the demangled names in the PTX: `k<16>` is
  the instantiation of that name; `k` alone is the one instantiation the file made, and where it
  made several the error lists them ready to paste; a name that is not there lists the file's
  kernels, the closest first.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from perfcalc.errors import CudaSyntaxError
from perfcalc.sim.ptx.parse import Function, Module
from perfcalc.specs.demangle import demangle

_GLOBAL = re.compile(r"__global__")
_ATTRIBUTE = re.compile(r"\b__launch_bounds__\s*\(|\b__attribute__\s*\(")


def base_name(kernel: str) -> str:
    """'ns::k<float, 4>' -> 'k'."""
    return kernel.split("<")[0].strip().split("::")[-1].strip()


def _skip_parens(text: str, i: int) -> int:
    """The index after the parenthesis group opening at text[i] == '('."""
    depth = 0
    while i < len(text):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
        if depth == 0:
            break
    return i


def _signatures(text: str, base: str) -> Iterable[tuple[int, int, bool]]:
    """(start, end) of each `__global__ ... base(params)` parameter list, and whether a body
    follows (a definition)."""
    call = re.compile(rf"\b{re.escape(base)}\s*\(")
    for g in _GLOBAL.finditer(text):
        stop = text.find(";", g.end())
        brace = text.find("{", g.end())
        limit = min(x for x in (stop, brace, len(text)) if x >= 0)
        head = text[g.end() : limit]
        i = 0
        while i < len(head):  # read through __launch_bounds__(...) and other (...) in the head
            m = call.search(head, i)
            lb = _ATTRIBUTE.search(head, i)
            if lb is not None and (m is None or lb.start() < m.start()):
                i = _skip_parens(head, lb.end() - 1)
                continue
            if m is None:
                break
            start = g.end() + m.end()
            end = _skip_parens(text, start - 1)
            rest = text[end:].lstrip()
            rest = re.sub(r"^(?:__launch_bounds__\s*\([^;{]*?\)\s*|const\s*|noexcept\s*)*", "", rest)
            yield start, end - 1, rest.startswith("{")
            break


def kernel_parameters(source: str, kernel: str) -> list[tuple[str, str]]:
    """(C++ name, C++ type) of each parameter of `kernel` (its base name, templates stripped),
    from its definition where the text has one, else from its declaration."""
    base = base_name(kernel)
    found = list(_signatures(source, base))
    if not found:
        raise CudaSyntaxError(f"no __global__ function named '{base}' in the source")
    start, end, _ = next((s for s in found if s[2]), found[0])
    return _split_parameters(source[start:end], base)


def defines_kernel(source: str, kernel: str) -> bool:
    return any(True for _ in _signatures(source, base_name(kernel)))


def _split_parameters(text: str, base: str) -> list[tuple[str, str]]:
    params = []
    depth, cur = 0, ""
    for ch in text + ",":
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            decl = cur.strip()
            cur = ""
            if not decl or decl == "void":
                continue
            decl = decl.split("=")[0].strip()
            name = re.search(r"([A-Za-z_]\w*)\s*(\[[^\]]*\])?\s*$", decl)
            if name is None:
                raise CudaSyntaxError(f"cannot read the parameter {decl!r} of '{base}'")
            params.append((name.group(1), decl[: name.start()].strip() or decl))
        else:
            cur += ch
    return params


def _function_part(demangled: str) -> str:
    """'void ns::k<16>(float*, int)' -> 'ns::k<16>' (return type and parameters dropped)."""
    depth = 0
    for i, ch in enumerate(demangled):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0 and i > 0:
            name = demangled[:i]
            break
    else:
        name = demangled
    return re.sub(r"^void\s+", "", name.strip())


# typedefs a launch may spell that the demangler prints as what they stand for (CUDA's
# cuda_fp16.h/cuda_bf16.h and <cstdint> on LP64 Linux)
_ALIASES = {
    "half": "__half",
    "half2": "__half2",
    "nv_bfloat16": "__nv_bfloat16",
    "nv_bfloat162": "__nv_bfloat162",
    "int8_t": "signed char",
    "uint8_t": "unsigned char",
    "int16_t": "short",
    "uint16_t": "unsigned short",
    "int32_t": "int",
    "uint32_t": "unsigned int",
    "int64_t": "long",
    "uint64_t": "unsigned long",
    "size_t": "unsigned long",
}
_ALIAS = re.compile(r"\b(" + "|".join(_ALIASES) + r")\b")


def _squeezed(name: str) -> str:
    """A name with spelling differences C++ ignores removed: blanks, typedefs CUDA's headers
    define, integer literal suffixes and casts the demangler prints (`k<256u>`, `k<(char)1>` are
    `k<256>`, `k<1>`; `k<half>` is `k<__half>`)."""
    name = _ALIAS.sub(lambda m: _ALIASES[m.group(1)], name)
    name = re.sub(r"\s+", "", name)
    name = re.sub(r"\((?:unsigned)?(?:int|char|short|long|longlong|bool)\)(?=-?\d)", "", name)
    return re.sub(r"(?<=\d)(?:[uU](?:ll|LL|l|L)?|(?:ll|LL|l|L)[uU]?)(?=[,>])", "", name)


def entry_names(module: Module) -> dict[str, str]:
    """Each entry's mangled name -> its name as C++ writes it (`k<16>`, `ns::k`)."""
    return {f.name: _function_part(demangle(f.name) or f.name) for f in module.functions.values() if f.is_entry}


def find_entry(module: Module, kernel: str, lowered: dict[str, str] | None = None) -> Function:
    """The compiled entry `kernel` names (see the module docstring)."""
    if lowered and lowered.get(kernel) in module.functions:
        return module.functions[lowered[kernel]]
    if kernel in module.functions:
        return module.functions[kernel]
    names = entry_names(module)
    want = _squeezed(kernel)
    exact = [m for m, n in names.items() if _squeezed(n) == want or _squeezed(n).endswith("::" + want)]
    if len(exact) == 1:
        return module.functions[exact[0]]
    base = base_name(kernel)
    same = [m for m, n in names.items() if base_name(n) == base]
    if "<" not in kernel and len(same) == 1:
        return module.functions[same[0]]
    if len(same) > 1 and "<" not in kernel:
        listed = ", ".join(sorted(names[m] for m in same))
        raise CudaSyntaxError(
            f"kernel '{kernel}' is a template the file instantiates {len(same)} times: name one with --kernel "
            f"({listed})"
        )
    known = sorted(set(names.values()))
    close = difflib.get_close_matches(kernel, known, n=3, cutoff=0.5)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise CudaSyntaxError(
        f"no compiled kernel '{kernel}' in the file (its kernels: {', '.join(known) or 'none'}){hint}"
    )
