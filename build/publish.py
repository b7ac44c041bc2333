"""Publishing snapshots to storage: content-addressed objects, a manifest, the pointer last.

Layout in a store (local folder, S3 prefix, memory)::

    objects/<aa>/<sha256>       immutable bodies, named by the SHA-256 of their bytes
    snapshots/<id>.json         the manifest: every key of the snapshot -> digest, type, size
    current                     the id of the live snapshot

A publish writes the bodies the store does not already hold (so an unchanged page costs
nothing on the next build), then the manifest, then moves ``current`` by compare-and-swap.
Until that last step nothing of the new snapshot is visible; if any step fails, the pointer
still names the previous, complete snapshot. Pruning keeps the newest ``keep`` snapshots
(and always the current one) and sweeps the bodies no kept manifest references.
"""

from __future__ import annotations

import datetime as dt
import secrets
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson
from tqdm import tqdm

from bangscore.build.storage import ObjectNotFound, Storage, StoredObject
from bangscore.build.wire import digest

MANIFEST_SCHEMA = 1
KEEP_SNAPSHOTS = 7


class SnapshotError(Exception):
    """Raised when a snapshot is missing, its manifest is corrupt, or it cannot be published."""


def new_snapshot_id(now: dt.datetime) -> str:
    """Given the build time (UTC), return a new sortable id like ``20261122T031500Z-9f2c``."""
    return f"{now.astimezone(dt.UTC):%Y%m%dT%H%M%SZ}-{secrets.token_hex(2)}"


def object_key(sha256_hex: str) -> str:
    """Given a body's SHA-256 hex digest, return its content-addressed key."""
    return f"objects/{sha256_hex[:2]}/{sha256_hex}"


def manifest_key(snapshot_id: str) -> str:
    """Given a snapshot id, return the key of its manifest."""
    return f"snapshots/{snapshot_id}.json"


@dataclass(frozen=True, slots=True)
class Entry:
    """One object of a snapshot as its manifest records it."""

    sha256: str
    content_type: str
    size: int


@dataclass(frozen=True)
class Manifest:
    """A snapshot's manifest: id, creation time, metadata and every object's entry."""

    id: str
    created_at: dt.datetime
    meta: dict[str, Any]
    entries: dict[str, Entry]

    def to_bytes(self) -> bytes:
        """Return the manifest as JSON bytes (entries as ``[sha256, content_type, size]``)."""
        return orjson.dumps(
            {
                "schema_version": MANIFEST_SCHEMA,
                "id": self.id,
                "created_at": self.created_at.isoformat(),
                "meta": self.meta,
                "objects": {
                    k: [e.sha256, e.content_type, e.size] for k, e in sorted(self.entries.items())
                },
            }
        )

    @classmethod
    def from_bytes(cls, raw: bytes) -> Manifest:
        """Given manifest bytes, return the Manifest; raise SnapshotError if corrupt."""
        try:
            data = orjson.loads(raw)
            if data.get("schema_version") != MANIFEST_SCHEMA:
                raise ValueError(f"unknown manifest schema {data.get('schema_version')!r}")
            return cls(
                id=str(data["id"]),
                created_at=dt.datetime.fromisoformat(data["created_at"]),
                meta=dict(data["meta"]),
                entries={
                    str(k): Entry(str(v[0]), str(v[1]), int(v[2]))
                    for k, v in data["objects"].items()
                },
            )
        except (ValueError, KeyError, TypeError, IndexError, orjson.JSONDecodeError) as exc:
            raise SnapshotError(f"corrupt manifest: {exc}") from exc


def read_manifest(storage: Storage, snapshot_id: str) -> Manifest:
    """Given a store and a snapshot id, return its manifest; raise SnapshotError if absent."""
    try:
        return Manifest.from_bytes(storage.get(manifest_key(snapshot_id)))
    except ObjectNotFound as exc:
        raise SnapshotError(f"no snapshot {snapshot_id!r} in {storage.location}") from exc


def list_snapshots(storage: Storage) -> list[str]:
    """Given a store, return the ids of its snapshots, oldest first."""
    ids = [
        key.removeprefix("snapshots/").removesuffix(".json")
        for key in storage.list_keys("snapshots/")
        if key.endswith(".json")
    ]
    return sorted(ids)


@dataclass(frozen=True)
class PublishReport:
    """What a publish did: objects in the snapshot, uploaded, skipped as unchanged, bytes, time."""

    snapshot_id: str
    objects: int
    uploaded: int
    skipped: int
    bytes_total: int
    bytes_uploaded: int
    seconds: float
    pruned: tuple[str, ...]


