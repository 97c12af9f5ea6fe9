"""Figures as files: PNG (200 dpi by default), SVG (text as text, reproducible bytes) and PDF.

matplotlib is the optional `plot` extra, imported only when a figure is asked for. Figures are
built with matplotlib's object API (`matplotlib.figure.Figure`), never through pyplot, so making
one changes no global backend or state: a notebook keeps its inline plots, and the library's
figure functions return the Figure for the caller to show or save.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from perfcalc.errors import InputError, OutputError, interruption_behind
from perfcalc.report.output import check_writable, write_atomic

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
DEFAULT_DPI = 200  # a projector-sized PNG: the 8 x 5.5 in roofline is 1600 x 1100 pixels
DPI_RANGE = (50, 1200)
INSTALL_HINT = "pip install 'perfcalc[plot]'"
# SVG: fonts as <text> (searchable, editable), element ids from a fixed salt, no date -> the same
# figure gives the same bytes; PDF and PNG: no creation date either
_RC: dict[str, Any] = {"svg.fonttype": "none", "svg.hashsalt": "perfcalc"}
_METADATA = {"svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}, "png": {}}


def matplotlib_module() -> Any:
    """matplotlib itself, or one line naming the extra to install."""
    try:
        import matplotlib
    except ImportError as exc:
        interrupted = interruption_behind(exc)  # a signal during the import: not "not installed"
        if interrupted is not None:
            raise interrupted from None
        raise OutputError(f"--plot needs matplotlib, which is not installed: {INSTALL_HINT}") from None
    return matplotlib


def new_figure(width_in: float, height_in: float) -> Any:
    """A Figure not attached to pyplot (no backend switch, nothing kept alive)."""
    matplotlib_module()
    from matplotlib.figure import Figure

    return Figure(figsize=(width_in, height_in), layout="tight")


def check_figure_path(path: str | Path, option: str = "--plot") -> Path:
    """Fail before any work: a .png/.svg/.pdf name, a writable place, matplotlib installed."""
    path = Path(path)
    if path.suffix.lower() not in FORMATS:
        raise InputError(f"{option} {path}: the file name must end in .png, .svg or .pdf (the formats written)")
    check_writable(path)
    matplotlib_module()
    return path


def check_dpi(dpi: int) -> int:
    low, high = DPI_RANGE
    if isinstance(dpi, bool) or not isinstance(dpi, int) or not low <= dpi <= high:
        raise InputError(f"--dpi {dpi!r} is outside {low} to {high} dots per inch")
    return dpi


def figure_bytes(fig: Any, fmt: str, dpi: int = DEFAULT_DPI) -> bytes:
    """The figure rendered as `fmt` (png, svg or pdf), reproducibly."""
    import matplotlib

    buffer = io.BytesIO()
    with matplotlib.rc_context(_RC):  # type: ignore[arg-type]
        fig.savefig(buffer, format=fmt, dpi=check_dpi(dpi), metadata=_METADATA[fmt])
    return buffer.getvalue()


def save_figure(fig: Any, path: str | Path, dpi: int = DEFAULT_DPI) -> Path:
    """Write the figure in the format its name says, atomically (no half-written file)."""
    path = check_figure_path(path)
    write_atomic(path, figure_bytes(fig, FORMATS[path.suffix.lower()], dpi))
    return path


def visible_texts(fig: Any) -> list[Any]:
    """Every drawn, non-empty text of the figure (titles, labels, ticks, legends, annotations)."""
    from matplotlib.text import Text

    ticks: set[Any] = set()
    shown: list[Any] = []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                labels = (tick.label1, tick.label2)
                ticks.update(labels)
                # the tick pool keeps labels of positions outside the view: they are not drawn
                if low - abs(low) * 1e-9 <= tick.get_loc() <= high + abs(high) * 1e-9:
                    shown.extend(labels)
    texts = [t for t in fig.findobj(Text) if t not in ticks] + shown
    return [t for t in texts if t.get_visible() and t.get_text().strip()]


def text_overlaps(fig: Any) -> list[tuple[str, str]]:
    """Pairs of texts whose boxes, as matplotlib's renderer lays them out, overlap."""
    renderer = _drawn(fig)
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in visible_texts(fig)]
    return [(a, b) for i, (a, box_a) in enumerate(boxes) for b, box_b in boxes[i + 1 :] if box_a.overlaps(box_b)]


def separate_labels(fig: Any, labels: list[Any], step_pt: float = 2.0, max_moves: int = 40) -> None:
    """Move annotations (offset in points) down, one at a time, until each clears every other text.

    The layout rule the figures rely on: a label keeps its side of its point and slides
    vertically in small steps away from whatever it covers; texts that are not in `labels`
    (titles, ticks, ceilings) never move.
    """
    if not labels:
        return
    renderer = _drawn(fig)
    placed = [t.get_window_extent(renderer) for t in visible_texts(fig) if t not in labels]
    for label in labels:
        for _ in range(max_moves):
            box = label.get_window_extent(renderer)
            if not any(box.overlaps(other) for other in placed):
                break
            x, y = label.xyann
            label.xyann = (x, y - step_pt - box.height * 72.0 / fig.dpi / 2)
        placed.append(label.get_window_extent(renderer))


def _drawn(fig: Any) -> Any:
    """The figure laid out and drawn once on an Agg canvas (tight layout applied); its renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    renderer = canvas.get_renderer()  # type: ignore[no-untyped-call]  # matplotlib leaves it unannotated
    fig.draw(renderer)
    return renderer
