"""Prices as a dated series (ingest.resolve.prices): which sale is current, the history a record
carries and the historical low."""

from __future__ import annotations

import datetime as dt

import pytest

from bangscore.ingest.resolve.prices import (
    Low,
    Price,
    Seen,
    current_price,
    historical_low,
    is_current,
    price_history,
    with_low,
)

AS_OF = dt.datetime(2026, 7, 24, 14, 13, 40, tzinfo=dt.UTC)
SALE = Price(14.99, 19.99, 25)
FULL = Price(19.99, 19.99, 0)


def seen(
    at: dt.datetime, price: Price = SALE, source: str = "s", ends: dt.datetime | None = None
) -> Seen:
    return Seen(at, price, source, ends)


@pytest.mark.parametrize(
    ("observation", "current"),
    [
        pytest.param(seen(AS_OF), True, id="seen-at-as-of"),
        pytest.param(seen(AS_OF - dt.timedelta(days=2)), True, id="two-days-before"),
        pytest.param(seen(AS_OF - dt.timedelta(days=2, seconds=1)), False, id="just-over"),
        pytest.param(
            seen(AS_OF - dt.timedelta(days=20), ends=AS_OF + dt.timedelta(hours=1)),
            True,
            id="old-but-ends-later",
        ),
        pytest.param(seen(AS_OF - dt.timedelta(days=20), ends=AS_OF), False, id="ended-at-as-of"),
        pytest.param(seen(AS_OF - dt.timedelta(days=400), FULL), True, id="no-discount"),
    ],
)
def test_only_a_current_sale_counts(observation: Seen, current: bool) -> None:
    assert is_current(observation, AS_OF) is current
    expected = observation.price if current else FULL
    assert current_price(observation, AS_OF) == expected


def utc(year: int, month: int, day: int, hour: int = 0) -> dt.datetime:
    return dt.datetime(year, month, day, hour, tzinfo=dt.UTC)


FULL_1499 = Price(14.99, 14.99, 0)
SALE_899 = Price(8.99, 14.99, 40)


@pytest.mark.parametrize(
    ("observations", "expected"),
    [
        pytest.param(
            # The reproduction (Stardew Valley's prices): the 2026 Summer Sale price
            # equals the January 2025 Winter Sale price 18 months before; it is a point.
            [
                seen(utc(2024, 10, 31), FULL_1499, "insights"),
                seen(utc(2025, 1, 1), SALE_899, "spy"),
                seen(utc(2026, 6, 30, 22), SALE_899, "h"),
                seen(utc(2026, 7, 13, 22), FULL_1499, "h"),
            ],
            [
                ("2024-10-31", 14.99, "insights"),
                ("2025-01-01", 8.99, "spy"),
                ("2026-06-30", 8.99, "h"),
                ("2026-07-13", 14.99, "h"),
            ],
            id="issue-33-the-2026-sale-is-kept",
        ),
        pytest.param(
            # One continuous run (no gap over 14 days): one point, then the newest.
            [seen(utc(2026, 7, d), SALE_899, "h") for d in (1, 2, 3, 9)],
            [("2026-07-01", 8.99, "h"), ("2026-07-09", 8.99, "h")],
            id="a-run-is-one-point-plus-the-newest",
        ),
        pytest.param(
            # A gap of exactly 14 days keeps the run; 14 days and a second starts a new one.
            [
                seen(utc(2026, 6, 1), SALE_899, "h"),
                seen(utc(2026, 6, 15), SALE_899, "h"),
                seen(utc(2026, 6, 29, 0) + dt.timedelta(seconds=1), SALE_899, "h"),
                seen(utc(2026, 7, 1), SALE_899, "h"),
            ],
            [
                ("2026-06-01", 8.99, "h"),
                ("2026-06-29", 8.99, "h"),
                ("2026-07-01", 8.99, "h"),
            ],
            id="a-gap-over-14-days-starts-a-point",
        ),
        pytest.param(
            # A price change inside one day: one point a day, the day's lowest (the sale).
            [
                seen(utc(2026, 7, 9, 4), FULL_1499, "h"),
                seen(utc(2026, 7, 9, 20), SALE_899, "h"),
                seen(utc(2026, 7, 10, 4), FULL_1499, "h"),
            ],
            [
                ("2026-07-09", 8.99, "h"),
                ("2026-07-10", 14.99, "h"),
            ],
            id="two-prices-in-one-day-the-lowest-kept",
        ),
        pytest.param(
            # A sale between two full prices, out of order, each with its layer.
            [
                seen(utc(2026, 7, 4), FULL, "h"),
                seen(utc(2026, 7, 1), FULL, "old"),
                seen(utc(2026, 7, 2), SALE, "h"),
                seen(utc(2026, 7, 3), SALE, "h"),
            ],
            [
                ("2026-07-01", 19.99, "old"),
                ("2026-07-02", 14.99, "h"),
                ("2026-07-04", 19.99, "h"),
            ],
            id="changes-in-time-order-with-sources",
        ),
    ],
)
def test_price_history_keeps_the_first_day_of_every_run(
    observations: list[Seen], expected: list[tuple[str, float, str]]
) -> None:
    points = price_history(observations)
    assert [(p.date.isoformat(), p.price_usd, p.source) for p in points] == expected


