"""The price-history chart (docs/API.md#website)."""

from __future__ import annotations

import datetime as dt
import xml.etree.ElementTree as ET

from bangscore.site.history_chart import (
    HistoryPoint,
    ScoreMark,
    describe,
    history_rows,
    lowest,
    price_history_svg,
)

SVG = "{http://www.w3.org/2000/svg}"
POINTS = [
    HistoryPoint(dt.date(2026, 1, 10), 59.99, 59.99, 0, "itad"),
    HistoryPoint(dt.date(2026, 7, 2), 29.99, 59.99, 50, "itad"),
    HistoryPoint(dt.date(2026, 7, 20), 59.99, 59.99, 0, "storefront"),
]


def test_chart_marks_the_low_and_the_as_of_date_in_words() -> None:
    svg = price_history_svg(POINTS, as_of=dt.date(2026, 7, 24), name="Game")
    root = ET.fromstring(svg)
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
    assert len(root.findall(f"{SVG}circle")) == 3  # one dot per observation


def test_chart_without_points_says_so() -> None:
    svg = price_history_svg([], as_of=None, name="Game")
    assert "No dated prices known" in svg
    assert "No dated prices of Game are known." in svg


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


def test_a_sale_is_drawn_on_its_day_only() -> None:
    sparse = [
        HistoryPoint(dt.date(2025, 1, 1), 59.99, 59.99, 0),
        HistoryPoint(dt.date(2025, 2, 1), 29.99, 59.99, 50),
        HistoryPoint(dt.date(2026, 2, 1), 59.99, 59.99, 0),
    ]
    root = ET.fromstring(price_history_svg(sparse, as_of=dt.date(2026, 2, 1)))
    paid = next(p for p in root.iter(f"{SVG}polyline") if p.get("class") == "curve")
    ys = [float(xy.split(",")[1]) for xy in (paid.get("points") or "").split()]
    low_y, list_y = max(ys), min(ys)
    # list, list | sale for one day | list until the next observation | list
    assert [y == low_y for y in ys] == [False, False, True, True, False, False, False, False]
    assert ys.count(list_y) == 6


def test_score_history_is_a_second_series_on_a_right_hand_axis() -> None:
    scores = [ScoreMark(dt.date(2026, 1, 10), 71), ScoreMark(dt.date(2026, 7, 2), 84)]
    svg = price_history_svg(POINTS, as_of=dt.date(2026, 7, 24), name="Game", scores=scores)
    root = ET.fromstring(svg)
    marks = root.findall(f"{SVG}polygon")
    assert [m.get("class") for m in marks] == ["score-mark", "score-mark"]
    titles = [m.find(f"{SVG}title") for m in marks]
    assert [t.text for t in titles if t is not None] == [
        "BangScore 71 on 10 Jan 2026",
        "BangScore 84 on 2 Jul 2026",
    ]
    words = [t.text for t in root.iter(f"{SVG}text")]
    assert {"0", "50", "100", "BangScore (right axis)"} <= set(words)
    desc = root.find(f"{SVG}desc")
    assert desc is not None and desc.text is not None
    assert desc.text.endswith(
        "BangScore 71 on 10 Jan 2026, 84 on 2 Jul 2026, 2 snapshots where score or price changed."
    )
    # Without scores the chart is as before: no score series, no right-hand axis.
    plain = ET.fromstring(price_history_svg(POINTS, as_of=dt.date(2026, 7, 24), name="Game"))
    assert plain.findall(f"{SVG}polygon") == []
