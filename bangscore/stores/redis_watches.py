"""Watches in the shared Redis of the replicas, beside the keys and accounts.

Layout (prefix ``bs:``): ``watch:<id>`` hash of a watch, ``watches`` and ``acctwatches:<email>``
sorted sets of watch ids by creation time, ``watchcond:<email>:<appid>:<condition>`` -> id
(one watch per address, game and condition), ``waddr:<email>`` hash of an address's
confirmation, ``walerts`` and ``walerts:<id>`` lists of the alerts sent (JSON);
``wconfirm:<id>`` -> address and ``wpending`` (sorted set of pending confirmation ids by queue
time) for queued confirmations, ``wsuppressed:<email>`` for a hard bounce, ``wlease`` for the
``alerts send`` lease, ``wclaim:<id>`` hash of a watch's claim and retry state, and
``wrate:<key>:<window>`` counters; ``wsignup:<id>`` hash of a queued sign-up and
``wsignups`` (sorted set of the ids whose email is not sent yet, by queue time). Every change
of more than one key is one Lua script, so it is atomic.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import orjson
import redis

from bangscore.errors import StoreUnavailable, TooManyWatches, UnknownWatch
from bangscore.stores.redis_link import PREFIX, redis_client
from bangscore.stores.watchstore import (
    MAX_WATCHES_PER_ADDRESS,
    Address,
    Condition,
    PendingConfirmation,
    PendingSignup,
    SentAlert,
    WatchRecord,
    new_confirm_id,
    retry_delay,
)

T = TypeVar("T")
# Seconds per call: the mail batch and the account pages wait longer than a request's counter.
TIMEOUT = 5.0
BATCH = 500

# KEYS: watch hash, all watches, address's watches, condition index.
# ARGV: id, created, max per address, fields... Returns {0, id} stored, {1, id} existing, {2} full.
_ADD = """
local existing = redis.call('GET', KEYS[4])
if existing then return {1, existing} end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[3]) then return {2, ''} end
redis.call('HSET', KEYS[1], unpack(ARGV, 4))
redis.call('ZADD', KEYS[2], tonumber(ARGV[2]), ARGV[1])
redis.call('ZADD', KEYS[3], tonumber(ARGV[2]), ARGV[1])
redis.call('SET', KEYS[4], ARGV[1])
return {0, ARGV[1]}
"""

# KEYS: watch hash, all watches. ARGV: prefix, id. Returns the removed hash, or {} if none.
_REMOVE = """
local fields = redis.call('HGETALL', KEYS[1])
if #fields == 0 then return fields end
local h = {}
for i = 1, #fields, 2 do h[fields[i]] = fields[i + 1] end
redis.call('DEL', KEYS[1], ARGV[1] .. 'watchcond:' .. h['cond'])
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('ZREM', ARGV[1] .. 'acctwatches:' .. h['email'], ARGV[2])
return fields
"""

# KEYS: watch hash, all alerts, the watch's alerts, its claim. ARGV: sent_at, record JSON.
_RECORD = """
redis.call('DEL', KEYS[4])
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HSET', KEYS[1], 'fired', '1', 'last_alert_at', ARGV[1])
end
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('RPUSH', KEYS[3], ARGV[2])
return 1
"""

# KEYS: watch hashes. Clears ``fired`` on those that still exist.
_REARM = """
for _, key in ipairs(KEYS) do
  if redis.call('EXISTS', key) == 1 then redis.call('HSET', key, 'fired', '0') end
end
return #KEYS
"""


# KEYS: address hash, suppressed flag, confirm id -> email, pending set.
# ARGV: confirm id, email, now. Returns 1 if queued.
_QUEUE = """
if redis.call('HEXISTS', KEYS[1], 'confirmed_at') == 1 then return 0 end
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('HSETNX', KEYS[1], 'confirm_id', ARGV[1]) == 0 then return 0 end
redis.call('SET', KEYS[3], ARGV[2])
redis.call('ZADD', KEYS[4], tonumber(ARGV[3]), ARGV[1])
return 1
"""

# KEYS: address hash, pending set. ARGV: prefix, field to set ('' none), value, drop id (1/0).
_ADDRESS = """
if ARGV[2] == 'confirmed_at' then
  redis.call('HSETNX', KEYS[1], 'confirmed_at', ARGV[3])
elseif ARGV[2] ~= '' then
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
end
local id = redis.call('HGET', KEYS[1], 'confirm_id')
if id then
  redis.call('ZREM', KEYS[2], id)
  if ARGV[4] == '1' then
    redis.call('DEL', ARGV[1] .. 'wconfirm:' .. id)
    redis.call('HDEL', KEYS[1], 'confirm_id')
  end
