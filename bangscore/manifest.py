"""The snapshot format both sides read: object keys, the manifest, content digests and ETags.

Layout in an object storage (local folder, S3 prefix, memory)::

    objects/<aa>/<sha256>       immutable bodies, named by the SHA-256 of their stored bytes
    snapshots/<id>.json         the manifest: every key of the snapshot -> digest, type, size
                                and the encodings it is stored in
    current                     the id of the live snapshot

A body is stored once: either as it is served to a client that takes no encoding (the
identity), or, for a JSON or HTML body above :data:`COMPRESS_MIN_BYTES`, only gzip-compressed
(``Content-Encoding: gzip``); the shim decompresses for a client that takes no encoding, as
nginx's ``gzip_static always`` with ``gunzip on`` does. An entry's ``sha256`` is always the
identity's digest (its ETag and the bytes a client without an encoding gets); each encoding has
its own digest, size and so ETag (RFC 9110 8.8.3: one entity tag per representation).

The builder writes this layout (:mod:`bangscore.build.publish`); the server reads it
(:mod:`bangscore.shim.source`); ``bangscore snapshots verify`` checks it
(:func:`bangscore.build.publish.verify`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

import orjson
from zlib_ng import zlib_ng

from bangscore.errors import CorruptObject, ObjectNotFound, SnapshotError
from bangscore.storage import ObjectStorage

MANIFEST_SCHEMA = 1  # encodings are an optional fourth member: older manifests still read
GZIP = "gzip"
COMPRESS_MIN_BYTES = 1024  # below this a gzip body saves less than a TCP segment's headroom
# gzip level 6 (zlib's default), measured on 400 real bodies of each kind (25 Nov 2026): level 9
# saves under 1% more for 1.2-1.9x the time; level 1 is 9-15% larger. Brotli (the brotli wheel)
# was measured and not adopted: quality 11 is 15-21% smaller than gzip 6 but about 100x slower
# (over an hour per build for the game pages alone); quality 5 is 6-10% smaller, and a second
# stored variant would double the compressed store (over the 400 MB budget on disk).
GZIP_LEVEL = 6
# zlib-ng (the zlib_ng wheel), not the stdlib's zlib: on 4,000 real game pages and detail records
# (27 Nov 2026) its level 6 compresses in 60% of zlib's CPU time and decompresses in half, to
# bodies 0.3% larger. Its bytes differ from zlib's and may differ between CPU architectures;
# one build's are the same for the same body, which is all the content addresses need.
_GZIP_WBITS = 31  # a gzip header and trailer (16) around a 32 KiB window (15)
# What gunzip_body raises on corrupt bytes (zlib_ng's stub types the class as an instance).
GzipError = cast(type[Exception], zlib_ng.error)
COMPRESSIBLE = ("application/json", "text/html", "application/problem+json")


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


def compressible(content_type: str, size: int) -> bool:
    """Given a body's content type and size in bytes, return True if it is stored and served
    gzip-compressed (JSON and HTML above :data:`COMPRESS_MIN_BYTES`)."""
    return size > COMPRESS_MIN_BYTES and content_type.startswith(COMPRESSIBLE)


def gzip_body(body: bytes) -> bytes:
    """Given bytes, return them gzip-compressed (RFC 1952) by zlib-ng at :data:`GZIP_LEVEL`,
    with a zero modification time and no name, so the same body always gives the same bytes
    (and so the same ETag) on one machine."""
    return zlib_ng.compress(body, GZIP_LEVEL, wbits=_GZIP_WBITS)


def gunzip_body(data: bytes) -> bytes:
    """Given gzip bytes (RFC 1952), return the decompressed bytes; raise :data:`GzipError` if
    corrupt or truncated."""
    return zlib_ng.decompress(data, wbits=_GZIP_WBITS)


@dataclass(frozen=True, slots=True)
class Encoded:
    """One stored encoding of a body: its content coding (``gzip``), the SHA-256 of the
    encoded bytes (their content address and ETag) and their size in bytes."""

    coding: str
    sha256: str
    size: int


@dataclass(frozen=True, slots=True)
class Entry:
    """One object of a snapshot as its manifest records it: the identity's digest, content
    type and size, and the encodings it is stored in (none: stored as the identity)."""

    sha256: str
    content_type: str
    size: int
    encodings: tuple[Encoded, ...] = ()

    def encoded(self, coding: str) -> Encoded | None:
        """Given a content coding, return this body's stored encoding in it, or None."""
        for found in self.encodings:
            if found.coding == coding:
                return found
        return None

    @property
    def stored(self) -> tuple[str, ...]:
        """Return the digests of the objects that hold this body in the store (the encoded
        ones, or the identity's when it is stored as it is)."""
        if self.encodings:
            return tuple(e.sha256 for e in self.encodings)
        return (self.sha256,)

    def to_json(self) -> list[Any]:
        """Return the entry as the manifest writes it: ``[sha256, content_type, size]`` plus,
        when encoded, ``{coding: [sha256, size]}``."""
        row: list[Any] = [self.sha256, self.content_type, self.size]
        if self.encodings:
            row.append({e.coding: [e.sha256, e.size] for e in self.encodings})
        return row

    @classmethod
    def from_json(cls, row: list[Any]) -> Entry:
        """Given a manifest row (:meth:`to_json`), return the Entry; KeyError, TypeError,
        IndexError or ValueError if malformed."""
        codings = row[3] if len(row) > 3 else {}
        # A loop, not a generator: every served object's lookup decodes its entry here.
        encoded = []
        for coding, value in sorted(codings.items()):
            encoded.append(Encoded(str(coding), str(value[0]), int(value[1])))
        return cls(str(row[0]), str(row[1]), int(row[2]), tuple(encoded))


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
                "objects": {k: e.to_json() for k, e in sorted(self.entries.items())},
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
                entries={str(k): Entry.from_json(v) for k, v in data["objects"].items()},
            )
        except (
            ValueError,
            KeyError,
            TypeError,
            IndexError,
            AttributeError,
            orjson.JSONDecodeError,
        ) as exc:
            raise SnapshotError(f"corrupt manifest: {exc}") from exc


