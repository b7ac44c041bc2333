"""The bang_score: how much good game a buyer gets per dollar, 0 to 100.

PRIVATE: this formula is the product's core. It never appears in a response, a page or a
public document; only the score and its public inputs are published (CONTRACT.md).

The score is the geometric mean of two parts, each in [0, 1]:

* **quality** -- the review score shrunk toward a prior by review count (a Bayesian average,
  so ten glowing reviews are not trusted like ten thousand), then stretched linearly so that
  45% positive or less is 0 and 95% or more is 1;
* **value** -- engaged hours per effective dollar, squashed as ``h / (h + H0)``. Engaged hours are
  the main-story length weighted by the finish rate; the effective price has a floor, so every
  price up to the floor counts the same (the price term saturates and a free game is not a
  banger by price alone).

``score = 100 * sqrt(quality * value)``. A geometric mean needs both parts: a cheap bad game and
an excellent overpriced one both score low.

Properties (checked by tests/scoring/test_value.py): the score never rises with price, never
falls as review score, length or finish rate rise, is concave in length (diminishing returns),
and lies in [0, 100]. Every step is a composition of IEEE operations that are monotone under
correct rounding (``+``, ``*``, ``/`` by positives, ``sqrt``, ``min``, ``max``), so the monotonicity
holds exactly in floating point, not only on paper.

Constants were calibrated on the bundled catalog; see scoring/CALIBRATION.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Bayesian average of the review score: PRIOR_REVIEWS imaginary reviews at PRIOR_REVIEW_SCORE.
# The prior sits below the catalog median (~0.83) on purpose: an unproven game earns trust.
PRIOR_REVIEW_SCORE = 0.70
PRIOR_REVIEWS = 20

# Linear stretch of the shrunk review score to quality in [0, 1]. Steam calls < 0.40
# "Mostly Negative"; below QUALITY_FLOOR a game has no quality left to sell at any price.
QUALITY_FLOOR = 0.45
QUALITY_CEILING = 0.95

# Engaged hours = length * (1 + finish_rate - NEUTRAL_FINISH_RATE): at the typical finish rate
# the weight is 1 (the stated length); a game everyone finishes counts 1.65x its length, one
# nobody finishes 0.65x. NEUTRAL_FINISH_RATE is the median of the estimated finish rates of the
# rated catalog (0.34, see CALIBRATION.md), and stands in for an unknown one, so an unknown
# rate neither rewards nor punishes.
NEUTRAL_FINISH_RATE = 0.35

# Every price up to PRICE_FLOOR_USD counts as PRICE_FLOOR_USD: below it, the money is not what
# limits value, and free games must not become bangers by price alone.
PRICE_FLOOR_USD = 5.0

# Engaged hours per dollar at which the value part is one half.
HALF_VALUE_HOURS_PER_USD = 1.0


@dataclass(frozen=True, slots=True)
class ValueInputs:
    """The public inputs of one game's score.

    ``price_usd`` current price in US dollars (>= 0); ``review_score`` positive share of
    reviews (0..1); ``review_count`` number of reviews (>= 0); ``length_hours`` main-story hours
    (> 0); ``finish_rate`` share of players who finish (0..1), or None when unknown.
    Raises ValueError on any value outside those ranges, NaN or infinity.
    """

    price_usd: float
    review_score: float
    review_count: int
    length_hours: float
    finish_rate: float | None = None

    def __post_init__(self) -> None:
        if not (math.isfinite(self.price_usd) and self.price_usd >= 0):
            raise ValueError(f"price_usd must be a finite number >= 0, got {self.price_usd!r}")
        if not (math.isfinite(self.review_score) and 0 <= self.review_score <= 1):
            raise ValueError(f"review_score must be within 0..1, got {self.review_score!r}")
        if self.review_count < 0:
            raise ValueError(f"review_count must be >= 0, got {self.review_count!r}")
        if not (math.isfinite(self.length_hours) and self.length_hours > 0):
            raise ValueError(f"length_hours must be a finite number > 0, got {self.length_hours!r}")
        if self.finish_rate is not None and not (
            math.isfinite(self.finish_rate) and 0 <= self.finish_rate <= 1
        ):
            raise ValueError(f"finish_rate must be within 0..1 or None, got {self.finish_rate!r}")


def quality(inputs: ValueInputs) -> float:
    """Given the inputs, return the quality part in [0, 1] (reviews only, no price or length)."""
    n = inputs.review_count
    shrunk = (inputs.review_score * n + PRIOR_REVIEW_SCORE * PRIOR_REVIEWS) / (n + PRIOR_REVIEWS)
    stretched = (shrunk - QUALITY_FLOOR) / (QUALITY_CEILING - QUALITY_FLOOR)
    return min(1.0, max(0.0, stretched))


def engaged_hours(inputs: ValueInputs) -> float:
    """Given the inputs, return the length weighted by finish rate, in hours (> 0)."""
    rate = NEUTRAL_FINISH_RATE if inputs.finish_rate is None else inputs.finish_rate
    return inputs.length_hours * (1.0 + rate - NEUTRAL_FINISH_RATE)


def _value_at(hours_per_usd: float) -> float:
    # Written as 1 - H0/(x + H0) rather than x/(x + H0): the latter can drop by an ulp as x
    # grows, because the rounding of the denominator can outrun the numerator.
    return 1.0 - HALF_VALUE_HOURS_PER_USD / (hours_per_usd + HALF_VALUE_HOURS_PER_USD)


def value(inputs: ValueInputs) -> float:
    """Given the inputs, return the value part in [0, 1): engaged hours per effective dollar."""
    return _value_at(engaged_hours(inputs) / max(inputs.price_usd, PRICE_FLOOR_USD))


def score(inputs: ValueInputs) -> float:
    """Given the inputs, return the unrounded bang score, a float in [0, 100]."""
    return min(100.0, max(0.0, 100.0 * math.sqrt(quality(inputs) * value(inputs))))


def bang_score(inputs: ValueInputs) -> int:
    """Given the inputs, return the published bang_score: ``score`` rounded half up, 0..100."""
    return math.floor(score(inputs) + 0.5)


def price_for_score(inputs: ValueInputs, target: float) -> float | None:
    """Given the inputs and a target unrounded score in (0, 100], return the price in US dollars
    at which ``score`` equals the target, every other input unchanged.

    Since the score never rises with price, every price at or below the answer scores at least
    the target (up to float rounding: callers that need exact cents check the neighbours, as
    :func:`scoring.tiers.threshold_usd` does). Returns None when no price reaches the target:
    the quality part is too low, or even the floor price leaves too little value. The answer
    is never below ``PRICE_FLOOR_USD`` because the score is flat below the floor.
    Raises ValueError for a target outside (0, 100].
    """
    if not 0 < target <= 100:
        raise ValueError(f"target must be within (0, 100], got {target!r}")
    q = quality(inputs)
    if q == 0:
        return None
    needed_value = (target / 100.0) ** 2 / q
    if needed_value >= 1:
        return None
    hours_per_usd = HALF_VALUE_HOURS_PER_USD * needed_value / (1.0 - needed_value)
    price = engaged_hours(inputs) / hours_per_usd
    return price if price >= PRICE_FLOOR_USD else None
