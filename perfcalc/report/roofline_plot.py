"""Draw a roofline (log-log): each ceiling labelled once, kernels at their roof and, where the
time model predicted them, at their predicted performance with a line to the roof.

Layout rules (tested): compute ceilings within 10 % of each other share one line and one label
(the H100's FP64-tensor 66.9 and FP32 66.91 TFLOPS printed on top of each other); a point's
label sits on the side of the point away from the ridge line, so it never crosses it; numbers
carry engineering units as the tables do ('15.67 TB/s', not '1.567e+04 GB/s').
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfcalc.model.roofline import Ceiling, Roofline, RooflinePoint
from perfcalc.report.figures import DEFAULT_DPI, new_figure, save_figure, separate_labels
from perfcalc.units import giga_rate

SAME_ROOF = 1.10  # compute ceilings closer than this ratio share one label


@dataclass(frozen=True)
class PredictedPoint:
    """A launch at its predicted rate, below (or, with cache reuse, above) its roof."""

    label: str
    intensity_flop_per_byte: float
    predicted_gflops: float
    roof_gflops: float


def predicted_points(reports: Sequence[Any], rows: Sequence[dict[str, Any]]) -> list[PredictedPoint]:
    """Each timed launch with flops, at its predicted GFLOPS under the roof at its intensity;
    `rows` are perf_tables.launch_reports_table's, one per report."""
    found = []
    for r, row in zip(reports, rows, strict=True):
        if row["predicted_gflops"] and row["roof_gflops"] and row["intensity_flop_per_dram_byte"]:
            label = f"{r.kernel} ({', '.join(f'{k}={v}' for k, v in r.params.items())})"
            found.append(
                PredictedPoint(label, row["intensity_flop_per_dram_byte"], row["predicted_gflops"], row["roof_gflops"])
            )
    return found


def on_product(points: Sequence[Any], gpu: str, several: bool) -> list[Any]:
    """Points (RooflinePoint or PredictedPoint) labelled with their product when a chart shows
    several products' roofs."""
    from dataclasses import replace

    return [replace(p, label=f"{p.label} on {gpu}") for p in points] if several else list(points)


def compute_label_groups(ceilings: Sequence[Ceiling]) -> list[list[Ceiling]]:
    """Compute ceilings, highest first, grouped where values are within SAME_ROOF of each other."""
    groups: list[list[Ceiling]] = []
    for c in sorted((c for c in ceilings if c.kind == "compute"), key=lambda c: -c.value):
        if groups and groups[-1][-1].value / c.value < SAME_ROOF:
            groups[-1].append(c)
        else:
            groups.append([c])
    return groups


def roofline_figure(
    roof: Roofline | Sequence[Roofline],
    points: Sequence[RooflinePoint] = (),
    predicted: Sequence[PredictedPoint] = (),
) -> Any:
    """The roofline as a matplotlib Figure (nothing global changed; show or save it yourself).

    One product: every ceiling. Several (`roofline --gpu A --gpu B`): each product's DRAM roof
    and FP32 peak in its own colour, named in the legend.
    """
    roofs = [roof] if isinstance(roof, Roofline) else list(roof)
    single = len(roofs) == 1
    memory = [c for r in roofs for c in r.ceilings if c.kind == "memory"]
    xs = [p.intensity_flop_per_byte for p in points] + [p.intensity_flop_per_byte for p in predicted]
    # one product: its highest compute ceiling; several: only their FP32 peaks are drawn
    top = (
        max(c.value for c in roofs[0].ceilings if c.kind == "compute") if single else max(r.peak_gflops for r in roofs)
    )
    x_lo = min([0.01, *(x / 4 for x in xs)])
    x_hi = max([4 * top / min(c.value for c in memory), *(x * 4 for x in xs)])
    y_lo = min([x_lo * min(c.value for c in memory), *(p.predicted_gflops / 3 for p in predicted)])

    fig = new_figure(8, 5.5)
    ax = fig.subplots()
    ax.set_xscale("log")
    ax.set_yscale("log")
    if single:
        _draw_one(ax, roofs[0], x_lo, x_hi, y_lo)
    else:
        for r in roofs:
            ax.plot(
                [x_lo, r.ridge_flop_per_byte, x_hi],
                [x_lo * r.bandwidth_gbs, r.peak_gflops, r.peak_gflops],
                linewidth=1.8,
                label=f"{r.gpu_name}: DRAM {giga_rate(r.bandwidth_gbs, 'B/s')}, "
                f"FP32 {giga_rate(r.peak_gflops, 'FLOPS')}",
            )
    _draw_points(ax, points, predicted, roofs[0].ridge_flop_per_byte)
    ax.set_xlim(x_lo, x_hi)
    ax.set_ylim(y_lo, top * 3)
    ax.set_xlabel("arithmetic intensity (flop/byte)")
    ax.set_ylabel("GFLOPS (roofs: attainable; dots: predicted)")
    names = roofs[0].gpu_name if single else ", ".join(r.gpu_name for r in roofs)
    ax.set_title(f"Roofline: {names}" + (f" (CC {roofs[0].cc})" if single else ""))
    ax.grid(True, which="major", linewidth=0.3)
    # the slanted roofs and the kernels are named in a legend below the axes: labels written
    # along the lines overlapped wherever two bandwidths are within a few times of each other
    # (V100, H100), and a kernel's long name pushed the axes aside; on the chart a kernel is its number
    ax.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, -0.13),
        ncol=1 if xs else len(memory),
        fontsize=8,
        frameon=False,
    )
    separate_labels(fig, [t for t in ax.texts if t.get_gid() == "point-label"])
    return fig


