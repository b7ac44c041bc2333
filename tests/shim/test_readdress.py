"""The site's address given at serve time (issue 56, item 1): a snapshot built for one address,
served at another, carries the served one in every body and in no body the built one."""

from __future__ import annotations

import asyncio

import orjson
import pytest

from bangscore.manifest import GZIP, gunzip_body, object_key
from bangscore.shim.readdress import readdress_for
from bangscore.shim.source import LoadedSnapshot, SnapshotSource
from bangscore.storage import ObjectStorage
from tests.support import factories

BUILT = "http://127.0.0.1:9123"
SERVED = "http://127.0.0.1:9001"


@pytest.mark.parametrize(
    ("meta", "site", "base", "body", "expected"),
    [
        (
            {"site_url": BUILT, "base_url": BUILT},
            SERVED,
            SERVED,
            f"{BUILT}/game/1",
            SERVED + "/game/1",
        ),
        ({"site_url": BUILT + "/"}, SERVED, SERVED, f"a {BUILT}/docs b", f"a {SERVED}/docs b"),
        (
            {"site_url": BUILT, "base_url": BUILT + "/api"},
            SERVED,
            "https://api.example",
            f"{BUILT}/game/1 {BUILT}/api/v1",
            f"{SERVED}/game/1 https://api.example/v1",
        ),
        (
            {"site_url": "http://a:1", "base_url": "http://b:2"},
            "http://b:2",
            "http://a:1",
            "http://a:1 http://b:2",
            "http://b:2 http://a:1",
        ),
        (
            {"site_url": BUILT, "base_url": BUILT},
            SERVED,
            "https://api.example",
            f"{BUILT}/game/1",
            f"{SERVED}/game/1",
        ),
    ],
    ids=["port", "trailing-slash", "base-under-site", "swapped", "one-built-two-served"],
)
def test_recorded_addresses_move_to_the_served_ones_in_one_pass(
    meta: dict[str, str], site: str, base: str, body: str, expected: str
) -> None:
    moves = readdress_for(meta, site, base)
    assert moves is not None
    assert moves.apply(body.encode()) == expected.encode()


@pytest.mark.parametrize(
    "meta",
    [{"site_url": SERVED, "base_url": SERVED}, {"site_url": SERVED + "/"}, {}],
    ids=["built-here", "built-here-slash", "recorded-none"],
)
def test_a_snapshot_built_for_the_served_address_or_none_is_not_moved(
    meta: dict[str, str],
) -> None:
    assert readdress_for(meta, SERVED, SERVED) is None


def test_a_body_without_the_address_is_returned_as_the_same_object() -> None:
    moves = readdress_for({"site_url": BUILT}, SERVED, SERVED)
    assert moves is not None
    body = b'{"appid": 10}'
    assert moves.apply(body) is body


def _every_body(storage: ObjectStorage, served: str) -> tuple[LoadedSnapshot, dict[str, bytes]]:
    """Given a store and the address served, load its snapshot as a serving process does and
    return it with every object's bytes as served: the identity under its key, the gzip
    representation (decompressed) under ``key + " gzip"``."""
    source = SnapshotSource(storage, cache_bytes=64 << 20, poll_seconds=3600)
    source.serve_at(served, served)
    assert source.refresh()
    snap = source.current
    assert snap is not None

    async def read() -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        for key, entry in snap.manifest.entries.items():
            found[key] = await source.body(snap, key)
            if entry.encoded(GZIP) is not None:
                found[key + " gzip"] = gunzip_body(await source.body(snap, key, GZIP))
        return found

    return snap, asyncio.run(read())


def test_every_body_of_a_snapshot_built_elsewhere_carries_the_served_address() -> None:
    storage, games = factories.publish_catalog(factories.small_catalog(), site_url=BUILT)
    snap, bodies = _every_body(storage, SERVED)
    assert snap.base_url == SERVED
    stale = sorted(key for key, body in bodies.items() if b"127.0.0.1:9123" in body)
    assert stale == []
    carrying = [key for key, body in bodies.items() if SERVED.encode() in body]
    # every game's detail record and page, both representations, and more (lists, feeds)
    assert len(carrying) > 4 * len(games)
    detail = orjson.loads(bodies[f"games/{games[0].record.appid}.json"])
    assert detail["url"].startswith(f"{SERVED}/game/{games[0].record.appid}/")


def test_a_snapshot_served_where_it_was_built_is_served_as_stored() -> None:
    storage, _ = factories.publish_catalog(factories.small_catalog(), site_url=SERVED)
    source = SnapshotSource(storage, cache_bytes=64 << 20, poll_seconds=3600)
    source.serve_at(SERVED, SERVED)
    assert source.refresh()
    snap = source.current
    assert snap is not None and snap.readdress is None
    gzipped = [(k, e) for k, e in snap.manifest.entries.items() if e.encoded(GZIP) is not None]
    assert gzipped
    for key, entry in gzipped[:50]:
        stored = storage.get(object_key(entry.stored[0]))
        assert asyncio.run(source.body(snap, key, GZIP)) == stored, key
