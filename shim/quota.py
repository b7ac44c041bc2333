"""Daily quota (docs/API.md#plans-and-quota): the UTC-day window, key authentication with a short
cache (:class:`KeyCheck`), exact counting through the store (:class:`Quota`), fail-open
local counting when the store is down, and the rate-limit headers every response carries.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import anyio
import anyio.to_thread

from bangscore.errors import AuthFailure, StoreUnavailable
from bangscore.shim.lru import Lru
from bangscore.stores.keys import is_well_formed, key_digest
from bangscore.stores.keystore import Counter, Hit, KeyRecord, KeyStore

DAY_SECONDS = 86_400
MAX_CACHED_KEYS = 100_000
REFUSAL_SECONDS = 0.25  # how long a brief refusal is answered without asking the store again
# Settling waits on other replicas, not the CPU; its own threads keep a burst of pending
# refusals (which join one recall round per key anyway) from taking the default pool's.
SETTLE_THREADS = anyio.CapacityLimiter(16)
log = logging.getLogger("bangscore.quota")


@dataclass(frozen=True, slots=True)
class Window:
    """The quota window containing a moment: its UTC day and the next reset (Unix seconds)."""

    day: dt.date
    reset_at: int
    seconds_to_reset: int


def window_at(now: float) -> Window:
    """Given Unix seconds, return the UTC-day window: counts reset at 00:00:00 UTC."""
    return _window(int(now))


@lru_cache(maxsize=8)
def _window(whole: int) -> Window:
    start = whole - whole % DAY_SECONDS
    reset = start + DAY_SECONDS
    return Window(dt.datetime.fromtimestamp(start, dt.UTC).date(), reset, reset - whole)


def rate_headers(limit: int, used: int, window: Window) -> list[tuple[str, str]]:
    """Given a limit, the count so far and the window, return the rate-limit headers.

    ``X-RateLimit-*`` plus the IETF draft ``RateLimit-Policy`` and ``RateLimit`` fields;
    remaining is never overstated (never above limit - used, never negative).
    """
    remaining = max(0, limit - used)
    return [
        ("X-RateLimit-Limit", str(limit)),
        ("X-RateLimit-Remaining", str(remaining)),
        ("X-RateLimit-Used", str(min(used, limit))),
        ("X-RateLimit-Reset", str(window.reset_at)),
        ("RateLimit-Policy", f'"daily";q={limit};w={DAY_SECONDS}'),
        ("RateLimit", f'"daily";r={remaining};t={window.seconds_to_reset}'),
    ]


@dataclass
class QuotaMetrics:
    """Counters exported on ``/metrics``: store faults and requests admitted while failing open."""

    store_errors: int = 0
    fail_open_admits: int = 0
    key_cache_hits: int = 0
    key_lookups: int = 0
    extra: dict[str, int] = field(default_factory=dict)


class KeyCheck:
    """Authenticates presented keys against a KeyStore, each key's record kept for
    ``key_cache_seconds`` (which bounds how long a revoked key still works); a key seen before
    keeps working while the store is down. ``fault`` is told of each store fault."""

    def __init__(
        self,
        store: KeyStore,
        key_cache_seconds: float,
        clock: Callable[[], float],
        metrics: QuotaMetrics,
        fault: Callable[[str], None],
    ) -> None:
        self.store = store
        self.key_cache_seconds = key_cache_seconds
        self.clock = clock
        self.metrics = metrics
        self._fault = fault
        self._keys: Lru[tuple[KeyRecord | None, float]] = Lru(MAX_CACHED_KEYS)

    def authenticate(self, key: str) -> KeyRecord:
        """Given a presented key, return its active record.

        Raises AuthFailure (``invalid_key`` or ``revoked_key``), or StoreUnavailable when the
        store is down and the key was not seen recently (the caller answers 503).
        """
        now = self.clock()
        # Cached by the presented string, so a repeat skips the checksum and the digest.
        cached = self._keys.find(key)
        if cached is not None and cached[1] > now:
            self.metrics.key_cache_hits += 1
            record = cached[0]
        else:
            if cached is None and not is_well_formed(key):
                raise AuthFailure("invalid_key", "The API key is malformed.")
            self.metrics.key_lookups += 1
            try:
                record = self.store.find_key(key_digest(key))
            except StoreUnavailable:
                self._fault("key lookup")
                if cached is None:
                    raise
                record = cached[0]  # a key seen before keeps working while the store is down
            # Bounded: a flood of made-up keys cannot grow memory.
            self._keys.put(key, (record, now + self.key_cache_seconds))
        if record is None:
            raise AuthFailure("invalid_key", "The API key is not known.")
        if record.state != "active":
            raise AuthFailure("revoked_key", "The API key was revoked.")
        return record


class Quota:
    """Counts requests on a Counter, failing open if it is down; its :attr:`keys`
    (:class:`KeyCheck` over the KeyStore ``keys``) authenticates the keys they are counted for.

    Two per-IP allowances exist beside the keys' limits: ``anonymous_limit`` for API requests
    without a valid key, and ``page_limit`` for the website's pages.
    """

    def __init__(
        self,
        counter: Counter,
        keys: KeyStore,
        *,
        anonymous_limit: int,
        page_limit: int,
        key_cache_seconds: float,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.counter = counter
        self.anonymous_limit = anonymous_limit
        self.page_limit = page_limit  # the website's own per-IP allowance (shim.pages)
        self.clock = clock
        self.metrics = QuotaMetrics()
        self.keys = KeyCheck(keys, key_cache_seconds, clock, self.metrics, self._fault)
        self._local: dict[tuple[str, dt.date], int] = {}
        # The last count the store confirmed per subject-day, and the subject-days it refused:
        # during an outage the headers go on from the confirmed count (what the store holds
        # once the local admits are added back), and a refused subject is refused before any
        # work. Both bounded like the key cache.
        self._confirmed: Lru[int] = Lru(MAX_CACHED_KEYS)
        # A refusal is remembered (the count it refused at, until when) all day when the store
        # says it is final, and for REFUSAL_SECONDS when it is brief: on a shared store a
        # refusal kept all day while another replica held a block would 429 a client whose
        # quota is not spent (issue 36).
        self._refused: Lru[tuple[int, float]] = Lru(MAX_CACHED_KEYS)
        # Fail-open admits not yet added to the store; pushed when it answers again.
        self._unsynced: dict[tuple[str, dt.date], int] = {}
        self._lock = threading.Lock()
        self._last_log = 0.0
        # Processes counting the same keys, as the counter knows them (a Redis counter's
        # ``replicas``: replicas x workers); one for a counter of this host alone.
        self.replicas = max(1, int(getattr(counter, "replicas", 1)))

    def charge(self, subject: str, limit: int) -> tuple[Hit, Window]:
        """Given a subject and its daily limit, count one request if under the limit, without
        waiting on other replicas (a refusal they may lift is ``pending``: see :meth:`admit`).

        Never raises for a store fault: it fails open on a per-process local count, at most
        this process's share (1/``replicas``) of what the store had left of the limit.
        """
        return self._count(subject, limit, self.counter.hit)

    def settle(self, subject: str, limit: int) -> tuple[Hit, Window]:
        """Given a subject whose charge was a pending refusal, and its limit, count one request
        once the other replicas gave back what they held (a final or brief refusal if nothing
        is left). Blocks up to about a second; fails open as :meth:`charge` does."""
        return self._count(subject, limit, self.counter.settle)

    async def admit(self, subject: str, limit: int) -> tuple[Hit, Window]:
        """Given a subject and its daily limit, count one request as :meth:`charge` does, on
        the event loop; only a pending refusal waits, in a worker thread, for :meth:`settle`."""
        hit, window = self.charge(subject, limit)
        if hit.refusal != "pending" or hit.admitted:
            return hit, window
        return await anyio.to_thread.run_sync(self.settle, subject, limit, limiter=SETTLE_THREADS)

    def _count(
        self, subject: str, limit: int, count: Callable[[str, dt.date, int, int], Hit]
    ) -> tuple[Hit, Window]:
        win = window_at(self.clock())
        try:
            if self._unsynced:
                self._reconcile()  # first, so the count below already includes them
            hit = count(subject, win.day, limit, int(self.clock()))
        except StoreUnavailable:
            self._fault("count")
            with self._lock:
                at = (subject, win.day)
                confirmed, local = self._confirmed.find(at) or 0, self._local.get(at, 0)
                used = confirmed + local
                # This replica's share of what the store had left (issue 55): the replicas
                # counting the same keys each admit at most that much while it is away, so
                # together they stay within the limit (as Unkey bounds its local counts).
                share = -(-(limit - confirmed) // self.replicas)
                if used >= limit or local >= share:
                    return Hit(False, used, limit), win
                self._local[at] = self._local.get(at, 0) + 1
                self._unsynced[at] = self._unsynced.get(at, 0) + 1
                self.metrics.fail_open_admits += 1
                return Hit(True, used + 1, limit), win
        if hit.admitted or hit.refusal != "pending":  # a pending one is settled, then kept
            self._remember(subject, win.day, hit)
        return hit, win

    def _remember(self, subject: str, day: dt.date, hit: Hit) -> None:
        """Given the store's answer for a subject-day, keep its count (the base of fail-open
        counting) and whether it refused: a final refusal for the rest of the day, a brief one
        for REFUSAL_SECONDS."""
        at = (subject, day)
        if self._local:
            self._local.pop(at, None)  # the store's count now includes what was reconciled
        self._confirmed.put(at, hit.used)
        if not hit.admitted:
            until = math.inf if hit.refusal == "final" else self.clock() + REFUSAL_SECONDS
            self._refused.put(at, (hit.used, until))
        elif self._refused.find(at) is not None:
            self._refused.put(at, (0, 0.0))  # admitted again: forget the refusal

    def refusal(self, subject: str, limit: int) -> tuple[Hit, Window] | None:
        """Given a subject and its limit, return the refusal (not admitted, the count the store
        refused at, the window) if the store refused it today at a count of at least that
        limit, finally (for the rest of the day) or briefly (less than REFUSAL_SECONDS ago),
        else None. No store round trip, and no work for a client past its limit."""
        now = self.clock()
        window = window_at(now)
        refused = self._refused.find((subject, window.day))
        if refused is None or refused[0] < limit or refused[1] <= now:
            return None
        return Hit(False, refused[0], limit), window

    @property
    def unsynced(self) -> int:
        """How many fail-open admits wait to be added to the store."""
        with self._lock:  # settle() fails open in worker threads
            return sum(self._unsynced.values())

    def reconcile(self) -> int:
        """Add the fail-open admits counted locally to the store now, not at the next request
        (the serving app calls it every second and at shutdown, so a replica whose traffic
        stops still hands them over); return how many were added. Never raises: a store still
        down keeps them for the next try."""
        if not self._unsynced:
            return 0
        try:
            return self._reconcile()
        except StoreUnavailable:
            return 0

    def _reconcile(self) -> int:
        """Add the fail-open admits counted locally to the store; return how many. Raise
        StoreUnavailable (and keep what was not added) if it is still down."""
        with self._lock:
            pending, self._unsynced = self._unsynced, {}
        now = int(self.clock())
        items = list(pending.items())
        added = 0
        for i, ((subject, day), n) in enumerate(items):
            try:
                self.counter.add(subject, day, n, now)
            except StoreUnavailable:
                with self._lock:
                    for key, left in items[i:]:
                        self._unsynced[key] = self._unsynced.get(key, 0) + left
                raise
            added += n
            with self._lock:  # the serving tick reconciles in a worker thread
                self.metrics.extra["fail_open_reconciled"] = (
                    self.metrics.extra.get("fail_open_reconciled", 0) + n
                )
        return added

    def peek(self, subject: str, limit: int) -> tuple[Hit, Window]:
        """Given a subject and its limit, return today's count without counting (for 304s)."""
        win = window_at(self.clock())
        at = (subject, win.day)
        try:
            used = self.counter.peek(subject, win.day)
        except StoreUnavailable:
            self._fault("peek")
            used = (self._confirmed.find(at) or 0) + self._local.get(at, 0)
        else:
            used += self._unsynced.get(at, 0)  # admitted here, not yet added to the store
        return Hit(used < limit, used, limit), win

    def history(self, subject: str, days: list[dt.date]) -> dict[dt.date, int]:
        """Given a subject and UTC days, return the store's count for each day (0 if none);
        StoreUnavailable when the store cannot be read (no local fallback: a usage report
        shows the store's counts or nothing)."""
        return self.counter.history(subject, days)

    def stats(self) -> dict[str, int]:
        """Return the key store's own counters (name: total), for ``/metrics``."""
        return self.counter.stats()

    def _fault(self, what: str) -> None:
        self.metrics.store_errors += 1
        now = self.clock()
        if now - self._last_log > 10:  # one line per 10 s, not one per request
            self._last_log = now
            log.warning("counter store unavailable during %s: failing open on local counts", what)
