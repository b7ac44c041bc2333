"""The storage interface's local and memory backends behave alike."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bangscore.errors import ObjectNotFound, ObjectStorageUnavailable, PointerConflict
from bangscore.storage import (
    LocalStorage,
    MemoryStorage,
    ObjectStorage,
    StoredObject,
    open_object_storage,
)
from bangscore.storage.object_table import FILENAME as TABLE_FILE
from bangscore.storage.objects import LOCAL_WRITERS, PUT_CHUNK, READ_CHUNK

Factory = Callable[[Path], ObjectStorage]
BACKENDS: list[Factory] = [lambda p: LocalStorage(p / "store"), lambda p: MemoryStorage()]


@pytest.fixture(params=BACKENDS, ids=["local", "memory"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> ObjectStorage:
    factory: Factory = request.param
    return factory(tmp_path)


def test_put_get_list_delete(storage: ObjectStorage) -> None:
    written = storage.put_many(
        [
            StoredObject("a/1.json", b"one"),
            StoredObject("a/2.json", b"two"),
            StoredObject("b", b"3"),
        ]
    )
    assert written == 3
    assert storage.get("a/2.json") == b"two"
    assert list(storage.list_keys("a/")) == ["a/1.json", "a/2.json"]
    assert storage.delete_many(["a/1.json", "missing"]) == 1
    with pytest.raises(ObjectNotFound):
        storage.get("a/1.json")


def test_open_range_reads_a_range_in_chunks(storage: ObjectStorage) -> None:
    body = bytes(range(256)) * 1000  # 250 KiB
    storage.put_many([StoredObject("export/s1/games.jsonl.gz", body)])
    reader = storage.open_range("export/s1/games.jsonl.gz", 100, len(body) - 100)
    chunks = []
    while chunk := reader.read():
        chunks.append(chunk)
    reader.close()
    assert max(map(len, chunks)) == READ_CHUNK
    assert b"".join(chunks) == body[100:-100]
    with pytest.raises(ObjectNotFound):
        storage.open_range("export/s1/gone.parquet", 0, 1)
    cut = storage.open_range("export/s1/games.jsonl.gz", len(body) - 5, len(body) + 5)
    assert cut.read() == body[-5:]
    with pytest.raises(ObjectStorageUnavailable, match="ended 5 bytes early"):
        cut.read()
    cut.close()


def test_pointer_is_compare_and_swap(storage: ObjectStorage) -> None:
    assert storage.read_pointer() is None
    storage.swap_pointer("s1", None)
    assert storage.read_pointer() == "s1"
    with pytest.raises(PointerConflict):
        storage.swap_pointer("s2", None)  # someone else already published
    storage.swap_pointer("s2", "s1")
    assert storage.read_pointer() == "s2"


@pytest.mark.parametrize("key", ["../x", "/abs", "a/../b", "a//b", ""], ids=repr)
def test_unsafe_keys_are_refused(storage: ObjectStorage, key: str) -> None:
    with pytest.raises(ValueError, match="unsafe"):
        storage.put_many([StoredObject(key, b"x")])


def test_local_writes_leave_no_temporary_files(tmp_path: Path) -> None:
    store = LocalStorage(tmp_path)
    store.put_many(StoredObject(f"k/{i}", b"x" * i) for i in range(20))
    assert not [p for p in tmp_path.rglob(".tmp-*")]


@pytest.mark.parametrize(
    ("location", "kind"),
    [("var/snapshots", LocalStorage), ("memory://t", MemoryStorage)],
    ids=["folder", "memory"],
)
def test_open_storage_dispatches(location: str, kind: type) -> None:
    assert isinstance(open_object_storage(location), kind)


def test_open_storage_rejects_unknown_schemes() -> None:
    with pytest.raises(ValueError, match="unsupported"):
        open_object_storage("ftp://host/x")


# -- the local folder's faults: one clear error, nothing half-written ----------------------------


def _corrupt_table(root: Path) -> None:
    """Given a local store's folder, make its objects table unreadable (not a database)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / TABLE_FILE).write_bytes(b"this is not a SQLite database" * 100)


