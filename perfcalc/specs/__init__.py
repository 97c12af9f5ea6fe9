"""Device data: YAML -> validated frozen dataclasses. Imports only stdlib and PyYAML."""

from perfcalc.specs.arch import Arch, load_arch_file
from perfcalc.specs.registry import all_archs, get_arch, known_ccs, normalize_cc, resolve_arch

__all__ = ["Arch", "all_archs", "get_arch", "known_ccs", "load_arch_file", "normalize_cc", "resolve_arch"]
