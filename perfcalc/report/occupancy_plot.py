"""The spreadsheet's occupancy graphs as PNG, SVG or PDF, with the current point marked.

matplotlib is the optional `plot` extra and is imported only when a plot is asked for (a bare
`perfcalc occupancy` never pays for it); the figure is built without pyplot (report/figures.py)
and written atomically, so a failed plot leaves no file behind. Legends sit below the axes,
outside the data (the CC 1.0 legend hid part of the block-size curve).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from matplotlib.ticker import MaxNLocator

from perfcalc.model.occupancy_sweep import Sweep
from perfcalc.report.figures import DEFAULT_DPI, new_figure, save_figure
from perfcalc.report.occupancy_tables import SWEEP_TITLES, SWEEP_UNITS


def sweeps_figure(sweeps: Sequence[Sweep], title: str) -> Any:
    """One panel per sweep: active warps per SM as a step line, the current point in red."""
    fig = new_figure(5.2 * len(sweeps), 4.6)
    axes = fig.subplots(1, len(sweeps), squeeze=False)

    for ax, sweep in zip(axes[0], sweeps, strict=True):
        # each value v stands for the inputs after the previous value up to v: a "pre" step
        ax.step(
            sweep.values, sweep.active_warps, where="pre", color="#1f5fa8", linewidth=1.6, label="active warps per SM"
        )
        current = int(sweep.values.searchsorted(sweep.current))
        y = int(sweep.active_warps[current])
        ax.plot(
            [sweep.current],
            [y],
            "o",
            color="#c0392b",
            markersize=8,
            zorder=3,
            label=f"current: {sweep.current} -> {y} warps",
        )
        ax.axhline(sweep.max_warps_per_sm, color="#999999", linestyle=":", linewidth=1)
        ax.set_ylim(0, sweep.max_warps_per_sm * 1.08)
        ax.set_xlim(0, float(sweep.values[-1]))
        # at most 5 ticks: shared-memory axes up to 228 KB printed six-digit labels edge to edge
        ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
        ax.set_title(SWEEP_TITLES[sweep.axis], fontsize=10)
        ax.set_xlabel(SWEEP_UNITS[sweep.axis])
        ax.set_ylabel(f"active warps per SM (max {sweep.max_warps_per_sm})")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2, fontsize=8, frameon=False)
    fig.suptitle(title, fontsize=11)
    # tight layout leaves the last x tick label of a panel over the next panel's "0": more room
    fig.get_layout_engine().set(w_pad=2.0)
    return fig


def draw_sweeps(sweeps: Sequence[Sweep], path: str | Path, title: str, dpi: int = DEFAULT_DPI) -> None:
    """Write the sweeps' figure to `path` (.png, .svg or .pdf), atomically."""
    save_figure(sweeps_figure(sweeps, title), path, dpi)
