"""Representations (shim/answer.py): gzip by Accept-Encoding, Vary, one ETag and one 304 per
representation, identity bytes as the builder rendered them, and snapshots stored before
compression still served."""

from __future__ import annotations

import datetime as dt
import gzip
from typing import Any

import pytest
from starlette.testclient import TestClient

from bangscore.contract.objects import ROOT_KEY, detail_key, game_page_key, list_key
from bangscore.manifest import (
    Entry,
    Manifest,
    digest,
    manifest_key,
    object_key,
    read_body,
    read_manifest,
)
from bangscore.shim.answer import accepts_gzip
from bangscore.storage import MemoryStorage, ObjectStorage, StoredObject
from tests.support import factories
from tests.support.factories import add_key

ACCEPTS = [
    pytest.param("gzip", True, id="gzip"),
    pytest.param("gzip, deflate, br", True, id="browser"),
    pytest.param("x-gzip", True, id="x-gzip"),
    pytest.param("*", True, id="star"),
    pytest.param("br;q=1, *;q=0.5", True, id="star-weighted"),
    pytest.param("gzip;q=0", False, id="gzip-refused"),
    pytest.param("gzip;q=0, *", False, id="gzip-refused-star-allowed"),
    pytest.param("GZIP;Q=0.1", True, id="case-insensitive"),
    pytest.param("identity", False, id="identity"),
    pytest.param("br", False, id="brotli-only"),
    pytest.param("", False, id="empty"),
    pytest.param(None, False, id="absent"),
    pytest.param("gzip;q=abc", False, id="bad-weight"),
]


@pytest.mark.parametrize(("header", "expected"), ACCEPTS)
def test_accepts_gzip_reads_weights(header: str | None, expected: bool) -> None:
    assert accepts_gzip(header) is expected


def _get(client: TestClient, path: str, headers: dict[str, str], coding: str | None) -> Any:
    """GET ``path`` with ``Accept-Encoding: coding`` (None: no such header); return
    (response, body bytes as sent on the wire)."""
    request = client.build_request("GET", path, headers=headers)
    if coding is None:
        del request.headers["accept-encoding"]
    else:
        request.headers["accept-encoding"] = coding
    response = client.send(request, stream=True)
    raw = b"".join(response.iter_raw())
    response.close()
    return response, raw


RESOURCES = [
    pytest.param(f"/api/v1/games/{10_000}", detail_key(10_000), True, id="detail-record"),
    pytest.param("/api/v1/games?genre=rpg", list_key("genre-rpg", 1), True, id="list-page"),
    pytest.param("/api/v1", ROOT_KEY, False, id="root-listing"),
]


@pytest.fixture
def served(
    client_factory: Any, small_snapshot: tuple[ObjectStorage, Any]
) -> tuple[TestClient, ObjectStorage, dict[str, str]]:
    storage = small_snapshot[0]
    client, store = client_factory(storage)
    return client, storage, {"Authorization": f"Bearer {add_key(store, limit=10_000)}"}


def _entry(storage: ObjectStorage, key: str) -> Entry:
    pointer = storage.read_pointer()
    assert pointer is not None
    return read_manifest(storage, pointer).entries[key]


@pytest.mark.parametrize(("path", "key", "keyed"), RESOURCES)
def test_each_representation_has_its_own_etag_and_304(
    served: Any, path: str, key: str, keyed: bool
) -> None:
    client, storage, auth = served
    headers = auth if keyed else {}
    entry = _entry(storage, key)
    identity = read_body(storage, entry)
    assert digest(identity) == entry.sha256  # the bytes the builder rendered, unchanged

    packed, packed_raw = _get(client, path, headers, "gzip")
    plain, plain_raw = _get(client, path, headers, None)
    assert packed.status_code == plain.status_code == 200
    assert packed.headers["content-encoding"] == "gzip"
    assert "content-encoding" not in plain.headers
    assert packed.headers["vary"] == plain.headers["vary"] == "Accept-Encoding"
    assert plain_raw == identity
    assert gzip.decompress(packed_raw) == identity
    assert int(packed.headers["content-length"]) == len(packed_raw) < len(identity)
    assert packed.headers["etag"] != plain.headers["etag"]
    assert plain.headers["etag"] == '"' + entry.sha256[:32] + '"'

    for coding, etag in (("gzip", packed.headers["etag"]), (None, plain.headers["etag"])):
        matched, body = _get(client, path, {**headers, "If-None-Match": etag}, coding)
        assert (matched.status_code, body) == (304, b"")
        assert matched.headers["etag"] == etag
        assert matched.headers["vary"] == "Accept-Encoding"
    # One representation's ETag does not validate the other.
    crossed, body = _get(client, path, {**headers, "If-None-Match": plain.headers["etag"]}, "gzip")
    assert crossed.status_code == 200 and gzip.decompress(body) == identity


