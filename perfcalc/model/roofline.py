"""CGMA, arithmetic intensity and the roofline of a GPU product, with its memory ceilings.

The seeds' argument in numbers: a kernel doing C flops per 4-byte global access can go no faster
than bandwidth / 4 x C (CGMA bound), and in general no faster than min(peak, intensity x bandwidth)
(Williams, Waterman & Patterson, CACM 2009; reference/perfmodel.md a1). Hierarchical ceilings
(DRAM, L2, shared memory; perfmodel.md a2) are added where the product has a figure for them.
"""

from __future__ import annotations

from dataclasses import dataclass

from perfcalc.errors import InputError
from perfcalc.results import Result
from perfcalc.specs.arch import Arch
from perfcalc.specs.gpu import Gpu


@dataclass(frozen=True)
class Ceiling:
    """One roof: a bandwidth (slanted, GB/s) or a flop rate (flat, GFLOPS), with its formula."""

    name: str
    kind: str  # "memory" or "compute"
    value: float
    formula: str
    source: str


@dataclass(frozen=True)
class Roofline(Result):
    """The roofs of one product: FP32 peak vs DRAM bandwidth, plus the other ceilings known."""

    gpu: str
    gpu_name: str
    cc: str
    peak_gflops: float
    bandwidth_gbs: float
    ridge_flop_per_byte: float
    ceilings: tuple[Ceiling, ...]


@dataclass(frozen=True)
class RooflinePoint(Result):
    """Where a kernel of a given intensity lands on a roofline, and what bounds it."""

    label: str
    intensity_flop_per_byte: float
    bandwidth_bound_gflops: float
    compute_bound_gflops: float
    attainable_gflops: float
    bound: str  # "memory" or "compute"
    ridge_flop_per_byte: float
    fraction_of_peak: float


def cgma(flops: float, global_accesses: float) -> float:
    """Compute to Global Memory Access ratio: flops per global load/store (seed 000)."""
    if global_accesses <= 0:
        raise InputError(f"CGMA needs a positive number of global accesses, got {global_accesses}")
    return flops / global_accesses


def intensity(flops: float, bytes_moved: float) -> float:
    """Arithmetic (operational) intensity in flop per byte (roofline paper)."""
    if bytes_moved <= 0:
        raise InputError(f"intensity needs a positive byte count, got {bytes_moved}")
    return flops / bytes_moved


def cgma_bound_gflops(bandwidth_gbs: float, cgma_ratio: float, bytes_per_access: int = 4) -> float:
    """The seeds' bound: (bandwidth / bytes per access) accesses per second x flops per access.

    G80 naive matmul: 86.4 / 4 x 1 = 21.6 GFLOPS; 16x16 tiles: 86.4 / 4 x 16 = 345.6 GFLOPS.
    """
    return bandwidth_gbs / bytes_per_access * cgma_ratio


def bandwidth_needed_gbs(peak_gflops: float, bytes_per_flop: float) -> float:
    """Bandwidth a kernel needs to run at `peak_gflops`: seed 000's 4 x 346.5 = 1386 GB/s."""
    return peak_gflops * bytes_per_flop


def attainable(
    intensity_flop_per_byte: float, peak_gflops: float, bandwidth_gbs: float, label: str = ""
) -> RooflinePoint:
    """min(peak, intensity x bandwidth), the ridge point and the bound that applies."""
    if intensity_flop_per_byte <= 0:
        raise InputError(f"intensity must be > 0 flop/byte, got {intensity_flop_per_byte}")
    if peak_gflops <= 0 or bandwidth_gbs <= 0:
        raise InputError(
            f"a roofline needs a peak and a bandwidth > 0, got {peak_gflops} GFLOPS and {bandwidth_gbs} GB/s"
        )
    memory = intensity_flop_per_byte * bandwidth_gbs
    bound = "memory" if memory < peak_gflops else "compute"
    value = min(memory, peak_gflops)
    return RooflinePoint(
        label,
        intensity_flop_per_byte,
        memory,
        peak_gflops,
        value,
        bound,
        peak_gflops / bandwidth_gbs,
        value / peak_gflops,
    )


def shared_cycles_per_wavefront(arch: Arch) -> int:
    """SM clocks one shared-memory wavefront (one pass over the banks) takes: a bank serves one
    word per 2 clocks on CC 1.x/2.x and per clock from 3.x on (same Guide sections)."""
    return arch.shared_family.cycles_per_wavefront


