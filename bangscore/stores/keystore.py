"""The interfaces of the stores by job (keys, counter, accounts) and their records (the
factory: :func:`bangscore.stores.open_stores`; the watches: :mod:`bangscore.stores.watchstore`).

Backends: SQLite (:mod:`~bangscore.stores.sqlite_store`, :mod:`~bangscore.stores.sqlite_counter`;
embedded default, safe across processes on one host) and Redis
(:mod:`~bangscore.stores.redis_keys`, :mod:`~bangscore.stores.redis_accounts`,
:mod:`~bangscore.stores.redis_counter`; many replicas). Both counters lease blocks of a
subject's quota and never over-admit: a subject never gets more than its limit of admitted
hits in a day.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal, Protocol

from bangscore.errors import (
    KeyExists,
    KeyStoreError,
    StoreUnavailable,
)
from bangscore.stores.keys import generate_key, key_digest, key_id

Plan = Literal["free", "pro", "bulk"]
RefusalKind = Literal["final", "pending", "brief"]
KeyState = Literal["active", "revoked"]
PLAN_LIMITS: dict[str, int] = {"free": 1_000, "pro": 50_000}
DAY_SECONDS = 86_400
KEY_COUNT_DAYS = 40  # a key's counts outlive /api/v1/usage's 30 days of history
DAY_GRACE_SECONDS = 3_600  # a replica whose clock lags may still count the day just gone
KEY_SUBJECT = "key:"


def counted_until(subject: str, day: dt.date) -> int:
    """Given a counter subject and its UTC day, return when the store may forget that count
    (Unix seconds): a key's (``key:<id>``) 40 days after the day ends, for /api/v1/usage's
    30 days of history and the keys' last use; any other subject's (a client's anonymous or
    page allowance, a sign-up limit), one per client address, an hour after its day ends, so
    that the state one address leaves lasts no longer than its allowance."""
    end = int(dt.datetime.combine(day, dt.time(), dt.UTC).timestamp()) + DAY_SECONDS
    kept = KEY_COUNT_DAYS * DAY_SECONDS if subject.startswith(KEY_SUBJECT) else DAY_GRACE_SECONDS
    return end + kept


def seconds_kept(subject: str, day: dt.date, now: int) -> int:
    """Given a counter subject, its UTC day and the time (Unix seconds), return how many
    seconds the store still keeps that count (0 or less: forget it now; Redis's ``EXPIRE``
    deletes a key given no time left)."""
    return counted_until(subject, day) - now


@dataclass(frozen=True, slots=True)
class KeyRecord:
    """A stored key: id, SHA-256 digest, account, plan, daily limit, state, created (Unix s)."""

    key_id: str
    digest: str
    account: str
    plan: Plan
    daily_limit: int
    state: KeyState
    created_at: int

    @property
    def subject(self) -> str:
        """Return the counter subject of this key (``key:<id>``)."""
        return f"{KEY_SUBJECT}{self.key_id}"


@dataclass(frozen=True, slots=True)
class KeyView:
    """A key as lists show it: the record plus last use (Unix s or None) and today's count."""

    record: KeyRecord
    last_used: int | None
    today: int


@dataclass(frozen=True, slots=True)
class AccountRecord:
    """A website account: lowercase email, argon2 password hash, created (Unix s), and the
    network it signed up from (``203.0.113.0/24``, ``2001:db8:1::/48``; empty: unknown, as for
    accounts older than this field)."""

    email: str
    password_hash: str
    created_at: int
    network: str = ""


@dataclass(frozen=True, slots=True)
class SessionRecord:
    """A signed-in website session: its account, when it began, and when it ends unless
    extended (Unix s). Stored under the SHA-256 of the session token, never the token."""

    email: str
    created_at: int
    expires_at: int


@dataclass(frozen=True, slots=True)
class Failures:
    """Recent failed attempts of one subject (sign-in throttling): how many, and the last
    one's time (Unix s; 0 when there are none)."""

    count: int
    last_at: int


@dataclass(frozen=True, slots=True)
class Hit:
    """Result of counting one request: admitted or not, the count after it, the limit, and
    what kind of refusal a refused one is: ``final`` (every request the limit allows is
    counted: refused for the rest of the UTC day), ``pending`` (another replica may still hold
    part of the quota: :meth:`Counter.settle` may admit it) or ``brief`` (settling found no
    answer in time: ask again shortly). A single store's refusals are always final."""

    admitted: bool
    used: int
    limit: int
    refusal: RefusalKind = "final"

    @property
    def remaining(self) -> int:
        """Return how many more requests the subject may make today (never negative)."""
        return max(0, self.limit - self.used)


def default_limit(plan: str, limit: int | None) -> int:
    """Given a plan and an optional explicit limit, return the key's daily limit.

    Raises ValueError for a bulk key without a limit, an unknown plan, or a limit below 1.
    """
    if limit is not None:
        if limit < 1:
            raise ValueError("a daily limit must be at least 1")
        return limit
    if plan == "bulk":
        raise ValueError("bulk keys need an explicit --limit set by the operator")
    if plan not in PLAN_LIMITS:
        raise ValueError(f"unknown plan {plan!r}: use free, pro or bulk")
    return PLAN_LIMITS[plan]


