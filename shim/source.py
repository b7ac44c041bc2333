"""The shim's view of the published snapshot: the ``current`` pointer, the manifest, the
compact and search indexes, and a byte-bounded cache of object bodies.

A :class:`LoadedSnapshot` is immutable; switching snapshots replaces one reference, and each
request takes that reference once, so a response never mixes two snapshots. Bodies are
cached by their SHA-256 (content address), checked against it when fetched, and shared
between snapshots that contain the same bytes. A body stored gzip-compressed
(:mod:`bangscore.manifest`) is cached as stored, for clients that take gzip, and once
decompressed, for the rare client that takes no encoding.

A snapshot published with its games' pages still to come (``make run``'s first build:
:func:`bangscore.build.publish.complete_pages`) is loaded again, under the same id, when its
manifest is written with them: until then :attr:`LoadedSnapshot.pages_pending` is True.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import anyio.to_thread
import orjson

from bangscore.contract.not_rated import NotRatedIndex
from bangscore.contract.objects import (
    INDEX_KEY,
    LEGACY_INDEX_KEY,
    NOT_RATED_KEY,
    NOT_RATED_SEARCH_KEY,
    SEARCH_KEY,
)
from bangscore.contract.paging import page_bounds, render_page
from bangscore.contract.search import SearchIndex
from bangscore.errors import (
    CorruptObject,
    ObjectNotFound,
    ObjectStorageError,
    ObjectStorageUnavailable,
    SnapshotError,
)
from bangscore.manifest import (
    GZIP,
    SNAPSHOT_ID,
    Entry,
    ManifestView,
    decode_stored,
    digest,
    etag_for,
    etag_from_digest,
    gzip_body,
    manifest_key,
    object_key,
    pages_pending,
    read_manifest_view,
)
from bangscore.shim.compose import CompactIndex
from bangscore.shim.lru import AnswerBudgets, Lru
from bangscore.shim.memo import Memo
from bangscore.shim.readdress import Readdress, readdress_for
from bangscore.storage import ObjectStorage

log = logging.getLogger("bangscore.snapshot")
T = TypeVar("T")
DEFAULT_BUDGETS = AnswerBudgets()


class Deferred(Generic[T]):
    """A value built once, on first use, by whichever thread asks first (the others wait).
    A replica's first snapshot builds its compact and search indexes so (seconds of CPU on the
    real catalogue, mostly in ``orjson.loads``, which holds the GIL: a background thread would
    stall the event loop as much) while it already answers what needs neither, a precomputed
    list page or a detail record; the app warms them shortly after (issue 36).

    What building raised is raised again, as CorruptObject naming ``what`` (a request answers
    the 503 of a corrupt object, never a 500; issue 55)."""

    def __init__(self, make: Callable[[], T], what: str = "value") -> None:
        self._make: Callable[[], T] | None = make
        self._what = what
        self._lock = threading.Lock()
        self._value: T | None = None
        self._error: CorruptObject | None = None

    def get(self) -> T:
        """Return the value, building it now (or waiting for the thread building it); raise
        CorruptObject if building it failed."""
        if self._value is None:
            with self._lock:
                if self._value is None and self._error is None and self._make is not None:
                    try:
                        self._value = self._make()
                    # Untrusted bytes: whatever their parser raises on them (ValueError,
                    # TypeError, AttributeError, IndexError...) means the object is malformed.
                    except Exception as exc:
                        self._error = CorruptObject(f"{self._what} is malformed: {exc!r}")
                    self._make = None
        if self._error is not None:
            raise self._error
        assert self._value is not None
        return self._value


@dataclass(frozen=True, eq=False)  # identity hashing: per-snapshot caches key on the object
class LoadedSnapshot:
    """One snapshot, ready to serve: manifest entries, compact index, search index and the
    not-rated index."""

    id: str
    manifest: ManifestView
    deferred_index: Deferred[CompactIndex]
    deferred_search: Deferred[SearchIndex]
    not_rated: NotRatedIndex = field(default_factory=NotRatedIndex)
    budgets: AnswerBudgets = DEFAULT_BUDGETS
    # Built for other addresses than the ones served: how its bodies move (None: as stored).
    readdress: Readdress | None = None
    # The manifest's (size, last write) just before it was read: a pending snapshot whose
    # manifest has another is loaded again (SnapshotSource.refresh).
    manifest_stamp: tuple[int, float] | None = None
    # The API's answers and the website's rendered pages, each by what a request read and
    # each spelling seen (bangscore.shim.memo): freed with the snapshot.
    memo: Memo = field(init=False, repr=False)
    pages: Memo = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "memo", Memo(self.budgets.answers))
        object.__setattr__(self, "pages", Memo(self.budgets.pages))

    @property
    def index(self) -> CompactIndex:
        """Return the compact index (built on first use if it is not built yet)."""
        return self.deferred_index.get()

    @property
    def search(self) -> SearchIndex:
        """Return the search index (built on first use if it is not built yet)."""
        return self.deferred_search.get()

    @property
    def pages_pending(self) -> bool:
        """Return True while the games' pages and badges are still being written into this
        snapshot (its manifest's meta ``pages`` is ``"pending"``)."""
        return pages_pending(self.manifest.meta)

    @property
    def base_url(self) -> str | None:
        """Return the API base URL this snapshot's bodies carry as served (the serving one when
        they are moved to it), if it recorded one."""
        if self.readdress is not None:
            return self.readdress.base_url
        meta = self.manifest.meta
        url = meta.get("base_url") or meta.get("site_url")
        return str(url) if url else None

    def remembered(self, spelling: tuple[str, bytes]) -> Any:
        """Given an API request's (path, query string), return the answer remembered for it
        (an answer or a Rejected 400), or None."""
        return self.memo.recall(spelling)

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
        none), return (envelope bytes, strong ETag). Not kept here: the memo that asked keeps
        the answer it makes of it."""
        appids = self.search.search(q)
        if not adult or max_price_cents is not None:
            appids = self.index.shown(appids, adult, max_price_cents)
        start, stop = page_bounds(page)
        items = self.index.items_for(appids[start:stop])
        body = render_page(items, page, len(appids), q, self.index.prices_as_of)
        return body, etag_for(body)


class SnapshotSource:
    """Loads the current snapshot from storage, serves bodies, and follows the pointer."""

    def __init__(
        self,
        storage: ObjectStorage,
        *,
        cache_bytes: int,
        poll_seconds: float,
        budgets: AnswerBudgets = DEFAULT_BUDGETS,
    ) -> None:
        self.storage = storage
        self.poll_seconds = poll_seconds
        self.budgets = budgets
        self.cache: Lru[bytes] = Lru(cache_bytes, weigh=len)  # bodies by SHA-256
        self.current: LoadedSnapshot | None = None
        self.switches = 0
        self.load_error: str | None = None  # why the last load failed, for operators and 503s
        # The snapshot id last refused as malformed (not read again), the refusal last
        # logged, and how many refusals so far (the snapshot_refusals metric).
        self.refused: str | None = None
        self._settled: LoadedSnapshot | None = None
        self._logged: tuple[str | None, str] | None = None
        self.refusals = 0
        # The site and API base URLs served (serve_at): a snapshot built for others is moved.
        self.serving: tuple[str, str] | None = None

    def serve_at(self, site_url: str, base_url: str) -> None:
        """Given the site and API base URLs this process serves at, move the bodies of every
        snapshot loaded from now on that was built for others (:mod:`bangscore.shim.readdress`)."""
        self.serving = (site_url, base_url)

    def _fetch(
        self, entry: Entry, coding: str | None = None, readdress: Readdress | None = None
    ) -> bytes:
        """Given an entry, a content coding it is stored in (None: the identity) and how its
        snapshot's addresses move (None: not), return those bytes, from the cache or the
        store (checked against the manifest's digests, then moved)."""
        encoded = entry.encoded(coding) if coding else None
        sha = encoded.sha256 if encoded else entry.sha256
        body = self.cache.find(sha)
        if body is not None:
            return body
        if readdress is not None:
            body = self._moved(entry, encoded is not None, readdress)
        elif encoded is None and entry.encodings:  # stored compressed only: decompress
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

    def _moved(self, entry: Entry, encoded: bool, readdress: Readdress) -> bytes:
        """Given an entry, whether its stored encoding is wanted (else the identity) and how
        its addresses move, read it from the store, check it, and return it moved: the one
        place a body's addresses change. Bytes with no address to move are returned as
        stored (not compressed again)."""
        stored = self.storage.get(object_key(entry.stored[0]))
        try:
            identity = decode_stored(entry, stored)
        except SnapshotError as exc:
            raise CorruptObject(str(exc)) from exc
        moved = readdress.apply(identity)
        if not encoded:
            return moved
        return stored if moved is identity else gzip_body(moved)

    def load(self, snapshot_id: str, *, defer: bool = False) -> LoadedSnapshot:
        """Given a snapshot id, load its manifest (read lazily: :class:`ManifestView`) and
        indexes; raise SnapshotError if anything is malformed. The index objects are always
        read (and checked against their digests) here; with ``defer`` the compact and search
        indexes are built from them, and the manifest checked whole, on first use or by
        :meth:`settle` (a replica's first snapshot: it answers meanwhile), else before this
        returns (a switch: the old snapshot answers meanwhile)."""
        if not SNAPSHOT_ID.fullmatch(snapshot_id):
            raise SnapshotError(f"the pointer names no snapshot: {snapshot_id[:80]!r}")
        stamp = self.manifest_stamp(snapshot_id)  # before the read: a rewrite after it shows
        manifest = read_manifest_view(self.storage, snapshot_id)
        try:
            if manifest.id != snapshot_id:
                raise ValueError(f"its manifest is the one of {manifest.id[:80]!r}")
            moves = readdress_for(manifest.meta, *self.serving) if self.serving else None
            index_entry = manifest.entries.get(INDEX_KEY) or manifest.entries[LEGACY_INDEX_KEY]
            index_raw = self._fetch(index_entry, readdress=moves)
            search_raw = self._fetch(manifest.entries[SEARCH_KEY], readdress=moves)
            # Snapshots built before the not-rated index simply have no such answers.
            not_rated_entry = manifest.entries.get(NOT_RATED_KEY)
            raw = self._fetch(not_rated_entry, readdress=moves) if not_rated_entry else b"null"
            # Snapshots built before the builder indexed the unrated names: the replica does.
            names_entry = manifest.entries.get(NOT_RATED_SEARCH_KEY)
            names = self._fetch(names_entry, readdress=moves) if names_entry else None
            not_rated = Deferred(
                lambda: NotRatedIndex(orjson.loads(raw), names), NOT_RATED_KEY
            ).get()
            index = Deferred(lambda: CompactIndex.from_bytes(index_raw), "compact index")
            search = Deferred(
                lambda: SearchIndex.from_json(orjson.loads(search_raw)), "search index"
            )
            loaded = LoadedSnapshot(
                snapshot_id, manifest, index, search, not_rated, self.budgets, moves, stamp
            )
            if not defer:
                self.settle(loaded)
        except ObjectStorageUnavailable:
            raise  # the store, not the snapshot: tried again at the next poll
        except (KeyError, ValueError, ObjectStorageError) as exc:
            raise SnapshotError(f"snapshot {snapshot_id} cannot be loaded: {exc}") from exc
        return loaded

    def settle(self, snap: LoadedSnapshot) -> None:
        """Given a loaded snapshot, build its indexes and check its manifest whole, once (a
        switch's are, before it; the warm-up after finds them done); raise CorruptObject or
        SnapshotError naming what is malformed (seconds of CPU on the real catalogue: call
        it off the event loop)."""
        if snap is self._settled:
            return
        snap.deferred_index.get()
        snap.deferred_search.get()
        snap.manifest.check()
        self._settled = snap  # the newest settled: an older one is not kept alive

    def manifest_stamp(self, snapshot_id: str) -> tuple[int, float] | None:
        """Given a snapshot id, return its manifest's (size in bytes, last write in Unix
        seconds), or None if it has none: one listing of the few manifests."""
        key = manifest_key(snapshot_id)
        for info in self.storage.list_objects("snapshots/"):
            if info.key == key:
                return info.size, info.modified
        return None

    def read_pointer(self) -> str | None:
        """Return the published pointer's snapshot id (None: nothing published); raise
        SnapshotError if its bytes are not text or not a snapshot id (a path, say)."""
        try:
            pointer = self.storage.read_pointer()
        except UnicodeDecodeError as exc:
            raise SnapshotError(f"the pointer is not UTF-8 text: {exc}") from exc
        if pointer is not None and not SNAPSHOT_ID.fullmatch(pointer):
            raise SnapshotError(f"the pointer names no snapshot: {pointer[:80]!r}")
        return pointer

    def refresh(self, *, defer: bool = False) -> bool:
        """Re-read the pointer; load and switch to a new snapshot. Return True if switched.
        ``defer``: build its indexes on first use (:meth:`load`), for the first one.

        Raises SnapshotError or ObjectStorageError; the current snapshot stays in place then.
        A snapshot refused as malformed (SnapshotError) is not read again until the pointer
        names another; one the store failed to give is tried again at the next poll.
        """
        try:
            pointer = self.read_pointer()
        except SnapshotError as exc:
            self.refuse(None, str(exc))
            raise
        if pointer is None or pointer == self.refused:
            return False
        if self.current is not None and pointer == self.current.id:
            current = self.current
            if not current.pages_pending or self.manifest_stamp(pointer) == current.manifest_stamp:
                return False
        try:
            loaded = self.load(pointer, defer=defer)
        except SnapshotError as exc:
            self.refuse(pointer, str(exc))
            raise
        except ObjectStorageError as exc:
            self.load_error = str(exc)
            raise
        self.load_error = None
        self.refused = None
        self.current = loaded  # one reference swap: requests hold the one they started with
        self.switches += 1
        log.info("serving snapshot %s", pointer)
        return True

    def refuse(
        self, snapshot_id: str | None, reason: str, snap: LoadedSnapshot | None = None
    ) -> None:
        """Given a snapshot id (None: the pointer itself is malformed), why it is refused and,
        if it is the one served (a first snapshot found broken as its indexes were built),
        that snapshot: stop serving it (503 until a good snapshot is published) and record
        the refusal once: one log line and the ``snapshot_refusals`` metric."""
        if snap is not None and self.current is snap:
            self.current = None  # what it cannot answer is a 503, never a 500 (issue 55)
        self.load_error = reason
        if snapshot_id is not None:
            self.refused = snapshot_id
        if self._logged == (snapshot_id, reason):
            return
        self._logged = (snapshot_id, reason)
        self.refusals += 1
        log.error("refused snapshot %s: %s", snapshot_id or "pointer", reason)

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
        return await anyio.to_thread.run_sync(self._fetch, entry, coding, snap.readdress)

    async def follow(self, on_switch: Callable[[], Awaitable[None]] | None = None) -> None:
        """Poll the pointer forever, switching snapshots as they are published; after each
        switch await ``on_switch`` (the app warms the new snapshot's indexes). Nothing a
        snapshot holds stops it: a malformed one is refused (:meth:`refuse`) and the next
        poll goes on."""
        failed: str | None = None  # the last failure logged, so an outage logs once
        while True:
            await asyncio.sleep(self.poll_seconds)
            try:
                switched = await anyio.to_thread.run_sync(self.refresh)
            except SnapshotError:
                continue  # refused and logged once by refresh
            except ObjectStorageError as exc:
                if str(exc) != failed:
                    log.warning("could not switch snapshot: %s", exc)
                failed = str(exc)
                continue
            except Exception:  # a fault of ours: log it and keep following (issue 55)
                log.exception("the snapshot follower failed; it goes on polling")
                continue
            failed = None
            if switched and on_switch is not None:
                await on_switch()
