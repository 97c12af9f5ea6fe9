"""Draw a roofline (log-log): every ceiling labelled, kernels as points. matplotlib is optional.

matplotlib is imported only here and only when a plot is asked for, with the Agg backend (no
display needed); without it the user gets one line naming the extra to install.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from perfcalc.errors import InputError, OutputError
from perfcalc.model.roofline import Roofline, RooflinePoint
from perfcalc.report.output import check_writable, write_atomic

PLOT_SUFFIXES = (".png", ".svg")


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        raise OutputError("--plot needs matplotlib, which is not installed: pip install 'perfcalc[plot]'") from None
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def check_plot_path(path: str | Path) -> Path:
    """Fail before any work on a suffix we cannot draw, a path we cannot write, or no matplotlib."""
    path = Path(path)
    if path.suffix.lower() not in PLOT_SUFFIXES:
        raise InputError(f"--plot {path}: the file name must end in .png or .svg (the formats the plot is written in)")
    check_writable(path)
    _pyplot()
    return path


def plot_roofline(roof: Roofline, points: Sequence[RooflinePoint], path: str | Path) -> Path:
    """Write the roofline to `path` (.png or .svg), atomically."""
    path = check_plot_path(path)
    plt = _pyplot()
    memory = [c for c in roof.ceilings if c.kind == "memory"]
    compute = [c for c in roof.ceilings if c.kind == "compute"]
    xs = [p.intensity_flop_per_byte for p in points]
    top = max([c.value for c in compute])
    x_lo = min([0.01, *(x / 4 for x in xs)])
    x_hi = max([4 * top / min(c.value for c in memory), *(x * 4 for x in xs)])

    fig, ax = plt.subplots(figsize=(8, 5.5), dpi=100)
    ax.set_xscale("log")
    ax.set_yscale("log")
    for c in memory:
        knee = roof.peak_gflops / c.value
        ax.plot(
            [x_lo, knee, x_hi],
            [x_lo * c.value, roof.peak_gflops, roof.peak_gflops],
            linewidth=2 if c.name == "DRAM" else 1.2,
        )
        ax.annotate(
            f"{c.name} {c.value:,.4g} GB/s", (x_lo * 1.3, x_lo * 1.3 * c.value), rotation=28, fontsize=8, va="bottom"
        )
    by_value: dict[float, list[str]] = {}
    for c in compute:  # equal roofs (V100: FP64 = FP32 without FMA) share one line and label
        by_value.setdefault(c.value, []).append(c.name)
    for value, names in by_value.items():
        ax.axhline(value, linestyle="--", linewidth=0.8, color="grey")
        ax.annotate(
            f"{' = '.join(names)} {value:,.6g} GFLOPS", (x_hi / 1.2, value), fontsize=8, ha="right", va="bottom"
        )
    ax.axvline(roof.ridge_flop_per_byte, linestyle=":", color="black", linewidth=0.8)
    ax.annotate(
        f"ridge {roof.ridge_flop_per_byte:.3g} flop/B",
        (roof.ridge_flop_per_byte, x_lo * roof.bandwidth_gbs),
        fontsize=8,
        rotation=90,
        ha="right",
        va="bottom",
    )
    for p in points:
        ax.plot([p.intensity_flop_per_byte], [p.attainable_gflops], "o", markersize=6)
        ax.annotate(
            f"{p.label} ({p.attainable_gflops:,.4g})",
            (p.intensity_flop_per_byte, p.attainable_gflops),
            textcoords="offset points",
            xytext=(5, -12),
            fontsize=8,
        )
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(x_lo * min(c.value for c in memory), top * 3)
    ax.set_xlabel("arithmetic intensity (flop/byte)")
    ax.set_ylabel("attainable GFLOPS")
    ax.set_title(f"Roofline: {roof.gpu_name} (CC {roof.cc})")
    ax.grid(True, which="major", linewidth=0.3)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format=path.suffix.lower()[1:])
    plt.close(fig)
    write_atomic(path, buffer.getvalue())
    return path
