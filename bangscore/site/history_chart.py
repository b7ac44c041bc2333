"""The game page's second chart: the dated price history.

Pure geometry: :func:`price_history` takes plain dated observations (:class:`HistoryPoint`)
and returns a :class:`PriceHistory`, every coordinate (SVG units), label and the text
alternative as plain values; the macro ``price_history`` of ``templates/_charts.svg`` lays it
out as inline SVG (no script, no external resources; jinja2 escapes the names). Readable
without colour: the price paid is a solid step line with a filled dot per observation, the
list price a dashed line, the historical low an open square with a text label, and the as-of
date ends the time axis in words. A sale counts on the day it was seen only: the line returns
to the list price after it. With the game's score history (``score_history``: the
``bang_score`` at each snapshot where it or the price changed), the score is a dotted step line
with diamonds on a 0-100 axis at the right. The SVG carries a ``<title>`` and a ``<desc>`` that
say the same in sentences, and :func:`history_rows` gives the page's table of the same points.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from bangscore.scoring.verdict import day
from bangscore.site.chart import Point, Rule, Text, nice_ceiling, tick_usd, usd

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


class Dot(NamedTuple):
    """One observation's dot at (``x``, ``y``) (SVG units): filled for a sale, open at the
    list price, with its tooltip (``$29.99 on 2 Jul 2026``)."""

    x: float
    y: float
    sale: bool
    title: str


class Diamond(NamedTuple):
    """One score mark: its diamond's vertices (SVG units, clockwise from the top) and its
    tooltip (``BangScore 84 on 2 Jul 2026``)."""

    outline: tuple[Point, ...]
    title: str


class LegendEntry(NamedTuple):
    """One entry of the legend above the plot: a sample line from ``x1`` to ``x2`` at
    ``line_y`` drawn as ``css_class`` draws its series, then its words (SVG units)."""

    x1: float
    x2: float
    line_y: int
    css_class: str
    label: Text


@dataclass(frozen=True, slots=True)
class ScoreSeries:
    """The score history on the right-hand 0-100 axis: the axis' figures, the step line's
    points (left to right) and a diamond per mark (SVG units)."""

    ticks: tuple[Text, ...]
    steps: tuple[Point, ...]
    marks: tuple[Diamond, ...]


@dataclass(frozen=True, slots=True)
class HistoryPlot:
    """The history's plot, in SVG units (y grows downward): the time axis from ``left`` to
    ``right`` at ``plot_bottom``, ``price_rules`` the grid lines at round dollar figures, the
    list price's and the price paid's step lines (left to right), a dot per observation, the
    score series (None without scores), the low's square (top left corner) and label, the
    legend, the first and last dates under the axis and the axis' name."""

    left: float
    right: float
    plot_bottom: float
    price_rules: tuple[Rule, ...]
    listed: tuple[Point, ...]
    paid: tuple[Point, ...]
    dots: tuple[Dot, ...]
    scores: ScoreSeries | None
    low_corner: Point
    low_label: Text
    legend: tuple[LegendEntry, ...]
    start: Text
    end: Text
    axis_label: Text


@dataclass(frozen=True, slots=True)
class PriceHistory:
    """The price-over-time chart as plain values: its id, size (SVG units), the game's name,
    its text alternative and its plot, or (no observation) None and where the chart says so in
    words."""

    chart_id: str
    width: int
    height: int
    name: str
    description: str
    plot: HistoryPlot | None
    message_at: Point


def price_history(
    points: Sequence[HistoryPoint],
    *,
    as_of: dt.date | None,
    name: str = "this game",
    chart_id: str = "history-chart",
    width: int = WIDTH,
    scores: Sequence[ScoreMark] = (),
) -> PriceHistory:
    """Given dated observations (any order), the prices' as-of date, the game's name and its
    score marks (oldest first; none: no score line), return the price-over-time chart's
    geometry (:class:`PriceHistory`; the template ``_charts.svg`` draws it).

    The time axis runs from the first observation to the as-of date (or the last observation
    when later or unknown); the price axis from $0 to a round figure above the highest list
    price. With no observation, the plot is None (the chart says so in words).
    """
    (chart,) = price_histories(
        points, as_of=as_of, name=name, charts=((chart_id, width),), scores=scores
    )
    return chart


def price_histories(
    points: Sequence[HistoryPoint],
    *,
    as_of: dt.date | None,
    name: str = "this game",
    charts: Sequence[tuple[str, int]] = (("history-chart", WIDTH),),
    scores: Sequence[ScoreMark] = (),
) -> list[PriceHistory]:
    """Given what :func:`price_history` takes and the charts to draw (id, width), return each
    chart's :func:`price_history`, in that order. The observations' order, the text
    alternative and the dots' tooltips, which do not depend on the width, are worked out once
    for all of them: a game page draws the chart twice, wide and narrow."""
    ordered = sorted(points, key=lambda p: p.date)
    summary = " ".join(filter(None, (describe(ordered, as_of, name), describe_scores(scores))))
    titles = [f"{usd(p.price_usd)} on {day(p.date)}" for p in ordered]
    return [
        PriceHistory(
            chart_id=chart_id,
            width=width,
            height=HEIGHT,
            name=name,
            description=summary,
            plot=_plot(ordered, as_of, width, scores, titles) if ordered else None,
            message_at=(width / 2, HEIGHT / 2),
        )
        for chart_id, width in charts
    ]


