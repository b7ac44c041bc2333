"""The buyer's verdict, its sentence and the genre percentile (docs/API.md#verdict): the
round-4 rule, with Kingdom Come: Deliverance II and Blue Prince by their real
numbers in the bundled catalogue (prices as of 24 Jul 2026)."""

from __future__ import annotations

import datetime as dt

import pytest

from bangscore.scoring.verdict import (
    BuyerVerdict,
    Sighting,
    ended_sale,
    genre_percentiles,
    recent_low,
    verdict,
    verdict_text,
)

AS_OF = dt.date(2026, 7, 24)
JUL2, JUL3, JUN30 = dt.date(2026, 7, 2), dt.date(2026, 7, 3), dt.date(2026, 6, 30)
OLD = dt.date(2024, 10, 31)
# Kingdom Come: Deliverance II (1771300): worth it at $59.99 (up to $71.20), a banger at
# $26.13 or less; the summer sale sold it at $23.99 (60% off) on 2 and 3 Jul 2026.
KCD2 = (Sighting(OLD, 59.99, 0), Sighting(JUL2, 23.99, 60), Sighting(JUL3, 23.99, 60))
# Blue Prince (1569580): fair at $29.99, worth it at $29.98 or less, never a banger; $17.99
# (40% off) on 30 Jun and 3 Jul 2026.
BLUE_PRINCE = (Sighting(JUN30, 17.99, 40), Sighting(JUL3, 17.99, 40))


@pytest.mark.parametrize(
    ("tier", "price", "worth_it", "banger", "history", "expected"),
    [
        pytest.param(
            "worth_it",
            59.99,
            71.2,
            26.13,
            KCD2,
            BuyerVerdict("wait_for_sale", 23.99, (JUL3, 23.99), (JUL3, 23.99)),
            id="kcd2-waits-for-the-seen-banger-price",
        ),
        pytest.param(
            "fair",
            29.99,
            29.98,
            None,
            BLUE_PRINCE,
            BuyerVerdict("wait_for_sale", 17.99, (JUL3, 17.99), (JUL3, 17.99)),
            id="blue-prince-waits-for-the-seen-sale-not-a-cent",
        ),
        pytest.param(
            "fair",
            29.99,
            29.98,
            None,
            (Sighting(JUL3, 29.98, 0),),
            BuyerVerdict("skip", None, None, (JUL3, 29.98)),
            id="blue-prince-a-cent-off-is-no-wait",
        ),
        pytest.param(
            "banger",
            24.99,
            70.0,
            29.17,
            (Sighting(JUL2, 23.99, 4), Sighting(AS_OF, 24.99, 0)),
            BuyerVerdict("buy_now", None, None, (JUL2, 23.99)),
            id="buy-within-10pc-of-the-low",
        ),
        pytest.param(
            "worth_it",
            59.99,
            98.81,
            40.98,
            (Sighting(JUN30, 44.99, 25), Sighting(JUL3, 44.99, 25)),
            BuyerVerdict("buy_now", None, None, (JUL3, 44.99)),
            id="buy-no-sale-deeper-than-25pc",
        ),
        pytest.param(
            "worth_it",
            3.49,
            10.0,
            2.5,
            (Sighting(JUL3, 1.99, 50),),
            BuyerVerdict("buy_now", None, None, (JUL3, 1.99)),
            id="buy-saving-under-2-dollars",
        ),
        pytest.param(
            "banger",
            59.99,
            120.0,
            90.0,
            (Sighting(JUL2, 29.99, 50), Sighting(JUL3, 39.99, 33)),
            BuyerVerdict("wait_for_sale", 39.99, (JUL3, 39.99), (JUL2, 29.99)),
            id="banger-waits-for-the-highest-seen-price-that-saves-enough",
        ),
        pytest.param(
            "worth_it",
            59.99,
            71.2,
            26.13,
            (Sighting(dt.date(2025, 7, 24), 9.99, 83),),
            BuyerVerdict("buy_now", None, None, None),
            id="a-sale-366-days-ago-is-not-the-past-year",
        ),
        pytest.param(
            "worth_it",
            21.5,
            30.0,
            10.0,
            (Sighting(JUL3, 19.5, 35),),
            BuyerVerdict("buy_now", None, None, (JUL3, 19.5)),
            id="good-never-skipped-when-the-low-saves-under-10pc",
        ),
        pytest.param(
            "fair",
            59.99,
            30.0,
            10.0,
            (),
            BuyerVerdict("skip", None, None, None),
            id="fair-no-history",
        ),
        pytest.param(
            "fair",
            59.99,
            30.0,
            None,
            (Sighting(JUL3, 30.01, 50),),
            BuyerVerdict("skip", None, None, (JUL3, 30.01)),
            id="fair-sale-a-cent-short-of-worth-it",
        ),
        pytest.param(
            "skip",
            59.99,
            None,
            None,
            KCD2,
            BuyerVerdict("skip", None, None, (JUL3, 23.99)),
            id="no-threshold",
        ),
        pytest.param(
            "banger",
            0.0,
            5.0,
            None,
            (Sighting(JUL2, 0.0, 0),),
            BuyerVerdict("buy_now", None, None, (JUL2, 0.0)),
            id="free-and-good",
        ),
        pytest.param(
            "skip",
            0.0,
            None,
            None,
            (Sighting(JUL2, 0.0, 0),),
            BuyerVerdict("skip", None, None, (JUL2, 0.0)),
            id="free-and-poor",
        ),
    ],
)
def test_verdict(
    tier: str,
    price: float,
    worth_it: float | None,
    banger: float | None,
    history: tuple[Sighting, ...],
    expected: BuyerVerdict,
) -> None:
    assert verdict(tier, price, worth_it, banger, history, AS_OF) == expected


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_verdict_refuses_bad_prices(bad: float) -> None:
    with pytest.raises(ValueError, match="price_usd"):
        verdict("fair", bad, 10.0, None, (), AS_OF)


