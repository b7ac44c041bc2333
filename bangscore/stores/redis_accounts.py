"""Website accounts, sessions and sign-in failures in Redis (the accounts of
:func:`bangscore.stores.open_stores`).

Layout (prefix ``bs:``): ``acct:<email>`` hash of an account, ``sess:<digest>``
hash of a session (expires at its end), ``fail:<subject>`` hash of a subject's failed attempts
(expires once forgotten).
"""

from __future__ import annotations

import time
from typing import Any

from bangscore.errors import AccountExists
from bangscore.stores.keystore import AccountRecord, Failures, SessionRecord
from bangscore.stores.redis_link import PREFIX, RedisLink, text_fields

# KEYS: failures hash. ARGV: now, seconds until forgotten. Returns {count, last}.
_FAIL = """
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('HSET', KEYS[1], 'last', ARGV[1])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[2]))
return {n, tonumber(ARGV[1])}
"""

_ADD_ACCOUNT = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""


class RedisAccounts:
    """Accounts, sessions and failures over a :class:`RedisLink`, each call one round trip
    through its breaker (StoreUnavailable when Redis is down)."""

    def __init__(self, link: RedisLink) -> None:
        self.link = link
        self.client = link.client
        self._call = link.call
        self._add_account = self.client.register_script(_ADD_ACCOUNT)
        self._fail = self.client.register_script(_FAIL)

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
