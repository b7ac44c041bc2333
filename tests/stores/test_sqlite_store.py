"""The SQLite store: exact counting across processes, keys, listing, history."""

from __future__ import annotations

import datetime as dt
import multiprocessing
import os
import sqlite3
from pathlib import Path

import pytest

from bangscore.errors import KeyExists, UnknownKey
from bangscore.stores.keystore import KeyRecord
from bangscore.stores.sqlite_counter import MAX_BLOCK, MAX_LEASES
from tests.support.factories import sqlite_stores

DAY = dt.date(2026, 11, 22)
NEXT = DAY + dt.timedelta(days=1)


def hammer(path: str, attempts: int, lease: bool, queue: multiprocessing.Queue[int]) -> None:
    store = sqlite_stores(path, lease=lease)
    admitted = sum(store.counter.hit("key:race", DAY, 500, 0).admitted for _ in range(attempts))
    store.close()  # gives back the tokens it leased and did not spend
    queue.put(admitted)


def race(path: str, lease: bool) -> int:
    """Given a store file, let 4 processes make 300 attempts each against a limit of 500;
    return how many were admitted."""
    sqlite_stores(path)
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
    assert sqlite_stores(path).counter.peek("key:race", DAY) == 500


def test_leasing_processes_never_over_admit(tmp_path: Path) -> None:
    path = str(tmp_path / "lease.sqlite3")
    admitted = race(path, lease=True)
    # Never more than the limit, and at most the blocks the others still held when the last
    # was refused fewer (each an eighth of what was left, or 1).
    assert 500 - 3 * 8 <= admitted <= 500
    assert sqlite_stores(path).counter.peek("key:race", DAY) == admitted


def test_one_process_is_counted_exactly_to_the_limit_with_few_writes(tmp_path: Path) -> None:
    store = sqlite_stores(tmp_path / "one.sqlite3")
    hits = [store.counter.hit("key:one", DAY, 500, 0) for _ in range(600)]
    assert [h.used for h in hits if h.admitted] == list(range(1, 501))
    assert all(not h.admitted and h.used == 500 for h in hits[500:])
    assert store.counter.peek("key:one", DAY) == 500
    assert store.counter.history("key:one", [DAY]) == {DAY: 500}
    stats = store.counter.stats()
    assert stats["hits"] == 600 and stats["leases"] < 60  # most hits touched no file
    store.close()
    assert sqlite_stores(tmp_path / "one.sqlite3").counter.peek("key:one", DAY) == 500


def test_a_store_without_leases_counts_every_hit_in_the_file(tmp_path: Path) -> None:
    # What each racing process above does (a store shared by processes), here in this process:
    # their counts are not traced by make test's coverage (forked by the forkserver, they end
    # without saving it).
    store = sqlite_stores(tmp_path / "shared.sqlite3", lease=False)
    hits = [store.counter.hit("key:shared", DAY, 5, 0) for _ in range(7)]
    assert [(h.admitted, h.used) for h in hits] == [(True, n) for n in range(1, 6)] + [
        (False, 5),
        (False, 5),
    ]
    assert sqlite_stores(tmp_path / "shared.sqlite3").counter.peek("key:shared", DAY) == 5


def test_closing_gives_back_unspent_tokens(tmp_path: Path) -> None:
    store = sqlite_stores(tmp_path / "back.sqlite3")
    for _ in range(3):
        assert store.counter.hit("key:back", DAY, 1000, 0).admitted
    other = sqlite_stores(tmp_path / "back.sqlite3")
    assert other.counter.peek("key:back", DAY) == 1  # what the lease said unspent when taken
    assert store.counter.history("key:back", [DAY]) == {DAY: 3}  # the holder knows what it spent
    store.close()
    assert other.counter.peek("key:back", DAY) == 3


def test_another_process_reads_requests_not_leased_blocks(tmp_path: Path) -> None:
    # Issue 48: `keys list` beside a serving process showed 64 after one request (the block
    # the server leased), 192 where the API said 143.
    server = sqlite_stores(tmp_path / "s.sqlite3")
    server.keys.add_key(record("k1"))
    listing = sqlite_stores(tmp_path / "s.sqlite3", lease=False)  # as `keys list` opens it

    def seen() -> tuple[int, int, dict[dt.date, int]]:
        [view] = listing.keys.list_keys(DAY)
        return (
            view.today,
            listing.counter.peek("key:k1", DAY),
            listing.counter.history("key:k1", [DAY]),
        )

    assert server.counter.hit("key:k1", DAY, 50_000, 1).admitted
    assert seen() == (1, 1, {DAY: 1})
    for _ in range(142):
        assert server.counter.hit("key:k1", DAY, 50_000, 2).admitted
    assert server.counter.stats()["leases"] == 3  # 143 requests on three leased blocks of 64
    assert seen() == (129, 129, {DAY: 129})  # the third block as written when taken
    server.counter.sync()  # the server's once-a-second tick
    assert seen() == (143, 143, {DAY: 143})
    [own] = server.keys.list_keys(DAY)
    assert own.today == 143 == server.counter.history("key:k1", [DAY])[DAY]
    server.close()
    assert seen() == (143, 143, {DAY: 143})
    assert listing.counter.peek("key:k1", DAY) == 143


def test_a_killed_holders_unspent_tokens_stay_counted_but_are_not_requests(
    tmp_path: Path,
) -> None:
    dead = sqlite_stores(tmp_path / "d.sqlite3")
    for _ in range(5):
        dead.counter.hit("key:d", DAY, 50_000, 1)
    dead.counter.sync()  # then killed: never closed, its block never given back
    after = sqlite_stores(tmp_path / "d.sqlite3")
    for _ in range(2):
        after.counter.hit("key:d", DAY, 50_000, 2)
    after.counter.sync()
    assert sqlite_stores(tmp_path / "d.sqlite3", lease=False).counter.peek("key:d", DAY) == 7


