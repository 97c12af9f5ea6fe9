"""Fixtures several test modules share: a cache folder of the run's own (always), a private PTX
cache, a small user catalog, a small device file of a made-up CC, and the CLI called in-process.

Each builds its files from the shipped data (devices/, kernels.yaml), so they follow the
schema as it changes, and lives in the test's own temporary directory.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner, Result

from perfcalc.cli import app
from perfcalc.specs.data_files import data_path


@pytest.fixture(autouse=True, scope="session")
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """No test reads or writes the user's own cache folder (compiled PTX, parsed data files):
    the whole run, subprocesses included, uses one of its own."""
    before = os.environ.get("PERFCALC_CACHE_DIR")
    folder = tmp_path_factory.mktemp("perfcalc-cache")
    os.environ["PERFCALC_CACHE_DIR"] = str(folder)
    yield folder
    if before is None:
        os.environ.pop("PERFCALC_CACHE_DIR", None)
    else:
        os.environ["PERFCALC_CACHE_DIR"] = before


@pytest.fixture
def ptx_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PTX cache of the test's own (PERFCALC_CACHE_DIR): no test sees another's compiles."""
    cache = tmp_path / "ptx-cache"
    monkeypatch.setenv("PERFCALC_CACHE_DIR", str(cache))
    return cache


@pytest.fixture
def small_catalog(tmp_path: Path) -> Path:
    """A user's kernel catalog with one kernel, `my_copy` (the shipped copy_offset)."""
    shipped = yaml.safe_load(data_path("kernels.yaml").read_text(encoding="utf-8"))
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump({"schema_version": 1, "kernels": {"my_copy": shipped["kernels"]["copy_offset"]}}))
    return path


@pytest.fixture
def small_device(tmp_path: Path) -> Path:
    """A contributor's CC 13.0: the shipped cc_12_0.yaml with its CC and name changed."""
    data = yaml.safe_load(data_path("devices/cc_12_0.yaml").read_text(encoding="utf-8"))
    data["cc"] = "13.0"
    data["architecture"] = "made-up next generation"
    path = tmp_path / "cc_13_0.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


@dataclass
class Cli:
    """`perfcalc ARGS` in this process: `ok` expects exit 0, `error` the one-line exit-2 refusal."""

    runner: CliRunner

    def ok(self, *argv: object) -> Result:
        result = self.runner.invoke(app, [str(a) for a in argv])
        assert result.exit_code == 0, (argv, result.stderr)
        return result

    def error(self, *argv: object) -> str:
        result = self.runner.invoke(app, [str(a) for a in argv])
        assert result.exit_code == 2 and result.stdout == "", (argv, result.stdout)
        assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
        return result.stderr


@pytest.fixture
def cli() -> Cli:
    return Cli(CliRunner())