def _plot(
    ordered: Sequence[HistoryPoint],
    as_of: dt.date | None,
    width: int,
    scores: Sequence[ScoreMark],
    titles: Sequence[str],
) -> HistoryPlot:
    """Given observations (at least one, oldest first), the as-of date, the chart's width,
    the score marks and the observations' tooltips (``$29.99 on 2 Jul 2026``), return the
    plot's geometry."""
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

    rules = tuple(
        Rule(y_of(i * step), Text(left - 6, y_of(i * step) + 4, tick_usd(i * step)))
        for i in range(round(top / step) + 1)
    )
    # Step lines. A list price holds until the next observation; a sale is known only on the
    # day it was seen, so the price paid goes back to the list price the day after (a sparse
    # history must not draw a sale lasting months). After the last observation nothing is
    # drawn: what the price did until the as-of date is not known.
    paid: list[Point] = []
    listed: list[Point] = []
    day_after = dt.timedelta(days=1)
    for n, p in enumerate(ordered):
        until = ordered[n + 1].date if n + 1 < len(ordered) else p.date
        sale_end = min(until, p.date + day_after)
        paid.append((x_of(p.date), y_of(p.price_usd)))
        if p.discount_percent and sale_end < until:
            paid.append((x_of(sale_end), y_of(p.price_usd)))
            paid.append((x_of(sale_end), y_of(p.list_price_usd)))
            paid.append((x_of(until), y_of(p.list_price_usd)))
        else:
            paid.append((x_of(until), y_of(p.price_usd)))
        listed.append((x_of(p.date), y_of(p.list_price_usd)))
        listed.append((x_of(until), y_of(p.list_price_usd)))
    low = lowest(ordered)
    assert low is not None
    lx, ly = x_of(low.date), y_of(low.price_usd)
    label = f"low {usd(low.price_usd)} on {day(low.date)}"
    half = len(label) * 3.4  # half the width of a 12 px label
    end_label = f"as of {day(end)}" if as_of is not None and end == as_of else _short(end)
    return HistoryPlot(
        left=left,
        right=right,
        plot_bottom=plot_bottom,
        price_rules=rules,
        listed=tuple(listed),
        paid=tuple(paid),
        dots=tuple(
            Dot(x_of(p.date), y_of(p.price_usd), bool(p.discount_percent), title)
            for p, title in zip(ordered, titles, strict=True)
        ),
        scores=_score_series(scores, x_of, plot_top, plot_bottom, right) if scores else None,
        low_corner=(lx - 6, ly - 6),
        low_label=Text(
            min(max(lx, left + half), right - half),  # centred on the mark, kept in the plot
            ly + 20 if ly < plot_bottom - 26 else ly - 12,
            label,
        ),
        legend=legend(left, width, scored=bool(scores)),
        start=Text(left, plot_bottom + 16, _short(start)),
        end=Text(right, plot_bottom + 16, end_label),
        axis_label=Text((left + right) / 2, HEIGHT - 4, "date (price in USD)"),
    )


def _score_series(
    scores: Sequence[ScoreMark],
    x_of: Callable[[dt.date], float],
    plot_top: float,
    plot_bottom: float,
    right: float,
) -> ScoreSeries:
    """Given score marks (oldest first), the time scale and the plot's bounds, return the
    score's 0-100 axis figures, step line and diamonds."""

    def y_of(score: int) -> float:
        return plot_bottom - score / 100 * (plot_bottom - plot_top)

    steps: list[Point] = []
    for n, mark in enumerate(scores):
        until = scores[n + 1].date if n + 1 < len(scores) else mark.date
        steps.append((x_of(mark.date), y_of(mark.bang_score)))
        steps.append((x_of(until), y_of(mark.bang_score)))
    marks = []
    for mark in scores:
        x, y = x_of(mark.date), y_of(mark.bang_score)
        marks.append(
            Diamond(
                ((x, y - 5), (x + 5, y), (x, y + 5), (x - 5, y)),
                f"BangScore {mark.bang_score} on {day(mark.date)}",
            )
        )
    return ScoreSeries(
        ticks=tuple(Text(right + 6, y_of(score) + 4, str(score)) for score in (0, 50, 100)),
        steps=tuple(steps),
        marks=tuple(marks),
    )


def legend(left: float, width: int, *, scored: bool) -> tuple[LegendEntry, ...]:
    """Given the plot's left edge (SVG units), the chart's width and whether it draws scores,
    return the legend's entries, left to right: price paid, list price and, with scores, the
    score (named briefly on a narrow chart)."""
    y = 14
    entries = [
        LegendEntry(left, left + 22, y - 4, "curve", Text(left + 26, y, "price paid")),
        LegendEntry(left + 110, left + 132, y - 4, "list-line", Text(left + 136, y, "list price")),
    ]
    if scored:
        words = "score" if width < WIDTH else "BangScore (right axis)"
        entries.append(
            LegendEntry(left + 220, left + 242, y - 4, "score-line", Text(left + 246, y, words))
        )
    return tuple(entries)
