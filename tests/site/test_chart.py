"""The price chart: its geometry (scales, markers, label rows, the text alternative) as plain
values, and the SVG the template ``_charts.svg`` draws from it: well-formed, escaped, and for
real inputs each marker where its price and score put it on the chart's own axes."""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bangscore.site.chart import (
    NARROW_WIDTH,
    WIDTH,
    PriceCurve,
    Text,
    axis_top,
    label_rows,
    nice_ceiling,
    outline,
    price_curve,
    svg_points,
    tick_usd,
)
from bangscore.site.history_chart import NARROW_WIDTH as NARROW_HISTORY
from bangscore.site.history_chart import WIDTH as WIDE_HISTORY
from bangscore.site.history_chart import (
    HistoryPoint,
    PriceHistory,
    ScoreMark,
    price_history,
)
from bangscore.site.render import SiteRenderer

SVG = "{http://www.w3.org/2000/svg}"
INPUTS = Path(__file__).resolve().parents[1] / "fixtures" / "charts" / "inputs.json"


@pytest.fixture(scope="module")
def site() -> SiteRenderer:
    return SiteRenderer(site_url="https://bangscore.test", base_url="https://bangscore.test")


def falling(at_zero: float = 90.0, per_dollar: float = 1.0) -> Callable[[float], float]:
    """A score flat up to $5, then falling linearly, like the model's price floor."""
    return lambda p: max(0.0, at_zero - per_dollar * max(p, 5.0))


@pytest.mark.parametrize(
    ("value", "top", "step"),
    [(10.0, 10.0, 2.0), (12.5, 12.5, 2.5), (13.0, 15.0, 2.5), (60.0, 60.0, 10.0), (7.0, 8.0, 2.0)],
    ids=["10", "12.5", "13", "60", "7"],
)
def test_nice_ceiling_gives_few_round_ticks(value: float, top: float, step: float) -> None:
    assert nice_ceiling(value) == (top, step)


@pytest.mark.parametrize(
    ("prices", "today", "top"),
    [
        ([19.99], 19.99, 22.9885),
        ([4.99, 10.81], 4.99, 12.4315),
        ([2.0], 2.0, 10.0),
        ([19.99, 400.0], 19.99, 79.96),
        ([0.0], 0.0, 10.0),
    ],
    ids=["today-only", "threshold", "at-least-10", "far-threshold-capped", "free"],
)
def test_axis_covers_the_marked_prices_within_a_cap(
    prices: list[float], today: float, top: float
) -> None:
    assert axis_top(prices, today) == pytest.approx(top)


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("circle", ((100.0, 50.0),)),
        ("square", ((95.0, 45.0),)),
        ("diamond", ((100.0, 43.0), (107.0, 50.0), (100.0, 57.0), (93.0, 50.0))),
        ("triangle", ((100.0, 43.0), (107.0, 56.0), (93.0, 56.0))),
    ],
    ids=["circle-centre", "square-corner", "diamond", "triangle"],
)
def test_each_marker_shape_has_its_own_outline(
    kind: str, expected: tuple[tuple[float, float], ...]
) -> None:
    assert outline(kind, 100.0, 50.0) == expected


@pytest.mark.parametrize(
    ("items", "rows"),
    [
        ([(100.0, "price $19.99"), (400.0, "low $7.50")], [0, 0]),
        ([(100.0, "price $19.99"), (130.0, "low $7.50")], [0, 1]),
        ([(100.0, "a"), (110.0, "b"), (120.0, "c"), (300.0, "d")], [0, 1, 0, 0]),
        ([(44.0, "price $10.00"), (50.0, "low $9.50"), (56.0, "banger $9.00")], [0, 1, 2]),
    ],
    ids=["apart-one-row", "close-two-rows", "reuses-freed-row", "three-stacked"],
)
def test_labels_share_a_row_only_when_they_do_not_overlap(
    items: list[tuple[float, str]], rows: list[int]
) -> None:
    assert label_rows(items, 44.0, 540.0) == rows


@pytest.mark.parametrize(
    ("value", "text"),
    [(0.0, "$0"), (10.0, "$10"), (2.5, "$2.50"), (1000.0, "$1,000"), (12.5, "$12.50")],
    ids=["zero", "whole", "half-step", "thousands", "quarter-step"],
)
def test_price_ticks_are_whole_dollars_unless_the_step_is_not(value: float, text: str) -> None:
    assert tick_usd(value) == text


