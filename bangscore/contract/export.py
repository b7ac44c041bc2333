"""The Bulk export's format, as the builder writes it and the server reads it: the keys of the
export store, the manifest (:class:`ExportManifest`), reading the newest one, and download
links (docs/API.md#export, docs/API.md#bulk-data).

Layout in the export store (a folder or ``s3://bucket/prefix``, separate from snapshots)::

    export/<snapshot id>/games.jsonl.gz         one detail record per line, in list order
    export/<snapshot id>/games.csv.gz           the same records flattened
    export/<snapshot id>/games.parquet          the same records, a typed column per field
    export/<snapshot id>/price_history.parquet  the records' lists as long tables: a row per
    export/<snapshot id>/score_history.parquet  price point, score point, tag
    export/<snapshot id>/tags.parquet
    export/<snapshot id>/forecasts.parquet      a row per game with a sale forecast
    export/<snapshot id>/changes.jsonl.gz       {"appid", "change", "record"} per game added,
                                                changed or removed since the previous export
    export/<snapshot id>/changes.parquet        the same rows, the record a struct
    export/<snapshot id>/manifest.json          the manifest (:class:`ExportManifest`)
    export/latest.json                          a copy of the newest manifest, written last

A file under a snapshot id is written once and never again (``export/<id>/<name>`` is a
permanent address: its bytes never change); the builder keeps the newest 7 exports.

The writer is :mod:`bangscore.build.export`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from bangscore.contract.api import ATTRIBUTION_TEXT
from bangscore.contract.wire_form import component_schemas, inline
from bangscore.errors import ExportError, ObjectNotFound
from bangscore.storage import ObjectStorage

SCHEMA_VERSION = 2  # 2: Parquet tables, content types, updated_at, addresses, schema, licence
PREFIX = "export/"
LATEST_KEY = "export/latest.json"
GAMES_JSONL = "games.jsonl.gz"
GAMES_CSV = "games.csv.gz"
CHANGES_JSONL = "changes.jsonl.gz"
GAMES_PARQUET = "games.parquet"
PRICE_HISTORY_PARQUET = "price_history.parquet"
SCORE_HISTORY_PARQUET = "score_history.parquet"
TAGS_PARQUET = "tags.parquet"
FORECASTS_PARQUET = "forecasts.parquet"
CHANGES_PARQUET = "changes.parquet"
GZIP_TYPE = "application/gzip"
PARQUET_TYPE = "application/vnd.apache.parquet"  # IANA, registered 2024
JSONL_TYPE = "application/jsonl"
CSV_TYPE = "text/csv"

# The terms of use 1 and 3, as docs/API.md#terms-of-use words them: the terms a Bulk
# customer redistributes the data under.
ATTRIBUTION_TERM = (
    "Attribution is required: when the data is displayed, BangScore must be credited by name "
    "with a link to its website."
)
REDISTRIBUTION_TERM = (
    "Bulk redistribution or resale of the raw dataset is forbidden, except under the Bulk / "
    "Data plan's redistribution license."
)


@dataclass(frozen=True, slots=True)
class FileKind:
    """What an export file is: its format, the media type of its content once decoded, the
    Content-Encoding of its bytes (None: none), its compression and the table it holds."""

    format: str
    content_type: str
    content_encoding: str | None
    compression: str
    table: str


# Every file of an export, in the manifest's order. A Parquet file compresses inside (zstd,
# per column chunk): its bytes are the file itself, no encoding.
FILES: dict[str, FileKind] = {
    GAMES_JSONL: FileKind("jsonl", JSONL_TYPE, "gzip", "gzip", "games"),
    GAMES_CSV: FileKind("csv", CSV_TYPE, "gzip", "gzip", "games"),
    CHANGES_JSONL: FileKind("jsonl", JSONL_TYPE, "gzip", "gzip", "changes"),
    GAMES_PARQUET: FileKind("parquet", PARQUET_TYPE, None, "zstd", "games"),
    PRICE_HISTORY_PARQUET: FileKind("parquet", PARQUET_TYPE, None, "zstd", "price_history"),
    SCORE_HISTORY_PARQUET: FileKind("parquet", PARQUET_TYPE, None, "zstd", "score_history"),
    TAGS_PARQUET: FileKind("parquet", PARQUET_TYPE, None, "zstd", "tags"),
    FORECASTS_PARQUET: FileKind("parquet", PARQUET_TYPE, None, "zstd", "forecasts"),
    CHANGES_PARQUET: FileKind("parquet", PARQUET_TYPE, None, "zstd", "changes"),
}


def file_kind(name: str) -> FileKind:
    """Given an export file's name, return its kind; a name not in :data:`FILES` (a file of a
    newer export format) is taken by its extension: ``.gz`` gzip, else Parquet."""
    if name in FILES:
        return FILES[name]
    if name.endswith(".gz"):
        return FileKind(name.split(".")[-2], GZIP_TYPE, "gzip", "gzip", "")
    return FileKind("parquet", PARQUET_TYPE, None, "zstd", "")


def download_type(name: str) -> str:
    """Given an export file's name, return the Content-Type its download answers: a gzip file
    as ``application/gzip`` (so no HTTP client decodes it on the way), Parquet as itself."""
    kind = file_kind(name)
    return GZIP_TYPE if kind.content_encoding == "gzip" else kind.content_type


def file_key(snapshot_id: str, name: str) -> str:
    """Given a snapshot id and a file name, return the file's key in the export store."""
    return f"{PREFIX}{snapshot_id}/{name}"