@pytest.mark.parametrize(
    ("low", "expected"),
    [
        pytest.param(None, [("2026-07-01", 19.99, False)], id="no-low"),
        pytest.param(
            Low(19.99, dt.date(2026, 7, 1), "h"),
            [("2026-07-01", 19.99, False)],
            id="low-already-a-point",
        ),
        pytest.param(
            Low(4.99, dt.date(2025, 10, 16), "itad_2025", estimated=True),
            [("2025-10-16", 4.99, True), ("2026-07-01", 19.99, False)],
            id="an-estimate-is-a-point-marked-estimated",
        ),
    ],
)
def test_the_historical_low_is_a_point_of_the_history(
    low: Low | None, expected: list[tuple[str, float, bool]]
) -> None:
    history = with_low(price_history([seen(utc(2026, 7, 1), FULL, "h")]), low, 19.99)
    assert [(p.date.isoformat(), p.price_usd, p.estimated) for p in history] == expected
    if low is not None and low.estimated:
        assert history[0].discount_percent == 75 and history[0].source == "itad_2025"


def test_price_history_is_bounded_to_the_newest_60_points() -> None:
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    observations = [seen(start + dt.timedelta(days=i), SALE if i % 2 else FULL) for i in range(100)]
    points = price_history(observations)
    assert len(points) == 60
    assert points[-1].date == (start + dt.timedelta(days=99)).date()


def test_historical_low_over_the_whole_history() -> None:
    old_sale = seen(dt.datetime(2025, 1, 1, tzinfo=dt.UTC), Price(4.99, 19.99, 75), "spy")
    unreleased = seen(dt.datetime(2024, 10, 31, tzinfo=dt.UTC), Price(0, 0, 0), "insights")
    low = historical_low([seen(AS_OF, FULL), old_sale, unreleased], [], 19.99, None)
    assert low == Low(4.99, dt.date(2025, 1, 1), "spy")


def test_historical_low_ties_take_the_first_day() -> None:
    first = seen(dt.datetime(2026, 6, 1, tzinfo=dt.UTC))
    again = seen(dt.datetime(2026, 7, 2, tzinfo=dt.UTC), source="later")
    assert historical_low([again, first], [], 19.99, None) == Low(14.99, dt.date(2026, 6, 1), "s")


def test_historical_low_from_a_euro_discount_depth_is_an_estimate() -> None:
    depth = (75, dt.date(2025, 10, 16), "itad_2025")
    low = historical_low([seen(AS_OF, FULL)], [], 19.99, depth)
    # 19.99 at -75% sells at 4.99 on Steam (rounded down to the cent).
    assert low == Low(4.99, dt.date(2025, 10, 16), "itad_2025", estimated=True)


def test_historical_low_of_a_free_game_is_zero_and_of_nothing_none() -> None:
    free = seen(AS_OF, Price(0, 0, 0))
    assert historical_low([free], [], 0.0, None) == Low(0.0, AS_OF.date(), "s")
    assert historical_low([], [], 19.99, None) is None