def test_a_game_page_is_sent_as_stored_and_decompressed_for_identity(served: Any) -> None:
    client, storage, _ = served
    entry = _entry(storage, game_page_key(10_000))
    found = entry.encoded("gzip")
    assert found is not None
    page = client.get("/game/10000", follow_redirects=True)
    path = page.url.path
    packed, packed_raw = _get(client, path, {}, "gzip, deflate, br")
    plain, plain_raw = _get(client, path, {}, "identity")
    assert packed_raw == storage.get(object_key(found.sha256))
    assert plain_raw == read_body(storage, entry)
    assert packed.headers["etag"] == '"' + found.sha256[:32] + '"'
    assert plain.headers["etag"] == '"' + entry.sha256[:32] + '"'


def test_small_answers_have_one_representation(served: Any) -> None:
    client, _, auth = served
    response, raw = _get(client, "/api/v1/games?page=99", auth, "gzip")
    assert response.status_code == 200 and len(raw) < 1024
    assert "content-encoding" not in response.headers and "vary" not in response.headers


def _uncompressed_copy(storage: ObjectStorage) -> MemoryStorage:
    """Given a published store, return a store holding the same snapshot as a build before
    compression wrote it: every body as it is, entries without encodings."""
    pointer = storage.read_pointer()
    assert pointer is not None
    manifest = read_manifest(storage, pointer)
    old = MemoryStorage()
    entries = {}
    for key, entry in manifest.entries.items():
        body = read_body(storage, entry)
        old.put_many([StoredObject(object_key(entry.sha256), body, entry.content_type)])
        entries[key] = Entry(entry.sha256, entry.content_type, entry.size)
    legacy = Manifest("old", dt.datetime(2026, 11, 1, tzinfo=dt.UTC), manifest.meta, entries)
    raw = legacy.to_bytes()
    assert b'"gzip"' not in raw
    old.put_many([StoredObject(manifest_key("old"), raw)])
    old.swap_pointer("old", None)
    return old


def test_a_snapshot_stored_before_compression_still_serves(
    client_factory: Any, small_snapshot: tuple[ObjectStorage, Any]
) -> None:
    old = _uncompressed_copy(small_snapshot[0])
    client, store = client_factory(old)
    auth = {"Authorization": f"Bearer {add_key(store)}"}
    for path, key in ((f"/api/v1/games/{10_000}", detail_key(10_000)), ("/api/v1", ROOT_KEY)):
        plain, raw = _get(client, path, auth, None)
        assert plain.status_code == 200
        assert raw == old.get(object_key(_entry(old, key).sha256))
        packed, packed_raw = _get(client, path, auth, "gzip")
        assert packed.status_code == 200
        if "content-encoding" in packed.headers:  # compressed here, once per remembered answer
            packed_raw = gzip.decompress(packed_raw)
        assert packed_raw == raw
    page = client.get("/game/10000", follow_redirects=True)
    response, raw = _get(client, page.url.path, {}, "gzip")
    assert "content-encoding" not in response.headers  # stored as it is: sent as it is
    assert raw == old.get(object_key(_entry(old, game_page_key(10_000)).sha256))


def test_publish_stores_large_json_and_html_compressed_only() -> None:
    storage, _ = factories.publish_catalog(factories.small_catalog())
    pointer = storage.read_pointer()
    assert pointer is not None
    entries = read_manifest(storage, pointer).entries
    compressed = {k for k, e in entries.items() if e.encodings}
    assert detail_key(10_000) in compressed and game_page_key(10_000) in compressed
    stored = {k.rsplit("/", 1)[-1] for k in storage.list_keys("objects/")}
    for key, entry in entries.items():
        large_text = entry.size > 1024 and entry.content_type.startswith(
            ("application/json", "text/html")
        )
        assert bool(entry.encodings) is large_text, key
        if entry.encodings:
            assert entry.sha256 not in stored  # the identity is not stored beside it
            assert [e.coding for e in entry.encodings] == ["gzip"]
            assert entry.encodings[0].sha256 in stored
            assert gzip.decompress(storage.get(object_key(entry.encodings[0].sha256))) == (
                read_body(storage, entry)
            )
