"""The front page of `perfcalc report`: index.md and index.html tying its tables and figures
together, with one paragraph per kernel (occupancy and limiter, bound, predicted time, what to
change).

The HTML is one self-contained file beside the tables and images it links (relative paths, CSS
inline, no script, nothing fetched from a network), so the directory opens offline and can be
zipped or copied as it is.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

from perfcalc.analysis.launch_advice import LaunchAdvice, what_to_change
from perfcalc.model.hints import LIMITER_LABELS
from perfcalc.report.render import html_table
from perfcalc.report.table import Table
from perfcalc.units import format_value, percent, seconds


@dataclass(frozen=True)
class ReportFigure:
    """A figure written as `<stem>.png` and `<stem>.svg`."""

    stem: str
    title: str


@dataclass(frozen=True)
class ReportSection:
    """A table written as `<stem>.csv` and `<stem>.md`, and shown on the page."""

    stem: str
    table: Table


@dataclass(frozen=True)
class KernelEntry:
    """A timed launch: its parameters, geometry, advice and (with the plot extra) its figures."""

    params: dict[str, int]
    grid: tuple[int, ...]
    block: tuple[int, ...]
    advice: LaunchAdvice
    figures: tuple[ReportFigure, ...] = ()
    gpu: str | None = None  # the product, in a report on several

    @property
    def heading(self) -> str:
        return self.advice.kernel + (f" on {self.gpu}" if self.gpu else "")


@dataclass(frozen=True)
class ReportPage:
    """What the front page shows: a title, notes, figures, kernels and the tables."""

    title: str
    notes: Sequence[str]
    figures: Sequence[ReportFigure]
    sections: Sequence[ReportSection]
    kernels: Sequence[KernelEntry]


def kernel_paragraph(entry: KernelEntry) -> tuple[str, list[str]]:
    """A kernel's summary sentence and its list of what to change (plain text)."""
    a = entry.advice
    params = ", ".join(f"{k}={v}" for k, v in entry.params.items())
    limiter = " and ".join(LIMITER_LABELS.get(n, n) for n in a.limiters) or "nothing"
    facts = [
        f"{a.kernel} ({params}): {math.prod(entry.grid)} blocks of {math.prod(entry.block)} threads.",
        f"Occupancy {percent(a.occupancy)} (limiters: {limiter}).",
        f"Predicted time {seconds(a.predicted_time_s)}, {a.bound_detail}.",
    ]
    memory = []
    if a.global_load_sectors_per_request is not None:
        memory.append(f"global loads {format_value(a.global_load_sectors_per_request)} sectors per request")
    if a.global_store_sectors_per_request is not None:
        memory.append(f"global stores {format_value(a.global_store_sectors_per_request)}")
    if a.shared_bank_conflicts_per_request is not None:
        memory.append(f"{format_value(a.shared_bank_conflicts_per_request)} bank conflicts per shared request")
    if memory:
        facts.append(f"Counted: {'; '.join(memory)}; {format_value(a.divergent_branches)} divergent branches.")
    return " ".join(facts), what_to_change(a)


def index_markdown(page: ReportPage) -> str:
    """index.md: figures, one paragraph per kernel, and a link to each table's CSV and Markdown."""
    title, notes, figures, sections, kernels = page.title, page.notes, page.figures, page.sections, page.kernels
    lines = [f"# {title}", "", *notes, ""]
    if figures:
        lines += ["## Figures", ""]
        for f in figures:
            lines += [f"### {f.title}", "", f"![{f.title}]({f.stem}.png)", "", f"[SVG]({f.stem}.svg)", ""]
    if kernels:
        lines += ["## Kernels", ""]
        for k in kernels:
            summary, changes = kernel_paragraph(k)
            lines += [f"### {k.heading}", "", summary, "", "What to change:", ""]
            lines += [f"- {c}" for c in changes] + [""]
            for f in k.figures:
                lines += [f"![{f.title}]({f.stem}.png)", "", f"[SVG]({f.stem}.svg)", ""]
    lines += ["## Tables", ""]
    lines += [f"- {s.table.title}: [CSV]({s.stem}.csv), [Markdown]({s.stem}.md)" for s in sections]
    return "\n".join(lines) + "\n"


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
img { max-width: 100%; height: auto; border: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.85rem; margin: 0.5rem 0 1.5rem; display: block; overflow-x: auto; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.5rem; text-align: right; white-space: nowrap; }
th { background: #f2f2f2; }
.notes { color: #555; font-size: 0.85rem; }
"""


def index_html(page: ReportPage) -> str:
    """index.html: the same page as index.md, with every table shown; offline, no script."""
    title, notes, figures, sections, kernels = page.title, page.notes, page.figures, page.sections, page.kernels
    e = html.escape
    body = [f"<h1>{e(title)}</h1>", *(f"<p>{e(n)}</p>" for n in notes)]
    if figures:
        body.append("<h2>Figures</h2>")
        body += [_figure_html(f) for f in figures]
    if kernels:
        body.append("<h2>Kernels</h2>")
        for k in kernels:
            summary, changes = kernel_paragraph(k)
            anchor = k.advice.kernel + (f"-{k.gpu}" if k.gpu else "")
            body += [f'<h3 id="{e(anchor)}">{e(k.heading)}</h3>', f"<p>{e(summary)}</p>"]
            body += ["<p>What to change:</p><ul>", *(f"<li>{e(c)}</li>" for c in changes), "</ul>"]
            body += [_figure_html(f) for f in k.figures]
    body.append("<h2>Tables</h2>")
    for s in sections:
        body.append(
            f"<h3>{e(s.table.title)}</h3><p>"
            f'<a href="{e(s.stem)}.csv">CSV</a> · <a href="{e(s.stem)}.md">Markdown</a></p>'
        )
        body.append(html_table(s.table))
        body += [f'<p class="notes">{e(n)}</p>' for n in s.table.notes]
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def _figure_html(f: ReportFigure) -> str:
    e = html.escape
    return (
        f'<figure><img src="{e(f.stem)}.png" alt="{e(f.title)}"><figcaption>{e(f.title)} '
        f'(<a href="{e(f.stem)}.svg">SVG</a>)</figcaption></figure>'
    )
