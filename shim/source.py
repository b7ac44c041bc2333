"""The shim's view of the published snapshot: the ``current`` pointer, the manifest, the
compact and search indexes, and a byte-bounded cache of object bodies.

A :class:`LoadedSnapshot` is immutable; switching snapshots replaces one reference, and each
request takes that reference once, so a response never mixes two snapshots. Bodies are
cached by their SHA-256 (content address), checked against it when fetched, and shared
between snapshots that contain the same bytes. A body stored gzip-compressed
(:mod:`bangscore.manifest`) is cached as stored, for clients that take gzip, and once
decompressed, for the rare client that takes no encoding.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio.to_thread
import orjson

from bangscore.contract.filters import INDEX_KEY, NOT_RATED_KEY, SEARCH_KEY
from bangscore.contract.not_rated import NotRatedIndex
from bangscore.contract.paging import page_bounds, render_page
from bangscore.contract.search import SearchIndex
from bangscore.errors import CorruptObject as CorruptObject
from bangscore.manifest import (
    GZIP,
    Entry,
    Manifest,
    SnapshotError,
    decode_stored,
    digest,
    etag_for,
    etag_from_digest,
    object_key,
    read_manifest,
)
from bangscore.shim.compose import CompactIndex
from bangscore.shim.lru import Lru
from bangscore.storage import ObjectNotFound, ObjectStorage, ObjectStorageError

log = logging.getLogger("bangscore.snapshot")
MAX_ANSWERS = 16_384


@dataclass(frozen=True, eq=False)  # identity hashing: per-snapshot caches key on the object
class LoadedSnapshot:
    """One snapshot, ready to serve: manifest entries, compact index, search index and the
    not-rated index."""

    id: str
    manifest: Manifest
    index: CompactIndex
    search: SearchIndex
    not_rated: NotRatedIndex = field(default_factory=NotRatedIndex)
    answers: Lru[Any] = field(default_factory=lambda: Lru(MAX_ANSWERS), repr=False)
    search_pages: Lru[tuple[bytes, str]] = field(default_factory=lambda: Lru(4096), repr=False)

    @property
    def base_url(self) -> str | None:
        """Return the API base URL this snapshot's bodies were built with, if it recorded one."""
        meta = self.manifest.meta
        url = meta.get("base_url") or meta.get("site_url")
        return str(url) if url else None

    def remember(self, key: tuple[str, bytes], answer: object) -> None:
        """Given a request's (path, query string) and its answer, keep it (bounded)."""
        self.answers.put(key, answer)

    def entry(self, key: str) -> Entry | None:
        """Given a key inside the snapshot, return its manifest entry or None."""
        return self.manifest.entries.get(key)

    def etag(self, key: str) -> str | None:
        """Given a key inside the snapshot, return its strong ETag or None if absent."""
        entry = self.manifest.entries.get(key)
        return etag_from_digest(entry.sha256) if entry else None

    def gzip_etag(self, key: str) -> str | None:
        """Given a key inside the snapshot, return the strong ETag of its gzip representation,
        or None if it is not stored gzip-compressed."""
        entry = self.manifest.entries.get(key)
        encoded = entry.encoded(GZIP) if entry else None
        return etag_from_digest(encoded.sha256) if encoded else None

    def search_page(
        self, q: str, page: int, adult: bool = True, max_price_cents: int | None = None
    ) -> tuple[bytes, str]:
        """Given a validated query, a 1-based page, whether adult games are listed (the
        API: always; the website: only with ``adult=true``) and the price cap in cents (None:
        none), return (envelope bytes, strong ETag), cached with this snapshot (and freed
        with it)."""

        def render() -> tuple[bytes, str]:
            appids = self.search.search(q)
            if not adult or max_price_cents is not None:
                appids = self.index.shown(appids, adult, max_price_cents)
            start, stop = page_bounds(page)
            items = self.index.items_for(appids[start:stop])
            body = render_page(items, page, len(appids), q, self.index.prices_as_of)
            return body, etag_for(body)

        key = (q, page) if adult and max_price_cents is None else (q, page, adult, max_price_cents)
        return self.search_pages.get(key, render)


