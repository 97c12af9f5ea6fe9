"""`Arch`: the limits of one compute capability, as a validated frozen dataclass.

Field names are the YAML keys of `devices/cc_X_Y.yaml`, so loading is mechanical and a reader
can go from an attribute straight to the data file and its sources.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from perfcalc.errors import InputError, SpecError
from perfcalc.results import Result
from perfcalc.specs.cc import ComputeCapability
from perfcalc.specs.data_files import data_path
from perfcalc.specs.families import GLOBAL_FAMILIES, SHARED_FAMILIES, GlobalFamily, SharedFamily
from perfcalc.specs.field_types import conforms, describe
from perfcalc.specs.yaml_load import check_keys, modern_keys, read_mapping

SCHEMA_VERSION = 1


@dataclass(frozen=True)
class Arch(Result):
    """Per-SM and per-block limits of one compute capability (units in the names)."""

    cc: str
    architecture: str
    warp_size: int
    max_threads_per_block: int
    max_block_dim: tuple[int, int, int]
    max_grid_dim: tuple[int, int, int]
    max_warps_per_sm: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    sub_partitions: int
    registers_per_sm: int
    max_registers_per_block: int
    max_registers_per_thread: int
    register_allocation_unit: int
    register_allocation_granularity: str
    warp_allocation_granularity: int
    shared_memory_per_sm_bytes: int
    max_shared_memory_per_block_bytes: int
    max_shared_memory_per_block_optin_bytes: int | None
    reserved_shared_memory_per_block_bytes: int
    shared_memory_allocation_unit_bytes: int
    shared_memory_carveouts_kb: tuple[int, ...] | None
    l1_shared_splits_kb: tuple[tuple[int, int], ...] | None
    unified_l1_shared_kb: int | None
    shared_memory_banks: int
    bank_widths_bytes: tuple[int, ...]
    global_memory_family: str
    shared_memory_family: str
    block_barriers_per_sm: int | None
    partitioned_global_caching: bool
    constant_memory_bytes: int
    sources: tuple[str, ...]
    schema_version: int = SCHEMA_VERSION
    virtual_resources_per_sm: int | None = None
    # bytes the DRAM delivers per L2 miss where measured (the cache model; else the 32-byte sector)
    l2_fetch_granularity_bytes: int | None = None
    notes: str = ""
    # Where the record was read from (not a YAML key): every message that cites a limit names it.
    source_file: str = field(default="", compare=False)

    @property
    def version(self) -> ComputeCapability:
        """`cc` parsed, for ordering and the major/minor split."""
        return ComputeCapability.parse(self.cc)

    @property
    def major(self) -> int:
        return self.version.major

    @property
    def minor(self) -> int:
        return self.version.minor

    @property
    def cc_number(self) -> int:
        """70 for CC 7.0, 100 for 10.0: handy for comparisons like `arch.cc_number >= 80`."""
        return self.version.number

    @property
    def global_family(self) -> GlobalFamily:
        """The coalescing family object (specs/families.py) this CC's device file names."""
        return GLOBAL_FAMILIES[self.global_memory_family]

    @property
    def shared_family(self) -> SharedFamily:
        """The bank family object (specs/families.py) this CC's device file names."""
        return SHARED_FAMILIES[self.shared_memory_family]

    def cite(self, key: str) -> str:
        """Where a limit comes from: 'max_threads_per_block in devices/cc_9_0.yaml' (or the
        user's own file, or 'an Arch built in Python' when no file is behind it)."""
        return f"{key} in {display_file(self.source_file)}"

    @property
    def max_shared_memory_per_block_launchable_bytes(self) -> int:
        """Largest static + dynamic shared memory a block can request (opt-in where the CC has it)."""
        return self.max_shared_memory_per_block_optin_bytes or self.max_shared_memory_per_block_bytes

    def __post_init__(self) -> None:
        _validate(self)


_OPTIONAL = {"notes", "virtual_resources_per_sm", "l2_fetch_granularity_bytes"}
_NOT_KEYS = {"source_file"}
_NULLABLE = {
    "max_shared_memory_per_block_optin_bytes",
    "shared_memory_carveouts_kb",
    "l1_shared_splits_kb",
    "unified_l1_shared_kb",
    "block_barriers_per_sm",
    "virtual_resources_per_sm",
    "l2_fetch_granularity_bytes",
}
_FIELDS = [f.name for f in fields(Arch) if f.name not in _NOT_KEYS]


@functools.lru_cache(maxsize=64)
def display_file(source_file: str) -> str:
    """A shipped device file as 'devices/cc_9_0.yaml'; a user's file as given (resolved once per
    name: every launch names its device file in its limit checks)."""
    if not source_file:
        return "an Arch built in Python"
    path = Path(source_file)
    shipped = data_path("devices")
    try:
        return f"devices/{path.resolve().relative_to(shipped.resolve())}"
    except (ValueError, OSError):
        return str(source_file)


def _fail(arch: Arch, key: str, message: str) -> None:
    raise SpecError(f"device {arch.cc}: {key} {message}")


