"""The game page's chart: the bang_score against price, every other input fixed, as inline SVG.

Pure: :func:`price_curve_svg` takes a callable giving the unrounded score at a price and the
prices to mark, and returns SVG markup (no script, no external resources). It is readable
without colour: the curve is a solid line, the tier lines are dashed, each marked price has
its own shape and line pattern and a text label, and the SVG carries a ``<title>`` and a
``<desc>`` that say the same in words.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from html import escape

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


@dataclass(frozen=True, slots=True)
class Marker:
    """One marked price: its label, price in USD, and how it is drawn (shape and dash)."""

    label: str
    price: float
    shape: str  # "circle", "square", "diamond" or "triangle"
    dash: str  # SVG stroke-dasharray ("" for solid)
    said: str  # its sentence in the text alternative; "{score}" stands for the score there


def usd(value: float) -> str:
    """Given a price in USD, return it as the page shows it: ``$12.99``, ``Free`` for 0."""
    return "Free" if value == 0 else f"${value:,.2f}"


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


def _shape(kind: str, x: float, y: float) -> str:
    if kind == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="6" class="mark-fill"/>'
    if kind == "square":
        return f'<rect x="{x - 5:.1f}" y="{y - 5:.1f}" width="10" height="10" class="mark-open"/>'
    if kind == "diamond":
        pts = f"{x:.1f},{y - 7:.1f} {x + 7:.1f},{y:.1f} {x:.1f},{y + 7:.1f} {x - 7:.1f},{y:.1f}"
        return f'<polygon points="{pts}" class="mark-open"/>'
    pts = f"{x:.1f},{y - 7:.1f} {x + 7:.1f},{y + 6:.1f} {x - 7:.1f},{y + 6:.1f}"
    return f'<polygon points="{pts}" class="mark-fill"/>'


def _label_rows(items: list[tuple[float, str]], left: float, right: float) -> list[int]:
    """Given (x, text) of labels, return a row per label so that no two in a row overlap."""
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
    unknown), return every price (ascending) at which :func:`price_curve_svg` reads the score:
    the curve's samples across the axis and each marker on it. The builder samples the game's
    score curve at exactly these prices, once for both chart widths."""
    marked = (price_usd, historical_low_usd, worth_it_at_usd, becomes_banger_at_usd)
    top, _ = nice_ceiling(axis_top([p for p in marked if p], price_usd))
    on_chart = {p for p in marked if p is not None and p <= top}
    return sorted({top * i / SAMPLES for i in range(SAMPLES + 1)} | on_chart)