class SnapshotSource:
    """Loads the current snapshot from storage, serves bodies, and follows the pointer."""

    def __init__(self, storage: ObjectStorage, *, cache_bytes: int, poll_seconds: float) -> None:
        self.storage = storage
        self.poll_seconds = poll_seconds
        self.cache: Lru[bytes] = Lru(cache_bytes, weigh=len)  # bodies by SHA-256
        self.current: LoadedSnapshot | None = None
        self.switches = 0
        self.load_error: str | None = None  # why the last load failed, for operators and 503s

    def _fetch(self, entry: Entry, coding: str | None = None) -> bytes:
        """Given an entry and a content coding it is stored in (None: the identity), return
        those bytes, from the cache or the store (checked against the manifest's digest)."""
        encoded = entry.encoded(coding) if coding else None
        sha = encoded.sha256 if encoded else entry.sha256
        body = self.cache.find(sha)
        if body is not None:
            return body
        if encoded is None and entry.encodings:  # stored compressed only: decompress
            packed = self._fetch(entry, entry.encodings[0].coding)
            try:
                body = decode_stored(entry, packed)
            except SnapshotError as exc:
                raise CorruptObject(str(exc)) from exc
        else:
            body = self.storage.get(object_key(sha))
            if digest(body) != sha:
                raise CorruptObject(f"object {sha} does not match its digest")
        self.cache.put(sha, body)
        return body

    def load(self, snapshot_id: str) -> LoadedSnapshot:
        """Given a snapshot id, load its manifest and indexes; raise SnapshotError if broken."""
        manifest = read_manifest(self.storage, snapshot_id)
        try:
            index_entry = manifest.entries[INDEX_KEY]
            search_entry = manifest.entries[SEARCH_KEY]
            index = CompactIndex.from_bytes(self._fetch(index_entry))
            search = SearchIndex.from_json(orjson.loads(self._fetch(search_entry)))
            # Snapshots built before the not-rated index simply have no such answers.
            not_rated_entry = manifest.entries.get(NOT_RATED_KEY)
            not_rated = NotRatedIndex(
                orjson.loads(self._fetch(not_rated_entry)) if not_rated_entry else None
            )
        except (KeyError, ValueError, ObjectStorageError) as exc:
            raise SnapshotError(f"snapshot {snapshot_id} cannot be loaded: {exc}") from exc
        return LoadedSnapshot(snapshot_id, manifest, index, search, not_rated)

    def refresh(self) -> bool:
        """Re-read the pointer; load and switch to a new snapshot. Return True if switched.

        Raises SnapshotError or ObjectStorageError; the current snapshot stays in place then.
        """
        pointer = self.storage.read_pointer()
        if pointer is None or (self.current is not None and pointer == self.current.id):
            return False
        try:
            loaded = self.load(pointer)
        except (SnapshotError, ObjectStorageError) as exc:
            self.load_error = str(exc)
            raise
        self.load_error = None
        self.current = loaded  # one reference swap: requests hold the one they started with
        self.switches += 1
        log.info("serving snapshot %s", pointer)
        return True

    async def body(self, snap: LoadedSnapshot, key: str, coding: str | None = None) -> bytes:
        """Given a snapshot, a key in it and a content coding the key is stored in (None: the
        identity, decompressed if need be), return those bytes.

        Raises ObjectNotFound if the snapshot has no such key, ObjectStorageUnavailable if the store
        cannot be reached, CorruptObject if the stored bytes do not match the manifest.
        """
        entry = snap.entry(key)
        if entry is None:
            raise ObjectNotFound(key)
        encoded = entry.encoded(coding) if coding else None
        body = self.cache.find(encoded.sha256 if encoded else entry.sha256)
        if body is not None:
            return body
        return await anyio.to_thread.run_sync(self._fetch, entry, coding)

    async def follow(self, on_switch: Callable[[], Awaitable[None]] | None = None) -> None:
        """Poll the pointer forever, switching snapshots as they are published; after each
        switch await ``on_switch`` (the app warms the new snapshot's indexes)."""
        while True:
            await asyncio.sleep(self.poll_seconds)
            try:
                switched = await anyio.to_thread.run_sync(self.refresh)
            except (SnapshotError, ObjectStorageError) as exc:
                log.warning("could not switch snapshot: %s", exc)
                continue
            if switched and on_switch is not None:
                await on_switch()
