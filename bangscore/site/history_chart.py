"""The game page's second chart: the dated price history, as inline SVG.

Pure: :func:`price_history_svg` takes plain dated observations (:class:`HistoryPoint`) and
returns SVG markup (no script, no external resources). Readable without colour: the price
paid is a solid step line with a filled dot per observation, the list price a dashed line,
the historical low an open square with a text label, and the as-of date ends the time axis
in words. A sale counts on the day it was seen only: the line returns to the list price
after it. With the game's score history (``score_history``: the ``bang_score`` at each snapshot
where it or the price changed), the score is a dotted step line with diamonds on a 0-100 axis
at the right. The SVG carries a ``<title>`` and a ``<desc>`` that say the same in sentences, and
:func:`history_rows` gives the page's table of the same points.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from html import escape

from bangscore.scoring.verdict import day
from bangscore.site.chart import nice_ceiling, usd

WIDTH = 640
NARROW_WIDTH = 360
HEIGHT = 240
_LEFT, _BOTTOM, _TOP = 52, 40, 28


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """One dated price observation: the day, the price paid that day and the list price (USD),
    the discount (0-100), the source's name and whether it is an estimate (a non-USD source's
    deepest discount applied to the US list price)."""

    date: dt.date
    price_usd: float
    list_price_usd: float
    discount_percent: int = 0
    source: str = ""
    estimated: bool = False


@functools.lru_cache(maxsize=8192)  # a catalogue holds a few thousand distinct days
def _short(date: dt.date) -> str:
    return date.strftime("%b %Y")


def lowest(points: Sequence[HistoryPoint]) -> HistoryPoint | None:
    """Given observations, return the lowest price paid (the first day among equals, as the
    record's ``historical_low_at`` dates it), or None."""
    best: HistoryPoint | None = None
    for p in points:
        if (
            best is None
            or p.price_usd < best.price_usd
            or (p.price_usd == best.price_usd and p.date < best.date)
        ):
            best = p
    return best


@dataclass(frozen=True, slots=True)
class ScoreMark:
    """The game's ``bang_score`` (0-100) from ``date`` on, as a snapshot published it."""

    date: dt.date
    bang_score: int


def describe_scores(scores: Sequence[ScoreMark]) -> str:
    """Given score marks (oldest first), return a sentence saying how the score moved."""
    if not scores:
        return ""
    first, last = scores[0], scores[-1]
    if len(scores) == 1:
        return f"BangScore {last.bang_score} since {day(last.date)}."
    return (
        f"BangScore {first.bang_score} on {day(first.date)}, {last.bang_score} on "
        f"{day(last.date)}, {len(scores)} snapshots where score or price changed."
    )


def describe(points: Sequence[HistoryPoint], as_of: dt.date | None, name: str) -> str:
    """Given observations (oldest first), the prices' as-of date and the game's name, return
    the chart's text alternative in sentences."""
    if not points:
        return f"No dated prices of {name} are known."
    first, last = points[0], points[-1]
    low = lowest(points)
    assert low is not None
    sales = sum(1 for p in points if p.discount_percent > 0)
    parts = [
        f"Price of {name} from {day(first.date)} to {day(last.date)}, {len(points)} "
        f"observation{'s' if len(points) != 1 else ''}, {sales} of them on sale.",
        f"List price {usd(last.list_price_usd)}.",
        f"Historical low {'an estimated ' if low.estimated else ''}{usd(low.price_usd)} "
        f"on {day(low.date)}.",
        f"Latest: {usd(last.price_usd)} on {day(last.date)}.",
    ]
    if as_of is not None:
        parts.append(f"Prices as of {day(as_of)}.")
    return " ".join(parts)


def history_rows(points: Sequence[HistoryPoint]) -> list[tuple[str, str, str, str]]:
    """Given observations, return the table rows of the page, newest first: (date, price
    paid, list price, discount)."""
    return [
        (
            day(p.date),
            usd(p.price_usd),
            usd(p.list_price_usd),
            (f"{p.discount_percent}%" if p.discount_percent else "—")
            + (" (estimate)" if p.estimated else ""),
        )
        for p in reversed(points)
    ]


def price_history_svg(
    points: Sequence[HistoryPoint],
    *,
    as_of: dt.date | None,
    name: str = "this game",
    chart_id: str = "history-chart",
    width: int = WIDTH,
    scores: Sequence[ScoreMark] = (),
) -> str:
    """Given dated observations (any order), the prices' as-of date, the game's name and its
    score marks (oldest first; none: no score line), return the price-over-time chart as an
    ``<svg>`` element.

    The time axis runs from the first observation to the as-of date (or the last observation
    when later or unknown); the price axis from $0 to a round figure above the highest list
    price. With no observation, the chart says so in words.
    """
    ordered = sorted(points, key=lambda p: p.date)
    summary = " ".join(filter(None, (describe(ordered, as_of, name), describe_scores(scores))))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {HEIGHT}" '
        f'class="history-chart" id="{chart_id}" role="img" '
        f'aria-labelledby="{chart_id}-title {chart_id}-desc">',
        f'<title id="{chart_id}-title">Price history of {escape(name)}</title>',
        f'<desc id="{chart_id}-desc">{escape(summary)}</desc>',
    ]
    if not ordered:
        parts.append(
            f'<text x="{width / 2:.0f}" y="{HEIGHT / 2:.0f}" class="axis-label" '
            'text-anchor="middle">No dated prices known</text></svg>'
        )
        return "\n".join(parts)
    start = min(ordered[0].date, scores[0].date) if scores else ordered[0].date
    end = max(ordered[-1].date, as_of or ordered[-1].date)
    span = max(1, (end - start).days)
    top_price = max(max(p.list_price_usd, p.price_usd) for p in ordered)
    top, step = nice_ceiling(max(top_price * 1.1, 1.0))
    left, right = float(_LEFT), float(width - (40 if scores else 16))
    plot_top, plot_bottom = float(_TOP), float(HEIGHT - _BOTTOM)

    def x_of(date: dt.date) -> float:
        return left + (date - start).days / span * (right - left)

    def y_of(price: float) -> float:
        return plot_bottom - price / top * (plot_bottom - plot_top)

    for i in range(round(top / step) + 1):
        price = i * step
        y = y_of(price)
        text = f"${price:,.0f}" if price == int(price) else f"${price:,.2f}"
        parts.append(f'<line x1="{left}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        parts.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" class="tick" text-anchor="end">{text}</text>'
        )
    # Step lines. A list price holds until the next observation; a sale is known only on the
    # day it was seen, so the price paid goes back to the list price the day after (a sparse
    # history must not draw a sale lasting months). After the last observation nothing is
    # drawn: what the price did until the as-of date is not known.
    paid: list[str] = []
    listed: list[str] = []
    day_after = dt.timedelta(days=1)
    for n, p in enumerate(ordered):
        until = ordered[n + 1].date if n + 1 < len(ordered) else p.date
        sale_end = min(until, p.date + day_after)
        paid.append(f"{x_of(p.date):.1f},{y_of(p.price_usd):.1f}")
        if p.discount_percent and sale_end < until:
            paid.append(f"{x_of(sale_end):.1f},{y_of(p.price_usd):.1f}")
            paid.append(f"{x_of(sale_end):.1f},{y_of(p.list_price_usd):.1f}")
            paid.append(f"{x_of(until):.1f},{y_of(p.list_price_usd):.1f}")
        else:
            paid.append(f"{x_of(until):.1f},{y_of(p.price_usd):.1f}")
        listed.append(f"{x_of(p.date):.1f},{y_of(p.list_price_usd):.1f}")
        listed.append(f"{x_of(until):.1f},{y_of(p.list_price_usd):.1f}")
    parts.append(f'<polyline points="{" ".join(listed)}" class="list-line"/>')
    parts.append(f'<polyline points="{" ".join(paid)}" class="curve"/>')
    for p in ordered:
        shape = "mark-fill" if p.discount_percent else "mark-open"
        parts.append(
            f'<circle cx="{x_of(p.date):.1f}" cy="{y_of(p.price_usd):.1f}" r="3.5" '
            f'class="{shape}"><title>{escape(usd(p.price_usd))} on {day(p.date)}</title></circle>'
        )
    if scores:
        parts.extend(_score_line(scores, x_of, plot_top, plot_bottom, right))
    low = lowest(ordered)
    assert low is not None
    lx, ly = x_of(low.date), y_of(low.price_usd)
    parts.append(
        f'<rect x="{lx - 6:.1f}" y="{ly - 6:.1f}" width="12" height="12" class="low-mark"/>'
    )
    label = f"low {usd(low.price_usd)} on {day(low.date)}"
    half = len(label) * 3.4  # half the width of a 12 px label
    tx = min(max(lx, left + half), right - half)  # centred on the mark, kept in the plot
    ty = ly + 20 if ly < plot_bottom - 26 else ly - 12
    parts.append(
        f'<text x="{tx:.1f}" y="{ty:.1f}" class="marker-label" '
        f'text-anchor="middle">{escape(label)}</text>'
    )
    parts.append(_legend(left, width, scored=bool(scores)))
    parts.append(
        f'<line x1="{left}" x2="{right}" y1="{plot_bottom:.1f}" y2="{plot_bottom:.1f}" '
        'class="axis"/>'
    )
    parts.append(
        f'<text x="{left:.1f}" y="{plot_bottom + 16:.1f}" class="tick" '
        f'text-anchor="start">{_short(start)}</text>'
    )
    end_label = f"as of {day(end)}" if as_of is not None and end == as_of else _short(end)
    parts.append(
        f'<text x="{right:.1f}" y="{plot_bottom + 16:.1f}" class="tick" '
        f'text-anchor="end">{escape(end_label)}</text>'
    )
    parts.append(
        f'<text x="{(left + right) / 2:.1f}" y="{HEIGHT - 4}" class="axis-label" '
        'text-anchor="middle">date (price in USD)</text>'
    )
    parts.append("</svg>")
    return "\n".join(parts)


