"""The price-history chart (docs/API.md#website): its geometry as plain values (scales, step
lines, the low's label, the score series, the legend), the text alternative, and the SVG the
template ``_charts.svg`` draws from it."""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET

import pytest

from bangscore.site.chart import Text
from bangscore.site.history_chart import (
    NARROW_WIDTH,
    WIDTH,
    HistoryPoint,
    ScoreMark,
    describe,
    history_rows,
    legend,
    lowest,
    price_history,
)
from bangscore.site.render import SiteRenderer

SVG = "{http://www.w3.org/2000/svg}"
POINTS = [
    HistoryPoint(dt.date(2026, 1, 10), 59.99, 59.99, 0, "itad"),
    HistoryPoint(dt.date(2026, 7, 2), 29.99, 59.99, 50, "itad"),
    HistoryPoint(dt.date(2026, 7, 20), 59.99, 59.99, 0, "storefront"),
]
AS_OF = dt.date(2026, 7, 24)


@pytest.fixture(scope="module")
def site() -> SiteRenderer:
    return SiteRenderer(site_url="https://bangscore.test", base_url="https://bangscore.test")


def test_plot_scales_the_prices_and_the_days_to_known_coordinates() -> None:
    plot = price_history(POINTS, as_of=AS_OF, name="Game").plot
    assert plot is not None
    assert (plot.left, plot.right, plot.plot_bottom) == (52.0, 624.0, 200.0)
    # $0 to $80 (the $59.99 list price plus 10%, rounded up to a $20 step), 43 units a step.
    assert [(r.y, r.label.text) for r in plot.price_rules] == [
        (200.0, "$0"),
        (157.0, "$20"),
        (114.0, "$40"),
        (71.0, "$60"),
        (28.0, "$80"),
    ]
    # 10 Jan to 24 Jul is 195 days over 572 units: 2 Jul is day 173, 20 Jul day 191.
    assert [(round(d.x, 4), round(d.y, 4), d.sale, d.title) for d in plot.dots] == [
        (52.0, 71.0215, False, "$59.99 on 10 Jan 2026"),
        (559.4667, 135.5215, True, "$29.99 on 2 Jul 2026"),
        (612.2667, 71.0215, False, "$59.99 on 20 Jul 2026"),
    ]
    assert (round(plot.low_corner[0], 4), round(plot.low_corner[1], 4)) == (553.4667, 129.5215)
    assert plot.start == Text(52.0, 216.0, "Jan 2026")
    assert plot.end == Text(624.0, 216.0, "as of 24 Jul 2026")
    assert plot.axis_label == Text(338.0, 236, "date (price in USD)")
    assert plot.scores is None


@pytest.mark.parametrize(
    ("points", "as_of", "label"),
    [
        (POINTS, AS_OF, Text(542.4, 155.5215, "low $29.99 on 2 Jul 2026")),
        (
            [HistoryPoint(dt.date(2026, 1, 10), 5.0, 50.0, 90)],
            None,
            Text(133.6, 173.6667, "low $5.00 on 10 Jan 2026"),
        ),
    ],
    ids=["under-the-mark-kept-in-the-plot", "above-a-mark-near-the-axis"],
)
def test_low_label_sits_by_its_square_inside_the_plot(
    points: list[HistoryPoint], as_of: dt.date | None, label: Text
) -> None:
    plot = price_history(points, as_of=as_of).plot
    assert plot is not None
    placed = plot.low_label
    assert Text(round(placed.x, 4), round(placed.y, 4), placed.text) == label


@pytest.mark.parametrize(
    ("as_of", "end"),
    [
        (AS_OF, "as of 24 Jul 2026"),
        (None, "Jul 2026"),
        (dt.date(2026, 7, 1), "Jul 2026"),  # older than the last observation: not the end
    ],
    ids=["as-of-later", "unknown", "as-of-earlier"],
)
def test_time_axis_ends_at_the_as_of_date_in_words(as_of: dt.date | None, end: str) -> None:
    plot = price_history(POINTS, as_of=as_of).plot
    assert plot is not None and plot.end.text == end


@pytest.mark.parametrize(
    ("width", "scored", "words"),
    [
        (WIDTH, False, ["price paid", "list price"]),
        (WIDTH, True, ["price paid", "list price", "BangScore (right axis)"]),
        (NARROW_WIDTH, True, ["price paid", "list price", "score"]),
    ],
    ids=["prices-only", "with-scores", "narrow-with-scores"],
)
def test_legend_names_each_series_drawn(width: int, scored: bool, words: list[str]) -> None:
    entries = legend(52.0, width, scored=scored)
    assert [e.label.text for e in entries] == words
    assert [(e.x1, e.x2, e.line_y, e.css_class) for e in entries] == [
        (52.0, 74.0, 10, "curve"),
        (162.0, 184.0, 10, "list-line"),
        (272.0, 294.0, 10, "score-line"),
    ][: len(words)]


