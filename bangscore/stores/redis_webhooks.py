"""The webhook store in Redis (docs/API.md#webhooks): endpoints and deliveries beside the keys
and watches of the same Redis, for a deployment of many replicas.

The same interface and promises as :class:`bangscore.stores.webhooks.SQLiteWebhookStore`:
a delivery is unique by (endpoint, event type, snapshot, appid), so enqueueing the same
changes twice adds nothing; it is claimed before it is sent (one script checks that it is
pending and unclaimed and sets the claim, so two runs never hold it at once, and a killed
run's claim lapses after ``seconds``); its outcome is written in one transaction.

Keys (prefix ``bs:wh:``): ``ep:<id>`` an endpoint's hash; ``eps`` and ``acct:<address>`` its
ids by creation time; ``d:<id>`` a delivery's hash; ``log:<endpoint>`` an endpoint's
deliveries by creation time; ``uniq:<endpoint>`` its (event, snapshot, appid) taken;
``pending`` the deliveries not yet delivered or failed, by creation time.
"""

from __future__ import annotations

from typing import Any

import redis

from bangscore.errors import StoreUnavailable, WatchStoreError
from bangscore.stores.redis_link import PREFIX as LINK_PREFIX
from bangscore.stores.redis_link import redis_client
from bangscore.stores.redis_watches import TIMEOUT, RedisWatchStore
from bangscore.stores.webhooks import (
    DISABLE_AFTER_SECONDS,
    KEEP_DELIVERIES,
    Delivery,
    Endpoint,
    new_endpoint,
    next_try,
)

PREFIX = f"{LINK_PREFIX}wh:"
_PENDING = PREFIX + "pending"

# KEYS: the endpoint's taken events, the delivery, pending, the endpoint's log.
# ARGV: the event key, the id, created, the hash's fields. Returns 1 if added, 0 if taken.
_ENQUEUE = """
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('HSET', KEYS[2], unpack(ARGV, 4))
redis.call('ZADD', KEYS[3], tonumber(ARGV[3]), ARGV[2])
redis.call('ZADD', KEYS[4], tonumber(ARGV[3]), ARGV[2])
return 1
"""

# KEYS: the delivery. ARGV: now, the claim's end. Returns 1 when claimed.
_CLAIM = """
local h = redis.call('HMGET', KEYS[1], 'state', 'claimed_until')
if h[1] ~= 'pending' or tonumber(h[2]) > tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'claimed_until', ARGV[2])
return 1
"""

# KEYS: the endpoint. ARGV: now, seconds of failures that disable. Returns 1 when disabled now.
_FAILED = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local since = redis.call('HGET', KEYS[1], 'failing_since')
if since == '' then
  since = ARGV[1]
  redis.call('HSET', KEYS[1], 'failing_since', since)
end
if redis.call('HGET', KEYS[1], 'disabled_at') == ''
   and tonumber(since) <= tonumber(ARGV[1]) - tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'disabled_at', ARGV[1])
  return 1
end
return 0
"""

# KEYS: the endpoint. Clears its failure time; a removed endpoint is not brought back.
_SUCCEEDED = """
if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], 'failing_since', '') end
return 1
"""

# KEYS: endpoint, all endpoints, the owner's, the log, the taken events, pending.
# ARGV: id, the deliveries' key prefix. Returns 0 when there is no such endpoint.
_REMOVE = """
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
for _, d in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
  redis.call('DEL', ARGV[2] .. d)
  redis.call('ZREM', KEYS[6], d)
end
redis.call('DEL', KEYS[4], KEYS[5])
return 1
"""

# KEYS: the log, the taken events. ARGV: how many to keep, the deliveries' key prefix.
_PRUNE = """
for _, d in ipairs(redis.call('ZREVRANGE', KEYS[1], tonumber(ARGV[1]), -1)) do
  local h = redis.call('HMGET', ARGV[2] .. d, 'state', 'event_key')
  if h[1] ~= 'pending' then
    redis.call('DEL', ARGV[2] .. d)
    redis.call('ZREM', KEYS[1], d)
    redis.call('HDEL', KEYS[2], h[2])
  end
