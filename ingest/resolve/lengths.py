"""How long a game lasts, resolved from observations: the length to score (a HowLongToBeat
main story, or how long players play a multiplayer-first game, or an estimate from the positive
reviewers' playtime), the layer it came from, and the share of players who finish
(:func:`finish_rate_of`). The rules themselves are :mod:`ingest.resolve.checks`';
:mod:`ingest.resolve.resolution` calls these per app.
"""

from __future__ import annotations

from typing import NamedTuple

from bangscore.ingest.resolve.checks import (
    MIN_REVIEWERS,
    Length,
    choose_length,
    finish_rate_estimate,
    played_length,
    season_length_on_free_episode,
)
from bangscore.ingest.resolve.observations import Layer, Observations, Resolved
from bangscore.ingest.resolve.prices import (
    Price,
)
from bangscore.scoring.multiplayer import multiplayer_first
from bangscore.scoring.play import is_replayable


class ReviewerPlaytime(NamedTuple):
    """Median playtime (hours, at collection) of a game's positive and negative reviewers and
    how many of each the sample holds (``reviewer_playtime`` observations)."""

    positive_hours: float | None
    negative_hours: float | None
    positive_reviewers: int
    negative_reviewers: int


class OwnerPlaytime(NamedTuple):
    """Median and mean playtime of a game's owners, in minutes (``owner_playtime``)."""

    median_minutes: float
    mean_minutes: float


def finish_rate_of(known: Observations, appid: int, hours: float) -> tuple[float, Layer] | None:
    """Estimate the share of players who play the main story's length, from owners' playtime
    (SteamSpy, the 2019 dump) or, failing that, from reviewers' playtime (2026)."""
    owners = known.get(appid, "owner_playtime")
    if owners is not None:
        owned = OwnerPlaytime(*owners.value)
        return finish_rate_estimate(owned.median_minutes, owned.mean_minutes, hours), owners.layer
    reviewers = known.get(appid, "reviewer_playtime")
    if reviewers is None:
        return None
    played = ReviewerPlaytime(*reviewers.value)
    parts = [
        (n, h)
        for n, h in (
            (played.positive_reviewers, played.positive_hours),
            (played.negative_reviewers, played.negative_hours),
        )
        if h and n
    ]
    if sum(n for n, _ in parts) < MIN_REVIEWERS:
        return None
    rate = sum(n * finish_rate_estimate(h * 60, h * 60, hours) for n, h in parts)
    return rate / sum(n for n, _ in parts), reviewers.layer


def owners_median(known: Observations, appid: int) -> Resolved | None:
    """Return the owners' median playtime in hours with its layer: the bundled dumps'
    ``owner_playtime`` median, else a live SteamSpy answer's ``median_playtime_hours``; None
    when neither is known. The one value a played length and the record's
    ``median_playtime_hours`` both take, so a record resolved again finds the same length."""
    owners = known.get(appid, "owner_playtime")
    if owners is not None:
        return Resolved(OwnerPlaytime(*owners.value).median_minutes / 60, owners.layer)
    return known.get(appid, "median_playtime_hours")


def played_app_length(
    known: Observations, appid: int, reviewer: ReviewerPlaytime | None
) -> Length | None:
    """Return a multiplayer-first app's length as how long players play
    (:func:`ingest.resolve.checks.played_length`), from its reviewers' or owners' median
    playtime."""
    found = known.get(appid, "reviewer_playtime")
    positive = (
        Resolved(reviewer.positive_hours, found.layer)
        if found is not None and reviewer is not None and reviewer.positive_hours is not None
        else None
    )
    return played_length(
        positive,
        reviewer.positive_reviewers if reviewer is not None else 0,
        owners_median(known, appid),
    )


def choose_app_length(
    known: Observations, appid: int, tags: tuple[str, ...], name: str, price: Resolved
) -> Length | None:
    """Given an app, its tags (in rank order), its name and its price, return its
    chosen length (:func:`choose_length`) or None: for a multiplayer-first game how long
    players play (:func:`played_app_length`) when anyone's playtime is known; None for a free
    first episode whose only length is its season's (:func:`season_length_on_free_episode`)."""
    found = known.value(appid, "reviewer_playtime")
    reviewer = ReviewerPlaytime(*found) if found else None
    length = choose_length(
        list(known.candidates(appid, "main_story_hours")),
        reviewer.positive_hours if reviewer else None,
        reviewer.positive_reviewers if reviewer else 0,
        replayable=is_replayable(tags),
    )
    if multiplayer_first(
        known.value(appid, "categories", ()), tags, known.value(appid, "storefront_genres", ())
    ):
        length = played_app_length(known, appid, reviewer) or length
    paid = Price(*price.value)
    free = paid.price_usd == 0 and paid.list_price_usd == 0
    if season_length_on_free_episode(name, tags, free, length):
        return None
    return length


def length_source_layer(length: Length, reviewer_found: Resolved | None) -> tuple[Layer, bool]:
    """Given the chosen length and the winning reviewers' playtime, return (the layer the length
    came from, whether it is estimated): a source's length is its own; a length with no source
    (a playtime estimate) comes from the reviewers' playtime layer."""
    if length.resolved is not None:
        return length.resolved.layer, False
    assert reviewer_found is not None  # choose_length estimates only from reviewers' playtime
    return reviewer_found.layer, True


def chosen_finish_rate(
    known: Observations, appid: int, length: Length
) -> tuple[float, Layer] | None:
    """Given an app and its chosen length, return its finish rate and layer, or None. A finish
    rate a source observed directly (the live achievements adapter) wins over one estimated
    here from playtime; an estimated length gets no estimated finish rate."""
    observed = known.get(appid, "finish_rate")
    if observed is not None:
        return observed.value, observed.layer
    if length.source == "hltb":
        return finish_rate_of(known, appid, length.hours)
    return None


def trusted_reviewers(found: Resolved | None) -> tuple[float | None, int | None]:
    """Given the winning reviewers' playtime (a :class:`ReviewerPlaytime` and its layer, or
    None), return (the positive reviewers' hours, their count) when enough reviewers back them,
    else (None, None)."""
    reviewer = ReviewerPlaytime(*found.value) if found else None
    if reviewer is None or reviewer.positive_reviewers < MIN_REVIEWERS:
        return None, None
    return reviewer.positive_hours, reviewer.positive_reviewers
