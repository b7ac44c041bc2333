"""The watch store on both backends: SQLite (the accounts' file) and a real redis-server."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bangscore.errors import TooManyWatches, UnknownWatch
from bangscore.mail.links import SIGNUP_SECONDS
from bangscore.stores import open_stores, open_watch_store
from bangscore.stores.keystore import AccountRecord
from bangscore.stores.watchstore import (
    MAX_WATCHES_PER_ADDRESS,
    Condition,
    PendingSignup,
    SentAlert,
    WatchRecord,
    WatchStore,
)

StoreFactory = Callable[[], WatchStore]


@pytest.fixture
def sqlite_watches(tmp_path: Path) -> Iterator[StoreFactory]:
    """Return a factory of watch stores on one SQLite file."""
    opened: list[WatchStore] = []

    def make() -> WatchStore:
        opened.append(open_watch_store(f"sqlite:///{tmp_path / 'bangscore.sqlite3'}"))
        return opened[-1]

    yield make
    for store in opened:
        store.close()


@pytest.fixture
def redis_watches(redis_url: str) -> Iterator[StoreFactory]:
    """Return a factory of watch stores on the session's real Redis (emptied)."""
    opened: list[WatchStore] = []

    def make() -> WatchStore:
        opened.append(open_watch_store(redis_url))
        return opened[-1]

    yield make
    for store in opened:
        store.close()


@pytest.fixture(params=["sqlite", "redis"])
def make_store(request: pytest.FixtureRequest) -> StoreFactory:
    """Each test once per backend."""
    factory: StoreFactory = request.getfixturevalue(f"{request.param}_watches")
    return factory


def watch(watch_id: str, email: str = "a@x.io", appid: int = 367520, **cond: object) -> WatchRecord:
    condition = Condition(**cond) if cond else Condition(below_usd=10.0)  # type: ignore[arg-type]
    return WatchRecord(watch_id, email, appid, condition, created_at=100 + len(watch_id))


def test_add_find_list_remove(make_store: StoreFactory) -> None:
    store = make_store()
    first = store.add_watch(watch("w_1"))
    store.add_watch(watch("w_22", appid=620, tier="banger"))
    store.add_watch(watch("w_333", email="b@x.io", tier="worth_it"))
    assert store.find_watch("w_1") == first
    assert [w.watch_id for w in store.list_watches("a@x.io")] == ["w_1", "w_22"]
    assert [w.watch_id for w in store.list_watches()] == ["w_1", "w_22", "w_333"]
    assert store.list_watches("a@x.io")[1].condition == Condition(tier="banger")
    assert store.remove_watch("w_1") == first
    assert store.find_watch("w_1") is None
    with pytest.raises(UnknownWatch):
        store.remove_watch("w_1")
    assert [w.watch_id for w in make_store().list_watches()] == ["w_22", "w_333"]


def test_the_same_condition_twice_is_one_watch(make_store: StoreFactory) -> None:
    store = make_store()
    store.add_watch(watch("w_1"))
    again = store.add_watch(watch("w_2"))
    assert again.watch_id == "w_1"
    assert len(store.list_watches()) == 1
    store.remove_watch("w_1")  # and once removed, it may be watched again
    assert store.add_watch(watch("w_3")).watch_id == "w_3"


def test_an_address_holds_a_bounded_number_of_watches(make_store: StoreFactory) -> None:
    store = make_store()
    for n in range(MAX_WATCHES_PER_ADDRESS):
        store.add_watch(watch(f"w_{n}", appid=n + 1))
    with pytest.raises(TooManyWatches):
        store.add_watch(watch("w_over", appid=999_999))
    assert store.add_watch(watch("w_other", email="b@x.io")).watch_id == "w_other"


def test_alerts_fire_a_watch_and_rearm_clears_it(make_store: StoreFactory) -> None:
    store = make_store()
    store.add_watch(watch("w_1"))
    alert = SentAlert("w_1", 500, "s2", 7.49, "banger", "<alert.w_1.s2@bangscore>")
    store.record_alert(alert)
    fired = store.find_watch("w_1")
    assert fired is not None and fired.fired and fired.last_alert_at == 500
    assert store.sent_alerts("w_1") == [alert]
    assert store.sent_alerts() == [alert]
    store.rearm(["w_1", "w_gone"])
    rearmed = store.find_watch("w_1")
    assert rearmed is not None and not rearmed.fired and rearmed.last_alert_at == 500
    assert store.find_watch("w_gone") is None  # rearm never recreates a removed watch