def test_points_are_written_with_one_decimal() -> None:
    assert svg_points([(44.0, 78.70000000000002), (540.0, 133.25)]) == "44.0,78.7 540.0,133.2"


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        (
            {"historical_low_usd": 7.5, "worth_it_at_usd": 25.0, "becomes_banger_at_usd": 10.0},
            ["low $7.50", "banger $10.00", "price $19.99", "worth it $25.00"],
        ),
        (
            {"historical_low_usd": None, "worth_it_at_usd": None, "becomes_banger_at_usd": None},
            ["price $19.99"],
        ),
        (
            {"historical_low_usd": None, "worth_it_at_usd": 500.0, "becomes_banger_at_usd": 300.0},
            ["price $19.99"],  # both beyond the chart's right edge: named in the page text only
        ),
    ],
    ids=["all-markers", "none-known", "thresholds-off-chart"],
)
def test_markers_drawn_left_to_right_only_for_known_prices_on_the_chart(
    kwargs: dict[str, Any], expected: list[str]
) -> None:
    chart = price_curve(falling(), price_usd=19.99, name="Hades", **kwargs)
    assert [m.label.text for m in chart.markers] == expected


# Known coordinates of the chart of $19.99 (low $7.50, worth it $25, banger $10) on a score
# falling $1 a point from 90: axis to $30 ($5 ticks), plot x 44..540, labels in two rows.
ALL_MARKERS: dict[str, Any] = {
    "price_usd": 19.99,
    "historical_low_usd": 7.5,
    "worth_it_at_usd": 25.0,
    "becomes_banger_at_usd": 10.0,
}


@pytest.mark.parametrize(
    ("width", "bounds", "shapes", "labels", "tiers"),
    [
        (
            WIDTH,
            (44.0, 540.0, 46, 264.0),
            [
                ("square", 168.0, 24),
                ("triangle", 209.333, 39),
                ("circle", 374.501, 24),
                ("diamond", 457.333, 39),
            ],
            [(168.0, 20), (209.333, 35), (374.501, 20), (457.333, 35)],
            [(89.6, 546.0, "banger 80+"), (122.3, 546.0, "worth it 65+")],
        ),
        (
            NARROW_WIDTH,
            (44.0, 300.0, 46, 264.0),
            [
                ("square", 108.0, 24),
                ("triangle", 129.333, 39),
                ("circle", 214.581, 24),
                ("diamond", 257.333, 39),
            ],
            # The last label is kept inside the plot: centred left of its marker's line.
            [(108.0, 20), (129.333, 35), (214.581, 20), (250.5, 35)],
            [(89.6, 306.0, "banger"), (122.3, 306.0, "worth it")],
        ),
    ],
    ids=["wide", "narrow"],
)
def test_price_curve_places_plot_markers_labels_and_tiers(
    width: int,
    bounds: tuple[float, float, float, float],
    shapes: list[tuple[str, float, float]],
    labels: list[tuple[float, float]],
    tiers: list[tuple[float, float, str]],
) -> None:
    chart = price_curve(falling(), width=width, **ALL_MARKERS)
    assert (chart.left, chart.right, chart.plot_top, chart.plot_bottom) == bounds
    assert [(m.shape, round(m.x, 3), m.line_top) for m in chart.markers] == shapes
    assert [(round(m.label.x, 3), m.label.y) for m in chart.markers] == labels
    assert [(round(t.y, 3), t.label.x, t.label.text) for t in chart.tiers] == tiers
    assert [t.text for t in chart.price_ticks] == ["$0", "$5", "$10", "$15", "$20", "$25", "$30"]
    assert [r.label.text for r in chart.score_rules] == ["0", "20", "40", "60", "80", "100"]
    assert chart.axis_label == Text((44.0 + chart.right) / 2, 296, "price (USD)")


