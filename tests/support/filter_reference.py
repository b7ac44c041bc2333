"""The list filters' reference semantics, game by game in plain Python, read from the scored
games rather than from the compact index: what tests check the declared predicates over the
index (bangscore/contract/filters.py, composed by the shim and precomputed by the builder)
against."""

from __future__ import annotations

from collections.abc import Sequence

from bangscore.build.snapshot import lower_tags
from bangscore.contract.compact import cents
from bangscore.contract.filters import GENRE, MAX_PRICE, ON_SALE, TAG, YEAR_FROM, YEAR_TO, Filters
from bangscore.scoring.pipeline import ScoredGame

KNOWN = frozenset({GENRE, TAG, YEAR_FROM, YEAR_TO, ON_SALE, MAX_PRICE})


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
    )


def select(
    games: Sequence[ScoredGame], filters: Filters, adult: Sequence[bool] | None = None
) -> list[int]:
    """Given games in list order, filters and each game's adult flag (none: no adult game),
    return the positions of the matching games."""
    flags = adult if adult is not None else [False] * len(games)
    return [i for i, game in enumerate(games) if matches(filters, game, flags[i])]
