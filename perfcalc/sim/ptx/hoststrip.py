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
_DEVICE_VARS = re.compile(r"\b(__device__|__constant__|__shared__|__managed__)\b")
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
    launches = _launches(tree.root_node, bytes(data))
    blanked = 0
    for start, end in spans:
        for i in range(start, end):
            if data[i] not in (10, 13):
                data[i] = 32
        blanked += bytes(data[start:end]).count(b"\n") + 1
    return DeviceSource(data.decode("utf-8", errors="surrogateescape"), tuple(kernels), tuple(launches), blanked)


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
        if kind in _CONTAINERS:
            _walk(child, src, spans, kernels)
            continue
        if kind in ("function_definition", "template_declaration"):
            func = _function_of(child)
            if func is None:  # a class template or variable template: a type, keep it
                continue
            head = src[child.start_byte : _body_start(func)].decode(errors="replace")
            if _DEVICE_WORDS.search(head):
                if "__global__" in head:
                    name = _function_name(func, src)
                    if name:
                        kernels.append(name)
                continue
            spans.append((child.start_byte, child.end_byte))
            continue
        if kind == "declaration":
            text = src[child.start_byte : child.end_byte].decode(errors="replace")
            if _DEVICE_VARS.search(text) or _DEVICE_WORDS.search(text) or _KEEP_DECL.search(text):
                continue
            spans.append((child.start_byte, child.end_byte))
            continue
        if kind in ("expression_statement", "ERROR"):
            text = src[child.start_byte : child.end_byte].decode(errors="replace")
            if "<<<" in text:
                spans.append((child.start_byte, child.end_byte))


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


def choose_kernel(source: DeviceSource, requested: str | None) -> str:
    """The kernel to run: the one named (as C++ names it), or the file's only kernel."""
    if requested:
        return requested
    if len(source.kernels) == 1:
        name = source.kernels[0]
        launched = [launch for launch in source.launches if launch.split("<")[0].strip() == name]
        return launched[0] if len(launched) == 1 else name
    if not source.kernels:
        raise CudaSyntaxError("the file defines no __global__ function")
    raise CudaSyntaxError(
        f"the file defines {len(source.kernels)} kernels ({', '.join(source.kernels)}): name one with --kernel"
    )