def test_text_alternative_says_each_marker_in_words() -> None:
    chart = price_curve(falling(), name="Tom & Jerry <3", price_date="24 Jul 2026", **ALL_MARKERS)
    assert chart.description == (
        "The score of Tom & Jerry <3 never rises with its price. "
        "At its price of $19.99 on 24 Jul 2026 it scores 70. "
        "At its historical low of $7.50 it scores 83. "
        "It is worth it (65 or more) at $25.00 or less. "
        "It is a banger (80 or more) at $10.00 or less."
    )


def test_curve_never_rises_and_today_sits_on_it() -> None:
    chart = price_curve(
        falling(95.0, 1.5),
        price_usd=12.0,
        historical_low_usd=None,
        worth_it_at_usd=None,
        becomes_banger_at_usd=None,
    )
    xs = [x for x, _ in chart.curve]
    ys = [y for _, y in chart.curve]
    assert xs == sorted(xs) and len(chart.curve) > 45
    assert ys == sorted(ys)  # SVG y grows downward: the score never rises with price
    (today,) = chart.markers
    assert today.outline[0] in chart.curve


def test_no_label_overlaps_another_in_its_row() -> None:
    chart = price_curve(
        falling(),
        price_usd=10.0,
        historical_low_usd=9.5,
        worth_it_at_usd=10.5,
        becomes_banger_at_usd=9.0,
    )
    rows: dict[float, list[float]] = {}
    for m in chart.markers:
        rows.setdefault(m.label.y, []).append(m.label.x)
    assert len(rows) >= 2  # four labels within $1.50 of each other: stacked in rows
    for xs in rows.values():
        xs.sort()
        assert all(b - a > 40 for a, b in itertools.pairwise(xs))


def test_svg_is_accessible_escaped_and_self_contained(site: SiteRenderer) -> None:
    svg = site.chart_svg(price_curve(falling(), name="Tom & Jerry <3", **ALL_MARKERS))
    root = ET.fromstring(svg)  # well-formed: jinja2 escaped the name
    assert root.get("role") == "img"
    title = root.find(f"{SVG}title")
    desc = root.find(f"{SVG}desc")
    assert title is not None and title.text == "bang_score of Tom & Jerry <3 against its price"
    assert desc is not None and desc.text is not None
    assert desc.text.startswith("The score of Tom & Jerry <3 never rises")
    assert root.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
    assert "<script" not in svg and "href" not in svg
    # Readable without colour: each marker has its own shape and line pattern.
    dashes = [line.get("stroke-dasharray") for line in root.iter(f"{SVG}line")]
    assert {"2 3", "6 4", "12 4"} <= set(dashes)
    assert [el.tag.removeprefix(SVG) for el in root if el.get("class", "").startswith("mark-")] == [
        "rect",
        "polygon",
        "circle",
        "polygon",
    ]


HOSTILE = "<x&\"'>"  # every character a text must not reach the SVG as


