"""Key records, website accounts, sessions and sign-in failures in Redis: the part of the Redis
key store (:class:`~bangscore.stores.redis_store.RedisKeyStore`, which inherits it) that counts
nothing.

Layout (prefix ``bs:``): ``key:<digest>`` hash of a key record, ``keyid:<id>`` -> digest,
``keys`` and ``acctkeys:<email>`` sorted sets of key ids by creation time (listing keys with
their counts is the counting store's), ``acct:<email>`` hash of an account, ``sess:<digest>``
hash of a session (expires at its end), ``fail:<subject>`` hash of a subject's failed attempts
(expires once forgotten).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

import redis

from bangscore.errors import AccountExists, KeyExists, UnknownKey
from bangscore.stores.keystore import AccountRecord, Failures, KeyRecord, SessionRecord

T = TypeVar("T")
PREFIX = "bs:"

# KEYS: failures hash. ARGV: now, seconds until forgotten. Returns {count, last}.
_FAIL = """
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('HSET', KEYS[1], 'last', ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
return {n, tonumber(ARGV[1])}
"""

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


_ADD_ACCOUNT = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""


def text_fields(fields: Any) -> dict[str, str]:
    """Given a hash as redis-py returns it, return it as str to str (the client decodes
    responses: this only narrows redis-py's bytes | str types)."""
    return {str(k): str(v) for k, v in dict(fields).items()}


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


class RedisAccounts:
    """Accounts, sessions and failures over the store's ``client``, each call one round trip
    through the store's ``_call`` (its breaker: StoreUnavailable when Redis is down)."""

    client: redis.Redis

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self._add_account = client.register_script(_ADD_ACCOUNT)
        self._fail = client.register_script(_FAIL)
        self._add_key = client.register_script(_ADD_KEY)
        self._revoke = client.register_script(_REVOKE)

    def _call(self, fn: Callable[[], T]) -> T:
        raise NotImplementedError  # the store's breaker

    # -- key records ------------------------------------------------------------------------

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

    # -- accounts ----------------------------------------------------------------------------

    def create_account(self, account: AccountRecord) -> None:
        args: list[str | int] = [
            "email",
            account.email,
            "password_hash",
            account.password_hash,
            "created_at",
            account.created_at,
            "network",
            account.network,
        ]
        key = f"{PREFIX}acct:{account.email}"
        if not int(self._call(lambda: self._add_account(keys=[key], args=args))):
            raise AccountExists(account.email)

    def find_account(self, email: str) -> AccountRecord | None:
        fields = text_fields(self._call(lambda: self.client.hgetall(f"{PREFIX}acct:{email}")))
        if not fields:
            return None
        return AccountRecord(
            fields["email"],
            fields["password_hash"],
            int(fields["created_at"]),
            fields.get("network", ""),
        )

    # -- website sessions and sign-in failures (expire in Redis) -------------------------------

    def start_session(self, digest: str, email: str, created_at: int, expires_at: int) -> None:
        key = f"{PREFIX}sess:{digest}"

        def send() -> list[Any]:
            pipe = self.client.pipeline(transaction=True)
            pipe.hset(
                key, mapping={"email": email, "created_at": created_at, "expires_at": expires_at}
            )
            # Seconds, not EXPIREAT: the caller's clock dates a session, never Redis's (issue 60).
            pipe.expire(key, max(1, expires_at - created_at))
            return pipe.execute()

        self._call(send)

    def find_session(self, digest: str, now: int) -> SessionRecord | None:
        fields = text_fields(self._call(lambda: self.client.hgetall(f"{PREFIX}sess:{digest}")))
        if not fields or int(fields["expires_at"]) <= now:
            return None
        return SessionRecord(fields["email"], int(fields["created_at"]), int(fields["expires_at"]))

    def extend_session(self, digest: str, expires_at: int) -> None:
        key = f"{PREFIX}sess:{digest}"

        def send() -> list[Any]:
            pipe = self.client.pipeline(transaction=True)
            pipe.hset(key, "expires_at", expires_at)
            pipe.expire(key, max(1, expires_at - int(time.time())))
            return pipe.execute()

        if self._call(lambda: self.client.exists(key)):
            self._call(send)

    def end_session(self, digest: str) -> None:
        self._call(lambda: self.client.delete(f"{PREFIX}sess:{digest}"))

    def fail(self, subject: str, now: int, forget_after: int) -> Failures:
        key = f"{PREFIX}fail:{subject}"
        n, last = self._call(lambda: self._fail(keys=[key], args=[now, forget_after]))
        return Failures(int(n), int(last))

    def failures(self, subject: str, now: int) -> Failures:
        n, last = self._call(lambda: self.client.hmget(f"{PREFIX}fail:{subject}", ["n", "last"]))
        return Failures(int(n), int(last or 0)) if n else Failures(0, 0)

    def forgive(self, subject: str) -> None:
        self._call(lambda: self.client.delete(f"{PREFIX}fail:{subject}"))