def export_manifest_key(snapshot_id: str) -> str:
    """Given a snapshot id, return the key of its export manifest."""
    return file_key(snapshot_id, "manifest.json")


def file_address(base_url: str, snapshot_id: str, name: str) -> str:
    """Given the API's base URL, a snapshot id and a file name, return the file's permanent
    address, ``{base_url}/export/<snapshot id>/<name>``: the bytes there never change."""
    return f"{base_url.rstrip('/')}/{file_key(snapshot_id, name)}"


@dataclass(frozen=True, slots=True)
class ExportFile:
    """One exported file: name, format, size in bytes, SHA-256 hex, data rows, when its
    content was last different (``updated_at``: the export that first wrote these bytes) and
    its permanent address."""

    name: str
    format: str
    bytes: int
    sha256: str
    rows: int
    updated_at: dt.datetime
    address: str
    schema_version: int = SCHEMA_VERSION

    def to_json(self) -> dict[str, Any]:
        """Return the file as the manifest lists it (:data:`FILES` gives its content type,
        encoding, compression and table)."""
        kind = file_kind(self.name)
        return {
            "name": self.name,
            "format": self.format,
            "table": kind.table,
            "content_type": kind.content_type,
            "content_encoding": kind.content_encoding,
            "compression": kind.compression,
            "bytes": self.bytes,
            "sha256": self.sha256,
            "rows": self.rows,
            "updated_at": self.updated_at.isoformat(),
            "address": self.address,
            "schema_version": self.schema_version,
        }


@dataclass(frozen=True, slots=True)
class SourceLicence:
    """A bundled source: its folder under data/raw, its origin and its licence as stated
    (data/README.md#licences)."""

    folder: str
    origin: str
    licence: str

    def to_json(self) -> dict[str, str]:
        """Return the source as the manifest lists it."""
        return {"folder": self.folder, "origin": self.origin, "licence": self.licence}


def licence_terms(site_url: str) -> dict[str, Any]:
    """Given the website's URL, return the manifest's ``licence``: the Bulk / Data plan's
    redistribution licence, the two terms it is granted under and the attribution to show."""
    return {
        "name": "BangScore Bulk / Data redistribution license",
        "plan": "bulk",
        "redistribution": "allowed to holders of a Bulk / Data plan key, under these terms",
        "terms": [ATTRIBUTION_TERM, REDISTRIBUTION_TERM],
        "attribution": {"required": True, "text": ATTRIBUTION_TEXT, "url": site_url},
    }


Table = tuple[dict[str, Any], ...]  # columns: name, type, nullable, unit, description


