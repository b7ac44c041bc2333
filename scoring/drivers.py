"""Why a game scores what it scores, without the weights: the ``drivers`` of a detail record.

Each public input is compared with a neutral reference, every other input unchanged, and
filed under ``raises``, ``lowers`` or ``neutral`` by the direction it moves the unrounded
score (a move under :data:`NEUTRAL_POINTS` is neutral). Only directions are published, never
sizes, so the formula stays private. The vocabulary (:data:`DRIVERS`):

* ``reviews``: the game's review score against the catalog's typical one
  (:data:`TYPICAL_REVIEW_SCORE`), at the game's review count;
* ``price``: the game's price against its fair price (what its length is worth in its genre);
* ``length``: its real hours against the genre's normal length;
* ``replayability``: replay depth credited to a replayable game (raises, or absent);
* ``finish_rate``: a known finish rate (raises when the bonus counts; absent when unknown);
* ``estimated_length``: the length is estimated from playtime, so it is discounted (lowers);
* ``unattended_time``: hours that are not play do not count: an idle or clicker game's, or a
  tool's or ambient app's (lowers);
* ``recent_reviews``: the score reads the recent reviews' share, not the lifetime one (they
  differ by 10 points or more on 200 or more recent reviews: score version 6.0).

Inputs that do not apply to a game (no replay depth, unknown finish rate) are left out.
"""

from __future__ import annotations

import dataclasses
from typing import Final, Literal, get_args

from bangscore.scoring import value
from bangscore.scoring.value import ValueInputs

Driver = Literal[
    "reviews",
    "price",
    "length",
    "replayability",
    "finish_rate",
    "estimated_length",
    "unattended_time",
    "recent_reviews",
]
DRIVERS: Final[tuple[Driver, ...]] = get_args(Driver)
# Median review score of the rated catalog (CALIBRATION.md).
TYPICAL_REVIEW_SCORE: Final = 0.85
NEUTRAL_POINTS: Final = 1.0


def _effect(inputs: ValueInputs, reference: ValueInputs) -> float:
    return value.score(inputs) - value.score(reference)


def _neutral_length(inputs: ValueInputs) -> ValueInputs:
    """Return the inputs with the main story at the genre's normal length and no adjustments."""
    return dataclasses.replace(
        inputs,
        length_hours=value.norm_hours(inputs.genre),
        unattended=False,
        estimated_length=False,
        replayable=False,
        finish_rate=None,
    )


def drivers(inputs: ValueInputs) -> dict[str, list[str]]:
    """Given a game's inputs, return ``{"raises": [...], "lowers": [...], "neutral": [...]}``
    with the names of :data:`DRIVERS` that apply, each in vocabulary order."""
    effects: dict[Driver, float] = {
        "reviews": _effect(inputs, dataclasses.replace(inputs, review_score=TYPICAL_REVIEW_SCORE)),
        "price": value.score(inputs)
        - value.score(dataclasses.replace(inputs, price_usd=value.worth_usd(inputs))),
    }
    plain = dataclasses.replace(
        inputs, replayable=False, finish_rate=None, unattended=False, estimated_length=False
    )
    effects["length"] = _effect(plain, _neutral_length(plain))
    if value.replay_credit(inputs) > 0:
        effects["replayability"] = _effect(inputs, dataclasses.replace(inputs, replayable=False))
    if inputs.finish_rate is not None:
        effects["finish_rate"] = _effect(inputs, dataclasses.replace(inputs, finish_rate=None))
    if inputs.estimated_length:
        effects["estimated_length"] = _effect(
            inputs, dataclasses.replace(inputs, estimated_length=False)
        )
    if inputs.lifetime_review_score is not None:
        lifetime = dataclasses.replace(
            inputs, review_score=inputs.lifetime_review_score, lifetime_review_score=None
        )
        effects["recent_reviews"] = _effect(inputs, lifetime)
    if inputs.unattended and inputs.length_hours > value.UNATTENDED_CAP_HOURS:
        effects["unattended_time"] = _effect(inputs, dataclasses.replace(inputs, unattended=False))
    out: dict[str, list[str]] = {"raises": [], "lowers": [], "neutral": []}
    for name in DRIVERS:
        if name not in effects:
            continue
        moved = effects[name]
        if moved >= NEUTRAL_POINTS:
            out["raises"].append(name)
        elif moved <= -NEUTRAL_POINTS:
            out["lowers"].append(name)
        else:
            out["neutral"].append(name)
    return out
