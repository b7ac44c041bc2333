"""One rated record, built from the winners of every field of an app
(:func:`ingest.resolve.resolution.assemble` screens the apps and calls :func:`rated_record` for
each one every check passed): its review count (:func:`count_reviews`), its tags in vote order
(:func:`ranked_tags`), the layer of every public input (``provenance``), its release year, its
``estimated`` marks and its ``sources``.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
from typing import NamedTuple

from bangscore.ingest.resolve.checks import Length
from bangscore.ingest.resolve.lengths import (
    chosen_finish_rate,
    length_source_layer,
    owners_median,
    trusted_reviewers,
)
from bangscore.ingest.resolve.observations import TRUST_MATCHED, Layer, Observations
from bangscore.ingest.resolve.priced import historical_low_of, history_points, layer_named
from bangscore.ingest.resolve.prices import Seen, current_price, price_history, with_low
from bangscore.ingest.resolve.reviews import recent_reviews
from bangscore.ingest.resolve.tags import TagPositions, order_tag_set, typical_positions
from bangscore.scoring.records import EarlyWindow, GameRecord, Provenance, Sources

__all__ = [
    "ReviewCount",
    "count_reviews",
    "estimated_fields",
    "ranked_tags",
    "rated_record",
    "tag_positions",
]

# Public inputs and the wire field each one's provenance is reported under.
_PUBLIC = {
    "name": "name",
    "developer": "developer",
    "publisher": "publisher",
    "price": "price_usd",
    "review_score": "review_score",
    "review_count": "review_count",
    "release_date": "release_year",
    "tags": "tags",
    "storefront_genres": "genre",
    "completionist_hours": "completionist_hours",
    "metacritic": "metacritic",
    "early_window": "early_window_reviews",
    "median_playtime_hours": "median_playtime_hours",
    "steam_deck": "steam_deck",
    "controller_support": "controller_support",
    "languages": "languages",
    "ai_content": "ai_content",
}


class ReviewCount(NamedTuple):
    """An appid's review count, the layer it came from, and whether it is only a lower bound
    (a recent sample's size, or the least count Steam's review summary implies)."""

    total: int
    layer: Layer | None
    lower_bound: bool


def count_reviews(known: Observations, appid: int) -> ReviewCount:
    """Return an appid's review count: the resolved total (a keyed full total first, the
    freshest), raised to a newer, higher count: a recent sample's full size, or a lower bound
    (``review_count_floor``: a sample that reached its cap, the least count Steam's review
    summary implies), which marks the count as a lower bound. Reviews accumulate, so such a
    count outdates an older total; a total newer than it stands (reviews can be removed)."""
    winner = known.get(appid, "review_count")
    best = ReviewCount(0, None, False)
    if winner is not None:
        best = ReviewCount(int(winner.value), winner.layer, False)
    newer_counts = [
        (c, False)
        for c in known.candidates(appid, "review_count")
        if c.layer.trust >= TRUST_MATCHED
    ]
    newer_counts += [(c, True) for c in known.candidates(appid, "review_count_floor")]
    for found, lower_bound in newer_counts:
        newer = best.layer is None or found.layer.date >= best.layer.date
        if int(found.value) > best.total and newer:
            best = ReviewCount(int(found.value), found.layer, lower_bound)
    return best


def _tags_marked(known: Observations, appid: int, mark: str) -> bool:
    """Return True when the layer of an appid's winning tags also observed ``mark`` for it:
    ``tags_unranked`` (a set without vote order) or ``tags_reconstructed`` (a previous
    record's tags, already put in typical order)."""
    winner = known.get(appid, "tags")
    return winner is not None and any(
        c.layer == winner.layer for c in known.candidates(appid, mark)
    )


def _tags_unranked(known: Observations, appid: int) -> bool:
    return _tags_marked(known, appid, "tags_unranked")


def _tag_order_estimated(known: Observations, appid: int) -> bool:
    return _tags_unranked(known, appid) or _tags_marked(known, appid, "tags_reconstructed")


def tag_positions(known: Observations) -> TagPositions:
    """Given every observation, return the typical tag positions over the apps whose winning
    tags are ranked (:func:`ingest.resolve.tags.typical_positions`)."""
    return typical_positions(
        (known.value(appid, "tags", ()), known.value(appid, "storefront_genres", ()))
        for appid in known.appids
        if not _tag_order_estimated(known, appid)
    )


def ranked_tags(known: Observations, appid: int, typical: TagPositions) -> tuple[str, ...]:
    """Return an appid's tags, most-voted first: the winning ranked tags, or an unranked set in
    typical order (:mod:`ingest.resolve.tags`)."""
    tags = tuple(known.value(appid, "tags", ()))
    if not _tags_unranked(known, appid):
        return tags
    return order_tag_set(tags, known.value(appid, "storefront_genres", ()), typical)


@functools.lru_cache(maxsize=256)
def _provenance(layer: Layer) -> Provenance:
    """Return the (frozen, shared) provenance entry of one layer."""
    return Provenance(source=layer.name, kind=layer.kind, date=layer.date)


def rated_record(
    known: Observations,
    appid: int,
    name: str,
    seen: Seen,
    length: Length,
    counted: ReviewCount,
    as_of: dt.datetime,
    tags: tuple[str, ...],
) -> GameRecord:
    """Build one rated record from the winners of every field (see
    :func:`ingest.resolve.resolution.assemble`), the price observation it is priced at
    (``seen``, held to ``as_of`` by :func:`ingest.resolve.prices.current_price`) and its tags,
    most-voted first (:func:`ranked_tags`). Raises pydantic's ValidationError when a value
    breaks the record's constraints."""
    price = current_price(seen, as_of)
    median = owners_median(known, appid)
    reviewer_found = known.get(appid, "reviewer_playtime")
    length_layer, length_estimated = length_source_layer(length, reviewer_found)
    finish = chosen_finish_rate(known, appid, length)
    observed = history_points(known, appid, seen, price.list_price_usd)
    # A sale long over still is a price the game was sold at: the whole history counts.
    low = historical_low_of(known, appid, observed, price.list_price_usd)
    released = known.value(appid, "release_date")
    year, year_layer = _release_year(known, appid, released)
    provenance = _record_layers(
        known,
        appid,
        {
            "price_usd": layer_named(known, seen.source, seen.at.date()),
            "median_playtime_hours": median.layer if median is not None else None,
            "length_hours": length_layer,
            # Whatever dump the playtime came from, a finish rate is player statistics.
            "finish_rate": dataclasses.replace(finish[1], kind="player_stats") if finish else None,
            "historical_low_usd": layer_named(known, low.source, low.at) if low else None,
            "release_year": year_layer,
            "review_count": counted.layer,
        },
    )
    window = known.value(appid, "early_window")
    up_hours, up_reviewers = trusted_reviewers(reviewer_found)
    recent = recent_reviews(reviewer_found)
    return GameRecord(
        appid=appid,
        name=name,
        developer=known.value(appid, "developer"),
        publisher=known.value(appid, "publisher"),
        price_usd=round(price.price_usd, 2),
        list_price_usd=round(price.list_price_usd, 2),
        discount_percent=int(price.discount_percent),
        price_observed_at=seen.at,
        price_history=with_low(price_history(observed), low, price.list_price_usd),
        review_score=float(known.value(appid, "review_score", 0.0)),
        review_count=counted.total,
        recent_review_score=round(recent.share, 4) if recent else None,
        recent_review_count=recent.size if recent else None,
        recent_reviews_at=recent.at if recent else None,
        release_date=released,
        release_year=year,
        storefront_genres=tuple(known.value(appid, "storefront_genres", ())),
        content_descriptors=tuple(known.value(appid, "content_descriptors", ())),
        categories=tuple(known.value(appid, "categories", ())),
        tags=tags[:20],
        play_length_genres=tuple(known.value(appid, "play_length_genres", ())),
        main_story_hours=length.hours,
        length_source=length.source,
        completionist_hours=known.value(appid, "completionist_hours"),
        finish_rate=finish[0] if finish else None,
        positive_reviewer_hours=up_hours,
        positive_reviewers=up_reviewers,
        rarest_achievement_percent=known.value(appid, "rarest_achievement_percent"),
        players_estimate=known.value(appid, "players_estimate"),
        owners_range=known.value(appid, "owners_range"),
        historical_low_usd=round(low.price_usd, 2) if low else None,
        historical_low_at=low.at if low else None,
        metacritic=known.value(appid, "metacritic"),
        steam_deck=known.value(appid, "steam_deck"),
        steam_deck_tested_at=known.value(appid, "steam_deck_tested_at"),
        controller_support=known.value(appid, "controller_support"),
        languages=tuple(known.value(appid, "languages", ())),
        ai_content=known.value(appid, "ai_content"),
        median_playtime_hours=float(median.value) if median is not None else None,
        reviews=known.value(appid, "reviews"),
        early_window=window,
        sources=_sources(provenance, window),
        provenance={wire: _provenance(layer) for wire, layer in sorted(provenance.items())},
        estimated=estimated_fields(
            length=length_estimated,
            finish_rate=finish is not None,
            historical_low=low is not None and low.estimated,
            tags=_tag_order_estimated(known, appid),
            review_count=counted.lower_bound,
        ),
        checks=tuple(length.checks),
    )


def _record_layers(
    known: Observations, appid: int, derived: dict[str, Layer | None]
) -> dict[str, Layer]:
    """Given an app and the layers of its derived values (wire field -> layer, None: no value),
    return the layer of every public input (wire field -> layer): each winner's (:data:`_PUBLIC`),
    then the derived ones, which replace a winner's layer of the same field."""
    layers: dict[str, Layer] = {}
    for field_name, wire in _PUBLIC.items():
        found = known.get(appid, field_name)
        if found is not None:
            layers[wire] = found.layer
    layers.update({wire: layer for wire, layer in derived.items() if layer is not None})
    return layers


def _release_year(
    known: Observations, appid: int, released: dt.date | None
) -> tuple[int | None, Layer | None]:
    """Given an app and its release date (or None), return (its release year or None, the layer
    to report it under when not the date's): the year it was first sold, the earliest release
    date any storefront layer holds (Early Access included: a 1.0 or a re-release moves the
    storefront's date, not the year it first sold; Hot Dogs, Horseshoes & Hand Grenades 2016,
    not 2026; a record read back says it as ``first_sold_year``), else a year only the
    play-length source knows (``play_length_release_year``) with its layer."""
    first = min(
        (
            found
            for found in known.candidates(appid, "release_date")
            if found.layer.kind == "storefront" and found.value is not None
        ),
        key=lambda found: found.value,
        default=None,
    )
    if first is not None and (released is None or first.value < released):
        return first.value.year, first.layer
    # A record read back (ingest.live.layers) keeps the year it was first sold as such.
    sold = known.get(appid, "first_sold_year")
    if released is not None and sold is not None and int(sold.value) < released.year:
        return int(sold.value), sold.layer
    if released is not None:
        return released.year, None
    other_year = known.get(appid, "play_length_release_year")
    if other_year is None:
        return None, None
    return int(other_year.value), other_year.layer


def estimated_fields(
    *, length: bool, finish_rate: bool, historical_low: bool, tags: bool, review_count: bool
) -> tuple[str, ...]:
    """Given which of a record's values are estimates, return its ``estimated`` wire names in
    their fixed order: ``length_hours`` (from reviewers' playtime), ``finish_rate`` (from
    playtime), ``historical_low_usd`` (from a deepest discount), ``tags`` (their order
    reconstructed, :mod:`ingest.resolve.tags`), ``review_count`` (a lower bound: a recent sample's
    size or the review summary's band)."""
    marks = (
        ("length_hours", length),
        ("finish_rate", finish_rate),
        ("historical_low_usd", historical_low),
        ("tags", tags),
        ("review_count", review_count),
    )
    return tuple(wire for wire, marked in marks if marked)


def _sources(provenance: dict[str, Layer], window: EarlyWindow | None) -> Sources:
    """Given the layer of every public input and the early-window reviews (or None), return the
    record's ``sources``: the oldest date per kind of source, and the day the review sample
    ends."""
    return Sources(
        **_oldest_date_per_kind(provenance),
        review_sample=window.window.to if window is not None else None,
    )


def _oldest_date_per_kind(provenance: dict[str, Layer]) -> dict[str, dt.date]:
    """Given the layer of every public input, return the oldest date per kind of source."""
    dates: dict[str, dt.date] = {}
    for layer in provenance.values():
        current = dates.get(layer.kind)
        dates[layer.kind] = layer.date if current is None else min(current, layer.date)
    return dates
