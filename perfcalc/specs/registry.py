"""Look up shipped devices by any spelling a CUDA programmer uses: `7.0`, `70`, `sm_70`."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from perfcalc.errors import UnknownDeviceError
from perfcalc.specs.arch import Arch, load_arch_file
from perfcalc.specs.data_files import data_path

_CC_SPELLING = re.compile(r"^(?:sm_?|compute_|cc)?(\d)\.?(\d)$", re.IGNORECASE)


def devices_dir() -> Path:
    return data_path("devices")


@cache
def known_ccs() -> tuple[str, ...]:
    """Every compute capability with a shipped device file, ascending."""
    names = sorted(devices_dir().glob("cc_*_*.yaml"))
    ccs = [p.stem[3:].replace("_", ".") for p in names]
    return tuple(sorted(ccs, key=lambda c: tuple(map(int, c.split(".")))))


def normalize_cc(text: str | float | int) -> str | None:
    """'7.0', '70', 'sm_70', 7.0 -> '7.0'; None when the text is no CC spelling at all."""
    match = _CC_SPELLING.match(str(text).strip())
    if not match:
        return None
    return f"{match.group(1)}.{match.group(2)}"


@cache
def get_arch(cc: str | float | int) -> Arch:
    """The validated limits of a compute capability; unknown ones list the known ones."""
    name = normalize_cc(cc)
    if name is None or name not in known_ccs():
        raise UnknownDeviceError(
            f"unknown compute capability {str(cc)!r}; known: {', '.join(known_ccs())} "
            f"(accepted spellings: 7.0, 70, sm_70)"
        )
    return load_arch_file(devices_dir() / f"cc_{name.replace('.', '_')}.yaml")


def all_archs() -> tuple[Arch, ...]:
    return tuple(get_arch(cc) for cc in known_ccs())


def resolve_arch(device: str | Path) -> Arch:
    """A CC spelling, or the path of a user's own device file (same validation)."""
    text = str(device)
    if text.endswith((".yaml", ".yml")):
        return load_arch_file(Path(text))
    return get_arch(text)
