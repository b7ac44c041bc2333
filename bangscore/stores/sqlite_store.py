"""The embedded key and counter store: one SQLite file in WAL mode.

Safe with several uvicorn workers on one host: each process has its own connection. A server
that is the file's only process (one worker) leases blocks of a subject's quota as the Redis
store does: one write transaction (SQLite's write lock makes it exact) adds a block to the
subject's count, and the process spends it locally, so most requests touch no file. A block is
an eighth of what is left today, at most ``MAX_BLOCK`` and at least 1, so a subject near its
limit is counted one request at a time and nothing is over-admitted. Unspent tokens are given
back when the store closes; a killed process loses no count, its unspent block stays counted
(under-admitting by at most that block). What a lease holds unspent is written to the
``leases`` table when taken and by :meth:`SQLiteKeyStore.sync` (the server's once-a-second
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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bangscore.errors import (
    AccountExists,
    KeyExists,
    StoreMissing,
    StoreUnavailable,
    UnknownKey,
)
from bangscore.stores.keystore import (
    AccountRecord,
    Failures,
    Hit,
    KeyRecord,
    KeyView,
    SessionRecord,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    email TEXT PRIMARY KEY,
    password_hash TEXT,
    created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS keys (
    key_id TEXT PRIMARY KEY,
    digest TEXT NOT NULL UNIQUE,
    account TEXT NOT NULL,
    plan TEXT NOT NULL,
    daily_limit INTEGER NOT NULL CHECK (daily_limit >= 1),
    state TEXT NOT NULL CHECK (state IN ('active', 'revoked')),
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);
CREATE INDEX IF NOT EXISTS keys_account ON keys(account);
CREATE TABLE IF NOT EXISTS counts (
    subject TEXT NOT NULL,
    day TEXT NOT NULL,
    n INTEGER NOT NULL,
    last_at INTEGER NOT NULL,
    PRIMARY KEY (subject, day)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS sessions (
    digest TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS leases (
    subject TEXT NOT NULL,
    day TEXT NOT NULL,
    holder TEXT NOT NULL,
    left INTEGER NOT NULL,
    PRIMARY KEY (subject, day, holder)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS failures (
    subject TEXT PRIMARY KEY,
    n INTEGER NOT NULL,
    last_at INTEGER NOT NULL,
    forget_at INTEGER NOT NULL
) WITHOUT ROWID;
"""

_FAIL = """
INSERT INTO failures(subject, n, last_at, forget_at) VALUES (?, 1, ?, ?)
ON CONFLICT(subject) DO UPDATE SET
    n = CASE WHEN forget_at <= excluded.last_at THEN 1 ELSE n + 1 END,
    last_at = excluded.last_at,
    forget_at = excluded.forget_at
RETURNING n, last_at
"""

_HIT = """
INSERT INTO counts(subject, day, n, last_at) VALUES (?, ?, 1, ?)
ON CONFLICT(subject, day) DO UPDATE SET n = n + 1, last_at = excluded.last_at WHERE n < ?
RETURNING n
"""

MAX_BLOCK = 64
LEASE_SHARE = 8  # a block is at most this fraction of what is left today
MAX_LEASES = 4096  # subject-days one process holds a block of (each a client or a key)

# The days gone of every subject but the keys', and forgotten failures (KEY_SUBJECT: "key:").
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


@contextlib.contextmanager
def _faults() -> Iterator[None]:
    """Turn SQLite's operational failures (locked too long, disk gone) into StoreUnavailable."""
    try:
        yield
    except sqlite3.IntegrityError:
        raise
    except sqlite3.Error as exc:
        raise StoreUnavailable(f"sqlite: {exc}") from exc


def thread_connection(local: threading.local, path: Path | str) -> sqlite3.Connection:
    """Given a thread-local holder and a database path, return this thread's connection to it,
    opened on first use in autocommit mode with WAL and ``synchronous=NORMAL`` (the key store
    and the watch store share one file, so they open it the same way)."""
    conn: sqlite3.Connection | None = getattr(local, "conn", None)
    if conn is None:
        conn = sqlite3.connect(path, isolation_level=None, timeout=10.0)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        local.conn = conn
    return conn


