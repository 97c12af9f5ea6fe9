"""`Gpu`: one GPU product (SM count, clocks, peaks, bandwidth) as a validated frozen dataclass.

Per-CC limits live in `Arch`; a roofline also needs what a particular board delivers, and two
boards of one CC differ (the C870 and the 8800 GTX share a G80 but not a memory clock). Field
names are the keys of `devices/products.yaml`, whose schema comment explains each one.
"""

from __future__ import annotations

import re
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any

from perfcalc.errors import SpecError
from perfcalc.results import Result
from perfcalc.specs.field_types import conforms, describe
from perfcalc.specs.yaml_load import check_keys, modern_keys, read_mapping

SCHEMA_VERSION = 1
PEAK_BASES = ("shader clock", "base clock", "boost clock")
# A peak must equal units x 2 flops x clock within this tolerance: the vendor figures are
# rounded (L40: datasheet 90.5 TF vs 90.52 by arithmetic) but a wrong clock is off by >= 4 %.
PEAK_TOLERANCE = 0.01


@dataclass(frozen=True)
class Gpu(Result):
    """What one product delivers: SMs, clocks, peak flop rates, memory bandwidth, L2."""

    key: str
    name: str
    chip: str
    cc: str
    sm_count: int
    fp32_cores_per_sm: int
    fp64_results_per_sm_per_clock: int | None  # None: no source states it
    peak_clock_mhz: float
    peak_clock_basis: str
    peak_fp32_gflops: float
    peak_fp64_gflops: float | None
    memory_type: str
    memory_bus_width_bits: int
    memory_bandwidth_gbs: float
    l2_cache_kb: int | None
    release_year: int
    sources: tuple[str, ...]
    aliases: tuple[str, ...] = ()
    core_clock_mhz: float | None = None
    shader_clock_mhz: float | None = None
    base_clock_mhz: float | None = None
    boost_clock_mhz: float | None = None
    tensor_clock_mhz: float | None = None
    peak_fp32_mad_plus_mul_gflops: float | None = None
    peak_fp16_gflops: float | None = None
    peak_fp16_tensor_gflops: float | None = None
    peak_tf32_tensor_gflops: float | None = None
    peak_fp64_tensor_gflops: float | None = None
    l2_bandwidth_gbs: float | None = None
    # measured L2 write throughput in 32-byte sectors per second (billions), where measured
    l2_write_gsectors_per_s: float | None = None
    notes: str = ""
    # Where the record was read from (not a YAML key): messages cite it.
    source_file: str = field(default="", compare=False)

    @property
    def fp32_cores(self) -> int:
        return self.sm_count * self.fp32_cores_per_sm

    @property
    def cited_file(self) -> str:
        """The product table as a user can find it: 'devices/products.yaml' or their own file."""
        from perfcalc.specs.arch import display_file

        return display_file(self.source_file) if self.source_file else "devices/products.yaml"

    @property
    def ridge_flop_per_byte(self) -> float:
        """FP32 machine balance: the intensity above which DRAM stops being the limit."""
        return self.peak_fp32_gflops / self.memory_bandwidth_gbs

    def to_dict(self) -> dict[str, Any]:
        """The fields as JSON values, and the ridge point the tables show beside them."""
        return {**super().to_dict(), "ridge_flop_per_byte": self.ridge_flop_per_byte}

    def lookup_names(self) -> tuple[str, ...]:
        """Every spelling that finds this product, normalised (see `normalize_name`)."""
        names = {normalize_name(self.key), normalize_name(self.name)}
        names.update(normalize_name(a) for a in self.aliases)
        return tuple(sorted(names))

    def __post_init__(self) -> None:
        _validate(self)


def normalize_name(text: str) -> str:
    """'H100 SXM', 'h100-sxm', 'H100_SXM' -> 'h100sxm': case, spaces, '-' and '_' do not matter."""
    return re.sub(r"[^a-z0-9]", "", str(text).lower())


_NOT_KEYS = {"source_file"}
_REQUIRED = [f.name for f in fields(Gpu) if f.default is MISSING and f.default_factory is MISSING]
_OPTIONAL = [f.name for f in fields(Gpu) if f.name not in _REQUIRED and f.name not in _NOT_KEYS]
# Required keys that may be null where no source states the figure (the notes say so).
_NULLABLE = ("fp64_results_per_sm_per_clock", "peak_fp64_gflops", "l2_cache_kb")
_POSITIVE = (
    "sm_count",
    "fp32_cores_per_sm",
    "peak_clock_mhz",
    "peak_fp32_gflops",
    "memory_bus_width_bits",
    "memory_bandwidth_gbs",
)
_POSITIVE_IF_GIVEN = ("l2_bandwidth_gbs", "l2_write_gsectors_per_s")


def _fail(gpu: Gpu, key: str, message: str) -> None:
    raise SpecError(f"GPU {gpu.key!r}: {key} {message}")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_peak(gpu: Gpu, key: str, units_per_sm: int) -> None:
    """Peak = SMs x units x 2 (FMA) x clock, within PEAK_TOLERANCE."""
    expected = gpu.sm_count * units_per_sm * 2 * gpu.peak_clock_mhz / 1000
    stated = getattr(gpu, key)
    if expected == 0 and stated == 0:
        return
    if expected == 0 or abs(stated - expected) / expected > PEAK_TOLERANCE:
        _fail(
            gpu,
            key,
            f"({stated}) disagrees with sm_count x units x 2 x peak_clock_mhz "
            f"= {expected:.1f} by more than {PEAK_TOLERANCE:.0%}",
        )


