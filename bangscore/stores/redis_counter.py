"""The counter shared by many shim replicas (:func:`bangscore.stores.open_stores`): Redis,
counting with leases.

Exact counting without a round trip per request. A replica *leases* a block of a subject's
daily quota from Redis with one atomic Lua script, which grants ``min(block, limit - leased)``
and adds it to the subject's ``leased`` total; the replica then admits requests locally until
its block is spent. Redis's ``leased`` total only grows by what it grants and never past the
limit, so the admitted requests of all replicas together never exceed the limit: a lease that
is never spent can only under-admit. The block shrinks as the remaining count falls::

    block = clamp((limit - leased) // (2 * replicas), 1, max_block)

so when ``replicas`` replicas each hold a block, at most half of what remained is parked in
leases, and the last requests of a day go one by one. A background thread gives back the
unspent part of a lease idle for ``lease_idle`` seconds (so another replica can use it) and
every ``flush_every`` seconds adds the requests really admitted to the subject's ``spent``
count and its last-use time, which lists and reports show. Both happen in one pipelined
round trip. ``close()`` flushes and gives back every lease.

Headers count requests, never blocks (docs/API.md#rate-limit-headers): a Hit reports ``used``
= Redis's ``spent`` count at this replica's last lease plus what this replica admitted since;
requests other replicas admitted and have not flushed can go unseen until our next lease.
``peek()`` (304s, ``/api/v1/usage``) answers the same from a held block; holding none, it
reads Redis: ``spent`` plus our unflushed count, or, once a lease was refused that day, the
``leased`` total, since the last requests are then leased one by one and spent at once, so that
it holds what other replicas have not flushed yet and a 429 never meets a usage with requests
remaining.

Refusals: Redis refuses a lease once the leased total reaches the limit. The refusal is
*final* when the leased total less the spent count is no more than what this replica holds
unflushed: no other replica holds a block or an unflushed count, every request the limit
allows is counted. It is remembered until the UTC day ends (for that limit or a lower one), so
a key past its limit costs no round trip per 429. Otherwise it is *pending*: ``hit()`` says so
at once (``Hit.refusal``), and the caller, off its event loop, calls ``settle()``, which
recalls every replica's block of that subject-day at once over pub/sub
(:mod:`bangscore.stores.redis_recall`) and leases again, for ``SETTLE_SECONDS`` at most, until
a lease is granted or the refusal is final. A refusal still pending then (a block lost with a
failed flush or a killed replica) is ``brief``: remembered for ``flush_every`` seconds (at most
one), then asked again.

Round trips: one lease per block, one flush per ``flush_every`` seconds per process, a recall
round's publish and answers per pending refusal (not per refused request: askers join the
round in flight); key lookups: :mod:`bangscore.stores.redis_keys`. ``stats()`` counts them.

Layout (prefix ``bs:``): ``n:<subject>:<day>`` hash with ``leased``, ``spent`` and, once a
lease was refused, ``want``, and ``last:<subject>`` Unix seconds of the last admitted request,
both kept until
:func:`~bangscore.stores.keystore.counted_until` on the store's ``wall`` clock (sent as
``EXPIRE`` seconds: the caller's clock decides, never Redis's); the Lua scripts and the lease
records: :mod:`bangscore.stores.redis_leases`; recalls: :mod:`bangscore.stores.redis_recall`.

Redis down: the link's breaker (:mod:`bangscore.stores.redis_link`) fails every call at
once and the caller fails open; local leases keep being spent meanwhile, and unflushed counts
wait for Redis.

Counted once: :mod:`bangscore.stores.redis_leases` (a count sent twice applies once).
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any

from bangscore.errors import StoreUnavailable
from bangscore.stores.keystore import Hit, seconds_kept
from bangscore.stores.redis_leases import FLUSH, LEASE, CountSent, Lease, LeaseBook
from bangscore.stores.redis_link import PREFIX, RedisLink
from bangscore.stores.redis_recall import Recalls

log = logging.getLogger("bangscore.redis_counter")
SETTLE_SECONDS = 1.0  # how long settle() may wait for other replicas' blocks, in all
SETTLE_ROUNDS = 3  # recall rounds within it (a replica may lease again as it gives back)


class RedisCounter:
    """Leased daily counts in Redis (over a :class:`RedisLink`), shared by every replica.
    ``replicas`` is the expected number of processes counting the same keys (replicas x
    workers); ``max_block`` caps a lease; ``lease_idle`` and ``flush_every`` are seconds;
    ``clock`` times leases, ``wall`` (Unix s) dates expiry."""

    def __init__(
        self,
        link: RedisLink,
        *,
        replicas: int = 2,
        max_block: int = 200,
        lease_idle: float = 5.0,
        flush_every: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        if replicas < 1 or max_block < 1:
            raise ValueError("replicas and max_block must be at least 1")
        self.link, self.client, self._call = link, link.client, link.call
        client = link.client
        self.replicas = replicas
        self.max_block = max_block
        self.lease_idle = lease_idle
        self.flush_every = flush_every
        self.clock, self.wall = clock, wall
        self._lease = client.register_script(LEASE)
        self._flush = client.register_script(FLUSH)
        self._recalls = Recalls(client, self._give_back, self._publish, SETTLE_SECONDS)
        self._book = LeaseBook()
        self._leases, self._lock = self._book.leases, self._book.lock
        self._starting = threading.Lock()
        # Held across a send and its answer (a flush, an add), so this store's sequence
        # numbers reach Redis in the order they were taken; re-entrant for flush's second pass.
        self._sending = threading.RLock()
        self._store_id = secrets.token_hex(8)
        self.seen = f"seq:{self._store_id}"  # the counter hash's field of our last number
        # settles: pending refusals settled (each waits on a recall round); recalled: recall
        # rounds this replica answered by giving back.
        names = ("hits", "local_hits", "leases", "flushes", "settles", "recalled")
        self._stats = dict.fromkeys(names, 0)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def from_link(cls, link: RedisLink, params: dict[str, str]) -> RedisCounter:
        """Given the link and the URL's parameters (:func:`~bangscore.stores.redis_link.open_link`:
        ``replicas``, ``max_block``, ``lease_idle``, ``flush_every``), return the counter.
        Raises ValueError for a bad number."""
        return cls(
            link,
            replicas=int(params.get("replicas", "2")),
            max_block=int(params.get("max_block", "200")),
            lease_idle=float(params.get("lease_idle", "5")),
            flush_every=float(params.get("flush_every", "1")),
        )

    def _publish(self, channel: str, message: str) -> int:
        return int(self._call(lambda: self.client.publish(channel, message)))

    def _ensure_flusher(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        with self._starting:  # settle() runs in worker threads: one listener a store
            if self._thread is None or not self._thread.is_alive():
                self._stop.clear()
                self._thread = self._recalls.start(self._stop, self.flush_every, self._tick)

    def _tick(self) -> None:
        try:
            self.flush()
        except StoreUnavailable:
            pass  # counts stay buffered until Redis answers
        except Exception:  # a background thread must not die silently on a bug
            log.exception("flushing counts to redis failed")

    @staticmethod
    def hash_key(subject: str, day: dt.date) -> str:
        """Given a subject-day, return its counter hash's Redis key."""
        return f"{PREFIX}n:{subject}:{day.isoformat()}"

    def hit(self, subject: str, day: dt.date, limit: int, now: int) -> Hit:
        with self._lock:
            self._stats["hits"] += 1
            found = self._held(subject, day, limit, now, remembered=True)
        return found if found is not None else self._leased(subject, day, limit, now)

    def settle(self, subject: str, day: dt.date, limit: int, now: int) -> Hit:
        """Given a subject-day whose ``hit()`` was a pending refusal, recall every replica's
        block of it and lease again until a lease is granted (the request is counted) or the
        refusal is final; a ``brief`` refusal after SETTLE_SECONDS. Blocks up to that long:
        call it off an event loop. Raises StoreUnavailable if Redis is down."""
        deadline = time.monotonic() + SETTLE_SECONDS
        self._ensure_flusher()
        self._stats["settles"] += 1
        for _ in range(SETTLE_ROUNDS):
            self._recalls.ask(subject, day).wait(deadline)
            with self._lock:
                found = self._held(subject, day, limit, now, remembered=False)
            hit = found if found is not None else self._leased(subject, day, limit, now)
            if hit.admitted or hit.refusal == "final" or time.monotonic() >= deadline:
                break
        if hit.refusal == "pending":
            with self._lock:
                lease = self._leases.setdefault((subject, day), Lease())
                lease.refused_until = self.clock() + min(self.flush_every, 1.0)
                lease.refusal = "brief"
            hit = Hit(False, limit, limit, "brief")
        return hit

    def _held(
        self, subject: str, day: dt.date, limit: int, now: int, *, remembered: bool
    ) -> Hit | None:
        """Under the lock: count a request from this replica's block, or refuse it by a final
        refusal (or, ``remembered``, a pending or brief one); None if Redis must be asked."""
        lease = self._leases.setdefault((subject, day), Lease())
        if lease.left > 0:
            lease.left -= 1
            lease.unflushed += 1
            lease.local += 1
            lease.last_at = now
            lease.touched = self.clock()
            self._stats["local_hits"] += 1
            return Hit(True, min(lease.spent_seen + lease.local, limit), limit)
        if limit <= lease.final_at:
            lease.touched = self.clock()  # kept while refused, dropped once idle
            self._stats["local_hits"] += 1
            return Hit(False, limit, limit)
        if remembered and self.clock() < lease.refused_until:
            self._stats["local_hits"] += 1
            return Hit(False, limit, limit, lease.refusal)
        return None

    def _leased(self, subject: str, day: dt.date, limit: int, now: int) -> Hit:
        """Lease a block (one round trip) and count a request from it, or refuse: final if no
        other replica holds any of the quota, else pending."""
        with self._lock:
            held = self._leases.get((subject, day))
            owed = held is not None and bool(held.resend)
        if owed:
            # Counts kept from a failed send (an add's, admitted without a lease) reach Redis
            # first, so that the lease sees them.
            self.flush()
        divisor = 2 * self.replicas
        args = [limit, divisor, self.max_block, seconds_kept(subject, day, int(self.wall()))]
        granted, total, spent = self._call(
            lambda: self._lease(keys=[self.hash_key(subject, day)], args=args)
        )
        self._ensure_flusher()
        with self._lock:
            self._stats["leases"] += 1
            lease = self._leases.setdefault((subject, day), Lease())
            lease.leased_total = max(lease.leased_total, int(total))
            # Redis's spent holds what every replica flushed; what this one admitted and has
            # not flushed yet is added back, and a flush in flight too (it may have landed
            # before the lease: the headers may then overstate by it, never understate).
            lease.spent_seen, lease.local = int(spent), lease.unflushed + lease.in_flight
            lease.touched = self.clock()
            if int(granted) == 0:
                lease.want = True
                # Leased less spent is what every replica holds unspent or unflushed. A flush
                # in flight is not counted as ours: it may have landed before the lease, and
                # then leaves room for another replica's count. Unsure is pending, not final.
                if int(total) - int(spent) <= lease.left + lease.unflushed:
                    lease.final_at = max(lease.final_at, limit)
                    return Hit(False, limit, limit)
                lease.refused_until = self.clock() + SETTLE_SECONDS
                lease.refusal = "pending"
                return Hit(False, limit, limit, "pending")
            lease.refused_until = 0.0
            lease.left += int(granted) - 1
            lease.unflushed += 1
            lease.local += 1
            lease.last_at = now
            return Hit(True, min(lease.spent_seen + lease.local, limit), limit)

    def _give_back(self, subject: str, day: dt.date) -> None:
        """Another replica was refused a lease of this subject-day: flush, giving our block of
        it back (a recall round's answer). Raises StoreUnavailable."""
        with self._lock:
            lease = self._leases.get((subject, day))
            if lease is not None:
                lease.want = True
        self.flush()
        self._stats["recalled"] += 1

    def flush(self, *, release_all: bool = False) -> int:
        """Add buffered counts to Redis and give back idle (or, with ``release_all``, every)
        unspent lease, in one round trip; return how many subject-days were written.

        Raises StoreUnavailable if Redis is down; the counts stay buffered, and the entries
        sent are sent again as they were (applied once, whether or not they landed).
        """
        with self._sending:
            return self._flush_serialized(release_all)

    def _flush_serialized(self, release_all: bool) -> int:
        batch = self._book.take_batch(release_all, self.clock(), self.lease_idle)
        if not batch:
            return 0

        def send() -> list[Any]:
            pipe = self.client.pipeline(transaction=False)
            for subject, day, _, entries in batch:
                for count in entries:
                    self._send_count(pipe, subject, day, count)
            return pipe.execute()

        try:
            answers = self._call(send)
        except StoreUnavailable:
            self._book.put_back(batch)
            raise
        self._stats["flushes"] += 1
        if self._book.note_wants(batch, answers):
            # Another replica was refused while this one holds a block: give it back now
            # (one more round trip), not a flush period later.
            return len(batch) + self._flush_serialized(release_all)
        return len(batch)

    def _send_count(self, client: Any, subject: str, day: dt.date, count: CountSent) -> Any:
        """Given a client or pipeline, a subject-day and a count, run the counting script."""
        keys = [self.hash_key(subject, day), f"{PREFIX}last:{subject}"]
        keep = seconds_kept(subject, day, int(self.wall()))
        args = [count.spent, count.leased, count.last_at, keep, count.sequence]
        return self._flush(keys=keys, args=[*args, self.seen], client=client)

    def add(self, subject: str, day: dt.date, n: int, now: int) -> None:
        """Add ``n`` requests admitted elsewhere (a replica's fail-open counts) to the
        subject-day's spent and leased totals. If Redis does not answer, the count is kept
        here and sent by the next flush, once: the caller need not (and must not) add it again,
        so this never raises StoreUnavailable. Raises ValueError for ``n`` < 1."""
        if n < 1:
            raise ValueError("add needs a count of at least 1")
        with self._sending:
            count = CountSent(self._book.number(), n, n, now)
            with self._lock:
                held = self._leases.get((subject, day))
                waiting = held is not None and bool(held.resend)
            try:
                if waiting:
                    # Redis applies only numbers past the last it applied from this store: an
                    # older entry still to be sent again goes first, or it would be skipped.
                    self._book.keep(subject, day, count, self.clock())
                    self._flush_serialized(release_all=False)
                else:
                    self._call(lambda: self._send_count(self.client, subject, day, count))
            except StoreUnavailable:
                if not waiting:
                    self._book.keep(subject, day, count, self.clock())
                self._ensure_flusher()

    def peek(self, subject: str, day: dt.date) -> int:
        # A subject this replica holds a block of (or found finally refused) answers from that
        # lease, as hit() does, so a 304 revalidation costs no round trip and its headers match
        # the 200s around it.
        with self._lock:
            lease = self._leases.get((subject, day))
            if lease is not None and lease.leased_total and (lease.left or lease.final_at):
                return lease.spent_seen + lease.local
        fields = ["leased", "spent", "want", self.seen]
        leased, spent, want, seen = self._call(
            lambda: self.client.hmget(self.hash_key(subject, day), fields)
        )
        with self._lock:
            lease = self._leases.get((subject, day))
            ours = lease.unsent(int(seen or 0)) + lease.in_flight if lease is not None else 0
        # Once a lease was refused the last requests are leased one by one and spent at once,
        # so the leased total is the count, with what other replicas have not flushed yet.
        return int(leased or 0) if want else int(spent or 0) + ours

    def history(self, subject: str, days: list[dt.date]) -> dict[dt.date, int]:
        if not days:
            return {}

        def send() -> list[Any]:
            pipe = self.client.pipeline(transaction=False)
            for day in days:
                pipe.hmget(self.hash_key(subject, day), ["spent", self.seen])
            return pipe.execute()

        answers = self._call(send)
        counts = {}
        with self._lock:
            for day, (spent, seen) in zip(days, answers, strict=True):
                lease = self._leases.get((subject, day))
                ours = lease.unsent(int(seen or 0)) if lease is not None else 0
                counts[day] = int(spent or 0) + ours
        return counts

    def unsent(self, subject: str, day: dt.date, seen: int) -> tuple[int, int]:
        """Given a subject-day and the last sequence number its hash applied from this counter
        (its ``seen`` field), return what this replica admitted and Redis does not hold yet,
        and its last use (Unix s; 0 for none): listings add them to the hash's."""
        with self._lock:
            lease = self._leases.get((subject, day))
            return (lease.unsent(seen), lease.last_at) if lease is not None else (0, 0)

    def stats(self) -> dict[str, int]:
        return {**self._stats, "round_trips": self.link.round_trips}

    def sync(self) -> None:
        # Nothing to do: Redis keeps a subject-day's spent count apart from its leased blocks
        # (list_keys reads `spent`), and the flusher thread sends what is spent.
        return None

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._recalls.wake()
            self._thread.join(timeout=2)
            self._thread = None
        try:
            self.flush(release_all=True)
        except StoreUnavailable:
            log.warning("redis unavailable at close: %d subject-days unflushed", len(self._leases))
        self.link.close()  # the keys' and accounts' too: the next call reconnects
