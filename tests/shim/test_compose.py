"""Composed pages equal the builder's precomputed pages, byte for byte, on the real catalog."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bangscore.build.snapshot import lower_tags
from bangscore.contract.compact import cents
from bangscore.contract.filters import Filters, precomputed_combos
from bangscore.contract.objects import list_key
from bangscore.manifest import etag_for, read_body
from bangscore.scoring.genres import GENRES
from bangscore.shim.compose import CompactIndex
from bangscore.shim.source import LoadedSnapshot, SnapshotSource
from bangscore.site.better_value import Candidate, better_value_of
from tests.support import factories
from tests.support.filter_reference import select


@pytest.fixture(scope="module")
def loaded(real_snapshot: Any) -> LoadedSnapshot:
    source = SnapshotSource(real_snapshot[0], cache_bytes=1 << 30, poll_seconds=60)
    source.refresh()
    assert source.current is not None
    return source.current


def test_every_precomputed_page_equals_its_composed_page(
    loaded: LoadedSnapshot, real_snapshot: Any
) -> None:
    storage = real_snapshot[0]
    pages = 0
    for filters in precomputed_combos():
        for page in itertools.count(1):
            entry = loaded.entry(list_key(filters.combo_key or "", page))
            if entry is None:
                break
            stored = read_body(storage, entry)
            composed, etag = loaded.index.page(filters, page)
            assert composed == stored, (filters, page)
            assert etag == loaded.etag(list_key(filters.combo_key or "", page))
            pages += 1
    adult = [bool(a) for a in loaded.index.adult]
    expected = sum(
        max(1, -(-len(select(real_snapshot[1], f, adult)) // 10)) for f in precomputed_combos()
    )
    assert any(adult)  # the real catalogue has adult games: the no_adult pages differ
    assert pages == expected > 3000


tags = st.sampled_from(
    [
        "indie",
        "co-op",
        "rpg",
        "action",
        "singleplayer",
        "strategy",
        "fps",
        "story rich",
        "puzzle",
        "nosuchtag",
    ]
)


# Each example filters the real games with the pure-Python reference (tests/support/
# filter_reference.py, read from the scored games, not the index): 150 draws took 106 s under
# coverage; 30 still draw genres, tags, years, sale and adult in many combinations.
@settings(max_examples=30)  # no deadline: the profile in tests/conftest.py
@given(
    genres=st.frozensets(st.sampled_from(GENRES), max_size=3),
    tag_set=st.frozensets(tags, max_size=2),
    year_from=st.none() | st.integers(1995, 2024),
    span=st.none() | st.integers(0, 10),
    on_sale=st.booleans(),
    adult=st.booleans(),
)
def test_vectorised_filter_agrees_with_the_reference(
    loaded: LoadedSnapshot,
    real_snapshot: Any,
    genres: frozenset[str],
    tag_set: frozenset[str],
    year_from: int | None,
    span: int | None,
    on_sale: bool,
    adult: bool,
) -> None:
    year_to = None if span is None else (year_from or 2010) + span
    filters = Filters.of(
        genre=genres,
        tag=tag_set,
        year_from=year_from,
        year_to=year_to,
        on_sale=on_sale,
        adult=adult,
    )
    expected = select(real_snapshot[1], filters, [bool(a) for a in loaded.index.adult])
    assert np.array_equal(loaded.index.select(filters), np.array(expected, dtype=np.int64))
    body, etag = loaded.index.page(filters, 1)
    assert etag == etag_for(body)


def test_real_catalog_spot_values(real_snapshot: Any) -> None:
    games = {g.record.appid: g for g in real_snapshot[1]}
    assert len(games) > 25_000
    hades = games[1145360].record
    # SteamSpy 2025-01-01's winter-sale price is long over: published at its list price.
    assert (hades.price_usd, hades.list_price_usd, hades.discount_percent) == (24.99, 24.99, 0)
    assert "co-op" in lower_tags(games[620].record)


def test_old_snapshots_are_freed_after_a_switch() -> None:
    import gc
    import weakref

    from bangscore.storage import MemoryStorage

    storage = MemoryStorage()
    source = SnapshotSource(storage, cache_bytes=1 << 20, poll_seconds=3600)
    served: list[weakref.ref[object]] = []
    for n in range(4):
        records = [
            r.model_copy(update={"name": f"{r.name} v{n}"}) for r in factories.small_catalog()
        ]
        factories.publish_catalog(records, storage, snapshot_id=f"s{n}")
        assert source.refresh()
        snap = source.current
        assert snap is not None
        snap.search_page("quest", 1)
        snap.index.page(Filters.of(genre=frozenset({"rpg"}), on_sale=True), 1)
        snap.search.search("qest")  # the typo pass caches truncated vocabularies
        served += [weakref.ref(snap), weakref.ref(snap.index), weakref.ref(snap.search)]
        del snap
    gc.collect()
    alive = [ref() is not None for ref in served]
    assert alive == [False] * 9 + [True] * 3  # only the current snapshot is still held


def test_following_the_pointer_switches_and_then_warms_once_per_switch() -> None:
    import asyncio

    from bangscore.storage import MemoryStorage

    storage = MemoryStorage()
    factories.publish_catalog(factories.small_catalog(), storage, snapshot_id="s1")
    source = SnapshotSource(storage, cache_bytes=1 << 20, poll_seconds=0.01)
    assert source.refresh()
    warmed: list[str] = []

    async def main() -> None:
        switched = asyncio.Event()

        async def on_switch() -> None:
            assert source.current is not None
            warmed.append(source.current.id)
            switched.set()

        task = asyncio.create_task(source.follow(on_switch=on_switch))
        factories.publish_catalog(factories.small_catalog(), storage, snapshot_id="s2")
        await asyncio.wait_for(switched.wait(), timeout=10)
        task.cancel()

    asyncio.run(main())
    assert warmed == ["s2"]


def synthetic_index(rows: list[tuple[str, int, float, bool]]) -> CompactIndex:
    """Given (genre, bang_score, price_usd, adult) rows in list order, return the index."""
    return CompactIndex.from_data(
        {
            "appid": [n + 1 for n in range(len(rows))],
            "genre": [g for g, _, _, _ in rows],
            "year": [2020] * len(rows),
            "discount": [0] * len(rows),
            "tags": [[] for _ in rows],
            "adult": [a for _, _, _, a in rows],
            "items": [
                {"appid": n + 1, "bang_score": s, "price_usd": p, "url": f"/game/{n + 1}/g"}
                for n, (_, s, p, _) in enumerate(rows)
            ],
        }
    )


ROWS = st.lists(
    st.tuples(
        st.sampled_from(["rpg", "action"]),
        st.integers(0, 100),
        st.sampled_from([0.0, 0.99, 9.99, 12.99, 19.99, 24.99, 59.99]),
        st.booleans(),
    ),
    min_size=1,
    max_size=40,
).map(lambda rows: sorted(rows, key=lambda r: -r[1]))


@given(ROWS)
def test_composed_lists_hide_adult_games_only_when_asked(
    rows: list[tuple[str, int, float, bool]],
) -> None:
    index = synthetic_index(rows)
    everyone = [int(p) + 1 for p in index.select(Filters())]
    hidden = [int(p) + 1 for p in index.select(Filters.of(adult=False))]
    assert everyone == [n + 1 for n in range(len(rows))]
    assert hidden == [n + 1 for n, r in enumerate(rows) if not r[3]]
    assert index.shown(everyone) == hidden


@given(ROWS)
def test_the_composed_box_with_adult_games_is_the_reference_box(
    rows: list[tuple[str, int, float, bool]],
) -> None:
    index = synthetic_index(rows)
    games = [Candidate(g, s, cents(p)) for g, s, p, _ in rows]  # adult shown: none hidden
    for n in range(len(rows)):
        expected = [i + 1 for i in better_value_of(games, n)]
        assert [item["appid"] for item in index.better_value(n + 1)] == expected


def test_the_website_lists_each_series_once_and_the_api_keeps_every_part(
    loaded: LoadedSnapshot,
) -> None:
    # Issue 38: six chapters of one visual novel sat in 3.0's top 50. The website's browse
    # pages (once=True) name a series once, at its best part; the API's pages keep every game.
    site = [
        item
        for page in range(1, 6)
        for item in orjson.loads(loaded.index.page(Filters(), page, once=True)[0])["games"]
    ]
    named = [item["series"]["name"] for item in site if item["series"]]
    assert len(site) == 50
    assert len(named) == len(set(named))
    every = orjson.loads(loaded.index.page(Filters.of(genre=frozenset({"narrative"})), 1)[0])
    assert every["total"] == int(
        np.sum(loaded.index.genres == loaded.index.genre_names.index("narrative"))
    )
    parts = np.flatnonzero(loaded.index.series >= 0)
    assert parts.size > len(set(loaded.index.series[parts].tolist())) > 0
    once = loaded.index.once_per_series(np.arange(len(loaded.index.appids), dtype=np.int64))
    assert len(once) == len(loaded.index.appids) - parts.size + len(
        set(loaded.index.series[parts].tolist())
    )


def test_an_index_published_as_json_before_the_layout_loads_to_the_same_bytes(
    loaded: LoadedSnapshot, real_snapshot: Any
) -> None:
    index, games = loaded.index, real_snapshot[1]
    legacy = orjson.dumps(
        {
            "prices_as_of": index.prices_as_of,
            "appid": [g.record.appid for g in games],
            "genre": [g.genre for g in games],
            "year": [g.record.release_year for g in games],
            "discount": [g.record.discount_percent for g in games],
            "tags": [sorted(lower_tags(g.record)) for g in games],
            "adult": index.adult.tolist(),
            "items": [orjson.loads(index.item(n)) for n in range(len(index.appids))],
        }
    )
    again = CompactIndex.from_bytes(legacy)
    assert again.appids == index.appids
    # The JSON held no review counts or languages (builds before the platform facets): they
    # read as silent, and the layout is smaller by at least the postings it has no values for.
    postings = [f"{n}_{p}" for n in ("language", "audio") for p in ("starts", "positions")]
    missing = sum(index.columns[c].nbytes - again.columns[c].nbytes for c in postings)
    assert not again.columns["reviews"].any() and index.columns["reviews"].any()
    assert again.facet_postings == {"language": {}, "audio": {}}
    assert index.nbytes - again.nbytes >= missing > 0
    tagged, on_sale = Filters.of(tag=frozenset({"co-op"})), Filters.of(on_sale=True)
    for filters in (tagged, on_sale):
        assert again.page(filters, 3) == index.page(filters, 3)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b'{"appid": [1]}', id="json-missing-columns"),
        pytest.param(b'{"appid": [1', id="json-truncated"),
        pytest.param(b"BANGIDX1", id="layout-truncated"),
        pytest.param(b"", id="empty"),
    ],
)
def test_a_corrupt_index_is_a_value_error(raw: bytes) -> None:
    with pytest.raises(ValueError, match="compact index"):
        CompactIndex.from_bytes(raw)


def test_the_loaded_real_index_holds_its_layout_and_no_object_per_game(
    loaded: LoadedSnapshot,
) -> None:
    index = loaded.index
    columns = (index.genres, index.years, index.on_sale, index.adult, index.scores, index.cents)
    assert all(not c.flags.owndata for c in columns)  # views into the layout's bytes
    per_game = index.nbytes / len(index.appids)
    assert 400 < per_game < 1500, f"{per_game:.0f} bytes per game"