def _validate(g: Gpu) -> None:
    for f in fields(g):
        value = getattr(g, f.name)
        if f.name != "source_file" and not conforms(value, str(f.type)):
            _fail(g, f.name, f"must be {describe(str(f.type))}, got {value!r:.60}")
    for f in fields(g):
        value = getattr(g, f.name)
        if (
            f.name.endswith(("_mhz", "_gflops", "_gbs", "_per_s"))
            and value is not None
            and (not _is_number(value) or value < 0)
        ):
            _fail(g, f.name, f"must be a non-negative number, got {value!r}")
    for key in (
        "sm_count",
        "fp32_cores_per_sm",
        "fp64_results_per_sm_per_clock",
        "memory_bus_width_bits",
        "l2_cache_kb",
        "release_year",
    ):
        value = getattr(g, key)
        if value is None and key in _NULLABLE:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            _fail(g, key, f"must be a non-negative integer, got {value!r}")
    for key in _POSITIVE:
        if getattr(g, key) <= 0:
            _fail(g, key, f"must be > 0, got {getattr(g, key)}")
    for key in _POSITIVE_IF_GIVEN:  # the time model divides by them
        if getattr(g, key) is not None and getattr(g, key) <= 0:
            _fail(g, key, f"must be > 0 or null (unknown), got {getattr(g, key)}")
    if g.peak_clock_basis not in PEAK_BASES:
        _fail(g, "peak_clock_basis", f"must be one of {', '.join(PEAK_BASES)}, got {g.peak_clock_basis!r}")
    basis_clock = {
        "shader clock": g.shader_clock_mhz,
        "base clock": g.base_clock_mhz,
        "boost clock": g.boost_clock_mhz,
    }[g.peak_clock_basis]
    if basis_clock != g.peak_clock_mhz:
        _fail(
            g,
            "peak_clock_mhz",
            f"({g.peak_clock_mhz}) must equal the {g.peak_clock_basis} ({basis_clock}) it claims to be",
        )
    if g.key != g.key.lower() or not g.key:
        _fail(g, "key", "must be a non-empty lower-case name")
    _check_peak(g, "peak_fp32_gflops", g.fp32_cores_per_sm)
    if (g.peak_fp64_gflops is None) != (g.fp64_results_per_sm_per_clock is None):
        _fail(g, "peak_fp64_gflops", "and fp64_results_per_sm_per_clock must both be given or both null")
    if g.fp64_results_per_sm_per_clock is not None:
        _check_peak(g, "peak_fp64_gflops", g.fp64_results_per_sm_per_clock)
    if not g.sources:
        _fail(g, "sources", "must list at least one source")


def gpu_from_mapping(data: dict[str, Any], legend: dict[str, str], where: str, file: str = "") -> Gpu:
    """Build a `Gpu` from one `products:` entry; source keys are resolved through the legend."""
    if not isinstance(data, dict):
        raise SpecError(f"{where}: each product must be a mapping of keys, got {data!r}")
    data = modern_keys(data)
    check_keys(data, _REQUIRED, where, optional=_OPTIONAL)
    values = dict(data)
    cc = values["cc"]
    if not isinstance(cc, str):
        raise SpecError(f"{where}: cc must be a quoted string like '7.0', got {cc!r}")
    sources = values["sources"]
    if not isinstance(sources, list):
        raise SpecError(f"{where}: sources must be a list of source keys, got {sources!r}")
    unknown = [s for s in sources if s not in legend]
    if unknown:
        raise SpecError(f"{where}: source {unknown[0]!r} is not in the file's sources legend")
    values["sources"] = tuple(f"{s}: {legend[s]}" for s in sources)
    aliases = values.get("aliases") or []
    if not isinstance(aliases, list):
        raise SpecError(f"{where}: aliases must be a list of names, got {aliases!r:.60}")
    values["aliases"] = tuple(str(a) for a in aliases)
    values["notes"] = str(values.get("notes") or "").strip()
    try:
        return Gpu(**values, source_file=file)
    except SpecError as exc:
        raise SpecError(f"{file or where}: {exc}") from None
    except TypeError as exc:
        raise SpecError(f"{where}: {exc}") from None


def load_products_file(path: str | Path) -> tuple[Gpu, ...]:
    """Load and validate a product table; names must be unique across keys and aliases."""
    path = Path(path)
    data = read_mapping(path)
    check_keys(data, ["schema_version", "sources", "products"], str(path))
    if data["schema_version"] != SCHEMA_VERSION:
        raise SpecError(f"{path}: schema_version is {data['schema_version']!r}, this perfcalc reads {SCHEMA_VERSION}")
    legend, products = data["sources"], data["products"]
    if not isinstance(legend, dict) or not isinstance(products, list) or not products:
        raise SpecError(f"{path}: 'sources' must be a mapping and 'products' a non-empty list")
    gpus = []
    owner: dict[str, str] = {}
    for i, entry in enumerate(products):
        key = entry.get("key", f"#{i + 1}") if isinstance(entry, dict) else f"#{i + 1}"
        gpu = gpu_from_mapping(entry, legend, f"{path} product {key!r}", str(path))
        for name in gpu.lookup_names():
            if name in owner and owner[name] != gpu.key:
                raise SpecError(f"{path}: name {name!r} of product {gpu.key!r} already names product {owner[name]!r}")
            owner[name] = gpu.key
        gpus.append(gpu)
    return tuple(gpus)
