"""scoring/calibration/prior.py: the review prior's weights, as a table of the bisection and
as a check that the weights the product reads (scoring/genre_norms.json) are the least ones
the real catalogue calls for (docs/API.md#the-score: a game under 1,000 reviews is never in
the top 100)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bangscore.scoring import value
from bangscore.scoring.calibration import prior
from bangscore.scoring.pipeline import ScoredGame


@pytest.mark.parametrize(
    ("threshold", "least"),
    [
        pytest.param(0.0, 0.0, id="clear-at-no-weight"),
        pytest.param(10.0, 10.0, id="first-step"),
        pytest.param(15.0, 20.0, id="between-steps-rounds-up"),
        pytest.param(9_990.0, 9_990.0, id="last-step-below-the-most"),
        pytest.param(20_000.0, prior.MOST, id="never-clear-gives-the-most"),
    ],
)
def test_least_finds_the_first_step_that_clears(threshold: float, least: float) -> None:
    assert prior._least(lambda weight: weight >= threshold) == least


@pytest.fixture(scope="module")
def ranked(real_cache: Path) -> list[ScoredGame]:
    from tests.support.real_catalogue import cached_games

    return cached_games(real_cache)


def test_the_norms_weights_are_the_least_the_real_catalogue_calls_for(
    ranked: list[ScoredGame],
) -> None:
    # genre_norms.json is a product input written by make calibrate: it must be what the
    # derivation gives on today's dumps, not a figure left from an earlier catalogue.
    assert prior.weights(ranked) == (value.THIN_REVIEWS, value.ADULT_REVIEWS)


def test_under_the_weights_no_thin_game_reaches_the_100th_firm_game(
    ranked: list[ScoredGame],
) -> None:
    bar = prior.top_bar(ranked, value.ADULT_REVIEWS)
    assert bar > 0.0
    thin = [
        g
        for g in ranked
        if g.inputs.review_count < value.FIRM_REVIEWS and g.inputs.prior_score is None
    ]
    assert thin, "the real catalogue has games under 1,000 reviews"
    above = [
        g.record.name
        for g in thin
        if prior._score_with(g.inputs, value.THIN_REVIEWS, value.ADULT_REVIEWS) >= bar
    ]
    assert above == []
