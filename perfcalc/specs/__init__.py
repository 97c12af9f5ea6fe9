"""The vocabulary every layer uses: compute capabilities, the counter schema, the C/CUDA type
table, and device and product records (YAML -> validated frozen dataclasses that know their file)."""

from perfcalc.specs.arch import Arch, load_arch_file
from perfcalc.specs.gpu import Gpu, load_products_file
from perfcalc.specs.registry import (
    all_archs,
    all_gpus,
    as_arch,
    find_gpu,
    get_arch,
    get_gpu,
    known_ccs,
    known_gpus,
    normalize_cc,
    resolve_arch,
    resolve_device,
)

__all__ = [
    "Arch",
    "Gpu",
    "all_archs",
    "all_gpus",
    "as_arch",
    "find_gpu",
    "get_arch",
    "get_gpu",
    "known_ccs",
    "known_gpus",
    "load_arch_file",
    "load_products_file",
    "normalize_cc",
    "resolve_arch",
    "resolve_device",
]
