"""The list filters' reference semantics, game by game in plain Python, read from the scored
games rather than from the compact index: what tests check the declared predicates over the
index (bangscore/contract/filters.py, composed by the shim and precomputed by the builder)
against."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bangscore.build.snapshot import lower_tags
from bangscore.contract.compact import cents
from bangscore.contract.facet_filters import AUDIO, CONTROLLER, LANGUAGE, MIN_REVIEWS, STEAM_DECK
from bangscore.contract.filters import GENRE, MAX_PRICE, ON_SALE, TAG, YEAR_FROM, YEAR_TO, Filters
from bangscore.scoring.pipeline import ScoredGame

KNOWN = frozenset(
    {GENRE, TAG, YEAR_FROM, YEAR_TO, ON_SALE, MAX_PRICE, STEAM_DECK, CONTROLLER}
    | {LANGUAGE, AUDIO, MIN_REVIEWS}
)


def matcher(filters: Filters) -> Callable[[ScoredGame, bool], bool]:
    """Given filters, return the predicate (a scored game, its adult flag) -> whether the game
    is listed: an adult game only where adult games are asked for; the genre among those
    asked, on sale, at most max_price, released within the years, every tag asked; a Deck
    rating or controller level among those asked (a silent record never), the language in its
    interface or subtitles, full audio in the audio language, at least min_reviews. The
    filters are read once, not once a game (1.3M games a run of every precomputed list).
    AssertionError for a filter this reference does not know (a test adding one checks it)."""
    assert {f for f, _ in filters.chosen} <= KNOWN, "no reference for this filter"
    genres, tags, on_sale = filters.get(GENRE), filters.get(TAG), filters.get(ON_SALE)
    year_from, year_to, cap = filters.get(YEAR_FROM), filters.get(YEAR_TO), filters.get(MAX_PRICE)
    deck, controller = filters.get(STEAM_DECK), filters.get(CONTROLLER)
    language, audio, least = filters.get(LANGUAGE), filters.get(AUDIO), filters.get(MIN_REVIEWS)

    def match(game: ScoredGame, adult: bool) -> bool:
        record = game.record
        year = record.release_year
        return not (
            (adult and not filters.adult)
            or (genres is not None and game.genre not in genres)
            or (on_sale and not record.discount_percent > 0)
            or (cap is not None and cents(record.price_usd) > cap)
            or (year_from is not None and (year is None or year < year_from))
            or (year_to is not None and (year is None or year > year_to))
            or (tags is not None and not tags <= lower_tags(record))
            or (deck is not None and record.steam_deck not in deck)
            or (controller is not None and record.controller_support not in controller)
            or (
                language is not None
                and not any(
                    lang.code == language and (lang.interface or lang.subtitles)
                    for lang in record.languages
                )
            )
            or (
                audio is not None
                and not any(lang.code == audio and lang.audio for lang in record.languages)
            )
            or (least is not None and record.review_count < least)
        )

    return match


def select(
    games: Sequence[ScoredGame], filters: Filters, adult: Sequence[bool] | None = None
) -> list[int]:
    """Given games in list order, filters and each game's adult flag (none: no adult game),
    return the positions of the matching games (:func:`matcher`)."""
    flags = adult if adult is not None else [False] * len(games)
    match = matcher(filters)
    return [i for i, game in enumerate(games) if match(game, flags[i])]
