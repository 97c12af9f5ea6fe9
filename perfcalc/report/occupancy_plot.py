"""The spreadsheet's occupancy graphs as a PNG or SVG, with the current point marked.

matplotlib is the optional `plot` extra and is imported only here, only when a plot is asked
for (a bare `perfcalc occupancy` never pays for it). The figure is rendered to memory and then
written atomically, so a failed plot leaves no file behind.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from perfcalc.errors import OutputError
from perfcalc.report.occupancy_tables import SWEEP_TITLES, SWEEP_UNITS, Sweep
from perfcalc.report.output import check_writable, write_atomic

PLOT_FORMATS = {".png": "png", ".svg": "svg"}
INSTALL_HINT = "pip install 'perfcalc[plot]'"


def check_plot_target(path: str | Path) -> Path:
    """Fail before any work: a writable .png/.svg path and matplotlib installed."""
    path = Path(path)
    if path.suffix.lower() not in PLOT_FORMATS:
        raise OutputError(f"cannot plot to {path}: the file name must end in .png or .svg")
    check_writable(path)
    _pyplot()
    return path


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")  # files only; never open a window
        import matplotlib.pyplot as plt
    except ImportError:
        raise OutputError(
            f"--plot needs matplotlib, which is not installed; install the plot extra: {INSTALL_HINT}"
        ) from None
    return plt


def draw_sweeps(sweeps: Sequence[Sweep], path: str | Path, title: str) -> None:
    """One panel per sweep: active warps per SM as a step line, the current point in red."""
    path = Path(path)
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(sweeps), figsize=(5.2 * len(sweeps), 4.2), squeeze=False)
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
        ax.set_title(SWEEP_TITLES[sweep.axis], fontsize=10)
        ax.set_xlabel(SWEEP_UNITS[sweep.axis])
        ax.set_ylabel(f"active warps per SM (max {sweep.max_warps_per_sm})")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper right", fontsize=8)
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format=PLOT_FORMATS[path.suffix.lower()])
    plt.close(fig)
    write_atomic(path, buffer.getvalue())