def test_addresses_are_confirmed_once(make_store: StoreFactory) -> None:
    store = make_store()
    assert not store.address("a@x.io").confirmed
    store.confirmation_sent("a@x.io", 10)
    assert store.address("a@x.io").confirm_sent_at == 10
    store.confirm_address("a@x.io", 20)
    store.confirm_address("a@x.io", 30)
    address = store.address("a@x.io")
    assert (address.confirmed, address.confirmed_at, address.confirm_sent_at) == (True, 20, 10)


def test_sqlite_watches_share_the_accounts_file(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'bangscore.sqlite3'}"
    keys = open_stores(url)
    keys.accounts.create_account(AccountRecord("a@x.io", "hash", 1))
    watches = open_watch_store(url)
    watches.add_watch(watch("w_1"))
    assert keys.accounts.find_account("a@x.io") is not None
    assert [w.watch_id for w in open_watch_store(url).list_watches()] == ["w_1"]
    keys.close()
    watches.close()


LOW, SALE = Condition(event="recent_low"), Condition(event="next_sale")
PAID = {"price_usd": 7.49, "list_price_usd": 9.99}
FREE = {"price_usd": 0.0, "list_price_usd": 0.0}


def test_event_watches_are_kept_beside_the_others(make_store: StoreFactory) -> None:
    store = make_store()
    store.add_watch(watch("w_1", event="recent_low"))
    store.add_watch(watch("w_2", event="next_sale"))
    store.add_watch(watch("w_3", below_usd=7.49))
    assert store.add_watch(watch("w_4", event="recent_low")).watch_id == "w_1"
    got = {w.watch_id: w.condition for w in store.list_watches("a@x.io")}
    assert got == {"w_1": LOW, "w_2": SALE, "w_3": Condition(below_usd=7.49)}
    assert [w.condition.describe() for w in store.list_watches()] == [
        "at or below its recent low",
        "when its next sale starts",
        "$7.49 or less",
    ]


def test_a_store_made_before_event_watches_is_migrated(tmp_path: Path) -> None:
    """A watches table of the previous schema (no ``event`` column, a CHECK allowing only a
    tier or a price) gets the column, keeping its watches, fired flags and index."""
    path = tmp_path / "bangscore.sqlite3"
    with sqlite3.connect(path) as old:
        old.executescript(
            "CREATE TABLE watches (watch_id TEXT PRIMARY KEY, email TEXT NOT NULL, appid "
            "INTEGER NOT NULL, tier TEXT CHECK (tier IN ('worth_it', 'banger')), below_usd "
            "REAL, created_at INTEGER NOT NULL, fired INTEGER NOT NULL DEFAULT 0, "
            "last_alert_at INTEGER, CHECK ((tier IS NULL) <> (below_usd IS NULL)));"
            "CREATE INDEX watches_email ON watches(email);"
            "INSERT INTO watches VALUES ('w_old', 'a@x.io', 620, 'banger', NULL, 5, 1, 9);"
        )
    old.close()
    store = open_watch_store(f"sqlite:///{path}")
    try:
        (kept,) = store.list_watches()
        assert (kept.watch_id, kept.condition, kept.fired, kept.last_alert_at) == (
            "w_old", Condition(tier="banger"), True, 9
        )  # fmt: skip
        store.add_watch(watch("w_new", event="next_sale"))
        assert [w.condition for w in store.list_watches("a@x.io")] == [
            Condition(tier="banger"),
            SALE,
        ]
    finally:
        store.close()
    again = open_watch_store(f"sqlite:///{path}")  # a second open changes nothing
    assert len(again.list_watches()) == 2
    again.close()
    with sqlite3.connect(path) as db:
        indexes = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    db.close()
    assert "watches_email" in indexes


