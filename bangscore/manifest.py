"""The snapshot format both sides read: object keys, the manifest, content digests and ETags.

Layout in an object storage (local folder, S3 prefix, memory)::

    objects/<aa>/<sha256>       immutable bodies, named by the SHA-256 of their bytes
    snapshots/<id>.json         the manifest: every key of the snapshot -> digest, type, size
    current                     the id of the live snapshot

The builder writes this layout (:mod:`bangscore.build.publish`); the server reads it
(:mod:`bangscore.shim.source`); ``bangscore snapshots verify`` checks it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import Any

import orjson
from tqdm import tqdm

from bangscore.errors import SnapshotError as SnapshotError
from bangscore.storage import ObjectNotFound, ObjectStorage

MANIFEST_SCHEMA = 1


def digest(body: bytes) -> str:
    """Given bytes, return their SHA-256 as 64 hex digits (the content address of an object)."""
    return hashlib.sha256(body).hexdigest()


def etag_from_digest(sha256_hex: str) -> str:
    """Given a SHA-256 hex digest, return the strong ETag built from it (quoted, 128 bits)."""
    return '"' + sha256_hex[:32] + '"'


def etag_for(body: bytes) -> str:
    """Given response bytes, return their strong ETag (the same as the builder's manifest)."""
    return etag_from_digest(digest(body))


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


def read_manifest(storage: ObjectStorage, snapshot_id: str) -> Manifest:
    """Given a store and a snapshot id, return its manifest; raise SnapshotError if absent."""
    try:
        return Manifest.from_bytes(storage.get(manifest_key(snapshot_id)))
    except ObjectNotFound as exc:
        raise SnapshotError(f"no snapshot {snapshot_id!r} in {storage.location}") from exc


def list_snapshots(storage: ObjectStorage) -> list[str]:
    """Given a store, return the ids of its snapshots, oldest first."""
    ids = [
        key.removeprefix("snapshots/").removesuffix(".json")
        for key in storage.list_keys("snapshots/")
        if key.endswith(".json")
    ]
    return sorted(ids)


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


def verify(storage: ObjectStorage, snapshot_id: str, *, progress: bool = False) -> VerifyReport:
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