end
return 1
"""


def _opt(raw: str | None) -> int | None:
    return int(raw) if raw else None


def _endpoint(h: dict[str, str]) -> Endpoint:
    return Endpoint(
        h["id"],
        h["account"],
        h["url"],
        h["secret"],
        tuple(e for e in h["events"].split(",") if e),
        tuple(int(a) for a in h["appids"].split(",") if a),
        int(h["created"]),
        _opt(h.get("failing_since")),
        _opt(h.get("disabled_at")),
    )


def _delivery(h: dict[str, str]) -> Delivery:
    return Delivery(
        h["id"],
        h["endpoint"],
        h["event"],
        h["snapshot"],
        int(h["appid"]),
        h["body"].encode(),
        int(h["created"]),
        int(h["tries"]),
        h["state"],
        _opt(h.get("last_status")),
        h.get("last_error") or None,
        _opt(h.get("done_at")),
    )


class RedisWebhookStore:
    """Endpoints and deliveries in Redis; a Redis fault raises StoreUnavailable."""

    def __init__(self, client: redis.Redis) -> None:
        # Read with decode_responses (str out), which redis-py's types cannot express.
        self.client: Any = client
        self._enqueue = client.register_script(_ENQUEUE)
        self._claim = client.register_script(_CLAIM)
        self._failed = client.register_script(_FAILED)
        self._remove = client.register_script(_REMOVE)
        self._prune = client.register_script(_PRUNE)
        self._succeeded = client.register_script(_SUCCEEDED)

    @classmethod
    def from_url(cls, url: str) -> RedisWebhookStore:
        """Given the key store's ``redis://HOST:PORT/DB`` (read as the watch store reads it:
        :func:`bangscore.stores.redis_link.redis_client`), return the store."""
        return cls(redis_client(url, timeout=TIMEOUT, fail_fast=False)[0])

    # A Redis fault as StoreUnavailable, as the watch store raises it.
    _call = staticmethod(RedisWatchStore._call)

    def close(self) -> None:
        """Release the connections; the store may be used again."""
        self.client.close()

    def _hashes(self, keys: list[str]) -> list[dict[str, str]]:
        """Given hash keys, return each one's fields (an empty dict for one gone)."""
        pipe = self.client.pipeline(transaction=False)
        for key in keys:
            pipe.hgetall(key)
        return self._call(pipe.execute) if keys else []

    # -- endpoints -------------------------------------------------------------------------

    def add_endpoint(
        self, account: str, url: str, events: tuple[str, ...], appids: tuple[int, ...], now: int
    ) -> Endpoint:
        """Given an owner, URL, event types, appids and the time, store and return a new
        endpoint with a fresh id and secret."""
        endpoint = new_endpoint(account, url, events, appids, now)
        fields: dict[str, Any] = {
            "id": endpoint.id,
            "account": account,
            "url": url,
            "secret": endpoint.secret,
            "events": ",".join(events),
            "appids": ",".join(map(str, appids)),
            "created": now,
            "failing_since": "",
            "disabled_at": "",
        }
        pipe = self.client.pipeline(transaction=True)
        pipe.hset(f"{PREFIX}ep:{endpoint.id}", mapping=fields)
        pipe.zadd(f"{PREFIX}eps", {endpoint.id: now})
        pipe.zadd(f"{PREFIX}acct:{account}", {endpoint.id: now})
        self._call(pipe.execute)
        return endpoint

    def endpoints(self, account: str | None = None) -> list[Endpoint]:
        """Return every endpoint (or one owner's), oldest first."""
        index = f"{PREFIX}eps" if account is None else f"{PREFIX}acct:{account}"
        ids: list[str] = self._call(lambda: self.client.zrange(index, 0, -1))
        rows = self._hashes([f"{PREFIX}ep:{i}" for i in ids])
        return [_endpoint(h) for h in rows if h]

    def endpoint(self, endpoint_id: str) -> Endpoint | None:
        """Return the endpoint of that id, or None."""
        fields = self._call(lambda: self.client.hgetall(f"{PREFIX}ep:{endpoint_id}"))
        return _endpoint(fields) if fields else None

    def remove_endpoint(self, endpoint_id: str) -> None:
        """Remove an endpoint and its deliveries; WatchStoreError if there is none."""
        found = self.endpoint(endpoint_id)
        keys = [
            f"{PREFIX}ep:{endpoint_id}",
            f"{PREFIX}eps",
            f"{PREFIX}acct:{found.account if found else ''}",
            f"{PREFIX}log:{endpoint_id}",
            f"{PREFIX}uniq:{endpoint_id}",
            _PENDING,
        ]
        if found is None or not self._call(
            lambda: self._remove(keys=keys, args=[endpoint_id, f"{PREFIX}d:"])
        ):
            raise WatchStoreError(f"no webhook endpoint {endpoint_id}")

    def failed(self, endpoint_id: str, now: int) -> Endpoint | None:
        """Record a failed try: the endpoint's first failure time is kept; past
        :data:`DISABLE_AFTER_SECONDS` of failures it is disabled. Return the endpoint when this
        call disabled it (its owner is then told), else None."""
        key = f"{PREFIX}ep:{endpoint_id}"
        cut = self._call(lambda: self._failed(keys=[key], args=[now, DISABLE_AFTER_SECONDS]))
        return self.endpoint(endpoint_id) if cut else None

    def succeeded(self, endpoint_id: str) -> None:
        """Record a delivered try: the endpoint is no longer failing."""
        key = f"{PREFIX}ep:{endpoint_id}"
        self._call(lambda: self._succeeded(keys=[key]))

    # -- deliveries ------------------------------------------------------------------------

    def enqueue(self, delivery: Delivery) -> bool:
        """Add a delivery, due now; return False (nothing added) when the endpoint already has
        this event of this snapshot and game."""
        d = delivery
        event_key = f"{d.event} {d.snapshot} {d.appid}"
        fields: list[Any] = ["id", d.id, "endpoint", d.endpoint, "event", d.event]
        fields += ["snapshot", d.snapshot, "appid", d.appid, "body", d.body]
        fields += ["created", d.created, "tries", 0, "next_at", d.created, "state", "pending"]
        fields += ["claimed_until", 0, "last_status", "", "last_error", "", "done_at", ""]
        fields += ["event_key", event_key]
        keys = [
            f"{PREFIX}uniq:{d.endpoint}",
            f"{PREFIX}d:{d.id}",
            _PENDING,
            f"{PREFIX}log:{d.endpoint}",
        ]
        args = [event_key, d.id, d.created, *fields]
        return bool(self._call(lambda: self._enqueue(keys=keys, args=args)))

    def due(self, now: int) -> list[Delivery]:
        """Return the pending deliveries due at ``now`` of endpoints not disabled, oldest
        first."""
        ids: list[str] = self._call(lambda: self.client.zrange(_PENDING, 0, -1))
        rows = [h for h in self._hashes([f"{PREFIX}d:{i}" for i in ids]) if h]
        owners = {h["endpoint"] for h in rows}
        live = {
            e.id
            for e in (self.endpoint(o) for o in sorted(owners))
            if e is not None and e.disabled_at is None
        }
        return [
            _delivery(h)
            for h in rows
            if h["state"] == "pending"
            and int(h["next_at"]) <= now
            and int(h["claimed_until"]) <= now
            and h["endpoint"] in live
        ]

    def claim(self, delivery_id: str, now: int, seconds: int) -> bool:
        """Claim a pending delivery for ``seconds``; False if another run holds it or it is
        no longer pending."""
        key = f"{PREFIX}d:{delivery_id}"
        return bool(self._call(lambda: self._claim(keys=[key], args=[now, now + seconds])))

    def finish(self, delivery_id: str, now: int, status: int | None, error: str | None) -> Delivery:
        """Record a try's outcome: delivered (a 2xx ``status``), else failed for good after
        the last try or due again after the next retry delay; the claim is released. Return
        the delivery as recorded (KeyError if there is none)."""
        key = f"{PREFIX}d:{delivery_id}"
        for _ in range(16):  # a concurrent write to the same delivery: read it again
            with self.client.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(key)
                    raw = pipe.hget(key, "tries")
                    if raw is None:
                        raise KeyError(delivery_id)
                    tries = int(raw) + 1
                    state, next_at = next_try(tries, status, now)
                    pipe.multi()
                    pipe.hset(
                        key,
                        mapping={
                            "tries": tries,
                            "state": state,
                            "next_at": next_at,
                            "claimed_until": 0,
                            "last_status": "" if status is None else status,
                            "last_error": error or "",
                            "done_at": now if state != "pending" else "",
                        },
                    )
                    if state != "pending":
                        pipe.zrem(_PENDING, delivery_id)
                    pipe.execute()
                except redis.WatchError:
                    continue
                except redis.RedisError as exc:
                    raise StoreUnavailable(f"redis: {exc}") from exc
                return self.deliveries_by_id(delivery_id)
        raise StoreUnavailable(f"redis: delivery {delivery_id} kept changing")

    def deliveries_by_id(self, delivery_id: str) -> Delivery:
        """Return the delivery of that id (KeyError if none)."""
        fields = self._call(lambda: self.client.hgetall(f"{PREFIX}d:{delivery_id}"))
        if not fields:
            raise KeyError(delivery_id)
        return _delivery(fields)

    def deliveries(self, endpoint_id: str, limit: int = KEEP_DELIVERIES) -> list[Delivery]:
        """Return an endpoint's last ``limit`` deliveries, newest first."""
        log = f"{PREFIX}log:{endpoint_id}"
        ids: list[str] = self._call(lambda: self.client.zrevrange(log, 0, limit - 1))
        return [_delivery(h) for h in self._hashes([f"{PREFIX}d:{i}" for i in ids]) if h]

    def prune(self, endpoint_id: str) -> None:
        """Drop an endpoint's finished deliveries older than its last :data:`KEEP_DELIVERIES`."""
        keys = [f"{PREFIX}log:{endpoint_id}", f"{PREFIX}uniq:{endpoint_id}"]
        self._call(lambda: self._prune(keys=keys, args=[KEEP_DELIVERIES, f"{PREFIX}d:"]))
