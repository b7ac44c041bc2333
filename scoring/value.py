"""The bang_score: how much real game a buyer gets for the price, 0 to 100.

PRIVATE: this formula is the product's core. It never appears in a response, a page or a
public document; only the score, its public inputs and the direction each input pushes it
(:mod:`scoring.drivers`) are published (docs/API.md#the-score).

Reviews lead. The score is ``100 * quality * value``:

* **quality** in [0, 1] sets the ceiling: the review score shrunk toward the catalogue's mean
  review score by review count (a Bayesian average with :data:`PRIOR_REVIEWS` imaginary
  reviews, so a few hundred glowing reviews are not trusted like tens of thousands; never
  above the share itself, so doubt never lifts a poor game), then
  stretched piecewise linearly: 45% positive or less is 0, 70% ("Mostly Positive") is
  :data:`MIXED_QUALITY` (so a well-loved long game with mixed reviews, Helldivers 2, can reach
  ``worth_it`` at some price) and 95% or more is 1. A game can never
  score above its quality, whatever its price or length. Below the stretch a sliver of quality
  is left (:data:`SLIVER_QUALITY`), proportional to the shrunk review score: every such game
  still publishes 0, but the list puts the worst reviewed and the dearest last rather than
  ordering them by appid.
* **value** in (0, 1] only moves a game down within that ceiling, by its price against how much
  real game it holds: ``value = (F / (p + F)) ** VALUE_EXPONENT``, where ``p`` is the price
  (with a floor, so a free game counts as a cheap one and price 0 alone never makes a banger)
  and ``F`` the game's *fair price*: ``P * (h / N) ** LENGTH_EXPONENT``.
  ``h`` is the real hours of game and ``N`` what is normal for the game's genre
  (:data:`GENRE_NORM_HOURS`, never below :data:`MIN_NORM_HOURS`; derived from the catalogue
  itself by ``make calibrate``, never set by hand: :data:`NORMS_FILE`) and ``P`` what the
  genre's established games cost (:data:`GENRE_FAIR_PRICE_USD`, from the same file): a 4-hour
  narrative game is
  judged against narrative games, not against 100-hour RPGs, and a $60 RPG against what RPGs
  cost. At the genre's normal length the fair price is ``P``; twice the length is worth about
  1.4 times as much.

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
3. a replayable game (roguelike, co-op, sandbox, competitive... among its most-voted tags:
   :func:`scoring.play.earns_replay_credit`) gains replay depth: :data:`REPLAY_SHARE` of its
   positive reviewers' median playtime, capped at :data:`REPLAY_CAP_HOURS`; never a game whose
   main story (verified or estimated) is under :data:`SHORT_HOURS` (a joke or a toy is not
   replayed for hours: :func:`is_short`);
4. a known finish rate is a bonus of up to :data:`FINISH_BONUS` (everyone finishes), never a
   requirement: an unknown rate counts as no bonus, and it never raises the hours of a game
   under :data:`SHORT_HOURS` (an estimated rate must not turn minutes into an hour).

A game whose main story (HowLongToBeat, or an estimate) is under :data:`SHORT_HOURS` stays at
:data:`SHORT_MAX_SCORE` or less: a joke or toy game (Coconut Simulator, 0.2 h) is never a
banger; nor is an idle game or a tool, whose hours are not play (Cookie Clicker).

A **free** game (free to play, or a free first episode: nothing to buy) has no price to weigh:
it is judged as a game at the price floor, so its score rests on its reviews (their share and
their number: its reach) and its hours, and it stays at :data:`FREE_MAX_SCORE` or less: a free
game is never a banger by being free. Its price thresholds are None (no price is weighed).

Properties (checked by tests/scoring/test_value.py): the score never rises with price, never
falls as review score, length, replay depth or finish rate rise, has diminishing returns in
length (concave), lies in [0, 100] and never exceeds the quality ceiling. Every step is a
composition of IEEE operations that are monotone under correct rounding, so monotonicity holds
in floating point too.

Constants were calibrated on the bundled catalog; see scoring/CALIBRATION.md. The per-genre
normal lengths and the prior's mean are read from :data:`NORMS_FILE`, which ``make calibrate``
writes from the bundled data (with the same figures in CALIBRATION.md). Change any of them and
:data:`SCORE_VERSION` must change too.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

# Published in every detail record: changes whenever the model or a constant changes, so
# clients know when two scores are not comparable.
SCORE_VERSION: Final = "4.0"
# The most a free game can score: 79, so a free game is never a banger (80).
FREE_MAX_SCORE: Final = 79.0
# A game whose verified main story is under SHORT_HOURS is a joke, a toy or a sketch: no replay
# credit, no finish-rate bonus, and at most SHORT_MAX_SCORE (never a banger).
SHORT_HOURS: Final = 1.0
SHORT_MAX_SCORE: Final = 79.0

# The figures `make calibrate` derives from the bundled catalogue (bench/calibrate.py): each
# genre's normal length and the catalogue's mean review score. Read once, at import.
NORMS_FILE: Final = Path(__file__).with_name("genre_norms.json")


def _read_norms(path: Path) -> dict[str, Any]:
    """Given the norms file, return its JSON object; ValueError when it lacks a genre's hours or
    the prior's mean, so a damaged file fails at import rather than scoring with a guess."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    hours = data.get("genres")
    mean = data.get("review_score_mean")
    if not isinstance(hours, dict) or not hours or not isinstance(mean, float):
        raise ValueError(f"{path}: needs 'genres' and 'review_score_mean'")
    for genre, norm in hours.items():
        if not (
            isinstance(norm, dict) and norm.get("hours", 0) > 0 and norm.get("price_usd", 0) > 0
        ):
            raise ValueError(f"{path}: genre {genre!r} needs hours and price_usd > 0")
    return data


