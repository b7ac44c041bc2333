"""The keys in Redis (the keys of :func:`bangscore.stores.open_stores`): records, revocation, and
listings with each key's count today and last use, read from the counter's hashes
(:mod:`bangscore.stores.redis_counter`).

Layout (prefix ``bs:``): ``key:<digest>`` hash of a key record, ``keyid:<id>`` -> digest,
``keys`` and ``acctkeys:<email>`` sorted sets of key ids by creation time.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

from bangscore.errors import KeyExists, UnknownKey
from bangscore.stores.keystore import KeyRecord, KeyView
from bangscore.stores.redis_counter import RedisCounter
from bangscore.stores.redis_link import PREFIX, RedisLink, text_fields

# KEYS: record hash, id index, all-keys set, account's keys set. ARGV: id, created, fields...
_ADD_KEY = """
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('SET', KEYS[2], ARGV[3 + 3])
redis.call('ZADD', KEYS[3], tonumber(ARGV[2]), ARGV[1])
redis.call('ZADD', KEYS[4], tonumber(ARGV[2]), ARGV[1])
return 1
"""

# KEYS: id index. ARGV: key prefix, now. Returns the record's fields, or nil for no such id.
_REVOKE = """
local digest = redis.call('GET', KEYS[1])
if not digest then return nil end
local key = ARGV[1] .. digest
if redis.call('HGET', key, 'state') == 'active' then
  redis.call('HSET', key, 'state', 'revoked', 'revoked_at', ARGV[2])
end
return redis.call('HGETALL', key)
"""


def key_record(fields: dict[str, str]) -> KeyRecord:
    """Given a key record's hash (str to str), return the record."""
    return KeyRecord(
        fields["key_id"],
        fields["digest"],
        fields["account"],
        fields["plan"],  # type: ignore[arg-type]
        int(fields["daily_limit"]),
        fields["state"],  # type: ignore[arg-type]
        int(fields["created_at"]),
    )


def _pairs(flat: list[Any]) -> dict[str, str]:
    return {str(k): str(v) for k, v in zip(flat[::2], flat[1::2], strict=True)}


class RedisKeys:
    """Key records over a :class:`RedisLink` (each call one round trip through its breaker;
    a replica reads a key once per ``KeyCheck.key_cache_seconds``, which bounds revocation
    lag: 2 s by default, under the 5 s of docs/API.md#key-states); listings read the
    ``counter``'s counts, with what it holds unflushed."""

    def __init__(self, link: RedisLink, counter: RedisCounter) -> None:
        self.link = link
        self.client = link.client
        self._call = link.call
        self.counter = counter
        self._add_key = self.client.register_script(_ADD_KEY)
        self._revoke = self.client.register_script(_REVOKE)

    def add_key(self, record: KeyRecord) -> None:
        fields: list[str | int] = []
        for name in ("key_id", "digest", "account", "plan", "daily_limit", "state", "created_at"):
            fields += [name, getattr(record, name)]
        keys = [
            f"{PREFIX}key:{record.digest}",
            f"{PREFIX}keyid:{record.key_id}",
            f"{PREFIX}keys",
            f"{PREFIX}acctkeys:{record.account}",
        ]
        # ARGV: id, created, then the field pairs (digest is the 4th pair's value: ARGV[6]).
        args = [record.key_id, record.created_at, *fields]
        if not int(self._call(lambda: self._add_key(keys=keys, args=args))):
            raise KeyExists(f"key {record.key_id} already exists")

    def find_key(self, digest: str) -> KeyRecord | None:
        fields = text_fields(self._call(lambda: self.client.hgetall(f"{PREFIX}key:{digest}")))
        return key_record(fields) if fields else None

    def revoke_key(self, key_id: str) -> KeyRecord:
        now = int(time.time())
        flat = self._call(
            lambda: self._revoke(keys=[f"{PREFIX}keyid:{key_id}"], args=[f"{PREFIX}key:", now])
        )
        if not flat:
            raise UnknownKey(key_id)
        return key_record(_pairs(flat))

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
                pipe.hmget(self.counter.hash_key(r.subject, day), ["spent", self.counter.seen])
                pipe.get(f"{PREFIX}last:{r.subject}")
            return pipe.execute()

        raw = self._call(counts)
        views = []
        for i, r in enumerate(records):
            (spent, seen), last = raw[2 * i], raw[2 * i + 1]
            pending, pending_at = self.counter.unsent(r.subject, day, int(seen or 0))
            used = int(last) if last else None
            if pending:
                used = max(used or 0, pending_at)
            views.append(KeyView(r, used, int(spent or 0) + pending))
        return views