def test_recent_low_prefers_the_lowest_then_the_latest_within_the_year() -> None:
    points = (
        Sighting(dt.date(2025, 7, 24), 1.0, 90),
        Sighting(JUN30, 4.99, 50),
        Sighting(JUL3, 4.99, 50),
        Sighting(dt.date(2026, 7, 25), 0.99, 90),
        Sighting(AS_OF, 9.99, 0),
    )
    assert recent_low(points, AS_OF) == (JUL3, 4.99)
    assert recent_low(points[:1], AS_OF) is None


@pytest.mark.parametrize(
    ("history", "price", "discount", "expected"),
    [
        pytest.param(KCD2, 59.99, 0, (JUL3, 23.99), id="last-seen-on-sale-since-ended"),
        pytest.param(KCD2, 23.99, 60, None, id="sale-still-current"),
        pytest.param((*KCD2, Sighting(AS_OF, 59.99, 0)), 59.99, 0, None, id="back-at-list"),
        pytest.param((), 59.99, 0, None, id="no-history"),
    ],
)
def test_ended_sale(
    history: tuple[Sighting, ...], price: float, discount: int, expected: object
) -> None:
    assert ended_sale(history, price, discount) == expected


@pytest.mark.parametrize(
    ("tier", "price", "worth_it", "banger", "history", "ended", "expected"),
    [
        pytest.param(
            "worth_it",
            59.99,
            71.2,
            26.13,
            KCD2,
            (JUL3, 23.99),
            "Wait for a sale: Kingdom Come: Deliverance II is worth it at list price $59.99; "
            "$23.99 in the sale seen 3 Jul 2026, since ended; that sale makes it a banger: "
            "wait for $23.99 or less ($36.00, 60% less).",
            id="kcd2-names-the-ended-sale",
        ),
        pytest.param(
            "fair",
            29.99,
            29.98,
            None,
            (Sighting(JUN30, 17.99, 40), Sighting(AS_OF, 29.99, 0)),
            None,
            "Wait for a sale: Kingdom Come: Deliverance II is fair value at $29.99 on 24 Jul "
            "2026; at $17.99, a price seen on 30 Jun 2026, it is worth it: wait for $17.99 or "
            "less ($12.00, 40% less).",
            id="wait-names-the-seen-price-its-date-and-saving",
        ),
        pytest.param(
            "banger",
            29.99,
            45.0,
            40.0,
            (Sighting(JUL3, 20.99, 30),),
            (JUL3, 20.99),
            "Wait for a sale: Kingdom Come: Deliverance II is a banger at list price $29.99; "
            "$20.99 in the sale seen 3 Jul 2026, since ended; that sale keeps it a banger: "
            "wait for $20.99 or less ($9.00, 30% less).",
            id="hades-2-shaped-banger-waits-for-a-deep-sale",
        ),
        pytest.param(
            "banger",
            24.99,
            70.0,
            29.17,
            (Sighting(JUL2, 23.99, 4), Sighting(AS_OF, 24.99, 0)),
            None,
            "Kingdom Come: Deliverance II is a banger at $24.99 on 24 Jul 2026, and stays a "
            "banger up to $29.17: buy it now; the past year's low, $23.99 on 2 Jul 2026, is only "
            "$1.00, 4% less.",
            id="buy-low-too-close",
        ),
        pytest.param(
            "worth_it",
            59.99,
            98.81,
            40.98,
            (Sighting(JUL3, 44.99, 25), Sighting(AS_OF, 59.99, 0)),
            None,
            "Kingdom Come: Deliverance II is worth it at $59.99 on 24 Jul 2026: buy it now; no "
            "sale in the past year cut it more than 25%.",
            id="buy-no-deep-sale",
        ),
        pytest.param(
            "banger",
            14.99,
            87.11,
            36.13,
            (Sighting(AS_OF, 14.99, 0),),
            None,
            "Kingdom Come: Deliverance II is a banger at $14.99 on 24 Jul 2026, and stays a "
            "banger up to $36.13: buy it now; $14.99 is its lowest price of the past year.",
            id="buy-at-the-low",
        ),
        pytest.param(
            "fair",
            59.99,
            20.0,
            None,
            (Sighting(JUL3, 29.99, 50),),
            None,
            "Skip: Kingdom Come: Deliverance II is fair value at $59.99 on 24 Jul 2026; it "
            "becomes worth it only at $20.00 or less, a price not seen in the past year.",
            id="skip-never-seen",
        ),
        pytest.param(
            "fair",
            29.99,
            29.98,
            None,
            (),
            None,
            "Skip: Kingdom Come: Deliverance II is fair value at $29.99 on 24 Jul 2026; it "
            "becomes worth it at $29.98 or less, too close to today's price to wait for a sale.",
            id="skip-threshold-a-cent-away",
        ),
        pytest.param(
            "skip",
            69.99,
            None,
            None,
            (Sighting(dt.date(2026, 7, 1), 34.99, 50),),
            (dt.date(2026, 7, 1), 34.99),
            "Skip: Kingdom Come: Deliverance II is poor value at list price $69.99; $34.99 in the "
            "sale seen 1 Jul 2026, since ended, and no price makes it worth it.",
            id="skip-no-price",
        ),
    ],
)
def test_verdict_text(
    tier: str,
    price: float,
    worth_it: float | None,
    banger: float | None,
    history: tuple[Sighting, ...],
    ended: tuple[dt.date, float] | None,
    expected: str,
) -> None:
    decided = verdict(tier, price, worth_it, banger, history, AS_OF)
    text = verdict_text(
        "Kingdom Come: Deliverance II", tier, price, AS_OF, worth_it, banger, decided, ended
    )
    assert text == expected