_NORMS: Final = _read_norms(NORMS_FILE)

# Bayesian average of the review score: PRIOR_REVIEWS imaginary reviews at the catalogue's mean
# review score (PRIOR_REVIEW_SCORE, derived). 500 is strong on purpose: a 97% of 300 reviews
# shrinks to about 88% and counts below a 95% of 30,000 (which stays at 95%); a count known
# only as a lower bound (a capped sample: "1,000+") counts as that bound, no more.
PRIOR_REVIEW_SCORE: Final[float] = float(_NORMS["review_score_mean"])
PRIOR_REVIEWS: Final = 500

# Piecewise-linear stretch of the shrunk review score to quality in [0, 1]: 0 at or below
# QUALITY_FLOOR, MIXED_QUALITY at MIXED_SHARE (Steam's "Mostly Positive" starts at 70%), 1 at
# or above QUALITY_CEILING ("Overwhelmingly Positive" is 95%). At 0.70 a long game at the price
# floor still reaches worth_it (65), as a player says of Helldivers 2 on sale.
QUALITY_FLOOR: Final = 0.45
MIXED_SHARE: Final = 0.70
MIXED_QUALITY: Final = 0.70
QUALITY_CEILING: Final = 0.95
# Quality never drops below SLIVER_QUALITY x the shrunk review score: at most 0.004, so such a
# game's score stays under 0.4 and publishes 0; it only orders the games at 0 (the unrounded
# score breaks ties of bang_score: docs/API.md#list-games).
SLIVER_QUALITY: Final = 0.004
SLIVER_OFFSET: Final = 0.01

# Every price up to PRICE_FLOOR_USD counts as PRICE_FLOOR_USD: below it, money is not what
# limits value, and a free game is judged as a cheap one.
PRICE_FLOOR_USD: Final = 10.0
# Diminishing returns of length: the fair price grows with the square root of relative length.
LENGTH_EXPONENT: Final = 0.5
# How hard price pushes within the ceiling: at the fair price value is 0.81, at twice it 0.72.
# 0.3 rather than 3.0's 0.5: with each genre's fair price now what its established games cost
# (about $15-20, not $25), a steeper exponent left an acclaimed $60 RPG of 70 hours "fair".
VALUE_EXPONENT: Final = 0.3

# Each genre's normal length and fair price: the median verified length (HowLongToBeat, or how
# long players play a multiplayer-first game) and the median list price of the genre's
# established, well-reviewed games (bench/calibrate.py: derive_norms), written by `make
# calibrate` into NORMS_FILE and CALIBRATION.md. The length is floored at MIN_NORM_HOURS so a
# genre defined by brevity does not make one hour look like plenty. Nothing here is set by hand.
GENRE_NORM_HOURS: Final[dict[str, float]] = {
    str(genre): float(norm["hours"]) for genre, norm in _NORMS["genres"].items()
}
GENRE_FAIR_PRICE_USD: Final[dict[str, float]] = {
    str(genre): float(norm["price_usd"]) for genre, norm in _NORMS["genres"].items()
}
MIN_NORM_HOURS: Final = 3.0

