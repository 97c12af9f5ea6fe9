"""One warp's shared access as a picture: the banks across, the passes down, each lane in the
cell of the bank word it reads.

One panel per CC family (and per bank mode on 3.x), stacked: a cell per (bank, pass) with the
lanes the bank serves in that pass (lanes reading one word share its cell: a broadcast); the
first pass of each lane group in blue, every later pass of a bank (a conflict) in red, lane
groups (half-warps, quarter-warps) separated by a line. The cells come from
memory/bank_words.py; each panel's title gives the passes shared_memory prices, and says so
where the family's rule differs from the picture's (1.x repeated words, 2.x 128-bit, uniform
pairs).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfcalc.memory.bank_words import BankWords
from perfcalc.memory.patterns import WarpPattern
from perfcalc.memory.shared_memory import SharedAccessCost
from perfcalc.report.figures import DEFAULT_DPI, new_figure, save_figure

FIRST_PASS, CONFLICT = "#9cc3e6", "#e8a0a0"


def lanes_text(lanes: Sequence[int]) -> str:
    """'5', '5,6', '4-7' (consecutive) or '9 lanes': short enough for a bank's cell."""
    lanes = sorted(lanes)
    if len(lanes) <= 2:
        return ",".join(str(lane) for lane in lanes)
    if lanes[-1] - lanes[0] == len(lanes) - 1:
        return f"{lanes[0]}-{lanes[-1]}"
    return f"{len(lanes)} lanes"


def banks_figure(pattern: WarpPattern, results: Sequence[tuple[str, SharedAccessCost, BankWords]]) -> Any:
    """The access on each family of `results` ((label, cost, bank words) as `perfcalc banks` lists them)."""
    from matplotlib.patches import Rectangle

    heights = [max(words.passes, 1) for _label, _cost, words in results]
    fig = new_figure(10, sum(0.28 * h + 0.9 for h in heights) + 0.6)
    axes = fig.subplots(len(results), 1, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    for ax, (label, cost, words), passes in zip(axes, results, heights, strict=True):
        cells: dict[tuple[int, int], list[int]] = defaultdict(list)
        group_start: dict[int, int] = {}
        for w in words.words:
            cells[(w.bank, w.pass_index)].append(w.lane)
            group_start[w.group] = min(group_start.get(w.group, w.pass_index), w.pass_index)
        firsts = set(group_start.values())
        for (bank, pass_index), lanes in cells.items():
            colour = FIRST_PASS if pass_index in firsts else CONFLICT
            ax.add_patch(Rectangle((bank, pass_index), 1, 1, facecolor=colour, edgecolor="white", gid="bank-word"))
            ax.text(bank + 0.5, pass_index + 0.5, lanes_text(lanes), ha="center", va="center", fontsize=5)
        for start in sorted(firsts)[1:]:
            ax.axhline(start, color="#333333", linewidth=1)
        ax.set_xlim(0, words.banks)
        ax.set_ylim(passes, 0)  # pass 1 at the top
        ax.set_xticks([b + 0.5 for b in range(0, words.banks, 4)], [str(b) for b in range(0, words.banks, 4)])
        ax.set_yticks(
            [p + 0.5 for p in range(passes)] if passes <= 8 else [0.5, passes - 0.5],
            [str(p + 1) for p in range(passes)] if passes <= 8 else ["1", str(passes)],
            fontsize=7,
        )
        ax.set_ylabel("pass", fontsize=7)
        ax.tick_params(axis="x", labelsize=7)
        drawn = "" if words.exact else f"; the picture counts {words.passes}: the family's rule differs"
        ax.set_title(
            f"CC {label}: {cost.wavefronts} pass(es), {cost.bank_conflicts} conflict(s), lanes grouped by "
            f"{cost.group_unit}{drawn}",
            fontsize=8,
            loc="left",
        )
    axes[-1].set_xlabel("bank")
    fig.suptitle(
        f"{pattern.description}, {pattern.word}-byte words (cell: lanes served; red: a bank's later pass)",
        fontsize=9,
    )
    return fig


def plot_banks(
    pattern: WarpPattern,
    results: Sequence[tuple[str, SharedAccessCost, BankWords]],
    path: str | Path,
    dpi: int = DEFAULT_DPI,
) -> Path:
    """Write the figure to `path` (.png, .svg or .pdf), atomically."""
    return save_figure(banks_figure(pattern, results), path, dpi)
