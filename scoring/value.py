"""The bang_score: how much real game a buyer gets for the price, 0 to 100 (score_version 5.0).

PRIVATE: this formula is the product's core. It never appears in a response, a page or a
public document; only the score, its public inputs and the direction each input pushes it
(:mod:`scoring.drivers`) are published (docs/API.md#the-score).

Reviews set the ceiling and price only docks, as SteamBangers publishes its own rule
(docs/API.md#the-score). The score is ``min(cap, C * dock)``:

* the **ceiling** ``C = 100 * quality * depth * limit`` is what the game scores at any price up
  to what its real hours are worth:

  - **quality** in [0, 1]: the review score shrunk toward the catalogue's mean by review count
    (:func:`shrunk_review_score`: few reviews are not trusted like tens of thousands; never
    above the share itself), then stretched piecewise linearly through :data:`QUALITY_KNOTS`:
    57% positive or less is 0, 95% is 0.95 and 100% is 1. The knots' lower part is calibrated
    so that SteamBangers' published scores sit within a few points of ours
    (scoring/CALIBRATION.md). Below the stretch a sliver is left (:data:`SLIVER_QUALITY`) so
    the games at 0 still order by their reviews.
  - **depth** in (0, 1]: real hours against :data:`DEPTH_NORMS` times the genre's normal
    length, to the power :data:`DEPTH_EXPONENT`: a long game keeps all of its ceiling, a
    short one a little less (a length judged against a per-genre floor, as SteamBangers does).
  - **limit**: :data:`LIMITED_SHARE` (0.79) for a free game, a game under :data:`SHORT_HOURS`
    (a joke, a toy, a sketch) and one whose hours are not play (idle games, tools): such a game
    is never a banger, and the limit scales rather than clips so they still order by their
    reviews and length.

* the **dock** in (0, 1] applies only above the game's **worth**: ``worth = U * h``, the
  genre's typical price per verified hour ``U`` (:data:`GENRE_USD_PER_HOUR`, the median list
  price per hour of the genre's established games, derived by ``make calibrate``) times the
  game's real hours ``h``. At or below its worth a game scores its ceiling (being cheaper earns
  nothing); above it ``dock = (worth / price) ** DOCK_EXPONENT``.

* ``cap`` is :data:`ESTIMATED_MAX_SCORE` (79) for a length only estimated from reviewers'
  playtime (never a banger on an estimate), else 100.

Real hours ``h`` start from the main story and are adjusted in this order:

0. a multiplayer-first game's length is how long players play (its players' median playtime),
   counted up to :data:`PLAYED_CAP_HOURS`, with no replay depth on top;
1. unattended time does not count: an idle, clicker or incremental game, or a tool or ambient
   app (:mod:`scoring.play`), counts at most :data:`UNATTENDED_CAP_HOURS`;
2. an open-ended game's main story (sandbox, simulation, management, survival-craft, MMO:
   :func:`scoring.play.is_open_ended`) is play time, not content: past
   :data:`OPEN_ENDED_NORMS` times its genre's normal length the rest counts like replay depth,
   :data:`REPLAY_SHARE` of it, at most :data:`REPLAY_SHARE` x :data:`REPLAY_CAP_HOURS`;
3. an estimated length counts as what a measured main story is likely to be at least
   (:func:`estimated_hours`);
4. a replayable game gains replay depth: :data:`REPLAY_SHARE` of its positive reviewers'
   median playtime, capped at :data:`REPLAY_CAP_HOURS`; never a game under :data:`SHORT_HOURS`;
5. a known finish rate is a bonus of up to :data:`FINISH_BONUS`, never a requirement.

Properties (checked by tests/scoring/test_value.py): the score never rises with price, never
falls as review score, length, replay depth or finish rate rise, has diminishing returns in
length, lies in [0, 100] and never exceeds the ceiling. Every step is a composition of IEEE
operations that are monotone under correct rounding, so monotonicity holds in floating point
too.

The per-genre normal lengths, prices per hour and the prior's mean are read from
:data:`NORMS_FILE`, which ``make calibrate`` writes from the bundled data (the same figures are
in CALIBRATION.md). Change any constant and :data:`SCORE_VERSION` must change too.
"""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

