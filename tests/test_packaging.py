"""The wheel carries the device files and the kernel catalog; the package layers stay separate."""

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from perfcalc.specs import known_ccs

ROOT = Path(__file__).resolve().parents[1]


def _has(module: str) -> bool:
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _has("hatchling"), reason="hatchling (the build backend, in the dev extra) is not installed")
def test_wheel_installs_and_finds_all_device_files(tmp_path):
    """Build the wheel, install it into a fresh venv, and load every CC from inside the wheel."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next((tmp_path / "dist").glob("perfcalc-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
    )
    # The fresh venv borrows this environment's dependencies (PyYAML, NumPy, ...) but not perfcalc.
    site = subprocess.run(
        [str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(site, "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    code = (
        "import perfcalc, perfcalc.specs as s; print(perfcalc.__file__); "
        "print(len(s.known_ccs())); print(s.get_arch('sm_90').max_warps_per_sm); "
        "from perfcalc.specs.data_files import data_path; print(data_path('kernels.yaml').exists())"
    )
    out = subprocess.run(
        [str(py), "-c", code],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    ).stdout.split()
    assert out[0].startswith(str(venv)), "perfcalc must come from the wheel, not the checkout"
    assert out[1:] == [str(len(known_ccs())), "64", "True"]
    # the licence and the JSON Schemas ship; README's commands that need no repository file
    # print, from the installed wheel and outside the checkout, what README shows (#11)
    assert list(Path(site).glob("perfcalc-*.dist-info/licenses/LICENSE"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    from test_readme import _trimmed, examples

    checked = 0
    for line, command, expected in examples():
        if "tests/" in command or "benchmarks/" in command or ".cu" in command:
            continue
        shell = command.replace("perfcalc", f'"{py}" -m perfcalc', 1)
        done = subprocess.run(
            ["bash", "-c", f"set -o pipefail; {shell} 2>&1"], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        want, got = _trimmed(expected), _trimmed(done.stdout.splitlines())
        if want and want[0] == "...":
            want, got = want[1:], got[-(len(want) - 1) :]
        assert got == want, f"README.md line {line} from the wheel: {command}"
        checked += 1
    assert checked >= 10
    schema = subprocess.run([str(py), "-m", "perfcalc", "schema", "run"], env=env, capture_output=True, text=True)
    assert schema.returncode == 0 and '"title": "perfcalc run --format json"' in schema.stdout


def _imports_of(package: str) -> list[str]:
    """Import every module of a package in a fresh interpreter; report what got loaded."""
    code = (
        "import importlib, pkgutil, sys\n"
        f"pkg = importlib.import_module('{package}')\n"
        "for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "    importlib.import_module(m.name)\n"
        "print(' '.join(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return out.stdout.split()


@pytest.mark.parametrize("package", ["perfcalc.specs", "perfcalc.memory", "perfcalc.model", "perfcalc.sim"])
def test_core_layers_do_not_import_the_cli_or_renderers(package):
    """DESIGN.md: nothing below cli imports typer; nothing below report imports tabulate or
    matplotlib; model/ and sim/ do not import each other (both price through memory/)."""
    loaded = _imports_of(package)
    for name in ("typer", "tabulate", "matplotlib", "perfcalc.cli", "perfcalc.report"):
        assert name not in loaded, f"{package} imports {name}"
    other = {"perfcalc.model": "perfcalc.sim", "perfcalc.sim": "perfcalc.model"}.get(package)
    if other:
        crossing = [m for m in loaded if m.startswith(other + ".")]
        assert not crossing, f"{package} imports {crossing}"
    if package in ("perfcalc.specs", "perfcalc.memory"):
        assert not [m for m in loaded if m.startswith(("perfcalc.model.", "perfcalc.sim."))]


@pytest.mark.parametrize(
    ("front_end", "other"), [("perfcalc.sim.csubset", "perfcalc.sim.ptx"), ("perfcalc.sim.ptx", "perfcalc.sim.csubset")]
)
def test_front_ends_never_import_each_other(front_end, other):
    """DESIGN.md / issue #8: one instrumented machine, two front ends that never import each
    other (only sim/launch.py's run_kernel picks one, lazily)."""
    loaded = _imports_of(front_end)
    crossing = [m for m in loaded if m == other or m.startswith(other + ".")]
    assert not crossing, f"{front_end} imports {crossing}"


def test_python_dash_m_runs_the_cli():
    """`python -m perfcalc` is the same program as the console script (a real subprocess)."""
    result = subprocess.run(
        [sys.executable, "-m", "perfcalc", "devices", "show", "sm_75", "--format", "csv"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "max_warps_per_sm,32" in result.stdout  # CC 7.5: 32 warps per SM (PG11/PG13)
