"""Tests of the shim over S3 (SeaweedFS) and of ``GET /api/v1/export`` (shim.export).

The S3 apps are wired exactly as ``bangscore serve`` wires them
(bangscore.cli.serve.app_from_settings, standard AWS environment variables); the local-folder
export uses the shim's signed links.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema_rs
import orjson
import pytest
from starlette.testclient import TestClient

from bangscore.build.export import write_export
from bangscore.build.publish import publish
from bangscore.build.snapshot import snapshot_objects
from bangscore.cli.serve import app_from_settings
from bangscore.contract.export import (
    FILES,
    GAMES_JSONL,
    ExportManifest,
    download_type,
    export_manifest_key,
)
from bangscore.scoring.pipeline import score_catalog
from bangscore.scoring.records import GameRecord
from bangscore.settings import Settings
from bangscore.shim.app import create_app
from bangscore.shim.downloads import ExportService, LocalLinks
from bangscore.shim.quota import Quota
from bangscore.shim.source import SnapshotSource
from bangscore.storage import LocalStorage, ObjectStorage, open_object_storage
from bangscore.storage.objects import RangeReader
from bangscore.stores import Stores, open_stores
from bangscore.stores.keystore import Plan, issue_key
from bangscore.stores.secret import load_session_secret
from tests.support import factories
from tests.support.factories import sqlite_stores
from tests.support.live import LOOPBACK
from tests.support.servers import SeaweedServer

T0 = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)


def add_key(store: Stores, plan: Plan) -> dict[str, str]:
    """Given the stores and a plan, create a key; return the Authorization header."""
    key, _ = issue_key(store.keys, "a@x.io", plan, 1000, 0)
    return {"Authorization": f"Bearer {key}"}


def build(storage: ObjectStorage, snapshot_id: str, records: list[GameRecord]) -> None:
    games = score_catalog(records)
    objects = snapshot_objects(games, site_url=factories.SITE, base_url=factories.SITE)
    publish(storage, snapshot_id, objects, created_at=T0, meta={"games": len(games)}, keep=7)


def export(storage: ObjectStorage, snapshot_id: str, records: list[GameRecord]) -> None:
    games = score_catalog(records)
    write_export(
        storage, games, snapshot_id=snapshot_id, created_at=T0, site_url=factories.SITE, keep=7
    )


@pytest.fixture
def s3_app(tmp_path: Path) -> Iterator[Callable[[str], tuple[TestClient, Settings]]]:
    """Return a factory: given a bucket, a started client of the app ``serve`` would run with
    snapshots under s3://bucket/snap and the export under s3://bucket/bulk."""
    clients: list[TestClient] = []

    def make(bucket_name: str) -> tuple[TestClient, Settings]:
        settings = Settings(
            state_dir=tmp_path / "state",
            snapshot=f"s3://{bucket_name}/snap",
            export=f"s3://{bucket_name}/bulk",
            site_url=factories.SITE,
            pointer_poll_seconds=3600,
            key_cache_seconds=0,
        )
        # As `bangscore keys create` would: serve creates neither the store nor the secret.
        open_stores(settings.store_url).close()
        load_session_secret(None, settings.state_dir)
        client = TestClient(app_from_settings(settings), base_url=factories.SITE)
        client.__enter__()
        clients.append(client)
        return client, settings

    yield make
    for client in clients:
        client.__exit__(None, None, None)


def download_of(url: str) -> bytes:
    """Given a download link, return the bytes it answers (200 only)."""
    answer = LOOPBACK.get(url)
    assert answer.status_code == 200
    return answer.content


def source_of(client: TestClient) -> SnapshotSource:
    source = client.app.state.source  # type: ignore[attr-defined]
    assert isinstance(source, SnapshotSource)
    return source


