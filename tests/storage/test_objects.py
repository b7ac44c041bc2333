"""The storage interface's local and memory backends behave alike."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from bangscore.storage import (
    LocalStorage,
    MemoryStorage,
    ObjectNotFound,
    ObjectStorage,
    PointerConflict,
    StoredObject,
    open_object_storage,
)

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