_KEY_COLUMNS = "key_id, digest, account, plan, daily_limit, state, created_at"


def _record(row: Sequence[Any]) -> KeyRecord:
    key_id, digest, account, plan, limit, state, created = row
    return KeyRecord(str(key_id), str(digest), str(account), plan, int(limit), state, int(created))


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


class SQLiteKeyStore:
    """Keys, accounts and counts in one SQLite file; one connection per thread."""

    def __init__(self, path: str | Path, *, create: bool = True, lease: bool = True) -> None:
        self.path = Path(path)
        self.lease = lease  # lease blocks of quota (one process counts in this file)
        self._local = threading.local()
        self._leases: dict[tuple[str, dt.date], _Lease] = {}
        self._lease_lock = threading.Lock()
        self._stats = {"hits": 0, "local_hits": 0, "leases": 0, "pruned": 0}
        self._pruned_day: dt.date | None = None  # the day this process last pruned at
        # This store's rows of the leases table: its process id (the file is local, so every
        # process using it runs on this machine) and a token, so one process's stores differ.
        self._holder = f"{os.getpid()}:{secrets.token_hex(8)}"
        if not create and not self.path.is_file():
            raise StoreMissing(
                f"no key store at {self.path} (create one with `bangscore keys create`)"
            )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnavailable(f"cannot create {self.path.parent}: {exc.strerror}") from exc
        with _faults():
            self._conn().executescript(SCHEMA)
            columns = {row[1] for row in self._conn().execute("PRAGMA table_info(accounts)")}
            if "network" not in columns:  # a store made before accounts recorded it
                self._conn().execute(
                    "ALTER TABLE accounts ADD COLUMN network TEXT NOT NULL DEFAULT ''"
                )
            self._forget_dead_holders()

    def _forget_dead_holders(self) -> None:
        """Delete the leases rows of processes that no longer run (killed: their unspent
        blocks stay counted, under-admitting, as the module says), so no reader takes them
        off the counts as if they were still to be spent."""
        rows = self._conn().execute("SELECT DISTINCT holder FROM leases").fetchall()
        dead = [holder for (holder,) in rows if not _alive(holder)]
        self._conn().executemany("DELETE FROM leases WHERE holder = ?", [(h,) for h in dead])

    def _conn(self) -> sqlite3.Connection:
        return thread_connection(self._local, self.path)

    def add_key(self, record: KeyRecord) -> None:
        with _faults():
            try:
                self._conn().execute(
                    f"INSERT INTO keys({_KEY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        record.key_id,
                        record.digest,
                        record.account,
                        record.plan,
                        record.daily_limit,
                        record.state,
                        record.created_at,
                    ),
                )
            except sqlite3.IntegrityError as exc:
                raise KeyExists(f"key {record.key_id} already exists") from exc

    def find_key(self, digest: str) -> KeyRecord | None:
        with _faults():
            row = (
                self._conn()
                .execute(f"SELECT {_KEY_COLUMNS} FROM keys WHERE digest = ?", (digest,))
                .fetchone()
            )
        return _record(row) if row else None

    def revoke_key(self, key_id: str) -> KeyRecord:
        with _faults():
            conn = self._conn()
            conn.execute(
                "UPDATE keys SET state = 'revoked', revoked_at = strftime('%s','now') "
                "WHERE key_id = ? AND state = 'active'",
                (key_id,),
            )
            row = conn.execute(
                f"SELECT {_KEY_COLUMNS} FROM keys WHERE key_id = ?", (key_id,)
            ).fetchone()
        if row is None:
            raise UnknownKey(key_id)
        return _record(row)

    def list_keys(self, day: dt.date, account: str | None = None) -> list[KeyView]:
        where, args = ("WHERE k.account = ?", (account,)) if account else ("", ())
        sql = f"""
            SELECT {", ".join("k." + c for c in _KEY_COLUMNS.split(", "))},
                   (SELECT MAX(last_at) FROM counts c WHERE c.subject = 'key:' || k.key_id),
                   COALESCE((SELECT n FROM counts c
                             WHERE c.subject = 'key:' || k.key_id AND c.day = ?), 0),
                   COALESCE((SELECT SUM(left) FROM leases l
                             WHERE l.subject = 'key:' || k.key_id AND l.day = ?), 0)
            FROM keys k {where} ORDER BY k.created_at, k.key_id
        """
        with _faults():
            rows = self._conn().execute(sql, (day.isoformat(), day.isoformat(), *args)).fetchall()
        unspent = self._unspent(lambda s, d: d == day)
        return [
            KeyView(
                _record(r[:7]), r[7], int(r[8]) - int(r[9]) + unspent.get((f"key:{r[0]}", day), 0)
            )
            for r in rows
        ]

    def _unspent(self, which: Callable[[str, dt.date], bool]) -> dict[tuple[str, dt.date], int]:
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
        unspent = {d: n for (_, d), n in self._unspent(lambda s, _: s == subject).items()}
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

    def create_account(self, account: AccountRecord) -> None:
        with _faults():
            try:
                self._conn().execute(
                    "INSERT INTO accounts(email, password_hash, created_at, network) "
                    "VALUES (?, ?, ?, ?)",
                    (account.email, account.password_hash, account.created_at, account.network),
                )
            except sqlite3.IntegrityError as exc:
                raise AccountExists(account.email) from exc

    def find_account(self, email: str) -> AccountRecord | None:
        with _faults():
            row = (
                self._conn()
                .execute(
                    "SELECT email, password_hash, created_at, network FROM accounts "
                    "WHERE email = ?",
                    (email,),
                )
                .fetchone()
            )
        if not row:
            return None
        return AccountRecord(str(row[0]), str(row[1] or ""), int(row[2]), str(row[3] or ""))

    def start_session(self, digest: str, email: str, created_at: int, expires_at: int) -> None:
        with _faults():
            conn = self._conn()
            conn.execute("DELETE FROM sessions WHERE expires_at <= ?", (created_at,))
            conn.execute(
                "INSERT INTO sessions(digest, email, created_at, expires_at) VALUES (?, ?, ?, ?)",
                (digest, email, created_at, expires_at),
            )

    def find_session(self, digest: str, now: int) -> SessionRecord | None:
        with _faults():
            row = (
                self._conn()
                .execute(
                    "SELECT email, created_at, expires_at FROM sessions "
                    "WHERE digest = ? AND expires_at > ?",
                    (digest, now),
                )
                .fetchone()
            )
        return SessionRecord(str(row[0]), int(row[1]), int(row[2])) if row else None

    def extend_session(self, digest: str, expires_at: int) -> None:
        with _faults():
            self._conn().execute(
                "UPDATE sessions SET expires_at = ? WHERE digest = ?", (expires_at, digest)
            )

    def end_session(self, digest: str) -> None:
        with _faults():
            self._conn().execute("DELETE FROM sessions WHERE digest = ?", (digest,))

    def fail(self, subject: str, now: int, forget_after: int) -> Failures:
        with _faults():
            row = self._conn().execute(_FAIL, (subject, now, now + forget_after)).fetchone()
        return Failures(int(row[0]), int(row[1]))

    def failures(self, subject: str, now: int) -> Failures:
        with _faults():
            row = (
                self._conn()
                .execute(
                    "SELECT n, last_at FROM failures WHERE subject = ? AND forget_at > ?",
                    (subject, now),
                )
                .fetchone()
            )
        return Failures(int(row[0]), int(row[1])) if row else Failures(0, 0)

    def forgive(self, subject: str) -> None:
        with _faults():
            self._conn().execute("DELETE FROM failures WHERE subject = ?", (subject,))

    def stats(self) -> dict[str, int]:
        with self._lease_lock:
            return {**self._stats, "held": len(self._leases)}

    def close(self) -> None:
        with contextlib.suppress(StoreUnavailable):  # unreachable: they stay counted
            self._release(list(self._leases))
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
