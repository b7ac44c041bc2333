"""The counter in the SQLite file (:func:`bangscore.stores.open_stores`): daily counts of
subjects, and the leases of quota.

Safe with several uvicorn workers on one host: each process has its own connection. A server
that is the file's only process (one worker) leases blocks of a subject's quota as the Redis
store does: one write transaction (SQLite's write lock makes it exact) adds a block to the
subject's count, and the process spends it locally, so most requests touch no file. A block is
an eighth of what is left today, at most ``MAX_BLOCK`` and at least 1, so a subject near its
limit is counted one request at a time and nothing is over-admitted. Unspent tokens are given
back when the store closes; a killed process loses no count, its unspent block stays counted
(under-admitting by at most that block). What a lease holds unspent is written to the
``leases`` table when taken and by :meth:`SQLiteCounter.sync` (the server's once-a-second
tick), so another process (``keys list``) reads requests, not leased blocks. With several
workers each count is one atomic ``INSERT ... ON CONFLICT DO UPDATE ... WHERE n < limit
RETURNING n`` statement instead, so the counts responses show rise across processes.
``synchronous=NORMAL`` keeps a commit off the disk's flush path.

State per client address is bounded: a process holds at most ``MAX_LEASES`` leases (past it
the oldest quarter give their unspent tokens back), and the first count of each UTC day a
process makes prunes the days gone of every subject that is not a key (a client's anonymous
or page allowance, a sign-up limit: :func:`~bangscore.stores.keystore.counted_until`) and the
sign-in failures already forgotten. A key's counts stay (``/api/v1/usage``'s history).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
import os
import secrets
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass

from bangscore.errors import StoreUnavailable
from bangscore.stores.keystore import Hit
from bangscore.stores.sqlite_store import SQLiteFile, _faults

_HIT = """
INSERT INTO counts(subject, day, n, last_at) VALUES (?, ?, 1, ?)
ON CONFLICT(subject, day) DO UPDATE SET n = n + 1, last_at = excluded.last_at WHERE n < ?
RETURNING n
"""

MAX_BLOCK = 64
LEASE_SHARE = 8  # a block is at most this fraction of what is left today
MAX_LEASES = 4096  # subject-days one process holds a block of (each a client or a key)

# The days gone of every subject but the keys', and forgotten failures (KEY_SUBJECT: "key:"):
# the counter prunes the whole file once a day, for every job.
_PRUNE_COUNTS = "DELETE FROM counts WHERE day < ? AND substr(subject, 1, 4) != 'key:'"
_PRUNE_FAILURES = "DELETE FROM failures WHERE forget_at <= ?"

_LEASE = """
INSERT INTO counts(subject, day, n, last_at) VALUES (?, ?, ?, ?)
ON CONFLICT(subject, day) DO UPDATE SET n = n + excluded.n, last_at = excluded.last_at
"""

_ADD = """
INSERT INTO counts(subject, day, n, last_at) VALUES (?, ?, ?, ?)
ON CONFLICT(subject, day) DO UPDATE SET n = n + excluded.n, last_at = MAX(last_at, excluded.last_at)
"""


@dataclass(slots=True)
class _Lease:
    """A block of one subject-day's quota this process holds: the count before the block was
    taken (``base``), tokens spent and tokens left."""

    base: int
    spent: int
    left: int
    synced: int = 0  # ``left`` as last written to the leases table


def _alive(holder: str) -> bool:
    """Given a leases row's holder (``"<pid>:<token>"``), return False when its process is
    gone (a holder written before process ids were recorded counts as gone)."""
    pid, _, _ = holder.partition(":")
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, another user's
    return True


class SQLiteCounter:
    """Daily counts in the SQLite file ``db``, leasing blocks of quota when ``lease`` (this
    process is the only one counting in the file)."""

    def __init__(self, db: SQLiteFile, *, lease: bool = True) -> None:
        self.db = db
        self.path = db.path  # the file the server watches (bangscore.shim.store_watch)
        self.lease = lease
        self._leases: dict[tuple[str, dt.date], _Lease] = {}
        self._lease_lock = threading.Lock()
        self._stats = {"hits": 0, "local_hits": 0, "leases": 0, "pruned": 0}
        self._pruned_day: dt.date | None = None  # the day this process last pruned at
        # This store's rows of the leases table: its process id (the file is local, so every
        # process using it runs on this machine) and a token, so one process's stores differ.
        self._holder = f"{os.getpid()}:{secrets.token_hex(8)}"
        with _faults():
            self._forget_dead_holders()

    def _forget_dead_holders(self) -> None:
        """Delete the leases rows of processes that no longer run (killed: their unspent
        blocks stay counted, under-admitting, as the module says), so no reader takes them
        off the counts as if they were still to be spent."""
        rows = self._conn().execute("SELECT DISTINCT holder FROM leases").fetchall()
        dead = [holder for (holder,) in rows if not _alive(holder)]
        self._conn().executemany("DELETE FROM leases WHERE holder = ?", [(h,) for h in dead])

    def _conn(self) -> sqlite3.Connection:
        return self.db.conn()

    def unspent(self, which: Callable[[str, dt.date], bool]) -> dict[tuple[str, dt.date], int]:
        """Given which subject-days, return for each one this process leases what the leases
        table says is unspent less what truly is (the table lags by up to one sync): added to
        a count read with the table's unspent taken off, it gives the requests."""
        with self._lease_lock:
            return {
                (s, d): lease.synced - lease.left
                for (s, d), lease in self._leases.items()
                if which(s, d)
            }

    def sync(self) -> None:
        """Write what this process's leases hold unspent to the leases table, where another
        process's reading of the counts takes it off (the server calls this every second).
        Writes nothing when nothing was spent since; a store fault is left for the next call."""
        with self._lease_lock:
            changed = [
                (lease, lease.left, subject, day.isoformat())
                for (subject, day), lease in self._leases.items()
                if lease.left != lease.synced
            ]
        if not changed:
            return
        with contextlib.suppress(StoreUnavailable), _faults():
            self._conn().executemany(
                "UPDATE leases SET left = ? WHERE subject = ? AND day = ? AND holder = ?",
                [(left, subject, day, self._holder) for _, left, subject, day in changed],
            )
            with self._lease_lock:
                for lease, left, _, _ in changed:
                    lease.synced = left

    def hit(self, subject: str, day: dt.date, limit: int, now: int) -> Hit:
        if self._pruned_day != day:
            self._prune(day, now)
        if not self.lease:
            return self._hit_once(subject, day, limit, now)
        with self._lease_lock:
            self._stats["hits"] += 1
            lease = self._leases.get((subject, day))
            if lease is not None and lease.left > 0:
                lease.left -= 1
                lease.spent += 1
                self._stats["local_hits"] += 1
                return Hit(True, lease.base + lease.spent, limit)
        with _faults():
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = conn.execute(
                    "SELECT n FROM counts WHERE subject = ? AND day = ?",
                    (subject, day.isoformat()),
                ).fetchone()
                used = int(row[0]) if row else 0
                if used >= limit:
                    conn.execute("COMMIT")
                    return Hit(False, used, limit)
                block = max(1, min(MAX_BLOCK, (limit - used) // LEASE_SHARE))
                conn.execute(_LEASE, (subject, day.isoformat(), block, now))
                conn.execute(
                    "INSERT OR REPLACE INTO leases(subject, day, holder, left) VALUES (?, ?, ?, ?)",
                    (subject, day.isoformat(), self._holder, block - 1),
                )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        with self._lease_lock:
            self._stats["leases"] += 1
            stale = [at for at in self._leases if at[1] != day]
            self._leases[(subject, day)] = _Lease(used, 1, block - 1, block - 1)
            if len(self._leases) > MAX_LEASES:  # the oldest quarter (insertion order)
                stale += list(itertools.islice(self._leases, MAX_LEASES // 4))
        if stale:
            self._release(stale)
        return Hit(True, used + 1, limit)

    def _prune(self, day: dt.date, now: int) -> None:
        """Given the UTC day of a count and its Unix seconds, forget the counts of days before
        it of every subject but the keys', and forgotten sign-in failures (once a day a
        process; the other processes' deletes of the same rows find nothing)."""
        with _faults():
            conn = self._conn()
            gone = conn.execute(_PRUNE_COUNTS, (day.isoformat(),)).rowcount
            gone += conn.execute(_PRUNE_FAILURES, (now,)).rowcount
        self._pruned_day = day
        self._stats["pruned"] += gone

    def settle(self, subject: str, day: dt.date, limit: int, now: int) -> Hit:
        """Count one request as hit() does: one store, so nothing is ever pending."""
        return self.hit(subject, day, limit, now)

    def _hit_once(self, subject: str, day: dt.date, limit: int, now: int) -> Hit:
        """Count one request in the file (one statement), for stores shared by processes."""
        with _faults():
            conn = self._conn()
            row = conn.execute(_HIT, (subject, day.isoformat(), now, limit)).fetchone()
            if row is not None:
                return Hit(True, int(row[0]), limit)
            used = conn.execute(
                "SELECT n FROM counts WHERE subject = ? AND day = ?", (subject, day.isoformat())
            ).fetchone()
        return Hit(False, int(used[0]) if used else limit, limit)

    def _release(self, subject_days: list[tuple[str, dt.date]]) -> None:
        """Given subject-days this process leases, give their unspent tokens back."""
        with self._lease_lock:
            given = [(at, self._leases.pop(at)) for at in subject_days if at in self._leases]
        back = [(lease.left, subject, day.isoformat()) for (subject, day), lease in given]
        if back:
            with _faults():
                conn = self._conn()
                conn.executemany(
                    "UPDATE counts SET n = n - ? WHERE subject = ? AND day = ?",
                    [row for row in back if row[0]],
                )
                conn.executemany(
                    "DELETE FROM leases WHERE subject = ? AND day = ? AND holder = ?",
                    [(subject, day, self._holder) for _, subject, day in back],
                )

    def peek(self, subject: str, day: dt.date) -> int:
        with self._lease_lock:  # a leased subject answers from its lease, as hit() does
            lease = self._leases.get((subject, day))
            if lease is not None:
                return lease.base + lease.spent
        with _faults():
            row = (
                self._conn()
                .execute(
                    "SELECT n - COALESCE((SELECT SUM(left) FROM leases l WHERE l.subject = ? "
                    "AND l.day = ?), 0) FROM counts WHERE subject = ? AND day = ?",
                    (subject, day.isoformat(), subject, day.isoformat()),
                )
                .fetchone()
            )
        return int(row[0]) if row else 0

    def history(self, subject: str, days: list[dt.date]) -> dict[dt.date, int]:
        if not days:
            return {}
        with _faults():
            rows = (
                self._conn()
                .execute(
                    "SELECT day, n - COALESCE((SELECT SUM(left) FROM leases l WHERE "
                    "l.subject = c.subject AND l.day = c.day), 0) FROM counts c "
                    "WHERE subject = ? AND day BETWEEN ? AND ?",
                    (subject, min(days).isoformat(), max(days).isoformat()),
                )
                .fetchall()
            )
        found = {dt.date.fromisoformat(d): int(n) for d, n in rows}
        # Tokens leased here and not spent are not requests (the table may lag by a sync).
        unspent = {d: n for (_, d), n in self.unspent(lambda s, _: s == subject).items()}
        return {d: found.get(d, 0) + unspent.get(d, 0) for d in days}

    def add(self, subject: str, day: dt.date, n: int, now: int) -> None:
        if n < 1:
            raise ValueError("add needs a count of at least 1")
        with _faults():
            self._conn().execute(_ADD, (subject, day.isoformat(), n, now))
        with self._lease_lock:  # a lease's view of the count includes what was added
            lease = self._leases.get((subject, day))
            if lease is not None:
                lease.base += n

    def stats(self) -> dict[str, int]:
        with self._lease_lock:
            return {**self._stats, "held": len(self._leases)}

    def close(self) -> None:
        """Give back every unspent lease (unreachable: they stay counted) and close this
        thread's connection to the file (the keys' and accounts' too: the next call reopens)."""
        with contextlib.suppress(StoreUnavailable):
            self._release(list(self._leases))
        self.db.close()