UNATTENDED_CAP_HOURS: Final = 2.0
# An estimated length (0.7 x the positive reviewers' median playtime, ingest.resolve.checks) counts
# as the lower quartile of the HowLongToBeat main story of games with that estimate: fitted by
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
    shrunk = shrunk_review_score(inputs.review_score, inputs.review_count)
    if shrunk <= MIXED_SHARE:
        stretched = MIXED_QUALITY * (shrunk - QUALITY_FLOOR) / (MIXED_SHARE - QUALITY_FLOOR)
    else:
        rest = (shrunk - MIXED_SHARE) / (QUALITY_CEILING - MIXED_SHARE)
        stretched = MIXED_QUALITY + (1.0 - MIXED_QUALITY) * rest
    # The sliver is above 0 even for 0% positive, so games at 0 still order by their reviews.
    sliver = SLIVER_QUALITY * (shrunk + SLIVER_OFFSET) / (1.0 + SLIVER_OFFSET)
    return min(1.0, max(sliver, stretched))


def shrunk_review_score(review_score: float, review_count: int) -> float:
    """Given a positive share (0..1) and a review count (>= 0; a lower bound counts as itself),
    return the share shrunk toward :data:`PRIOR_REVIEW_SCORE` by :data:`PRIOR_REVIEWS`
    imaginary reviews, never above the share itself (0..1): doubt lowers a glowing share, it
    never lifts a poor one (11% of 210 reviews is a bad game, not a middling one)."""
    n = review_count
    shrunk = (review_score * n + PRIOR_REVIEW_SCORE * PRIOR_REVIEWS) / (n + PRIOR_REVIEWS)
    return min(review_score, shrunk)


def is_short(inputs: ValueInputs) -> bool:
    """Given the inputs, return True when the game's main story, verified or estimated (not how
    long players play a multiplayer-first game), is under :data:`SHORT_HOURS`: a joke, a toy or
    a sketch. An estimate counts too, so that an estimated length never earns what the same
    verified one would not."""
    return not inputs.played_length and inputs.length_hours < SHORT_HOURS


def replay_credit(inputs: ValueInputs) -> float:
    """Given the inputs, return the hours of replay depth credited (0 unless replayable)."""
    if not inputs.replayable or inputs.unattended or inputs.replay_hours is None:
        return 0.0
    if is_short(inputs):
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
    if hours < SHORT_HOURS:
        return hours  # a finish-rate estimate never lifts minutes toward an hour
    return hours * (1.0 + FINISH_BONUS * (inputs.finish_rate or 0.0))


def norm_hours(genre: str) -> float:
    """Given a genre, return its normal main-story length in hours (>= MIN_NORM_HOURS)."""
    return max(GENRE_NORM_HOURS.get(genre, GENRE_NORM_HOURS["other"]), MIN_NORM_HOURS)


def fair_price(inputs: ValueInputs) -> float:
    """Given the inputs, return the game's fair price in US dollars (> 0): the price at which
    price and length balance for its genre."""
    relative: float = real_hours(inputs) / norm_hours(inputs.genre)
    return genre_fair_price(inputs.genre) * math.pow(relative, LENGTH_EXPONENT)


def genre_fair_price(genre: str) -> float:
    """Given a genre, return the fair price in US dollars (> 0) of a game of its normal length:
    what the genre's established, well-reviewed games cost (unknown genres: ``other``'s)."""
    return GENRE_FAIR_PRICE_USD.get(genre, GENRE_FAIR_PRICE_USD["other"])


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
    game, :data:`SHORT_MAX_SCORE` for a short one (:func:`is_short`) or one whose hours are
    not play (``unattended``: idle games, tools), else 100."""
    if inputs.free:
        return FREE_MAX_SCORE
    return SHORT_MAX_SCORE if is_short(inputs) or inputs.unattended else 100.0


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
    if target > ceiling(inputs):
        return None  # a joke or toy game's ceiling is below the target at every price
    q = quality(inputs)
    if q == 0:
        return None
    needed = target / (100.0 * q)
    if needed > 1:
        return None
    share = needed ** (1.0 / VALUE_EXPONENT)
    price = fair_price(inputs) * (1.0 / share - 1.0)
    return price if price >= PRICE_FLOOR_USD else None