def _validate(a: Arch) -> None:
    """Range and cross-field checks; each names the key it rejects."""
    if not isinstance(a.cc, str):
        _fail(a, "cc", f"must be a quoted string like '7.0', got {a.cc!r}")
    try:
        cc = ComputeCapability.parse(a.cc)
    except InputError:
        cc = None
    if cc is None or str(cc) != a.cc.strip():
        _fail(a, "cc", f"must be written 'X.Y' (e.g. '10.0'), got {a.cc!r}")
    for f in fields(a):
        value = getattr(a, f.name)
        if value is None:
            if f.name not in _NULLABLE:
                _fail(a, f.name, "must not be null")
            continue
        if f.type in ("int", "int | None") and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            _fail(a, f.name, f"must be a non-negative integer, got {value!r}")
        if not conforms(value, str(f.type)):
            _fail(a, f.name, f"must be {describe(str(f.type))}, got {value!r:.60}")
    if a.schema_version != SCHEMA_VERSION:
        _fail(a, "schema_version", f"is {a.schema_version}, this perfcalc reads {SCHEMA_VERSION}")
    positive = (
        "warp_size",
        "max_threads_per_block",
        "max_warps_per_sm",
        "max_blocks_per_sm",
        "sub_partitions",
        "registers_per_sm",
        "max_registers_per_block",
        "register_allocation_unit",
        "warp_allocation_granularity",
        "shared_memory_per_sm_bytes",
        "shared_memory_allocation_unit_bytes",
        "shared_memory_banks",
    )
    for key in positive:
        if getattr(a, key) <= 0:
            _fail(a, key, f"must be > 0, got {getattr(a, key)}")
    if a.max_warps_per_sm * a.warp_size != a.max_threads_per_sm:
        _fail(
            a,
            "max_threads_per_sm",
            f"({a.max_threads_per_sm}) must equal max_warps_per_sm x warp_size ({a.max_warps_per_sm} x {a.warp_size})",
        )
    if a.registers_per_sm % a.register_allocation_unit:
        _fail(a, "register_allocation_unit", f"({a.register_allocation_unit}) must divide registers_per_sm")
    if a.register_allocation_granularity not in ("block", "warp"):
        _fail(
            a,
            "register_allocation_granularity",
            f"must be 'block' or 'warp', got {a.register_allocation_granularity!r}",
        )
    if a.global_memory_family not in GLOBAL_FAMILIES:
        _fail(a, "global_memory_family", f"must be one of {', '.join(GLOBAL_FAMILIES)}, got {a.global_memory_family!r}")
    if a.shared_memory_family not in SHARED_FAMILIES:
        _fail(a, "shared_memory_family", f"must be one of {', '.join(SHARED_FAMILIES)}, got {a.shared_memory_family!r}")
    if len(a.max_block_dim) != 3 or len(a.max_grid_dim) != 3:
        _fail(a, "max_block_dim/max_grid_dim", "must have three entries [x, y, z]")
    if a.max_shared_memory_per_block_bytes > a.shared_memory_per_sm_bytes:
        _fail(a, "max_shared_memory_per_block_bytes", "exceeds shared_memory_per_sm_bytes")
    optin = a.max_shared_memory_per_block_optin_bytes
    if optin is not None and optin + a.reserved_shared_memory_per_block_bytes > a.shared_memory_per_sm_bytes:
        _fail(
            a, "max_shared_memory_per_block_optin_bytes", "plus the reserved bytes exceeds shared_memory_per_sm_bytes"
        )
    carve = a.shared_memory_carveouts_kb
    if carve is not None:
        if not carve:
            _fail(a, "shared_memory_carveouts_kb", "must list at least one size (or be null)")
        if list(carve) != sorted(set(carve)):
            _fail(a, "shared_memory_carveouts_kb", "must be strictly ascending")
        if carve[-1] * 1024 != a.shared_memory_per_sm_bytes:
            _fail(
                a,
                "shared_memory_carveouts_kb",
                f"must end at shared_memory_per_sm_bytes / 1024 "
                f"({a.shared_memory_per_sm_bytes // 1024}), got {carve[-1]}",
            )
    if not a.bank_widths_bytes or any(w not in (4, 8) for w in a.bank_widths_bytes):
        _fail(a, "bank_widths_bytes", f"must list 4 and/or 8, got {list(a.bank_widths_bytes)}")
    if a.l2_fetch_granularity_bytes not in (None, 32, 64, 128):
        _fail(a, "l2_fetch_granularity_bytes", f"must be 32, 64 or 128, got {a.l2_fetch_granularity_bytes}")
    if not a.sources:
        _fail(a, "sources", "must list at least one source")


def _tuplify(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuplify(v) for v in value)
    return value


def arch_from_mapping(data: dict[str, Any], where: str, source_file: str = "") -> Arch:
    """Build an `Arch` from a parsed device file, checking keys exactly."""
    data = modern_keys(data)
    check_keys(data, [n for n in _FIELDS if n not in _OPTIONAL], where, optional=_OPTIONAL)
    values = {k: _tuplify(v) for k, v in data.items()}
    cc = values["cc"]
    if not isinstance(cc, str):
        raise SpecError(f"{where}: cc must be a quoted string like '7.0', got {cc!r}")
    try:
        return Arch(**values, source_file=source_file)
    except SpecError as exc:
        raise SpecError(f"{where}: {exc}") from None
    except TypeError as exc:
        raise SpecError(f"{where}: {exc}") from None


def load_arch_file(path: str | Path) -> Arch:
    """Load and validate one device file (shipped or the user's own)."""
    path = Path(path)
    arch = arch_from_mapping(read_mapping(path), str(path), source_file=str(path))
    expected = arch.version.file_stem + ".yaml"
    if path.name.startswith("cc_") and path.name != expected:
        raise SpecError(f"{path}: file name does not match cc {arch.cc!r} (expected {expected})")
    return arch
