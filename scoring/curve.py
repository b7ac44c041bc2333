"""A game's score against its price, every other input fixed: what the game page's chart draws.

:func:`price_curve` computes the two price-independent parts of the score (its ceiling and
its worth) once per game; the resulting :class:`PriceCurve` is plain data, so the builder
samples it at the chart's prices and the chart is drawn from those samples without reaching
the model again.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from bangscore.scoring import value


@dataclass(frozen=True, slots=True)
class PriceCurve:
    """The unrounded score (0..100) of one game as a function of its price in US dollars:
    its ceiling (points, 0..100: its score at any price up to its worth), its worth (US dollars,
    > 0) and the most it may score (79 for a length only estimated, else 100), from
    :mod:`scoring.value`."""

    ceiling: float
    worth_usd: float
    most: float = 100.0

    def at(self, price_usd: float) -> float:
        """Given a price in US dollars (>= 0), return the unrounded score at that price."""
        return value.score_from(self.ceiling, self.worth_usd, price_usd, self.most)

    def sample(self, prices: Iterable[float]) -> dict[float, float]:
        """Given prices in US dollars, return ``{price: unrounded score}`` for each."""
        return {p: value.score_from(self.ceiling, self.worth_usd, p, self.most) for p in prices}


def price_curve(inputs: value.ValueInputs) -> PriceCurve:
    """Given a game's model inputs, return its score against price."""
    return PriceCurve(value.ceiling(inputs), value.worth_usd(inputs), value.cap(inputs))
