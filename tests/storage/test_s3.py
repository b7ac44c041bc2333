"""Tests of the S3 backend (build.s3) and of publishing through it, against a real SeaweedFS.

Nothing here mocks S3: faults are injected by wrapping the real S3Storage (a put_many that
stops half way, a barrier that makes two publishers race for the pointer) or by writing
straight into the bucket (a corrupted body).
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from bangscore.build.publish import publish, rollback, verify
from bangscore.build.snapshot import snapshot_objects
from bangscore.contract.objects import detail_key
from bangscore.errors import ObjectNotFound, ObjectStorageUnavailable, PointerConflict
from bangscore.manifest import list_snapshots, manifest_key, object_key, read_manifest
from bangscore.scoring.pipeline import score_catalog
from bangscore.storage import ObjectStorage, StoredObject, open_object_storage
from bangscore.storage.objects import READ_CHUNK, RangeReader
from bangscore.storage.s3 import IMMUTABLE, REVALIDATE, S3Config, S3Storage, cache_control
from tests.support import factories
from tests.support.servers import SeaweedServer, free_port_pair

T0 = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)


# -- pure parts -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "bucket", "prefix"),
    [
        ("s3://snaps", "snaps", ""),
        ("s3://snaps/", "snaps", ""),
        ("s3://snaps/prod", "snaps", "prod"),
        ("s3://snaps/prod/eu/", "snaps", "prod/eu"),
    ],
    ids=["bucket", "bucket-slash", "prefix", "nested-prefix"],
)
def test_config_from_url(url: str, bucket: str, prefix: str) -> None:
    config = S3Config.from_url(url)
    assert (config.bucket, config.prefix) == (bucket, prefix)


@pytest.mark.parametrize(
    "url", ["s3://", "http://snaps/x", "snaps/x"], ids=["empty", "http", "bare"]
)
def test_config_refuses_non_s3_urls(url: str) -> None:
    with pytest.raises(ValueError, match="s3://"):
        S3Config.from_url(url)


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("objects/ab/ab12", IMMUTABLE),
        ("snapshots/s1.json", REVALIDATE),
        ("current", REVALIDATE),
        ("export/s1/games.csv.gz", IMMUTABLE),
        ("export/latest.json", REVALIDATE),
    ],
    ids=["body", "manifest", "pointer", "export-file", "export-latest"],
)
def test_cache_control(key: str, expected: str) -> None:
    assert cache_control(key) == expected


def test_unreachable_store_is_unavailable() -> None:
    port = free_port_pair(set())  # nothing listens there
    config = S3Config(
        "b",
        endpoint_url=f"http://127.0.0.1:{port}",
        access_key="k",
        secret_key="s",
        region="us-east-1",
        max_attempts=1,
        connect_timeout=0.5,
    )
    storage = S3Storage(config)
    with pytest.raises(ObjectStorageUnavailable):
        storage.get("objects/aa/aa")
    with pytest.raises(ObjectStorageUnavailable):
        storage.read_pointer()


# -- against SeaweedFS ------------------------------------------------------------------------


@pytest.fixture
def s3_factory(seaweed: SeaweedServer, bucket: str) -> Callable[..., S3Storage]:
    """Return a factory of S3Storage on the test's bucket: prefix and config overrides."""

    def make(prefix: str = "snap", **options: Any) -> S3Storage:
        return S3Storage(
            S3Config(
                bucket,
                prefix,
                endpoint_url=seaweed.endpoint,
                region=seaweed.region,
                access_key=seaweed.access_key,
                secret_key=seaweed.secret_key,
                **options,
            )
        )

    return make


def objects(n: int, salt: str = "") -> list[StoredObject]:
    return [StoredObject(f"games/{i}.json", f'{{"i":{i}{salt}}}'.encode()) for i in range(n)]


def render(records: list[Any], snapshot_id: str) -> Iterator[StoredObject]:
    games = score_catalog(records)
    return snapshot_objects(games, site_url=factories.SITE, base_url=factories.SITE)


def publish_records(storage: ObjectStorage, snapshot_id: str, records: list[Any]) -> None:
    meta = {"games": len(records)}
    publish(storage, snapshot_id, render(records, snapshot_id), created_at=T0, meta=meta, keep=7)


