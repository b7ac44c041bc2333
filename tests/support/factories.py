"""Factories shared by the tests: catalog records, published snapshots, and app clients.

Everything here is real: snapshots are built by the real builder into a real store (memory
or a folder), apps use the real SQLite store in a temporary folder.
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from starlette.applications import Starlette

from bangscore.build.publish import publish
from bangscore.build.snapshot import snapshot_objects
from bangscore.scoring.pipeline import ScoredGame, score_catalog
from bangscore.scoring.records import Catalog, GameRecord, Language, NotRated, Sources
from bangscore.settings import Settings
from bangscore.shim.access_log import AccessLog
from bangscore.shim.app import create_app
from bangscore.shim.lru import AnswerBudgets
from bangscore.shim.quota import Quota
from bangscore.shim.source import SnapshotSource
from bangscore.storage import MemoryStorage, ObjectStorage
from bangscore.stores import Stores, open_stores
from bangscore.stores.keystore import issue_key

SITE = "http://testserver"
_appids = itertools.count(1000, 10)


def make_record(**overrides: Any) -> GameRecord:
    """Given field overrides, return a valid GameRecord with plausible defaults."""
    appid = overrides.pop("appid", next(_appids))
    fields: dict[str, Any] = {
        "appid": appid,
        "name": f"Game {appid}",
        "developer": "Dev",
        "publisher": "Pub",
        "price_usd": 19.99,
        "list_price_usd": 19.99,
        "discount_percent": 0,
        "review_score": 0.9,
        "review_count": 1000,
        "release_year": 2018,
        "main_story_hours": 12.0,
        "length_source": "hltb",
        "completionist_hours": 30.0,
        "finish_rate": 0.4,
        "sources": Sources(storefront=dt.date(2025, 1, 1), play_length=dt.date(2023, 6, 1)),
    }
    fields.update(overrides)
    return GameRecord(**fields)


# Known apps that are not rated, one per reason, in every published test snapshot.
NOT_RATED: tuple[NotRated, ...] = (
    NotRated(appid=1263850, name="Football Manager 2021", reason="delisted", review_count=23895),
    NotRated(appid=77, name="Tiny Game", reason="too_few_reviews", review_count=12),
    NotRated(appid=78, name="Priceless Game", reason="no_usd_price"),
    NotRated(appid=79, name="Lengthless Game", reason="no_length", review_count=400),
    NotRated(appid=80, name="Some Soundtrack", reason="not_a_game"),
    # A listing no source of the catalogue's year sees, whose edition (the small catalogue's
    # first game) is rated.
    NotRated(appid=81, name="Old Listing", reason="superseded", superseded_by=10_000),
    # Listed, but the storefront's newest price row has no price (score version 6.0).
    NotRated(appid=82, name="Unsold Listing", reason="not_for_sale", review_count=8029),
)


def make_catalog(
    records: Sequence[GameRecord], not_rated: Sequence[NotRated] = NOT_RATED
) -> Catalog:
    """Given records (and known apps that are not rated), return a Catalog of them."""
    return Catalog(
        created_at=dt.datetime(2026, 11, 1, tzinfo=dt.UTC),
        origin="tests",
        games=tuple(records),
        not_rated=tuple(not_rated),
    )


# The catalog's newest price observation in the test snapshots.
PRICES_AS_OF = dt.datetime(2026, 7, 24, 14, 13, 40, tzinfo=dt.UTC)


def publish_catalog(
    records: Sequence[GameRecord],
    storage: ObjectStorage | None = None,
    snapshot_id: str = "s1",
    not_rated: Sequence[NotRated] = NOT_RATED,
    prices_as_of: dt.datetime | None = PRICES_AS_OF,
    site_url: str | None = None,
) -> tuple[ObjectStorage, list[ScoredGame]]:
    """Given records (and known apps that are not rated) and the catalog's ``prices_as_of``,
    build and publish a snapshot; return the store and the scored games. With a ``site_url``
    the snapshot is built for that site and records it, as ``bangscore build`` does."""
    games = score_catalog(records)
    published = publish_scored(games, storage, snapshot_id, not_rated, prices_as_of, site_url)
    return published, games


def publish_scored(
    games: list[ScoredGame],
    storage: ObjectStorage | None = None,
    snapshot_id: str = "s1",
    not_rated: Sequence[NotRated] = NOT_RATED,
    prices_as_of: dt.datetime | None = PRICES_AS_OF,
    site_url: str | None = None,
) -> ObjectStorage:
    """Given games already scored, publish their snapshot as :func:`publish_catalog` does;
    return the store."""
    store = storage if storage is not None else MemoryStorage()
    recorded = {"site_url": site_url, "base_url": site_url} if site_url else {}
    created_at = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    objects = snapshot_objects(
        games,
        site_url=site_url or SITE,
        base_url=site_url or SITE,
        not_rated=not_rated,
        prices_as_of=prices_as_of,
        created_at=created_at,
        snapshot_id=snapshot_id,
    )
    publish(
        store,
        snapshot_id,
        objects,
        created_at=created_at,
        meta={"games": len(games), **recorded},
        keep=7,
    )
    return store


class Clock:
    """A settable clock (Unix seconds) for quota tests."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def app_settings(site_url: str = SITE) -> Settings:
    """Given the site URL, return the settings an app under test runs with: those of the
    environment (``BANGSCORE_*`` variables and ``.env``) with that site URL, as a fresh copy.

    pydantic-settings reads every source on each construction (about 10 ms, a tenth of what a
    test of the app costs), so the settings are read once per site URL, environment and folder
    and copied for each app."""
    env = tuple(sorted((k, v) for k, v in os.environ.items() if k.upper().startswith("BANGSCORE_")))
    return _read_settings(site_url, env, os.getcwd()).model_copy(deep=True)


