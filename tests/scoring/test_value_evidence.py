"""The bang_score's score version 4.0 rules, evidence before credit (issue 38): a game under an
hour is never a banger, a few hundred reviews never outrank tens of thousands, the prior and
the storefront's labels (the score's properties: test_value.py)."""

from __future__ import annotations

import dataclasses
import itertools
import math

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bangscore.scoring import tiers, value
from bangscore.scoring.genres import GENRES
from bangscore.scoring.value import ValueInputs, bang_score, score
from tests.scoring.test_value import game, known_finish_rates, value_inputs


@given(value_inputs(), st.floats(min_value=0.01, max_value=0.99, allow_nan=False))
def test_a_game_under_an_hour_is_never_a_banger(inputs: ValueInputs, hours: float) -> None:
    # Coconut Simulator (0.2 h, HowLongToBeat) scored 88 in 3.0 on a finish rate and joke tags.
    short = dataclasses.replace(inputs, length_hours=hours, played_length=False)
    assert bang_score(short) < tiers.BANGER_MIN
    assert value.replay_credit(short) == 0.0
    assert value.price_for_score(short, tiers.BANGER_MIN) is None
    assert tiers.threshold_usd(short, tiers.BANGER_MIN) is None


@given(value_inputs(), known_finish_rates)
def test_a_finish_rate_never_raises_the_hours_of_a_game_under_an_hour(
    inputs: ValueInputs, rate: float
) -> None:
    short = dataclasses.replace(
        inputs, length_hours=0.2, played_length=False, estimated_length=False, unattended=False
    )
    assert value.real_hours(dataclasses.replace(short, finish_rate=rate)) == pytest.approx(0.2)


def test_coconut_simulator_is_no_banger() -> None:
    # Its record in the bundled catalogue: $1.99, 97% of 1,344 reviews, 0.2 h, finish rate 0.9,
    # "eSports" and "Life Sim" among its tags (replayable in 3.0).
    coconut = game(1.99, 0.97, 1_344, 0.2, "action", finish_rate=0.9, replay_hours=3.0)
    assert bang_score(dataclasses.replace(coconut, replayable=True)) <= 79


@given(
    st.floats(min_value=value.PRIOR_REVIEW_SCORE, max_value=1.0, allow_nan=False),
    st.integers(min_value=0, max_value=999),
    st.integers(min_value=1_000, max_value=10_000_000),
)
def test_a_few_hundred_reviews_never_outrank_tens_of_thousands_at_the_same_share(
    share: float, few: int, many: int
) -> None:
    base = game(9.99, share, few, 20.0, "rpg")
    # (to float rounding: at the prior's own mean both shrink to the same share)
    assert value.quality(base) <= value.quality(dataclasses.replace(base, review_count=many)) + 1e-9


def test_the_prior_is_strong_below_a_thousand_and_gentle_above() -> None:
    # A 97% from 300 reviews counts below a 95% from 30,000 (3.0: 96.3% against 95.0%) ...
    assert value.shrunk_review_score(0.97, 300) < value.shrunk_review_score(0.95, 30_000)
    # ... while doubt costs a 95% game with 1,000+ reviews at most 2 points (round 6).
    sure = game(19.99, 0.95, 10_000_000, 40.0, "shooter")
    doubted = dataclasses.replace(sure, review_count=1_000)
    assert 0 < score(sure) - score(doubted) <= 2.0
    # Doubt never lifts a poor share: 11% of 210 reviews stays 11%.
    assert value.shrunk_review_score(0.11, 210) == 0.11


@pytest.mark.parametrize("share", [0.40, 0.60, 0.65, 0.69, 0.6999, 0.75])
def test_under_70_percent_never_reaches_worth_it_at_any_price(share: float) -> None:
    # Reviews set the ceiling (round 7: "Mixed" is never worth it): Helldivers 2's 75% of
    # about 950,000 reviews is fair at best, however long it is played and however cheap.
    for hours, genre in ((150.0, "shooter"), (60.0, "rpg"), (3.0, "indie_short")):
        helldivers = game(0.01, share, 950_000, hours, genre, played_length=True)
        assert tiers.tier(bang_score(helldivers)) in ("fair", "skip")
        assert tiers.threshold_usd(helldivers, tiers.WORTH_IT_MIN) is None