end
return 1
"""

# KEYS: sign-up hash, unsent set. ARGV: id. Off the queue; one without a password is gone.
_SIGNUP_SENT = """
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HEXISTS', KEYS[1], 'hash') == 0 then redis.call('DEL', KEYS[1]) end
return 1
"""

# KEYS: sign-up hash, unsent set. ARGV: id. Returns the hash of a sign-up with a password
# and deletes it (a link works once), or {} if there is none.
_TAKE = """
if redis.call('HEXISTS', KEYS[1], 'hash') == 0 then return {} end
local fields = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return fields
"""

# KEYS: lease. ARGV: holder, seconds. Returns 1 if held by ARGV[1] now.
_LEASE = """
local held = redis.call('GET', KEYS[1])
if held and held ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'EX', tonumber(ARGV[2]))
return 1
"""

# KEYS: lease. ARGV: holder.
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
"""

# KEYS: watch hash, claim hash. ARGV: holder, now, seconds. Returns 1 if claimed.
_CLAIM = """
if redis.call('HGET', KEYS[1], 'fired') ~= '0' then return 0 end
local c = redis.call('HGETALL', KEYS[2])
local h = {}
for i = 1, #c, 2 do h[c[i]] = c[i + 1] end
local now = tonumber(ARGV[2])
if h['next_at'] and tonumber(h['next_at']) > now then return 0 end
if h['holder'] and h['holder'] ~= '' and h['holder'] ~= ARGV[1]
   and tonumber(h['claimed_at']) > now - tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[2], 'holder', ARGV[1], 'claimed_at', ARGV[2])
return 1
"""


def _condition_key(watch: WatchRecord) -> str:
    c = watch.condition
    return f"{watch.email}:{watch.appid}:" + (c.tier or c.event or f"below:{c.below_usd!r}")


def _from_hash(fields: dict[str, str]) -> WatchRecord:
    below = fields.get("below_usd", "")
    last = fields.get("last_alert_at", "")
    return WatchRecord(
        fields["watch_id"],
        fields["email"],
        int(fields["appid"]),
        Condition(
            tier=fields.get("tier") or None,  # type: ignore[arg-type]
            below_usd=float(below) if below else None,
            event=fields.get("event") or None,  # type: ignore[arg-type]
        ),
        int(fields["created_at"]),
        fields.get("fired") == "1",
        int(last) if last else None,
    )


def _alert(raw: str) -> SentAlert:
    data = orjson.loads(raw)
    return SentAlert(
        data["watch_id"],
        int(data["sent_at"]),
        data["snapshot_id"],
        data["price_usd"],
        data["tier"],
        data["message_id"],
    )


