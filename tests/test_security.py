"""Issue 36's security cases: nothing runs that the user did not ask for, and no cache answers for
a file that changed.

Expected values: a marker file that a planted module would write (it must never appear), and
the value a kernel stores from a header (the header's own `#define`, read afresh each run).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from perfcalc.sim import run_kernel
from perfcalc.sim.ptx import compile as ptx_run
from perfcalc.sim.ptx import nvrtc
from perfcalc.specs import get_arch

needs_nvrtc = pytest.mark.skipif(not nvrtc.available(), reason="NVRTC (pip install nvidia-cuda-nvrtc) is not installed")
H100 = get_arch("9.0")
PLANT = "open({marker!r}, 'w').write('imported from the working directory')\n"


def _console_script() -> str:
    """The installed `perfcalc` script (a `python -m perfcalc` would put the working directory on
    the parent's own path, which is Python's doing, not perfcalc's)."""
    beside = Path(sys.executable).with_name("perfcalc")
    found = str(beside) if beside.is_file() else shutil.which("perfcalc")
    if found is None:
        pytest.skip("the perfcalc console script is not installed (README's install command installs it)")
    return found


def _plant(folder: Path, marker: Path) -> None:
    """A folder as a cloned repository might have it: a json.py and a perfcalc/ package that
    write `marker` when imported."""
    (folder / "json.py").write_text(PLANT.format(marker=str(marker)))
    (folder / "perfcalc").mkdir()
    (folder / "perfcalc" / "__init__.py").write_text(PLANT.format(marker=str(marker)))
    (folder / "perfcalc" / "sim").mkdir()
    (folder / "perfcalc" / "sim" / "__init__.py").write_text(PLANT.format(marker=str(marker)))


@needs_nvrtc
@pytest.mark.parametrize(
    "command",
    [
        ["run", "copy_offset", "--engine", "ptx"],
        ["run", "matmul_tiled", "--engine", "ptx", "-p", "Width=32"],
        [
            "run",
            "--source",
            "k.cu",
            "--kernel",
            "k",
            "--engine",
            "auto",
            "--grid",
            "1",
            "--block",
            "32",
            "--array",
            "out=float32:32",
        ],
        ["matmul", "--width", "32", "--engine", "ptx"],
    ],
    ids=["run-ptx", "run-catalog-ptx", "run-source-auto", "matmul-ptx"],
)
def test_code_in_the_working_directory_never_runs(tmp_path, command):
    """Issue 36: the compile child was `python -c ...`, which puts the working directory first
    on sys.path, so a json.py there was imported and run. The child now starts isolated."""
    work = tmp_path / "clone"
    work.mkdir()
    marker = tmp_path / "MARKER"
    _plant(work, marker)
    (work / "k.cu").write_text("__global__ void k(float *out) { out[threadIdx.x] = 2.0f; }\n")
    env = {**os.environ, "PERFCALC_CACHE_DIR": str(tmp_path / "cache")}
    env.pop("PYTHONPATH", None)
    done = subprocess.run([_console_script(), *command], cwd=work, env=env, capture_output=True, text=True)
    assert not marker.exists(), "a module from the working directory was imported"
    assert done.returncode == 0, done.stderr


def test_the_compile_child_is_isolated():
    """The child's command line: this interpreter with -I (no working directory, PYTHONPATH or
    user site-packages on its path) running a file that imports only the standard library."""
    command = nvrtc.child_command()
    assert command[:2] == [sys.executable, "-I"]
    child = Path(command[2]).read_text()
    imports = {line.split()[1].split(".")[0] for line in child.splitlines() if line.startswith(("import ", "from "))}
    assert imports <= {"__future__", "ctypes", "json", "sys", "typing"}, imports


# ---- the compile cache keys on every file the preprocessor can reach --------------------------

KERNEL = "__global__ void k(int *out) {{ out[threadIdx.x] = {value}; }}\n"


def _run(path: Path, include_dirs: tuple[str, ...] = (), cwd: Path | None = None) -> int:
    """The value k stores, compiled from `path` in a fresh process's state (the in-process memo
    cleared, so the disk cache answers if its key matches)."""
    ptx_run._COMPILED.clear()
    out = np.zeros(32, np.int32)
    here = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        run_kernel(
            path.read_text(),
            "k",
            1,
            32,
            {"out": out},
            H100,
            engine="ptx",
            source_name=str(path),
            include_dirs=include_dirs,
        )
    finally:
        os.chdir(here)
    return int(out[0])


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


@needs_nvrtc
@pytest.mark.usefixtures("ptx_cache")
def test_a_header_found_through_an_include_dir_with_angle_brackets(tmp_path):
    _write(tmp_path / "inc" / "h.h", "#define VALUE 1\n")
    _write(tmp_path / "k.cu", "#include <h.h>\n" + KERNEL.format(value="VALUE"))
    assert _run(tmp_path / "k.cu", (str(tmp_path / "inc"),)) == 1
    _write(tmp_path / "inc" / "h.h", "#define VALUE 2\n")
    assert _run(tmp_path / "k.cu", (str(tmp_path / "inc"),)) == 2


@needs_nvrtc
@pytest.mark.usefixtures("ptx_cache")
def test_a_nested_include(tmp_path):
    _write(tmp_path / "a.h", '#include "val.h"\n')
    _write(tmp_path / "val.h", "#define VALUE 1\n")
    _write(tmp_path / "k.cu", '#include "a.h"\n' + KERNEL.format(value="VALUE"))
    assert _run(tmp_path / "k.cu") == 1
    _write(tmp_path / "val.h", "#define VALUE 2\n")
    assert _run(tmp_path / "k.cu") == 2


@needs_nvrtc
@pytest.mark.usefixtures("ptx_cache")
def test_an_include_through_a_macro(tmp_path):
    _write(tmp_path / "val.h", "#define VALUE 1\n")
    _write(tmp_path / "k.cu", '#define H "val.h"\n#include H\n' + KERNEL.format(value="VALUE"))
    assert _run(tmp_path / "k.cu") == 1
    _write(tmp_path / "val.h", "#define VALUE 2\n")
    assert _run(tmp_path / "k.cu") == 2


@needs_nvrtc
@pytest.mark.usefixtures("ptx_cache")
def test_an_include_through_a_macro_defined_in_a_header(tmp_path):
    _write(tmp_path / "names.h", '#define H "val.h"\n')
    _write(tmp_path / "val.h", "#define VALUE 1\n")
    _write(tmp_path / "k.cu", '#include "names.h"\n#include H\n' + KERNEL.format(value="VALUE"))
    assert _run(tmp_path / "k.cu") == 1
    _write(tmp_path / "val.h", "#define VALUE 2\n")
    assert _run(tmp_path / "k.cu") == 2


@needs_nvrtc
@pytest.mark.usefixtures("ptx_cache")
def test_the_same_relative_include_dir_in_two_working_directories(tmp_path):
    for value, name in ((1, "one"), (2, "two")):
        _write(tmp_path / name / "inc" / "h.h", f"#define VALUE {value}\n")
    _write(tmp_path / "k.cu", "#include <h.h>\n" + KERNEL.format(value="VALUE"))
    assert _run(tmp_path / "k.cu", ("inc",), cwd=tmp_path / "one") == 1
    assert _run(tmp_path / "k.cu", ("inc",), cwd=tmp_path / "two") == 2


@needs_nvrtc
@pytest.mark.usefixtures("ptx_cache")
def test_a_header_that_appears_earlier_in_the_search_order(tmp_path):
    """A new h.h in the first include folder shadows the one in the second, as in nvcc."""
    _write(tmp_path / "second" / "h.h", "#define VALUE 1\n")
    (tmp_path / "first").mkdir()
    _write(tmp_path / "k.cu", "#include <h.h>\n" + KERNEL.format(value="VALUE"))
    dirs = (str(tmp_path / "first"), str(tmp_path / "second"))
    assert _run(tmp_path / "k.cu", dirs) == 1
    _write(tmp_path / "first" / "h.h", "#define VALUE 2\n")
    assert _run(tmp_path / "k.cu", dirs) == 2


@needs_nvrtc
@pytest.mark.usefixtures("ptx_cache")
def test_an_unresolvable_include_is_compiled_every_time(tmp_path, monkeypatch):
    """A computed include name (token pasting) cannot be followed before the compile: such a
    file is never answered from the cache."""
    _write(tmp_path / "val.h", "#define VALUE 1\n")
    _write(
        tmp_path / "k.cu",
        "#define STR(x) #x\n#define XSTR(x) STR(x)\n#include XSTR(val.h)\n" + KERNEL.format(value="VALUE"),
    )
    assert _run(tmp_path / "k.cu") == 1
    _write(tmp_path / "val.h", "#define VALUE 2\n")
    assert _run(tmp_path / "k.cu") == 2


@needs_nvrtc
@pytest.mark.usefixtures("ptx_cache")
def test_an_unchanged_file_is_answered_from_the_cache(tmp_path, monkeypatch):
    """The other side of the key: with nothing changed, the second run compiles nothing."""
    _write(tmp_path / "a.h", '#include "val.h"\n')
    _write(tmp_path / "val.h", "#define VALUE 7\n")
    _write(tmp_path / "k.cu", '#include "a.h"\n' + KERNEL.format(value="VALUE"))
    assert _run(tmp_path / "k.cu") == 7

    def refuse(*_a, **_k):
        raise AssertionError("NVRTC was called again")

    monkeypatch.setattr(nvrtc, "compile_isolated", refuse)
    assert _run(tmp_path / "k.cu") == 7