def record(key_id: str, account: str = "a@x.io") -> KeyRecord:
    return KeyRecord(key_id, "d" + key_id, account, "pro", 50_000, "active", 1_700_000_000)


def test_keys_revoke_and_list(tmp_path: Path) -> None:
    store = sqlite_stores(tmp_path / "k.sqlite3")
    store.keys.add_key(record("k1"))
    store.keys.add_key(record("k2", "b@x.io"))
    with pytest.raises(KeyExists):
        store.keys.add_key(record("k1"))
    assert store.keys.find_key("dk1") == record("k1")
    assert store.keys.find_key("nope") is None
    assert store.keys.revoke_key("k1").state == "revoked"
    with pytest.raises(UnknownKey):
        store.keys.revoke_key("zz")
    store.counter.hit("key:k2", DAY, 10, 1_795_000_000)
    views = store.keys.list_keys(DAY)
    assert [(v.record.key_id, v.record.state, v.today, v.last_used) for v in views] == [
        ("k1", "revoked", 0, None),
        ("k2", "active", 1, 1_795_000_000),
    ]
    assert [v.record.key_id for v in store.keys.list_keys(DAY, "b@x.io")] == ["k2"]


def test_history_fills_missing_days_with_zero(tmp_path: Path) -> None:
    store = sqlite_stores(tmp_path / "h.sqlite3")
    for _ in range(3):
        store.counter.hit("key:h", DAY, 10, 0)
    days = [DAY - dt.timedelta(days=1), DAY]
    assert store.counter.history("key:h", days) == {days[0]: 0, DAY: 3}


# -- state per client address (issue 45) --------------------------------------------------------


def rows(path: Path, table: str) -> list[tuple[object, ...]]:
    """Given a store file and a table, return its rows, read straight from the file."""
    conn = sqlite3.connect(path)
    try:
        return sorted(conn.execute(f"SELECT * FROM {table}").fetchall())
    finally:
        conn.close()


def test_a_client_address_s_rows_are_pruned_with_their_day_a_key_s_kept(tmp_path: Path) -> None:
    """Issue 45 finding 5: a count row per anonymous address was kept forever."""
    path = tmp_path / "prune.sqlite3"
    store = sqlite_stores(path)
    subjects = ["ip:203.0.113.7", "page:2001:db8:1:2::/64", "signup:ip:203.0.113.7:99", "key:k1"]
    for subject in subjects:
        assert store.counter.hit(subject, DAY, 1000, 100).admitted
    store.accounts.fail("signin:ip:203.0.113.7", 100, 3600)  # forgotten at 3,700
    store.close()
    assert len(rows(path, "counts")) == 4 and len(rows(path, "failures")) == 1
    # The next day, another process (a restart) counts its first request.
    later = sqlite_stores(path, lease=False)
    assert later.counter.hit("ip:198.51.100.1", NEXT, 1000, 86_500).admitted
    assert [r[:3] for r in rows(path, "counts")] == [
        ("ip:198.51.100.1", NEXT.isoformat(), 1),
        ("key:k1", DAY.isoformat(), 1),
    ]
    assert rows(path, "failures") == []
    assert later.counter.stats()["pruned"] == 4
    assert later.counter.history("key:k1", [DAY, NEXT]) == {DAY: 1, NEXT: 0}


def test_one_process_holds_a_bounded_number_of_leases(tmp_path: Path) -> None:
    """Issue 45 finding 5: a lease per client address was held until midnight, its unspent
    block counted in the file all day."""
    path = tmp_path / "leases.sqlite3"
    store = sqlite_stores(path)
    clients = [f"ip:10.{i >> 8}.{i & 255}.1" for i in range(MAX_LEASES * 2)]
    for subject in clients:
        assert store.counter.hit(subject, DAY, 1000, 100).admitted
    held = store.counter.stats()["held"]
    assert MAX_LEASES * 3 // 4 <= held <= MAX_LEASES, held
    # The oldest gave their blocks back: the file counts what they spent, not 64 each.
    other = sqlite_stores(path)
    assert other.counter.peek(clients[0], DAY) == 1
    # Still leased by `store`: another process reads the request, not the leased block.
    assert other.counter.peek(clients[-1], DAY) == 1
    assert rows(path, "leases")
    store.close()
    assert sum(int(r[2]) for r in rows(path, "counts")) == len(clients)  # type: ignore[call-overload]


def test_a_killed_process_s_unspent_blocks_are_no_longer_taken_off_the_counts(
    tmp_path: Path,
) -> None:
    # A server killed mid-lease left its row in the leases table: the next store forgets it,
    # so the block it had counted stays counted (CI on score5: 257 counted of 316 answered).
    path = tmp_path / "keys.sqlite3"
    store = sqlite_stores(path)
    assert store.counter.hit("key:k1", DAY, 1000, 100).admitted
    store.counter.sync()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE leases SET holder = '999999999:dead'")  # no such process
        conn.execute(
            "INSERT INTO leases VALUES ('key:k2', ?, ?, 5)",
            (DAY.isoformat(), f"{os.getpid()}:live"),
        )
    after = sqlite_stores(path)
    assert [r[2] for r in rows(path, "leases")] == [f"{os.getpid()}:live"]
    assert after.counter.peek("key:k1", DAY) == MAX_BLOCK  # the dead lease's block stays counted
