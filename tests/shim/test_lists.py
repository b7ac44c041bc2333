"""List pages: the builder's precomputed page when the snapshot has one, composed otherwise,
and a precomputed page the store lost is an object store fault, never a silent composition."""

from __future__ import annotations

import asyncio

import orjson
import pytest

from bangscore.build.snapshot import select
from bangscore.contract.filters import Filters, list_key
from bangscore.manifest import object_key, read_body
from bangscore.shim.lists import ListPages
from bangscore.shim.source import LoadedSnapshot, SnapshotSource
from bangscore.storage import MemoryStorage, ObjectNotFound, ObjectStorage
from tests import factories


def _loaded(storage: ObjectStorage) -> tuple[ListPages, LoadedSnapshot]:
    source = SnapshotSource(storage, cache_bytes=1 << 20, poll_seconds=60)
    source.refresh()
    assert source.current is not None
    return ListPages(source), source.current


@pytest.mark.parametrize(
    "filters",
    [Filters(genres=frozenset({"rpg"})), Filters(on_sale=True)],
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
    filters = Filters(tags=frozenset({"co-op"}), year_from=2012)
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
    filters = Filters(genres=frozenset({"rpg"}))
    entry = snap.entry(list_key(filters.combo_key or "", 1))
    assert entry is not None
    storage.delete_many([object_key(entry.stored[0])])
    with pytest.raises(ObjectNotFound):
        asyncio.run(lists.page(snap, filters, 1))
