"""The decision backtest (bench.decision_backtest): the raw window is read from the 2026 dumps
themselves, and each policy's figures follow the outcomes it is given."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bench import decision_backtest as db

RAW = Path(__file__).resolve().parents[2] / "data/raw/steam_prices_usd_2026-07_history/raw"


def outcome(
    verdict: str, paid_eve: int, low: int, in_sale: int, target: int | None = None
) -> db.Outcome:
    followed = {"buy_now": paid_eve, "wait_for_sale": min(paid_eve, target or paid_eve)}
    return db.Outcome(1, verdict, target, paid_eve, low, in_sale, followed.get(verdict))


@pytest.mark.parametrize(
    ("paid", "low", "undercut"),
    [
        (5999, 1499, True),
        (5999, 4499, True),
        (5999, 4500, False),
        (799, 500, True),
        (799, 600, False),
    ],
    ids=["75%-off", "25%-and-15-dollars", "just-under-25%", "37%-and-2.99", "under-2-dollars"],
)
def test_a_buy_is_undercut_by_a_price_25pc_and_2_dollars_under_it(
    paid: int, low: int, undercut: bool
) -> None:
    assert db.undercut_after(outcome("buy_now", paid, low, low), paid) == undercut


def test_the_policies_count_what_each_paid() -> None:
    decision = db.Decision(
        (
            outcome("buy_now", 2000, 1000, 1000),  # undercut by half
            outcome("buy_now", 2000, 2000, 2000),  # never discounted
            outcome("wait_for_sale", 4000, 1000, 1000, target=1000),  # hit: paid 10.00
            outcome("skip", 1000, 500, 500),
        ),
        dt.date(2026, 6, 24),
        10,
    )
    figures = db.policies(decision)
    buys = figures["our buy_now"]
    assert (buys.games, buys.undercut, buys.saved_usd) == (2, 0.5, 0.0)
    waits = figures["our wait_for_sale, as followed"]
    assert (waits.games, waits.median_saving, waits.saved_usd) == (1, 0.75, 30.0)
    always = figures["always wait for the next sale"]
    assert (always.games, always.paid_usd) == (4, 45.0)
    assert db.hit_rate(decision) == 1.0
    assert db.headline(decision) == (
        "Followed in the 2026 Summer Sale, our waits saved a median 75%; 50% of our buys were "
        "undercut within a month."
    )


@pytest.mark.slow
def test_the_window_is_the_raw_dumps_scrapes_of_those_days() -> None:
    # Stardew Valley: 40% off $14.99 when scraped on 30 Jun 2026, in the Summer Sale.
    seen = db.raw_window(RAW, dt.date(2026, 6, 25), 30, {413150})
    assert set(seen) == {413150}
    points = seen[413150]
    assert all(
        dt.date(2026, 6, 25) <= dt.datetime.fromtimestamp(t, dt.UTC).date() <= dt.date(2026, 7, 24)
        for t, _, _ in points
    )
    assert (899, 1499) in {(cents, listed) for _, cents, listed in points}
