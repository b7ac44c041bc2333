"""The verdict's sentence and the genre percentile (docs/API.md#verdict), over the real games of
test_verdict.py (their numbers in the bundled catalogue, prices as of 24 Jul 2026)."""

from __future__ import annotations

import datetime as dt

import pytest

from bangscore.scoring.review_words import Reviews
from bangscore.scoring.verdict import (
    Sighting,
    genre_percentiles,
    verdict,
)
from bangscore.scoring.verdict_text import verdict_text
from tests.scoring.test_verdict import (
    AS_OF,
    ELDEN,
    HADES,
    JUL2,
    JUL3,
    KCD2,
    OLD,
    STARDEW,
    WINTER,
)


@pytest.mark.parametrize(
    ("tier", "price", "seen_on", "worth_it", "banger", "history", "ended", "expected"),
    [
        pytest.param(
            "worth_it",
            59.99,
            AS_OF,
            71.2,
            26.13,
            KCD2,
            (JUL3, 23.99),
            "Kingdom Come: Deliverance II is worth it at list price $59.99; "
            "$23.99 in the Summer Sale seen 3 Jul 2026, since ended; that sale makes it a banger: "
            "wait for $23.99 or less ($36.00, 60% less).",
            id="kcd2-names-the-ended-sale",
        ),
        pytest.param(
            "banger",
            14.99,
            AS_OF,
            40.0,
            20.0,
            STARDEW,
            None,
            "Kingdom Come: Deliverance II is a banger at $14.99 on 24 Jul "
            "2026; it sold at $8.99 in the Summer Sale (30 Jun 2026), a price that keeps it a "
            "banger: wait for $8.99 or less ($6.00, 40% less).",
            id="stardew-shaped-names-the-summer-sale-and-its-date",
        ),
        pytest.param(
            "worth_it",
            59.99,
            JUL3,
            70.0,
            30.0,
            ELDEN,
            None,
            "Kingdom Come: Deliverance II is worth it at $59.99 on 3 Jul 2026; "
            "it sold at $35.99 in the Winter Sale (1 Jan 2025), a price that keeps it worth it: "
            "wait for $35.99 or less ($24.00, 40% less).",
            id="elden-ring-shaped-names-the-january-2025-sale",
        ),
        pytest.param(
            "banger",
            24.99,
            WINTER,
            60.0,
            40.1,
            HADES,
            None,
            "Kingdom Come: Deliverance II is a banger at $24.99, last seen 1 Jan "
            "2025; a price tracker's deepest discount puts it at an estimated $6.24 (by 16 Oct "
            "2025), a price that keeps it a banger: wait for $6.24 or less ($18.75, 75% less).",
            id="hades-shaped-dates-a-stale-price-and-marks-the-estimate",
        ),
        pytest.param(
            "fair",
            29.99,
            AS_OF,
            29.98,
            None,
            (Sighting(dt.date(2026, 5, 4), 17.99, 40), Sighting(AS_OF, 29.99, 0)),
            None,
            "Kingdom Come: Deliverance II is fair value at $29.99 on 24 Jul "
            "2026; it sold at $17.99 on 4 May 2026, a price that makes it worth it: wait for "
            "$17.99 or less ($12.00, 40% less).",
            id="a-price-outside-every-sale-is-named-by-its-date",
        ),
        pytest.param(
            "banger",
            24.99,
            AS_OF,
            70.0,
            29.17,
            (Sighting(JUL2, 23.99, 4), Sighting(AS_OF, 24.99, 0)),
            None,
            "Kingdom Come: Deliverance II is a banger at $24.99 on 24 Jul 2026, and stays a "
            "banger up to $29.17: buy it now; the lowest of the 2 prices seen from 2 Jul 2026 "
            "to 24 Jul 2026, $23.99 in the Summer Sale (2 Jul 2026), is only $1.00, 4% less.",
            id="buy-low-too-close",
        ),
        pytest.param(
            "worth_it",
            59.99,
            JUL3,
            98.81,
            40.98,
            (Sighting(JUL3, 59.99, 0),),
            None,
            "Kingdom Come: Deliverance II is worth it at $59.99 on 3 Jul 2026: buy it now; it is "
            "the only price seen since 25 Jul 2024.",
            id="one-observation-claims-no-lowest",
        ),
        pytest.param(
            "banger",
            14.99,
            AS_OF,
            87.11,
            36.13,
            (Sighting(OLD, 14.99, 0), Sighting(JUL3, 14.99, 0), Sighting(AS_OF, 14.99, 0)),
            None,
            "Kingdom Come: Deliverance II is a banger at $14.99 on 24 Jul 2026, and stays a "
            "banger up to $36.13: buy it now; no lower price is among the 3 prices seen from "
            "31 Oct 2024 to 24 Jul 2026.",
            id="buy-at-the-low-says-what-was-seen",
        ),
        pytest.param(
            "fair",
            59.99,
            AS_OF,
            20.0,
            None,
            (Sighting(JUL3, 29.99, 50),),
            None,
            "Kingdom Come: Deliverance II is fair value at $59.99 on 24 Jul 2026: skip it; it "
            "becomes worth it only at $20.00 or less, and the only price seen since 25 Jul 2024 "
            "did not reach it.",
            id="skip-never-seen",
        ),
        pytest.param(
            "fair",
            29.99,
            AS_OF,
            29.98,
            None,
            (),
            None,
            "Kingdom Come: Deliverance II is fair value at $29.99 on 24 Jul 2026: skip it; it "
            "becomes worth it at $29.98 or less, too close to this price to wait for a sale.",
            id="skip-threshold-a-cent-away",
        ),
        pytest.param(
            "skip",
            69.99,
            AS_OF,
            None,
            None,
            (Sighting(dt.date(2026, 7, 1), 34.99, 50),),
            (dt.date(2026, 7, 1), 34.99),
            "Kingdom Come: Deliverance II is poor value at list price $69.99; $34.99 in the "
            "Summer Sale seen 1 Jul 2026, since ended: skip it; no price makes it worth it.",
            id="skip-no-price",
        ),
    ],
)
def test_verdict_text(
    tier: str,
    price: float,
    seen_on: dt.date,
    worth_it: float | None,
    banger: float | None,
    history: tuple[Sighting, ...],
    ended: tuple[dt.date, float] | None,
    expected: str,
) -> None:
    decided = verdict(tier, price, worth_it, banger, history, AS_OF)
    text = verdict_text(
        "Kingdom Come: Deliverance II",
        tier,
        price,
        seen_on,
        worth_it,
        banger,
        decided,
        ended,
        history=history,
        as_of=AS_OF,
    )
    assert text == expected
    assert "past year" not in text and "lowest price of" not in text


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
    ("tier", "review_score", "expected"),
    [
        pytest.param(
            "worth_it",
            0.93,
            "Team Fortress 2 costs nothing (as of 24 Jul 2026) and is worth it: get it; 93% of "
            "its 1,025,446 reviews (lifetime, as of 24 Jul 2026) are positive.",
            id="worth-it",
        ),
        pytest.param(
            "fair",
            0.72,
            "Team Fortress 2 costs nothing (as of 24 Jul 2026) and is fair value: get it; 72% "
            "of its 1,025,446 reviews (lifetime, as of 24 Jul 2026) are positive.",
            id="fair",
        ),
        pytest.param(
            "skip",
            0.62,
            "Team Fortress 2 is free (as of 24 Jul 2026), but only poor value: skip it; 62% of "
            "its 1,025,446 reviews (lifetime, as of 24 Jul 2026) are positive.",
            id="skip",
        ),
    ],
)
def test_verdict_text_of_a_free_game(tier: str, review_score: float, expected: str) -> None:
    history = (Sighting(AS_OF, 0.0, 0),)
    decided = verdict(tier, 0.0, None, None, history, AS_OF, free=True, review_score=review_score)
    text = verdict_text(
        "Team Fortress 2",
        tier,
        0.0,
        AS_OF,
        None,
        None,
        decided,
        history=history,
        as_of=AS_OF,
        free=True,
        reviews=Reviews(review_score, "1,025,446", AS_OF),
    )
    assert text == expected
    assert "$" not in text and "no price makes" not in text