@functools.lru_cache(maxsize=16)
def _read_settings(site_url: str, env: tuple[tuple[str, str], ...], cwd: str) -> Settings:
    # env and cwd are the key only: Settings reads them itself.
    return Settings(site_url=site_url)


def make_app(
    storage: ObjectStorage,
    state_dir: Path,
    *,
    clock: Callable[[], float] | None = None,
    anonymous_limit: int = 1000,
    page_limit: int = 5000,
    site_url: str = SITE,
    access_log: AccessLog | None = None,
    budgets: AnswerBudgets | None = None,
) -> tuple[Starlette, Stores, Quota]:
    """Given a published store and a folder (and an access log, the remembered answers'
    budgets), return (app, its SQLite store, its quota); the app serves ``site_url`` (the
    snapshots here are built for :data:`SITE`)."""
    store = sqlite_stores(state_dir / "keys.sqlite3")
    quota = Quota(
        store.counter,
        store.keys,
        anonymous_limit=anonymous_limit,
        page_limit=page_limit,
        key_cache_seconds=0,
        **({"clock": clock} if clock else {}),
    )
    source = SnapshotSource(
        storage, cache_bytes=64 << 20, poll_seconds=3600, budgets=budgets or AnswerBudgets()
    )
    app = create_app(app_settings(site_url), source, quota, follow=False, access_log=access_log)
    return app, store, quota


def sqlite_stores(path: Path | str, *, lease: bool = True) -> Stores:
    """Given a SQLite file's path, return its stores (created if missing; ``lease``: the
    counter leases blocks of quota, as a one-worker server's does)."""
    return open_stores(f"sqlite:///{path}", lease=lease)


def add_key(
    store: Stores, *, plan: str = "free", limit: int = 1000, account: str = "a@x.io"
) -> str:
    """Given a store, issue an active key (:func:`issue_key`); return the plaintext key."""
    key, _ = issue_key(store.keys, account, plan, limit, 0)  # type: ignore[arg-type]
    return key


# A small catalog whose genres are set by unambiguous tags (see scoring.genres).
GENRE_TAGS: dict[str, dict[str, Any]] = {
    "rpg": {"tags": ("RPG",)},
    "shooter": {"tags": ("FPS",)},
    "strategy": {"tags": ("Strategy",)},
    "narrative": {"tags": ("Story Rich",)},
    "roguelike": {"tags": ("Roguelike",)},
    "multiplayer": {"tags": ("MMO",)},
    "indie_short": {"storefront_genres": ("Indie",), "main_story_hours": 3.0},
    "action": {"storefront_genres": ("Action",)},
    "other": {},
}


def _facets(g_index: int, i: int) -> dict[str, Any]:
    """The platform facets of the small catalogue's game ``i`` of genre ``g_index``: every Deck
    rating and controller level, and silence, in turn; English everywhere, German interface
    on every other game (audio on every third), Japanese subtitles in odd genres."""
    deck = ("verified", "playable", "unsupported", None)[(g_index + i) % 4]
    languages = [Language(code="en", interface=True, audio=True, subtitles=True)]
    if i % 2 == 0 or i % 3 == 0:
        languages.append(
            Language(code="de", interface=i % 2 == 0, audio=i % 3 == 0, subtitles=False)
        )
    if g_index % 2:
        languages.append(Language(code="ja", interface=False, audio=False, subtitles=True))
    return {
        "steam_deck": deck,
        "steam_deck_tested_at": dt.date(2024, 1 + i, 10) if deck else None,
        "controller_support": ("full", "partial", None)[(g_index * 5 + i) % 3],
        "languages": tuple(languages),
        "ai_content": "Pre-generated: the developer discloses content made with the help of AI "
        "tools during development."
        if (g_index + i) % 7 == 0
        else None,
    }


def small_catalog() -> list[GameRecord]:
    """Return 45 records: 5 per genre, with varied prices, discounts, years and tags."""
    records = []
    for g_index, (genre, extra) in enumerate(GENRE_TAGS.items()):
        for i in range(5):
            appid = 10_000 + g_index * 100 + i
            tags = tuple(extra.get("tags", ())) + (
                ("Co-op",) if i % 2 == 0 else ("Pixel Graphics",)
            )
            records.append(
                make_record(
                    appid=appid,
                    name=f"{genre.title()} Quest {i}",
                    price_usd=[0.0, 4.99, 9.99, 19.99, 59.99][i],
                    list_price_usd=[0.0, 9.99, 9.99, 39.99, 59.99][i],
                    discount_percent=[0, 50, 0, 50, 0][i],
                    release_year=2010 + g_index + i,
                    main_story_hours=extra.get("main_story_hours", 5.0 + 4 * i),
                    storefront_genres=tuple(extra.get("storefront_genres", ())),
                    tags=tags,
                    **_facets(g_index, i),
                )
            )
    return records