@pytest.mark.s3
@pytest.mark.parametrize("processes", [1, 2], ids=["threads", "processes"])
def test_put_many_writes_headers_and_checksums(
    s3_factory: Callable[..., S3Storage], seaweed: SeaweedServer, bucket: str, processes: int
) -> None:
    storage = s3_factory(threads=4, processes=processes)
    body = b'{"appid":620}'
    sha = hashlib.sha256(body).hexdigest()
    written = storage.put_many(
        [StoredObject(object_key(sha), body), *objects(30), StoredObject("snapshots/x.json", b"{}")]
    )
    assert written == 32
    assert storage.get(object_key(sha)) == body
    head = seaweed.client().head_object(
        Bucket=bucket, Key=f"snap/{object_key(sha)}", ChecksumMode="ENABLED"
    )
    assert head["ContentType"] == "application/json"
    assert head["CacheControl"] == IMMUTABLE
    assert head["ChecksumSHA256"] == base64.b64encode(hashlib.sha256(body).digest()).decode()
    manifest_head = seaweed.client().head_object(Bucket=bucket, Key="snap/snapshots/x.json")
    assert manifest_head["CacheControl"] == REVALIDATE


@pytest.mark.s3
def test_get_list_delete_under_prefix(s3_factory: Callable[..., S3Storage]) -> None:
    storage = s3_factory("p1")
    other = s3_factory("p2")
    storage.put_many(objects(3))
    other.put_many([StoredObject("games/9.json", b"9")])
    assert list(storage.list_keys("games/")) == ["games/0.json", "games/1.json", "games/2.json"]
    assert list(other.list_keys("")) == ["games/9.json"]
    with pytest.raises(ObjectNotFound):
        storage.get("games/9.json")
    assert storage.delete_many(["games/0.json", "games/1.json"]) == 2
    assert list(storage.list_keys("games/")) == ["games/2.json"]
    assert other.get("games/9.json") == b"9"


def read_all(reader: RangeReader) -> list[bytes]:
    chunks = []
    while chunk := reader.read():
        chunks.append(chunk)
    reader.close()
    return chunks


@pytest.mark.s3
def test_open_range_streams_a_ranged_get_in_chunks(s3_factory: Callable[..., S3Storage]) -> None:
    storage = s3_factory("bulk")
    body = bytes(range(256)) * (1 << 10)  # 256 KiB
    storage.put_many([StoredObject("export/s1/games.parquet", body)])
    chunks = read_all(storage.open_range("export/s1/games.parquet", 0, len(body)))
    assert [len(c) for c in chunks] == [READ_CHUNK] * 4
    assert b"".join(chunks) == body
    assert (
        b"".join(read_all(storage.open_range("export/s1/games.parquet", 1000, 1100)))
        == (body[1000:1100])
    )
    assert read_all(storage.open_range("export/s1/games.parquet", 5, 5)) == []
    with pytest.raises(ObjectNotFound):
        storage.open_range("export/s1/gone.parquet", 0, 10)
    # A range past what the store holds (the object shorter than its manifest says) is an
    # unavailable store, never a short file passed off as whole.
    short = storage.open_range("export/s1/games.parquet", len(body) - 10, len(body) + 10)
    with pytest.raises(ObjectStorageUnavailable):
        read_all(short)
    short.close()


@pytest.mark.s3
def test_swap_pointer_is_compare_and_swap(s3_factory: Callable[..., S3Storage]) -> None:
    storage = s3_factory()
    assert storage.read_pointer() is None
    storage.swap_pointer("a", None)
    with pytest.raises(PointerConflict):
        storage.swap_pointer("b", None)
    with pytest.raises(PointerConflict):
        storage.swap_pointer("b", "z")
    storage.swap_pointer("b", "a")
    assert storage.read_pointer() == "b"


