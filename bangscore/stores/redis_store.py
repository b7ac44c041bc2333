"""The shared key and counter store for many shim replicas: Redis, one count per request.

Each counted request is one round trip: a Lua script (loaded once, called by EVALSHA) reads
the subject-day's count, refuses at the limit, else increments it, sets its expiry when it is
new and notes the request's time as the subject's last use. Redis runs a script alone, so the
count is exact across every replica by construction: no replica holds any part of a quota, and
a refusal is final for the rest of the UTC day (the count never falls). Headers and
``/api/v1/usage`` show the count Redis returned, other replicas' requests included.

Layout (prefix ``bs:``): ``n:<subject>:<day>`` hash whose ``spent`` field is the subject-day's
count, and ``last:<subject>`` Unix seconds of the last admitted request, both expiring at
:func:`~bangscore.stores.keystore.counted_until` (a key's 40 days after the day, a client
address's allowance an hour after its day ends); ``added:<token>`` marks a fail-open count
already added (below); key records, accounts, sessions and failures:
:mod:`bangscore.stores.redis_accounts`.

Redis down: every call raises StoreUnavailable at once for ``retry_after`` seconds after a
failure (a breaker, so that a dead Redis costs no connect attempt per request), and the caller
fails open on local counts, handing them over with :meth:`RedisKeyStore.add` when Redis is back.

Counted once: an ``add`` (a replica's fail-open counts) carries a random token, and the script
adds the count only if the token is new; one whose answer is lost is kept here and sent again
with the same token by the next :meth:`~RedisKeyStore.sync` (the server's once-a-second tick),
so it counts once whether or not it landed. A request whose answer is lost is admitted on the
local count and so counted twice: the day's count may overstate by one per lost answer (a
client is refused early, never admitted past its limit by Redis).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import redis
import redis.asyncio
from redis.backoff import NoBackoff
from redis.retry import Retry

from bangscore.errors import StoreUnavailable
from bangscore.stores.keystore import Hit, KeyView, counted_until
from bangscore.stores.redis_accounts import PREFIX, RedisAccounts, key_record, text_fields
from bangscore.stores.redis_batch import Pipeliner

log = logging.getLogger("bangscore.redis_store")
T = TypeVar("T")

# KEYS: counter hash, last-use key. ARGV: limit, now, expiry (Unix seconds).
# Returns {1, count after} for an admitted request, {0, count} for a refused one.
_COUNT = """
local spent = tonumber(redis.call('HGET', KEYS[1], 'spent') or '0')
if spent >= tonumber(ARGV[1]) then return {0, spent} end
spent = redis.call('HINCRBY', KEYS[1], 'spent', 1)
if spent == 1 then redis.call('EXPIREAT', KEYS[1], ARGV[3]) end
redis.call('SET', KEYS[2], ARGV[2], 'EXAT', ARGV[3])
return {1, spent}
"""

# KEYS: counter hash, last-use key, the add's token key. ARGV: count, now, expiry.
# Adds the count unless the token was seen (a resend of an add that landed). Returns 1 if added.
_ADD = """
if not redis.call('SET', KEYS[3], 1, 'NX', 'EXAT', ARGV[3]) then return 0 end
redis.call('HINCRBY', KEYS[1], 'spent', tonumber(ARGV[1]))
redis.call('EXPIREAT', KEYS[1], ARGV[3])
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
if tonumber(ARGV[2]) > last then redis.call('SET', KEYS[2], ARGV[2], 'EXAT', ARGV[3]) end
return 1
"""


class Added(NamedTuple):
    """A fail-open count to add: subject, day, count, last use (Unix s) and its token."""

    subject: str
    day: dt.date
    n: int
    now: int
    token: str


class RedisKeyStore(RedisAccounts):
    """Keys, accounts and exact daily counts in Redis, shared by every replica.

    ``retry_after`` is how long calls fail fast after a Redis fault (seconds).
    """

    def __init__(
        self,
        client: redis.Redis,
        *,
        retry_after: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        pipelined: redis.asyncio.Redis | None = None,
    ) -> None:
        super().__init__(client)
        self.retry_after = retry_after
        self.clock = clock
        self._count = client.register_script(_COUNT)
        self._add = client.register_script(_ADD)
        self._unsent: list[Added] = []  # adds whose answer did not arrive: sent again
        self._lock = threading.Lock()
        self._down_until = 0.0
        self._stats = {"round_trips": 0, "hits": 0, "adds": 0}
        self._pipeliner = (
            None
            if pipelined is None
            else Pipeliner(pipelined, _COUNT, self._count.sha, self._trip, self._tripped)
        )

    def _trip(self) -> None:
        self._down_until = self.clock() + self.retry_after

    def _tripped(self) -> bool:
        return self.clock() < self._down_until

    async def count(self, subject: str, day: dt.date, limit: int, now: int) -> Hit:
        """Count one request as hit() does, on the event loop: sent in the next pipeline of
        this loop's counts, never blocking the loop. Raises StoreUnavailable."""
        if self._pipeliner is None:
            return self.hit(subject, day, limit, now)
        keys = [self._counter(subject, day), f"{PREFIX}last:{subject}"]
        self._stats["hits"] += 1
        answer = await self._pipeliner.call(keys, [limit, now, counted_until(subject, day)])
        return Hit(bool(answer[0]), int(answer[1]), limit)

    @classmethod
    def from_url(cls, url: str) -> RedisKeyStore:
        """Given ``redis://HOST:PORT/DB`` with optional query parameters ``retry_after`` and
        ``timeout`` (seconds per Redis call, default 0.25), return the store. Raises
        ValueError."""
        parts = urlsplit(url)
        ours: dict[str, str] = {}
        theirs: list[tuple[str, str]] = []
        for name, value in parse_qsl(parts.query):
            if name in _RETIRED:
                log.warning("redis store: %s= is no longer used (no leases), ignored", name)
            elif name in _OURS:
                ours[name] = value
            else:
                theirs.append((name, value))
        timeout = float(ours.pop("timeout", "0.25"))
        address = urlunsplit(parts._replace(query=urlencode(theirs)))
        client = redis.Redis.from_url(
            address,
            decode_responses=True,
            socket_timeout=timeout,
            socket_connect_timeout=timeout,
            retry=Retry(NoBackoff(), 0),  # fail fast: the caller fails open instead of waiting
            health_check_interval=0,
        )
        pipelined = None
        if ours.get("pipeline", "1") == "1":
            pipelined = redis.asyncio.Redis.from_url(
                address,
                decode_responses=True,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                health_check_interval=0,
            )
        return cls(client, retry_after=float(ours.get("retry_after", "1")), pipelined=pipelined)

    # -- plumbing ----------------------------------------------------------------------------

    def _call(self, fn: Callable[[], T]) -> T:
        """Run one round trip to Redis; StoreUnavailable on a fault and for a while after it."""
        if self.clock() < self._down_until:
            raise StoreUnavailable("redis: unavailable (retrying shortly)")
        self._stats["round_trips"] += 1
        try:
            return fn()
        except redis.RedisError as exc:
            self._down_until = self.clock() + self.retry_after
            raise StoreUnavailable(f"redis: {exc}") from exc

    @staticmethod
    def _counter(subject: str, day: dt.date) -> str:
        return f"{PREFIX}n:{subject}:{day.isoformat()}"

    # -- counting ----------------------------------------------------------------------------

    def hit(self, subject: str, day: dt.date, limit: int, now: int) -> Hit:
        keys = [self._counter(subject, day), f"{PREFIX}last:{subject}"]
        args = [limit, now, counted_until(subject, day)]
        self._stats["hits"] += 1
        admitted, used = self._call(lambda: self._count(keys=keys, args=args))
        return Hit(bool(admitted), int(used), limit)

    def settle(self, subject: str, day: dt.date, limit: int, now: int) -> Hit:
        """Count one request as hit() does: Redis holds the whole count, nothing is pending."""
        return self.hit(subject, day, limit, now)

    def add(self, subject: str, day: dt.date, n: int, now: int) -> None:
        """Add ``n`` requests admitted elsewhere (a replica's fail-open counts) to the
        subject-day's count. If Redis does not answer, the count is kept here and sent again
        by :meth:`sync`, once: the caller need not (and must not) add it again, so this never
        raises StoreUnavailable. Raises ValueError for ``n`` < 1."""
        if n < 1:
            raise ValueError("add needs a count of at least 1")
        added = Added(subject, day, n, now, secrets.token_hex(8))
        try:
            self._call(lambda: self._send(self.client, added))
        except StoreUnavailable:
            with self._lock:
                self._unsent.append(added)

    def _send(self, client: Any, added: Added) -> Any:
        """Given a client or pipeline and an add, run the adding script."""
        keys = [self._counter(added.subject, added.day), f"{PREFIX}last:{added.subject}"]
        keys.append(f"{PREFIX}added:{added.token}")
        self._stats["adds"] += 1
        args = [added.n, added.now, counted_until(added.subject, added.day)]
        return self._add(keys=keys, args=args, client=client)

    def _kept(self, subject: str, day: dt.date) -> int:
        """Given a subject-day, return the fail-open count kept here, not yet sent."""
        with self._lock:
            return sum(a.n for a in self._unsent if (a.subject, a.day) == (subject, day))

    def peek(self, subject: str, day: dt.date) -> int:
        spent = self._call(lambda: self.client.hget(self._counter(subject, day), "spent"))
        return int(spent or 0) + self._kept(subject, day)

    def history(self, subject: str, days: list[dt.date]) -> dict[dt.date, int]:
        if not days:
            return {}

        def send() -> list[Any]:
            pipe = self.client.pipeline(transaction=False)
            for day in days:
                pipe.hget(self._counter(subject, day), "spent")
            return pipe.execute()

        answers = self._call(send)
        return {
            day: int(spent or 0) + self._kept(subject, day)
            for day, spent in zip(days, answers, strict=True)
        }

    # -- keys --------------------------------------------------------------------------------

    def list_keys(self, day: dt.date, account: str | None = None) -> list[KeyView]:
        index = f"{PREFIX}acctkeys:{account}" if account else f"{PREFIX}keys"
        ids = [str(i) for i in self._call(lambda: self.client.zrange(index, 0, -1))]
        if not ids:
            return []

        def digests() -> list[Any]:
            pipe = self.client.pipeline(transaction=False)
            for key_id in ids:
                pipe.get(f"{PREFIX}keyid:{key_id}")
            return pipe.execute()

        found = [d for d in self._call(digests) if d]

        def details() -> list[Any]:
            pipe = self.client.pipeline(transaction=False)
            for digest in found:
                pipe.hgetall(f"{PREFIX}key:{digest}")
            return pipe.execute()

        records = [key_record(text_fields(f)) for f in self._call(details) if f]

        def counts() -> list[Any]:
            pipe = self.client.pipeline(transaction=False)
            for r in records:
                pipe.hget(self._counter(r.subject, day), "spent")
                pipe.get(f"{PREFIX}last:{r.subject}")
            return pipe.execute()

        raw = self._call(counts)
        views = []
        for i, r in enumerate(records):
            spent, last = raw[2 * i], raw[2 * i + 1]
            today = int(spent or 0) + self._kept(r.subject, day)
            views.append(KeyView(r, int(last) if last else None, today))
        return views

    # -- housekeeping ------------------------------------------------------------------------

    def stats(self) -> dict[str, int]:
        return dict(self._stats)

    def sync(self) -> None:
        # The adds whose answer was lost, sent again with their tokens (counted once). Never
        # raises: still down, they wait for the next tick.
        with contextlib.suppress(StoreUnavailable):
            self.flush()

    def flush(self) -> int:
        """Send again the adds kept after a failed round trip, in one pipeline; return how
        many were sent. Raises StoreUnavailable (and keeps them) if Redis is still down."""
        with self._lock:
            unsent, self._unsent = self._unsent, []
        if not unsent:
            return 0

        def send() -> list[Any]:
            pipe = self.client.pipeline(transaction=False)
            for added in unsent:
                self._send(pipe, added)
            return pipe.execute()

        try:
            self._call(send)
        except StoreUnavailable:
            with self._lock:
                self._unsent = unsent + self._unsent
            raise
        return len(unsent)

    def close(self) -> None:
        try:
            self.flush()
        except StoreUnavailable:
            log.warning("redis unavailable at close: %d fail-open counts unsent", len(self._unsent))
        self.client.close()


# The store's own query parameters of a ``redis://`` URL (the rest are redis-py's).
_OURS = {"retry_after", "timeout", "pipeline"}
# The parameters of the leases this store counted with before, accepted so that a deployed URL
# still starts.
_RETIRED = {"replicas", "max_block", "lease_idle", "flush_every"}
