"""The game page's chart: the bang_score against price, every other input fixed.

Pure geometry: :func:`price_curve` takes a callable giving the unrounded score at a price and
the prices to mark, and returns a :class:`PriceCurve`, every coordinate (SVG units), tick,
label and the text alternative as plain values. The macro ``price_curve`` of
``templates/_charts.svg`` lays it out as inline SVG (no script, no external resources; jinja2
escapes the names). It is readable without colour: the curve is a solid line, the tier lines
are dashed, each marked price has its own shape and line pattern and a text label, and the SVG
carries a ``<title>`` and a ``<desc>`` that say the same in words.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

BANGER_AT = 80
WORTH_IT_AT = 65
WIDTH = 640
NARROW_WIDTH = 360  # drawn for phones: at 640 wide its 12 px text would shrink to 7 px
HEIGHT = 300
SAMPLES = 48
_LEFT, _BOTTOM = 44, 36
_ROW = 15  # height of one row of marker labels above the plot
_CHAR_PX = 6.6  # mean width of a character of the 12 px labels, for overlap checks
_NICE_STEPS = (1.0, 2.0, 2.5, 5.0)

Point = tuple[float, float]


@dataclass(frozen=True, slots=True)
class Marker:
    """One marked price: its label, price in USD, and how it is drawn (shape and dash)."""

    label: str
    price: float
    shape: str  # "circle", "square", "diamond" or "triangle"
    dash: str  # SVG stroke-dasharray ("" for solid)
    said: str  # its sentence in the text alternative; "{score}" stands for the score there


# The values a chart holds many of are named tuples: the template's loops unpack them
# (``{% for y, (x, ...) in ... %}``) instead of reading each attribute through the jinja2
# environment, which cost the move from f-strings about a sixth of the charts' drawing time.
class Text(NamedTuple):
    """A text of a chart: its anchor in SVG units (``x`` where its ``text-anchor`` puts it,
    ``y`` its baseline) and its words (unescaped: the template escapes them)."""

    x: float
    y: float
    text: str


class Rule(NamedTuple):
    """A horizontal line across a plot at ``y`` (SVG units) and the text naming it."""

    y: float
    label: Text


class PlacedMarker(NamedTuple):
    """A marked price as drawn: its line at ``x`` from ``line_top`` (under its label) down to
    the price axis, dashed by ``dash`` (SVG stroke-dasharray, "" solid), its ``shape`` where
    the curve meets the line (``outline``: a circle's centre, a square's top left corner, a
    polygon's vertices; SVG units) and its label."""

    shape: str
    dash: str
    x: float
    line_top: float
    outline: tuple[Point, ...]
    label: Text


@dataclass(frozen=True, slots=True)
class PriceCurve:
    """The score-against-price chart as plain values, in SVG units (y grows downward).

    ``left``..``right`` and ``plot_top``..``plot_bottom`` bound the plot; ``score_rules`` are
    the grid lines at scores 0, 20, ... 100, ``tiers`` the dashed lines at 65 and 80,
    ``price_ticks`` the dollar figures under the price axis, ``curve`` the score's polyline
    (left to right) and ``markers`` the marked prices, left to right.
    """

    chart_id: str
    width: int
    height: int
    name: str
    description: str
    left: float
    right: float
    plot_top: float
    plot_bottom: float
    score_rules: tuple[Rule, ...]
    price_ticks: tuple[Text, ...]
    axis_label: Text
    tiers: tuple[Rule, ...]
    curve: tuple[Point, ...]
    markers: tuple[PlacedMarker, ...]


def usd(value: float) -> str:
    """Given a price in USD, return it as the page shows it: ``$12.99``, ``Free`` for 0."""
    return "Free" if value == 0 else f"${value:,.2f}"


def tick_usd(value: float) -> str:
    """Given a price axis tick in USD, return its label: ``$10``, ``$2.50`` off whole dollars."""
    return f"${value:,.0f}" if value == int(value) else f"${value:,.2f}"


def svg_number(value: float) -> str:
    """Given a coordinate in SVG units, return it as the charts write it: one decimal."""
    return f"{value:.1f}"


@functools.lru_cache(maxsize=512)  # one per count of points: a chart has at most a few hundred
def _points_format(count: int) -> str:
    return " ".join(["%.1f,%.1f"] * count)


def svg_points(points: Sequence[Point]) -> str:
    """Given (x, y) points in SVG units, return an SVG ``points`` list: ``x,y x,y``, one
    decimal. One printf format a count of points, applied to all the coordinates at once:
    about 50 points on each of the 160,000 charts of a build, 40% faster than a format a
    point."""
    return _points_format(len(points)) % tuple(itertools.chain.from_iterable(points))


def nice_ceiling(value: float) -> tuple[float, float]:
    """Given a positive value, return (axis top, tick step): the smallest 1/2/2.5/5 x 10^k step
    giving at most six ticks, and the first multiple of it at or above the value."""
    magnitude = 10 ** math.floor(math.log10(value / 6))
    for mult in (*_NICE_STEPS, 10.0):
        step = mult * magnitude
        if value / step <= 6:
            return math.ceil(value / step - 1e-9) * step, step
    raise AssertionError("unreachable: a step of 10^(k+1) always fits")  # pragma: no cover


def axis_top(prices: list[float], price_usd: float) -> float:
    """Given the marked prices and today's price, return the price at the right of the chart.

    Wide enough for every marked price plus 15%, at least $10, but at most four times today's
    price (or $60): a threshold far beyond that is named in the text instead of squashing the
    chart.
    """
    wanted = max([10.0, *(p * 1.15 for p in prices)])
    return min(wanted, max(price_usd * 4, 60.0))


def outline(kind: str, x: float, y: float) -> tuple[Point, ...]:
    """Given a marker's shape and the point it marks (SVG units), return its outline: a
    circle's centre, the top left corner of a 10-unit square, or a 14-unit diamond's or
    triangle's vertices (clockwise from the top)."""
    if kind == "circle":
        return ((x, y),)
    if kind == "square":
        return ((x - 5, y - 5),)
    if kind == "diamond":
        return ((x, y - 7), (x + 7, y), (x, y + 7), (x - 7, y))
    return ((x, y - 7), (x + 7, y + 6), (x - 7, y + 6))


def label_rows(items: list[tuple[float, str]], left: float, right: float) -> list[int]:
    """Given (x, text) of labels (SVG units) and the plot's bounds, return a row per label
    (0 the top) so that no two labels in a row overlap."""
    rows: list[list[tuple[float, float]]] = []
    out: list[int] = []
    for x, text in items:
        half = len(text) * _CHAR_PX / 2 + 4
        lo, hi = max(left, x - half), min(right, x + half)
        for n, row in enumerate(rows):
            if all(hi < a or lo > b for a, b in row):
                row.append((lo, hi))
                out.append(n)
                break
        else:
            rows.append([(lo, hi)])
            out.append(len(rows) - 1)
    return out


def chart_prices(
    price_usd: float,
    historical_low_usd: float | None,
    worth_it_at_usd: float | None,
    becomes_banger_at_usd: float | None,
) -> list[float]:
    """Given today's price, the historical low and the two thresholds (US dollars, None where
    unknown), return every price (ascending) at which :func:`price_curve` reads the score:
    the curve's samples across the axis and each marker on it. The builder samples the game's
    score curve at exactly these prices, once for both chart widths."""
    marked = (price_usd, historical_low_usd, worth_it_at_usd, becomes_banger_at_usd)
    top, _ = nice_ceiling(axis_top([p for p in marked if p], price_usd))
    on_chart = {p for p in marked if p is not None and p <= top}
    return sorted({top * i / SAMPLES for i in range(SAMPLES + 1)} | on_chart)


def markers(
    price_usd: float,
    historical_low_usd: float | None,
    worth_it_at_usd: float | None,
    becomes_banger_at_usd: float | None,
    *,
    top: float,
    price_date: str | None = None,
) -> list[Marker]:
    """Given today's price, the historical low, the two thresholds (USD, None where unknown),
    the price at the chart's right edge and the day of today's price (``24 Jul 2026``), return
    the markers drawn (those at or left of ``top``) in that order: today's price (filled
    circle, solid), the low (open square, dotted), worth it (open diamond, dashed) and banger
    (filled triangle, long dashes)."""
    seen = f" on {price_date}" if price_date else ""
    specs = (  # price, word, shape, dash, sentence ({at}: the price, {score}: the score)
        (price_usd, "price", "circle", "", "At its price of {at}" + seen + " it scores {score}."),
        (
            historical_low_usd,
            "low",
            "square",
            "2 3",
            "At its historical low of {at} it scores {score}.",
        ),
        (
            worth_it_at_usd,
            "worth it",
            "diamond",
            "6 4",
            "It is worth it (65 or more) at {at} or less.",
        ),
        (
            becomes_banger_at_usd,
            "banger",
            "triangle",
            "12 4",
            "It is a banger (80 or more) at {at} or less.",
        ),
    )
    return [
        Marker(f"{word} {usd(price)}", price, shape, dash, said.replace("{at}", usd(price)))
        for price, word, shape, dash, said in specs
        if price is not None and price <= top
    ]


def describe(markers: Sequence[Marker], score_at: Callable[[float], float], name: str) -> str:
    """Given the drawn markers, the score lookup and the game's name, return the chart's text
    alternative: one sentence, then one a marker with its score rounded half up."""
    sentences = [f"The score of {name} never rises with its price."]
    for m in markers:
        sentences.append(m.said.format(score=math.floor(score_at(m.price) + 0.5)))
    return " ".join(sentences)


def price_curve(
    score_at: Callable[[float], float],
    *,
    price_usd: float,
    historical_low_usd: float | None,
    worth_it_at_usd: float | None,
    becomes_banger_at_usd: float | None,
    name: str = "this game",
    chart_id: str = "price-chart",
    width: int = WIDTH,
    price_date: str | None = None,
) -> PriceCurve:
    """Given the unrounded score (0..100) at each price of :func:`chart_prices` (a lookup such
    as ``samples.__getitem__``, so drawing makes no call into the model), today's price,
    the historical low and the two thresholds (None where unknown or unreachable), return the
    chart's geometry (:class:`PriceCurve`; the template ``_charts.svg`` draws it).

    Thresholds beyond the chart's right edge are left out of the drawing (the page's text
    names them). ``width`` is the drawing's width in SVG units (its text is 12 units high):
    ``NARROW_WIDTH`` for phones, where the tier lines are named more briefly. ``price_date``
    (e.g. "24 Jul 2026") dates the price in the text alternative. Raises KeyError when
    ``score_at`` does at a price it was not sampled at.
    """
    (chart,) = price_curves(
        score_at,
        price_usd=price_usd,
        historical_low_usd=historical_low_usd,
        worth_it_at_usd=worth_it_at_usd,
        becomes_banger_at_usd=becomes_banger_at_usd,
        name=name,
        charts=((chart_id, width),),
        price_date=price_date,
    )
    return chart


def price_curves(
    score_at: Callable[[float], float],
    *,
    price_usd: float,
    historical_low_usd: float | None,
    worth_it_at_usd: float | None,
    becomes_banger_at_usd: float | None,
    name: str = "this game",
    charts: Sequence[tuple[str, int]] = (("price-chart", WIDTH),),
    price_date: str | None = None,
) -> list[PriceCurve]:
    """Given what :func:`price_curve` takes and the charts to draw (id, width), return each
    chart's :func:`price_curve`, in that order. What does not depend on the width (the axis,
    the markers, the prices sampled and their scores, the text alternative) is worked out once
    for all of them: a game page draws the chart twice, wide and narrow."""
    candidates = [
        p for p in (price_usd, historical_low_usd, worth_it_at_usd, becomes_banger_at_usd) if p
    ]
    top, step = nice_ceiling(axis_top(candidates, price_usd))
    drawn = markers(
        price_usd,
        historical_low_usd,
        worth_it_at_usd,
        becomes_banger_at_usd,
        top=top,
        price_date=price_date,
    )
    ordered = sorted(drawn, key=lambda m: m.price)
    prices = sorted({top * i / SAMPLES for i in range(SAMPLES + 1)} | {m.price for m in drawn})
    scored = _Scored(
        top,
        step,
        ordered,
        prices,
        list(map(score_at, prices)),
        [score_at(m.price) for m in ordered],
        describe(drawn, score_at, name),
    )
    return [_price_curve(scored, name, chart_id, width) for chart_id, width in charts]


class _Scored(NamedTuple):
    """What a price chart draws at any width: the axis' top and tick step (USD), the markers
    drawn (by price), the prices of the curve and the scores there, the markers' scores and
    the text alternative."""

    top: float
    step: float
    ordered: list[Marker]
    prices: list[float]
    scores: list[float]
    marked: list[float]
    description: str


def _price_curve(scored: _Scored, name: str, chart_id: str, width: int) -> PriceCurve:
    """Given what a price chart draws at any width, the game's name, the chart's id and its
    width, return its geometry (:func:`price_curve`)."""
    top, step, ordered = scored.top, scored.step, scored.ordered
    narrow = width < 500
    left, right = float(_LEFT), float(width - (60 if narrow else 100))
    span = right - left
    rows = label_rows([(left + (m.price / top) * span, m.label) for m in ordered], left, right)
    plot_top = 10 + _ROW * (max(rows) + 1) + 6
    plot_bottom = float(HEIGHT - _BOTTOM)
    rise = plot_bottom - plot_top

    def y_of(score: float) -> float:
        return plot_bottom - (min(100.0, max(0.0, score)) / 100) * rise

    # x and y written out (the arithmetic of x_of and y_of), without two calls per point.
    curve = tuple(
        [
            (left + (p / top) * span, plot_bottom - (min(100.0, max(0.0, s)) / 100) * rise)
            for p, s in zip(scored.prices, scored.scores, strict=True)
        ]
    )
    placed = []
    for marker, row, score in zip(ordered, rows, scored.marked, strict=True):
        x, y = left + (marker.price / top) * span, y_of(score)
        label_y = 10 + _ROW * row + 10
        anchor_x = min(right - len(marker.label) * _CHAR_PX / 2, max(left + 20, x))
        placed.append(
            PlacedMarker(
                marker.shape,
                marker.dash,
                x,
                label_y + 4,
                outline(marker.shape, x, y),
                Text(anchor_x, label_y, marker.label),
            )
        )
    tier_words = ("banger", "worth it") if narrow else ("banger 80+", "worth it 65+")
    return PriceCurve(
        chart_id=chart_id,
        width=width,
        height=HEIGHT,
        name=name,
        description=scored.description,
        left=left,
        right=right,
        plot_top=plot_top,
        plot_bottom=plot_bottom,
        score_rules=tuple(
            Rule(y_of(score), Text(left - 6, y_of(score) + 4, str(score)))
            for score in range(0, 101, 20)
        ),
        price_ticks=tuple(
            Text(left + (i * step / top) * span, plot_bottom + 16, tick_usd(i * step))
            for i in range(round(top / step) + 1)
        ),
        axis_label=Text((left + right) / 2, HEIGHT - 4, "price (USD)"),
        tiers=tuple(
            Rule(y_of(score), Text(right + 6, y_of(score) + 4, words))
            for score, words in zip((BANGER_AT, WORTH_IT_AT), tier_words, strict=True)
        ),
        curve=curve,
        markers=tuple(placed),
    )
