"""The Bulk export's format, as the builder writes it and the server reads it: the keys of the
export store, the manifest (:class:`ExportManifest`), reading the newest one, and download
links (docs/API.md#bulk-export).

Layout in the export store (a folder or ``s3://bucket/prefix``, separate from snapshots)::

    export/<snapshot id>/games.jsonl.gz     one detail record per line, in list order
    export/<snapshot id>/games.csv.gz       the same records flattened
    export/<snapshot id>/changes.jsonl.gz   {"appid", "change", "record"} per game added,
                                            changed or removed since the previous export
    export/<snapshot id>/manifest.json      snapshot id, created_at, and per file: name,
                                            format, bytes, sha256, rows, schema_version
    export/latest.json                      a copy of the newest manifest, written last

The writer is :mod:`bangscore.build.export`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import orjson
from pydantic import BaseModel, ConfigDict, Field

from bangscore.errors import ExportError as ExportError
from bangscore.storage import ObjectNotFound, ObjectStorage

SCHEMA_VERSION = 1
PREFIX = "export/"
LATEST_KEY = "export/latest.json"
GAMES_JSONL = "games.jsonl.gz"
GAMES_CSV = "games.csv.gz"
CHANGES_JSONL = "changes.jsonl.gz"
GZIP_TYPE = "application/gzip"


ExportFileName = Literal["games.jsonl.gz", "games.csv.gz", "changes.jsonl.gz"]


class ExportFileLink(BaseModel):
    """One file of ``GET /api/v1/export``'s answer: the manifest's entry and its download link
    (docs/API.md#export)."""

    model_config = ConfigDict(
        extra="ignore", frozen=True, json_schema_extra={"additionalProperties": False}
    )

    name: ExportFileName = Field(description="The file's name.")
    format: Literal["jsonl", "csv"] = Field(description="jsonl: one JSON object a line; csv.")
    compression: Literal["gzip"] = Field(
        description="gzip with a fixed header: equal content gives equal bytes."
    )
    bytes: int = Field(ge=0, description="Size of the compressed file.")
    sha256: str = Field(pattern="^[0-9a-f]{64}$", description="SHA-256 of the file, hex.")
    rows: int = Field(ge=0, description="Data rows (a CSV header is not one).")
    schema_version: int = Field(ge=1, description="The export format's version.")
    url: str = Field(
        json_schema_extra={"format": "uri"}, description="The download link: no key, not counted."
    )
    expires_at: dt.datetime = Field(description="When the link stops working (UTC).")


class ExportAnswer(BaseModel):
    """``GET /api/v1/export``'s answer: the newest export's manifest with download links
    (docs/API.md#export)."""

    model_config = ConfigDict(
        extra="ignore", frozen=True, json_schema_extra={"additionalProperties": False}
    )

    snapshot: str = Field(description="The snapshot the export was built with.")
    created_at: dt.datetime = Field(description="When the export was written (UTC).")
    previous: str | None = Field(
        description="The export changes.jsonl.gz compares with, or null for the first."
    )
    expires_at: dt.datetime = Field(description="When the links stop working (UTC).")
    files: list[ExportFileLink] = Field(description="The three files.")


def file_key(snapshot_id: str, name: str) -> str:
    """Given a snapshot id and a file name, return the file's key in the export store."""
    return f"{PREFIX}{snapshot_id}/{name}"


def export_manifest_key(snapshot_id: str) -> str:
    """Given a snapshot id, return the key of its export manifest."""
    return file_key(snapshot_id, "manifest.json")


@dataclass(frozen=True, slots=True)
class ExportFile:
    """One exported file: name, format (jsonl/csv), size in bytes, SHA-256 hex, data rows."""

    name: str
    format: str
    bytes: int
    sha256: str
    rows: int
    schema_version: int = SCHEMA_VERSION

    def to_json(self) -> dict[str, Any]:
        """Return the file as the manifest lists it."""
        return {
            "name": self.name,
            "format": self.format,
            "compression": "gzip",
            "bytes": self.bytes,
            "sha256": self.sha256,
            "rows": self.rows,
            "schema_version": self.schema_version,
        }


@dataclass(frozen=True)
class ExportManifest:
    """An export's manifest: snapshot id, creation time, the previous export's id, files."""

    snapshot: str
    created_at: dt.datetime
    previous: str | None
    files: tuple[ExportFile, ...]

    def to_bytes(self) -> bytes:
        """Return the manifest as JSON bytes."""
        return orjson.dumps(
            {
                "schema_version": SCHEMA_VERSION,
                "snapshot": self.snapshot,
                "created_at": self.created_at.isoformat(),
                "previous": self.previous,
                "files": [f.to_json() for f in self.files],
            }
        )

    @classmethod
    def from_bytes(cls, raw: bytes) -> ExportManifest:
        """Given manifest bytes, return the manifest; raise ExportError if corrupt."""
        try:
            data = orjson.loads(raw)
            files = tuple(
                ExportFile(
                    name=str(f["name"]),
                    format=str(f["format"]),
                    bytes=int(f["bytes"]),
                    sha256=str(f["sha256"]),
                    rows=int(f["rows"]),
                    schema_version=int(f["schema_version"]),
                )
                for f in data["files"]
            )
            return cls(
                snapshot=str(data["snapshot"]),
                created_at=dt.datetime.fromisoformat(data["created_at"]),
                previous=data["previous"],
                files=files,
            )
        except (ValueError, KeyError, TypeError, orjson.JSONDecodeError) as exc:
            raise ExportError(f"corrupt export manifest: {exc}") from exc


def read_latest(storage: ObjectStorage) -> ExportManifest | None:
    """Given an export store, return its newest manifest, or None if nothing was exported.

    Raises ExportError if latest.json is corrupt, ObjectStorageUnavailable if the store is down.
    """
    try:
        return ExportManifest.from_bytes(storage.get(LATEST_KEY))
    except ObjectNotFound:
        return None


# -- download links ---------------------------------------------------------------------------


class LinkSigner(Protocol):
    """Makes a download URL for a key of a store that cannot presign (a local folder)."""

    def __call__(self, key: str, expires_at: int) -> str:
        """Given a key and the Unix second it expires, return the URL."""
        ...


@dataclass(frozen=True, slots=True)
class Link:
    """A download link: URL and the Unix second it stops working."""

    url: str
    expires_at: int


def presigned_urls(
    storage: ObjectStorage,
    manifest: ExportManifest,
    *,
    expires_in: int,
    now: float,
    fallback: LinkSigner | None = None,
) -> dict[str, Link]:
    """Given an export store, a manifest, a lifetime (seconds) and the time (Unix seconds),
    return a download Link per file name.

    An S3 store presigns GET URLs (computed locally, no request); any other store needs
    ``fallback`` (the shim's signed ``/export/...`` links). Raises ValueError without one.
    """
    presign: Callable[[str, int], str] | None = getattr(storage, "presigned_url", None)
    expires_at = int(now) + expires_in
    links: dict[str, Link] = {}
    for entry in manifest.files:
        key = file_key(manifest.snapshot, entry.name)
        if presign is not None:
            links[entry.name] = Link(presign(key, expires_in), expires_at)
        elif fallback is not None:
            links[entry.name] = Link(fallback(key, expires_at), expires_at)
        else:
            raise ValueError(f"{storage.location} cannot presign URLs and no fallback was given")
    return links