@pytest.mark.parametrize(
    "operation",
    [
        pytest.param(lambda s: s.get("objects/ab/cdef"), id="get"),
        pytest.param(lambda s: list(s.list_keys("objects/")), id="list"),
        pytest.param(lambda s: s.delete_many(["objects/ab/cdef"]), id="delete"),
        pytest.param(lambda s: s.put_many([StoredObject("objects/ab/cdef", b"x")]), id="put"),
    ],
)
def test_an_unreadable_objects_table_is_an_unavailable_store(
    tmp_path: Path, operation: Callable[[LocalStorage], object]
) -> None:
    _corrupt_table(tmp_path / "store")
    with pytest.raises(ObjectStorageUnavailable, match=f"^{tmp_path / 'store'}: .*not a database"):
        operation(LocalStorage(tmp_path / "store"))


def test_a_file_that_cannot_be_read_is_an_unavailable_store(tmp_path: Path) -> None:
    store = LocalStorage(tmp_path)
    (tmp_path / "loop").symlink_to(tmp_path / "loop")  # ELOOP: an OSError that is not "missing"
    with pytest.raises(ObjectStorageUnavailable, match="Too many levels of symbolic links"):
        store.get("loop")


@pytest.mark.parametrize("key", ["a", "a/b"], ids=["a-folder", "under-a-file"])
def test_a_folder_or_a_path_under_a_file_is_not_found(tmp_path: Path, key: str) -> None:
    store = LocalStorage(tmp_path)
    if key == "a":
        store.put_many([StoredObject("a/x.json", b"1")])
    else:
        (tmp_path / "a").write_bytes(b"a file")
    with pytest.raises(ObjectNotFound):
        store.get(key)


def test_a_write_after_its_folder_was_pruned_makes_the_folder_again(tmp_path: Path) -> None:
    store = LocalStorage(tmp_path)
    store.put_many([StoredObject("manifests/s1.json", b"1")])
    assert store.delete_many(["manifests/s1.json"]) == 1
    assert not (tmp_path / "manifests").exists()  # pruned with its last file
    assert store.put_many([StoredObject("manifests/s2.json", b"2")]) == 1
    assert store.get("manifests/s2.json") == b"2"


def test_a_failed_write_leaves_no_temporary_file_and_stops_the_batch(tmp_path: Path) -> None:
    store = LocalStorage(tmp_path)
    (tmp_path / "m" / "taken").mkdir(parents=True)  # a folder where the file should go
    later = [StoredObject(f"m/{i}.json", b"x") for i in range(40)]
    with pytest.raises(ObjectStorageUnavailable, match="Is a directory"):
        store.put_many([StoredObject("m/taken", b"x"), *later])
    assert not list(tmp_path.rglob(".tmp-*"))
    assert list(store.list_keys("m/")) == []  # nothing past the failure was written


def test_a_failed_write_stops_the_caller_within_the_chunks_already_handed_over(
    tmp_path: Path,
) -> None:
    store = LocalStorage(tmp_path)
    (tmp_path / "m" / "taken").mkdir(parents=True)  # a folder where the file should go
    produced = 0

    def objects() -> Iterator[StoredObject]:
        nonlocal produced
        yield StoredObject("m/taken", b"x")
        for i in range(10_000):  # a catalogue's pages, rendered as the writer asks for them
            produced += 1
            yield StoredObject(f"objects/ab/{i:064x}", b"x")

    with pytest.raises(ObjectStorageUnavailable, match="Is a directory"):
        store.put_many(objects())
    # the chunk that failed, those queued behind it and the one being filled, not the 10,000
    assert produced <= (LOCAL_WRITERS * 4 + 2) * PUT_CHUNK
    assert list(store.list_keys("objects/")) == []  # nothing past the failure was written