def _draw_points(ax: Any, points: Sequence[RooflinePoint], predicted: Sequence[PredictedPoint], ridge: float) -> None:
    """Placed points as open circles at their roof, predicted ones as red dots below theirs,
    each numbered on the chart and named in the legend."""
    number = 0
    for p in points:
        number += 1
        ax.plot(
            [p.intensity_flop_per_byte],
            [p.attainable_gflops],
            "o",
            markersize=6,
            fillstyle="none",
            color="k",
            label=f"{number}: {p.label} (roof {giga_rate(p.attainable_gflops, 'FLOPS')})",
        )
        _label(ax, p.intensity_flop_per_byte, p.attainable_gflops, str(number), ridge)
    for q in predicted:
        number += 1
        x = q.intensity_flop_per_byte
        ax.plot([x, x], [q.predicted_gflops, q.roof_gflops], linestyle=":", color="#555555", linewidth=1)
        ax.plot(
            [x],
            [q.predicted_gflops],
            "o",
            markersize=6,
            color="#c0392b",
            label=f"{number}: {q.label}: predicted {giga_rate(q.predicted_gflops, 'FLOPS')}",
        )
        _label(ax, x, q.predicted_gflops, str(number), ridge)


def _draw_one(ax: Any, roof: Roofline, x_lo: float, x_hi: float, y_lo: float) -> None:
    """Every ceiling of one product: slanted memory roofs (legend), compute roofs labelled at the right."""
    for c in (c for c in roof.ceilings if c.kind == "memory"):
        knee = roof.peak_gflops / c.value
        ax.plot(
            [x_lo, knee, x_hi],
            [x_lo * c.value, roof.peak_gflops, roof.peak_gflops],
            linewidth=2 if c.name == "DRAM" else 1.2,
            label=f"{c.name} {giga_rate(c.value, 'B/s')}",
        )
    for group in compute_label_groups(roof.ceilings):
        value = group[0].value
        for c in group:
            ax.axhline(c.value, linestyle="--", linewidth=0.8, color="grey")
        text = " / ".join(f"{c.name} {giga_rate(c.value, 'FLOPS')}" for c in group)
        ax.annotate(text, (x_hi / 1.2, value), fontsize=8, ha="right", va="bottom", gid="compute-ceiling")
    ridge = roof.ridge_flop_per_byte
    ax.axvline(ridge, linestyle=":", color="black", linewidth=0.8)
    ax.annotate(f"ridge {ridge:.3g} flop/B", (ridge, y_lo * 1.5), fontsize=8, rotation=90, ha="right", va="bottom")


def _label(ax: Any, x: float, y: float, text: str, ridge: float) -> None:
    """A point's number on the side away from the ridge line (left of it: to the left)."""
    left = x < ridge
    ax.annotate(
        text,
        (x, y),
        textcoords="offset points",
        xytext=(-5 if left else 5, -10),
        ha="right" if left else "left",
        fontsize=8,
        fontweight="bold",
        gid="point-label",
    )


def plot_roofline(
    roof: Roofline | Sequence[Roofline],
    points: Sequence[RooflinePoint],
    path: str | Path,
    dpi: int = DEFAULT_DPI,
    predicted: Sequence[PredictedPoint] = (),
) -> Path:
    """Write the roofline to `path` (.png, .svg or .pdf), atomically."""
    return save_figure(roofline_figure(roof, points, predicted), path, dpi)
