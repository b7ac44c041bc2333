"""The buyer's verdict (docs/API.md#verdict; its sentence and the genre percentile:
test_verdict_sentences.py): the round-5 rule over the 730-day evidence window, with Kingdom Come:
Deliverance II, Blue Prince, Stardew Valley, Elden Ring and Hades by their real numbers in the
bundled catalogue (prices as of 24 Jul 2026)."""

from __future__ import annotations

import datetime as dt

import pytest

from bangscore.scoring.verdict import (
    BuyerVerdict,
    Sighting,
    ended_sale,
    is_stale,
    recent_low,
    verdict,
)

AS_OF = dt.date(2026, 7, 24)
JUL2, JUL3, JUN30 = dt.date(2026, 7, 2), dt.date(2026, 7, 3), dt.date(2026, 6, 30)
OLD, WINTER = dt.date(2024, 10, 31), dt.date(2025, 1, 1)
# Kingdom Come: Deliverance II (1771300): worth it at $59.99 (up to $71.20), a banger at
# $26.13 or less; the summer sale sold it at $23.99 (60% off) on 2 and 3 Jul 2026.
KCD2 = (Sighting(OLD, 59.99, 0), Sighting(JUL2, 23.99, 60), Sighting(JUL3, 23.99, 60))
# Blue Prince (1569580): fair at $29.99, worth it at $29.98 or less, never a banger; $17.99
# (40% off) on 30 Jun and 3 Jul 2026.
BLUE_PRINCE = (Sighting(JUN30, 17.99, 40), Sighting(JUL3, 17.99, 40))
# Stardew Valley (413150): $14.99; $8.99 in the Winter Sale 2024 (SteamSpy, 1 Jan 2025) and
# again in the Summer Sale 2026 (30 Jun to 9 Jul 2026), $14.99 again from 13 Jul.
STARDEW = (
    Sighting(OLD, 14.99, 0),
    Sighting(WINTER, 8.99, 40),
    Sighting(JUN30, 8.99, 40),
    Sighting(dt.date(2026, 7, 13), 14.99, 0),
    Sighting(AS_OF, 14.99, 0),
)
# Elden Ring (1245620): $35.99 in the Winter Sale of January 2025, $59.99 on 3 Jul 2026.
ELDEN = (Sighting(OLD, 59.99, 0), Sighting(WINTER, 35.99, 40), Sighting(JUL3, 59.99, 0))
# Hades (1145360): $24.99 last seen 1 Jan 2025 (no 2026 price); a price tracker's deepest
# discount (75%) by 16 Oct 2025 gives an estimated $6.24.
HADES = (
    Sighting(OLD, 24.99, 0),
    Sighting(WINTER, 24.99, 0),
    Sighting(dt.date(2025, 10, 16), 6.24, 75, estimated=True),
)