@pytest.mark.s3
@pytest.mark.parametrize("start", [None, "s0"], ids=["create", "replace"])
def test_racing_swaps_have_exactly_one_winner(
    s3_factory: Callable[..., S3Storage], start: str | None
) -> None:
    storage = s3_factory()
    if start is not None:
        storage.swap_pointer(start, None)
    racers = 8
    gate = threading.Barrier(racers)

    def race(i: int) -> bool:
        gate.wait()
        try:
            storage.swap_pointer(f"s{i + 1}", start)
        except PointerConflict:
            return False
        return True

    with ThreadPoolExecutor(racers) as pool:
        wins = list(pool.map(race, range(racers)))
    assert sum(wins) == 1
    assert storage.read_pointer() == f"s{wins.index(True) + 1}"


@pytest.mark.s3
def test_open_storage_reads_standard_aws_settings(aws_env: SeaweedServer, bucket: str) -> None:
    storage = open_object_storage(f"s3://{bucket}/from-env")
    storage.put_many([StoredObject("a.json", b"1")])
    assert storage.get("a.json") == b"1"
    assert storage.location == f"s3://{bucket}/from-env"


@pytest.mark.s3
def test_publish_then_incremental_publish_skips_unchanged(
    s3_factory: Callable[..., S3Storage],
) -> None:
    storage = s3_factory()
    records = factories.small_catalog()
    publish_records(storage, "s1", records)
    assert storage.read_pointer() == "s1"
    assert verify(storage, "s1").ok
    first = read_manifest(storage, "s1")

    changed = [records[0].model_copy(update={"price_usd": 1.99}), *records[1:]]
    report = publish(storage, "s2", render(changed, "s2"), created_at=T0, meta={}, keep=7)
    second = read_manifest(storage, "s2")
    old_digests = {e.stored[0] for e in first.entries.values()}
    new_digests = {e.stored[0] for e in second.entries.values()} - old_digests
    assert report.uploaded == len(new_digests) > 0
    assert report.skipped == report.objects - report.uploaded
    # The repriced game's record is new; every other game's record was skipped.
    assert second.entries[detail_key(records[0].appid)].stored[0] in new_digests
    for record in records[1:]:
        assert second.entries[detail_key(record.appid)] == first.entries[detail_key(record.appid)]
    assert storage.read_pointer() == "s2"
    assert verify(storage, "s2").ok


class Racing:
    """A ObjectStorage wrapper whose swap_pointer waits until every racer has reached it."""

    def __init__(self, inner: S3Storage, gate: threading.Barrier) -> None:
        self.inner = inner
        self.gate = gate
        self.location = inner.location

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def swap_pointer(self, new: str, expected: str | None) -> None:
        self.gate.wait()
        self.inner.swap_pointer(new, expected)


@pytest.mark.s3
def test_two_concurrent_publishers_one_wins(s3_factory: Callable[..., S3Storage]) -> None:
    storage = s3_factory()
    publish_records(storage, "s0", factories.small_catalog()[:10])
    gate = threading.Barrier(2)
    catalogs = {"a": factories.small_catalog()[:20], "b": factories.small_catalog()[20:]}

    def run(name: str) -> str:
        try:
            publish_records(Racing(s3_factory(), gate), f"s1-{name}", catalogs[name])
        except PointerConflict:
            return "lost"
        return "won"

    with ThreadPoolExecutor(2) as pool:
        outcomes = dict(zip("ab", pool.map(run, "ab"), strict=True))
    assert sorted(outcomes.values()) == ["lost", "won"]
    winner = next(n for n, o in outcomes.items() if o == "won")
    loser = next(n for n, o in outcomes.items() if o == "lost")
    assert storage.read_pointer() == f"s1-{winner}"
    assert read_manifest(storage, f"s1-{winner}").meta["games"] == len(catalogs[winner])
    assert verify(storage, f"s1-{winner}").ok
    assert list_snapshots(storage) == ["s0", f"s1-{winner}"]  # the loser's manifest is gone
    assert f"s1-{loser}" not in list_snapshots(storage)


class FailingAfter:
    """A ObjectStorage wrapper whose put_many writes ``n`` objects, then raises (a dying upload)."""

    def __init__(self, inner: S3Storage, n: int) -> None:
        self.inner = inner
        self.n = n
        self.location = inner.location

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def put_many(self, objects: Iterable[StoredObject]) -> int:
        def limited() -> Iterator[StoredObject]:
            for i, obj in enumerate(objects):
                if i == self.n:
                    raise ObjectStorageUnavailable("connection reset half way")
                yield obj

        return self.inner.put_many(limited())


