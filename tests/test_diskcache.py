"""perfcalc's cache on disk (perfcalc/diskcache.py), attacked as issue 36 did: links, FIFOs,
edited and malformed entries, unusable folders. Expected: nothing is written or read through a
link, nothing blocks, a bad entry is never used (it is discarded with one note and rebuilt), and
every answer is the one computed without a cache.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from perfcalc import diskcache
from perfcalc.errors import InputError
from perfcalc.sim.ptx import nvrtc

needs_nvrtc = pytest.mark.skipif(not nvrtc.available(), reason="NVRTC (pip install nvidia-cuda-nvrtc) is not installed")
KEY = "ab" * 32


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "cache"
    monkeypatch.setenv(diskcache.ENV, str(root))
    return root


def _is_str(value: object) -> bool:
    return isinstance(value, str)


def test_entries_round_trip_in_a_private_folder(cache):
    diskcache.write("k", KEY, "payload")
    assert diskcache.read("k", KEY, _is_str) == "payload"
    assert stat.S_IMODE(os.stat(cache / "k").st_mode) == 0o700
    assert stat.S_IMODE(os.stat(cache / "k" / f"{KEY}.entry").st_mode) == 0o600


def test_a_folder_made_with_loose_permissions_is_made_private(cache):
    (cache / "k").mkdir(parents=True, mode=0o777)
    os.chmod(cache / "k", 0o777)
    diskcache.write("k", KEY, "x")
    assert stat.S_IMODE(os.stat(cache / "k").st_mode) == 0o700


def test_a_dangling_link_is_replaced_not_written_through(cache, tmp_path):
    (cache / "k").mkdir(parents=True)
    target = tmp_path / "elsewhere.txt"
    (cache / "k" / f"{KEY}.entry").symlink_to(target)
    diskcache.write("k", KEY, "payload")
    assert not target.exists()
    assert not (cache / "k" / f"{KEY}.entry").is_symlink()
    assert diskcache.read("k", KEY, _is_str) == "payload"


def test_a_link_to_another_file_is_not_read_as_an_entry(cache, tmp_path):
    (cache / "k").mkdir(parents=True)
    other = tmp_path / "other"
    body = json.dumps("forged").encode()
    other.write_bytes(b"%s %s %s\n%s" % (diskcache.FORMAT, diskcache.digest(body).encode(), KEY.encode(), body))
    (cache / "k" / f"{KEY}.entry").symlink_to(other)
    with pytest.warns(diskcache.CacheNote, match="cannot be opened"):
        assert diskcache.read("k", KEY, _is_str) is None
    assert other.exists()  # the link is removed, never its target


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_does_not_block(cache):
    (cache / "k").mkdir(parents=True)
    os.mkfifo(cache / "k" / f"{KEY}.entry")
    with pytest.warns(diskcache.CacheNote, match="not a regular file"):
        assert diskcache.read("k", KEY, _is_str) is None
    diskcache.write("k", KEY, "payload")
    assert diskcache.read("k", KEY, _is_str) == "payload"


def test_an_edited_entry_is_discarded(cache):
    diskcache.write("k", KEY, "payload")
    path = cache / "k" / f"{KEY}.entry"
    path.write_bytes(path.read_bytes().replace(b"payload", b"paylod"))
    with pytest.warns(diskcache.CacheNote, match="does not match its checksum"):
        assert diskcache.read("k", KEY, _is_str) is None
    assert not path.exists()


@pytest.mark.parametrize("payload", [123, ["a"], None, {"ptx": 5}])
def test_an_entry_of_the_wrong_shape_is_discarded(cache, payload):
    """An entry written with a correct checksum but the wrong content (as a hand-made one)."""
    diskcache.write("k", KEY, payload)
    with pytest.warns(diskcache.CacheNote, match="wrong shape"):
        assert diskcache.read("k", KEY, _is_str) is None


def test_an_entry_under_another_key_is_refused(cache):
    diskcache.write("k", KEY, "payload")
    os.rename(cache / "k" / f"{KEY}.entry", cache / "k" / f"{'cd' * 32}.entry")
    with pytest.warns(diskcache.CacheNote, match="not an entry"):
        assert diskcache.read("k", "cd" * 32, _is_str) is None


def test_an_unusable_folder_only_costs_the_cache(tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv(diskcache.ENV, str(blocker))
    diskcache.write("k", KEY, "payload")  # nothing raised
    assert diskcache.read("k", KEY, _is_str) is None
    readonly = tmp_path / "ro"
    readonly.mkdir()
    os.chmod(readonly, 0o500)
    monkeypatch.setenv(diskcache.ENV, str(readonly / "cache"))
    try:
        diskcache.write("k", KEY, "payload")
        if os.geteuid() != 0:  # root writes anywhere
            assert diskcache.read("k", KEY, _is_str) is None
    finally:
        os.chmod(readonly, 0o700)


@pytest.mark.parametrize("value", ["", "x" * 5000])
def test_the_cache_variable_is_checked_like_an_option(monkeypatch, value):
    monkeypatch.setenv(diskcache.ENV, value)
    with pytest.raises(InputError, match=diskcache.ENV):
        diskcache.root()


def test_the_cache_is_kept_under_its_size_bound(cache, monkeypatch):
    monkeypatch.setattr(diskcache, "MAX_BYTES", 3000)
    for i in range(10):
        diskcache.write("k", f"{i:064x}", "x" * 500)
    total = sum(p.stat().st_size for p in (cache / "k").glob("*.entry"))
    assert total <= 3000
    assert diskcache.read("k", f"{9:064x}", _is_str) == "x" * 500  # the newest stays


@needs_nvrtc
def test_a_tampered_ptx_entry_is_rebuilt_with_a_note(tmp_path):
    """A store removed from a cached PTX (issue 36) changed the answer with exit 0; now the
    entry fails its checksum, is discarded with one note, and the answer is the real one."""
    env = {**os.environ, diskcache.ENV: str(tmp_path / "cache")}
    cmd = [sys.executable, "-m", "perfcalc", "run", "copy_offset", "--engine", "ptx", "-f", "json"]
    first = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    entries = list((tmp_path / "cache" / "ptx").glob("*.entry"))
    assert entries
    for entry in entries:  # the PTX and the ptxas report: edit both
        data = entry.read_bytes()
        entry.write_bytes(data.replace(b"st.global.f32", b"// removed").replace(b"Used 1", b"Used 255"))
    second = subprocess.run(cmd, env=env, capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    assert json.loads(second.stdout) == json.loads(first.stdout)
    notes = [line for line in second.stderr.splitlines() if line.startswith("note: discarded the cache entry")]
    assert notes and all("checksum" in line for line in notes), second.stderr


def test_notes_are_warnings_in_the_library(cache):
    diskcache.write("k", KEY, 1)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        diskcache.read("k", KEY, _is_str)
    assert [w.category for w in seen] == [diskcache.CacheNote]