def publish(
    storage: Storage,
    snapshot_id: str,
    objects: Iterable[StoredObject],
    *,
    created_at: dt.datetime,
    meta: dict[str, Any],
    keep: int = KEEP_SNAPSHOTS,
    progress: bool = False,
) -> PublishReport:
    """Given a store and a snapshot's objects, write them, then the manifest, then the pointer.

    Bodies already in the store (referenced by a kept manifest) are not uploaded again.
    Raises PointerConflict if another build moved the pointer meanwhile (its snapshot wins;
    ours is removed), or StorageError from the backend; in both cases ``current`` is unchanged.
    """
    started = time.perf_counter()
    expected = storage.read_pointer()
    present = _referenced(storage)
    entries: dict[str, Entry] = {}
    counts = {"uploaded": 0, "bytes_total": 0, "bytes_uploaded": 0}

    def fresh() -> Iterator[StoredObject]:
        for obj in tqdm(objects, desc="publish", unit="obj", disable=not progress):
            sha = digest(obj.body)
            entries[obj.key] = Entry(sha, obj.content_type, len(obj.body))
            counts["bytes_total"] += len(obj.body)
            if sha in present:
                continue
            present.add(sha)
            counts["uploaded"] += 1
            counts["bytes_uploaded"] += len(obj.body)
            yield StoredObject(object_key(sha), obj.body, obj.content_type)

    storage.put_many(fresh())
    manifest = Manifest(snapshot_id, created_at, meta, entries)
    storage.put_many([StoredObject(manifest_key(snapshot_id), manifest.to_bytes())])
    try:
        storage.swap_pointer(snapshot_id, expected)
    except BaseException:
        storage.delete_many([manifest_key(snapshot_id)])
        raise
    pruned = prune(storage, keep)
    return PublishReport(
        snapshot_id=snapshot_id,
        objects=len(entries),
        uploaded=counts["uploaded"],
        skipped=len(entries) - counts["uploaded"],
        bytes_total=counts["bytes_total"],
        bytes_uploaded=counts["bytes_uploaded"],
        seconds=time.perf_counter() - started,
        pruned=tuple(pruned),
    )


def _referenced(storage: Storage, ids: Iterable[str] | None = None) -> set[str]:
    found: set[str] = set()
    for snapshot_id in list_snapshots(storage) if ids is None else ids:
        try:
            found.update(e.sha256 for e in read_manifest(storage, snapshot_id).entries.values())
        except SnapshotError:
            continue  # an unreadable manifest protects nothing; verify reports it
    return found


def prune(storage: Storage, keep: int = KEEP_SNAPSHOTS) -> list[str]:
    """Given a store, delete all but the newest ``keep`` snapshots (never the current one) and
    the bodies no kept manifest references; return the ids deleted, oldest first."""
    ids = list_snapshots(storage)
    current = storage.read_pointer()
    kept = set(ids[-keep:]) | ({current} if current else set())
    doomed = [i for i in ids if i not in kept]
    storage.delete_many(manifest_key(i) for i in doomed)
    if doomed:
        live = _referenced(storage, sorted(kept))
        storage.delete_many(
            key for key in list(storage.list_keys("objects/")) if key.rsplit("/", 1)[-1] not in live
        )
    return doomed


def rollback(storage: Storage, snapshot_id: str) -> str | None:
    """Given a store and a kept snapshot id, make it current; return the previous current id.

    Raises SnapshotError if the snapshot does not exist, PointerConflict on a race.
    """
    read_manifest(storage, snapshot_id)
    previous = storage.read_pointer()
    storage.swap_pointer(snapshot_id, previous)
    return previous


@dataclass(frozen=True)
class VerifyReport:
    """Result of checking every object of a snapshot against its manifest digest."""

    snapshot_id: str
    checked: int
    missing: tuple[str, ...]
    corrupt: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Return True when no object is missing or corrupt."""
        return not self.missing and not self.corrupt


def verify(storage: Storage, snapshot_id: str, *, progress: bool = False) -> VerifyReport:
    """Given a store and a snapshot id, read every object and compare its SHA-256.

    Raises SnapshotError if the manifest itself is missing or corrupt.
    """
    manifest = read_manifest(storage, snapshot_id)
    missing: list[str] = []
    corrupt: list[str] = []
    by_digest: dict[str, list[str]] = {}
    for key, entry in manifest.entries.items():
        by_digest.setdefault(entry.sha256, []).append(key)
    for sha, keys in tqdm(by_digest.items(), desc="verify", unit="obj", disable=not progress):
        try:
            body = storage.get(object_key(sha))
        except ObjectNotFound:
            missing.extend(keys)
            continue
        if digest(body) != sha:
            corrupt.extend(keys)
    return VerifyReport(snapshot_id, len(manifest.entries), tuple(missing), tuple(corrupt))