def _score_line(
    scores: Sequence[ScoreMark],
    x_of: Callable[[dt.date], float],
    plot_top: float,
    plot_bottom: float,
    right: float,
) -> list[str]:
    """Return the SVG parts of the score's step line, its diamonds and its 0-100 axis."""

    def y_of(score: int) -> float:
        return plot_bottom - score / 100 * (plot_bottom - plot_top)

    parts = [
        f'<text x="{right + 6:.1f}" y="{y_of(score) + 4:.1f}" class="tick" '
        f'text-anchor="start">{score}</text>'
        for score in (0, 50, 100)
    ]
    steps: list[str] = []
    for n, mark in enumerate(scores):
        until = scores[n + 1].date if n + 1 < len(scores) else mark.date
        steps.append(f"{x_of(mark.date):.1f},{y_of(mark.bang_score):.1f}")
        steps.append(f"{x_of(until):.1f},{y_of(mark.bang_score):.1f}")
    parts.append(f'<polyline points="{" ".join(steps)}" class="score-line"/>')
    for mark in scores:
        x, y = x_of(mark.date), y_of(mark.bang_score)
        parts.append(
            f'<polygon points="{x:.1f},{y - 5:.1f} {x + 5:.1f},{y:.1f} {x:.1f},{y + 5:.1f} '
            f'{x - 5:.1f},{y:.1f}" class="score-mark"><title>BangScore {mark.bang_score} on '
            f"{day(mark.date)}</title></polygon>"
        )
    return parts


def _legend(left: float, width: int, *, scored: bool) -> str:
    """Return the legend above the plot: price paid, list price and, with scores, the score."""
    y = 14
    parts = [
        f'<line x1="{left}" x2="{left + 22}" y1="{y - 4}" y2="{y - 4}" class="curve"/>'
        f'<text x="{left + 26}" y="{y}" class="tick">price paid</text>'
        f'<line x1="{left + 110}" x2="{left + 132}" y1="{y - 4}" y2="{y - 4}" class="list-line"/>'
        f'<text x="{left + 136}" y="{y}" class="tick">list price</text>'
    ]
    if scored:
        label = "score" if width < WIDTH else "BangScore (right axis)"
        parts.append(
            f'<line x1="{left + 220}" x2="{left + 242}" y1="{y - 4}" y2="{y - 4}" '
            f'class="score-line"/><text x="{left + 246}" y="{y}" class="tick">{label}</text>'
        )
    return "".join(parts)