@pytest.mark.s3
def test_running_shim_switches_to_a_new_pointer(
    aws_env: SeaweedServer,
    bucket: str,
    s3_app: Callable[[str], tuple[TestClient, Settings]],
) -> None:
    records = factories.small_catalog()
    snapshots = open_object_storage(f"s3://{bucket}/snap")
    build(snapshots, "s1", records)
    client, settings = s3_app(bucket)
    headers = add_key(open_stores(settings.store_url), "free")
    appid = records[0].appid
    first = client.get(f"/api/v1/games/{appid}", headers=headers)
    assert first.status_code == 200
    assert first.headers["x-snapshot"] == "s1"
    assert first.json()["price_usd"] == records[0].price_usd

    repriced = [records[0].model_copy(update={"price_usd": 1.49}), *records[1:]]
    build(snapshots, "s2", repriced)
    assert client.get(f"/api/v1/games/{appid}", headers=headers).headers["x-snapshot"] == "s1"
    assert source_of(client).refresh() is True
    second = client.get(f"/api/v1/games/{appid}", headers=headers)
    assert second.headers["x-snapshot"] == "s2"
    assert second.json()["price_usd"] == 1.49
    assert second.headers["etag"] != first.headers["etag"]


@pytest.mark.s3
def test_export_gives_bulk_keys_presigned_urls_to_the_right_bytes(
    aws_env: SeaweedServer,
    bucket: str,
    s3_app: Callable[[str], tuple[TestClient, Settings]],
) -> None:
    records = factories.small_catalog()
    build(open_object_storage(f"s3://{bucket}/snap"), "s1", records)
    client, settings = s3_app(bucket)
    keys = open_stores(settings.store_url)
    bulk, free = add_key(keys, "bulk"), add_key(keys, "free")
    assert client.get("/api/v1/export", headers=bulk).status_code == 404  # nothing exported

    exports = open_object_storage(f"s3://{bucket}/bulk")
    export(exports, "s1", records)
    before = time.time()
    response = client.get("/api/v1/export", headers=bulk)
    assert response.status_code == 200
    assert response.headers["cache-control"] == "no-store"
    body = response.json()
    assert body["snapshot"] == "s1"
    assert [f["name"] for f in body["files"]] == list(FILES)
    for entry in body["files"]:
        assert entry["url"].startswith(aws_env.endpoint)
        assert entry["address"] == f"{factories.SITE}/export/s1/{entry['name']}"
        expires = dt.datetime.fromisoformat(entry["expires_at"]).timestamp()
        assert before + 3600 - 5 <= expires <= time.time() + 3600
        download = LOOPBACK.get(entry["url"])
        assert download.status_code == 200
        assert hashlib.sha256(download.content).hexdigest() == entry["sha256"]
        assert len(download.content) == entry["bytes"]
    games = next(f for f in body["files"] if f["name"] == GAMES_JSONL)
    assert games["rows"] == len(records)
    tampered = games["url"].replace("Signature=", "Signature=0")
    assert LOOPBACK.get(tampered).status_code == 403
    # The permanent address sends a bulk key to a fresh presigned URL of the store.
    moved = client.get(games["address"], headers=bulk, follow_redirects=False)
    assert moved.status_code == 307 and moved.headers["location"].startswith(aws_env.endpoint)
    assert LOOPBACK.get(moved.headers["location"]).content == download_of(games["url"])

    denied = client.get("/api/v1/export", headers=free)
    assert denied.status_code == 403
    assert denied.json()["code"] == "insufficient_scope"
    assert "url" not in denied.text


@pytest.mark.s3
def test_store_going_away_keeps_cached_answers_and_503s_the_rest(
    seaweed_factory: Callable[[], SeaweedServer],
    monkeypatch: pytest.MonkeyPatch,
    s3_app: Callable[[str], tuple[TestClient, Settings]],
) -> None:
    server = seaweed_factory()
    for name, value in (
        ("AWS_ENDPOINT_URL", server.endpoint),
        ("AWS_ACCESS_KEY_ID", server.access_key),
        ("AWS_SECRET_ACCESS_KEY", server.secret_key),
        ("AWS_DEFAULT_REGION", server.region),
    ):
        monkeypatch.setenv(name, value)
    bucket_name = server.create_bucket("private")
    records = factories.small_catalog()
    build(open_object_storage(f"s3://{bucket_name}/snap"), "s1", records)
    export(open_object_storage(f"s3://{bucket_name}/bulk"), "s1", records)
    client, settings = s3_app(bucket_name)
    headers = add_key(open_stores(settings.store_url), "bulk")
    seen, unseen = records[0].appid, records[1].appid
    assert client.get(f"/api/v1/games/{seen}", headers=headers).status_code == 200

    server.stop()
    cached = client.get(f"/api/v1/games/{seen}", headers=headers)
    assert cached.status_code == 200
    assert cached.headers["x-snapshot"] == "s1"
    for path in (f"/api/v1/games/{unseen}", "/api/v1/export"):
        response = client.get(path, headers=headers)
        assert response.status_code == 503, path
        assert response.headers["retry-after"] == "5"
        assert response.json()["code"] == "unavailable"


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def published_export(tmp_path_factory: pytest.TempPathFactory) -> tuple[ObjectStorage, Path]:
    """The small catalogue published once for the module, and its export written once to a
    folder: (the snapshot's store, the export folder). The tests only read them."""
    records = factories.small_catalog()
    snapshots, _ = factories.publish_catalog(records)
    folder = tmp_path_factory.mktemp("export")
    export(LocalStorage(folder), "s1", records)
    return snapshots, folder


