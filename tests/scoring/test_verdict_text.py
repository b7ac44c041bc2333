"""scoring/verdict_text.py: the words that follow the verdict's rule, on the real prices of
games of the bundled catalogue (data/raw/steam_prices_usd_2026-07_history) (the verdict's own
tests and its other sentences: tests/scoring/test_verdict.py)."""

from __future__ import annotations

import datetime as dt

import pytest

from bangscore.scoring.review_words import Reviews
from bangscore.scoring.verdict import Sighting, ended_sale, verdict
from bangscore.scoring.verdict_text import held_down, verdict_text

AS_OF = dt.date(2026, 7, 24)
# CHUCHEL (711660), $14.99, worth it at $7.62 or less: $4.49 in the Summer Sale (3 Jul 2026),
# $14.99 on 13 Jul, then $2.99 on 21 and 22 Jul (80% off), ended before 24 Jul.
CHUCHEL = (
    Sighting(dt.date(2026, 7, 3), 4.49, 70),
    Sighting(dt.date(2026, 7, 13), 14.99, 0),
    Sighting(dt.date(2026, 7, 21), 2.99, 80),
    Sighting(dt.date(2026, 7, 22), 2.99, 80),
)


def test_a_wait_after_a_cheaper_ended_sale_says_why_it_waits_for_the_seasonal_price() -> None:
    # The rule waits for the newest seasonal sale's price unless a newer one is 25% and $2
    # cheaper: $2.99 is 33% but only $1.50 under $4.49.
    decided = verdict("fair", 14.99, 7.62, None, CHUCHEL, AS_OF)
    ended = ended_sale(CHUCHEL, 14.99, 0)
    assert decided.verdict == "wait_for_sale" and decided.price_usd == 4.49
    assert ended == (dt.date(2026, 7, 22), 2.99)
    text = verdict_text(
        "CHUCHEL", "fair", 14.99, AS_OF, 7.62, None, decided, ended, history=CHUCHEL, as_of=AS_OF
    )
    assert text == (
        "CHUCHEL is fair value at list price $14.99; $2.99 in the sale seen "
        "22 Jul 2026, since ended; it also sold at $4.49 in the Summer Sale (3 Jul 2026), a "
        "price that makes it worth it and that seasonal sales return to: wait for $4.49 or less "
        "($10.50, 70% less)."
    )


LIFETIME_36 = Reviews(0.36, "77", AS_OF)
# A collapse the score reads (35% of the last 996, 85% lifetime, sampled 20 Jul 2026).
COLLAPSED = Reviews(0.85, "40,112", AS_OF, 0.35, 996, dt.date(2026, 7, 20))


@pytest.mark.parametrize(
    ("lowers", "reviews", "words"),
    [
        pytest.param(
            ["reviews"],
            LIFETIME_36,
            "only 36% of its 77 reviews (lifetime, as of 24 Jul 2026) are positive",
            id="reviews",
        ),
        pytest.param(
            ["reviews", "length"],
            Reviews(0.424, "1,000+", AS_OF),
            "only 42% of its 1,000+ reviews (lifetime, as of 24 Jul 2026) are positive, and it is "
            "short for its genre",
            id="reviews-and-length",
        ),
        pytest.param(
            ["reviews", "recent_reviews"],
            COLLAPSED,
            "only 35% of its last 996 reviews (sampled 20 Jul 2026) are positive, 85% lifetime",
            id="the-recent-share-read-said-once",
        ),
        pytest.param(
            ["recent_reviews"],
            COLLAPSED,
            "its recent reviews are worse than its lifetime ones: 35% of its last 996 reviews "
            "(sampled 20 Jul 2026) are positive, 85% lifetime",
            id="recent-alone",
        ),
        pytest.param(["reviews"], None, "", id="no-shares-no-figure"),
        pytest.param(["price"], LIFETIME_36, "", id="price-is-not-why-no-price-helps"),
        pytest.param([], LIFETIME_36, "", id="nothing-lowers"),
    ],
)
def test_what_holds_a_game_down(lowers: list[str], reviews: Reviews | None, words: str) -> None:
    assert held_down(lowers, reviews) == words


def test_a_skip_no_price_helps_says_why() -> None:
    # Where the Bees Make Honey (1001640): $0.99 on 3 Jul 2026 (90% off), $9.99 on 13 Jul;
    # 36% of 77 reviews positive, bang_score 0: no price makes it worth it.
    seen = (Sighting(dt.date(2026, 7, 3), 0.99, 90), Sighting(dt.date(2026, 7, 13), 9.99, 0))
    decided = verdict("skip", 9.99, None, None, seen, AS_OF)
    assert decided.verdict == "skip"
    text = verdict_text(
        "Where the Bees Make Honey",
        "skip",
        9.99,
        dt.date(2026, 7, 13),
        None,
        None,
        decided,
        history=seen,
        as_of=AS_OF,
        reviews=Reviews(0.36, "77", AS_OF),
        lowers=["reviews"],
    )
    assert text == (
        "Where the Bees Make Honey is poor value at $9.99 on 13 Jul 2026: skip it; no price "
        "makes it worth it, as only 36% of its 77 reviews (lifetime, as of 24 Jul 2026) are "
        "positive."
    )


def test_a_skip_under_2_dollars_says_no_sale_saves_enough() -> None:
    # LIZARDS MUST DIE (2532550): list price $1.99, $0.99 in the Winter Sale (1 Jan 2025),
    # worth it at $1.98 or less. The sale saved $1.00, under the $2 a wait must save: "too close
    # to this price to wait for a sale" read backwards beside a sale at half the price.
    seen = (Sighting(dt.date(2025, 1, 1), 0.99, 50), Sighting(AS_OF, 1.99, 0))
    decided = verdict("fair", 1.99, 1.98, None, seen, AS_OF)
    assert decided.verdict == "skip"
    text = verdict_text(
        "LIZARDS MUST DIE", "fair", 1.99, AS_OF, 1.98, None, decided, history=seen, as_of=AS_OF
    )
    assert text == (
        "LIZARDS MUST DIE is fair value at $1.99 on 24 Jul 2026: skip it; it becomes worth it at "
        "$1.98 or less, but on a price of $1.99 no sale can save the $2 that makes a wait worth "
        "it."
    )
