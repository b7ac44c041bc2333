"""A serving app's life: what happens at start-up, once a second while it serves, when the
published snapshot changes and at shutdown (the app's lifespan, :func:`lifespan`).

Start-up loads the current snapshot lazily (its manifest read on demand, issue 36) so a
replica answers precomputed pages and detail records within a second or two; the indexes
are built :data:`WARM_AFTER_SECONDS` later (:func:`warm`), or by the first request that needs
one. A ticker flushes the access log and copies the counters into the metrics once a second.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio.to_thread
from starlette.applications import Starlette

from bangscore.errors import ObjectStorageError, SnapshotError
from bangscore.shim import heap, routes
from bangscore.shim.access_log import FLUSH_SECONDS, AccessLog
from bangscore.shim.metrics import Metrics
from bangscore.shim.pages import Pages
from bangscore.shim.quota import Quota
from bangscore.shim.source import SnapshotSource

if TYPE_CHECKING:
    from bangscore.stores.watchstore import WatchStore

log = logging.getLogger("bangscore.shim")
# A replica starting answers its first requests (precomputed pages, detail records) from the
# lazy manifest; its indexes are built this long after the start (issue 36).
WARM_AFTER_SECONDS = 2.0


@dataclass(frozen=True)
class Serving:
    """What a serving app starts and stops: the snapshot source, the quota (its key store is
    closed at shutdown), the website's pages, the metrics, the access log (flushed and closed
    at shutdown), the watch store (closed at shutdown), whether to follow the published
    pointer and whether to freeze loaded snapshots out of the cyclic collector."""

    source: SnapshotSource
    quota: Quota
    pages: Pages
    metrics: Metrics
    access_log: AccessLog | None = None
    watch_store: WatchStore | None = None
    follow: bool = True
    freeze_heap: bool = False

    async def warm(self, after: float = 0.0) -> None:
        """After ``after`` seconds, build the current snapshot's indexes (compact, search) and
        its known-but-unrated names now rather than in the first search's request, then settle
        the heap and set the ``bangscore_warm`` gauge."""
        await asyncio.sleep(after)
        snap = self.source.current
        if snap is None:
            return
        try:
            # A first snapshot was loaded lazily: its indexes and whole manifest are checked
            # here (a switch checked them before switching; this finds them built).
            await anyio.to_thread.run_sync(self.source.settle, snap)
        except (SnapshotError, ObjectStorageError) as exc:
            self.source.refuse(snap.id, str(exc), snap)  # 503 until a good one (issue 55)
            return
        try:
            await self.pages.not_rated(snap)
        except ObjectStorageError as exc:  # the first search will try again
            log.warning("could not index the unrated apps of %s: %s", snap.id, exc)
        if self.freeze_heap:
            heap.settle()
        self.metrics.warm.set(1)

    async def tick(self, app: Starlette) -> None:
        """Once a second, for ever: flush the access log, hand fail-open counts to the store,
        write its leases' unspent tokens, sync the counters into the metrics."""
        while True:
            await asyncio.sleep(FLUSH_SECONDS)
            if self.access_log is not None:
                self.access_log.flush()
            if self.quota.unsynced:
                await anyio.to_thread.run_sync(self.quota.reconcile)
            # Leased quota held here, written where `keys list` reads it (SQLite store).
            await anyio.to_thread.run_sync(self.quota.counter.sync)
            self.metrics.sync(routes.counter_totals(app.state), self.source.cache.size)

    def start(self) -> None:
        """Load the published snapshot lazily; a missing or malformed one (a pointer that names
        no snapshot, an index or manifest that does not parse) is logged, and the app answers
        503 until a good one is published and followed."""
        try:
            self.source.refresh(defer=True)
        except SnapshotError:
            pass  # refused and logged once by the source; the follower goes on
        except ObjectStorageError as exc:
            log.error("no snapshot loaded at start-up: %s", exc)

    def stop(self) -> None:
        """Close the access log, release the heap and close the stores (leased and buffered
        counts settled)."""
        if self.access_log is not None:
            self.access_log.close()
        if self.freeze_heap:
            heap.release()
        self.quota.reconcile()  # fail-open counts, if the store answers now
        self.quota.counter.close()  # the keys' and accounts' connections too
        if self.watch_store is not None:
            self.watch_store.close()


@contextlib.asynccontextmanager
async def lifespan(serving: Serving, app: Starlette) -> AsyncIterator[None]:
    """Given what the app serves and the app, run its life: start, then while it serves the
    warming (once), the pointer's follower (each switch warmed) and the ticker; at shutdown
    cancel them and stop."""
    serving.start()
    # Warmed once the first connections had their answers: a search or a composed page that
    # comes first builds its index itself, and the heap settles once all is built.
    tasks = [
        asyncio.create_task(serving.warm(after=WARM_AFTER_SECONDS)),
        asyncio.create_task(serving.tick(app)),
    ]
    if serving.follow:
        tasks.append(asyncio.create_task(serving.source.follow(on_switch=serving.warm)))
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
        serving.stop()
