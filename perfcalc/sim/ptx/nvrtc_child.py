"""NVRTC through ctypes, standard library only: run as a script in the compile child, and
imported by nvrtc.py for in-process use.

Why a script of its own: the child is started as `python -I nvrtc_child.py`. Isolated mode puts
neither the working directory nor the script's folder on `sys.path` and ignores PYTHONPATH and
the user's site-packages, so a `json.py` or a `perfcalc/` folder where the user runs perfcalc is
never imported (issue 36). This file therefore imports nothing but the standard library: the
parent resolves the library's path and passes it in the request.

The request on stdin is JSON: {library, source, name, options, names, headers, max_bytes}; the
reply on stdout is JSON: {ptx, lowered, log, version} or {error}.
"""

from __future__ import annotations

import ctypes
import json
import sys
from typing import Any


class NvrtcFailure(Exception):
    """NVRTC refused the program or an API call failed; the message is NVRTC's own."""


def load(path: str) -> ctypes.CDLL:
    """The library at `path` with the signatures used here declared (OSError if it cannot be
    loaded, AttributeError if it is not NVRTC)."""
    lib = ctypes.CDLL(path)
    c = ctypes
    lib.nvrtcCreateProgram.argtypes = [
        c.POINTER(c.c_void_p),
        c.c_char_p,
        c.c_char_p,
        c.c_int,
        c.POINTER(c.c_char_p),
        c.POINTER(c.c_char_p),
    ]
    lib.nvrtcCompileProgram.argtypes = [c.c_void_p, c.c_int, c.POINTER(c.c_char_p)]
    lib.nvrtcGetPTXSize.argtypes = [c.c_void_p, c.POINTER(c.c_size_t)]
    lib.nvrtcGetPTX.argtypes = [c.c_void_p, c.c_char_p]
    lib.nvrtcGetProgramLogSize.argtypes = [c.c_void_p, c.POINTER(c.c_size_t)]
    lib.nvrtcGetProgramLog.argtypes = [c.c_void_p, c.c_char_p]
    lib.nvrtcAddNameExpression.argtypes = [c.c_void_p, c.c_char_p]
    lib.nvrtcGetLoweredName.argtypes = [c.c_void_p, c.c_char_p, c.POINTER(c.c_char_p)]
    lib.nvrtcDestroyProgram.argtypes = [c.POINTER(c.c_void_p)]
    lib.nvrtcVersion.argtypes = [c.POINTER(c.c_int), c.POINTER(c.c_int)]
    return lib


def version(lib: ctypes.CDLL) -> str:
    """'13.0' for the loaded library."""
    major, minor = ctypes.c_int(), ctypes.c_int()
    lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    return f"{major.value}.{minor.value}"


def compile_program(
    lib: ctypes.CDLL, source: str, name: str, options: list[str], names: list[str], headers: dict[str, str]
) -> dict[str, Any]:
    """{ptx, lowered, log} of one compilation; NvrtcFailure with NVRTC's first error line."""
    prog = ctypes.c_void_p()
    count = len(headers)
    contents = (ctypes.c_char_p * max(count, 1))(*(v.encode() for v in headers.values()))
    keys = (ctypes.c_char_p * max(count, 1))(*(k.encode() for k in headers))
    _check(
        lib.nvrtcCreateProgram(
            ctypes.byref(prog),
            source.encode(),
            name.encode(),
            count,
            contents if count else None,
            keys if count else None,
        ),
        "nvrtcCreateProgram",
    )
    try:
        for expr in names:
            _check(lib.nvrtcAddNameExpression(prog, expr.encode()), "nvrtcAddNameExpression")
        opts = (ctypes.c_char_p * max(len(options), 1))(*(o.encode() for o in options))
        status = lib.nvrtcCompileProgram(prog, len(options), opts)
        log = _log(lib, prog)
        if status != 0:
            first = next((ln for ln in log.splitlines() if "error" in ln), log.strip()[:300])
            raise NvrtcFailure(f"NVRTC {version(lib)} could not compile {name}: {first.strip()}")
        size = ctypes.c_size_t()
        lib.nvrtcGetPTXSize(prog, ctypes.byref(size))
        buf = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetPTX(prog, buf)
        lowered = {}
        for expr in names:
            out = ctypes.c_char_p()
            if lib.nvrtcGetLoweredName(prog, expr.encode(), ctypes.byref(out)) == 0 and out.value:
                lowered[expr] = out.value.decode()
        return {"ptx": buf.value.decode(), "lowered": lowered, "log": log}
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))


def _log(lib: ctypes.CDLL, prog: ctypes.c_void_p) -> str:
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    buf = ctypes.create_string_buffer(max(size.value, 1))
    lib.nvrtcGetProgramLog(prog, buf)
    return buf.value.decode(errors="replace")


def _check(status: int, what: str) -> None:
    if status != 0:
        raise NvrtcFailure(f"NVRTC {what} failed with status {status}")


def _limit_memory(max_bytes: int) -> None:
    """Cap this process's address space, so a compile that grows without end fails here (NVRTC
    reports out of memory, or the child dies) instead of exhausting the machine."""
    try:
        import resource
    except ImportError:  # not on Windows: the time limit still applies
        return
    if max_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (max_bytes, max_bytes))


def main() -> None:
    request = json.loads(sys.stdin.read())
    try:
        lib = load(request["library"])
        _limit_memory(int(request.get("max_bytes", 0)))
        out = compile_program(
            lib, request["source"], request["name"], request["options"], request["names"], request["headers"]
        )
        out["version"] = version(lib)
    except MemoryError:
        out = {"error": "memory", "memory": True}
    except (NvrtcFailure, OSError, AttributeError) as exc:
        out = {"error": str(exc)}
    sys.stdout.write(json.dumps(out))


if __name__ == "__main__":
    main()