def issue_key(
    store: KeyStore, account: str, plan: Plan, limit: int | None, now: int
) -> tuple[str, KeyRecord]:
    """Given an account, a plan and an optional limit, store a new key; return (key, record).

    The key itself is returned once and never stored (only its digest). Raises ValueError for
    a bad plan or limit, KeyStoreError if no unique id could be allocated, StoreUnavailable if
    the store cannot be written (down, read-only).
    """
    daily = default_limit(plan, limit)
    for _ in range(5):  # an 8-character id clash is rare; retry with a fresh key
        key = generate_key()
        record = KeyRecord(key_id(key), key_digest(key), account, plan, daily, "active", now)
        try:
            store.add_key(record)
        except StoreUnavailable:
            raise
        except KeyExists:
            continue
        return key, record
    raise KeyStoreError("could not allocate a unique key id")


class KeyStore(Protocol):
    """The keys: records by digest and id, revocation, and listings with their use (a listing
    reads the counter of the same backend for each key's count today and last use)."""

    def add_key(self, record: KeyRecord) -> None:
        """Given a new key record, store it; raise KeyExists if its id or digest exists."""
        ...

    def find_key(self, digest: str) -> KeyRecord | None:
        """Given a key digest, return its record or None; raise StoreUnavailable if down."""
        ...

    def revoke_key(self, key_id: str) -> KeyRecord:
        """Given a key id, mark it revoked (final) and return it; raise UnknownKey."""
        ...

    def list_keys(self, day: dt.date, account: str | None = None) -> list[KeyView]:
        """Given today's date and optionally an account, return its keys, oldest first."""
        ...


class Counter(Protocol):
    """Daily counters of subjects (keys, client addresses, sign-in and sign-up limits), where
    the leases of quota live. Days are UTC calendar dates; counts never pass a limit."""

    def hit(self, subject: str, day: dt.date, limit: int, now: int) -> Hit:
        """Count one request for ``subject`` on ``day`` if it is under ``limit``, atomically.
        Never waits on other replicas: a refusal they may still lift is ``pending``."""
        ...

    def settle(self, subject: str, day: dt.date, limit: int, now: int) -> Hit:
        """Given a subject-day whose hit() was a pending refusal, count one request as hit()
        does once the other replicas have given back what they held (bounded: about a second),
        returning a final or brief refusal if none is left. May block: call it off an event
        loop."""
        ...

    def peek(self, subject: str, day: dt.date) -> int:
        """Given a subject and a day, return its count without changing it."""
        ...

    def history(self, subject: str, days: list[dt.date]) -> dict[dt.date, int]:
        """Given a subject and days, return the count of each of those days (0 if none)."""
        ...

    def add(self, subject: str, day: dt.date, n: int, now: int) -> None:
        """Given a subject, a day and a count ``n`` >= 1 of requests admitted elsewhere (the
        fail-open local counts of a replica), add them to the stored count, whatever the limit.
        Raise StoreUnavailable if down and the count was not taken; a store that can keep it
        and send it later, once (Redis's), does so and returns."""
        ...

    def stats(self) -> dict[str, int]:
        """Return the store's operation counters by name (exported on ``/metrics``)."""
        ...

    def sync(self) -> None:
        """Write where other processes read it what this one holds of today's counts only
        locally, so their listings show requests (the server calls it every second). Cheap
        when nothing changed; never raises."""
        ...

    def close(self) -> None:
        """Flush what is buffered and release connections; the store may be used again."""
        ...


class AccountStore(Protocol):
    """Website accounts, their signed-in sessions and sign-in failures (throttling)."""

    def create_account(self, account: AccountRecord) -> None:
        """Given a new account, store it; raise AccountExists if its email is taken."""
        ...

    def find_account(self, email: str) -> AccountRecord | None:
        """Given a lowercase email, return its account or None; StoreUnavailable if down."""
        ...

    def start_session(self, digest: str, email: str, created_at: int, expires_at: int) -> None:
        """Given a session token's digest, its account and lifetime, store the session."""
        ...

    def find_session(self, digest: str, now: int) -> SessionRecord | None:
        """Given a session token's digest, return its session, or None if unknown, ended or
        expired at ``now``; raise StoreUnavailable if down."""
        ...

    def extend_session(self, digest: str, expires_at: int) -> None:
        """Given a session token's digest and a new end (Unix s), move the session's end."""
        ...

    def end_session(self, digest: str) -> None:
        """Given a session token's digest, end the session: every copy of its cookie stops."""
        ...

    def fail(self, subject: str, now: int, forget_after: int) -> Failures:
        """Count one failed attempt of ``subject`` at ``now``; failures are forgotten
        ``forget_after`` seconds after the last one. Return the failures after this one."""
        ...

    def failures(self, subject: str, now: int) -> Failures:
        """Given a subject, return its failures not yet forgotten at ``now``."""
        ...

    def forgive(self, subject: str) -> None:
        """Given a subject, forget its failures (after a success)."""
        ...