@pytest.mark.parametrize(
    ("condition", "record", "met"),
    [
        pytest.param(Condition(below_usd=10.0), {"price_usd": 7.49}, True, id="below"),
        pytest.param(Condition(below_usd=10.0), {"price_usd": 10.0}, True, id="at-the-price"),
        pytest.param(Condition(below_usd=10.0), {"price_usd": 14.99}, False, id="above"),
        pytest.param(Condition(below_usd=10.0), {}, False, id="no-price"),
        pytest.param(Condition(tier="worth_it"), {"tier": "banger"}, True, id="banger-is-worth"),
        pytest.param(Condition(tier="worth_it"), {"tier": "worth_it"}, True, id="worth-it"),
        pytest.param(Condition(tier="banger"), {"tier": "worth_it"}, False, id="not-a-banger"),
        pytest.param(Condition(tier="worth_it"), {"tier": "skip"}, False, id="skip"),
        pytest.param(LOW, {**PAID, "recent_low_usd": 7.49}, True, id="at-recent-low"),
        pytest.param(LOW, {**PAID, "recent_low_usd": 4.99}, False, id="above-recent-low"),
        pytest.param(LOW, {**PAID, "recent_low_usd": None}, False, id="no-recent-low"),
        pytest.param(LOW, {**FREE, "recent_low_usd": 0.0}, False, id="free-never-at-low"),
        pytest.param(SALE, {**PAID, "discount_percent": 25}, True, id="on-sale"),
        pytest.param(SALE, {**PAID, "discount_percent": 0}, False, id="full-price"),
        pytest.param(SALE, {**FREE, "discount_percent": 100}, False, id="free-never-on-sale"),
        pytest.param(SALE, {"list_price_usd": 9.99, "discount_percent": 25}, False, id="unpriced"),
        # A 2026 dump's row for appid 674750: 100% off, at the list price of $3.99.
        pytest.param(
            SALE,
            {"price_usd": 3.99, "list_price_usd": 3.99, "discount_percent": 100},
            False,
            id="discount-at-list-price",
        ),
    ],
)
def test_condition_met(condition: Condition, record: dict[str, object], met: bool) -> None:
    assert condition.met(record) is met


