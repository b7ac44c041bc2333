"""The review prior's thin-sample and adult weights (``thin_reviews`` and ``adult_reviews`` in
scoring/genre_norms.json), derived from the scored catalogue by ``make calibrate`` (score version
6.0, issue 53).

A game with fewer than :data:`scoring.value.FIRM_REVIEWS` reviews must never reach the top 100:
its prior weighs :data:`scoring.value.THIN_REVIEWS` more imaginary reviews at the catalogue's
mean share. :func:`thin_reviews` finds the least such weight (in steps of :data:`STEP`
reviews) under which every thin game scores below the 100th best game with a firm count. The
firm games' scores do not depend on it, so one scoring of the catalogue is enough. Likewise an
adult game's prior weighs :data:`scoring.value.ADULT_REVIEWS` more (its reviewers opted in to
see it): :func:`adult_reviews` finds the least weight that leaves at most :data:`ADULT_MOST`
adult games in the top 100.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from bangscore.scoring import value
from bangscore.scoring.pipeline import ScoredGame

TOP: Final = 100
ADULT_MOST: Final = 5
STEP: Final = 10.0
MOST: Final = 10_000.0


def _score_with(inputs: value.ValueInputs, thin: float, adult: float | None = None) -> float:
    """Given a game's inputs, a thin-sample weight and an adult weight (None: the model's),
    return its unrounded score under them."""
    kept = value.THIN_REVIEWS, value.ADULT_REVIEWS
    # The model reads them at call time.
    value.THIN_REVIEWS = thin  # type: ignore[misc]
    value.ADULT_REVIEWS = kept[1] if adult is None else adult  # type: ignore[misc]
    try:
        return value.score(inputs)
    finally:
        value.THIN_REVIEWS, value.ADULT_REVIEWS = kept  # type: ignore[misc]


def _least(clear: Callable[[float], bool]) -> float:
    """Given a test that holds from some weight on (monotone), return the least weight, a
    multiple of :data:`STEP` up to :data:`MOST`, that passes it (:data:`MOST` if none)."""
    if clear(0.0):
        return 0.0
    low, high = 0, int(MOST / STEP)
    while high - low > 1:
        mid = (low + high) // 2
        if clear(mid * STEP):
            high = mid
        else:
            low = mid
    return high * STEP


def top_bar(games: Sequence[ScoredGame], adult: float, top: int = TOP) -> float:
    """Given scored games and the adult weight, return the unrounded score of the ``top``-th
    best game with at least :data:`scoring.value.FIRM_REVIEWS` reviews (0.0 when there are
    fewer)."""
    firm = sorted(
        (
            _score_with(g.inputs, 0.0, adult)
            for g in games
            if g.inputs.review_count >= value.FIRM_REVIEWS
        ),
        reverse=True,
    )
    return firm[top - 1] if len(firm) >= top else 0.0


def thin_reviews(games: Sequence[ScoredGame], adult: float, top: int = TOP) -> float:
    """Given the scored catalogue and the adult weight, return the least thin-sample weight (a
    multiple of :data:`STEP`, at most :data:`MOST`) under which no game with fewer than
    :data:`scoring.value.FIRM_REVIEWS` reviews scores at or above :func:`top_bar`."""
    bar = top_bar(games, adult, top)
    thin = [
        g.inputs
        for g in games
        if g.inputs.review_count < value.FIRM_REVIEWS and g.inputs.prior_score is None
    ]
    # Only games that could reach the bar at no extra weight matter: the weight only lowers.
    near = [i for i in thin if _score_with(i, 0.0, adult) >= bar]
    return _least(lambda weight: all(_score_with(i, weight, adult) < bar for i in near))


def weights(games: Sequence[ScoredGame]) -> tuple[float, float]:
    """Given the scored catalogue, return (thin-sample weight, adult weight): each derived
    with the other, twice over, as each moves the other's bar a little."""
    thin = thin_reviews(games, 0.0)
    adult = adult_reviews(games, thin)
    thin = thin_reviews(games, adult)
    return thin, adult_reviews(games, thin)


def adult_reviews(games: Sequence[ScoredGame], thin: float, top: int = TOP) -> float:
    """Given the scored catalogue and the thin-sample weight, return the least adult weight
    (a multiple of :data:`STEP`, at most :data:`MOST`) under which at most :data:`ADULT_MOST`
    adult games are among the ``top`` best. The other games' scores do not depend on it."""
    adult = [g.inputs for g in games if g.inputs.adult and g.inputs.prior_score is None]
    others = sorted(
        (_score_with(g.inputs, thin, 0.0) for g in games if not g.inputs.adult), reverse=True
    )
    bar = others[top - ADULT_MOST - 1] if len(others) > top - ADULT_MOST else 0.0

    def clear(weight: float) -> bool:
        # At most ADULT_MOST adult games above the (top - ADULT_MOST)-th other game.
        return sum(_score_with(i, thin, weight) >= bar for i in adult) <= ADULT_MOST

    return _least(clear)
