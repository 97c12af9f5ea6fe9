"""Where the shipped data lives: inside the wheel, or at the top of a source checkout."""

from __future__ import annotations

from functools import cache
from pathlib import Path


@cache
def _roots() -> tuple[Path, Path]:
    """(the wheel's _data folder, the checkout's root): resolved once per process."""
    here = Path(__file__).resolve()
    return here.parents[1] / "_data", here.parents[2]


def data_path(name: str) -> Path:
    """Path of a shipped data file or folder (`devices`, `kernels.yaml`).

    A wheel carries them under `perfcalc/_data/`; a source checkout or an editable install
    reads them from the repository root, where they are maintained. The package is a folder
    on disk (a wheel installs it so; nothing imports perfcalc from a zip), so its path is
    `__file__`'s: importlib.resources cost 6 ms of every start (it imports zipfile).
    """
    wheel, checkout = _roots()
    packaged = wheel / name
    if packaged.exists():
        return packaged
    return checkout / name
