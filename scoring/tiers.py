"""Tiers and price thresholds of a scored game (docs/API.md#tiers-and-thresholds).

* :func:`tier` maps a bang_score to one of :data:`TIERS`.
* :func:`threshold_usd` answers "at what price would this game reach score X?", which gives
  ``becomes_banger_at_usd`` (X = :data:`BANGER_MIN`) and ``worth_it_at_usd``
  (X = :data:`WORTH_IT_MIN`).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Final

from bangscore.scoring import value
from bangscore.scoring.value import ValueInputs

TIERS: Final = ("banger", "worth_it", "fair", "skip")

BANGER_MIN: Final = 80
WORTH_IT_MIN: Final = 65
FAIR_MIN: Final = 45


def tier(bang_score: int) -> str:
    """Given a bang_score (0..100), return the tier, one of :data:`TIERS`: ``banger`` 80-100,
    ``worth_it`` 65-79, ``fair`` 45-64, ``skip`` 0-44.

    Advice about sales lives in the verdict (:mod:`scoring.verdict`), not here: round 4
    retired the ``wait_for_sale`` tier (docs/API.md#tiers-and-thresholds).
    Raises ValueError for a bang_score outside 0..100.
    """
    if not 0 <= bang_score <= 100:
        raise ValueError(f"bang_score must be within 0..100, got {bang_score!r}")
    if bang_score >= BANGER_MIN:
        return "banger"
    if bang_score >= WORTH_IT_MIN:
        return "worth_it"
    if bang_score >= FAIR_MIN:
        return "fair"
    return "skip"


def _reaches(inputs: ValueInputs, cents: int, target: int) -> bool:
    return value.bang_score(dataclasses.replace(inputs, price_usd=cents / 100)) >= target


def threshold_usd(inputs: ValueInputs, target: int) -> float | None:
    """Given a game's inputs and a target bang_score (1..100), return the highest price in US
    dollars, in whole cents (2 decimals), at which ``bang_score`` would reach the target with
    every other input unchanged; None when no price, not even 0, reaches it, and for a free
    game (its score weighs no price).

    The answer is exact against :func:`scoring.value.bang_score`: at the returned price the
    score reaches the target, one cent more it does not. There is no price cap: the score falls
    toward 0 as the price grows, so every reachable target has a finite answer (a very long,
    well-loved game may honestly be "worth it" at several hundred dollars).

    How: the formula's closed-form inverse (:func:`scoring.value.price_for_score` at
    ``target - 0.5``, the unrounded score that rounds half up to the target) lands within a
    cent or so of the answer; the bracket around it is then checked and widened by doubling
    until it straddles the boundary, and bisected over integer cents, relying on the score
    never rising with price. Typically 4-6 score evaluations. Raises ValueError for a target
    outside 1..100.
    """
    if not 1 <= target <= 100:
        raise ValueError(f"target must be within 1..100, got {target!r}")
    if inputs.free:
        return None  # a free game's score weighs no price: no price reaches or misses a target
    if not _reaches(inputs, 0, target):
        return None
    guess = value.price_for_score(inputs, target - 0.5)
    # Float rounding can put the guess a hair off either way (or, at the very edge of
    # reachability, yield None although price 0 reaches); the search below is the truth.
    guess_cents = math.floor(guess * 100) if guess is not None else 0
    # Invariant sought: lo reaches the target, hi does not.
    step = 1
    lo = guess_cents
    while lo > 0 and not _reaches(inputs, lo, target):
        lo = max(0, guess_cents - step)
        step *= 2
    step = 1
    hi = max(lo, guess_cents) + 1
    while _reaches(inputs, hi, target):
        lo = hi
        hi = hi + step
        step *= 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if _reaches(inputs, mid, target):
            lo = mid
        else:
            hi = mid
    return round(lo / 100, 2)