class RedisWatchStore:
    """Watches, addresses and sent alerts in Redis; every replica and ``alerts send`` share
    them. A Redis fault raises StoreUnavailable."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self._add = client.register_script(_ADD)
        self._remove = client.register_script(_REMOVE)
        self._record = client.register_script(_RECORD)
        self._rearm = client.register_script(_REARM)
        self._queue = client.register_script(_QUEUE)
        self._address = client.register_script(_ADDRESS)
        self._lease = client.register_script(_LEASE)
        self._release = client.register_script(_RELEASE)
        self._claim = client.register_script(_CLAIM)
        self._signup_sent = client.register_script(_SIGNUP_SENT)
        self._take = client.register_script(_TAKE)

    @classmethod
    def from_url(cls, url: str) -> RedisWatchStore:
        """Given the key store's ``redis://HOST:PORT/DB`` (its lease parameters are ignored;
        ``timeout`` in seconds, default :data:`TIMEOUT`), return the store; its client is
        :func:`bangscore.stores.redis_link.redis_client`'s, with redis-py's retries."""
        return cls(redis_client(url, timeout=TIMEOUT, fail_fast=False)[0])

    @staticmethod
    def _call(fn: Callable[[], T]) -> T:
        try:
            return fn()
        except redis.RedisError as exc:
            raise StoreUnavailable(f"redis: {exc}") from exc

    def add_watch(self, watch: WatchRecord) -> WatchRecord:
        c = watch.condition
        cond = _condition_key(watch)
        fields: list[Any] = ["watch_id", watch.watch_id, "email", watch.email]
        fields += ["appid", watch.appid, "tier", c.tier or ""]
        fields += ["below_usd", "" if c.below_usd is None else repr(c.below_usd)]
        fields += ["event", c.event or ""]
        fields += ["created_at", watch.created_at, "fired", "1" if watch.fired else "0"]
        fields += ["last_alert_at", watch.last_alert_at or "", "cond", cond]
        keys = [
            f"{PREFIX}watch:{watch.watch_id}",
            f"{PREFIX}watches",
            f"{PREFIX}acctwatches:{watch.email}",
            f"{PREFIX}watchcond:{cond}",
        ]
        args = [watch.watch_id, watch.created_at, MAX_WATCHES_PER_ADDRESS, *fields]
        status, found = self._call(lambda: self._add(keys=keys, args=args))
        if int(status) == 2:
            raise TooManyWatches(f"at most {MAX_WATCHES_PER_ADDRESS} watches an address")
        if int(status) == 1:
            existing = self.find_watch(str(found))
            if existing is not None:
                return existing
        return watch

    def find_watch(self, watch_id: str) -> WatchRecord | None:
        fields = self._call(lambda: self.client.hgetall(f"{PREFIX}watch:{watch_id}"))
        return _from_hash({str(k): str(v) for k, v in dict(fields).items()}) if fields else None

    def list_watches(self, email: str | None = None) -> list[WatchRecord]:
        index = f"{PREFIX}acctwatches:{email}" if email is not None else f"{PREFIX}watches"
        ids = [str(i) for i in self._call(lambda: self.client.zrange(index, 0, -1))]
        found: list[WatchRecord] = []
        for start in range(0, len(ids), BATCH):
            pipe = self.client.pipeline(transaction=False)
            for watch_id in ids[start : start + BATCH]:
                pipe.hgetall(f"{PREFIX}watch:{watch_id}")
            rows = self._call(pipe.execute)
            found += [_from_hash({str(k): str(v) for k, v in r.items()}) for r in rows if r]
        return found

    def remove_watch(self, watch_id: str) -> WatchRecord:
        keys = [f"{PREFIX}watch:{watch_id}", f"{PREFIX}watches"]
        flat = self._call(lambda: self._remove(keys=keys, args=[PREFIX, watch_id]))
        if not flat:
            raise UnknownWatch(watch_id)
        return _from_hash({str(k): str(v) for k, v in zip(flat[::2], flat[1::2], strict=True)})

    def address(self, email: str) -> Address:
        fields = self._call(lambda: self.client.hgetall(f"{PREFIX}waddr:{email}"))
        confirmed = fields.get("confirmed_at") if fields else None
        sent = fields.get("confirm_sent_at") if fields else None
        gone = self._call(lambda: self.client.get(f"{PREFIX}wsuppressed:{email}"))
        return Address(
            email,
            int(confirmed) if confirmed else None,
            int(sent) if sent else None,
            int(gone) if gone else None,
        )

    def _set_address(self, email: str, field: str, now: int, *, drop: bool) -> None:
        keys = [f"{PREFIX}waddr:{email}", f"{PREFIX}wpending"]
        args: list[str | int] = [PREFIX, field, now, "1" if drop else "0"]
        self._call(lambda: self._address(keys=keys, args=args))

    def confirm_address(self, email: str, now: int) -> None:
        self._set_address(email, "confirmed_at", now, drop=True)

    def confirmation_sent(self, email: str, now: int) -> None:
        self._set_address(email, "confirm_sent_at", now, drop=False)

    def queue_confirmation(self, email: str, now: int) -> PendingConfirmation | None:
        pending = PendingConfirmation(new_confirm_id(), email, now)
        keys = [
            f"{PREFIX}waddr:{email}",
            f"{PREFIX}wsuppressed:{email}",
            f"{PREFIX}wconfirm:{pending.confirm_id}",
            f"{PREFIX}wpending",
        ]
        args: list[str | int] = [pending.confirm_id, email, now]
        queued = self._call(lambda: self._queue(keys=keys, args=args))
        return pending if int(queued) == 1 else None

    def pending_confirmations(self) -> list[PendingConfirmation]:
        rows: list[tuple[str, float]] = self._call(
            lambda: self.client.zrange(f"{PREFIX}wpending", 0, -1, withscores=True)  # type: ignore[arg-type,return-value]
        )
        found = []
        for confirm_id, queued in rows:
            email = self.confirmation_email(str(confirm_id))
            if email is not None:
                found.append(PendingConfirmation(str(confirm_id), email, int(queued)))
        return found

    def confirmation_email(self, confirm_id: str) -> str | None:
        email = self._call(lambda: self.client.get(f"{PREFIX}wconfirm:{confirm_id}"))
        return str(email) if email else None

    def suppress(self, email: str, now: int) -> None:
        self._call(lambda: self.client.set(f"{PREFIX}wsuppressed:{email}", now, nx=True))
        self._set_address(email, "", now, drop=True)

    def queue_signup(self, signup: PendingSignup, keep_seconds: int) -> None:
        key = f"{PREFIX}wsignup:{signup.signup_id}"
        pipe = self.client.pipeline(transaction=True)
        pipe.hset(key, mapping={"email": signup.email, "queued_at": signup.queued_at})
        if signup.password_hash is not None:
            pipe.hset(key, "hash", signup.password_hash)
        # Seconds left by this process's clock, not EXPIREAT by Redis's (issue 60); none left
        # deletes it at once.
        pipe.expire(key, signup.queued_at + keep_seconds - int(time.time()))
        pipe.zadd(f"{PREFIX}wsignups", {signup.signup_id: signup.queued_at})
        pipe.zremrangebyscore(f"{PREFIX}wsignups", 0, signup.queued_at - keep_seconds)
        self._call(pipe.execute)

    def _signup(self, signup_id: str) -> PendingSignup | None:
        found = self._call(lambda: self.client.hgetall(f"{PREFIX}wsignup:{signup_id}"))
        if not found:
            return None
        fields = {str(k): str(v) for k, v in found.items()}
        return PendingSignup(
            signup_id, fields["email"], fields.get("hash"), int(fields["queued_at"])
        )

    def pending_signups(self) -> list[PendingSignup]:
        ids = self._call(lambda: self.client.zrange(f"{PREFIX}wsignups", 0, -1))
        found = [self._signup(str(i)) for i in ids]
        return [s for s in found if s is not None]

    def signup_sent(self, signup_id: str, now: int) -> None:
        key = f"{PREFIX}wsignup:{signup_id}"
        self._call(lambda: self._signup_sent(keys=[key, f"{PREFIX}wsignups"], args=[signup_id]))

    def take_signup(self, signup_id: str) -> PendingSignup | None:
        keys = [f"{PREFIX}wsignup:{signup_id}", f"{PREFIX}wsignups"]
        flat = self._call(lambda: self._take(keys=keys, args=[signup_id]))
        if not flat:
            return None
        fields = {str(k): str(v) for k, v in zip(flat[::2], flat[1::2], strict=True)}
        return PendingSignup(signup_id, fields["email"], fields["hash"], int(fields["queued_at"]))

    def acquire_lease(self, holder: str, now: int, seconds: int) -> bool:
        args: list[str | int] = [holder, max(1, seconds)]
        return int(self._call(lambda: self._lease(keys=[f"{PREFIX}wlease"], args=args))) == 1

    def release_lease(self, holder: str) -> None:
        self._call(lambda: self._release(keys=[f"{PREFIX}wlease"], args=[holder]))

    def claim(self, watch_id: str, holder: str, now: int, seconds: int) -> bool:
        keys = [f"{PREFIX}watch:{watch_id}", f"{PREFIX}wclaim:{watch_id}"]
        args: list[str | int] = [holder, now, seconds]
        return int(self._call(lambda: self._claim(keys=keys, args=args))) == 1

    def defer(self, watch_id: str, now: int) -> int:
        key = f"{PREFIX}wclaim:{watch_id}"
        attempts = int(self._call(lambda: self.client.hincrby(key, "attempts", 1)))
        next_at = now + retry_delay(attempts)
        self._call(lambda: self.client.hset(key, mapping={"holder": "", "next_at": next_at}))
        return next_at

    def hit(self, key: str, now: int, window: int) -> int:
        name = f"{PREFIX}wrate:{key}:{now - now % window}"
        pipe = self.client.pipeline(transaction=True)
        pipe.incr(name)
        pipe.expire(name, window + 60)
        count, _ = self._call(pipe.execute)
        return int(count)

    def record_alert(self, alert: SentAlert) -> None:
        record = orjson.dumps(
            {
                "watch_id": alert.watch_id,
                "sent_at": alert.sent_at,
                "snapshot_id": alert.snapshot_id,
                "price_usd": alert.price_usd,
                "tier": alert.tier,
                "message_id": alert.message_id,
            }
        ).decode()
        keys = [
            f"{PREFIX}watch:{alert.watch_id}",
            f"{PREFIX}walerts",
            f"{PREFIX}walerts:{alert.watch_id}",
            f"{PREFIX}wclaim:{alert.watch_id}",
        ]
        self._call(lambda: self._record(keys=keys, args=[alert.sent_at, record]))

    def rearm(self, watch_ids: list[str]) -> None:
        for start in range(0, len(watch_ids), BATCH):
            keys = [f"{PREFIX}watch:{w}" for w in watch_ids[start : start + BATCH]]
            self._call(lambda keys=keys: self._rearm(keys=keys, args=[]))  # type: ignore[misc]

    def sent_alerts(self, watch_id: str | None = None) -> list[SentAlert]:
        key = f"{PREFIX}walerts:{watch_id}" if watch_id else f"{PREFIX}walerts"
        return [_alert(str(r)) for r in self._call(lambda: self.client.lrange(key, 0, -1))]

    def close(self) -> None:
        self.client.close()