def decode_stored(entry: Entry, stored: bytes) -> bytes:
    """Given a manifest entry and the bytes of its stored object (just read), return the
    identity body, decompressed if it is stored encoded; raise SnapshotError if the bytes do
    not match the entry's digests."""
    found = entry.encodings[0] if entry.encodings else None
    if digest(stored) != (found.sha256 if found else entry.sha256):
        raise SnapshotError(f"snapshot object for {entry.sha256} is corrupt")
    if found is None:
        return stored
    try:
        body = gunzip_body(stored)
    except GzipError as exc:
        raise SnapshotError(f"snapshot object {found.sha256} does not decompress: {exc}") from exc
    if digest(body) != entry.sha256:
        raise SnapshotError(f"snapshot object {found.sha256} decompresses to other bytes")
    return body


def read_body(storage: ObjectStorage, entry: Entry) -> bytes:
    """Given a store and a manifest entry, return the entry's identity body (decompressed if
    it is stored gzip-compressed); raise SnapshotError if it is missing or corrupt, or
    ObjectStorageError if the store fails."""
    sha = entry.stored[0]
    try:
        stored = storage.get(object_key(sha))
    except ObjectNotFound as exc:
        raise SnapshotError(f"snapshot object {sha} is missing") from exc
    return decode_stored(entry, stored)


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


# A top-level entry of a manifest's "objects" as Manifest.to_bytes writes it (orjson, keys
# sorted): "<key>":["<64 hex>","<content type>",... The string after the digest tells it from
# an encoding's ["<64 hex>",<size>], the only other place a digest follows a name.
_ENTRY = re.compile(rb'"((?:[^"\\]|\\.)*)":(\[)"[0-9a-f]{64}","')
_OBJECTS = b',"objects":{'
LOOKED_UP = 65_536  # entries kept decoded per snapshot (the keys actually requested)
# A snapshot id as the builder writes one (bangscore build --snapshot-id): never a path.
# The meta key of a snapshot published before its games' pages (``make run``), and its value.
PAGES_PENDING = "pages"