@pytest.mark.parametrize(
    ("tier", "price", "worth_it", "banger", "history", "expected"),
    [
        pytest.param(
            "worth_it",
            59.99,
            71.2,
            26.13,
            KCD2,
            BuyerVerdict("wait_for_sale", 23.99, (JUL3, 23.99), (JUL2, 23.99)),
            id="kcd2-waits-for-the-seen-banger-price",
        ),
        pytest.param(
            "banger",
            14.99,
            40.0,
            20.0,
            STARDEW,
            BuyerVerdict("wait_for_sale", 8.99, (JUN30, 8.99), (WINTER, 8.99)),
            id="stardew-waits-for-the-summer-sale-price",
        ),
        pytest.param(
            "worth_it",
            59.99,
            70.0,
            30.0,
            ELDEN,
            BuyerVerdict("wait_for_sale", 35.99, (WINTER, 35.99), (WINTER, 35.99)),
            id="elden-ring-waits-for-the-winter-sale-18-months-back",
        ),
        pytest.param(
            "banger",
            24.99,
            60.0,
            40.1,
            HADES,
            BuyerVerdict(
                "wait_for_sale",
                6.24,
                (dt.date(2025, 10, 16), 6.24),
                (dt.date(2025, 10, 16), 6.24),
            ),
            id="hades-a-dated-estimated-low-counts",
        ),
        pytest.param(
            "fair",
            29.99,
            29.98,
            None,
            BLUE_PRINCE,
            BuyerVerdict("wait_for_sale", 17.99, (JUL3, 17.99), (JUN30, 17.99)),
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
            BuyerVerdict("wait_for_sale", 44.99, (JUL3, 44.99), (JUN30, 44.99)),
            id="a-25pc-sale-is-worth-waiting-for",
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
            (Sighting(dt.date(2024, 7, 25), 9.99, 83),),
            BuyerVerdict(
                "wait_for_sale", 9.99, (dt.date(2024, 7, 25), 9.99), (dt.date(2024, 7, 25), 9.99)
            ),
            id="a-sale-729-days-ago-is-in-the-window",
        ),
        pytest.param(
            "worth_it",
            59.99,
            71.2,
            26.13,
            (Sighting(dt.date(2024, 7, 24), 9.99, 83),),
            BuyerVerdict("buy_now", None, None, None),
            id="a-sale-730-days-ago-is-not",
        ),
        pytest.param(
            "worth_it",
            21.5,
            30.0,
            10.0,
            (Sighting(JUL3, 19.5, 35),),
            BuyerVerdict("buy_now", None, None, (JUL3, 19.5)),
            id="good-never-told-to-wait-for-under-10pc",
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
            BuyerVerdict("skip", None, None, (JUL2, 23.99)),
            id="no-threshold",
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


@pytest.mark.parametrize(
    ("tier", "review_score", "expected"),
    [
        # The tier decides, never the share alone; since 6.0 from `fair` up (5.0 told 28 of
        # the 31 free games with 100,000+ reviews to skip, Team Fortress 2 among them).
        pytest.param("worth_it", 0.93, "buy_now", id="team-fortress-2-worth-it"),
        pytest.param("fair", 0.80, "buy_now", id="fair-at-80pc-gets-it"),
        pytest.param("fair", 0.70, "buy_now", id="fair-at-70pc-gets-it"),
        pytest.param("worth_it", 0.79, "buy_now", id="worth-it-at-79pc-gets-it"),
        pytest.param("skip", 0.95, "skip", id="skip-tier-skips"),
        pytest.param("skip", 0.60, "skip", id="skip-tier-at-60pc-skips"),
    ],
)
def test_a_free_game_is_got_from_fair_up(tier: str, review_score: float, expected: str) -> None:
    history = (Sighting(AS_OF, 0.0, 0),)
    decided = verdict(tier, 0.0, None, None, history, AS_OF, free=True, review_score=review_score)
    assert decided == BuyerVerdict(expected, None, None, (AS_OF, 0.0))  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [-1.0, float("nan"), float("inf")])
def test_verdict_refuses_bad_prices(bad: float) -> None:
    with pytest.raises(ValueError, match="price_usd"):
        verdict("fair", bad, 10.0, None, (), AS_OF)


def test_recent_low_prefers_the_lowest_then_the_first_day_within_two_years() -> None:
    points = (
        Sighting(dt.date(2024, 7, 24), 1.0, 90),
        Sighting(JUN30, 4.99, 50),
        Sighting(JUL3, 4.99, 50),
        Sighting(dt.date(2026, 7, 25), 0.99, 90),
        Sighting(AS_OF, 9.99, 0),
    )
    assert recent_low(points, AS_OF) == (JUN30, 4.99)
    assert recent_low(points[:1], AS_OF) is None


@pytest.mark.parametrize(
    ("seen", "stale"),
    [
        pytest.param(None, False, id="undated"),
        pytest.param(dt.date(2026, 1, 25), False, id="180-days"),
        pytest.param(dt.date(2026, 1, 24), True, id="181-days"),
        pytest.param(WINTER, True, id="hades-1-jan-2025"),
    ],
)
def test_a_price_over_180_days_old_is_stale(seen: dt.date | None, stale: bool) -> None:
    assert is_stale(seen, AS_OF) is stale


@pytest.mark.parametrize(
    ("history", "price", "discount", "expected"),
    [
        pytest.param(KCD2, 59.99, 0, (JUL3, 23.99), id="last-seen-on-sale-since-ended"),
        pytest.param(KCD2, 23.99, 60, None, id="sale-still-current"),
        pytest.param((*KCD2, Sighting(AS_OF, 59.99, 0)), 59.99, 0, None, id="back-at-list"),
        pytest.param((), 59.99, 0, None, id="no-history"),
        pytest.param(HADES, 24.99, 0, None, id="an-estimate-is-no-ended-sale"),
    ],
)
def test_ended_sale(
    history: tuple[Sighting, ...], price: float, discount: int, expected: object
) -> None:
    assert ended_sale(history, price, discount) == expected
