"""The seeds' matrix-multiply analysis, for any width, tile and GPU: naive vs shared-memory tiled.

Seed 000 (Kirk & Hwu, "CUDA Memories") and seed 003 count, per kernel: threads and blocks,
global loads per block, flops, CGMA, and the bandwidth bound that follows. This module does that
count in closed form for a width W and tile T (the kernels' TILE_WIDTH, also the naive kernel's
block edge), adds occupancy, the roofline and the time model, and lists every figure with the
formula that produced it (`--explain`). Memory transactions are not re-derived here: they come
from the catalog's analytic model (`predict`), which prices each warp access through memory/.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

from perfcalc.errors import InputError
from perfcalc.model.occupancy import occupancy
from perfcalc.model.roofline import attainable, cgma_bound_gflops
from perfcalc.model.time_model import KernelWork, TimePrediction, predict_time
from perfcalc.model.timing import time_lower_bound
from perfcalc.results import Result
from perfcalc.specs.arch import Arch
from perfcalc.specs.gpu import Gpu
from perfcalc.specs.timing import TimingRates, timing_rates
from perfcalc.units import seconds

VARIANTS = ("naive", "tiled")
WORD_BYTES = 4  # float

# Registers per thread, (naive, tiled), of the seed kernels at TILE_WIDTH 16, from
# `nvcc -arch=sm_XX -c matmul.cu -Xptxas -v` with CUDA 13.0 V13.0.88 on this project's build
# machine (the kernels as printed in seed 000). CUDA 13 compiles sm_75 and newer only; older CCs
# take the sm_75 counts except CC 1.x, which takes the seeds' own budget (reference/perfmodel.md
# c2: "at 768 threads each thread may use 10 registers", the G80 figure the seeds' 3-blocks-of-256
# occupancy assumes). `--regs` overrides either.
PTXAS_REGISTERS = {
    "7.5": (52, 38),
    "8.0": (32, 32),
    "8.6": (40, 40),
    "8.7": (40, 40),
    "8.9": (40, 40),
    "9.0": (32, 32),
}
SEED_CC1_REGISTERS = 10


@dataclass(frozen=True)
class Figure:
    """One number of the analysis with the formula and inputs that produced it."""

    variant: str
    name: str
    value: float | int | str | None
    formula: str


@dataclass(frozen=True)
class MatmulVariant(Result):
    """One kernel (naive or tiled): counts, bounds, occupancy, time, and the checks."""

    variant: str
    width: int
    tile: int
    blocks: int
    threads_per_block: int
    global_loads_per_block: int
    global_loads_per_block_per_phase: int | None
    global_loads_total: int
    global_stores_total: int
    flops_per_block_per_phase: int | None
    flops_total: int
    cgma: float
    # flops / 4 B per load and store: what the threads ask for (the seeds' view)
    intensity_flop_per_requested_byte: float
    # flops / bytes the global transactions move for this CC: the roofline's intensity, as in
    # `perfcalc roofline` (None without the catalog's transaction counts)
    intensity_flop_per_byte: float | None
    cgma_bound_gflops: float | None
    bandwidth_bound_gflops: float | None
    compute_bound_gflops: float | None
    attainable_gflops: float | None
    bound: str | None
    registers_per_thread: int
    shared_memory_per_block_bytes: int
    occupancy: float
    active_blocks_per_sm: int
    limiters: tuple[str, ...]
    transactions_per_request: float | None
    transactions_total: int | None
    time: TimePrediction | None
    time_lower_bound_s: float | None
    predicted: dict[str, int] | None
    simulated: dict[str, int] | None = None
    result_check: str | None = None
    simulated_by: str | None = None  # the engine that counted `simulated`
    # every engine's counters when several ran (matmul --engine both), engine -> counters
    engine_counts: dict[str, dict[str, int]] | None = None

    # what the time counts: "counted" (analytic counts, every transaction to DRAM) or
    # "simulated" (the execution core with the product's L1/L2 model)
    time_basis: str | None = None

    @property
    def predicted_time_s(self) -> float | None:
        return None if self.time is None else self.time.predicted_time_s

    @property
    def predicted_gflops(self) -> float | None:
        return None if self.time is None else self.time.predicted_gflops


@dataclass(frozen=True)
class MatmulAnalysis(Result):
    """Naive and tiled side by side on one CC (and product, when one was named)."""

    width: int
    tile: int
    cc: str
    gpu: str | None
    gpu_name: str | None
    peak_gflops: float | None
    bandwidth_gbs: float | None
    latency_cycles: float | None
    variants: tuple[MatmulVariant, ...]
    figures: tuple[Figure, ...]
    notes: tuple[str, ...]

    def variant(self, name: str) -> MatmulVariant:
        return next(v for v in self.variants if v.variant == name)


def default_registers(arch: Arch, variant: str) -> int:
    """The registers-per-thread assumption for a CC (see PTXAS_REGISTERS)."""
    if arch.major == 1:
        return SEED_CC1_REGISTERS
    naive, tiled = PTXAS_REGISTERS.get(arch.cc, PTXAS_REGISTERS["7.5"])
    return naive if variant == "naive" else tiled


def check_shape(width: int, tile: int, arch: Arch) -> None:
    """The seeds' kernels have no bounds checks: the grid is Width / TILE_WIDTH (seed 000)."""
    if tile < 1 or width < 1:
        raise InputError(f"width ({width}) and tile ({tile}) must be >= 1")
    if width % tile:
        raise InputError(
            f"width {width} is not a multiple of tile {tile}: the lecture notes' kernels "
            f"launch Width/TILE_WIDTH blocks per side with no bounds checks (lecture notes 000)"
        )
    if tile * tile > arch.max_threads_per_block:
        raise InputError(
            f"tile {tile} gives {tile * tile} threads per block, above CC "
            f"{arch.cc}'s max_threads_per_block "
            f"{arch.max_threads_per_block} ({arch.cite('max_threads_per_block')})"
        )


