"""Where the shipped data lives: inside the wheel, or at the top of a source checkout."""

from __future__ import annotations

from pathlib import Path


def data_path(name: str) -> Path:
    """Path of a shipped data file or folder (`devices`, `kernels.yaml`).

    A wheel carries them under `perfcalc/_data/`; a source checkout or an editable install
    reads them from the repository root, where they are maintained. The package is a folder
    on disk (a wheel installs it so; nothing imports perfcalc from a zip), so its path is
    `__file__`'s: importlib.resources cost 6 ms of every start (it imports zipfile).
    """
    packaged = Path(__file__).resolve().parents[1] / "_data" / name
    if packaged.exists():
        return packaged
    return Path(__file__).resolve().parents[2] / name
