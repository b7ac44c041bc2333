"""Publishing: complete snapshots only, pointer last, unchanged bodies skipped, pruning."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator

import pytest

from bangscore.build.publish import (
    collect_garbage,
    new_snapshot_id,
    prune,
    publish,
    rollback,
    verify,
)
from bangscore.errors import PointerConflict, SnapshotError
from bangscore.manifest import (
    digest,
    list_snapshots,
    manifest_key,
    object_key,
    read_manifest,
)
from bangscore.storage import MemoryStorage, StoredObject

T0 = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)


def objects(n: int, salt: str = "") -> list[StoredObject]:
    return [StoredObject(f"games/{i}.json", f'{{"i":{i}{salt}}}'.encode()) for i in range(n)]


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (T0, "20261101T000000Z-0000"),
        (T0.replace(microsecond=500_000), "20261101T000000Z-8000"),
        (T0.replace(microsecond=999_999), "20261101T000000Z-ffff"),
        (
            dt.datetime(2026, 11, 1, 1, 30, tzinfo=dt.timezone(dt.timedelta(hours=1))),
            "20261101T003000Z-0000",
        ),
    ],
    ids=["whole-second", "half-second", "end-of-second", "offset-to-utc"],
)
def test_new_snapshot_id_is_the_utc_second_and_its_fraction(
    now: dt.datetime, expected: str
) -> None:
    assert new_snapshot_id(now) == expected


def test_snapshot_ids_sort_in_build_order_within_one_second() -> None:
    times = [T0.replace(microsecond=us) for us in (0, 16, 31, 100, 250_000, 999_984)]
    ids = [new_snapshot_id(t) for t in times]
    assert sorted(ids) == ids and len(set(ids)) == len(ids)


def test_publish_writes_bodies_manifest_then_pointer() -> None:
    store = MemoryStorage()
    report = publish(store, "s1", objects(5), created_at=T0, meta={"games": 5}, keep=7)
    assert store.read_pointer() == "s1"
    assert (report.objects, report.uploaded, report.skipped) == (5, 5, 0)
    manifest = read_manifest(store, "s1")
    assert manifest.meta == {"games": 5}
    entry = manifest.entries["games/3.json"]
    assert entry.sha256 == digest(b'{"i":3}')
    assert store.get(object_key(entry.sha256)) == b'{"i":3}'


def test_second_publish_uploads_only_changed_bodies() -> None:
    store = MemoryStorage()
    publish(store, "s1", objects(100), created_at=T0, meta={}, keep=7)
    changed = objects(100)
    changed[7] = StoredObject("games/7.json", b'{"i":7,"new":true}')
    report = publish(store, "s2", changed, created_at=T0, meta={}, keep=7)
    assert (report.uploaded, report.skipped) == (1, 99)


def test_failed_upload_leaves_the_old_snapshot_current() -> None:
    store = MemoryStorage()
    publish(store, "s1", objects(3), created_at=T0, meta={}, keep=7)

    def exploding() -> Iterator[StoredObject]:
        yield from objects(2, salt=",x")
        raise OSError("disk full half way")

    with pytest.raises(OSError, match="half way"):
        publish(store, "s2", exploding(), created_at=T0, meta={}, keep=7)
    assert store.read_pointer() == "s1"
    assert list_snapshots(store) == ["s1"]
    assert verify(store, "s1").ok


def test_losing_a_pointer_race_removes_our_manifest() -> None:
    store = MemoryStorage()
    publish(store, "s1", objects(2), created_at=T0, meta={}, keep=7)

    class Racing(MemoryStorage):
        def swap_pointer(self, new: str, expected: str | None) -> None:
            raise PointerConflict("another build won")

    racing = Racing()
    racing.objects = store.objects
    with pytest.raises(PointerConflict):
        publish(racing, "s2", objects(2, salt=",y"), created_at=T0, meta={}, keep=7)
    assert store.read_pointer() == "s1"
    assert manifest_key("s2") not in store.objects


def test_prune_keeps_the_newest_and_sweeps_orphan_bodies() -> None:
    store = MemoryStorage()
    for i in range(10):
        publish(store, f"s{i:02d}", objects(2, salt=f",{i}"), created_at=T0, meta={}, keep=7)
    assert list_snapshots(store) == [f"s{i:02d}" for i in range(3, 10)]
    live = {
        sha
        for s in list_snapshots(store)
        for e in read_manifest(store, s).entries.values()
        for sha in e.stored
    }
    assert {k.rsplit("/", 1)[1] for k in store.list_keys("objects/")} == live
    assert prune(store, keep=7) == []


def test_rollback_and_verify_detect_corruption() -> None:
    store = MemoryStorage()
    publish(store, "s1", objects(3), created_at=T0, meta={}, keep=7)
    publish(store, "s2", objects(3, salt=",2"), created_at=T0, meta={}, keep=7)
    assert rollback(store, "s1") == "s2"
    assert store.read_pointer() == "s1"
    with pytest.raises(SnapshotError):
        rollback(store, "nope")
    sha = read_manifest(store, "s1").entries["games/1.json"].sha256
    store.objects[object_key(sha)] = b"tampered"
    report = verify(store, "s1")
    assert report.corrupt == ("games/1.json",) and not report.ok


def test_corrupt_manifest_is_a_clear_error() -> None:
    store = MemoryStorage()
    store.put_many([StoredObject(manifest_key("bad"), b"{not json")])
    with pytest.raises(SnapshotError, match="corrupt manifest"):
        read_manifest(store, "bad")


def test_what_a_publish_references_is_what_its_manifest_names_and_gc_keeps_it() -> None:
    store = MemoryStorage()
    publish(store, "s1", objects(3), created_at=T0, meta={}, keep=7)
    page = StoredObject("index.html", b"<p>" + b"long page " * 200 + b"</p>", "text/html")
    report = publish(store, "s2", [*objects(4, "b"), page], created_at=T0, meta={}, keep=7)
    named = {name for e in read_manifest(store, "s2").entries.values() for name in e.stored}
    assert report.referenced == named
    page_entry = read_manifest(store, "s2").entries["index.html"]
    assert page_entry.encodings and page_entry.encodings[0].sha256 in named  # stored as gzip
    orphan = object_key("ab" + "0" * 62)  # what a build killed halfway leaves
    store.put_many([StoredObject(orphan, b"orphan")])
    later = time.time() + 60  # everything is past the grace period
    known = {"s2": report.referenced}  # s2's manifest is not read back; s1's is
    assert collect_garbage(store, grace_seconds=0, now=later, known=known) == (1, 6)
    assert all(verify(store, sid).ok for sid in ("s1", "s2"))
