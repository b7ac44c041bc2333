"""The snapshot builder: given a catalog, score it and yield every object of a snapshot.

Pure: no I/O. :func:`score_catalog` turns records into :class:`ScoredGame` in list order;
:func:`snapshot_objects` yields ``StoredObject`` (key inside the snapshot, final bytes,
Content-Type) for every list page of every precomputed combination, every detail record, the
compact index, the search index, the API documents and the website pages. The publisher
(:mod:`build.publish`) is the only code that writes them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tqdm import tqdm

from build.api import root_listing
from build.chart import NARROW_WIDTH as NARROW_CHART
from build.chart import WIDTH as WIDE_CHART
from build.chart import price_curve_svg
from build.filters import (
    DOCS_KEY,
    FAVICON_KEY,
    HOME_KEY,
    INDEX_KEY,
    OPENAPI_KEY,
    ROOT_KEY,
    SEARCH_KEY,
    Filters,
    detail_key,
    game_page_key,
    list_key,
    precomputed_combos,
)
from build.listing import PAGE_SIZE, render_page
from build.openapi import openapi_document
from build.pages import better_in_genre
from build.search import SearchIndex
from build.site import SiteRenderer
from build.storage import StoredObject
from build.wire import RefundRanks, ScoredGame, detail_record, dumps, list_item
from ingest.records import Catalog, GameRecord
from ingest.reviews import review_percentiles
from scoring.genres import genre_for
from scoring.tiers import threshold_usd, tier
from scoring.value import ValueInputs, bang_score, score

JSON_TYPE = "application/json"
HTML_TYPE = "text/html; charset=utf-8"
SVG_TYPE = "image/svg+xml"
BANGER_AT = 80
WORTH_IT_AT = 65


class UnscorableGame(ValueError):
    """Raised when a record lacks an input the score needs (the catalog rule should prevent it)."""


def score_game(record: GameRecord) -> ScoredGame:
    """Given one catalog record, return it scored: genre, score, tier and price thresholds.

    Raises UnscorableGame when the record has no review score or no main-story length.
    """
    if record.review_score is None or record.main_story_hours is None:
        raise UnscorableGame(f"appid {record.appid}: needs reviews and a main-story length")
    inputs = ValueInputs(
        price_usd=record.price_usd,
        review_score=record.review_score,
        review_count=record.review_count,
        length_hours=record.main_story_hours,
        finish_rate=record.finish_rate,
    )
    points = bang_score(inputs)
    worth_it_at = threshold_usd(inputs, WORTH_IT_AT)
    return ScoredGame(
        record=record,
        genre=genre_for(
            record.storefront_genres,
            record.tags,
            record.main_story_hours,
            fallback_genres=record.play_length_genres,
        ),
        score=score(inputs),
        bang_score=points,
        tier=tier(points, record.price_usd, worth_it_at),
        becomes_banger_at_usd=threshold_usd(inputs, BANGER_AT),
        worth_it_at_usd=worth_it_at,
    )


def score_catalog(catalog: Catalog, *, progress: bool = False) -> list[ScoredGame]:
    """Given a catalog, return its games scored, with refund ranks, in list order.

    List order (CONTRACT.md): bang_score desc, then the unrounded score desc, then appid asc.
    """
    games = [
        score_game(rec)
        for rec in tqdm(catalog.games, desc="score", unit="game", disable=not progress)
    ]
    ranks = review_percentiles(
        [
            (g.record.appid, g.genre, g.record.reviews.depth, g.record.reviews.share)
            for g in games
            if g.record.reviews is not None and g.record.price_usd > 0
        ]
    )
    if ranks:
        games = [
            _with_ranks(g, ranks[g.record.appid]) if g.record.appid in ranks else g for g in games
        ]
    games.sort(key=lambda g: g.sort_key)
    return games


def _with_ranks(game: ScoredGame, rank: tuple[float, float, int]) -> ScoredGame:
    return dataclasses.replace(game, refund_ranks=RefundRanks(*rank))


def lower_tags(record: GameRecord) -> frozenset[str]:
    """Given a record, return its tags lowercased, as the tag filter compares them."""
    return frozenset(t.lower() for t in record.tags)


def select(games: Sequence[ScoredGame], filters: Filters) -> list[int]:
    """Given games in list order and filters, return the positions of the matching games."""
    no_tags: frozenset[str] = frozenset()
    return [
        i
        for i, g in enumerate(games)
        if filters.matches(
            g.genre,
            g.record.release_year,
            g.record.discount_percent,
            # Only a tag filter reads the tags: skip building every game's set otherwise.
            lower_tags(g.record) if filters.tags else no_tags,
        )
    ]


def compact_index(games: Sequence[ScoredGame], items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Given games in list order and their list items, return the compact index the shim loads.

    Columns (parallel arrays in list order): appid, genre, release year, discount, lowercase
    tags, and the list item itself, from which the shim composes any filter combination.
    """
    return {
        "appid": [g.record.appid for g in games],
        "genre": [g.genre for g in games],
        "year": [g.record.release_year for g in games],
        "discount": [g.record.discount_percent for g in games],
        "tags": [sorted(lower_tags(g.record)) for g in games],
        "items": list(items),
    }


