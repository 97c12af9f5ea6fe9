"""The answers `perfcalc occupancy` gives, as library calls (issue 29: the CLI reaches model/
and sim/ only through analysis/): one configuration with its advice, the spreadsheet's sweeps,
NVIDIA's block-size suggestion with the minimum grid, the waves of a grid on a product, and
every kernel of a ptxas log or of a compiled .cu file."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from perfcalc.errors import InputError
from perfcalc.model.hints import Advice, advise
from perfcalc.model.occupancy import OccupancyInputs, occupancy
from perfcalc.model.occupancy_suggest import BlockSizeSuggestion, suggest_block_size
from perfcalc.model.occupancy_sweep import Sweep, compute_sweep
from perfcalc.model.ptxas import KernelResources, entry_resources, parse_ptxas, read_ptxas_file
from perfcalc.model.waves import Waves, min_grid_size, waves
from perfcalc.specs import Arch, Gpu, get_arch, known_ccs, resolve_arch
from perfcalc.specs.target import Target

DynamicOfBlock = Callable[[Any], Any]


@dataclass(frozen=True)
class Settings:
    """What a configuration holds besides block size and registers (model/occupancy_inputs)."""

    static_shared_memory_bytes: int = 0
    dynamic_shared_memory_bytes: int = 0
    carveout: int | None = None
    cache_config: str | None = None
    block_barriers: int = 1


def inputs(block: int, registers: int, settings: Settings) -> OccupancyInputs:
    return OccupancyInputs(block_size=block, registers_per_thread=registers, **asdict(settings))


def configuration(arch: Arch, block: int, registers: int, settings: Settings) -> Advice:
    """One configuration's occupancy with what to change."""
    return advise(arch, inputs(block, registers, settings))


def sweeps(
    arch: Arch, block: int, registers: int, settings: Settings, axes: tuple[str, ...], dynamic: DynamicOfBlock | None
) -> tuple[OccupancyInputs, list[Sweep]]:
    """The spreadsheet's graphs around a configuration, which must itself be legal."""
    current = inputs(block, registers, settings)
    occupancy(arch, **asdict(current))
    return current, [compute_sweep(arch, current, axis, dynamic_of_block=dynamic) for axis in axes]


def suggestion(
    arch: Arch, registers: int, settings: Settings, dynamic: int | DynamicOfBlock, product: Gpu | None
) -> tuple[BlockSizeSuggestion, int | None]:
    """NVIDIA's block-size rule, and with a product the minimum grid that fills it."""
    found = suggest_block_size(
        arch,
        registers,
        settings.static_shared_memory_bytes,
        dynamic,
        settings.carveout,
        settings.cache_config,
        block_barriers=settings.block_barriers,
    )
    return found, None if product is None else min_grid_size(found.active_blocks_per_sm, product)


def grid_waves(grid_blocks: int, active_blocks_per_sm: int, product: Gpu) -> Waves:
    return waves(grid_blocks, active_blocks_per_sm, product)


def compiled_kernel(
    source: Path, kernel: str | None, defines: Mapping[str, Any], target: Target
) -> tuple[KernelResources, ...]:
    """ptxas's report for the kernel of a .cu file compiled as the PTX engine compiles it."""
    from perfcalc.files import read_text
    from perfcalc.sim.ptx.compile import compile_kernel
    from perfcalc.sim.ptx.ptxas import PACKAGE

    text = read_text(source, "--source", latin1_fallback=True)
    ck = compile_kernel(text, kernel, target.arch, dict(defines), str(source))
    if ck.ptxas_log is None:
        raise InputError(
            f"--source needs NVIDIA's ptxas to know the kernel's registers: pip install "
            f"{PACKAGE} (the nvcc wheel of NVRTC's version)"
        )
    found = entry_resources(ck.ptxas_log, ck.fn.name, str(source))
    return () if found is None else (found,)


def ptxas_kernels(path: Path | None, piped: bytes | None = None) -> tuple[KernelResources, ...]:
    """Every kernel of a saved `nvcc -Xptxas -v` log (or of the bytes piped in)."""
    if piped is not None:
        return parse_ptxas(piped.decode("utf-8", errors="replace"), source="ptxas log on standard input")
    assert path is not None
    return read_ptxas_file(path)


def barriers(kernel: KernelResources, settings: Settings) -> int:
    """ptxas's barrier count where it printed one (0 skips the 9.0 limit, as H13 does for a
    kernel without barriers); otherwise --barriers (default 1, the runtime's assumption)."""
    return settings.block_barriers if kernel.block_barriers is None else kernel.block_barriers


def kernel_archs(
    kernels: tuple[KernelResources, ...], cc: str | Path | None
) -> tuple[list[tuple[KernelResources, Arch]], list[str]]:
    """Pair each kernel with the CC to evaluate it on.

    With --cc: the kernels compiled for that CC if the log has any, else all of them (with a
    note that ptxas may allocate differently for the other target). Without --cc: each kernel
    on the CC it was compiled for.
    """
    if cc is not None:
        arch = resolve_arch(cc)
        same = [k for k in kernels if k.cc == arch.cc]
        if same:
            return [(k, arch) for k in same], []
        targets = sorted({k.compiled_for or "an unnamed target" for k in kernels})
        return [(k, arch) for k in kernels], [
            f"registers and shared memory were compiled for {', '.join(targets)}; ptxas may "
            f"allocate differently for CC {arch.cc}"
        ]
    pairs = []
    for k in kernels:
        if k.cc not in known_ccs():
            raise InputError(
                f"kernel {k.display_name} was compiled for "
                f"{k.compiled_for or 'an unnamed target'}, which is not a known compute "
                f"capability ({', '.join(known_ccs())}); pass --cc"
            )
        pairs.append((k, get_arch(k.cc)))
    return pairs, []


def kernels_at_block(
    pairs: list[tuple[KernelResources, Arch]], block: int, settings: Settings
) -> list[tuple[KernelResources, Arch, Advice]]:
    """Each kernel's occupancy at one block size, with its advice."""
    found = []
    for kernel, arch in pairs:
        own = Settings(
            kernel.static_shared_memory_bytes,
            settings.dynamic_shared_memory_bytes,
            settings.carveout,
            settings.cache_config,
            barriers(kernel, settings),
        )
        found.append((kernel, arch, configuration(arch, block, kernel.registers_per_thread, own)))
    return found


def kernels_suggested(
    pairs: list[tuple[KernelResources, Arch]], settings: Settings
) -> list[tuple[KernelResources, Arch, BlockSizeSuggestion]]:
    """Each kernel's suggested block size."""
    return [
        (
            k,
            arch,
            suggest_block_size(
                arch,
                k.registers_per_thread,
                k.static_shared_memory_bytes,
                settings.dynamic_shared_memory_bytes,
                settings.carveout,
                settings.cache_config,
                block_barriers=barriers(k, settings),
            ),
        )
        for k, arch in pairs
    ]
