"""Prices as a dated series (ingest.prices): which sale is current, the history a record
carries and the historical low."""

from __future__ import annotations

import datetime as dt

import pytest

from bangscore.ingest.prices import (
    Low,
    Price,
    Seen,
    current_price,
    historical_low,
    is_current,
    price_history,
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


def test_price_history_keeps_changes_and_the_newest_observation() -> None:
    day = dt.datetime(2026, 7, 1, 8, tzinfo=dt.UTC)
    observations = [
        seen(day + dt.timedelta(days=3), FULL),
        seen(day, FULL, "old"),
        seen(day + dt.timedelta(hours=5), SALE),  # same day: the day's last observation wins
        seen(day + dt.timedelta(days=1), SALE),  # unchanged: dropped
        seen(day + dt.timedelta(days=2), FULL),
        seen(day + dt.timedelta(days=3, hours=2), FULL, "newest"),
    ]
    points = price_history(observations)
    assert [(p.date.day, p.price_usd, p.discount_percent, p.source) for p in points] == [
        (1, 14.99, 25, "s"),
        (3, 19.99, 0, "s"),
        (4, 19.99, 0, "newest"),
    ]


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