@pytest.mark.parametrize(
    ("share", "count", "hours", "genre", "price"),
    [
        # The storefront's "Very Positive" from its floor: 80% of 1,000 reviews (round 7).
        pytest.param(0.80, 1_000, 4.0, "action", 4.99, id="80pc-of-1000-4h-action"),
        pytest.param(0.80, 1_000, 8.0, "rpg", 4.99, id="80pc-of-1000-8h-rpg"),
        pytest.param(0.84, 337_823, 31.5, "other", 14.99, id="no-mans-sky-at-a-quarter"),
        pytest.param(0.81, 383_761, 27.7, "rpg", 7.99, id="fallout-4-at-its-low"),
        pytest.param(0.94, 1_000, 4.0, "narrative", 4.99, id="94pc-4h-narrative"),
    ],
)
def test_very_positive_games_are_worth_it_at_a_sale_price(
    share: float, count: int, hours: float, genre: str, price: float
) -> None:
    inputs = game(price, share, count, hours, genre)
    assert bang_score(inputs) >= tiers.WORTH_IT_MIN
    worth_it_at = tiers.threshold_usd(inputs, tiers.WORTH_IT_MIN)
    assert worth_it_at is not None and worth_it_at >= price


def test_quality_knots_follow_the_storefront_labels() -> None:
    # Under 70% ("Mixed") no ceiling reaches 65; 80% ("Very Positive") of a firm count does.
    assert value.stretch(0.6999) * 100 < tiers.WORTH_IT_MIN - 0.5
    assert value.stretch(value.shrunk_review_score(0.80, 1_000)) * 100 >= 72
    knots = value.QUALITY_KNOTS
    assert all(x0 < x1 and y0 <= y1 for (x0, y0), (x1, y1) in itertools.pairwise(knots))


def test_a_thin_sample_weighs_a_stronger_prior() -> None:
    # Under 1,000 reviews the prior gains THIN_REVIEWS imaginary reviews
    # (scoring/calibration/prior.py):
    # 98.4% of 693 (Trails to Azure, #17 in 5.0) counts well below 98% of 1,000.
    assert value.THIN_REVIEWS > 0
    thin = value.shrunk_review_score(0.984, 693)
    assert thin < value.shrunk_review_score(0.98, 1_000) - 0.01
    expected = (
        0.984 * 693 + value.PRIOR_REVIEW_SCORE * (40 * math.sqrt(1000 / 693) + value.THIN_REVIEWS)
    ) / (693 + 40 * math.sqrt(1000 / 693) + value.THIN_REVIEWS)
    assert thin == pytest.approx(expected)


@pytest.mark.parametrize(
    ("own", "prior", "lifted"),
    [
        pytest.param(0.80, 0.87, True, id="gta-v-enhanced-lifted-by-gta-v"),
        pytest.param(0.95, 0.80, False, id="a-better-edition-is-pulled-down"),
    ],
)
def test_an_edition_reads_its_sample_against_the_old_listing(
    own: float, prior: float, lifted: bool
) -> None:
    shrunk = value.shrunk_review_score(own, 2_000, prior)
    assert shrunk == pytest.approx((own * 2_000 + prior * 1_000) / 3_000)
    assert (shrunk > own) is lifted


def test_an_adult_game_s_fans_weigh_less() -> None:
    # 11 adult visual novels in 5.0's top 100: their reviewers opted in to see them.
    assert value.ADULT_REVIEWS > 0
    plain = value.shrunk_review_score(0.988, 3_773)
    adult = value.shrunk_review_score(0.988, 3_773, adult=True)
    assert adult < plain < 0.988
    # Doubt still never lifts a poor share.
    assert value.shrunk_review_score(0.40, 3_773, adult=True) == 0.40


def test_the_genre_norms_are_the_catalogue_s() -> None:
    # No genre's hours or price are set by hand: the model reads what `make calibrate` wrote.
    norms = orjson.loads(value.NORMS_FILE.read_bytes())
    assert {g: n["hours"] for g, n in norms["genres"].items()} == value.GENRE_NORM_HOURS
    assert {g: n["usd_per_hour"] for g, n in norms["genres"].items()} == value.GENRE_USD_PER_HOUR
    assert set(norms["review_share_quantiles"]) == {"all", *GENRES}
    assert norms["thin_reviews"] == value.THIN_REVIEWS
    assert norms["adult_reviews"] == value.ADULT_REVIEWS
    assert norms["review_score_mean"] == value.PRIOR_REVIEW_SCORE
    assert set(value.GENRE_NORM_HOURS) == set(GENRES)