@pytest.mark.parametrize(
    ("tier", "next_sale", "tail"),
    [
        pytest.param(
            "worth_it",
            ("Autumn Sale", dt.date(2026, 10, 1), 23.99),
            "; likely $23.99 in the Autumn Sale from 1 Oct 2026.",
            id="a-wait-names-the-forecast",
        ),
        pytest.param("worth_it", None, "less).", id="no-forecast-no-words"),
        pytest.param(
            "banger",
            ("Autumn Sale", dt.date(2026, 10, 1), 23.99),
            "no lower price is among the 2 prices seen from 1 Jul 2026 to 24 Jul 2026.",
            id="a-buy-never-names-it",
        ),
    ],
)
def test_verdict_text_names_the_sale_forecast_beside_a_wait(
    tier: str, next_sale: tuple[str, dt.date, float] | None, tail: str
) -> None:
    price = 59.99 if tier == "worth_it" else 23.99
    history = (Sighting(dt.date(2026, 7, 1), 23.99, 60), Sighting(AS_OF, price, 0))
    decided = verdict(tier, price, 60.0, 30.0, history, AS_OF)
    text = verdict_text(
        "Kingdom Come: Deliverance II",
        tier,
        price,
        AS_OF,
        60.0,
        30.0,
        decided,
        history=history,
        as_of=AS_OF,
        next_sale=next_sale,
    )
    assert text.endswith(tail), text
    # It sits beside the price the game sold at before, never instead of it.
    assert ("$23.99 in the Summer Sale (1 Jul 2026)" in text) == (decided.verdict != "buy_now")