def shared_memory_bandwidth_gbs(gpu: Gpu, arch: Arch) -> float:
    """SMs x banks x bytes per bank per clock x clock: the shared-memory ceiling (derived)."""
    per_bank = arch.shared_family.bytes_per_bank_per_clock
    return gpu.sm_count * arch.shared_memory_banks * per_bank * gpu.peak_clock_mhz / 1000


def roofline(gpu: Gpu, arch: Arch) -> Roofline:
    """The roofs of a product: DRAM, measured L2 where known, shared memory; FP32/FP64/tensor."""
    if arch.cc != gpu.cc:
        raise InputError(f"GPU {gpu.key} is CC {gpu.cc}, not {arch.cc} ({gpu.cited_file})")
    src = f"{gpu.cited_file}: " + "; ".join(s.split(":")[0] for s in gpu.sources)
    ceilings = [
        Ceiling("DRAM", "memory", gpu.memory_bandwidth_gbs, "vendor theoretical bandwidth", src),
    ]
    if gpu.l2_bandwidth_gbs is not None:
        ceilings.append(
            Ceiling("L2 (measured)", "memory", gpu.l2_bandwidth_gbs, "Empirical Roofline Toolkit measurement", src)
        )
    per_bank = arch.shared_family.bytes_per_bank_per_clock
    ceilings.append(
        Ceiling(
            "shared memory",
            "memory",
            shared_memory_bandwidth_gbs(gpu, arch),
            f"{gpu.sm_count} SMs x {arch.shared_memory_banks} banks x {per_bank:g} B/clock x "
            f"{gpu.peak_clock_mhz:g} MHz",
            "CUDA C Programming Guide (bank bandwidth per CC)",
        )
    )
    ceilings.append(
        Ceiling(
            "FP32 peak",
            "compute",
            gpu.peak_fp32_gflops,
            f"{gpu.fp32_cores} cores x 2 x {gpu.peak_clock_mhz:g} MHz ({gpu.peak_clock_basis})",
            src,
        )
    )
    if gpu.peak_fp32_mad_plus_mul_gflops:
        ceilings.append(
            Ceiling(
                "FP32 MAD+MUL (marketing)",
                "compute",
                gpu.peak_fp32_mad_plus_mul_gflops,
                f"{gpu.fp32_cores} cores x 3 x {gpu.peak_clock_mhz:g} MHz",
                src,
            )
        )
    ceilings.append(
        Ceiling(
            "FP32 no FMA",
            "compute",
            gpu.peak_fp32_gflops / 2,
            "FP32 peak / 2 (one flop per instruction)",
            "Williams, Waterman & Patterson, Roofline, CACM 2009",
        )
    )
    if gpu.peak_fp64_gflops:
        ceilings.append(
            Ceiling(
                "FP64 peak",
                "compute",
                gpu.peak_fp64_gflops,
                f"{gpu.sm_count} SMs x {gpu.fp64_results_per_sm_per_clock} x 2 x {gpu.peak_clock_mhz:g} MHz",
                src,
            )
        )
    for key, label in (
        ("peak_fp16_gflops", "FP16 (packed)"),
        ("peak_fp64_tensor_gflops", "FP64 tensor"),
        ("peak_tf32_tensor_gflops", "TF32 tensor (dense)"),
        ("peak_fp16_tensor_gflops", "FP16 tensor (dense)"),
    ):
        value = getattr(gpu, key)
        if value:
            clock = (
                f" at the {gpu.tensor_clock_mhz:g} MHz tensor clock"
                if gpu.tensor_clock_mhz and "tensor" in label
                else ""
            )
            ceilings.append(Ceiling(label, "compute", value, "vendor figure" + clock, src))
    return Roofline(
        gpu.key,
        gpu.name,
        gpu.cc,
        gpu.peak_fp32_gflops,
        gpu.memory_bandwidth_gbs,
        gpu.ridge_flop_per_byte,
        tuple(ceilings),
    )


def place(roof: Roofline, intensity_flop_per_byte: float, label: str = "") -> RooflinePoint:
    """A kernel of this DRAM intensity on this product's FP32 roofline."""
    return attainable(intensity_flop_per_byte, roof.peak_gflops, roof.bandwidth_gbs, label)
