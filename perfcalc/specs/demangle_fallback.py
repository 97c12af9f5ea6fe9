"""A small Itanium C++ ABI demangler: the fallback where no C++ runtime's demangler is found.

perfcalc/model/demangle.py asks the C++ runtime (`__cxa_demangle`, through cxxfilt) or the
toolchain's `c++filt` first; this one answers only when neither is there (e.g. Windows without
a toolchain). It gives up (None) on what it does not cover, and the caller says so.
"""

from __future__ import annotations

# Covers what kernel signatures usually contain: namespaces, builtin and class types, pointers,
# references, cv-qualifiers, template arguments (types and integer/bool literals) and
# substitutions (S_, S0_, ...). Anything else (function types, template parameters, lambdas)
# returns None and the mangled name is shown. Output follows c++filt's spelling.

_BUILTINS = {
    "v": "void",
    "w": "wchar_t",
    "b": "bool",
    "c": "char",
    "a": "signed char",
    "h": "unsigned char",
    "s": "short",
    "t": "unsigned short",
    "i": "int",
    "j": "unsigned int",
    "l": "long",
    "m": "unsigned long",
    "x": "long long",
    "y": "unsigned long long",
    "n": "__int128",
    "o": "unsigned __int128",
    "f": "float",
    "d": "double",
    "e": "long double",
    "g": "__float128",
    "z": "...",
}
_STD_ABBREVIATIONS = {
    "Sa": "std::allocator",
    "Sb": "std::basic_string",
    "Ss": "std::string",
    "Si": "std::istream",
    "So": "std::ostream",
    "Sd": "std::iostream",
}
_LITERAL_SUFFIX = {"i": "", "j": "u", "l": "l", "m": "ul", "x": "ll", "y": "ull"}


class _Unsupported(Exception):
    """The name uses a part of the ABI this small demangler does not cover."""


class _Demangler:
    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0
        self.subs: list[str] = []

    def peek(self, n: int = 1) -> str:
        return self.text[self.pos : self.pos + n]

    def take(self, n: int = 1) -> str:
        part = self.peek(n)
        if len(part) < n:
            raise _Unsupported
        self.pos += n
        return part

    def number(self) -> int:
        start = self.pos
        while self.peek().isdigit():
            self.pos += 1
        if start == self.pos:
            raise _Unsupported
        return int(self.text[start : self.pos])

    def source_name(self) -> str:
        length = self.number()
        name = self.take(length)
        if name.startswith("_GLOBAL__N"):
            return "(anonymous namespace)"
        return name

    def template_args(self) -> str:
        self.take()  # 'I'
        args = []
        while self.peek() != "E":
            args.append(self.literal() if self.peek() == "L" else self.type())
        self.take()
        inner = ", ".join(args)
        return f"<{inner} >" if inner.endswith(">") else f"<{inner}>"

    def literal(self) -> str:
        self.take()  # 'L'
        kind = self.take()
        negative = self.peek() == "n"
        if negative:
            self.take()
        value = self.number()
        self.take() if self.peek() == "E" else None
        if kind == "b":
            return "true" if value else "false"
        if kind not in _LITERAL_SUFFIX:
            raise _Unsupported
        return f"{'-' if negative else ''}{value}{_LITERAL_SUFFIX[kind]}"

    def substitution(self) -> str:
        self.take()  # 'S'
        if self.peek() == "_":
            self.take()
            index = 0
        else:
            start = self.pos
            while self.peek() and self.peek() != "_":
                self.pos += 1
            self.take()
            index = int(self.text[start : self.pos - 1], 36) + 1
        if index >= len(self.subs):
            raise _Unsupported
        return self.subs[index]

    def unqualified_prefix(self) -> tuple[str, bool]:
        """One name component and whether it is new (a substitution candidate)."""
        two = self.peek(2)
        if two == "St":
            self.take(2)
            return "std::" + self.source_name(), True
        if two in _STD_ABBREVIATIONS:
            self.take(2)
            return _STD_ABBREVIATIONS[two], False
        if self.peek() == "S":
            return self.substitution(), False
        if self.peek().isdigit():
            return self.source_name(), True
        raise _Unsupported

    def nested_name(self, is_function: bool) -> tuple[str, bool]:
        """N ... E: the qualified name and whether it ends in template arguments.

        Every prefix is a substitution candidate; the function's own complete name is not.
        """
        self.take()  # 'N'
        if self.peek() in ("K", "V", "r"):
            raise _Unsupported  # cv-qualified member functions are not kernels
        name, templated = "", False
        while self.peek() != "E":
            if self.peek() == "I":
                name += self.template_args()
                templated, new = True, True
            else:
                part, new = self.unqualified_prefix()
                name = f"{name}::{part}" if name else part
                templated = False
            final = self.peek() == "E"
            if new and not (final and is_function):
                self.subs.append(name)
        self.take()
        return name, templated

    def unscoped_name(self, is_function: bool) -> tuple[str, bool]:
        name, new = self.unqualified_prefix()
        if self.peek() == "I":
            if new:
                self.subs.append(name)
            name += self.template_args()
            if not is_function:
                self.subs.append(name)
            return name, True
        if new and not is_function:
            self.subs.append(name)
        return name, False

    def type(self) -> str:
        c = self.peek()
        if c in _BUILTINS:
            self.take()
            return _BUILTINS[c]
        if c in ("P", "R", "O"):
            self.take()
            inner = self.type()
            result = inner + {"P": "*", "R": "&", "O": "&&"}[c]
            self.subs.append(result)
            return result
        if c in ("K", "V", "r"):
            quals = []
            while self.peek() in ("K", "V", "r"):
                quals.append(self.take())
            inner = self.type()
            words = [w for q, w in (("K", "const"), ("V", "volatile"), ("r", "restrict")) if q in quals]
            result = f"{inner} {' '.join(words)}"
            self.subs.append(result)
            return result
        if c == "N":
            return self.nested_name(is_function=False)[0]
        if c.isdigit() or c == "S":
            return self.unscoped_name(is_function=False)[0]
        raise _Unsupported

    def function(self) -> str:
        if self.take(2) != "_Z":
            raise _Unsupported
        if self.peek() == "N":
            name, templated = self.nested_name(is_function=True)
        else:
            name, templated = self.unscoped_name(is_function=True)
        prefix = f"{self.type()} " if templated else ""
        params = []
        while self.pos < len(self.text):
            params.append(self.type())
        if params == ["void"]:
            params = []
        return f"{prefix}{name}({', '.join(params)})"


def demangle_builtin(name: str) -> str | None:
    """'_Z15MatrixMulKernelPfS_S_i' -> 'MatrixMulKernel(float*, float*, float*, int)'.

    Returns None for names that are not mangled (extern "C" kernels) or use parts of the
    Itanium ABI this small demangler leaves out.
    """
    if not name.startswith("_Z") or len(name) > MAX_MANGLED:
        return None
    try:
        return _Demangler(name).function()
    except (_Unsupported, ValueError, RecursionError):  # 5,000 nested pointers: shown mangled
        return None


MAX_MANGLED = 4096  # characters; longer names are shown as printed (nested far too deep to read)
