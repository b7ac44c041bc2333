"""Malformed snapshots, as a hostile round (issue 55) published them: each case copies a good
published snapshot under a new id with one object, manifest row or the pointer broken, and
points the pointer at it. Their bodies match their digests: only their shape is wrong, as a
builder of another version (or a damaged upload) would leave them.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable

import orjson

from bangscore.contract.compact import MAGIC
from bangscore.contract.objects import INDEX_KEY, NOT_RATED_KEY, SEARCH_KEY
from bangscore.manifest import Entry, Manifest, digest, manifest_key, object_key, read_manifest
from bangscore.storage import ObjectStorage, StoredObject
from bangscore.storage.objects import POINTER_KEY

# A game whose manifest row the damaged-manifest cases break.
DAMAGED_KEY = "games/10101.json"


def copy_as(storage: ObjectStorage, base: str, new: str, **replaced: bytes) -> Manifest:
    """Given a store, a published snapshot id, a new id and bodies by key to replace (stored
    as the identity, digests matching), write the copy's manifest (without publishing it);
    return that manifest."""
    manifest = read_manifest(storage, base)
    entries = dict(manifest.entries)
    objects = []
    for key, body in replaced.items():
        entries[key] = Entry(digest(body), "application/json", len(body))
        objects.append(StoredObject(object_key(digest(body)), body))
    copy = dataclasses.replace(manifest, id=new, entries=entries)
    objects.append(StoredObject(manifest_key(new), copy.to_bytes()))
    storage.put_many(objects)
    return copy


def point_at(storage: ObjectStorage, raw: bytes) -> None:
    """Given a store and pointer bytes (an id, or anything), write them as the pointer."""
    storage.put_many([StoredObject(POINTER_KEY, raw, "text/plain")])


def publish_copy(storage: ObjectStorage, base: str, new: str, **replaced: bytes) -> None:
    """Given a store, a published snapshot id and a new id, publish a copy (:func:`copy_as`)."""
    copy_as(storage, base, new, **replaced)
    point_at(storage, new.encode())


def _columns_as_list(storage: ObjectStorage, base: str) -> bytes:
    """The published compact index with its header's ``columns`` a list of pairs."""
    raw = storage.get(object_key(_identity(storage, base, INDEX_KEY)))
    (length,) = struct.unpack_from("<Q", raw, len(MAGIC))
    start = len(MAGIC) + 8
    header = orjson.loads(raw[start : start + length])
    header["columns"] = list(header["columns"].items())
    head = orjson.dumps(header)
    return MAGIC + struct.pack("<Q", len(head)) + head + raw[start + length :]


def _identity(storage: ObjectStorage, base: str, key: str) -> str:
    entry = read_manifest(storage, base).entries[key]
    if entry.encodings:  # the index is stored as the identity by the builder
        raise AssertionError(f"{key} is stored encoded")
    return entry.sha256


def _damaged_row(storage: ObjectStorage, base: str, new: str, fault: str) -> None:
    """Publish a copy whose manifest row of :data:`DAMAGED_KEY` is damaged: its size not a
    number (``size``), or its digest not lower-case hex (``digest``: the row no lookup finds)."""
    copy = copy_as(storage, base, new)
    entry = copy.entries[DAMAGED_KEY]
    row = orjson.dumps(entry.to_json())
    broken = row.replace(b"," + str(entry.size).encode(), b',"12x"', 1)
    if fault == "digest":
        broken = row.replace(entry.sha256.encode(), entry.sha256.upper().encode())
    raw = copy.to_bytes().replace(row, broken, 1)
    assert raw != copy.to_bytes()
    storage.put_many([StoredObject(manifest_key(new), raw)])
    point_at(storage, new.encode())


def publish_without(storage: ObjectStorage, base: str, new: str, key: str) -> None:
    """Given a store, a published snapshot id, a new id and a key, publish a copy whose
    manifest has no entry for that key."""
    copy = copy_as(storage, base, new)
    entries = {k: e for k, e in copy.entries.items() if k != key}
    raw = dataclasses.replace(copy, entries=entries).to_bytes()
    storage.put_many([StoredObject(manifest_key(new), raw)])
    point_at(storage, new.encode())


Publish = Callable[[ObjectStorage, str, str], None]
NOT_RATED_UNSORTED = {
    "reasons": ["no_reviews"],
    "appid": [2, 1],
    "reason": [0, 0],
    "name": ["b", "a"],
}

# name -> given (store, good snapshot id, new id): publish the malformed snapshot.
MALFORMED: dict[str, Publish] = {
    "index-columns-list": lambda s, b, n: publish_copy(
        s, b, n, **{INDEX_KEY: _columns_as_list(s, b)}
    ),
    "index-bad-magic": lambda s, b, n: publish_copy(s, b, n, **{INDEX_KEY: b"not an index"}),
    "index-json-shape": lambda s, b, n: publish_copy(s, b, n, **{INDEX_KEY: b'{"columns":1}'}),
    "search-list": lambda s, b, n: publish_copy(s, b, n, **{SEARCH_KEY: b"[]"}),
    "search-postings-outside": lambda s, b, n: publish_copy(
        s, b, n, **{SEARCH_KEY: b'{"entries":[],"postings":{"a":[5]}}'}
    ),
    "search-not-json": lambda s, b, n: publish_copy(s, b, n, **{SEARCH_KEY: b"\xff\x00{"}),
    "not-rated-list": lambda s, b, n: publish_copy(s, b, n, **{NOT_RATED_KEY: b"[1]"}),
    "not-rated-unsorted": lambda s, b, n: publish_copy(
        s, b, n, **{NOT_RATED_KEY: orjson.dumps(NOT_RATED_UNSORTED)}
    ),
    "manifest-without-search": lambda s, b, n: publish_without(s, b, n, SEARCH_KEY),
    "pointer-traversal": lambda s, b, n: point_at(s, b"../../etc/passwd"),
    "pointer-not-utf8": lambda s, b, n: point_at(s, b"\xff\xfe" + n.encode()),
}
DAMAGED_MANIFESTS: dict[str, Publish] = {
    "manifest-row-size": lambda s, b, n: _damaged_row(s, b, n, "size"),
    "manifest-row-digest": lambda s, b, n: _damaged_row(s, b, n, "digest"),
}
EVERY_CASE: dict[str, Publish] = {**MALFORMED, **DAMAGED_MANIFESTS}


def named_in_log(case: str, new: str) -> str:
    """Given a case and the id it was published under, return what its log line names."""
    return "snapshot pointer" if case.startswith("pointer-") else f"snapshot {new}"