# Published in every detail record: changes whenever the model or a constant changes, so
# clients know when two scores are not comparable.
SCORE_VERSION: Final = "6.0"
# A free game, a short one and one whose hours are not play keep this share of their ceiling:
# at most 79, never a banger (80), still ordered by their reviews and length.
LIMITED_SHARE: Final = 0.79
# A length only estimated from reviewers' playtime never makes a banger (docs/API.md#the-score).
ESTIMATED_MAX_SCORE: Final = 79.0
# A game whose main story (verified or estimated) is under SHORT_HOURS is a joke, a toy or a
# sketch: no replay credit, no finish-rate bonus, and a depth of LIMITED_SHARE (at most 79).
SHORT_HOURS: Final = 1.0

NORMS_FILE: Final = Path(__file__).with_name("genre_norms.json")


def _read_norms(path: Path) -> dict[str, Any]:
    """Given the norms file, return its JSON object; ValueError when it lacks a genre's hours,
    price per hour or the prior's mean, so a damaged file fails at import rather than scoring
    with a guess."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    genres = data.get("genres")
    mean = data.get("review_score_mean")
    if not isinstance(genres, dict) or not genres or not isinstance(mean, float):
        raise ValueError(f"{path}: needs 'genres' and 'review_score_mean'")
    for genre, norm in genres.items():
        if not (
            isinstance(norm, dict) and norm.get("hours", 0) > 0 and norm.get("usd_per_hour", 0) > 0
        ):
            raise ValueError(f"{path}: genre {genre!r} needs hours and usd_per_hour > 0")
    return data


_NORMS: Final = _read_norms(NORMS_FILE)

# Review shrinkage: a Bayesian average toward the catalogue's mean review score with
# PRIOR_REVIEWS imaginary reviews, and more below FIRM_REVIEWS (the prior grows with the square
# root of how far the count falls short): a 95% game with 1,000 or more reviews loses at most
# 2 points to doubt, while 97% of 300 still ranks below 95% of 30,000. A count known only as a
# lower bound (a capped sample: "1,000+") counts as that bound.
PRIOR_REVIEW_SCORE: Final[float] = float(_NORMS["review_score_mean"])
PRIOR_REVIEWS: Final = 40.0
FIRM_REVIEWS: Final = 1000.0
# A sample under FIRM_REVIEWS is thin evidence for the top of the list: its prior weighs this
# many more imaginary reviews, the least that keeps every such game out of the top 100 of the
# bundled catalogue (derived by ``make calibrate``: scoring/calibration/prior.py,
# scoring/CALIBRATION.md).
THIN_REVIEWS: Final[float] = float(_NORMS.get("thin_reviews", 0.0))
# An edition that superseded a listing reads its own sample against the old listing's share,
# weighed as this many reviews (ingest.resolve.unsold.inherit: the same game, sold again).
EDITION_PRIOR_REVIEWS: Final = FIRM_REVIEWS
# An adult game's reviewers opted in to see it (the storefront hides adult games by default):
# a fan's sample, its prior weighs this many more imaginary reviews, the least that leaves at
# most 5 adult games in the top 100 of the bundled catalogue (5.0 had 11;
# scoring/calibration/prior.py).
ADULT_REVIEWS: Final[float] = float(_NORMS.get("adult_reviews", 0.0))


# How kindly each genre's players review: per genre (and "all") the 1st to 99th percentiles of
# the review score of its rated games with at least 1,000 reviews (make calibrate). A game's
# review score is read as the catalogue-wide score at its percentile within its genre
# (:func:`calibrated_share`): visual novels' 97% is as common among them as 95% is among all
# games, and counts as such.
def _curve(points: list[float]) -> tuple[tuple[float, float], ...]:
    """Given a genre's percentiles (99 review scores, ascending), return the strictly
    increasing (review score, percentile) points of its distribution, 0 and 1 at the ends; a
    score repeated over several percentiles sits at their middle."""
    found: dict[float, list[float]] = {}
    for i, x in enumerate(points, start=1):
        found.setdefault(float(x), []).append(i / (len(points) + 1))
    inner = [(x, sum(ps) / len(ps)) for x, ps in sorted(found.items()) if 0.0 < x < 1.0]
    return ((0.0, 0.0), *inner, (1.0, 1.0))


REVIEW_CURVES: Final[dict[str, tuple[tuple[float, float], ...]]] = {
    str(genre): _curve(list(points)) for genre, points in _NORMS["review_share_quantiles"].items()
}
_ALL_INVERSE: Final = tuple((p, x) for x, p in REVIEW_CURVES["all"])

# The genre calibration acts only above this share, where "Very Positive" turns into the top of
# the scale and the genres' kindness shows (scoring/CALIBRATION.md); below it a share is itself.
CALIBRATED_FROM: Final = 0.90


def _interpolate(points: tuple[tuple[float, float], ...], x: float) -> float:
    """Given strictly increasing (x, y) points from (0, 0) to (1, 1) and x in [0, 1], return y
    linearly interpolated."""
    low, high = 0, len(points) - 1
    while high - low > 1:
        mid = (low + high) // 2
        if points[mid][0] <= x:
            low = mid
        else:
            high = mid
    (x0, y0), (x1, y1) = points[low], points[high]
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


def calibrated_share(review_score: float, genre: str) -> float:
    """Given a positive share (0..1) and a genre, return the share it counts as (0..1,
    non-decreasing in the share, never above it): above :data:`CALIBRATED_FROM`, the
    catalogue-wide share at the same percentile as the game's within its genre
    (:data:`REVIEW_CURVES`; unknown genres: ``other``'s), never below
    :data:`CALIBRATED_FROM`. Kind reviewers' genres come down at the top of the scale; no
    genre is lifted, and nothing changes below it."""
    if review_score <= CALIBRATED_FROM:
        return review_score
    own = REVIEW_CURVES.get(genre, REVIEW_CURVES["other"])
    percentile = _interpolate(own, review_score)
    across = _interpolate(_ALL_INVERSE, percentile)
    return min(review_score, max(across, CALIBRATED_FROM))


# The stretch of the shrunk review score to quality: (share, quality) knots, linear between.
QUALITY_KNOTS: Final[tuple[tuple[float, float], ...]] = (
    (0.57, 0.0),
    (0.70, 0.45),
    (0.80, 0.745),
    (0.90, 0.80),
    (0.95, 0.93),
    (0.98, 0.99),
    (1.00, 1.00),
)
SLIVER_QUALITY: Final = 0.004
SLIVER_OFFSET: Final = 0.01

# Depth: real hours against DEPTH_NORMS x the genre's normal length; a game of no length keeps
# LIMITED_SHARE of its quality, one of DEPTH_NORMS x the norm or more all of it.
DEPTH_NORMS: Final = 2.0
DEPTH_EXPONENT: Final = 0.5
# How hard a price above the game's worth docks it: at twice its worth 0.78 of the ceiling,
# at three times 0.68 (a 2-hour narrative game at $14.99 is fair, not skip).
DOCK_EXPONENT: Final = 0.35

GENRE_NORM_HOURS: Final[dict[str, float]] = {
    str(genre): float(norm["hours"]) for genre, norm in _NORMS["genres"].items()
}
GENRE_USD_PER_HOUR: Final[dict[str, float]] = {
    str(genre): float(norm["usd_per_hour"]) for genre, norm in _NORMS["genres"].items()
}
MIN_NORM_HOURS: Final = 3.0

UNATTENDED_CAP_HOURS: Final = 2.0
# An open-ended game's hours past OPEN_ENDED_NORMS x its genre's normal length are play, not
# content: they count like replay depth (REPLAY_SHARE of them, capped).
OPEN_ENDED_NORMS: Final = 1.5
# An estimated length (0.7 x the positive reviewers' median playtime, ingest.resolve.checks)
# counts as the lower quartile of the HowLongToBeat main story of games with that estimate
# (quantile regression, scoring/CALIBRATION.md).
ESTIMATE_SHARE: Final = 0.70
ESTIMATE_KNEE_NORMS: Final = 1.8
REPLAY_SHARE: Final = 0.25
REPLAY_CAP_HOURS: Final = 100.0
PLAYED_CAP_HOURS: Final = 100.0
FINISH_BONUS: Final = 0.3


@dataclass(frozen=True, slots=True)
class ValueInputs:
    """The inputs of one game's score.

    ``price_usd`` current price in US dollars (>= 0); ``review_score`` positive share of
    reviews (0..1); ``review_count`` number of reviews (>= 0; a lower bound counts as itself);
    ``length_hours`` main-story hours (> 0); ``finish_rate`` share of players who finish
    (0..1), or None when unknown; ``genre`` one of :data:`GENRE_NORM_HOURS` (unknown genres are
    judged like ``other``); ``replay_hours`` positive reviewers' median playtime (>= 0) or
    None, credited only when ``replayable``; ``unattended`` marks idle/clicker games, tools and
    ambient apps (hours that are not play); ``open_ended`` a sandbox, simulation, management,
    survival-craft or MMO game whose main story is play time; ``estimated_length`` a length
    estimated from playtime; ``played_length`` a length that is how long players play (a
    multiplayer-first game); ``free`` a free game (nothing to buy); ``adult`` an adult game
    (a fan's sample: :data:`ADULT_REVIEWS`); ``prior_score`` the share (0..1) of the listing an
    edition superseded, its review prior, or None; ``lifetime_review_score`` the lifetime
    share (0..1) when ``review_score`` is the recent sample's instead (drivers only), or None.
    Raises ValueError on any value outside those ranges, NaN or infinity.
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
    open_ended: bool = False
    adult: bool = False
    prior_score: float | None = None
    lifetime_review_score: float | None = None

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
        for name in ("prior_score", "lifetime_review_score"):
            share = getattr(self, name)
            if share is not None and not (math.isfinite(share) and 0 <= share <= 1):
                raise ValueError(f"{name} must be within 0..1 or None, got {share!r}")
        if self.replay_hours is not None and not (
            math.isfinite(self.replay_hours) and self.replay_hours >= 0
        ):
            raise ValueError(f"replay_hours must be >= 0 or None, got {self.replay_hours!r}")


def shrunk_review_score(
    review_score: float, review_count: int, prior_score: float | None = None, adult: bool = False
) -> float:
    """Given a positive share (0..1), a review count (>= 0; a lower bound counts as itself),
    an edition's prior share (0..1, or None) and whether the game is adult, return the share
    shrunk toward its prior (0..1).

    Without ``prior_score`` the prior is :data:`PRIOR_REVIEW_SCORE` and the result never
    exceeds the share itself: doubt lowers a glowing share, it never lifts a poor one. The
    prior weighs :data:`PRIOR_REVIEWS` reviews, times ``sqrt(FIRM_REVIEWS / n)`` plus
    :data:`THIN_REVIEWS` below :data:`FIRM_REVIEWS`, so its share of the average falls as the
    count grows; an adult game's prior weighs :data:`ADULT_REVIEWS` more. With
    ``prior_score`` (an edition of a listing it superseded) the prior is
    that share, weighed :data:`EDITION_PRIOR_REVIEWS` reviews, and may lift the sample."""
    n = float(review_count)
    if prior_score is not None:
        return (review_score * n + prior_score * EDITION_PRIOR_REVIEWS) / (
            n + EDITION_PRIOR_REVIEWS
        )
    if n <= 0:
        return min(review_score, PRIOR_REVIEW_SCORE)
    prior = PRIOR_REVIEWS + (ADULT_REVIEWS if adult else 0.0)
    if n < FIRM_REVIEWS:
        prior += PRIOR_REVIEWS * (math.sqrt(FIRM_REVIEWS / n) - 1.0) + THIN_REVIEWS
    shrunk = (review_score * n + PRIOR_REVIEW_SCORE * prior) / (n + prior)
    return min(review_score, shrunk)


def stretch(shrunk: float) -> float:
    """Given a shrunk review score (0..1), return its quality in [0, 1] along
    :data:`QUALITY_KNOTS` (linear between knots, 0 below the first, 1 above the last)."""
    (low, _), (high, top) = QUALITY_KNOTS[0], QUALITY_KNOTS[-1]
    if shrunk <= low:
        return 0.0
    if shrunk >= high:
        return top
    for (x0, y0), (x1, y1) in itertools.pairwise(QUALITY_KNOTS):
        if shrunk <= x1:
            return y0 + (y1 - y0) * (shrunk - x0) / (x1 - x0)
    return top  # pragma: no cover - the knots end at `high`


def quality(inputs: ValueInputs) -> float:
    """Given the inputs, return the quality part in [0, 1] (reviews only)."""
    share = calibrated_share(inputs.review_score, inputs.genre)
    shrunk = shrunk_review_score(share, inputs.review_count, inputs.prior_score, inputs.adult)
    # The sliver is above 0 even for 0% positive, so games at 0 still order by their reviews.
    sliver = SLIVER_QUALITY * (shrunk + SLIVER_OFFSET) / (1.0 + SLIVER_OFFSET)
    return min(1.0, max(sliver, stretch(shrunk)))


def is_short(inputs: ValueInputs) -> bool:
    """Given the inputs, return True when the game's main story, verified or estimated (not how
    long players play a multiplayer-first game), is under :data:`SHORT_HOURS`: a joke, a toy or
    a sketch."""
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


def open_ended_hours(hours: float, norm: float) -> float:
    """Given an open-ended game's main story and its genre's normal length (hours, > 0), return
    the hours that count as content (> 0, never more than ``hours``): all of them up to
    :data:`OPEN_ENDED_NORMS` x the norm, past it :data:`REPLAY_SHARE` of the rest, at most
    :data:`REPLAY_SHARE` x :data:`REPLAY_CAP_HOURS`. The norm is an argument because ``make
    calibrate`` derives the genres' prices per hour with it before any norm is written."""
    bound = OPEN_ENDED_NORMS * norm
    if hours <= bound:
        return hours
    return bound + REPLAY_SHARE * min(hours - bound, REPLAY_CAP_HOURS)


def real_hours(inputs: ValueInputs) -> float:
    """Given the inputs, return the hours of real game (> 0), as the module docstring says."""
    hours = inputs.length_hours
    if inputs.played_length:
        hours = min(hours, PLAYED_CAP_HOURS)
    if inputs.unattended:
        hours = min(hours, UNATTENDED_CAP_HOURS)
    if inputs.open_ended and not inputs.played_length:
        hours = open_ended_hours(hours, norm_hours(inputs.genre))
    if inputs.estimated_length:
        hours = estimated_hours(hours, inputs.genre)
    hours += replay_credit(inputs)
    if hours < SHORT_HOURS:
        return hours  # a finish-rate estimate never lifts minutes toward an hour
    return hours * (1.0 + FINISH_BONUS * (inputs.finish_rate or 0.0))


def norm_hours(genre: str) -> float:
    """Given a genre, return its normal main-story length in hours (>= MIN_NORM_HOURS)."""
    return max(GENRE_NORM_HOURS.get(genre, GENRE_NORM_HOURS["other"]), MIN_NORM_HOURS)


def usd_per_hour(genre: str) -> float:
    """Given a genre, return its typical list price per verified hour in US dollars (> 0):
    what the genre's established games charge (unknown genres: ``other``'s)."""
    return GENRE_USD_PER_HOUR.get(genre, GENRE_USD_PER_HOUR["other"])


def worth_usd(inputs: ValueInputs) -> float:
    """Given the inputs, return what the game's real hours are worth in its genre, in US
    dollars (> 0): the highest price at which it still scores its ceiling."""
    return usd_per_hour(inputs.genre) * real_hours(inputs)


def depth(inputs: ValueInputs) -> float:
    """Given the inputs, return the depth part in [:data:`LIMITED_SHARE`, 1]:
    ``LIMITED_SHARE + (1 - LIMITED_SHARE) * min(1, h / full) ** DEPTH_EXPONENT`` for real hours
    ``h`` and ``full`` = :data:`DEPTH_NORMS` x the genre's normal length (concave in the hours:
    each hour adds less than the one before); exactly :data:`LIMITED_SHARE` for a game under
    :data:`SHORT_HOURS` (a joke, a toy, a sketch: never a banger)."""
    if is_short(inputs):
        return LIMITED_SHARE
    full = DEPTH_NORMS * norm_hours(inputs.genre)
    reach = math.pow(min(real_hours(inputs), full) / full, DEPTH_EXPONENT)
    return LIMITED_SHARE + (1.0 - LIMITED_SHARE) * reach


def limited(inputs: ValueInputs) -> bool:
    """Given the inputs, return True for a game that keeps at most :data:`LIMITED_SHARE` of its
    quality whatever its length: free (nothing to buy) or unattended (hours that are not
    play)."""
    return inputs.free or inputs.unattended


def ceiling(inputs: ValueInputs) -> float:
    """Given the inputs, return the game's ceiling in points (0..100): its score at any price
    up to its worth, ``100 * quality * min(depth, limit)``."""
    share = min(depth(inputs), LIMITED_SHARE if limited(inputs) else 1.0)
    return 100.0 * quality(inputs) * share


def cap(inputs: ValueInputs) -> float:
    """Given the inputs, return the most the game may score: :data:`ESTIMATED_MAX_SCORE` for a
    length estimated from reviewers' playtime, else 100."""
    return ESTIMATED_MAX_SCORE if inputs.estimated_length else 100.0


def dock(price_usd: float, worth: float) -> float:
    """Given a price and the game's worth (US dollars, worth > 0), return the share of the
    ceiling kept in (0, 1]: 1 at or below the worth, ``(worth / price) ** DOCK_EXPONENT``
    above it."""
    if price_usd <= worth:
        return 1.0
    return math.pow(worth / price_usd, DOCK_EXPONENT)


def score_from(most_points: float, worth: float, price_usd: float, most: float = 100.0) -> float:
    """Given a game's ceiling (points), its worth (US dollars), a price (US dollars) and its cap
    (points), return the unrounded score at that price: what :func:`score` computes, for
    callers that vary only the price (the game page's price curve)."""
    return min(most, max(0.0, most_points * dock(price_usd, worth)))


def score(inputs: ValueInputs) -> float:
    """Given the inputs, return the unrounded bang score, a float in [0, 100] (at most 79 for a
    free, short, unattended or estimated-length game)."""
    return score_from(ceiling(inputs), worth_usd(inputs), inputs.price_usd, cap(inputs))


def bang_score(inputs: ValueInputs) -> int:
    """Given the inputs, return the published bang_score: ``score`` rounded half up, 0..100."""
    return math.floor(score(inputs) + 0.5)


def price_for_score(inputs: ValueInputs, target: float) -> float | None:
    """Given the inputs and a target unrounded score in (0, 100], return the highest price in
    US dollars at which ``score`` still reaches the target, every other input unchanged (float
    rounding aside: :func:`scoring.tiers.threshold_usd` checks the neighbouring cents).

    Returns None for a free game (no price is weighed) and when no price reaches the target
    (the ceiling or the cap is below it). Raises ValueError for a target outside (0, 100].
    """
    if not 0 < target <= 100:
        raise ValueError(f"target must be within (0, 100], got {target!r}")
    if inputs.free:
        return None
    top = ceiling(inputs)
    if target > min(top, cap(inputs)):
        return None
    return worth_usd(inputs) * math.pow(top / target, 1.0 / DOCK_EXPONENT)
