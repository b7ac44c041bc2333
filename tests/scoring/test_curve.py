"""A game's score against its price: the model at today's price, never rising with price, and
crossing the worth-it line at the published threshold."""

from __future__ import annotations

from bangscore.scoring.curve import price_curve
from bangscore.scoring.pipeline import ScoredGame
from bangscore.storage import ObjectStorage


def test_curve_is_the_model_at_todays_price_and_never_rises(
    small_snapshot: tuple[ObjectStorage, list[ScoredGame]],
) -> None:
    for game in small_snapshot[1]:
        curve = price_curve(game.inputs)
        assert curve == game.curve
        assert curve.at(game.record.price_usd) == game.score
        prices = [p / 4 for p in range(0, 400)]
        sampled = curve.sample(prices)
        assert list(sampled) == prices
        scores = list(sampled.values())
        assert scores == sorted(scores, reverse=True)
        if game.worth_it_at_usd is not None:
            at = curve.at
            assert round(at(game.worth_it_at_usd)) >= 65 > round(at(game.worth_it_at_usd + 0.01))
