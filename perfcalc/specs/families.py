"""Memory families as objects: what each coalescing and bank family does, defined once.

A device file names its families (`global_memory_family: cc7`, `shared_memory_family: cc5`);
every layer asks the family object, never the name, what it needs: the request unit, the cache
modes, whether transactions are 32-byte sectors, the lanes priced together, the pricing quantum
the execution core may translate addresses by, the bank width modes, the bank bandwidth. The
pricing itself lives in `memory/`, which applies the family's `rule`. A new CC that behaves like
an old family names it; a new family with an existing rule is one entry here.

Sources: reference/memory.md sections 1 (global) and 3 (shared); CUDA C Programming Guide 4.2
F.3.3, F.4.3, F.5.3 and the 5.x section (bank bandwidth per clock).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Translation quantum that no family's rule can see through (no rule looks at address bits above
# a 256-byte boundary; memory.md section 1).
WIDE_QUANTUM = 256


@dataclass(frozen=True)
class GlobalFamily:
    """One global-memory coalescing family."""

    name: str
    title: str
    rule: str  # the pricing rule memory/ applies: strict | segments | lines | sectors
    cache_modes: tuple[str, ...] = ()  # selectable L1 caching of loads ('l1', 'l2')
    default_cache: str | None = None
    # Lanes priced together, by access size (memory.md 1.5: 8/4/2 threads on 5.x/6.x).
    lane_groups: dict[int, int] = field(default_factory=dict)
    l1_wavefronts: bool = False  # 7.x+: lines, tag and data wavefronts are reported
    has_cache: bool = True
    # Families without selectable modes: do plain global loads allocate in L1? (memory.md 1.5:
    # 5.x/6.x cache global loads in L2 only unless compiled -dlcm=ca; 7.x+ in L1 by default)
    loads_in_l1: bool = False

    def l1_caches_loads(self, cache: str | None) -> bool:
        """Whether a plain global load allocates in L1 under cache mode `cache` (None: default)."""
        if self.cache_modes:
            return (cache or self.default_cache) == "l1"
        return self.has_cache and self.loads_in_l1

    @property
    def sectored(self) -> bool:
        """Transactions are 32-byte sectors (CC >= 5.0)."""
        return self.rule == "sectors"

    @property
    def pricing_quantum(self) -> int:
        """Bytes an address may move by without changing a warp's price (sectors: 32)."""
        return 32 if self.sectored else WIDE_QUANTUM

    def request_unit(self, size: int) -> str:
        """What one request is for this access size (memory.md 1.7)."""
        if self.rule in ("strict", "segments"):
            return "half-warp"
        if self.rule == "lines":
            return {8: "half-warp", 16: "quarter-warp"}.get(size, "warp")
        if self.lane_groups:
            return f"{self.lane_groups[size]}-lane group"
        return "warp"

    def lanes_per_group(self, size: int) -> int:
        return self.lane_groups.get(size, 32)


@dataclass(frozen=True)
class SharedFamily:
    """One shared-memory bank family."""

    name: str
    title: str
    rule: str  # half-warp (1.x) | warp
    bytes_per_bank_per_clock: float
    cycles_per_wavefront: int
    word_quantum: bool  # a 4-byte shift maps banks one-to-one: pricing quantum is one word
    eight_byte_mode: bool = False  # 3.x: 64-bit bank mode, 64-bit bank rows
    uniform_pairs: bool = False  # 5.x+: 64/128-bit loads with uniform lane pairs merge
    quarter_warp_128: bool = False  # 2.x: 128-bit accesses add one pass per quarter-warp

    @property
    def parts_per_warp(self) -> int:
        """Requests a warp's shared access splits into (2 half-warps on 1.x)."""
        return 2 if self.rule == "half-warp" else 1

    @property
    def pricing_quantum(self) -> int:
        return 4 if self.word_quantum else WIDE_QUANTUM


_T_STAGE = {1: 8, 2: 8, 4: 8, 8: 4, 16: 2}

GLOBAL_FAMILIES: dict[str, GlobalFamily] = {
    f.name: f
    for f in (
        GlobalFamily("cc1.0", "1.0/1.1 strict coalescing", "strict", has_cache=False),
        GlobalFamily("cc1.2", "1.2/1.3 segments", "segments", has_cache=False),
        GlobalFamily("cc2", "2.x L1 lines (default) or L2 segments", "lines", ("l1", "l2"), "l1"),
        GlobalFamily("cc3", "3.x L2 segments (default) or L1 lines", "lines", ("l2", "l1"), "l2"),
        GlobalFamily("cc5", "5.x/6.x sectors by lane group", "sectors", lane_groups=_T_STAGE),
        GlobalFamily("cc7", "7.0+ sectors per warp", "sectors", l1_wavefronts=True, loads_in_l1=True),
    )
}

SHARED_FAMILIES: dict[str, SharedFamily] = {
    f.name: f
    for f in (
        # PG 4.2 F.3.3: 16 banks, "32 bits per two clock cycles", conflicts per half-warp.
        SharedFamily("cc1", "1.x, 16 banks per half-warp", "half-warp", 2.0, 2, False),
        # PG 4.2 F.4.3: 32 banks, 32 bits per two clocks; multicast.
        SharedFamily("cc2", "2.x, 32 banks", "warp", 2.0, 2, True, quarter_warp_128=True),
        # PG 4.2 F.5.3: "64 bits per clock cycle", 4- or 8-byte bank mode.
        SharedFamily("cc3", "3.x, 32 banks, 4/8-byte mode", "warp", 8.0, 1, False, eight_byte_mode=True),
        # The 5.x section, which 6.x-12.x refer back to: "32 bits per clock cycle".
        SharedFamily("cc5", "5.0+, 32 banks", "warp", 4.0, 1, True, uniform_pairs=True),
    )
}
