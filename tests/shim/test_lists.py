"""List pages: the builder's precomputed page when the snapshot has one, composed otherwise,
and a precomputed page the store lost is an object store fault, never a silent composition."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest

from bangscore.contract.filters import Filters
from bangscore.contract.objects import list_key
from bangscore.errors import ObjectNotFound
from bangscore.manifest import object_key, read_body
from bangscore.shim.lists import ListPages
from bangscore.shim.source import LoadedSnapshot, SnapshotSource
from bangscore.storage import MemoryStorage, ObjectStorage
from tests.support import factories
from tests.support.filter_reference import select


def _loaded(storage: ObjectStorage) -> tuple[ListPages, LoadedSnapshot]:
    source = SnapshotSource(storage, cache_bytes=1 << 20, poll_seconds=60)
    source.refresh()
    assert source.current is not None
    return ListPages(source), source.current


@pytest.mark.parametrize(
    "filters",
    [Filters.of(genre=frozenset({"rpg"})), Filters.of(on_sale=True)],
    ids=["genre", "on-sale"],
)
def test_a_precomputed_page_is_the_stored_object(filters: Filters) -> None:
    storage, _ = factories.publish_catalog(factories.small_catalog())
    lists, snap = _loaded(storage)
    key = list_key(filters.combo_key or "", 1)
    entry = snap.entry(key)
    assert entry is not None
    body, etag = asyncio.run(lists.page(snap, filters, 1))
    assert body == read_body(storage, entry)
    assert etag == snap.etag(key)
    assert (body, etag) == snap.index.page(filters, 1)  # and equal to its composition


def test_an_uncomputed_combination_is_composed_from_the_index() -> None:
    storage, games = factories.publish_catalog(factories.small_catalog())
    lists, snap = _loaded(storage)
    filters = Filters.of(tag=frozenset({"co-op"}), year_from=2012)
    assert filters.combo_key is None
    body, etag = asyncio.run(lists.page(snap, filters, 1))
    assert (body, etag) == snap.index.page(filters, 1)
    envelope = orjson.loads(body)
    assert envelope["total"] == len(select(games, filters)) > 0
    assert [g["appid"] for g in envelope["games"]] == [
        games[i].record.appid for i in select(games, filters)[: len(envelope["games"])]
    ]


def test_a_lost_precomputed_page_raises_rather_than_composing() -> None:
    storage = MemoryStorage()
    factories.publish_catalog(factories.small_catalog(), storage)
    lists, snap = _loaded(storage)
    filters = Filters.of(genre=frozenset({"rpg"}))
    entry = snap.entry(list_key(filters.combo_key or "", 1))
    assert entry is not None
    storage.delete_many([object_key(entry.stored[0])])
    with pytest.raises(ObjectNotFound):
        asyncio.run(lists.page(snap, filters, 1))


# -- max_price: the price cap on the API's list and search and the website ---------------------


@pytest.fixture
def capped(
    client_factory: Any, small_snapshot: tuple[ObjectStorage, list[Any]]
) -> tuple[Any, dict[str, str]]:
    """A client over the small catalogue (9 games at each of $0, $4.99, $9.99, $19.99 and
    $59.99) and auth headers of a free key."""
    client, store = client_factory(small_snapshot[0])
    return client, {"Authorization": f"Bearer {factories.add_key(store)}"}


@pytest.mark.parametrize(
    ("cap", "total", "highest"),
    [
        pytest.param("0", 9, 0.0, id="free only"),
        pytest.param("4.99", 18, 4.99, id="inclusive"),
        pytest.param("5", 18, 4.99, id="whole dollars"),
        pytest.param("9.98", 18, 4.99, id="a cent below"),
        pytest.param("20", 36, 19.99, id="twenty"),
        pytest.param("1000", 45, 59.99, id="the highest cap"),
    ],
)
def test_max_price_keeps_games_priced_at_most_the_cap(
    capped: Any, cap: str, total: int, highest: float
) -> None:
    client, auth = capped
    envelope = client.get(f"/api/v1/games?max_price={cap}", headers=auth).json()
    assert envelope["total"] == total
    prices = [
        g["price_usd"]
        for page in range(1, envelope["pages"] + 1)
        for g in client.get(f"/api/v1/games?max_price={cap}&page={page}", headers=auth).json()[
            "games"
        ]
    ]
    assert len(prices) == total and max(prices) == highest


def test_max_price_composes_with_other_filters_and_stays_in_every_link(capped: Any) -> None:
    client, auth = capped
    response = client.get("/api/v1/games?genre=rpg&max_price=10.00", headers=auth)
    assert response.json()["total"] == 3  # Rpg Quest 0, 1 and 2
    assert "genre=rpg&max_price=10&page=1" in response.headers["link"]
    many = client.get("/api/v1/games?max_price=9.99", headers=auth)
    assert all("max_price=9.99" in part for part in many.headers["link"].split(", "))


def test_max_price_filters_search_and_its_links(capped: Any) -> None:
    client, auth = capped
    unfiltered = client.get("/api/v1/search?q=quest", headers=auth).json()
    response = client.get("/api/v1/search?q=quest&max_price=4.99", headers=auth)
    body = response.json()
    assert (unfiltered["total"], body["total"]) == (45, 18)
    assert all(g["price_usd"] <= 4.99 for g in body["games"])
    assert "q=quest&max_price=4.99&page=2" in response.headers["link"]


def test_the_site_form_and_links_keep_max_price(capped: Any) -> None:
    client, _ = capped
    page = client.get("/games?max_price=9.99").text
    assert 'name="max_price" value="9.99"' in page
    assert "/games?max_price=9.99&amp;page=2" in page
    assert "/api/v1/games?max_price=9.99" in page
    found = client.get("/search?q=quest&max_price=5").text
    assert "/search?q=quest&amp;max_price=5&amp;page=2" in found
    home = client.get("/").text
    for cap in (5, 10, 20):
        assert f'href="/games?max_price={cap}" id="under-{cap}">Best under ${cap}</a>' in home


def test_a_bad_max_price_is_the_sites_400_with_the_form_kept(capped: Any) -> None:
    client, _ = capped
    response = client.get("/games?max_price=cheap")
    assert response.status_code == 400
    assert 'name="max_price" value="cheap"' in response.text
    assert "a price in US dollars from 0 to 1000" in response.text