@pytest.fixture
def local_export(
    tmp_path: Path, published_export: tuple[ObjectStorage, Path]
) -> Iterator[tuple[TestClient, Clock, dict[str, str], dict[str, str]]]:
    """A shim over a memory snapshot and a local export folder: (client, clock, bulk and
    free Authorization headers)."""
    snapshots, folder = published_export
    exports = LocalStorage(folder)
    clock = Clock(1_800_000_000.0)
    service = ExportService(
        exports, links=LocalLinks("test-secret", factories.SITE), link_seconds=600, clock=clock
    )
    store = sqlite_stores(tmp_path / "keys.sqlite3")
    quota = Quota(
        store.counter, store.keys, anonymous_limit=1000, page_limit=5000, key_cache_seconds=0
    )
    source = SnapshotSource(snapshots, cache_bytes=1 << 20, poll_seconds=3600)
    app = create_app(Settings(site_url=factories.SITE), source, quota, follow=False, export=service)
    with TestClient(app, base_url=factories.SITE) as client:
        yield client, clock, add_key(store, "bulk"), add_key(store, "pro")


def test_local_export_links_download_until_they_expire(local_export: Any) -> None:
    client, clock, bulk, _ = local_export
    body = client.get("/api/v1/export", headers=bulk).json()
    # The answer is the stored manifest with links: it validates against the repo's schema.
    schema = orjson.loads(
        (Path(__file__).parents[2] / "docs/export-manifest.schema.json").read_bytes()
    )
    assert jsonschema_rs.validator_for(schema).is_valid(body)
    for entry in body["files"]:
        assert entry["url"].startswith(f"{factories.SITE}/export/s1/{entry['name']}?expires=")
        assert dt.datetime.fromisoformat(entry["expires_at"]).timestamp() == clock.now + 600
        download = client.get(entry["url"])
        assert download.status_code == 200
        assert download.headers["content-type"] == download_type(entry["name"])
        assert hashlib.sha256(download.content).hexdigest() == entry["sha256"]
    url = body["files"][0]["url"]
    clock.now += 601
    expired = client.get(url)
    assert expired.status_code == 403
    assert expired.json()["code"] == "insufficient_scope"


@pytest.mark.parametrize(
    "mangle",
    [
        lambda u: u.replace("signature=", "signature=x"),
        lambda u: u.replace("expires=", "expires=9"),
        lambda u: u.replace("games.jsonl.gz", "games.csv.gz"),
        lambda u: u.split("?")[0],
    ],
    ids=["signature", "expiry", "other-file", "no-query"],
)
def test_local_export_links_cannot_be_forged(
    local_export: Any, mangle: Callable[[str], str]
) -> None:
    client, _, bulk, _ = local_export
    files = client.get("/api/v1/export", headers=bulk).json()["files"]
    url = next(f["url"] for f in files if f["name"] == GAMES_JSONL)
    # Without its query it is the permanent address: 401, asking for a bulk key (issue 56).
    assert client.get(mangle(url)).status_code == (401 if "?" not in mangle(url) else 403)


