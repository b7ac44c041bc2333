"""The builder's objects: list pages per combination, details, indexes, documents, pages."""

from __future__ import annotations

import datetime as dt
from typing import Any

import orjson
import pytest
from pydantic import ValidationError

from bangscore.build import game_pages, snapshot
from bangscore.build.wire import check, detail_record, dumps, list_item, slugify
from bangscore.contract.filters import Filters, precomputed_combos
from bangscore.contract.not_rated import unpacked_search
from bangscore.contract.objects import (
    DOCS_KEY,
    INDEX_KEY,
    NOT_RATED_SEARCH_KEY,
    OPENAPI_KEY,
    ROOT_KEY,
    SEARCH_KEY,
    detail_key,
    game_page_key,
    list_key,
)
from bangscore.contract.records import GameDetail, ListItem
from bangscore.manifest import read_body, read_manifest
from bangscore.scoring.genres import GENRES
from bangscore.scoring.pipeline import score_catalog
from bangscore.scoring.records import PriceObservation
from bangscore.storage import ObjectStorage, StoredObject
from tests.support import factories
from tests.support.filter_reference import select


def body(storage: ObjectStorage, key: str) -> Any:
    entry = read_manifest(storage, "s1").entries[key]
    return orjson.loads(read_body(storage, entry))


def test_every_precomputed_combination_has_its_pages(small_snapshot: Any) -> None:
    storage, games = small_snapshot
    entries = read_manifest(storage, "s1").entries
    combos = list(precomputed_combos())
    assert len(combos) == 4 * (1 + len(GENRES))  # with and without adult games
    for filters in combos:
        hits = select(games, filters)
        pages = max(1, -(-len(hits) // 10))
        for page in range(1, pages + 1):
            assert list_key(filters.combo_key or "", page) in entries
        assert list_key(filters.combo_key or "", pages + 1) not in entries
        first = body(storage, list_key(filters.combo_key or "", 1))
        assert first["total"] == len(hits)
        assert [g["appid"] for g in first["games"]] == [games[i].record.appid for i in hits[:10]]


def test_one_detail_and_page_per_game_plus_documents(small_snapshot: Any) -> None:
    storage, games = small_snapshot
    entries = read_manifest(storage, "s1").entries
    for game in games:
        assert detail_key(game.record.appid) in entries
        assert entries[game_page_key(game.record.appid)].content_type.startswith("text/html")
    for key in (INDEX_KEY, SEARCH_KEY, ROOT_KEY, OPENAPI_KEY, DOCS_KEY):
        assert key in entries


@pytest.mark.parametrize("app", factories.NOT_RATED, ids=lambda a: a.name)
def test_the_stored_unrated_name_index_finds_each_unrated_app_by_its_name(
    small_snapshot: Any, app: Any
) -> None:
    storage, _ = small_snapshot
    stored = body(storage, NOT_RATED_SEARCH_KEY)
    assert len(stored["folded"]) == len(factories.NOT_RATED)  # every one is named
    assert unpacked_search(orjson.dumps(stored)).search(app.name)[0] == app.appid


@pytest.mark.parametrize(
    ("filters", "combo"),
    [
        (Filters(), "all"),
        (Filters.of(genre=frozenset({"rpg"})), "genre-rpg"),
        (Filters.of(on_sale=True), "on_sale"),
        (Filters.of(genre=frozenset({"rpg"}), on_sale=True), "genre-rpg+on_sale"),
        (Filters.of(genre=frozenset({"rpg", "action"})), None),
        (Filters.of(tag=frozenset({"co-op"})), None),
        (Filters.of(year_from=2010), None),
        (Filters.of(adult=False), "no_adult"),
        (
            Filters.of(genre=frozenset({"rpg"}), on_sale=True, adult=False),
            "genre-rpg+on_sale+no_adult",
        ),
        (Filters.of(tag=frozenset({"co-op"}), adult=False), None),
    ],
    ids=[
        "all",
        "genre",
        "sale",
        "genre-sale",
        "two-genres",
        "tag",
        "year",
        "no-adult",
        "genre-sale-no-adult",
        "tag-no-adult",
    ],
)
def test_combo_keys(filters: Filters, combo: str | None) -> None:
    assert filters.combo_key == combo


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Portal 2", "portal-2"),
        ("Pokémon™: Let's Go!", "pokemon-lets-go"),
        ("ファイナルファンタジー", "huainaruhuantazi"),
        ("!!!", "game"),
    ],
    ids=["plain", "accents-marks", "non-latin", "no-words"],
)
def test_slugify(name: str, slug: str) -> None:
    assert slugify(name) == slug


