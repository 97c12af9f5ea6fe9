"""The library's top-level functions: what the CLI commands compute, with the CLI's inputs.

Every function takes a device as the CLI's --cc/--gpu do: an Arch, a Gpu, a CC spelling ('9.0',
90, 'sm_90'), a product name ('h100-sxm') or a device file. Each returns a result dataclass
with `to_dict()`, `to_frame()` and a notebook display (perfcalc/results.py). `import perfcalc`
loads none of this until a name is used (perfcalc/__init__.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from perfcalc.errors import InputError
from perfcalc.specs import Arch, Gpu, all_archs, all_gpus, as_arch, get_gpu
from perfcalc.specs.registry import DeviceName
from perfcalc.specs.target import Target, resolve_target

__all__ = ["device", "devices", "matmul", "product", "products", "read_ptxas", "roofline", "target"]


def device(name: DeviceName) -> Arch:
    """A compute capability's limits (`perfcalc devices show 9.0`); a product gives its CC's."""
    return as_arch(name)


def product(name: Gpu | str) -> Gpu:
    """A GPU product's figures (`perfcalc devices show h100-sxm`): key, alias, full name or file;
    a bare CC is refused (a roofline or a time needs a peak and a bandwidth)."""
    if isinstance(name, Gpu):
        return name
    if not isinstance(name, str):
        raise InputError(f"a GPU product is a name such as 'v100' or a Gpu, got {type(name).__name__}")
    return get_gpu(name)


def target(cc: DeviceName | None = None, gpu: Gpu | str | None = None) -> Target:
    """What `analyze` runs on, as --cc and --gpu name it: a product brings its CC; a CC alone
    gives its rules without a product (no time); neither, the H100 SXM."""
    if isinstance(cc, Gpu):  # a product as the device: its CC, and the product unless --gpu names one
        return resolve_target(None, cc) if gpu is None else resolve_target(as_arch(cc), gpu)
    if isinstance(cc, int | float):
        cc = as_arch(cc)  # 90, 9.0 (a bool is refused there)
    return resolve_target(cc, gpu)


def devices() -> tuple[Arch, ...]:
    """Every compute capability perfcalc knows, 1.0 to 12.1 (`perfcalc devices`)."""
    return all_archs()


def products() -> tuple[Gpu, ...]:
    """Every GPU product perfcalc knows (`perfcalc devices products`)."""
    return all_gpus()


def read_ptxas(log: str | Path) -> tuple[Any, ...]:
    """Per-kernel registers, shared memory, barriers and spills from `nvcc -Xptxas -v` output:
    a file path, or the log's text itself (anything containing a newline)."""
    from perfcalc.model.ptxas import parse_ptxas, read_ptxas_file

    if isinstance(log, str) and "\n" in log:
        return parse_ptxas(log)
    return read_ptxas_file(log)


def roofline(gpu: Gpu | str) -> Any:
    """A product's roofline: ceilings and the ridge point (`perfcalc roofline --gpu`). Place a
    kernel with `perfcalc.model.roofline.place(roof, intensity)`."""
    from perfcalc.model.roofline import roofline as build

    chosen = product(gpu)
    return build(chosen, as_arch(chosen))


def matmul(width: int = 1024, tile: int = 16, gpu: Gpu | str = "g80", registers: int | None = None) -> Any:
    """The lecture notes' naive vs tiled matrix multiply on a product (`perfcalc matmul
    --no-simulate`): counts, CGMA, intensity, bounds, occupancy and the time model's estimate."""
    from perfcalc.model.matmul import analyze_matmul, catalog_counts, check_shape

    chosen = product(gpu)
    arch = as_arch(chosen)
    check_shape(width, tile, arch)
    return analyze_matmul(width, tile, arch, chosen, registers, catalog_counts(width, tile, arch))


def predict_time(
    source: str | Path,
    kernel: str | None,
    grid: object,
    block: object,
    gpu: Gpu | str = "h100-sxm",
    arrays: tuple[str, ...] | list[str] = (),
    params: dict[str, Any] | None = None,
    defines: dict[str, Any] | None = None,
    engine: str = "auto",
) -> Any:
    """The predicted time of one launch of `kernel` in the CUDA file `source` on a product, with
    its bound and every term (the `TimePrediction` that `perfcalc run --source --gpu` shows):
    arrays as `--array` takes them (`"x=float32:1024"`), scalars by name in `params`."""
    from perfcalc.analysis.analyze import RunOptions, SourceKernel, analyze
    from perfcalc.specs.target import resolve_target

    if not isinstance(source, (str, Path)):
        raise InputError(f"source must be the path of a .cu file, got {type(source).__name__}")
    if isinstance(arrays, str) or not all(isinstance(a, str) for a in arrays):
        raise InputError("arrays must be a list of NAME=DTYPE:COUNT or NAME=@FILE.npy texts")
    kernel_spec = SourceKernel(
        Path(source), kernel, grid, block, tuple(arrays), dict(params or {}), dict(defines or {})
    )
    run = analyze(kernel_spec, resolve_target(None, gpu), RunOptions(engine)).run
    if run.launch_report is None:
        raise InputError(f"no time for {gpu}: a time needs a GPU product")
    return run.launch_report.time