@dataclass(frozen=True)
class _Counts:
    """Closed-form counts of one of seed 000's two kernels (per-phase figures: tiled only)."""

    blocks: int
    global_loads_per_block: int
    global_loads_per_block_per_phase: int | None
    global_loads_total: int
    flops_per_block_per_phase: int | None
    flops_total: int
    shared_memory_per_block_bytes: int


def _counts(variant: str, w: int, t: int) -> _Counts:
    """Closed-form counts of seed 000's two kernels (one thread per Pd element)."""
    blocks = (w // t) ** 2
    if variant == "naive":
        # every thread: Width iterations x (1 Md + 1 Nd load, 1 mul + 1 add)
        return _Counts(blocks, 2 * w * t * t, None, 2 * w**3, None, 2 * w**3, 0)
    # tiled: W/T phases; per phase each thread loads 1 Md + 1 Nd element and does T mul/adds
    return _Counts(
        blocks, 2 * t * t * (w // t), 2 * t * t, 2 * w**3 // t, t * t * 2 * t, 2 * w**3, 2 * t * t * WORD_BYTES
    )


def _transactions(predicted: Mapping[str, int] | None) -> tuple[float | None, int | None, float | None]:
    """(load transactions per request, load + store transactions, bytes they move) or Nones."""
    if not predicted:
        return None, None, None
    requests = predicted.get("global_load_requests", 0)
    loads = predicted.get("global_load_transactions", 0)
    stores = predicted.get("global_store_transactions", 0)
    moved = predicted.get("global_load_bytes", 0) + predicted.get("global_store_bytes", 0)
    per_request = loads / requests if requests else None
    return per_request, loads + stores, float(moved) if moved else None


def analyze_variant(
    variant: str,
    width: int,
    tile: int,
    arch: Arch,
    gpu: Gpu | None,
    registers: int | None = None,
    predicted: Mapping[str, int] | None = None,
    latency_cycles: float | None = None,
) -> tuple[MatmulVariant, list[Figure]]:
    """One kernel's analysis and the figures that explain it."""
    if variant not in VARIANTS:
        raise InputError(f"unknown matmul variant {variant!r}; known: {', '.join(VARIANTS)}")
    check_shape(width, tile, arch)
    w, t = width, tile
    c = _counts(variant, w, t)
    regs = registers if registers is not None else default_registers(arch, variant)
    threads = t * t
    occ = occupancy(arch, threads, regs, static_shared_memory_bytes=c.shared_memory_per_block_bytes)
    stores = w * w
    cgma_ratio = c.flops_total / c.global_loads_total
    requested = WORD_BYTES * (c.global_loads_total + stores)
    ai_requested = c.flops_total / requested
    per_request, transactions, moved = _transactions(predicted)
    ai = c.flops_total / moved if moved else None

    fig = [
        Figure(variant, "blocks", c.blocks, f"(W/T)^2 = ({w}/{t})^2"),
        Figure(variant, "threads_per_block", threads, f"T^2 = {t}^2"),
        Figure(
            variant,
            "global_loads_per_block",
            c.global_loads_per_block,
            f"2 x W x T^2 = 2 x {w} x {t}^2"
            if variant == "naive"
            else f"2 x T^2 per phase x W/T phases = 2 x {t}^2 x {w // t}",
        ),
        Figure(
            variant,
            "global_loads_total",
            c.global_loads_total,
            f"2 x W^3 = 2 x {w}^3" if variant == "naive" else f"2 x W^3 / T = 2 x {w}^3 / {t}",
        ),
        Figure(variant, "flops_total", c.flops_total, f"2 x W^3 (one mul + one add per k per element) = 2 x {w}^3"),
        Figure(variant, "cgma", cgma_ratio, f"flops / global loads = {c.flops_total} / {c.global_loads_total}"),
        Figure(
            variant,
            "intensity_flop_per_requested_byte",
            ai_requested,
            f"flops / (4 B x (loads + W^2 stores)) = {c.flops_total} / (4 x ({c.global_loads_total} + {stores}))",
        ),
        Figure(
            variant,
            "occupancy",
            occ.occupancy,
            f"{occ.active_warps_per_sm} warps / {arch.max_warps_per_sm} ({regs} registers, "
            f"{c.shared_memory_per_block_bytes} B shared, {threads} threads per block; "
            f"limited by {', '.join(occ.limiters)})",
        ),
    ]
    if variant == "tiled":
        fig.insert(
            3,
            Figure(
                variant,
                "global_loads_per_block_per_phase",
                c.global_loads_per_block_per_phase,
                f"2 x T^2 = 2 x {t}^2",
            ),
        )
        fig.insert(
            6,
            Figure(
                variant,
                "flops_per_block_per_phase",
                c.flops_per_block_per_phase,
                f"T^2 x (2 x T) = {t}^2 x (2 x {t})",
            ),
        )
    if per_request is not None:
        fig.append(
            Figure(
                variant,
                "transactions_per_request",
                per_request,
                f"global_load_transactions / global_load_requests for CC {arch.cc} (catalog model, memory/ rules)",
            )
        )
        fig.append(
            Figure(variant, "transactions_total", transactions, "global_load_transactions + global_store_transactions")
        )
    if ai is not None:
        fig.append(
            Figure(
                variant,
                "intensity_flop_per_byte",
                ai,
                f"flops / bytes the global transactions move (loads + stores, CC {arch.cc} rules) "
                f"= {c.flops_total} / {moved:.0f}",
            )
        )

    cgma_bound = bw_bound = peak = attain = None
    bound = None
    timing = lower = None
    if gpu is not None:
        bw, peak = gpu.memory_bandwidth_gbs, gpu.peak_fp32_gflops
        cgma_bound = cgma_bound_gflops(bw, cgma_ratio, WORD_BYTES)
        if ai is not None:
            point = attainable(ai, peak, bw)
            bw_bound, attain, bound = point.bandwidth_bound_gflops, point.attainable_gflops, point.bound
        compulsory = WORD_BYTES * 3 * w * w  # Md and Nd read once, Pd written once
        lower = time_lower_bound(c.flops_total, compulsory, peak, bw)
        timing = predict_time(
            counted_work(variant, w, t, occ.active_blocks_per_sm, predicted),
            gpu,
            arch,
            rates_with_latency(arch, latency_cycles),
        )
        fig += [
            Figure(
                variant,
                "cgma_bound_gflops",
                cgma_bound,
                f"(bandwidth / 4 B) x CGMA = ({bw:g} / 4) x {cgma_ratio:g} (the lecture notes' bound, loads only)",
            ),
            *(
                []
                if ai is None or bw_bound is None
                else [Figure(variant, "bandwidth_bound_gflops", bw_bound, f"intensity x bandwidth = {ai:.6g} x {bw:g}")]
            ),
            Figure(
                variant,
                "compute_bound_gflops",
                peak,
                f"FP32 peak of {gpu.key} ({gpu.peak_clock_basis} {gpu.peak_clock_mhz:g} MHz)",
            ),
            *(
                []
                if bw_bound is None
                else [
                    Figure(
                        variant,
                        "attainable_gflops",
                        attain,
                        f"min(peak, intensity x bandwidth) = min({peak:g}, {bw_bound:.6g}) -> {bound} bound",
                    )
                ]
            ),
            Figure(
                variant,
                "time_lower_bound_s",
                lower,
                f"max(flops / peak, compulsory bytes 3 x 4 x W^2 / bandwidth) = "
                f"max({c.flops_total} / {peak:g}e9, {compulsory} / {bw:g}e9)",
            ),
            *time_figures(variant, timing),
        ]
    result = MatmulVariant(
        variant=variant,
        width=w,
        tile=t,
        blocks=c.blocks,
        threads_per_block=threads,
        global_loads_per_block=c.global_loads_per_block,
        global_loads_per_block_per_phase=c.global_loads_per_block_per_phase,
        global_loads_total=c.global_loads_total,
        global_stores_total=stores,
        flops_per_block_per_phase=c.flops_per_block_per_phase,
        flops_total=c.flops_total,
        cgma=cgma_ratio,
        intensity_flop_per_requested_byte=ai_requested,
        intensity_flop_per_byte=ai,
        cgma_bound_gflops=cgma_bound,
        bandwidth_bound_gflops=bw_bound,
        compute_bound_gflops=peak,
        attainable_gflops=attain,
        bound=bound,
        registers_per_thread=regs,
        shared_memory_per_block_bytes=c.shared_memory_per_block_bytes,
        occupancy=occ.occupancy,
        active_blocks_per_sm=occ.active_blocks_per_sm,
        limiters=occ.limiters,
        transactions_per_request=per_request,
        transactions_total=transactions,
        time=timing,
        time_lower_bound_s=lower,
        predicted=dict(predicted) if predicted else None,
        time_basis=None if timing is None else "counted",
    )
    return result, fig


def rates_with_latency(arch: Arch, latency_cycles: float | None) -> TimingRates:
    """The CC's rates; a --latency-cycles value replaces the DRAM latency."""
    rates = timing_rates(arch)
    if latency_cycles is None:
        return rates
    return dataclasses.replace(rates, dram_latency_ns=None, dram_latency_cycles=latency_cycles)


def counted_work(variant: str, w: int, t: int, blocks_per_sm: int, predicted: Mapping[str, int] | None) -> KernelWork:
    """The time model's input from closed-form counts and the catalog's predicted counters,
    without a cache model: every transaction goes to DRAM, one L1 wavefront per request or per
    4 sectors, FP32 instructions W^3 / 32 warp FMAs (one FMA per k and element); instructions
    other than the FMAs are not counted (the simulation counts them)."""
    p = predicted or {}
    loads = 2 * w**3 // 32 if variant == "naive" else 2 * w**3 // t // 32  # warp loads
    sectors = p.get("global_load_transactions", 0) + p.get("global_store_transactions", 0)
    requests = p.get("global_load_requests", loads) + p.get("global_store_requests", w * w // 32)
    read = p.get("global_load_bytes", WORD_BYTES * (2 * w**3 if variant == "naive" else 2 * w**3 // t))
    written = p.get("global_store_bytes", WORD_BYTES * w * w)
    fmas = w**3 // 32
    return KernelWork(
        blocks=(w // t) ** 2,
        warps_per_block=-(-t * t // 32),
        active_blocks_per_sm=blocks_per_sm,
        warp_instructions=fmas,
        int_divide_warp_instructions=0,
        fp32_warp_instructions=fmas,
        fp64_warp_instructions=0,
        global_load_requests=loads,
        global_wavefronts=max(requests, -(-sectors // 4)),
        shared_wavefronts=p.get("shared_load_wavefronts", 0) + p.get("shared_store_wavefronts", 0),
        shared_load_requests=p.get("shared_load_requests", 0),
        l2_bytes=read + written,
        l2_read_bytes=read,
        dram_bytes_read=read,
        dram_bytes_written=written,
        l1_hit_rate=None,
        l2_hit_rate=None,
        flops=2 * w**3,
    )


def time_figures(variant: str, timing: TimePrediction) -> list[Figure]:
    """Every term of the time model, then the predicted time and its bound."""
    figs = [Figure(variant, f"time_{term.name}", term.time_s, term.formula) for term in timing.terms]
    figs += [Figure(variant, "time_left_out", why, "no sourced rate") for why in timing.omitted]
    figs.append(
        Figure(
            variant,
            "predicted_time_s",
            timing.predicted_time_s,
            f"launch overhead {seconds(timing.launch_overhead_s)} + the largest term -> {timing.bound_detail}",
        )
    )
    return figs


def with_prediction(analysis: MatmulAnalysis, variant: str, timing: TimePrediction) -> MatmulAnalysis:
    """The analysis with one variant's time from a simulated run with the L1/L2 model."""
    updated = tuple(
        dataclasses.replace(v, time=timing, time_basis="simulated") if v.variant == variant else v
        for v in analysis.variants
    )

    def is_time(f: Figure) -> bool:  # the counted time's figures; the lower bound stays
        return f.variant == variant and (
            f.name == "predicted_time_s" or (f.name.startswith("time_") and f.name != "time_lower_bound_s")
        )

    figures = (*(f for f in analysis.figures if not is_time(f)), *time_figures(variant, timing))
    return dataclasses.replace(analysis, variants=updated, figures=figures)


def _notes(
    width: int, tile: int, arch: Arch, gpu: Gpu | None, registers: int | None, have_transactions: bool
) -> list[str]:
    notes = []
    if gpu is None:
        notes.append(
            f"No GPU product given (only CC {arch.cc}): bandwidth, peak, "
            f"bounds and time need a product's figures and are left blank; "
            f"use --gpu (perfcalc devices lists them)."
        )
    else:
        bw = gpu.memory_bandwidth_gbs
        notes.append(
            f"Seeds' CGMA bound (loads only): ({bw:g} / 4) x 1 = {bw / 4:g} GFLOPS naive, "
            f"({bw:g} / 4) x {tile} = {bw / 4 * tile:g} GFLOPS tiled. The roofline's intensity (as in "
            f"'perfcalc roofline') counts the bytes the global transactions move for CC "
            f"{arch.cc} (loads and stores), priced as DRAM traffic."
        )
        if gpu.chip == "G80":
            notes.append(
                "Lecture notes 000 say the naive kernel 'runs at about 15 GFLOPS' on G80. CC 1.0 "
                "coalescing (CUDA C Programming Guide 4.2, F.3.2.1) makes a half-warp that reads one "
                "Md word 16 separate 32 B transactions, so the transaction-based estimate is far "
                "lower; the 15 GFLOPS figure was not found in Kirk & Hwu's 'CUDA Memories' chapter "
                "either, so the gap is shown, not tuned away."
            )
            notes.append(
                "Lecture notes 000 print (86.4/4)*16 = 347.6 GFLOPS; the arithmetic gives 21.6 x 16 = "
                "345.6. It also quotes a 346.5 GFLOPS peak (4 x 346.5 = 1386 GB/s needed); the "
                "G80's MAD peak is 128 x 1.35 GHz x 2 = 345.6, of which 346.5 looks like a digit "
                "transposition (the G80 entry of devices/products.yaml)."
            )
        if arch.major >= 2:
            notes.append(
                "GPUs with caches (CC 2.0 on) serve the naive kernel's reused rows and columns "
                "from L1/L2, so measured naive GFLOPS beat the CGMA-1 DRAM bound (lecture notes 003: GT 640 "
                "15.2 vs 7.1, GTX 780 152.4 vs 72.1). A time from counts alone "
                "(--no-simulate) treats every transaction as DRAM traffic; a simulated run on the "
                "product's L1/L2 model (the default with a product) counts that reuse."
            )
    if not have_transactions:
        notes.append(
            "Transactions per request need the kernel catalog's model (predict); it "
            "gave no counts, so the time estimate uses the requested bytes."
        )
    if registers is None:
        measured = arch.cc_number if arch.cc in PTXAS_REGISTERS else 75
        source = (
            "the G80 budget of 10 (Kirk & Hwu, 'CUDA Memories': 768 threads x 10 registers = 8192)"
            if arch.major == 1
            else f"ptxas -v of the lecture notes' kernels for sm_{measured} (CUDA 13.0)"
        )
        notes.append(f"Registers per thread assumed from {source}; override with --regs.")
    return notes


CATALOG_KERNELS = {"naive": "matmul_naive", "tiled": "matmul_tiled"}


def catalog_counts(width: int, tile: int, arch: Arch) -> dict[str, dict[str, int]]:
    """The catalog model's counters of both seed kernels on this CC (model/predict.py): the
    transactions the roofline's intensity and the counted time need."""
    from perfcalc.model.predict import predict
    from perfcalc.specs.kernels import get_kernel

    params = {"Width": width, "TILE_WIDTH": tile}
    return {v: predict(get_kernel(name), params, arch).counters() for v, name in CATALOG_KERNELS.items()}


def analyze_matmul(
    width: int,
    tile: int,
    arch: Arch,
    gpu: Gpu | None = None,
    registers: int | None = None,
    predicted: Mapping[str, Mapping[str, int]] | None = None,
    latency_cycles: float | None = None,
) -> MatmulAnalysis:
    """Naive and tiled side by side. `predicted` maps a variant to the catalog's counters."""
    if gpu is not None and gpu.cc != arch.cc:
        raise InputError(f"GPU {gpu.key} is CC {gpu.cc}, not {arch.cc} ({gpu.cited_file})")
    if latency_cycles is not None and not 0 < latency_cycles < float("inf"):
        raise InputError(
            f"memory latency {latency_cycles:g} cycles must be a finite number > 0 "
            f"(lecture notes 003 give 200-400 GPU cycles for global memory)"
        )
    variants, figures = [], []
    for name in VARIANTS:
        v, f = analyze_variant(name, width, tile, arch, gpu, registers, (predicted or {}).get(name), latency_cycles)
        variants.append(v)
        figures += f
    have = all(v.transactions_total is not None for v in variants)
    return MatmulAnalysis(
        width=width,
        tile=tile,
        cc=arch.cc,
        gpu=gpu.key if gpu else None,
        gpu_name=gpu.name if gpu else None,
        peak_gflops=gpu.peak_fp32_gflops if gpu else None,
        bandwidth_gbs=gpu.memory_bandwidth_gbs if gpu else None,
        latency_cycles=latency_cycles,
        variants=tuple(variants),
        figures=tuple(figures),
        notes=tuple(_notes(width, tile, arch, gpu, registers, have)),
    )


def with_simulation(
    analysis: MatmulAnalysis,
    variant: str,
    counters: Mapping[str, int],
    result_check: str,
    engine: str = "source",
    engine_counts: Mapping[str, Mapping[str, int]] | None = None,
) -> MatmulAnalysis:
    """The analysis with one variant's execution-core counters (counted by `engine`; with
    `engine_counts`, every engine's) and result check attached."""
    every = None if engine_counts is None else {e: dict(c) for e, c in engine_counts.items()}
    updated = tuple(
        dataclasses.replace(
            v, simulated=dict(counters), result_check=result_check, simulated_by=engine, engine_counts=every
        )
        if v.variant == variant
        else v
        for v in analysis.variants
    )
    return dataclasses.replace(analysis, variants=updated)


def mismatches(v: MatmulVariant) -> dict[str, tuple[int | None, int | None]]:
    """Counters where the prediction and the execution core disagree (shown, never hidden)."""
    if not v.predicted or v.simulated is None:
        return {}
    keys = sorted(set(v.predicted) | set(v.simulated))
    return {k: (v.predicted.get(k), v.simulated.get(k)) for k in keys if v.predicted.get(k) != v.simulated.get(k)}