def test_export_needs_a_bulk_key(local_export: Any) -> None:
    client, _, _, pro = local_export
    assert client.get("/api/v1/export").status_code == 401
    denied = client.get("/api/v1/export", headers=pro)
    assert denied.status_code == 403
    assert denied.json()["code"] == "insufficient_scope"
    assert denied.headers["x-ratelimit-used"] == "1"  # counted like any keyed request


@pytest.mark.parametrize("send", ["bearer", "api_key"])
def test_a_files_permanent_address_redirects_a_bulk_key_to_a_fresh_link(
    local_export: Any, send: str
) -> None:
    # Issue 48: the address an analyst cites answered 403 to the bulk key that listed it.
    client, clock, bulk, _ = local_export
    files = client.get("/api/v1/export", headers=bulk).json()["files"]
    entry = next(f for f in files if f["name"] == GAMES_JSONL)
    assert entry["address"] == f"{factories.SITE}/export/s1/{GAMES_JSONL}"
    clock.now += 5_000  # the links the manifest gave have expired
    key = bulk["Authorization"].removeprefix("Bearer ")
    if send == "bearer":
        answer = client.get(entry["address"], headers=bulk, follow_redirects=False)
    else:
        answer = client.get(entry["address"], params={"api_key": key}, follow_redirects=False)
    assert answer.status_code == 307
    assert answer.headers["cache-control"] == "no-store"
    location = answer.headers["location"]
    assert location.startswith(f"{entry['address']}?expires={int(clock.now) + 600}&signature=")
    assert answer.json() == {
        "url": location,
        "expires_at": dt.datetime.fromtimestamp(int(clock.now) + 600, dt.UTC).isoformat(),
    }
    assert answer.headers["x-ratelimit-used"] == "2"  # counted: the manifest, then this
    fetched = client.get(location)
    assert fetched.status_code == 200
    assert hashlib.sha256(fetched.content).hexdigest() == entry["sha256"]
    followed = client.get(entry["address"], headers=bulk)  # a client following redirects
    assert followed.content == fetched.content


@pytest.mark.parametrize(
    ("who", "path", "status", "code"),
    [
        pytest.param("pro", f"/export/s1/{GAMES_JSONL}", 403, "insufficient_scope", id="pro-key"),
        pytest.param("bulk", "/export/s1/nope.csv.gz", 404, "not_found", id="no-such-file"),
        pytest.param("bulk", f"/export/s0/{GAMES_JSONL}", 404, "not_found", id="no-such-export"),
        pytest.param("none", f"/export/s1/{GAMES_JSONL}", 401, "missing_key", id="no-key"),
        pytest.param("bulk", f"/export/%2E%2E/{GAMES_JSONL}", 404, "not_found", id="dot-dot"),
    ],
)
def test_an_address_without_a_bulk_key_or_a_file_is_refused(
    local_export: Any, who: str, path: str, status: int, code: str
) -> None:
    client, _, bulk, pro = local_export
    headers = {"bulk": bulk, "pro": pro, "none": {}}[who]
    answer = client.get(path, headers=headers, follow_redirects=False)
    assert (answer.status_code, answer.json()["code"]) == (status, code)


def test_the_permanent_address_without_a_key_asks_for_a_bulk_key(local_export: Any) -> None:
    """Issue 56 item 8: it said the download link had expired; an expired link still does."""
    client = local_export[0]
    bare = client.get(f"/export/s1/{GAMES_JSONL}", follow_redirects=False)
    assert bare.status_code == 401 and "needs a bulk key" in bare.json()["detail"]
    assert bare.headers["WWW-Authenticate"].startswith("Bearer")
    stale = client.get(f"/export/s1/{GAMES_JSONL}?expires=1&signature=x", follow_redirects=False)
    assert stale.status_code == 403 and "expired" in stale.json()["detail"]