def pages_pending(meta: Mapping[str, Any]) -> bool:
    """Given a manifest's meta, return True if its snapshot was published without its games'
    pages and badges and they are not written yet
    (:func:`bangscore.build.publish.complete_pages` writes them)."""
    return meta.get(PAGES_PENDING) == "pending"


SNAPSHOT_ID = re.compile(r"[0-9A-Za-z][0-9A-Za-z_-]{0,63}")
_DIGEST = re.compile(r"[0-9a-f]{64}")


class LazyEntries(Mapping[str, Entry]):
    """A manifest's entries read lazily from its bytes: a lookup binary-searches the sorted
    "objects" section (O(log n) regular-expression steps, no index built) and decodes only the
    entry found, kept in a bounded cache. A replica on the real snapshot (134,364 entries)
    starts without building 134,364 Entry objects (seconds of CPU, tens of MB; issue 36).

    Iteration and ``len`` scan the whole section (for tools and tests, not for serving)."""

    def __init__(self, raw: bytes, start: int, end: int) -> None:
        self._raw = raw
        self._start, self._end = start, end
        self._found: dict[str, Entry | None] = {}

    def _lookup(self, key: str) -> Entry | None:
        wanted = orjson.dumps(key)[1:-1]  # the key as the manifest spells it
        raw, lo, hi = self._raw, self._start, self._end
        while lo < hi:
            mid = (lo + hi) // 2
            match = _ENTRY.search(raw, mid, self._end)
            if match is None or match.start() >= hi:
                hi = mid
                continue
            found = match.group(1)
            if found == wanted:
                return _entry_at(raw, match.start(2))
            if found < wanted:
                lo = match.end()
            else:
                hi = mid
        return None

    def get(self, key: str, default: Any = None) -> Any:
        """Given a key, return its entry (looked up once while it stays in the bounded cache),
        or ``default`` if the manifest has none."""
        found = self._found
        if key in found:
            entry = found[key]
        else:
            entry = self._lookup(key)
            if len(found) >= LOOKED_UP:
                found.pop(next(iter(found)))
            found[key] = entry
        return default if entry is None else entry

    def __getitem__(self, key: str) -> Entry:
        entry: Entry | None = self.get(key)
        if entry is None:
            raise KeyError(key)
        return entry

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.get(key) is not None

    def __iter__(self) -> Iterator[str]:
        for match in _ENTRY.finditer(self._raw, self._start, self._end):
            yield orjson.loads(b'"' + match.group(1) + b'"')

    def check(self) -> None:
        """Read the whole section once; raise SnapshotError unless every row is well formed
        (:func:`check_row`) and the lookup finds every key: the section is byte for byte
        what :meth:`Manifest.to_bytes` writes for those rows, keys sorted (what the binary
        search relies on). About a second of CPU for the real manifest's 138,466 rows."""
        section = self._raw[self._start - 1 : self._end + 1]
        try:
            objects = orjson.loads(section)
            for key, row in objects.items():
                check_row(key, row)
        except (orjson.JSONDecodeError, TypeError, AttributeError) as exc:
            raise SnapshotError(f"corrupt manifest: {exc}") from exc
        keys = list(objects)
        if keys != sorted(keys) or orjson.dumps(objects) != section:
            raise SnapshotError(
                "corrupt manifest: its entries are not laid out as written (sorted, compact),"
                " so a lookup would miss some"
            )

    def __len__(self) -> int:
        return sum(1 for _ in _ENTRY.finditer(self._raw, self._start, self._end))


def _entry_at(raw: bytes, bracket: int) -> Entry:
    """Given manifest bytes and the offset of an entry row's ``[``, return the Entry (the row
    is JSON up to its matching ``]``: strings without brackets, numbers, one object)."""
    depth = 0
    for end in range(bracket, len(raw)):
        char = raw[end]
        if char == 0x5B:  # [
            depth += 1
        elif char == 0x5D:  # ]
            depth -= 1
            if depth == 0:
                row = raw[bracket : end + 1]
                try:
                    return Entry.from_json(orjson.loads(row))
                except (KeyError, TypeError, IndexError, ValueError, AttributeError) as exc:
                    # A request meets it as the 503 of a corrupt object, never a 500.
                    raise CorruptObject(f"corrupt manifest row {row[:80]!r}: {exc}") from exc
    raise CorruptObject("corrupt manifest: an entry does not end")


