"""Look up shipped devices by any spelling a CUDA programmer uses: `7.0`, `70`, `sm_70`,
`sm_100a`, `12.1`, or a GPU product name (`g80`, `v100`, `H100 SXM`, `b200`), which brings its
compute capability; or the path of a user's own device or product file."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from perfcalc.errors import UnknownDeviceError
from perfcalc.specs.arch import Arch, load_arch_file
from perfcalc.specs.cc import ACCEPTED_SPELLINGS, RENUMBERED, ComputeCapability
from perfcalc.specs.data_files import data_path
from perfcalc.specs.gpu import Gpu, load_products_file, normalize_name
from perfcalc.specs.yaml_load import read_mapping


def devices_dir() -> Path:
    return data_path("devices")


@cache
def known_ccs() -> tuple[str, ...]:
    """Every compute capability with a shipped device file, ascending."""
    ccs = []
    for path in devices_dir().glob("cc_*_*.yaml"):
        found = ComputeCapability.try_parse(path.stem[3:].replace("_", "."))
        if found is not None:
            ccs.append(found)
    return tuple(str(c) for c in sorted(ccs))


def normalize_cc(text: object) -> str | None:
    """'7.0', '70', 'sm_70', 'sm_100a', 7.0 -> 'X.Y'; None when the text is no CC spelling."""
    found = ComputeCapability.try_parse(text)
    return None if found is None else str(found)


def get_arch(cc: str | float | int | ComputeCapability) -> Arch:
    """The validated limits of a compute capability; unknown ones list the known ones."""
    if not isinstance(cc, (str, float, int, ComputeCapability)):
        raise UnknownDeviceError(
            f"a compute capability is a string such as '9.0', got {type(cc).__name__} {repr(cc)[:40]}"
        )
    return _get_arch(cc)


@cache
def _get_arch(cc: str | float | int | ComputeCapability) -> Arch:
    name = normalize_cc(cc)
    if name is None or name not in known_ccs():
        shown = repr(cc if isinstance(cc, (str, int, float)) else str(cc))[:60]
        renamed = RENUMBERED.get(name or "")
        why = f" (CUDA 13 renumbered CC {name} as {renamed}: use {renamed})" if renamed else ""
        from perfcalc.suggest import did_you_mean

        hint = "" if why else did_you_mean(str(cc), known_ccs())
        raise UnknownDeviceError(
            f"unknown compute capability {shown}{why}{hint}; known: {', '.join(known_ccs())} "
            f"(accepted spellings: {ACCEPTED_SPELLINGS})"
        )
    return load_arch_file(devices_dir() / f"{ComputeCapability.parse(name).file_stem}.yaml")


def all_archs() -> tuple[Arch, ...]:
    return tuple(get_arch(cc) for cc in known_ccs())


@cache
def all_gpus() -> tuple[Gpu, ...]:
    """Every shipped GPU product, in file order (by compute capability)."""
    return load_products_file(devices_dir() / "products.yaml")


def known_gpus() -> tuple[str, ...]:
    """The look-up keys of the shipped products (`g80`, ..., `h100-sxm`)."""
    return tuple(g.key for g in all_gpus())


@cache
def _gpu_index() -> dict[str, Gpu]:
    return {name: g for g in all_gpus() for name in g.lookup_names()}


def is_data_file(text: str | Path) -> bool:
    """A device or product given as a YAML path rather than a name."""
    return str(text).strip().lower().endswith((".yaml", ".yml"))


def load_gpu_file(path: str | Path) -> Gpu:
    """A user's own product: a file in devices/products.yaml's schema holding one product."""
    products = load_products_file(Path(path))
    if len(products) != 1:
        raise UnknownDeviceError(
            f"{path}: holds {len(products)} products ({', '.join(g.key for g in products)}); "
            f"--gpu FILE takes a file with exactly one"
        )
    gpu = products[0]
    if gpu.cc not in known_ccs():
        raise UnknownDeviceError(
            f"{path}: product {gpu.key!r} is CC {gpu.cc}, which perfcalc has no "
            f"device file for; known: {', '.join(known_ccs())}"
        )
    return gpu


def find_gpu(name: str) -> Gpu | None:
    """The product a name means (key, alias or full name; case, spaces, '-', '_' ignored)."""
    if is_data_file(name):
        return load_gpu_file(name)
    return _gpu_index().get(normalize_name(name))


def get_gpu(name: str) -> Gpu:
    """The product a name means (or a user's product file); an unknown name lists the known keys."""
    gpu = find_gpu(name)
    if gpu is None:
        from perfcalc.suggest import did_you_mean

        raise UnknownDeviceError(
            f"unknown GPU {name!r}{did_you_mean(str(name), known_gpus())}; known: {', '.join(known_gpus())} "
            "(or give a compute capability such as 7.0)"
        )
    return gpu


def resolve_device(device: str | Path) -> tuple[Arch, Gpu | None]:
    """A CC spelling, a product name or a device-file path -> (its CC limits, the product or None)."""
    text = str(device).strip()
    if is_data_file(text):
        if "products" in read_mapping(Path(text)):
            gpu = load_gpu_file(text)
            return get_arch(gpu.cc), gpu
        return load_arch_file(Path(text)), None
    if normalize_cc(text) is not None:
        return get_arch(text), None
    found = find_gpu(text)
    if found is None:
        raise UnknownDeviceError(
            f"unknown device {text!r}: not a compute capability ({', '.join(known_ccs())}) "
            f"nor a GPU ({', '.join(known_gpus())})"
        )
    return get_arch(found.cc), found


def resolve_arch(device: str | Path) -> Arch:
    """A CC spelling, a GPU product name (its CC), or the path of a user's own device file."""
    return resolve_device(device)[0]


# What every library entry point accepts as a device (see as_arch).
DeviceName = Arch | Gpu | str | Path | float | int


def as_arch(device: DeviceName) -> Arch:
    """What every library entry point accepts as a device, as the CLI's --cc does: an Arch, a
    Gpu (its CC), a CC spelling ('9.0', 90, 'sm_90'), a product name ('h100') or a device file."""
    if isinstance(device, Arch):
        return device
    if isinstance(device, Gpu):
        return get_arch(device.cc)
    if isinstance(device, bool) or not isinstance(device, (str, Path, float, int)):
        raise UnknownDeviceError(
            f"a device is an Arch, a Gpu, a CC such as '9.0' or a product such as 'h100', got "
            f"{type(device).__name__} {repr(device)[:40]}"
        )
    return resolve_arch(str(device))