class CountingStorage(LocalStorage):
    """A local folder that counts whole reads and ranged opens (to show what a request reads)."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.reads: list[str] = []
        self.ranges: list[tuple[str, int, int]] = []

    def get(self, key: str) -> bytes:
        self.reads.append(key)
        return super().get(key)

    def open_range(self, key: str, start: int, stop: int) -> RangeReader:
        self.ranges.append((key, start, stop))
        return super().open_range(key, start, stop)


@pytest.fixture
def counted_export(
    tmp_path: Path, published_export: tuple[ObjectStorage, Path]
) -> Iterator[tuple[TestClient, CountingStorage, dict[str, Any]]]:
    """A shim over the module's export folder read through a CountingStorage: (client, the
    storage, the games.jsonl.gz entry of /api/v1/export with its url)."""
    snapshots, folder = published_export
    exports = CountingStorage(folder)
    service = ExportService(
        exports, links=LocalLinks("test-secret", factories.SITE), link_seconds=600
    )
    store = sqlite_stores(tmp_path / "keys.sqlite3")
    quota = Quota(
        store.counter, store.keys, anonymous_limit=1000, page_limit=5000, key_cache_seconds=0
    )
    source = SnapshotSource(snapshots, cache_bytes=1 << 20, poll_seconds=3600)
    app = create_app(Settings(site_url=factories.SITE), source, quota, follow=False, export=service)
    with TestClient(app, base_url=factories.SITE) as client:
        files = client.get("/api/v1/export", headers=add_key(store, "bulk")).json()["files"]
        exports.reads.clear()
        yield client, exports, next(f for f in files if f["name"] == GAMES_JSONL)


def test_a_download_is_streamed_with_the_manifests_etag(counted_export: Any) -> None:
    client, storage, entry = counted_export
    whole = client.get(entry["url"])
    assert whole.status_code == 200
    assert hashlib.sha256(whole.content).hexdigest() == entry["sha256"]
    assert whole.headers["etag"] == f'"{entry["sha256"][:32]}"'
    assert whole.headers["accept-ranges"] == "bytes"
    assert whole.headers["content-length"] == str(entry["bytes"])
    assert storage.ranges == [("export/s1/games.jsonl.gz", 0, entry["bytes"])]
    # The manifest is read once; the file is never read whole (nor hashed).
    assert storage.reads == ["export/s1/manifest.json"]
    client.get(entry["url"])
    assert storage.reads == ["export/s1/manifest.json"]


def test_head_and_304_read_no_file(counted_export: Any) -> None:
    client, storage, entry = counted_export
    head = client.head(entry["url"])
    assert head.status_code == 200
    assert head.content == b""
    assert head.headers["content-length"] == str(entry["bytes"])
    assert head.headers["accept-ranges"] == "bytes"
    etag = head.headers["etag"]
    again = client.get(entry["url"], headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.headers["etag"] == etag
    assert storage.ranges == []


@pytest.mark.parametrize(
    ("header", "first", "last"),
    [("bytes=0-99", 0, 99), ("bytes=100-", 100, None), ("bytes=-50", None, None)],
    ids=["first-100", "open-end", "suffix-50"],
)
def test_one_range_answers_206(
    counted_export: Any, header: str, first: int | None, last: int | None
) -> None:
    client, storage, entry = counted_export
    size = entry["bytes"]
    whole = client.get(entry["url"]).content
    start = size - 50 if first is None else first
    stop = size if last is None else last + 1
    part = client.get(entry["url"], headers={"Range": header})
    assert part.status_code == 206
    assert part.content == whole[start:stop]
    assert part.headers["content-range"] == f"bytes {start}-{stop - 1}/{size}"
    assert part.headers["content-length"] == str(stop - start)
    assert part.headers["etag"] == f'"{entry["sha256"][:32]}"'
    assert storage.ranges[-1] == ("export/s1/games.jsonl.gz", start, stop)


def test_ranges_past_the_end_several_or_of_another_version(counted_export: Any) -> None:
    client, _, entry = counted_export
    size = entry["bytes"]
    past = client.get(entry["url"], headers={"Range": f"bytes={size}-"})
    assert past.status_code == 416
    assert past.headers["content-range"] == f"bytes */{size}"
    assert past.json()["code"] == "range_not_satisfiable"
    several = client.get(entry["url"], headers={"Range": "bytes=0-9,20-29"})
    assert (several.status_code, len(several.content)) == (200, size)
    stale = client.get(entry["url"], headers={"Range": "bytes=0-9", "If-Range": '"other"'})
    assert (stale.status_code, len(stale.content)) == (200, size)
    fresh = client.get(
        entry["url"], headers={"Range": "bytes=0-9", "If-Range": stale.headers["etag"]}
    )
    assert (fresh.status_code, len(fresh.content)) == (206, 10)


@pytest.mark.parametrize(
    ("if_match", "status"),
    [
        ('"other"', 412),
        ('W/"{etag}"', 412),  # compared strongly
        ('"other", "{etag}"', 200),
        ("*", 200),
        ('"{etag}"', 200),
    ],
    ids=["other", "weak", "list", "star", "same"],
)
def test_if_match_naming_another_version_is_412_before_any_read(
    counted_export: Any, if_match: str, status: int
) -> None:
    client, storage, entry = counted_export
    etag = f'"{entry["sha256"][:32]}"'
    header = if_match.replace('"{etag}"', etag)
    gate = client.app.state.export.gate
    # More answers than a client's slots: none may keep one (a leak would end in a 429).
    for _ in range(gate.per_client + 1):
        answer = client.get(entry["url"], headers={"If-Match": header, "Range": "bytes=0-9"})
        assert answer.status_code == (206 if status == 200 else 412)
        assert answer.headers["etag"] == etag
    if status == 412:
        assert answer.json()["code"] == "precondition_failed"
        assert storage.ranges == []


def test_a_web_page_can_resume_a_download(counted_export: Any) -> None:
    client, _, entry = counted_export
    preflight = client.options(
        entry["url"],
        headers={
            "Origin": "https://example.org",
            "Access-Control-Request-Method": "GET",
            "Access-Control-Request-Headers": "range, if-range",
        },
    )
    assert preflight.status_code == 204
    allowed = {
        h.strip().lower() for h in preflight.headers["access-control-allow-headers"].split(",")
    }
    assert {"range", "if-range", "if-match"} <= allowed
    part = client.get(entry["url"], headers={"Range": "bytes=0-9", "Origin": "https://example.org"})
    assert part.status_code == 206
    exposed = {h.strip().lower() for h in part.headers["access-control-expose-headers"].split(",")}
    assert {"content-range", "etag"} <= exposed


def test_a_file_missing_from_its_manifest_or_store_is_404(
    counted_export: Any, published_export: tuple[ObjectStorage, Path]
) -> None:
    client, _, entry = counted_export
    _, folder = published_export
    service: ExportService = client.app.state.export
    links = service.links
    assert links is not None
    unlisted = links("export/s1/other.parquet", int(time.time()) + 60)
    assert client.get(unlisted).status_code == 404
    path = folder / "export/s1/games.jsonl.gz"
    kept = path.read_bytes()
    path.unlink()
    try:
        assert client.get(entry["url"]).status_code == 404
    finally:
        path.write_bytes(kept)


@pytest.mark.s3
def test_signed_downloads_stream_ranges_from_s3(
    aws_env: SeaweedServer, bucket: str, tmp_path: Path
) -> None:
    """The download route over an S3 export store (ranged GetObject, read as it is sent)."""
    records = factories.small_catalog()
    snapshots, _ = factories.publish_catalog(records)
    exports = open_object_storage(f"s3://{bucket}/bulk")
    export(exports, "s1", records)
    service = ExportService(exports, links=LocalLinks("s", factories.SITE), link_seconds=600)
    store = sqlite_stores(tmp_path / "keys.sqlite3")
    quota = Quota(
        store.counter, store.keys, anonymous_limit=1000, page_limit=5000, key_cache_seconds=0
    )
    source = SnapshotSource(snapshots, cache_bytes=1 << 20, poll_seconds=3600)
    app = create_app(Settings(site_url=factories.SITE), source, quota, follow=False, export=service)
    links = service.links
    assert links is not None
    with TestClient(app, base_url=factories.SITE) as client:
        entry = next(
            f
            for f in ExportManifest.from_bytes(exports.get(export_manifest_key("s1"))).files
            if f.name == "games.parquet"
        )
        url = links(f"export/s1/{entry.name}", int(time.time()) + 60)
        whole = client.get(url)
        assert hashlib.sha256(whole.content).hexdigest() == entry.sha256
        part = client.get(url, headers={"Range": "bytes=4-"})
        assert part.status_code == 206
        assert part.content == whole.content[4:]
        assert part.headers["content-range"] == f"bytes 4-{entry.bytes - 1}/{entry.bytes}"