def test_detail_record_dates_its_price_and_carries_the_history() -> None:
    seen_at = dt.datetime(2026, 7, 3, 22, 15, 8, tzinfo=dt.UTC)
    history = (
        PriceObservation(
            date=dt.date(2025, 1, 1),
            price_usd=9.99,
            list_price_usd=19.99,
            discount_percent=50,
            source="steamspy_2025-01-01",
        ),
        PriceObservation(
            date=seen_at.date(),
            price_usd=14.99,
            list_price_usd=19.99,
            discount_percent=25,
            source="steam_prices_usd_2026-07",
            discount_end=dt.datetime(2026, 7, 10, tzinfo=dt.UTC),
        ),
    )
    record = factories.make_record(
        price_usd=19.99,
        list_price_usd=19.99,
        discount_percent=0,
        historical_low_usd=9.99,
        historical_low_at=dt.date(2025, 1, 1),
        price_history=history,
        price_observed_at=seen_at,
    )
    [game] = score_catalog([record])
    detail = detail_record(game, factories.SITE, factories.PRICES_AS_OF)
    assert {k: detail[k] for k in ("price_usd", "discount_percent", "historical_low_usd")} == {
        "price_usd": 19.99,
        "discount_percent": 0,
        "historical_low_usd": 9.99,
    }
    assert detail["historical_low_at"] == "2025-01-01"
    assert detail["prices_as_of"] == "2026-07-24T14:13:40Z"
    assert detail["price_observed_at"] == "2026-07-03T22:15:08Z"
    assert list_item(game, factories.SITE)["price_observed_at"] == "2026-07-03T22:15:08Z"
    # Oldest first, without the storefront's discount end (a detail of the source).
    assert detail["price_history"] == [
        {
            "date": "2025-01-01",
            "price_usd": 9.99,
            "list_price_usd": 19.99,
            "discount_percent": 50,
            "source": "steamspy_2025-01-01",
            "estimated": False,
        },
        {
            "date": "2026-07-03",
            "price_usd": 14.99,
            "list_price_usd": 19.99,
            "discount_percent": 25,
            "source": "steam_prices_usd_2026-07",
            "estimated": False,
        },
    ]


def test_detail_record_from_a_list_item_made_already_is_the_same_and_leaves_it() -> None:
    record = factories.make_record(price_usd=14.99, list_price_usd=19.99, discount_percent=25)
    [game] = score_catalog([record])
    item = list_item(game, factories.SITE)
    before = dict(item)
    made = detail_record(game, factories.SITE, factories.PRICES_AS_OF)
    given = detail_record(game, factories.SITE, factories.PRICES_AS_OF, item=item)
    assert orjson.dumps(given) == orjson.dumps(made)  # same fields, values and order
    assert item == before and list(item) == list(before)


def test_every_envelope_and_the_root_say_prices_as_of(small_snapshot: Any) -> None:
    storage, _ = small_snapshot
    manifest = read_manifest(storage, "s1")

    def body(key: str) -> Any:
        return orjson.loads(read_body(storage, manifest.entries[key]))

    assert body(ROOT_KEY)["prices_as_of"] == "2026-07-24T14:13:40Z"
    pages = [key for key in manifest.entries if key.startswith("lists/")]
    assert pages and {body(key)["prices_as_of"] for key in pages} == {"2026-07-24T14:13:40Z"}


@pytest.mark.parametrize(
    "workers", [pytest.param(2, id="two-processes"), pytest.param(3, id="three")]
)
def test_forked_workers_render_the_same_objects_in_the_same_order(
    workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(game_pages, "GAMES_PER_TASK", 4)  # 45 games: a dozen blocks to share
    games = score_catalog(factories.small_catalog())
    moment = dt.datetime(2026, 7, 24, 12, tzinfo=dt.UTC)

    def objects(n: int, later: game_pages.LaterPages | None = None) -> list[StoredObject]:
        return list(
            snapshot.snapshot_objects(
                games,
                site_url=factories.SITE,
                base_url=factories.SITE,
                prices_as_of=moment,
                created_at=moment,
                workers=n,
                later=later,
            )
        )

    alone, shared = objects(1), objects(workers)
    assert len(alone) > 3 * len(games)
    assert shared == alone
    # Issue 56: the games' pages and badges drawn later are the same bytes, the rest the same
    # objects in the same order.
    later = game_pages.LaterPages()
    first = objects(workers, later)
    after = list(later.objects(workers))
    assert len(after) == len(later) == 2 * len(games)
    assert {o.key for o in after} == {
        o.key for o in alone if o.key.startswith(("site/game/", "site/badge/"))
    }
    assert first == [o for o in alone if o.key not in {a.key for a in after}]
    assert sorted(first + after, key=lambda o: o.key) == sorted(alone, key=lambda o: o.key)


def test_later_pages_before_the_snapshot_is_drawn_are_refused() -> None:
    with pytest.raises(RuntimeError, match="not drawn"):
        next(game_pages.LaterPages().objects())


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        pytest.param("bang_score", 101, "less than or equal to 100", id="score-over-100"),
        pytest.param("tier", "wait_for_sale", "Input should be", id="retired-tier"),
        pytest.param("verdict", "maybe", "Input should be", id="unknown-verdict"),
    ],
)
def test_check_refuses_the_bytes_of_a_record_that_breaks_its_model(
    field: str, value: object, error: str
) -> None:
    [game] = score_catalog([factories.make_record()])
    item = list_item(game, factories.SITE)
    detail = detail_record(game, factories.SITE, factories.PRICES_AS_OF, item=item)
    for model, record in ((ListItem, item), (GameDetail, detail)):
        check(model, dumps(record))  # as written: valid
        with pytest.raises(ValidationError, match=error):
            check(model, dumps({**record, field: value}))