def price_curve_svg(
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
) -> str:
    """Given the unrounded score (0..100) at each price of :func:`chart_prices` (a lookup such
    as ``samples.__getitem__``, so drawing makes no call into the model), today's price,
    the historical low and the two thresholds (None where unknown or unreachable), return the
    chart as an ``<svg>`` element.

    Marks the current price (filled circle, solid line), the historical low (open square, dotted),
    where the game becomes worth it (open diamond, dashed) and a banger (filled triangle,
    long dashes). Thresholds beyond the chart's right edge are left out of the drawing (the
    page's text names them). ``width`` is the drawing's width in SVG units (its text is 12
    units high): ``NARROW_WIDTH`` for phones, where the tier lines are named more briefly.
    ``price_date`` (e.g. "24 Jul 2026") dates the price in the text alternative.
    """
    seen = f" on {price_date}" if price_date else ""
    narrow = width < 500
    tier_labels = (
        ((BANGER_AT, "banger"), (WORTH_IT_AT, "worth it"))
        if narrow
        else ((BANGER_AT, "banger 80+"), (WORTH_IT_AT, "worth it 65+"))
    )
    candidates = [
        p for p in (price_usd, historical_low_usd, worth_it_at_usd, becomes_banger_at_usd) if p
    ]
    top, step = nice_ceiling(axis_top(candidates, price_usd))
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
    markers = [
        Marker(f"{word} {usd(price)}", price, shape, dash, said.replace("{at}", usd(price)))
        for price, word, shape, dash, said in specs
        if price is not None and price <= top
    ]
    ordered = sorted(markers, key=lambda m: m.price)
    left, right = float(_LEFT), float(width - (60 if narrow else 100))
    rows = _label_rows([(_x(m.price, top, left, right), m.label) for m in ordered], left, right)
    plot_top = 10 + _ROW * (max(rows) + 1) + 6
    plot_bottom = float(HEIGHT - _BOTTOM)

    def x_of(price: float) -> float:
        return _x(price, top, left, right)

    def y_of(score: float) -> float:
        return plot_bottom - (min(100.0, max(0.0, score)) / 100) * (plot_bottom - plot_top)

    prices = sorted({top * i / SAMPLES for i in range(SAMPLES + 1)} | {m.price for m in markers})
    # x_of and y_of written out: the same arithmetic, without two calls per point; a list,
    # not a generator, for join (about 50 points on each of 79,000 charts a build).
    span, rise = right - left, plot_bottom - plot_top
    curve = " ".join(
        [
            f"{left + (p / top) * span:.1f},"
            f"{plot_bottom - (min(100.0, max(0.0, s)) / 100) * rise:.1f}"
            for p, s in zip(prices, map(score_at, prices), strict=True)
        ]
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {HEIGHT}" '
        f'class="price-chart" id="{chart_id}" role="img" '
        f'aria-labelledby="{chart_id}-title {chart_id}-desc">',
        f'<title id="{chart_id}-title">bang_score of {escape(name)} against its price</title>',
        f'<desc id="{chart_id}-desc">{escape(_describe(markers, score_at, name))}</desc>',
    ]
    for score in range(0, 101, 20):  # y grid and ticks
        y = y_of(score)
        parts.append(f'<line x1="{left}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        parts.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" class="tick" text-anchor="end">{score}</text>'
        )
    ticks = round(top / step)
    for i in range(ticks + 1):  # x ticks
        price = i * step
        text = f"${price:,.0f}" if price == int(price) else f"${price:,.2f}"
        parts.append(
            f'<text x="{x_of(price):.1f}" y="{plot_bottom + 16:.1f}" class="tick" '
            f'text-anchor="middle">{text}</text>'
        )
    parts.append(
        f'<text x="{(left + right) / 2:.1f}" y="{HEIGHT - 4}" class="axis-label" '
        'text-anchor="middle">price (USD)</text>'
    )
    for score, label in tier_labels:
        y = y_of(score)
        parts.append(
            f'<line x1="{left}" x2="{right}" y1="{y:.1f}" y2="{y:.1f}" class="tier-line"/>'
        )
        parts.append(f'<text x="{right + 6}" y="{y + 4:.1f}" class="tier-label">{label}</text>')
    parts.append(f'<polyline points="{curve}" class="curve"/>')
    for marker, row in zip(ordered, rows, strict=True):
        x, y = x_of(marker.price), y_of(score_at(marker.price))
        label_y = 10 + _ROW * row + 10
        dash = f' stroke-dasharray="{marker.dash}"' if marker.dash else ""
        parts.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{label_y + 4:.1f}" y2="{plot_bottom:.1f}" '
            f'class="marker-line"{dash}/>'
        )
        parts.append(_shape(marker.shape, x, y))
        anchor_x = min(right - len(marker.label) * _CHAR_PX / 2, max(left + 20, x))
        parts.append(
            f'<text x="{anchor_x:.1f}" y="{label_y:.1f}" class="marker-label" '
            f'text-anchor="middle">{escape(marker.label)}</text>'
        )
    parts.append(
        f'<line x1="{left}" x2="{left}" y1="{plot_top:.1f}" y2="{plot_bottom:.1f}" class="axis"/>'
    )
    parts.append(
        f'<line x1="{left}" x2="{right}" y1="{plot_bottom:.1f}" y2="{plot_bottom:.1f}" '
        'class="axis"/>'
    )
    parts.append("</svg>")
    return "\n".join(parts)


def _x(price: float, top: float, left: float, right: float) -> float:
    return left + (price / top) * (right - left)


def _describe(markers: list[Marker], score_at: Callable[[float], float], name: str) -> str:
    """Given the drawn markers, return the chart's text alternative (one sentence a marker)."""
    sentences = [f"The score of {name} never rises with its price."]
    for m in markers:
        sentences.append(m.said.format(score=math.floor(score_at(m.price) + 0.5)))
    return " ".join(sentences)
