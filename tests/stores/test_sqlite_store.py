"""The SQLite store: exact counting across processes, keys, listing, history."""

from __future__ import annotations

import datetime as dt
import multiprocessing
from pathlib import Path

import pytest

from bangscore.errors import KeyExists, UnknownKey
from bangscore.stores.keystore import KeyRecord
from bangscore.stores.sqlite_store import SQLiteKeyStore

DAY = dt.date(2026, 11, 22)


def hammer(path: str, attempts: int, lease: bool, queue: multiprocessing.Queue[int]) -> None:
    store = SQLiteKeyStore(path, lease=lease)
    admitted = sum(store.hit("key:race", DAY, 500, 0).admitted for _ in range(attempts))
    store.close()  # gives back the tokens it leased and did not spend
    queue.put(admitted)


def race(path: str, lease: bool) -> int:
    """Given a store file, let 4 processes make 300 attempts each against a limit of 500;
    return how many were admitted."""
    SQLiteKeyStore(path)
    # Forked from one clean process that has imported this module, not spawned: a spawned
    # worker starts Python and imports pytest and the store each time (0.2 s of CPU each, 8 a
    # run), while forking this threaded pytest process itself is not safe.
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__])
    queue: multiprocessing.Queue[int] = ctx.Queue()
    workers = [ctx.Process(target=hammer, args=(path, 300, lease, queue)) for _ in range(4)]
    for w in workers:
        w.start()
    admitted = sum(queue.get(timeout=60) for _ in workers)
    for w in workers:
        w.join(timeout=60)
    return admitted


def test_counting_is_exact_across_processes(tmp_path: Path) -> None:
    path = str(tmp_path / "race.sqlite3")
    assert race(path, lease=False) == 500  # 1,200 attempts against a limit of 500
    assert SQLiteKeyStore(path).peek("key:race", DAY) == 500


def test_leasing_processes_never_over_admit(tmp_path: Path) -> None:
    path = str(tmp_path / "lease.sqlite3")
    admitted = race(path, lease=True)
    # Never more than the limit, and at most the blocks the others still held when the last
    # was refused fewer (each an eighth of what was left, or 1).
    assert 500 - 3 * 8 <= admitted <= 500
    assert SQLiteKeyStore(path).peek("key:race", DAY) == admitted


def test_one_process_is_counted_exactly_to_the_limit_with_few_writes(tmp_path: Path) -> None:
    store = SQLiteKeyStore(tmp_path / "one.sqlite3")
    hits = [store.hit("key:one", DAY, 500, 0) for _ in range(600)]
    assert [h.used for h in hits if h.admitted] == list(range(1, 501))
    assert all(not h.admitted and h.used == 500 for h in hits[500:])
    assert store.peek("key:one", DAY) == 500
    assert store.history("key:one", [DAY]) == {DAY: 500}
    stats = store.stats()
    assert stats["hits"] == 600 and stats["leases"] < 60  # most hits touched no file
    store.close()
    assert SQLiteKeyStore(tmp_path / "one.sqlite3").peek("key:one", DAY) == 500


def test_a_store_without_leases_counts_every_hit_in_the_file(tmp_path: Path) -> None:
    # What each racing process above does (a store shared by processes), here in this process:
    # their counts are not traced by make test's coverage (forked by the forkserver, they end
    # without saving it).
    store = SQLiteKeyStore(tmp_path / "shared.sqlite3", lease=False)
    hits = [store.hit("key:shared", DAY, 5, 0) for _ in range(7)]
    assert [(h.admitted, h.used) for h in hits] == [(True, n) for n in range(1, 6)] + [
        (False, 5),
        (False, 5),
    ]
    assert SQLiteKeyStore(tmp_path / "shared.sqlite3").peek("key:shared", DAY) == 5


def test_closing_gives_back_unspent_tokens(tmp_path: Path) -> None:
    store = SQLiteKeyStore(tmp_path / "back.sqlite3")
    for _ in range(3):
        assert store.hit("key:back", DAY, 1000, 0).admitted
    other = SQLiteKeyStore(tmp_path / "back.sqlite3")
    assert other.peek("key:back", DAY) == 64  # the leased block, as counted in the file
    assert store.history("key:back", [DAY]) == {DAY: 3}  # the holder knows what it spent
    store.close()
    assert other.peek("key:back", DAY) == 3


def record(key_id: str, account: str = "a@x.io") -> KeyRecord:
    return KeyRecord(key_id, "d" + key_id, account, "pro", 50_000, "active", 1_700_000_000)


def test_keys_revoke_and_list(tmp_path: Path) -> None:
    store = SQLiteKeyStore(tmp_path / "k.sqlite3")
    store.add_key(record("k1"))
    store.add_key(record("k2", "b@x.io"))
    with pytest.raises(KeyExists):
        store.add_key(record("k1"))
    assert store.find_key("dk1") == record("k1")
    assert store.find_key("nope") is None
    assert store.revoke_key("k1").state == "revoked"
    with pytest.raises(UnknownKey):
        store.revoke_key("zz")
    store.hit("key:k2", DAY, 10, 1_795_000_000)
    views = store.list_keys(DAY)
    assert [(v.record.key_id, v.record.state, v.today, v.last_used) for v in views] == [
        ("k1", "revoked", 0, None),
        ("k2", "active", 1, 1_795_000_000),
    ]
    assert [v.record.key_id for v in store.list_keys(DAY, "b@x.io")] == ["k2"]


def test_history_fills_missing_days_with_zero(tmp_path: Path) -> None:
    store = SQLiteKeyStore(tmp_path / "h.sqlite3")
    for _ in range(3):
        store.hit("key:h", DAY, 10, 0)
    days = [DAY - dt.timedelta(days=1), DAY]
    assert store.history("key:h", days) == {days[0]: 0, DAY: 3}