def check_row(key: str, row: Any) -> None:
    """Given a manifest key and its row as decoded JSON, raise SnapshotError unless the row
    is ``[sha256, content_type, size]`` plus optionally ``{coding: [sha256, size]}``, each
    digest 64 lower-case hex digits and each size a non-negative integer (a row no request
    could read otherwise: a 500 or a wrong 404)."""
    ok = isinstance(row, list) and len(row) in (3, 4) and isinstance(row[1], str)
    pairs = [row[0::2][:2]] if ok else []
    if ok and len(row) == 4:
        ok = isinstance(row[3], dict) and all(
            isinstance(v, list) and len(v) == 2 for v in row[3].values()
        )
        pairs += list(row[3].values()) if ok else []
    ok = ok and all(
        isinstance(sha, str)
        and _DIGEST.fullmatch(sha) is not None
        and type(size) is int
        and size >= 0
        for sha, size in pairs
    )
    if not ok:
        raise SnapshotError(f"corrupt manifest: the entry of {key[:200]!r} is malformed")


def check_entries(entries: Mapping[str, Entry]) -> None:
    """Given a manifest's decoded entries, raise SnapshotError naming the first one
    :func:`check_row` refuses."""
    for key, entry in entries.items():
        check_row(key, entry.to_json())


@dataclass(frozen=True)
class ManifestView:
    """A manifest as a replica reads it: id, creation time and metadata decoded, the entries
    looked up lazily (:class:`LazyEntries`)."""

    id: str
    created_at: dt.datetime
    meta: dict[str, Any]
    entries: Mapping[str, Entry]

    @classmethod
    def from_bytes(cls, raw: bytes) -> ManifestView:
        """Given manifest bytes, return the view; a manifest not laid out as
        :meth:`Manifest.to_bytes` writes it is read whole. Raises SnapshotError if corrupt."""
        split = raw.find(_OBJECTS)
        stripped = raw.rstrip()
        if split < 0 or not stripped.endswith(b"}}"):
            return cls._whole(raw)
        try:
            head = orjson.loads(raw[:split] + b"}")
            if head.get("schema_version") != MANIFEST_SCHEMA or set(head) != {
                "schema_version",
                "id",
                "created_at",
                "meta",
            }:
                return cls._whole(raw)
            start, end = split + len(_OBJECTS), len(stripped) - 2
            return cls(
                id=str(head["id"]),
                created_at=dt.datetime.fromisoformat(head["created_at"]),
                meta=dict(head["meta"]),
                entries=LazyEntries(raw, start, end),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise SnapshotError(f"corrupt manifest: {exc}") from exc

    def check(self) -> None:
        """Read every entry once; raise SnapshotError naming the first malformed one. A
        replica runs it before serving a snapshot (off the event loop: a second or so on the
        real manifest), so a damaged row is refused whole rather than met by a request."""
        if isinstance(self.entries, LazyEntries):
            self.entries.check()
        else:
            check_entries(self.entries)

    @classmethod
    def _whole(cls, raw: bytes) -> ManifestView:
        manifest = Manifest.from_bytes(raw)
        return cls(manifest.id, manifest.created_at, manifest.meta, manifest.entries)


def read_manifest_view(storage: ObjectStorage, snapshot_id: str) -> ManifestView:
    """Given a store and a snapshot id, return its manifest read lazily; raise SnapshotError
    if absent or corrupt."""
    try:
        return ManifestView.from_bytes(storage.get(manifest_key(snapshot_id)))
    except ObjectNotFound as exc:
        raise SnapshotError(f"no snapshot {snapshot_id!r} in {storage.location}") from exc
