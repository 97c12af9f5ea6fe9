"""Parsed data files are kept as JSON keyed by their text (specs/yaml_load.py): a second read of
the same text imports no yaml and gives the same mapping; any change of text, data JSON cannot
return unchanged, a broken cache file or an unwritable cache folder falls back to parsing."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from perfcalc import diskcache
from perfcalc.specs.registry import devices_dir
from perfcalc.specs.yaml_load import CACHE_FORMAT, CACHE_KIND, read_mapping


def cache_folder():
    return diskcache.root() / CACHE_KIND


def _entry(text: str):
    key = diskcache.digest((CACHE_FORMAT + "\0" + text).encode())
    return cache_folder() / f"{key}.entry"


PROBE = (
    "import json, sys\n"
    "from pathlib import Path\n"
    "from perfcalc.specs.yaml_load import read_mapping\n"
    "data = read_mapping(Path(sys.argv[1]))\n"
    "print(json.dumps(['yaml' in sys.modules, data['cc']]))\n"
)


def _probe(path, cache_dir) -> list:
    env = {**os.environ, "PERFCALC_CACHE_DIR": str(cache_dir)}
    out = subprocess.run([sys.executable, "-c", PROBE, str(path)], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_the_second_read_imports_no_yaml_and_gives_the_same_mapping(tmp_path):
    path = devices_dir() / "cc_7_0.yaml"
    assert _probe(path, tmp_path) == [True, "7.0"]  # parsed, and kept
    assert _probe(path, tmp_path) == [False, "7.0"]  # loaded from the JSON
    assert len(list((tmp_path / "data").iterdir())) == 1


def test_a_changed_file_is_parsed_again(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFCALC_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "d.yaml"
    path.write_text("a: 1\nb: [x, 2.5]\n")
    assert read_mapping(path) == {"a": 1, "b": ["x", 2.5]}
    path.write_text("a: 2\nb: [x, 2.5]\n")
    assert read_mapping(path) == {"a": 2, "b": ["x", 2.5]}
    assert len(list(cache_folder().iterdir())) == 2


def test_what_json_would_change_is_never_kept(tmp_path, monkeypatch):
    """Integer keys would come back as strings, an infinity as an error: not cached, still read."""
    monkeypatch.setenv("PERFCALC_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "d.yaml"
    path.write_text("carveouts: {0: 1, 8: 2}\nlimit: .inf\n")
    for _ in range(2):
        assert read_mapping(path) == {"carveouts": {0: 1, 8: 2}, "limit": float("inf")}
    assert not cache_folder().exists() or not list(cache_folder().iterdir())


def test_a_broken_cache_file_or_folder_falls_back_to_parsing(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFCALC_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "d.yaml"
    path.write_text("a: 1\n")
    text = path.read_text()
    _entry(text).parent.mkdir(parents=True)
    _entry(text).write_text("{not json")
    with pytest.warns(diskcache.CacheNote, match="not an entry of this perfcalc"):
        assert read_mapping(path) == {"a": 1}
    assert json.loads(_entry(text).read_bytes().partition(b"\n")[2]) == {"a": 1}  # rewritten
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x")
    monkeypatch.setenv("PERFCALC_CACHE_DIR", str(blocker))  # its data/ cannot be created
    assert read_mapping(path) == {"a": 1}
