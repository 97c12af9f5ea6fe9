"""C++ kernel names as c++filt prints them, from a maintained demangler.

ptxas logs, PTX and Nsight name kernels by their Itanium-ABI mangled names
(`_Z5scaleIfLi128EEvPKT_PS0_i`). The C++ runtime's own `__cxa_demangle` (libstdc++ or libc++,
called through the cxxfilt package) reads all of them: templates with `T_` parameters, Thrust
and CUB kernels, lambdas, function pointers, array parameters. Where no C++ runtime library is
found, the toolchain's `c++filt` or `cu++filt` on PATH is asked; where neither is there,
perfcalc's small built-in demangler (demangle_fallback.py) answers what it covers, and
`why_mangled` says why a name stays mangled.
"""

from __future__ import annotations

import functools
import shutil
import subprocess

from perfcalc.specs.demangle_fallback import MAX_MANGLED, demangle_builtin

_INSTALL_HINT = "no C++ demangler found: install a C++ runtime (libstdc++) or put c++filt on PATH"


def demangle(name: str) -> str | None:
    """`name` as c++filt prints it, or None where it is not a mangled C++ name (extern "C"
    kernels) or no demangler can read it."""
    if not name.startswith("_Z") or len(name) > MAX_MANGLED:
        return None
    return _demangle(name)


@functools.lru_cache(maxsize=4096)
def _demangle(name: str) -> str | None:
    way = _demangler()
    if way == "runtime":
        import cxxfilt

        try:
            return cxxfilt.demangle(name)
        except cxxfilt.Error:  # InvalidName: not a valid mangled name
            return None
    if way is not None:
        try:
            done = subprocess.run([way, name], capture_output=True, text=True, timeout=10, check=False)
        except (OSError, subprocess.SubprocessError):
            return demangle_builtin(name)
        text = done.stdout.strip()
        return text if done.returncode == 0 and text and text != name else None
    return demangle_builtin(name)


@functools.cache
def _demangler() -> str | None:
    """'runtime' (the C++ runtime's __cxa_demangle), a c++filt path, or None (built-in only)."""
    try:
        import cxxfilt

        cxxfilt.demangle("_Z1fv")
        return "runtime"
    except Exception:  # no cxxfilt, or no libstdc++/libc++ for it to load
        pass
    return shutil.which("c++filt") or shutil.which("cu++filt")


def demangler_used() -> str:
    """Which demangler answers here, for messages and tests."""
    way = _demangler()
    return {"runtime": "the C++ runtime's __cxa_demangle (cxxfilt)", None: "perfcalc's built-in fallback"}.get(
        way, str(way)
    )


def why_mangled(name: str) -> str | None:
    """Why `name` is shown mangled (None when it is demangled or not a C++ name)."""
    if not name.startswith("_Z") or demangle(name) is not None:
        return None
    if len(name) > MAX_MANGLED:
        return f"{len(name)} characters, over the {MAX_MANGLED} perfcalc demangles"
    if _demangler() is None:
        return f"the built-in demangler does not cover it ({_INSTALL_HINT})"
    return "not a valid Itanium C++ ABI name"