JUL9, JUL13, JUL21 = dt.date(2026, 7, 9), dt.date(2026, 7, 13), dt.date(2026, 7, 21)


@pytest.mark.parametrize(
    ("history", "waits_for"),
    [
        # Red Dead Redemption 2: $34.99 (Oct 2024), $14.99 in the Summer Sale 2026: the newest.
        pytest.param(
            (Sighting(OLD, 34.99, 50), Sighting(JUL2, 14.99, 75), Sighting(AS_OF, 59.99, 0)),
            (JUL2, 14.99),
            id="the-newest-sale-not-the-dearest",
        ),
        # A dearer price seen later than an older cheaper one: the newest still.
        pytest.param(
            (Sighting(WINTER, 14.99, 75), Sighting(JUL2, 29.99, 50), Sighting(AS_OF, 59.99, 0)),
            (JUL2, 29.99),
            id="newest-even-if-dearer",
        ),
        # Grim Dawn: $2.49 in the Summer Sale, $4.99 on 13 Jul after it: the sale's price.
        pytest.param(
            (Sighting(JUL9, 2.49, 90), Sighting(JUL13, 4.99, 80), Sighting(JUL21, 24.99, 0)),
            (JUL9, 2.49),
            id="the-sale-not-a-discount-after-it",
        ),
        # ... unless the later price is 25% and $2 under the sale's.
        pytest.param(
            (Sighting(JUL9, 9.99, 60), Sighting(JUL13, 4.99, 80), Sighting(JUL21, 24.99, 0)),
            (JUL13, 4.99),
            id="a-later-price-25pc-and-2-dollars-under-the-sale",
        ),
    ],
)
def test_a_wait_names_the_newest_sale_reaching_the_best_tier(
    history: tuple[Sighting, ...], waits_for: tuple[dt.date, float]
) -> None:
    decided = verdict("fair", history[-1].price_usd, 40.0, None, history, AS_OF)
    assert (decided.verdict, decided.reached) == ("wait_for_sale", waits_for)