def snapshot_objects(
    games: Sequence[ScoredGame],
    *,
    site_url: str,
    base_url: str,
) -> Iterator[StoredObject]:
    """Given scored games in list order and the URLs, yield every object of the snapshot.

    Keys are relative to the snapshot (see :mod:`build.filters`); bodies are final bytes.
    """
    items = [list_item(g, site_url) for g in games]
    item_bytes = [dumps(i) for i in items]
    for filters in precomputed_combos():
        key = filters.combo_key
        assert key is not None
        hits = select(games, filters)
        for page in range(1, max(1, -(-len(hits) // PAGE_SIZE)) + 1):
            chunk = hits[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
            body = render_page([item_bytes[i] for i in chunk], page, len(hits))
            yield StoredObject(list_key(key, page), body, JSON_TYPE)
    site = SiteRenderer(site_url=site_url, base_url=base_url)
    better = better_in_genre([g.genre for g in games])
    for game, above in zip(games, better, strict=True):
        detail = detail_record(game, site_url)
        yield StoredObject(detail_key(game.record.appid), dumps(detail), JSON_TYPE)
        html = site.game_page(
            detail,
            chart=price_chart(game, detail),
            better=[items[i] for i in reversed(above)],
        )
        yield StoredObject(game_page_key(game.record.appid), html, HTML_TYPE)
    yield StoredObject(INDEX_KEY, dumps(compact_index(games, items)), JSON_TYPE)
    search = SearchIndex.build((g.record.appid, g.bang_score, g.record.name) for g in games)
    yield StoredObject(SEARCH_KEY, dumps(search.to_json()), JSON_TYPE)
    yield StoredObject(ROOT_KEY, dumps(root_listing(site_url, base_url)), JSON_TYPE)
    openapi = openapi_document(site_url, base_url)
    yield StoredObject(OPENAPI_KEY, dumps(openapi), JSON_TYPE)
    yield StoredObject(DOCS_KEY, site.docs_page(openapi), HTML_TYPE)
    yield StoredObject(HOME_KEY, site.home_page(items[:25], len(games)), HTML_TYPE)
    yield StoredObject(FAVICON_KEY, site.favicon(), SVG_TYPE)


def score_at_price(game: ScoredGame) -> Callable[[float], float]:
    """Given a scored game, return a callable giving its unrounded score (0..100) at a price in
    USD, every other input as :func:`score_game` takes it. The one place the game page's chart
    meets the scoring model."""
    rec = game.record
    assert rec.review_score is not None and rec.main_story_hours is not None  # as score_game
    inputs = ValueInputs(
        price_usd=rec.price_usd,
        review_score=rec.review_score,
        review_count=rec.review_count,
        length_hours=rec.main_story_hours,
        finish_rate=rec.finish_rate,
    )
    return lambda p: score(dataclasses.replace(inputs, price_usd=p))


def price_chart(game: ScoredGame, detail: dict[str, Any]) -> str:
    """Given a scored game and its detail record, return the game page's price charts (SVG):
    one drawn for wide screens and one for phones, the page's style showing one of them."""
    score_at = score_at_price(game)
    return "\n".join(
        price_curve_svg(
            score_at,
            price_usd=detail["price_usd"],
            historical_low_usd=detail["historical_low_usd"],
            worth_it_at_usd=detail["worth_it_at_usd"],
            becomes_banger_at_usd=detail["becomes_banger_at_usd"],
            name=detail["name"],
            chart_id=chart_id,
            width=width,
        )
        for chart_id, width in (("price-chart", WIDE_CHART), ("price-chart-narrow", NARROW_CHART))
    )
