"""The snapshot builder: given a catalog, score it and yield every object of a snapshot.

Pure: no I/O. Scoring is :func:`bangscore.scoring.pipeline.score_catalog`; :func:`snapshot_objects`
yields ``StoredObject`` (key inside the snapshot, final bytes, Content-Type) for every list page
of every precomputed combination, every detail record, the compact index, the search index,
the not-rated index, the API documents and the website pages. The publisher
(:mod:`bangscore.build.publish`) is the only code that writes them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from bangscore.build.aliases import ACCLAIMED_METASCORE, build_aliases, curated_for
from bangscore.build.aside import aside
from bangscore.build.buyer import buyer_fields, genre_typicals
from bangscore.build.buyer import prices_as_of as newest_price_day
from bangscore.build.changes import answerable, change_objects
from bangscore.build.feeds import feed_objects
from bangscore.build.game_pages import (
    HTML_TYPE,
    JSON_TYPE,
    SVG_TYPE,
    GamePages,
    LaterPages,
    candidates,
    game_objects,
    is_adult,
)
from bangscore.build.openapi import openapi_document
from bangscore.build.push_state import PUSH_STATE_KEY, PushState, advance
from bangscore.build.push_state import encode as encode_push
from bangscore.build.score_history import SCORE_HISTORY_KEY, ScoreHistory, encode, extend
from bangscore.build.wire import check, dumps, list_item, rfc3339
from bangscore.contract.api import root_listing
from bangscore.contract.compact import (
    INDEX_TYPE,
    IndexColumns,
    decode_index,
    encode_index,
)
from bangscore.contract.facets import language_tags
from bangscore.contract.filters import precomputed_combos
from bangscore.contract.limits import PAGE_SIZE
from bangscore.contract.not_rated import not_rated_index, not_rated_search
from bangscore.contract.objects import (
    DATES_KEY,
    DOCS_KEY,
    FAVICON_KEY,
    HOME_ADULT_KEY,
    HOME_KEY,
    INDEX_KEY,
    NOT_RATED_KEY,
    NOT_RATED_SEARCH_KEY,
    OPENAPI_KEY,
    ROOT_KEY,
    SEARCH_KEY,
    STYLE_KEY,
    list_key,
)
from bangscore.contract.paging import render_page
from bangscore.contract.records import ListItem
from bangscore.contract.search import SearchIndex
from bangscore.contract.search_words import name_words
from bangscore.scoring.pipeline import ScoredGame
from bangscore.scoring.records import GameRecord, NotRated
from bangscore.scoring.series import once_per_series
from bangscore.site import static_pages
from bangscore.site.adult import keep_adult
from bangscore.site.better_value import better_value
from bangscore.site.render import SiteRenderer
from bangscore.storage import StoredObject

CSS_TYPE = "text/css; charset=utf-8"
HOME_TOP = 25  # games the home page lists


def lower_tags(record: GameRecord) -> frozenset[str]:
    """Given a record, return its tags lowercased, as the tag filter compares them."""
    return frozenset(t.lower() for t in record.tags)


def compact_index(
    games: Sequence[ScoredGame], items: Sequence[dict[str, Any]], prices_as_of: str | None = None
) -> dict[str, Any]:
    """Given games in list order, their list items and the catalog's ``prices_as_of``
    (RFC 3339 or None), return the compact index's values, which
    :func:`bangscore.contract.compact.encode_index` lays out for the shim.

    Columns (parallel arrays in list order): appid, genre, release year, discount, lowercase
    tags, adult flag, review count, language tags (interface or subtitles; full audio), and the
    list item itself, from which the shim composes any filter
    combination (and the better-value box with adult games); ``prices_as_of`` goes into every
    envelope the shim composes.
    """
    return {
        "prices_as_of": prices_as_of,
        "appid": [g.record.appid for g in games],
        "genre": [g.genre for g in games],
        "year": [g.record.release_year for g in games],
        "discount": [g.record.discount_percent for g in games],
        "tags": [sorted(lower_tags(g.record)) for g in games],
        "adult": [is_adult(i) for i in items],
        "review_count": [g.record.review_count for g in games],
        "language": [language_tags(g.record, audio=False) for g in games],
        "audio": [language_tags(g.record, audio=True) for g in games],
        "items": list(items),
    }


def snapshot_objects(
    games: Sequence[ScoredGame],
    *,
    site_url: str,
    base_url: str,
    not_rated: Sequence[NotRated] = (),
    prices_as_of: dt.datetime | None = None,
    created_at: dt.datetime | None = None,
    workers: int = 1,
    score_history: ScoreHistory | None = None,
    as_of: dt.date | None = None,
    snapshot_id: str = "",
    push_state: PushState | None = None,
    later: LaterPages | None = None,
) -> Iterator[StoredObject]:
    """Given scored games in list order, the known apps that are not rated, the URLs, the
    catalog's ``prices_as_of`` (UTC) and the current snapshot's score histories
    (:func:`build.score_history.read_score_history`; None: none yet), yield every object of the
    snapshot, the extended score histories among them. With ``workers`` > 1 the games' objects
    are rendered by that many forked processes (same bytes, same order). ``as_of`` is the
    snapshot's day (None: ``created_at``'s): ``GET /api/v1`` names it, the forecast starts from it.
    ``snapshot_id`` (the id it is published under) and the current snapshot's ``push_state``
    (:func:`build.push_state.read_push_state`; None: none yet) give the Atom feeds, the change
    feed's pages and the advanced push state. With ``later``, the games' pages and badges are
    not yielded: ``later`` is given what they are drawn from (:class:`LaterPages`).

    Keys are relative to the snapshot (see :mod:`bangscore.contract.filters`); bodies are final
    bytes.
    """
    # The search index needs only the games: drawn by another process meanwhile, on a core
    # the serial work below leaves idle (issue 56: about 3 s off the first answer).
    search = aside(search_bytes, games) if workers > 1 else None
    as_of_rfc = rfc3339(prices_as_of)
    as_of_day = prices_as_of.date() if prices_as_of is not None else newest_price_day(games)
    snapshot_date = as_of or (created_at.date() if created_at is not None else as_of_day)
    buyer = buyer_fields(games, as_of_day, snapshot_date)
    items = [list_item(g, site_url, b, prices_as_of) for g, b in zip(games, buyer, strict=True)]
    item_bytes = [dumps(i) for i in items]
    for item in item_bytes:
        check(ListItem, item)
    # The compact index first: the precomputed lists are selected over the very columns (and
    # so by the very predicates) the shim composes every other combination from.
    index = encode_index(compact_index(games, items, as_of_rfc), item_bytes)
    yield from list_pages(IndexColumns.of(decode_index(index)), item_bytes, as_of_rfc)
    site = SiteRenderer(site_url=site_url, base_url=base_url)
    # Only the games' pages read the better-value boxes: left to them when they come later.
    better = better_value(candidates(games, items)) if later is None else None
    typical = genre_typicals(games)
    dates = {
        "snapshot_date": snapshot_date.isoformat() if snapshot_date else None,
        "prices_as_of": as_of_day.isoformat() if as_of_day else None,
    }
    scores = ((g.record.appid, g.bang_score, g.record.price_usd) for g in games)
    # Dated by the prices' day, so a rebuild of the same catalogue adds no point.
    histories = extend(score_history or {}, scores, as_of_day or snapshot_date or dt.date.today())
    pages = GamePages(
        games,
        items,
        better,
        buyer,
        typical,
        site,
        site_url,
        prices_as_of,
        as_of_day,
        dates,
        histories,
    )
    if later is not None:
        later.take(pages)
    yield from game_objects(pages, workers, website=later is None)
    yield StoredObject(SCORE_HISTORY_KEY, encode(histories), JSON_TYPE)
    state = advance(
        push_state, items, snapshot_id=snapshot_id, created_at=created_at, as_of=snapshot_date
    )
    yield from push_objects(state, items, buyer, site_url=site_url)
    yield StoredObject(INDEX_KEY, index, INDEX_TYPE)
    unrated = not_rated_index(not_rated, unrated_aliases(not_rated))
    yield StoredObject(NOT_RATED_KEY, dumps(unrated), JSON_TYPE)
    names = not_rated_search(unrated)
    if names is not None:
        yield StoredObject(NOT_RATED_SEARCH_KEY, dumps(names), JSON_TYPE)
    yield StoredObject(SEARCH_KEY, search() if search else search_bytes(games), JSON_TYPE)
    root = root_listing(site_url, base_url, as_of_rfc, dates["snapshot_date"])
    yield StoredObject(ROOT_KEY, dumps(root), JSON_TYPE)
    openapi = openapi_document(site_url, base_url, answerable(state))
    yield StoredObject(OPENAPI_KEY, dumps(openapi), JSON_TYPE)
    yield StoredObject(DOCS_KEY, site.docs_page(openapi), HTML_TYPE)
    yield from home_pages(site, items, dates)
    yield from static_page_objects(site, dates)
    yield StoredObject(DATES_KEY, dumps(dates), JSON_TYPE)
    yield StoredObject(FAVICON_KEY, site.favicon(), SVG_TYPE)
    yield StoredObject(STYLE_KEY, site.stylesheet, CSS_TYPE)


def list_pages(
    columns: IndexColumns, item_bytes: Sequence[bytes], as_of_rfc: str | None
) -> Iterator[StoredObject]:
    """Given the compact index's columns, every list item's bytes in list order and the
    prices' as-of time (RFC 3339), yield each page of every precomputed filter combination."""
    for filters in precomputed_combos():
        key = filters.combo_key
        assert key is not None
        hits: list[int] = np.flatnonzero(filters.mask(columns)).tolist()
        for page in range(1, max(1, -(-len(hits) // PAGE_SIZE)) + 1):
            chunk = hits[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
            body = render_page([item_bytes[i] for i in chunk], page, len(hits), None, as_of_rfc)
            yield StoredObject(list_key(key, page), body, JSON_TYPE)


def home_pages(
    site: SiteRenderer, items: Sequence[dict[str, Any]], dates: Mapping[str, str | None]
) -> Iterator[StoredObject]:
    """Given the site's renderer, the list items in list order and the snapshot's dates, yield
    the home page per state of the adult toggle, like the lists: hidden (the default), shown.
    The website lists a series once, at its best part (scoring.series)."""
    adult = [is_adult(i) for i in items]
    shown = once_per_series([i for i, flag in zip(items, adult, strict=True) if not flag])
    home = site.home_page(
        shown[:HOME_TOP], len(items), dates=dates, listed=len(shown), adult_hidden=sum(adult)
    )
    yield StoredObject(HOME_KEY, home, HTML_TYPE)
    every = once_per_series(items)
    with_adult = site.home_page(every[:HOME_TOP], len(items), dates=dates, listed=len(every))
    yield StoredObject(HOME_ADULT_KEY, keep_adult(with_adult, site.root), HTML_TYPE)


def static_page_objects(
    site: SiteRenderer, dates: Mapping[str, str | None]
) -> Iterator[StoredObject]:
    """Given the site's renderer and the snapshot's dates, yield each static page of
    :data:`bangscore.site.static_pages.STATIC_PAGES` rendered, under its key."""
    for page in static_pages.STATIC_PAGES:
        yield StoredObject(page.key, static_pages.render_static(site, page, dates), HTML_TYPE)


def push_objects(
    state: PushState,
    items: Sequence[dict[str, Any]],
    buyer: Sequence[dict[str, Any]],
    *,
    site_url: str,
) -> Iterator[StoredObject]:
    """Given this snapshot's push state (:func:`build.push_state.advance`), its list items
    and buyer fields (list order) and the site URL, yield the Atom feeds, the change feed's
    pages and the state itself (docs/API.md#push)."""
    texts = {int(i["appid"]): str(b["verdict_text"]) for i, b in zip(items, buyer, strict=True)}
    yield from feed_objects(state, items, texts, site_url=site_url)
    yield from change_objects(state)
    yield StoredObject(PUSH_STATE_KEY, encode_push(state), JSON_TYPE)


def search_bytes(games: Sequence[ScoredGame]) -> bytes:
    """Given scored games, return their search index's JSON bytes (:func:`search_index`)."""
    return dumps(search_index(games).to_json())


def search_index(games: Sequence[ScoredGame]) -> SearchIndex:
    """Given scored games, return the search index over their names with the alias table
    (:mod:`build.aliases`), equally good matches ranked by review count (reach)."""
    triples = [(g.record.appid, g.bang_score, g.record.name) for g in games]
    aliases = build_aliases(
        ((g.record.appid, g.record.name, g.record.review_count) for g in games),
        (w for _, _, name in triples for w in name_words(name)),
        acclaimed=(
            g.record.appid
            for g in games
            if "review_count" in g.record.estimated
            and (g.record.metacritic or 0) >= ACCLAIMED_METASCORE
        ),
    )
    reviews = {g.record.appid: g.record.review_count for g in games}
    return SearchIndex.build(triples, aliases, reviews=reviews)


def unrated_aliases(apps: Sequence[NotRated]) -> dict[str, int]:
    """Given the known apps that are not rated, return the curated aliases naming them."""
    return curated_for(a.appid for a in apps)
