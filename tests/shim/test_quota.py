"""Quota windows, headers, authentication cache and fail-open counting."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bangscore.errors import AuthFailure, StoreUnavailable
from bangscore.shim.quota import Quota, rate_headers, window_at
from bangscore.stores.keys import generate_key, key_id
from bangscore.stores.keystore import Hit, KeyRecord, issue_key
from bangscore.stores.sqlite_counter import SQLiteCounter
from bangscore.stores.sqlite_store import SQLiteFile, SQLiteKeys
from tests.support.factories import Clock


@pytest.mark.parametrize(
    ("now", "day", "reset", "left"),
    [
        (1_795_046_399, dt.date(2026, 11, 18), 1_795_046_400, 1),
        (1_795_046_400, dt.date(2026, 11, 19), 1_795_132_800, 86_400),
        (1_795_046_400.9, dt.date(2026, 11, 19), 1_795_132_800, 86_400),
    ],
    ids=["last-second", "midnight", "fraction"],
)
def test_window_is_the_utc_day(now: float, day: dt.date, reset: int, left: int) -> None:
    win = window_at(now)
    assert (win.day, win.reset_at, win.seconds_to_reset) == (day, reset, left)


def test_rate_headers_never_overstate() -> None:
    headers = dict(rate_headers(3, 5, window_at(1_795_000_000)))
    assert headers["X-RateLimit-Remaining"] == "0"
    assert headers["X-RateLimit-Used"] == "3"
    assert headers["RateLimit"] == '"daily";r=0;t=46400'


class DownCounter(SQLiteCounter):
    """A real SQLite counter whose calls fail while its ``outage`` is down."""

    def __init__(self, db: SQLiteFile, outage: DownStore) -> None:
        super().__init__(db)
        self.outage = outage
        self.replicas = outage.replicas  # what Quota reads of a shared (Redis) counter

    def hit(self, subject: str, day: dt.date, limit: int, now: int) -> Hit:
        self.outage.check()
        return super().hit(subject, day, limit, now)

    def add(self, subject: str, day: dt.date, n: int, now: int) -> None:
        self.outage.check()
        super().add(subject, day, n, now)


class DownKeys(SQLiteKeys):
    """Real SQLite keys whose lookups fail while their ``outage`` is down."""

    def __init__(self, db: SQLiteFile, counter: SQLiteCounter, outage: DownStore) -> None:
        super().__init__(db, counter)
        self.outage = outage

    def find_key(self, digest: str) -> KeyRecord | None:
        self.outage.check()
        return super().find_key(digest)


class DownStore:
    """A real SQLite file's counter and keys, which fail while ``down``, as if the file went
    away; counted by ``replicas`` processes."""

    replicas = 1

    def __init__(self, path: Path) -> None:
        self.down = False
        db = SQLiteFile(path)
        self.counter = DownCounter(db, self)
        self.keys = DownKeys(db, self.counter, self)

    def check(self) -> None:
        """Raise StoreUnavailable while down."""
        if self.down:
            raise StoreUnavailable("sqlite: disk I/O error")


def make(tmp_path: Path) -> tuple[Quota, DownStore, str, Clock]:
    store = DownStore(tmp_path / "q.sqlite3")
    key, _ = issue_key(store.keys, "a@x.io", "free", 3, 0)
    clock = Clock(1_795_000_000)
    return (
        Quota(
            store.counter,
            store.keys,
            anonymous_limit=5,
            page_limit=5,
            key_cache_seconds=2,
            clock=clock,
        ),
        store,
        key,
        clock,
    )


def test_fail_open_on_local_counts_and_metric(tmp_path: Path) -> None:
    quota, store, key, _ = make(tmp_path)
    record = quota.keys.authenticate(key)
    assert quota.charge(record.subject, 3)[0] == Hit(True, 1, 3)
    store.down = True
    hits = [quota.charge(record.subject, 3)[0] for _ in range(4)]
    # Local counts go on from the store's last count, so they still stop at the limit and the
    # headers claim the count the store holds once the admits are added back.
    assert hits == [Hit(True, 2, 3), Hit(True, 3, 3), Hit(False, 3, 3), Hit(False, 3, 3)]
    assert quota.peek(record.subject, 3)[0] == Hit(False, 3, 3)
    assert quota.metrics.store_errors == 4 and quota.metrics.fail_open_admits == 2
    store.down = False
    assert quota.charge(record.subject, 3)[0] == Hit(False, 3, 3)  # reconciled: 1 + 2 kept
    assert store.counter.peek(record.subject, quota.peek(record.subject, 3)[1].day) == 3


class SharedDownStore(DownStore):
    """A store counted by two processes (as a Redis counter with ``replicas=2`` is)."""

    replicas = 2


@pytest.mark.parametrize(
    ("limit", "before", "each"),
    [(1500, 0, 750), (1500, 500, 500), (3, 0, 2), (3, 2, 1)],
    ids=["fresh-day", "a-third-used", "small-limit", "one-left"],
)
def test_replicas_share_what_was_left_while_the_store_is_away(
    tmp_path: Path, limit: int, before: int, each: int
) -> None:
    # Issue 55: two replicas each admitted the whole allowance during a Redis outage.
    store = SharedDownStore(tmp_path / "q.sqlite3")
    quotas = [
        Quota(store.counter, store.keys, anonymous_limit=5, page_limit=5, key_cache_seconds=0)
        for _ in "ab"
    ]
    for n in range(before):  # counted by the store through both, the last through each
        quotas[n % 2].charge("key:k", limit)
    if before:
        quotas[(before - 1) % 2].charge("key:k", limit)
        quotas[before % 2].charge("key:k", limit)
    counted = before + (2 if before else 0)
    store.down = True
    admitted = [
        sum(q.charge("key:k", limit)[0].admitted for _ in range(limit + 10)) for q in quotas
    ]
    # Each admits its half of what it last saw left, rounded up: together at most the limit
    # plus one (replicas - 1) per subject-day, whatever the outage's length.
    assert counted + sum(admitted) <= limit + 1
    assert min(admitted) >= each - 1 and max(admitted) <= each


def test_reconcile_hands_fail_open_counts_over_once_the_store_answers(tmp_path: Path) -> None:
    quota, store, key, _ = make(tmp_path)
    record = quota.keys.authenticate(key)
    store.down = True
    assert [quota.charge(record.subject, 3)[0].admitted for _ in range(2)] == [True, True]
    assert quota.unsynced == 2
    assert quota.reconcile() == 0  # still down: kept, not raised
    assert quota.unsynced == 2
    store.down = False
    assert quota.reconcile() == 2  # no request needed
    assert quota.unsynced == 0 and quota.reconcile() == 0
    day = quota.peek(record.subject, 3)[1].day
    assert store.counter.peek(record.subject, day) == 2
    assert quota.metrics.extra["fail_open_reconciled"] == 2


def test_known_key_survives_store_outage_unknown_key_does_not(tmp_path: Path) -> None:
    quota, store, key, clock = make(tmp_path)
    quota.keys.authenticate(key)
    store.down = True
    clock.now += 10  # cache expired: the lookup fails, the key seen before still works
    assert quota.keys.authenticate(key).key_id == key_id(key)
    with pytest.raises(StoreUnavailable):
        quota.keys.authenticate(generate_key())


def test_revocation_is_seen_after_the_cache_expires(tmp_path: Path) -> None:
    quota, store, key, clock = make(tmp_path)
    quota.keys.authenticate(key)
    store.keys.revoke_key(key_id(key))
    assert quota.keys.authenticate(key).state == "active"  # within key_cache_seconds
    clock.now += 2.5
    with pytest.raises(AuthFailure) as failure:
        quota.keys.authenticate(key)
    assert failure.value.code == "revoked_key"


def test_a_final_refusal_is_remembered_until_the_day_ends_or_the_limit_rises(
    tmp_path: Path,
) -> None:
    quota, _, key, clock = make(tmp_path)
    subject = quota.keys.authenticate(key).subject
    assert [quota.charge(subject, 3)[0].admitted for _ in range(4)] == [True] * 3 + [False]
    clock.now += 3600  # one store, so its refusal is final: refused without asking it
    assert quota.refusal(subject, 3) == (Hit(False, 3, 3), window_at(clock.now))
    assert quota.refusal(subject, 4) is None  # a raised limit asks the store again
    clock.now += window_at(clock.now).seconds_to_reset  # the next UTC day
    assert quota.refusal(subject, 3) is None