@dataclass(frozen=True)
class ExportManifest:
    """An export's manifest: snapshot id, creation time, the previous export's id, files, the
    tables' columns by table name, the licence terms and the bundled sources' licences."""

    snapshot: str
    created_at: dt.datetime
    previous: str | None
    files: tuple[ExportFile, ...]
    tables: dict[str, Table] = field(default_factory=dict)
    licence: dict[str, Any] = field(default_factory=dict)
    sources: tuple[SourceLicence, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """Return the manifest as JSON values (docs/API.md#export; schema:
        docs/export-manifest.schema.json)."""
        return {
            "schema_version": SCHEMA_VERSION,
            "snapshot": self.snapshot,
            "created_at": self.created_at.isoformat(),
            "previous": self.previous,
            "licence": self.licence,
            "sources": [s.to_json() for s in self.sources],
            "tables": {name: {"columns": list(cols)} for name, cols in self.tables.items()},
            "files": [f.to_json() for f in self.files],
        }

    def to_bytes(self) -> bytes:
        """Return the manifest as JSON bytes."""
        # Imported here: the Python client imports this module for ExportAnswer, and a
        # client-only install has httpx and pydantic, not orjson (docs/API.md#python-client).
        import orjson

        return orjson.dumps(self.to_json())

    @classmethod
    def from_bytes(cls, raw: bytes) -> ExportManifest:
        """Given manifest bytes (schema version 1 or 2), return the manifest; raise ExportError
        if corrupt. A version 1 manifest's files read as updated at its creation, addressed by
        their key, with no tables, licence or sources."""
        import orjson  # here, not at the top: see to_bytes

        try:
            data = orjson.loads(raw)
            created_at = dt.datetime.fromisoformat(data["created_at"])
            snapshot = str(data["snapshot"])
            files = tuple(
                ExportFile(
                    name=str(f["name"]),
                    format=str(f["format"]),
                    bytes=int(f["bytes"]),
                    sha256=str(f["sha256"]),
                    rows=int(f["rows"]),
                    updated_at=dt.datetime.fromisoformat(f.get("updated_at") or data["created_at"]),
                    address=str(f.get("address") or file_key(snapshot, str(f["name"]))),
                    schema_version=int(f["schema_version"]),
                )
                for f in data["files"]
            )
            return cls(
                snapshot=snapshot,
                created_at=created_at,
                previous=data["previous"],
                files=files,
                tables={
                    str(name): tuple(dict(c) for c in table["columns"])
                    for name, table in data.get("tables", {}).items()
                },
                licence=_object(data.get("licence", {})),
                sources=tuple(
                    SourceLicence(str(s["folder"]), str(s["origin"]), str(s["licence"]))
                    for s in data.get("sources", [])
                ),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:  # JSONDecodeError too
            raise ExportError(f"corrupt export manifest: {exc}") from exc


def _object(value: Any) -> dict[str, Any]:
    """Given a JSON value, return it if it is an object; raise TypeError otherwise."""
    if not isinstance(value, dict):
        raise TypeError(f"an object was expected, not {type(value).__name__}")
    return value


def read_latest(storage: ObjectStorage) -> ExportManifest | None:
    """Given an export store, return its newest manifest, or None if nothing was exported.

    Raises ExportError if latest.json is corrupt, ObjectStorageUnavailable if the store is down.
    """
    try:
        return ExportManifest.from_bytes(storage.get(LATEST_KEY))
    except ObjectNotFound:
        return None


# -- the manifest's models and JSON Schema ------------------------------------------------------
# The one description of the manifest and of GET /api/v1/export's body: the builder's JSON
# (:meth:`ExportManifest.to_json`) validates against these models in the tests, the OpenAPI
# document's ``ExportManifest`` is :class:`ExportAnswer`'s schema, the Python client parses
# into it, and docs/export-manifest.schema.json is :func:`manifest_schema` written out.

SnapshotId = Annotated[str, Field(pattern="^[0-9A-Za-z][0-9A-Za-z_-]{0,63}$")]
Text = Annotated[str, Field(min_length=1)]
TableName = Literal["games", "price_history", "score_history", "tags", "forecasts", "changes"]


class _Strict(BaseModel):
    # Every member the schema names, nothing else; parsing ignores members a later version
    # adds, so the client keeps working (docs/API.md#versions-and-changes).
    model_config = ConfigDict(
        extra="ignore", frozen=True, json_schema_extra={"additionalProperties": False}
    )


class ManifestColumn(_Strict):
    """One column of an exported table, as the Parquet file types it."""

    name: Text = Field(description="The column's name.")
    type: Text = Field(description="The Arrow type of the Parquet column.")
    nullable: bool = Field(description="Whether the column may hold nulls.")
    unit: str | None = Field(description="USD, hours, percent or fraction (0-1); null for none.")
    description: Text = Field(description="What the column holds, with its source.")


class ManifestTable(_Strict):
    """One exported table: its columns, in file order."""

    columns: list[ManifestColumn] = Field(min_length=1, description="The table's columns.")


class ManifestTables(_Strict):
    """The export's tables by name, each with its columns."""

    games: ManifestTable = Field(description="One row per game: every detail field.")
    price_history: ManifestTable = Field(description="One row per price point.")
    score_history: ManifestTable = Field(description="One row per score point.")
    tags: ManifestTable = Field(description="One row per tag of a game.")
    # Optional: exports written before API 1.2.0 have no forecasts table.
    forecasts: ManifestTable | None = Field(
        default=None, description="One row per game with a sale forecast (since API 1.2.0)."
    )
    changes: ManifestTable = Field(description="One row per game changed since the previous.")


class ManifestFile(_Strict):
    """One file of an export (docs/API.md#export)."""

    name: str = Field(
        pattern="^[a-z_]+\\.(jsonl\\.gz|csv\\.gz|parquet)$", description="The file's name."
    )
    format: Literal["jsonl", "csv", "parquet"] = Field(
        description="jsonl: one JSON object a line; csv; parquet."
    )
    table: TableName = Field(description="The table the file holds.")
    content_type: Literal["application/jsonl", "text/csv", "application/vnd.apache.parquet"] = (
        Field(description="The media type of the content once decoded.")
    )
    content_encoding: Literal["gzip"] | None = Field(
        description="The encoding of the bytes (gzip), null for none (Parquet compresses inside)."
    )
    compression: Literal["gzip", "zstd"] = Field(description="How the bytes are compressed.")
    bytes: int = Field(ge=1, description="Size of the file in bytes.")
    sha256: str = Field(pattern="^[0-9a-f]{64}$", description="SHA-256 of the file, hex.")
    rows: int = Field(ge=0, description="Data rows (a CSV header is not one).")
    updated_at: dt.datetime = Field(
        description="When an export first wrote these bytes (a file equal to the previous "
        "export's keeps its updated_at)."
    )
    address: str = Field(
        pattern="/export/[0-9A-Za-z][0-9A-Za-z_-]{0,63}/[a-z_.]+$",
        description="The file's permanent address: the bytes under it never change.",
    )
    schema_version: Literal[2] = Field(description="The export format's version.")
    url: str | None = Field(
        default=None, description="GET /api/v1/export only: a download link that expires."
    )
    expires_at: dt.datetime | None = Field(
        default=None, description="GET /api/v1/export only: when url expires."
    )


class Attribution(_Strict):
    """How a customer must credit BangScore (term of use 3)."""

    required: Literal[True] = Field(description="Attribution is required.")
    text: Text = Field(description="The credit to show.")
    url: str = Field(description="The website to link to.")


class Licence(_Strict):
    """The Bulk / Data plan's redistribution licence (terms of use 1 and 3)."""

    name: Text = Field(description="The licence's name.")
    plan: Literal["bulk"] = Field(description="The plan it is granted with.")
    redistribution: Text = Field(description="Who may redistribute the data.")
    terms: list[Text] = Field(min_length=2, description="The terms it is granted under.")
    attribution: Attribution = Field(description="How to credit BangScore.")


class ManifestSource(_Strict):
    """A bundled source the export's data comes from, with its own licence."""

    folder: Text = Field(description="Its folder under data/raw.")
    origin: Text = Field(description="Where it comes from.")
    licence: Text = Field(description="Its licence, as data/README.md#licences states it.")


class ExportAnswer(_Strict):
    """An export's manifest (export/<snapshot>/manifest.json, export/latest.json) and the body
    of ``GET /api/v1/export``, which adds ``expires_at`` and each file's ``url`` and
    ``expires_at`` (docs/API.md#export)."""

    schema_version: Literal[2] = Field(description="The export format's version.")
    snapshot: SnapshotId = Field(description="The snapshot the export was built with.")
    created_at: dt.datetime = Field(description="When the export was written (UTC).")
    previous: SnapshotId | None = Field(
        description="The export the changes files compare with, or null for the first."
    )
    licence: Licence = Field(description="The terms the data is licensed under.")
    sources: list[ManifestSource] = Field(description="The bundled sources and their licences.")
    tables: ManifestTables = Field(description="Each table's columns.")
    files: list[ManifestFile] = Field(min_length=1, description="The export's files.")
    expires_at: dt.datetime | None = Field(
        default=None, description="GET /api/v1/export only: when its links expire."
    )


def manifest_schema() -> dict[str, Any]:
    """Return the JSON Schema (2020-12, no references) of :class:`ExportAnswer`: the manifest
    as the builder stores it and the ``GET /api/v1/export`` body. docs/export-manifest.schema.json
    is this, written out (a test keeps them equal)."""
    schemas = component_schemas([ExportAnswer], ref_template="#/$defs/{model}")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **inline(schemas["ExportAnswer"], schemas),
        "title": "BangScore Bulk export manifest",
        "description": "export/<snapshot>/manifest.json and export/latest.json as the builder "
        "writes them, and the body of GET /api/v1/export (docs/API.md#export).",
    }


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
    return {
        entry.name: link_to(
            storage,
            file_key(manifest.snapshot, entry.name),
            expires_in=expires_in,
            now=now,
            fallback=fallback,
        )
        for entry in manifest.files
    }


def link_to(
    storage: ObjectStorage,
    key: str,
    *,
    expires_in: int,
    now: float,
    fallback: LinkSigner | None = None,
) -> Link:
    """Given an export store, an object key, a lifetime (seconds) and the time (Unix seconds),
    return its download Link: presigned by an S3 store, else signed by ``fallback``. Raises
    ValueError without either."""
    presign: Callable[[str, int], str] | None = getattr(storage, "presigned_url", None)
    expires_at = int(now) + expires_in
    if presign is not None:
        return Link(presign(key, expires_in), expires_at)
    if fallback is not None:
        return Link(fallback(key, expires_at), expires_at)
    raise ValueError(f"{storage.location} cannot presign URLs and no fallback was given")
