"""The SQLite file of the stores (:func:`bangscore.stores.open_stores`): one file in WAL mode,
one connection per thread, shared by the keys, the accounts, the counter
(:mod:`bangscore.stores.sqlite_counter`) and the watches (:mod:`bangscore.stores.sqlite_watches`).

Safe with several uvicorn workers on one host: each process has its own connections.
``synchronous=NORMAL`` keeps a commit off the disk's flush path.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

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


class SQLiteFile:
    """The stores' SQLite file at ``path``: created (with its tables) unless ``create`` is
    False, when a missing file raises StoreMissing; StoreUnavailable if it cannot be made."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        self._local = threading.local()
        if not create and not self.path.is_file():
            raise StoreMissing(
                f"no key store at {self.path} (create one with `bangscore keys create`)"
            )
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnavailable(f"cannot create {self.path.parent}: {exc.strerror}") from exc
        with _faults():
            self.conn().executescript(SCHEMA)
            columns = {row[1] for row in self.conn().execute("PRAGMA table_info(accounts)")}
            if "network" not in columns:  # a store made before accounts recorded it
                self.conn().execute(
                    "ALTER TABLE accounts ADD COLUMN network TEXT NOT NULL DEFAULT ''"
                )

    def conn(self) -> sqlite3.Connection:
        """Return this thread's connection to the file (opened on first use)."""
        return thread_connection(self._local, self.path)

    def close(self) -> None:
        """Close this thread's connection; the next call opens it again."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None


class HeldLeases(Protocol):
    """What a listing asks of the file's counter
    (:class:`~bangscore.stores.sqlite_counter.SQLiteCounter`): this process's leases."""

    def unspent(self, which: Callable[[str, dt.date], bool]) -> dict[tuple[str, dt.date], int]:
        """Given which subject-days, return what the leases table overstates of each one this
        process leases (added to a count read with the table's unspent taken off)."""
        ...


class SQLiteKeys:
    """The keys in the SQLite file ``db``; listings read the file's ``counter`` (its leases
    held in this process are not requests)."""

    def __init__(self, db: SQLiteFile, counter: HeldLeases) -> None:
        self.db = db
        self.counter = counter

    def _conn(self) -> sqlite3.Connection:
        return self.db.conn()

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
        unspent = self.counter.unspent(lambda s, d: d == day)
        return [
            KeyView(
                _record(r[:7]), r[7], int(r[8]) - int(r[9]) + unspent.get((f"key:{r[0]}", day), 0)
            )
            for r in rows
        ]


class SQLiteAccounts:
    """Accounts, sessions and sign-in failures in the SQLite file ``db``."""

    def __init__(self, db: SQLiteFile) -> None:
        self.db = db

    def _conn(self) -> sqlite3.Connection:
        return self.db.conn()

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
