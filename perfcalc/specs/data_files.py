"""Where the shipped data lives: inside the wheel, or at the top of a source checkout."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def data_path(name: str) -> Path:
    """Path of a shipped data file or folder (`devices`, `kernels.yaml`).

    A wheel carries them under `perfcalc/_data/`; a source checkout or an editable install
    reads them from the repository root, where they are maintained.
    """
    packaged = Path(str(resources.files("perfcalc"))) / "_data" / name
    if packaged.exists():
        return packaged
    return Path(__file__).resolve().parents[2] / name
