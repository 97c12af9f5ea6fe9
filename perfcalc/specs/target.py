"""Which rules and which product an answer is for: one `Target`, made by one function.

`--cc` names a compute capability's rules (a CC spelling, a product, or a user's device file);
`--gpu` names a product, which brings its CC. Given both they must agree, and a user's device
file is then used with the product, never dropped (issue 29: `run --cc my90.yaml --gpu h100-sxm`
used to run on the shipped CC 9.0). With neither, the default device: the H100 SXM, or only its
CC where a command needs no product.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from perfcalc.defaults import DEFAULT_CC, DEFAULT_GPU
from perfcalc.errors import InputError
from perfcalc.specs.arch import Arch
from perfcalc.specs.gpu import Gpu
from perfcalc.specs.registry import get_arch, get_gpu, resolve_device


@dataclass(frozen=True)
class Target:
    """A CC's rules (`arch`) and, where named, a product's figures (`gpu`: SMs, clocks, caches)."""

    arch: Arch
    gpu: Gpu | None = None

    @property
    def cc(self) -> str:
        return self.arch.cc

    @property
    def name(self) -> str:
        """How outputs name it: the product's key, else 'CC 9.0'."""
        return self.gpu.key if self.gpu is not None else f"CC {self.arch.cc}"

    def product(self) -> Gpu:
        """The product, or an InputError saying a command needs one."""
        if self.gpu is None:
            raise InputError(f"this needs a GPU product, not only CC {self.arch.cc}'s rules: give --gpu NAME")
        return self.gpu


def resolve_target(
    cc: str | Path | Arch | None = None, gpu: str | Gpu | None = None, *, default_product: bool = True
) -> Target:
    """The Target that --cc and --gpu (either, both or neither) name; see the module docstring."""
    product = gpu if isinstance(gpu, Gpu) else (get_gpu(gpu) if gpu is not None else None)
    if cc is not None:
        arch, named = (cc, None) if isinstance(cc, Arch) else resolve_device(cc)
        if product is not None and arch.cc != product.cc:
            raise InputError(
                f"--gpu {product.key} is CC {product.cc} ({product.cited_file}) but --cc {cc} means CC "
                f"{arch.cc}; give one of them, or a device file of CC {product.cc}"
            )
        return Target(arch, product or named)
    if product is not None:
        return Target(get_arch(product.cc), product)
    if not default_product:
        return Target(get_arch(DEFAULT_CC))
    found = get_gpu(DEFAULT_GPU)
    return Target(get_arch(found.cc), found)


def resolve_targets(
    cc: str | Path | Arch | None, gpus: list[str] | None, *, default_product: bool = True
) -> list[Target]:
    """One Target per --gpu (each named once), all under --cc's rules; with no --gpu, one."""
    names = list(gpus or [])
    if len(set(names)) != len(names):
        raise InputError(f"--gpu repeats a product ({', '.join(names)}): name each once")
    if not names:
        return [resolve_target(cc, None, default_product=default_product)]
    return [resolve_target(cc, name) for name in names]