@pytest.mark.s3
def test_upload_failing_half_way_leaves_old_snapshot_current(
    s3_factory: Callable[..., S3Storage],
) -> None:
    storage = s3_factory()
    publish_records(storage, "s1", factories.small_catalog()[:10])
    before = set(storage.list_keys("objects/"))
    broken = FailingAfter(storage, 25)
    with pytest.raises(ObjectStorageUnavailable, match="half way"):
        publish_records(broken, "s2", factories.small_catalog())
    assert storage.read_pointer() == "s1"
    assert list_snapshots(storage) == ["s1"]
    with pytest.raises(ObjectNotFound):
        storage.get(manifest_key("s2"))
    # Up to 25 bodies may have landed; none is referenced by any manifest.
    assert len(set(storage.list_keys("objects/")) - before) <= 25
    assert verify(storage, "s1").ok


@pytest.mark.s3
def test_rollback_moves_pointer_back(s3_factory: Callable[..., S3Storage]) -> None:
    storage = s3_factory()
    publish_records(storage, "s1", factories.small_catalog()[:5])
    publish_records(storage, "s2", factories.small_catalog()[5:15])
    assert rollback(storage, "s1") == "s2"
    assert storage.read_pointer() == "s1"
    assert read_manifest(storage, "s1").meta["games"] == 5


@pytest.mark.s3
def test_verify_finds_a_corrupted_object(
    s3_factory: Callable[..., S3Storage], seaweed: SeaweedServer, bucket: str
) -> None:
    storage = s3_factory()
    publish_records(storage, "s1", factories.small_catalog()[:5])
    manifest = read_manifest(storage, "s1")
    sha = manifest.entries[sorted(manifest.entries)[0]].stored[0]
    holders = sorted(k for k, e in manifest.entries.items() if e.stored[0] == sha)
    seaweed.client().put_object(Bucket=bucket, Key=f"snap/{object_key(sha)}", Body=b"tampered")
    gone = next(e.stored[0] for k, e in sorted(manifest.entries.items()) if e.stored[0] != sha)
    storage.delete_many([object_key(gone)])
    report = verify(storage, "s1")
    assert not report.ok
    assert sorted(report.corrupt) == holders
    assert sorted(report.missing) == sorted(
        k for k, e in manifest.entries.items() if e.stored[0] == gone
    )
    assert report.checked == len(manifest.entries)


@pytest.mark.s3
def test_prune_keeps_the_newest_on_s3(s3_factory: Callable[..., S3Storage]) -> None:
    storage = s3_factory()
    for i in range(4):
        records = [factories.make_record(appid=500 + i, name=f"Only {i}")]
        publish(storage, f"s{i}", render(records, f"s{i}"), created_at=T0, meta={}, keep=2)
    assert list_snapshots(storage) == ["s2", "s3"]
    live = {
        sha
        for s in ("s2", "s3")
        for e in read_manifest(storage, s).entries.values()
        for sha in e.stored
    }
    assert {k.rsplit("/", 1)[1] for k in storage.list_keys("objects/")} == live


@pytest.mark.parametrize(
    ("url", "fields"),
    [
        ("s3://bucket", {"threads": 16, "processes": 1}),
        ("s3://b/p?threads=8&processes=2", {"threads": 8, "processes": 2}),
        ("s3://b/p?read_timeout=1.5", {"read_timeout": 1.5}),
    ],
    ids=["defaults", "tuning", "timeout"],
)
def test_config_tuning_from_url(url: str, fields: dict[str, object]) -> None:
    config = S3Config.from_url(url)
    assert {name: getattr(config, name) for name in fields} == fields


@pytest.mark.parametrize(
    "url", ["http://b/p", "s3:///p", "s3://b/p?thread=8"], ids=["scheme", "no-bucket", "option"]
)
def test_config_from_url_rejects(url: str) -> None:
    with pytest.raises(ValueError):
        S3Config.from_url(url)