@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({}, id="none"),
        pytest.param({"tier": "banger", "below_usd": 5.0}, id="both"),
        pytest.param({"tier": "cheap"}, id="unknown-tier"),
        pytest.param({"below_usd": -1.0}, id="negative"),
        pytest.param({"below_usd": float("nan")}, id="nan"),
        pytest.param({"below_usd": 1e9}, id="huge"),
        pytest.param({"event": "tomorrow"}, id="unknown-event"),
        pytest.param({"event": "next_sale", "below_usd": 5.0}, id="event-and-price"),
    ],
)
def test_bad_conditions_are_refused(fields: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        Condition(**fields)  # type: ignore[arg-type]


def test_one_pending_confirmation_per_address_with_an_opaque_id(make_store: StoreFactory) -> None:
    store = make_store()
    first = store.queue_confirmation("a@x.io", 10)
    assert first is not None and first.confirm_id.startswith("c_")
    assert "a@x.io" not in first.confirm_id
    assert store.queue_confirmation("a@x.io", 11) is None  # one at a time
    assert [p.confirm_id for p in store.pending_confirmations()] == [first.confirm_id]
    assert store.confirmation_email(first.confirm_id) == "a@x.io"
    store.confirmation_sent("a@x.io", 12)
    assert store.pending_confirmations() == []  # sent: no longer queued
    assert store.confirmation_email(first.confirm_id) == "a@x.io"  # its link still works
    store.confirm_address("a@x.io", 13)
    assert store.confirmation_email(first.confirm_id) is None  # used
    assert store.queue_confirmation("a@x.io", 14) is None  # confirmed: nothing to queue


def test_a_suppressed_address_gets_no_confirmation(make_store: StoreFactory) -> None:
    store = make_store()
    assert store.queue_confirmation("b@x.io", 1) is not None
    store.suppress("b@x.io", 2)
    assert store.address("b@x.io").suppressed_at == 2
    assert store.pending_confirmations() == []
    assert store.queue_confirmation("b@x.io", 3) is None


def test_one_lease_holder_at_a_time_until_it_lapses(make_store: StoreFactory) -> None:
    store = make_store()
    assert store.acquire_lease("run_a", 100, 60)
    assert not store.acquire_lease("run_b", 101, 60)
    assert store.acquire_lease("run_a", 102, 60)  # the holder extends it
    store.release_lease("run_b")  # not its lease: nothing
    assert not store.acquire_lease("run_b", 103, 60)
    store.release_lease("run_a")
    assert store.acquire_lease("run_b", 104, 60)


def test_an_alert_is_claimed_once_and_deferred_with_backoff(make_store: StoreFactory) -> None:
    store = make_store()
    store.add_watch(watch("w_c"))
    assert store.claim("w_c", "run_a", 1000, 300)
    assert not store.claim("w_c", "run_b", 1001, 300)  # claimed by another run
    assert store.defer("w_c", 1002) == 1002 + 300  # first failure: 5 min
    assert not store.claim("w_c", "run_b", 1100, 300)  # waits for its retry time
    assert store.claim("w_c", "run_b", 1302, 300)
    assert store.defer("w_c", 1303) == 1303 + 600  # doubling
    store.record_alert(SentAlert("w_c", 2000, "s1", 9.99, "banger", "<m@x>"))
    assert not store.claim("w_c", "run_c", 3000, 300)  # fired


def test_rate_counters_count_per_key_and_window(make_store: StoreFactory) -> None:
    store = make_store()
    assert [store.hit("add:acct:a", 3600, 3600) for _ in range(3)] == [1, 2, 3]
    assert store.hit("add:acct:b", 3601, 3600) == 1
    assert store.hit("add:acct:a", 7200, 3600) == 1  # the next hour starts again


def test_rate_rows_of_networks_gone_by_are_deleted_a_day_later(
    sqlite_watches: StoreFactory, tmp_path: Path
) -> None:
    """Issue 45 finding 5 (per-address state): a row per network or address was kept for
    ever in the SQLite file (Redis expires its counters once their window is over)."""
    store = sqlite_watches()
    day = 86_400
    for i in range(50):
        store.hit(f"signup:net:2001:db8:{i:x}::/64", 3600, 3600)
    assert store.hit("add:acct:a", day, 3600) == 1  # a day has not passed: nothing deleted
    assert store.hit("add:acct:a", 3600 + day + 3600, 3600) == 1  # a day and an hour later
    conn = sqlite3.connect(tmp_path / "bangscore.sqlite3")
    try:
        keys = [row[0] for row in conn.execute("SELECT key FROM watch_rates")]
    finally:
        conn.close()
    assert keys == ["add:acct:a"]


def test_sign_ups_wait_for_their_email_and_a_link_works_once(make_store: StoreFactory) -> None:
    store = make_store()
    now = int(time.time())
    new = PendingSignup("s_new", "new@x.io", "$argon2id$hash", now)
    taken = PendingSignup("s_taken", "owner@x.io", None, now + 1)  # the address had an account
    again = PendingSignup("s_again", "new@x.io", "$argon2id$other", now + 2)
    for signup in (new, taken, again):
        store.queue_signup(signup, SIGNUP_SECONDS)
    assert store.pending_signups() == [new, taken, again]
    store.signup_sent("s_new", now + 10)
    store.signup_sent("s_taken", now + 11)
    assert store.pending_signups() == [again]
    assert store.take_signup("s_taken") is None  # no password: nothing to create
    assert store.take_signup("s_new") == new
    assert store.take_signup("s_new") is None  # once
    assert store.take_signup("s_unknown") is None
    assert make_store().take_signup("s_again") == again  # another replica's view
    assert store.pending_signups() == []


def test_a_sign_up_is_forgotten_when_its_link_expires(make_store: StoreFactory) -> None:
    store = make_store()
    now = int(time.time())
    old = PendingSignup("s_old", "old@x.io", "$argon2id$hash", now - SIGNUP_SECONDS - 1)
    store.queue_signup(old, SIGNUP_SECONDS)
    store.queue_signup(
        PendingSignup("s_later", "later@x.io", "$argon2id$hash", now), SIGNUP_SECONDS
    )
    assert [s.signup_id for s in store.pending_signups()] == ["s_later"]
    assert store.take_signup("s_old") is None
