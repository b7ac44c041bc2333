"""The list filters' reference semantics, game by game in plain Python, read from the scored
games rather than from the compact index: what tests check the declared predicates over the
index (bangscore/contract/filters.py, composed by the shim and precomputed by the builder)
against."""

from __future__ import annotations

from collections.abc import Sequence

from bangscore.build.snapshot import lower_tags
from bangscore.contract.compact import cents
from bangscore.contract.facet_filters import AUDIO, CONTROLLER, LANGUAGE, MIN_REVIEWS, STEAM_DECK
from bangscore.contract.filters import GENRE, MAX_PRICE, ON_SALE, TAG, YEAR_FROM, YEAR_TO, Filters
from bangscore.scoring.pipeline import ScoredGame
from bangscore.scoring.records import GameRecord

KNOWN = frozenset(
    {GENRE, TAG, YEAR_FROM, YEAR_TO, ON_SALE, MAX_PRICE, STEAM_DECK, CONTROLLER}
    | {LANGUAGE, AUDIO, MIN_REVIEWS}
)


def facets_match(filters: Filters, record: GameRecord) -> bool:
    """Given filters and a record, return whether its platform facets pass the facet filters:
    a Deck rating or controller level among those asked (a silent record never), the language
    in its interface or subtitles, full audio in the audio language, at least min_reviews."""
    deck, controller = filters.get(STEAM_DECK), filters.get(CONTROLLER)
    language, audio, least = filters.get(LANGUAGE), filters.get(AUDIO), filters.get(MIN_REVIEWS)
    written = {lang.code for lang in record.languages if lang.interface or lang.subtitles}
    spoken = {lang.code for lang in record.languages if lang.audio}
    return not (
        (deck is not None and record.steam_deck not in deck)
        or (controller is not None and record.controller_support not in controller)
        or (language is not None and language not in written)
        or (audio is not None and audio not in spoken)
        or (least is not None and record.review_count < least)
    )


def matches(filters: Filters, game: ScoredGame, adult: bool = False) -> bool:
    """Given filters, a scored game and its adult flag, return whether the game is listed.
    AssertionError for a filter this reference does not know (a test adding one checks it)."""
    assert {f for f, _ in filters.chosen} <= KNOWN, "no reference for this filter"
    record = game.record
    year = record.release_year
    genres, tags = filters.get(GENRE), filters.get(TAG)
    year_from, year_to, cap = filters.get(YEAR_FROM), filters.get(YEAR_TO), filters.get(MAX_PRICE)
    return not (
        (adult and not filters.adult)
        or (genres is not None and game.genre not in genres)
        or (filters.get(ON_SALE) and not record.discount_percent > 0)
        or (cap is not None and cents(record.price_usd) > cap)
        or (year_from is not None and (year is None or year < year_from))
        or (year_to is not None and (year is None or year > year_to))
        or (tags is not None and not tags <= lower_tags(record))
        or not facets_match(filters, record)
    )


def select(
    games: Sequence[ScoredGame], filters: Filters, adult: Sequence[bool] | None = None
) -> list[int]:
    """Given games in list order, filters and each game's adult flag (none: no adult game),
    return the positions of the matching games."""
    flags = adult if adult is not None else [False] * len(games)
    return [i for i, game in enumerate(games) if matches(filters, game, flags[i])]