def test_a_sale_is_drawn_on_its_day_only() -> None:
    sparse = [
        HistoryPoint(dt.date(2025, 1, 1), 59.99, 59.99, 0),
        HistoryPoint(dt.date(2025, 2, 1), 29.99, 59.99, 50),
        HistoryPoint(dt.date(2026, 2, 1), 59.99, 59.99, 0),
    ]
    plot = price_history(sparse, as_of=dt.date(2026, 2, 1)).plot
    assert plot is not None
    ys = [y for _, y in plot.paid]
    low_y, list_y = max(ys), min(ys)
    # list, list | sale for one day | list until the next observation | list
    assert [y == low_y for y in ys] == [False, False, True, True, False, False, False, False]
    assert ys.count(list_y) == 6
    assert plot.paid[3][0] - plot.paid[2][0] == pytest.approx(572 / 396)  # one day of 396


def test_score_history_is_a_second_series_on_a_right_hand_axis() -> None:
    scores = [ScoreMark(dt.date(2025, 12, 1), 71), ScoreMark(dt.date(2026, 7, 2), 84)]
    chart = price_history(POINTS, as_of=AS_OF, name="Game", width=NARROW_WIDTH, scores=scores)
    plot = chart.plot
    assert plot is not None and plot.scores is not None
    assert plot.right == 320.0  # room for the 0-100 axis at the right
    assert plot.start.text == "Dec 2025"  # the axis starts at the first score mark
    assert [(t.x, t.y, t.text) for t in plot.scores.ticks] == [
        (326.0, 204.0, "0"),
        (326.0, 118.0, "50"),
        (326.0, 32.0, "100"),
    ]
    assert [m.title for m in plot.scores.marks] == [
        "BangScore 71 on 1 Dec 2025",
        "BangScore 84 on 2 Jul 2026",
    ]
    (x, y), *_ = plot.scores.steps
    assert plot.scores.marks[0].outline == ((x, y - 5), (x + 5, y), (x, y + 5), (x - 5, y))
    assert chart.description.endswith(
        "BangScore 71 on 1 Dec 2025, 84 on 2 Jul 2026, 2 snapshots where score or price changed."
    )


def test_chart_marks_the_low_and_the_as_of_date_in_words(site: SiteRenderer) -> None:
    root = ET.fromstring(site.chart_svg(price_history(POINTS, as_of=AS_OF, name="Game")))
    words = [t.text for t in root.iter(f"{SVG}text")]
    assert "low $29.99 on 2 Jul 2026" in words
    assert "as of 24 Jul 2026" in words
    desc = root.find(f"{SVG}desc")
    assert desc is not None and desc.text == (
        "Price of Game from 10 Jan 2026 to 20 Jul 2026, 3 observations, 1 of them on sale. "
        "List price $59.99. Historical low $29.99 on 2 Jul 2026. Latest: $59.99 on 20 Jul 2026. "
        "Prices as of 24 Jul 2026."
    )
    assert len(root.findall(f"{SVG}rect")) == 1  # the low's square
    dots = root.findall(f"{SVG}circle")
    assert [d.get("class") for d in dots] == ["mark-open", "mark-fill", "mark-open"]
    assert root.findall(f"{SVG}polygon") == []  # no score series without scores


def test_chart_without_points_says_so(site: SiteRenderer) -> None:
    chart = price_history([], as_of=None, name="<Game> & co")
    assert chart.plot is None
    root = ET.fromstring(site.chart_svg(chart))  # well-formed: jinja2 escaped the name
    assert [t.text for t in root.iter(f"{SVG}text")] == ["No dated prices known"]
    desc = root.find(f"{SVG}desc")
    assert desc is not None and desc.text == "No dated prices of <Game> & co are known."


def test_score_marks_are_drawn_with_their_tooltips(site: SiteRenderer) -> None:
    scores = [ScoreMark(dt.date(2026, 1, 10), 71), ScoreMark(dt.date(2026, 7, 2), 84)]
    svg = site.chart_svg(price_history(POINTS, as_of=AS_OF, name="Game", scores=scores))
    marks = ET.fromstring(svg).findall(f"{SVG}polygon")
    assert [m.get("class") for m in marks] == ["score-mark", "score-mark"]
    titles = [m.find(f"{SVG}title") for m in marks]
    assert [t.text for t in titles if t is not None] == [
        "BangScore 71 on 10 Jan 2026",
        "BangScore 84 on 2 Jul 2026",
    ]


def test_rows_newest_first_and_lowest_first_day_among_equals() -> None:
    assert history_rows(POINTS)[0] == ("20 Jul 2026", "$59.99", "$59.99", "—")
    assert history_rows(POINTS)[1] == ("2 Jul 2026", "$29.99", "$59.99", "50%")
    again = [*POINTS, HistoryPoint(dt.date(2026, 7, 22), 29.99, 59.99, 50)]
    low = lowest(again)
    # The first day the low was seen, as the record's historical_low_at dates it.
    assert low is not None and low.date == dt.date(2026, 7, 2)


def test_an_estimated_point_says_so_in_its_row_and_the_text() -> None:
    estimate = HistoryPoint(dt.date(2025, 10, 16), 14.99, 59.99, 75, "itad_2025", estimated=True)
    points = [estimate, *POINTS]
    assert history_rows(points)[-1] == ("16 Oct 2025", "$14.99", "$59.99", "75% (estimate)")
    assert "Historical low an estimated $14.99 on 16 Oct 2025." in describe(points, None, "G")
