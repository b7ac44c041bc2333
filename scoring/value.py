"""The bang_score: how much real game a buyer gets for the price, 0 to 100.

PRIVATE: this formula is the product's core. It never appears in a response, a page or a
public document; only the score, its public inputs and the direction each input pushes it
(:mod:`scoring.drivers`) are published (docs/API.md#the-score).

Reviews lead. The score is ``100 * quality * value``:

* **quality** in [0, 1] sets the ceiling: the review score shrunk toward a prior by review
  count (a Bayesian average, so ten glowing reviews are not trusted like ten thousand), then
  stretched linearly so that 45% positive or less is 0 and 95% or more is 1. A game can never
  score above its quality, whatever its price or length. Below the stretch a sliver of quality
  is left (:data:`SLIVER_QUALITY`), proportional to the shrunk review score: every such game
  still publishes 0, but the list puts the worst reviewed and the dearest last rather than
  ordering them by appid.
* **value** in (0, 1] only moves a game down within that ceiling, by its price against how much
  real game it holds: ``value = (F / (p + F)) ** VALUE_EXPONENT``, where ``p`` is the price
  (with a floor, so a free game counts as a cheap one and price 0 alone never makes a banger)
  and ``F`` the game's *fair price*: ``FAIR_PRICE_USD * (h / N) ** LENGTH_EXPONENT``.
  ``h`` is the real hours of game and ``N`` what is normal for the game's genre
  (:data:`GENRE_NORM_HOURS`, never below :data:`MIN_NORM_HOURS`): a 4-hour narrative game is
  judged against narrative games, not against 100-hour RPGs. At the genre's normal length the
  fair price is ``FAIR_PRICE_USD``; twice the length is worth about 1.4 times as much.

Real hours ``h`` start from the main story and are adjusted in this order:

0. a multiplayer-first game's length is how long players play (its players' median playtime,
   not a campaign), counted up to :data:`PLAYED_CAP_HOURS`, with no replay depth on top;
1. unattended time does not count: an idle, clicker or incremental game, or a tool or ambient
   app (:mod:`scoring.play`), counts at most :data:`UNATTENDED_CAP_HOURS` (its hours run while
   nobody plays, or are open-ended use: an aim trainer's 308 hours are drill, not a story);
2. an estimated length (from reviewers' playtime, not HowLongToBeat) counts as what a measured
   main story is likely to be at least (:func:`estimated_hours`): :data:`ESTIMATE_SHARE` of it
   up to :data:`ESTIMATE_KNEE_NORMS` times the genre's normal length, and beyond that knee it
   grows only with the square root, so an estimate never carries a game as far as a measured
   length of the same hours;
3. a replayable game (roguelike, co-op, sandbox, competitive...) gains replay depth:
   :data:`REPLAY_SHARE` of its positive reviewers' median playtime, capped at
   :data:`REPLAY_CAP_HOURS`;
4. a known finish rate is a bonus of up to :data:`FINISH_BONUS` (everyone finishes), never a
   requirement: an unknown rate counts as no bonus.

A **free** game (free to play, or a free first episode: nothing to buy) has no price to weigh:
it is judged as a game at the price floor, so its score rests on its reviews (their share and
their number: its reach) and its hours, and it stays at :data:`FREE_MAX_SCORE` or less: a free
game is never a banger by being free. Its price thresholds are None (no price is weighed).

Properties (checked by tests/scoring/test_value.py): the score never rises with price, never
falls as review score, length, replay depth or finish rate rise, has diminishing returns in
length (concave), lies in [0, 100] and never exceeds the quality ceiling. Every step is a
composition of IEEE operations that are monotone under correct rounding, so monotonicity holds
in floating point too.

Constants were calibrated on the bundled catalog; see scoring/CALIBRATION.md. Change any of
them and :data:`SCORE_VERSION` must change too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

# Published in every detail record: changes whenever the model or a constant changes, so
# clients know when two scores are not comparable.
SCORE_VERSION: Final = "3.2"
# The most a free game can score: 79, so a free game is never a banger (80).
FREE_MAX_SCORE: Final = 79.0

# Bayesian average of the review score: PRIOR_REVIEWS imaginary reviews at PRIOR_REVIEW_SCORE.
# The prior sits below the catalog median (~0.85) on purpose: an unproven game earns trust.
PRIOR_REVIEW_SCORE: Final = 0.70
PRIOR_REVIEWS: Final = 20

# Linear stretch of the shrunk review score to quality in [0, 1]. Steam calls < 0.40
# "Mostly Negative" and >= 0.95 "Overwhelmingly Positive".
QUALITY_FLOOR: Final = 0.45
QUALITY_CEILING: Final = 0.95
# Quality never drops below SLIVER_QUALITY x the shrunk review score: at most 0.004, so such a
# game's score stays under 0.4 and publishes 0; it only orders the games at 0 (the unrounded
# score breaks ties of bang_score: docs/API.md#list-games).
SLIVER_QUALITY: Final = 0.004

# Every price up to PRICE_FLOOR_USD counts as PRICE_FLOOR_USD: below it, money is not what
# limits value, and a free game is judged as a cheap one.
PRICE_FLOOR_USD: Final = 10.0
# The fair price of a game of its genre's normal length.
FAIR_PRICE_USD: Final = 25.0
# Diminishing returns of length: the fair price grows with the square root of relative length.
LENGTH_EXPONENT: Final = 0.5
# How hard price pushes within the ceiling: at the fair price value is 0.71, at twice it 0.58.
VALUE_EXPONENT: Final = 0.5

# Median HowLongToBeat main story per genre over the rated catalog (CALIBRATION.md), floored
# at MIN_NORM_HOURS so a genre defined by brevity does not make one hour look like plenty.
# Round 4's genre rule (scoring/genres.py) moved short indie action games from indie_short to
# action and sims, sandboxes and puzzles from strategy, rpg and narrative to other: the medians
# were measured again on the bundled catalogue of 2026-07-24.
GENRE_NORM_HOURS: Final = {
    "rpg": 12.0,
    "strategy": 11.6,
    "other": 8.0,
    "action": 3.8,
    "multiplayer": 5.1,
    "roguelike": 5.3,
    "shooter": 4.4,
    "narrative": 3.0,
    "indie_short": 3.0,
}
MIN_NORM_HOURS: Final = 3.0

UNATTENDED_CAP_HOURS: Final = 2.0
# An estimated length (0.7 x the positive reviewers' median playtime, ingest.checks) counts as
# the lower quartile of the HowLongToBeat main story of games with that estimate: fitted by
# quantile regression (tau 0.25) on the 15,242 rated games that have both, in units of the
# genre's normal length N (scoring/CALIBRATION.md). Up to ESTIMATE_KNEE_NORMS x N a quarter of
# measured stories are shorter than ESTIMATE_SHARE x the estimate; past the knee the estimate
# says less and less (players idle, replay or leave the game running), and the lower quartile
# grows with the square root of the estimate. The fit holds within 3 points of 25% in every
# band from under 0.25 N to 8 N and beyond.
ESTIMATE_SHARE: Final = 0.70
ESTIMATE_KNEE_NORMS: Final = 1.8
REPLAY_SHARE: Final = 0.25
REPLAY_CAP_HOURS: Final = 100.0
# A multiplayer-first game's length is how long players play; past this many hours it counts
# no more (the same bound as replay depth: the reviewers' playtime is their total to date).
PLAYED_CAP_HOURS: Final = 100.0
FINISH_BONUS: Final = 0.3


@dataclass(frozen=True, slots=True)
class ValueInputs:
    """The inputs of one game's score.

    ``price_usd`` current price in US dollars (>= 0); ``review_score`` positive share of
    reviews (0..1); ``review_count`` number of reviews (>= 0); ``length_hours`` main-story hours
    (> 0); ``finish_rate`` share of players who finish (0..1), or None when unknown; ``genre``
    one of :data:`GENRE_NORM_HOURS` (unknown genres are judged like ``other``); ``replay_hours``
    positive reviewers' median playtime (>= 0) or None, credited only when ``replayable``;
    ``unattended`` marks idle/clicker games, tools and ambient apps (hours that are not play);
    ``estimated_length`` a length estimated from playtime; ``played_length`` a length that is
    how long players play (a multiplayer-first game); ``free`` a free game (nothing to
    buy: its score stays at :data:`FREE_MAX_SCORE` or less). Raises ValueError on any value
    outside those ranges, NaN or infinity.
    """

    price_usd: float
    review_score: float
    review_count: int
    length_hours: float
    finish_rate: float | None = None
    genre: str = "other"
    replay_hours: float | None = None
    replayable: bool = False
    unattended: bool = False
    estimated_length: bool = False
    free: bool = False
    played_length: bool = False

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
        if self.replay_hours is not None and not (
            math.isfinite(self.replay_hours) and self.replay_hours >= 0
        ):
            raise ValueError(f"replay_hours must be >= 0 or None, got {self.replay_hours!r}")


def quality(inputs: ValueInputs) -> float:
    """Given the inputs, return the quality part in [0, 1] (reviews only): the ceiling."""
    n = inputs.review_count
    shrunk = (inputs.review_score * n + PRIOR_REVIEW_SCORE * PRIOR_REVIEWS) / (n + PRIOR_REVIEWS)
    stretched = (shrunk - QUALITY_FLOOR) / (QUALITY_CEILING - QUALITY_FLOOR)
    return min(1.0, max(SLIVER_QUALITY * shrunk, stretched))


def replay_credit(inputs: ValueInputs) -> float:
    """Given the inputs, return the hours of replay depth credited (0 unless replayable)."""
    if not inputs.replayable or inputs.unattended or inputs.replay_hours is None:
        return 0.0
    return REPLAY_SHARE * min(inputs.replay_hours, REPLAY_CAP_HOURS)


def estimated_hours(hours: float, genre: str) -> float:
    """Given an estimated main story (hours, > 0) and the game's genre, return the hours it
    counts for (> 0, never more than ``hours``): :data:`ESTIMATE_SHARE` of the estimate up to
    the knee (:data:`ESTIMATE_KNEE_NORMS` x the genre's normal length), past it the same share
    of the geometric mean of the estimate and the knee."""
    knee = ESTIMATE_KNEE_NORMS * norm_hours(genre)
    if hours > knee:
        # max(): the rounded square root must not dip below the knee it starts from.
        hours = max(knee, math.sqrt(hours * knee))
    return ESTIMATE_SHARE * hours


def real_hours(inputs: ValueInputs) -> float:
    """Given the inputs, return the hours of real game (> 0), as the module docstring says."""
    hours = inputs.length_hours
    if inputs.played_length:
        hours = min(hours, PLAYED_CAP_HOURS)
    if inputs.unattended:
        hours = min(hours, UNATTENDED_CAP_HOURS)
    if inputs.estimated_length:
        hours = estimated_hours(hours, inputs.genre)
    hours += replay_credit(inputs)
    return hours * (1.0 + FINISH_BONUS * (inputs.finish_rate or 0.0))


def norm_hours(genre: str) -> float:
    """Given a genre, return its normal main-story length in hours (>= MIN_NORM_HOURS)."""
    return max(GENRE_NORM_HOURS.get(genre, GENRE_NORM_HOURS["other"]), MIN_NORM_HOURS)


def fair_price(inputs: ValueInputs) -> float:
    """Given the inputs, return the game's fair price in US dollars (> 0): the price at which
    price and length balance for its genre."""
    relative: float = real_hours(inputs) / norm_hours(inputs.genre)
    return FAIR_PRICE_USD * math.pow(relative, LENGTH_EXPONENT)


def _value_at(price: float, fair: float) -> float:
    # Written as 1 - p/(p + F) rather than F/(p + F): the latter can drop by an ulp as F grows,
    # because the rounding of the denominator can outrun the numerator.
    paid = max(price, PRICE_FLOOR_USD)
    return math.pow(1.0 - paid / (paid + fair), VALUE_EXPONENT)


def value(inputs: ValueInputs) -> float:
    """Given the inputs, return the value part in (0, 1]: price against real game."""
    return _value_at(inputs.price_usd, fair_price(inputs))


def score(inputs: ValueInputs) -> float:
    """Given the inputs, return the unrounded bang score, a float in [0, 100] (at most
    :data:`FREE_MAX_SCORE` for a free game)."""
    return score_from(quality(inputs), fair_price(inputs), inputs.price_usd, ceiling(inputs))


def ceiling(inputs: ValueInputs) -> float:
    """Given the inputs, return the most the game can score: :data:`FREE_MAX_SCORE` for a free
    game, else 100."""
    return FREE_MAX_SCORE if inputs.free else 100.0


def score_from(quality_part: float, fair: float, price_usd: float, most: float = 100.0) -> float:
    """Given a game's quality part (0..1), its fair price, a price (US dollars) and the most it
    can score (:func:`ceiling`), return the unrounded score at that price: what :func:`score`
    computes, for callers that vary only the price and so compute the others once (the game
    page's price curve)."""
    return min(most, max(0.0, 100.0 * quality_part * _value_at(price_usd, fair)))


def bang_score(inputs: ValueInputs) -> int:
    """Given the inputs, return the published bang_score: ``score`` rounded half up, 0..100."""
    return math.floor(score(inputs) + 0.5)


def price_for_score(inputs: ValueInputs, target: float) -> float | None:
    """Given the inputs and a target unrounded score in (0, 100], return the price in US
    dollars at which ``score`` equals the target, every other input unchanged.

    Since the score never rises with price, every price at or below the answer scores at least
    the target (up to float rounding: callers that need exact cents check the neighbours, as
    :func:`scoring.tiers.threshold_usd` does). Returns None when no price reaches the target:
    the quality ceiling is below it, or even the floor price leaves too little value. The answer
    is never below ``PRICE_FLOOR_USD`` because the score is flat below the floor.
    Raises ValueError for a target outside (0, 100].
    """
    if not 0 < target <= 100:
        raise ValueError(f"target must be within (0, 100], got {target!r}")
    if inputs.free:
        return None  # a free game's score weighs no price
    q = quality(inputs)
    if q == 0:
        return None
    needed = target / (100.0 * q)
    if needed > 1:
        return None
    share = needed ** (1.0 / VALUE_EXPONENT)
    price = fair_price(inputs) * (1.0 / share - 1.0)
    return price if price >= PRICE_FLOOR_USD else None