def hostile(value: Any) -> Any:
    """Return a chart's geometry (or any part of it) with every text replaced by HOSTILE."""
    if isinstance(value, str):
        return HOSTILE
    if isinstance(value, tuple):
        parts = [hostile(v) for v in value]
        return type(value)(*parts) if hasattr(value, "_fields") else tuple(parts)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: hostile(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return dataclasses.replace(value, **fields)
    return value


@pytest.mark.parametrize(
    "chart",
    [
        pytest.param(price_curve(falling(), name="Game", **ALL_MARKERS), id="price-curve"),
        pytest.param(
            price_history(
                [
                    HistoryPoint(dt.date(2026, 1, 10), 59.99, 59.99, 0, "itad"),
                    HistoryPoint(dt.date(2026, 7, 2), 29.99, 59.99, 50, "itad"),
                ],
                as_of=dt.date(2026, 7, 24),
                name="Game",
                scores=[ScoreMark(dt.date(2026, 1, 10), 71), ScoreMark(dt.date(2026, 7, 2), 84)],
            ),
            id="history-with-scores",
        ),
        pytest.param(price_history([], as_of=None, name="Game"), id="history-empty"),
    ],
)
def test_every_text_of_a_chart_is_escaped(
    site: SiteRenderer, chart: PriceCurve | PriceHistory
) -> None:
    # The macros write numbers as they are (autoescape off) and escape each text by name: a
    # text added to the geometry and left unescaped by the template fails here.
    svg = site.chart_svg(hostile(chart))
    root = ET.fromstring(svg)  # well-formed: no text broke out of its element or attribute
    assert HOSTILE not in svg and "<x" not in svg
    written = [
        root.text,
        *(el.text for el in root.iter()),
        *(v for el in root.iter() for v in el.attrib.values()),
    ]
    assert any(HOSTILE in (w or "") for w in written)  # the texts are there, unescaped by XML


def _cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(INPUTS.read_text())
    return cases


def _charts(site: SiteRenderer, case: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Given a real case of tests/fixtures/charts/inputs.json, return the SVGs of its price
    curves and price histories, each at both widths, as the game page draws them."""
    samples = {price: score for price, score in case["scores_at"]}
    as_of = dt.date.fromisoformat(case["as_of"]) if case["as_of"] else None
    points = [HistoryPoint(dt.date.fromisoformat(d), *rest) for d, *rest in case["points"]]
    marks = [ScoreMark(dt.date.fromisoformat(d), s) for d, s in case["score_marks"]]
    curves = [
        site.chart_svg(
            price_curve(
                samples.__getitem__,
                price_usd=case["price_usd"],
                historical_low_usd=case["historical_low_usd"],
                worth_it_at_usd=case["worth_it_at_usd"],
                becomes_banger_at_usd=case["becomes_banger_at_usd"],
                name=case["name"],
                chart_id=chart_id,
                width=width,
                price_date=case["price_date"],
            )
        )
        for chart_id, width in (("price-chart", WIDTH), ("price-chart-narrow", NARROW_WIDTH))
    ]
    histories = [
        site.chart_svg(
            price_history(
                points, as_of=as_of, name=case["name"], chart_id=chart_id, width=width, scores=marks
            )
        )
        for chart_id, width in (
            ("history-chart", WIDE_HISTORY),
            ("history-chart-narrow", NARROW_HISTORY),
        )
    ]
    return curves, histories


def _linear(pairs: list[tuple[float, float]]) -> Callable[[float], float]:
    """Given (value, SVG coordinate) pairs read off an axis, return the axis' scale: the line
    through the first and the last pair (a value to its coordinate)."""
    (v0, c0), (v1, c1) = pairs[0], pairs[-1]
    return lambda v: c0 + (v - v0) * (c1 - c0) / (v1 - v0)


def _dollars(text: str) -> float:
    """Given a price as the chart writes it ("$1,299.99", "low $7.50", "price Free", "Free on
    4 Feb 2023"), return the dollars."""
    if re.match(r"(\w+ )?Free\b", text):
        return 0.0
    found = re.search(r"\$([\d,]+(?:\.\d+)?)", text)
    assert found is not None, text
    return float(found.group(1).replace(",", ""))


def _centre(element: ET.Element) -> tuple[float, float]:
    """Given a price-curve marker's SVG element, return the point it marks: a circle's centre,
    a 10-unit square's centre, a diamond's centre or a triangle's apex 7 units above it."""
    tag = element.tag.removeprefix(SVG)
    if tag == "circle":
        return float(element.get("cx", "nan")), float(element.get("cy", "nan"))
    if tag == "rect":
        return float(element.get("x", "nan")) + 5, float(element.get("y", "nan")) + 5
    vertices = [tuple(map(float, p.split(","))) for p in element.get("points", "").split()]
    if len(vertices) == 3:  # the triangle: its first vertex is the apex, 7 units up
        return vertices[0][0], vertices[0][1] + 7
    xs, ys = [v[0] for v in vertices], [v[1] for v in vertices]
    return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2


# The SVG writes coordinates with one decimal: a point is where it should be within 0.05 units
# of each side's rounding.
NEAR = 0.1


@pytest.mark.parametrize("case", _cases(), ids=lambda case: str(case["id"]))
def test_each_marker_sits_at_its_price_and_score(site: SiteRenderer, case: dict[str, Any]) -> None:
    """Real inputs (games of the bundled catalogue and edge cases): in each drawn price curve,
    every marker stands where its price meets the score there, read against the chart's own
    axes (its dollar ticks and its 0-100 rules), and only the markers whose price is known and
    on the axis are drawn."""
    samples = {price: score for price, score in case["scores_at"]}
    known = {
        "price": case["price_usd"],
        "low": case["historical_low_usd"],
        "worth it": case["worth_it_at_usd"],
        "banger": case["becomes_banger_at_usd"],
    }
    curves, _ = _charts(site, case)
    for svg in curves:
        root = ET.fromstring(svg)
        texts = list(root.iter(f"{SVG}text"))
        ticks = [t for t in texts if t.get("class") == "tick" and (t.text or "").startswith("$")]
        x_of = _linear([(_dollars(t.text or ""), float(t.get("x", "nan"))) for t in ticks])
        rules = [e for e in root.iter(f"{SVG}line") if e.get("class") == "grid"]
        scores = [t for t in texts if t.get("class") == "tick" and t.get("text-anchor") == "end"]
        y_of = _linear(
            [
                (float(t.text or "nan"), float(r.get("y1", "nan")))
                for t, r in zip(scores, rules, strict=True)
            ]
        )
        top = _dollars(ticks[-1].text or "")
        children = list(root)
        labels = [t for t in texts if t.get("class") == "marker-label"]
        drawn = {
            re.sub(r" (\$\S+|Free)$", "", t.text or ""): _dollars(t.text or "") for t in labels
        }
        assert drawn == {w: p for w, p in known.items() if p is not None and p <= top}
        for label in labels:
            at = children.index(label)
            line, mark = children[at - 2], children[at - 1]
            price = _dollars(label.text or "")
            x, y = x_of(price), y_of(min(100.0, max(0.0, samples[price])))
            assert float(line.get("x1", "nan")) == pytest.approx(x, abs=NEAR), label.text
            assert _centre(mark) == pytest.approx((x, y), abs=NEAR), label.text
            assert float(line.get("y2", "nan")) == pytest.approx(y_of(0), abs=NEAR)


@pytest.mark.parametrize("case", _cases(), ids=lambda case: str(case["id"]))
def test_each_history_dot_sits_at_its_price_and_day(
    site: SiteRenderer, case: dict[str, Any]
) -> None:
    """Real inputs: in each drawn price history, every observation's dot stands at its price on
    the chart's dollar rules and its day on a linear time axis, a sale's dot filled; every score
    mark at its score on the right-hand 0-100 axis."""
    _, histories = _charts(site, case)
    points = sorted(case["points"], key=lambda p: str(p[0]))  # stable, as the chart sorts
    for svg in histories:
        root = ET.fromstring(svg)
        dots = list(root.iter(f"{SVG}circle"))
        assert len(dots) == len(points)
        if not points:
            continue
        texts = list(root.iter(f"{SVG}text"))
        rules = [e for e in root.iter(f"{SVG}line") if e.get("class") == "grid"]
        dollars = [t for t in texts if t.get("class") == "tick" and (t.text or "").startswith("$")]
        y_of = _linear(
            [
                (_dollars(t.text or ""), float(r.get("y1", "nan")))
                for t, r in zip(dollars, rules, strict=True)
            ]
        )
        days = [dt.date.fromisoformat(p[0]).toordinal() for p in points]
        xs = [float(d.get("cx", "nan")) for d in dots]
        x_of = _linear(list(zip(map(float, days), xs, strict=True))) if days[-1] > days[0] else None
        for dot, (day, price, _, discount, *_), x, n in zip(dots, points, xs, days, strict=True):
            title = dot.find(f"{SVG}title")
            assert title is not None and title.text is not None
            assert _dollars(title.text) == price and title.text.endswith(day[:4])
            assert float(dot.get("cy", "nan")) == pytest.approx(y_of(price), abs=NEAR)
            assert dot.get("class") == ("mark-fill" if discount else "mark-open")
            if x_of is not None:
                assert x == pytest.approx(x_of(n), abs=NEAR)
        marks = [p for p in root.iter(f"{SVG}polygon") if p.get("class") == "score-mark"]
        assert len(marks) == len(case["score_marks"])
        right = [t for t in texts if t.get("class") == "tick" and (t.text or "").isdigit()]
        figures = [(float(t.text or "nan"), float(t.get("y", "nan")) - 4) for t in right]
        score_y = _linear(figures) if marks else None
        for mark, (_, score) in zip(marks, case["score_marks"], strict=True):
            assert score_y is not None
            assert _centre(mark)[1] == pytest.approx(score_y(score), abs=NEAR)
