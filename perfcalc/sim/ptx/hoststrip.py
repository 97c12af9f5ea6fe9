"""Turn a whole .cu file (host code, main, launches) into what NVRTC compiles: the device code,
at the same line numbers.

NVRTC refuses host functions ("host functions are not allowed in JIT mode") and host globals, so
they are blanked -- replaced by spaces, newlines kept -- using a real C++/CUDA syntax tree
(tree-sitter with the CUDA grammar; regular expressions cannot see where a template, a class or
a lambda ends). Kept: __global__/__device__ functions (templates too), __constant__/__device__/
__shared__ variables, const/constexpr values, types, namespaces, using/typedef, preprocessor
lines. The launches `kernel<...><<<...>>>` in host code are collected, so a template kernel can be
named by the instantiation the file launches. Host-only standard headers get empty stand-ins
(`HOST_HEADERS`); CUDA's own headers come from NVIDIA's wheels.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from perfcalc.errors import CudaSyntaxError, PerfcalcError

PACKAGES = "tree-sitter and tree-sitter-cuda"
_DEVICE_WORDS = re.compile(r"\b(__global__|__device__)\b")
_DEVICE_VARS = re.compile(r"\b(__device__|__constant__|__shared__|__managed__)\b|\b(?:texture|surface)\s*<")
_WORD = re.compile(r"\b\w+\b")
_TEMPLATE_PARAM = re.compile(r"(?:typename|class|\w+)\s+(\w+)\s*(?:[=,>]|$)")
_EXTERN_C_GLUED = re.compile(r'extern "C"(__global__|__device__|__host__)')
_INSTANTIATION = re.compile(r"\s*(?:extern\s+)?template\s+(?!<)")
_TYPE_DECL = re.compile(r"\b(typedef|using)\b")
_KEEP_DECL = re.compile(r"\b(const|constexpr|typedef|using|enum|struct|class|union|extern\s+\"C\")\b")

# Headers a .cu file includes for its host code; NVRTC has none of them. Empty stand-ins, except
# the limits macros device code uses (values of the C standard on LP64 Linux).
HOST_HEADERS: dict[str, str] = {
    **{
        name: ""
        for name in (
            "cstdio",
            "stdio.h",
            "cstdlib",
            "stdlib.h",
            "iostream",
            "vector",
            "string",
            "cstring",
            "string.h",
            "chrono",
            "algorithm",
            "random",
            "fstream",
            "sstream",
            "iomanip",
            "memory",
            "numeric",
            "ctime",
            "time.h",
            "sys/time.h",
            "unistd.h",
            "omp.h",
            "functional",
            "map",
            "set",
            "unordered_map",
            "tuple",
            "utility",
            "cassert",
            "assert.h",
            "cmath",
            "math.h",
            "helper_cuda.h",
            "helper_functions.h",
            "helper_string.h",
            "helper_timer.h",
            "helper_math.h",
            "iterator",
            "thread",
            "mutex",
            "array",
            "list",
            "queue",
            "deque",
            "exception",
            "stdexcept",
            "cerrno",
            "errno.h",
            "cinttypes",
            "inttypes.h",
            "cstdarg",
            "stdarg.h",
            "cstddef",
            "stddef.h",
            "cstdint",
            "stdint.h",
        )
    },
    **dict.fromkeys(
        ("cfloat", "float.h"),
        "#define FLT_MAX 3.402823466e+38F\n"
        "#define FLT_MIN 1.175494351e-38F\n#define FLT_EPSILON 1.192092896e-07F\n"
        "#define DBL_MAX 1.7976931348623158e+308\n#define DBL_MIN 2.2250738585072014e-308\n"
        "#define DBL_EPSILON 2.2204460492503131e-016\n",
    ),
    **dict.fromkeys(
        ("climits", "limits.h"),
        "#define INT_MAX 2147483647\n"
        "#define INT_MIN (-2147483647 - 1)\n#define UINT_MAX 4294967295U\n"
        "#define LLONG_MAX 9223372036854775807LL\n#define CHAR_BIT 8\n",
    ),
}
# stdint types device code uses without a header of its own
HOST_HEADERS["cstdint"] = HOST_HEADERS["stdint.h"] = (
    "typedef signed char int8_t; typedef unsigned char uint8_t; typedef short int16_t;\n"
    "typedef unsigned short uint16_t; typedef int int32_t; typedef unsigned int uint32_t;\n"
    "typedef long long int64_t; typedef unsigned long long uint64_t;\n"
)
HOST_HEADERS["cstddef"] = HOST_HEADERS["stddef.h"] = "typedef unsigned long size_t;\n"
# Pre-included on the NVRTC route: the C library's names device code uses, as glibc and CUDA's
# math headers define them (issue 30: INFINITY, M_PI and FLT_MAX in device code), and the host
# names a user header's host code leaves behind (stderr for an fprintf that is blanked anyway).
CLIB_HEADER = "perfcalc_clib.h"
HOST_HEADERS[CLIB_HEADER] = (
    "#pragma once\n"
    "#ifndef INFINITY\n#define INFINITY __int_as_float(0x7f800000)\n#endif\n"
    "#ifndef NAN\n#define NAN __int_as_float(0x7fffffff)\n#endif\n"
    "#ifndef HUGE_VALF\n#define HUGE_VALF INFINITY\n#endif\n"
    "#ifndef HUGE_VAL\n#define HUGE_VAL __longlong_as_double(0x7ff0000000000000LL)\n#endif\n"
    "#define M_E 2.7182818284590452354\n#define M_LOG2E 1.4426950408889634074\n"
    "#define M_LOG10E 0.43429448190325182765\n#define M_LN2 0.69314718055994530942\n"
    "#define M_LN10 2.30258509299404568402\n#define M_PI 3.14159265358979323846\n"
    "#define M_PI_2 1.57079632679489661923\n#define M_PI_4 0.78539816339744830962\n"
    "#define M_1_PI 0.31830988618379067154\n#define M_2_PI 0.63661977236758134308\n"
    "#define M_2_SQRTPI 1.12837916709551257390\n#define M_SQRT2 1.41421356237309504880\n"
    "#define M_SQRT1_2 0.70710678118654752440\n"
    + HOST_HEADERS["float.h"]
    + HOST_HEADERS["limits.h"]
    + "#define RAND_MAX 2147483647\n#define EXIT_SUCCESS 0\n#define EXIT_FAILURE 1\n"
    "#define stderr ((void *)0)\n#define stdout ((void *)0)\n"
)


class ParserUnavailable(PerfcalcError, RuntimeError):
    """tree-sitter (with the CUDA grammar) is not installed."""


@cache
def _parser() -> Any:
    try:
        import tree_sitter
        import tree_sitter_cuda
    except ImportError:
        raise ParserUnavailable(f"taking whole .cu files needs {PACKAGES} (pip install 'perfcalc[cuda]')") from None
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))


@dataclass(frozen=True)
class DeviceSource:
    """The device part of a file, the __global__ functions it defines, the launches it makes."""

    text: str
    kernels: tuple[str, ...]
    launches: tuple[str, ...]  # launched names as written: 'k', 'k<16>', 'ns::k<float, 256>'
    blanked_lines: int


def strip_host(text: str) -> DeviceSource:
    """Blank the host code of a .cu file, keeping every line where it was."""
    data = bytearray(text.encode("utf-8", errors="surrogateescape"))
    tree = _parser().parse(bytes(data))
    spans: list[tuple[int, int]] = []
    kernels: list[str] = []
    _walk(tree.root_node, bytes(data), spans, kernels)
    made, unresolved = _substituted(tree.root_node, bytes(data))
    launches = sorted(
        {k for k in _launches(tree.root_node, bytes(data)) if not unresolved & set(_WORD.findall(k))} | made
    )
    blanked = 0
    for start, end in spans:
        for i in range(start, end):
            if data[i] not in (10, 13):
                data[i] = 32
        blanked += bytes(data[start:end]).count(b"\n") + 1
    device = data.decode("utf-8", errors="surrogateescape")
    # `extern "C"__global__` lexes as a string literal with a user-defined suffix in NVRTC; the
    # same bytes with the blank moved read as nvcc reads them
    device = _EXTERN_C_GLUED.sub(r'extern"C" \1', device)
    return DeviceSource(device, tuple(kernels), tuple(launches), blanked)


_CONTAINERS = (
    "translation_unit",
    "declaration_list",
    "preproc_if",
    "preproc_ifdef",
    "preproc_else",
    "preproc_elif",
    "preproc_elifdef",
    "linkage_specification",
)


def _walk(node: Any, src: bytes, spans: list[tuple[int, int]], kernels: list[str]) -> None:
    for child in node.children:
        kind = child.type
        if kind in ("namespace_definition",):
            body = child.child_by_field_name("body")
            if body is not None:
                _walk(body, src, spans, kernels)
            continue
        if kind == "linkage_specification":  # extern "C" { ... }, or extern "C" one-declaration
            body = child.child_by_field_name("body")
            if body is not None and body.type == "declaration_list":
                _walk(body, src, spans, kernels)
            elif body is not None and _host_only(body, src, kernels):
                spans.append((child.start_byte, child.end_byte))
            continue
        if kind in _CONTAINERS:
            _walk(child, src, spans, kernels)
            continue
        if _host_only(child, src, kernels):
            spans.append((child.start_byte, child.end_byte))


def _host_only(child: Any, src: bytes, kernels: list[str]) -> bool:
    """Whether a top-level item is host code to blank (a kernel found is added to `kernels`):
    host functions (templates too), their explicit instantiations, host variables, host
    statements that launch kernels."""
    kind = child.type
    text = src[child.start_byte : child.end_byte].decode(errors="replace")
    if kind in ("function_definition", "template_declaration"):
        func = _function_of(child)
        if func is None:  # a class template or variable template: a type, keep it
            return False
        head = src[child.start_byte : _body_start(func)].decode(errors="replace")
        if _DEVICE_WORDS.search(head):
            if "__global__" in head:
                name = _function_name(func, src)
                if name:
                    kernels.append(name)
            return False
        return True
    if kind == "template_instantiation" or (kind == "declaration" and _INSTANTIATION.match(text)):
        return not _DEVICE_WORDS.search(text)  # `template void launch<int>(int, int*);`
    if kind == "declaration":
        return not (_DEVICE_VARS.search(text) or _DEVICE_WORDS.search(text) or _KEEP_DECL.search(text))
    if kind in ("expression_statement", "ERROR"):
        return "<<<" in text
    return False


def _function_of(node: Any) -> Any:
    if node.type == "function_definition":
        return node
    for child in node.children:
        if child.type == "function_definition":
            return child
        if child.type == "template_declaration":
            return _function_of(child)
    return None


def _body_start(func: Any) -> int:
    body = func.child_by_field_name("body")
    return body.start_byte if body is not None else func.end_byte


def _function_name(func: Any, src: bytes) -> str | None:
    declarator = func.child_by_field_name("declarator")
    while declarator is not None and declarator.type not in ("function_declarator",):
        declarator = declarator.child_by_field_name("declarator")
    if declarator is None:
        return None
    name = declarator.child_by_field_name("declarator")
    return None if name is None else src[name.start_byte : name.end_byte].decode()


def _launches(node: Any, src: bytes) -> list[str]:
    found: list[str] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type in ("call_expression", "kernel_call_expression") and any(
            c.type == "kernel_call_syntax" for c in n.children
        ):
            fn = n.child_by_field_name("function") or n.children[0]
            found.append(" ".join(src[fn.start_byte : fn.end_byte].decode().split()))
        stack.extend(n.children)
    return sorted(set(found))


def _substituted(root: Any, src: bytes) -> tuple[set[str], set[str]]:
    """Launches inside a host function template (`k<T><<<...>>>` in `template <typename T> void
    run()`) with the template arguments the file instantiates that function with (`run<int>(...)`
    or `template void run<int>(...);`): `k<int>`. Host code is blanked before NVRTC compiles, so
    these are the instantiations the program makes. Also returns the template parameter names,
    so launches still written with them can be told apart."""
    templates: dict[str, tuple[list[str], list[str]]] = {}  # host function -> (params, launches)
    for node in _nodes(root, "template_declaration"):
        func = _function_of(node)
        params_node = node.child_by_field_name("parameters")
        if func is None or params_node is None:
            continue
        head = src[node.start_byte : _body_start(func)].decode(errors="replace")
        name = _function_name(func, src)
        if name is None or _DEVICE_WORDS.search(head):
            continue
        params = [
            p.group(1)
            for p in re.finditer(
                r"(?:typename|class|\w+)\s+(\w+)\s*(?:[=,>]|$)",
                src[params_node.start_byte : params_node.end_byte].decode(),
            )
        ]
        body = func.child_by_field_name("body")
        if params and body is not None:
            templates[name.split("::")[-1]] = (params, _launches(body, src))
    found: set[str] = set()
    if not templates:
        return found, set()
    text = src.decode(errors="replace")
    for m in re.finditer(r"\b(\w+)\s*<([^<>;{}()]*(?:<[^<>;{}()]*>[^<>;{}()]*)*)>\s*\(", text):
        if m.group(1) not in templates:
            continue
        params, launches = templates[m.group(1)]
        args = [a.strip() for a in _split_args(m.group(2))]
        if len(args) != len(params):
            continue
        table = dict(zip(params, args, strict=True))
        found.update(_WORD.sub(_replacer(table), launch) for launch in launches)
    unresolved = {p for params, _ in templates.values() for p in params}
    return {f for f in found if not unresolved & set(_WORD.findall(f))}, unresolved


def _replacer(table: dict[str, str]) -> Any:
    def replace(word: re.Match[str]) -> str:
        return table.get(word.group(0), word.group(0))

    return replace


def _split_args(text: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += {"<": 1, ">": -1, "(": 1, ")": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return [*parts, cur]


def _nodes(root: Any, kind: str) -> list[Any]:
    found, stack = [], [root]
    while stack:
        n = stack.pop()
        if n.type == kind:
            found.append(n)
        stack.extend(n.children)
    return found


def choose_kernel(source: DeviceSource, requested: str | None) -> str:
    """The kernel to run: the one named (as C++ names it), or the file's only kernel. A template
    kernel named without its arguments is the instantiation the file launches, where it launches
    exactly one; where it launches several, the error lists them ready to paste."""
    if requested and ("<" in requested or requested not in source.kernels):
        return requested
    if not requested:
        if not source.kernels:
            raise CudaSyntaxError("the file defines no __global__ function")
        if len(source.kernels) > 1:
            raise CudaSyntaxError(
                f"the file defines {len(source.kernels)} kernels ({', '.join(source.kernels)}): name one with --kernel"
            )
        requested = source.kernels[0]
    launched = sorted({k for k in source.launches if "<" in k and k.split("<")[0].strip() == requested})
    if len(launched) > 1:
        raise CudaSyntaxError(
            f"kernel '{requested}' is a template the file launches {len(launched)} ways: name one with --kernel "
            f"({', '.join(repr(k) for k in launched)})"
        )
    return launched[0] if launched else requested


def host_span_at(text: str, line: int, whole_body: bool = False) -> tuple[int, int, str, tuple[str, ...]] | None:
    """The bytes to blank for a compile error at `line` (1-based) in host code: the statement of a
    host function holding it (`whole_body`: the inside of the function's body; the whole function
    where the error is in its head, e.g. a parameter of a type from a header that is not
    installed), or a whole host declaration, type or alias at file scope; with the function's name
    and the template kernels its launches name (to keep instantiating them). Blanking a statement
    rather than the body keeps the body's other statements, and so the launches and host template
    calls that instantiate kernels (a cuBLAS call beside a launch of `k` with deduced arguments).
    None where the line is in device code or nowhere blankable."""
    src = text.encode("utf-8", errors="surrogateescape")
    tree = _parser().parse(src)
    row = line - 1
    func = _innermost(tree.root_node, row, ("function_definition",))
    if func is not None:
        body = func.child_by_field_name("body")
        head = src[func.start_byte : _body_start(func)].decode(errors="replace")
        if body is None or _DEVICE_WORDS.search(head) or body.type != "compound_statement":
            return None
        name = _function_name(func, src) or "a host function"
        inside = src[body.start_byte + 1 : body.end_byte - 1]
        if row < body.start_point[0] or (row == body.start_point[0] and not inside.strip()):
            # in the signature (its body blanked already, where they share the line): the whole
            # function goes, e.g. a parameter of a type from a header that is not installed
            whole = func.parent if func.parent is not None and func.parent.type == "template_declaration" else func
            return whole.start_byte, whole.end_byte, name, ()
        part = None if whole_body else _statement_at(body, row)
        if part is not None:
            return part.start_byte, part.end_byte, name, tuple(k for k in _launches(part, src) if "<" in k)
        kept = tuple(k for k in _launches(body, src) if "<" in k)
        return body.start_byte + 1, body.end_byte - 1, name, kept
    decl = _innermost(tree.root_node, row, _FILE_SCOPE)
    while decl is not None and decl.parent is not None and decl.parent.type not in _CONTAINERS:
        decl = decl.parent  # the whole item at file scope (a typedef of a struct, not the struct)
    if decl is None or decl.parent is None:
        return None
    body_text = src[decl.start_byte : decl.end_byte].decode(errors="replace")
    if _DEVICE_VARS.search(body_text) or _DEVICE_WORDS.search(body_text):
        return None
    return decl.start_byte, decl.end_byte, "a host declaration", ()


# what may be blanked at file scope when a compile error is in it (and nothing in it is device code)
_FILE_SCOPE = (
    "declaration",
    "type_definition",
    "alias_declaration",
    "namespace_alias_definition",
    "struct_specifier",
    "class_specifier",
)


def _statement_at(body: Any, row: int) -> Any:
    """The innermost statement of a block inside `body` whose lines hold `row` (a declaration,
    an expression, a loop...), or None."""
    found, deepest, stack = None, -1, [(body, 0)]
    while stack:
        n, depth = stack.pop()
        for c in n.children:
            if not (c.start_point[0] <= row <= c.end_point[0]) or c.type in ("{", "}", "comment"):
                continue
            if n.type == "compound_statement" and c.type != "compound_statement" and depth > deepest:
                found, deepest = c, depth
            stack.append((c, depth + 1))
    return found


def _innermost(node: Any, row: int, kinds: tuple[str, ...]) -> Any:
    """The deepest node of one of `kinds` whose lines hold `row`."""
    found, deepest = None, -1
    stack = [(node, 0)]
    while stack:
        n, depth = stack.pop()
        if not (n.start_point[0] <= row <= n.end_point[0]):
            continue
        if n.type in kinds and depth > deepest:
            found, deepest = n, depth
        stack.extend((c, depth + 1) for c in n.children)
    return found
