"""Early-window review signals from single reviews with the playtime at review time."""

from __future__ import annotations

import datetime as dt
import gzip
from pathlib import Path

import pytest

from bangscore.ingest.dumps.early_window import EARLY_WINDOW_MINUTES, read_review_rows, summarise

DAY = 86_400
JAN_1 = 1_735_689_600  # 2025-01-01 00:00 UTC


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        pytest.param(
            [(1, JAN_1, 30, True), (1, JAN_1 + DAY, 119, False), (1, JAN_1 + 2 * DAY, 600, True)],
            (2, 0.5, 2 / 3, 3, dt.date(2025, 1, 1), dt.date(2025, 1, 3)),
            id="two-of-three-early",
        ),
        pytest.param(
            [(2, JAN_1, EARLY_WINDOW_MINUTES, True), (2, JAN_1, 5000, False)],
            (0, None, 0.0, 2, dt.date(2025, 1, 1), dt.date(2025, 1, 1)),
            id="exactly-two-hours-is-not-early",
        ),
        pytest.param(
            [(3, JAN_1 + 5 * DAY, 0, True)],
            (1, 1.0, 1.0, 1, dt.date(2025, 1, 6), dt.date(2025, 1, 6)),
            id="one-review",
        ),
    ],
)
def test_summarise(
    rows: list[tuple[int, int, int, bool]],
    expected: tuple[int, float | None, float, int, dt.date, dt.date],
) -> None:
    [(appid, found)] = summarise(rows, "dump").items()
    assert appid == rows[0][0]
    assert (
        found.reviews,
        found.positive_share,
        found.review_share,
        found.sample,
        found.window.from_,
        found.window.to,
    ) == pytest.approx(expected)
    assert found.source == "dump"


def test_read_review_rows_keeps_storefront_purchases_with_a_playtime(tmp_path: Path) -> None:
    header = (
        "appid,recommendationid,timestamp_created,voted_up,steam_purchase,received_for_free,"
        "author_playtime_at_review"
    )
    lines = [
        header,
        "10,1,1737388176,True,True,False,1405",  # kept
        "10,2,1737388176,False,False,False,30",  # not bought on the storefront
        "10,3,1737388176,True,True,True,30",  # received for free
        "10,4,1737388176,True,True,False,",  # no playtime at review
        "20,5,1737300000,False,True,False,45.0",  # kept
    ]
    path = tmp_path / "reviews.csv.gz"
    path.write_bytes(gzip.compress("\n".join(lines).encode()))
    assert list(read_review_rows(path)) == [
        (10, 1737388176, 1405, True),
        (20, 1737300000, 45, False),
    ]