@pytest.mark.parametrize(
    ("games", "expected"),
    [
        pytest.param([("rpg", 50)], [0.0], id="alone"),
        pytest.param(
            [("rpg", 90), ("rpg", 50), ("rpg", 50), ("rpg", 10)], [0.75, 0.25, 0.25, 0.0], id="ties"
        ),
        pytest.param([("rpg", 90), ("shooter", 10), ("rpg", 100)], [0.0, 0.0, 0.5], id="per-genre"),
        pytest.param([("rpg", 0), ("rpg", 100), ("rpg", 100)], [0.0, 0.333, 0.333], id="bounds"),
    ],
)
def test_genre_percentiles(games: list[tuple[str, int]], expected: list[float]) -> None:
    assert genre_percentiles(games) == expected


@pytest.mark.parametrize(
    ("tier", "expected"),
    [
        pytest.param(
            "worth_it",
            "Team Fortress 2 is free and worth it (as of 24 Jul 2026): get it now.",
            id="good",
        ),
        pytest.param(
            "fair", "Skip: Team Fortress 2 is free (as of 24 Jul 2026), but fair value.", id="fair"
        ),
    ],
)
def test_verdict_text_of_a_free_game(tier: str, expected: str) -> None:
    history = (Sighting(AS_OF, 0.0, 0),)
    decided = verdict(tier, 0.0, None, None, history, AS_OF)
    assert verdict_text("Team Fortress 2", tier, 0.0, AS_OF, None, None, decided) == expected
