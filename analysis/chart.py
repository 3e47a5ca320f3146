"""The evaluation over a game as a chart: an SVG drawn on the server, no script library.

The chart is two drawings of one size stacked on each other (``.eval-chart``):

* the picture (``role="img"`` with a ``<title>`` and a ``<desc>``): the evaluation of every
  position from White's view (above the axis White is better), clamped to :data:`CLAMP`
  centi-men (a forced win is drawn at the edge), the axis at 0, a mark on every mistake and
  blunder (at the position the move led to, where the drop shows), the position shown marked by
  a vertical line;
* the points to click (``aria-hidden``, out of the tab order): a link per position, the width of
  a step, to ``?ply=N``. Screen readers and keyboards have the same links in the visually hidden
  list beside the chart (``analysis/report.html``), which shows itself when it has the focus.

The page's stylesheet colours it by the classes; the presentation attributes are the colours
without it (the site's CSP allows no style attribute, and needs none here).

>>> y_of(0), y_of(CLAMP), y_of(-10 * CLAMP)
(80.0, 8.0, 152.0)
>>> clamped({"eval": 29990, "mate": 10}), clamped({"eval": -120, "mate": None})
(500, -120)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

#: the chart's drawing units (the viewBox): it scales to the column it is in
WIDTH = 600
HEIGHT = 160
PAD = 8
#: the evaluations are drawn within +/- this many centi-men (5 men); a forced win at the edge
CLAMP = 500
#: the marks drawn on the chart (the milder inaccuracies are in the words only)
DRAWN_MARKS = ("mistake", "blunder")
#: the colours without the stylesheet (the classes of the page's CSS set them too)
COLOURS = {
    "white-side": "#f7f3ea",
    "black-side": "#d9d2c5",
    "area": "#8a6d3b",
    "axis": "#555555",
    "current": "#1f5fa8",
    "mistake": "#c77700",
    "blunder": "#b3261e",
}


@dataclass(frozen=True)
class Point:
    """One position of the chart: ``ply`` (0: the start), its evaluation entry, the address of
    the position, its words (the hover title), and the mark of the move that led to it."""

    ply: int
    entry: Mapping[str, Any]
    url: str
    label: str
    mark: str = ""


def clamped(entry: Mapping[str, Any]) -> int:
    """An evaluation entry's value as drawn: within +/- :data:`CLAMP`, a forced win at the edge."""
    value = int(entry.get("eval") or 0)
    if entry.get("mate") is not None:
        return CLAMP if value > 0 else -CLAMP if value < 0 else 0
    return max(-CLAMP, min(CLAMP, value))


def y_of(value: int) -> float:
    """The height of ``value`` (centi-men, White's view) on the chart: White's advantage up."""
    value = max(-CLAMP, min(CLAMP, value))
    half = HEIGHT / 2 - PAD
    return round(HEIGHT / 2 - value / CLAMP * half, 1)


def x_of(index: int, count: int) -> float:
    """The left-right place of position ``index`` of ``count``."""
    if count < 2:
        return WIDTH / 2
    return round(PAD + index * (WIDTH - 2 * PAD) / (count - 1), 1)


def draw(
    points: Sequence[Point],
    *,
    current: int | None,
    title: str,
    desc: str,
    id_prefix: str = "eval-chart",
) -> SafeString:
    """The chart of ``points`` (see the module), ``current`` the position shown."""
    n = len(points)
    mid = HEIGHT / 2
    coords = [(x_of(i, n), y_of(clamped(p.entry))) for i, p in enumerate(points)]
    title_id, desc_id = f"{id_prefix}-title", f"{id_prefix}-desc"
    out = [
        f'<div class="eval-chart" data-chart data-testid="eval-chart">'
        f'<svg class="eval-chart-img" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img" focusable="false" '
        f'aria-labelledby="{title_id} {desc_id}">'
        f'<title id="{title_id}">{escape(title)}</title><desc id="{desc_id}">{escape(desc)}</desc>'
        f'<rect class="chart-white" x="0" y="0" width="{WIDTH}" height="{mid}" '
        f'fill="{COLOURS["white-side"]}"/>'
        f'<rect class="chart-black" x="0" y="{mid}" width="{WIDTH}" height="{mid}" '
        f'fill="{COLOURS["black-side"]}"/>'
    ]
    if coords:
        first_x, last_x = coords[0][0], coords[-1][0]
        line = " ".join(f"L{x},{y}" for x, y in coords)
        out.append(
            f'<path class="chart-area" d="M{first_x},{mid} {line} L{last_x},{mid} Z" '
            f'fill="{COLOURS["area"]}" fill-opacity="0.35"/>'
            f'<polyline class="chart-line" points="{" ".join(f"{x},{y}" for x, y in coords)}" '
            f'fill="none" stroke="{COLOURS["area"]}" stroke-width="2"/>'
        )
    out.append(
        f'<line class="chart-axis" x1="0" y1="{mid}" x2="{WIDTH}" y2="{mid}" '
        f'stroke="{COLOURS["axis"]}" stroke-width="1"/>'
    )
    if current is not None and 0 <= current < n:
        x = coords[current][0]
        out.append(
            f'<line class="chart-current" data-current="{current}" x1="{x}" y1="0" x2="{x}" '
            f'y2="{HEIGHT}" stroke="{COLOURS["current"]}" stroke-width="2" '
            f'stroke-dasharray="4 3"/>'
        )
    for i, p in enumerate(points):
        if p.mark in DRAWN_MARKS:
            x, y = coords[i]
            out.append(
                f'<circle class="chart-mark {p.mark}" data-mark="{p.mark}" data-ply="{p.ply}" '
                f'cx="{x}" cy="{y}" r="{6 if p.mark == "blunder" else 5}" '
                f'fill="{COLOURS[p.mark]}" stroke="#ffffff" stroke-width="1.5"/>'
            )
    out.append("</svg>")
    # the points to click: one band per position, the width of a step, the full height
    out.append(
        f'<svg class="eval-chart-hits" xmlns="http://www.w3.org/2000/svg" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" aria-hidden="true" focusable="false">'
    )
    step = (WIDTH - 2 * PAD) / max(1, n - 1)
    for i, p in enumerate(points):
        x = coords[i][0]
        left = max(0.0, x - step / 2)
        width = min(WIDTH - left, step if 0 < i < n - 1 else step / 2 + PAD)
        out.append(
            f'<a href="{escape(p.url)}" tabindex="-1" data-ply="{p.ply}" data-point>'
            f"<title>{escape(p.label)}</title>"
            f'<rect class="chart-hit" x="{round(left, 1)}" y="0" width="{round(width, 1)}" '
            f'height="{HEIGHT}" fill="#000000" fill-opacity="0"/></a>'
        )
    out.append("</svg></div>")
    return mark_safe("".join(out))  # every text in it is escaped above
