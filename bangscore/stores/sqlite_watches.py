"""Watches in the embedded store: tables of their own in the accounts' SQLite file (WAL mode).

Recording an alert is one transaction (the watch's fired flag and the record of what was
sent), so a crash leaves either both or neither. Rate-limit rows (one per account, network or
address) are kept a day past their window: the first count of each hour a process makes
deletes the older ones, as Redis expires its counters.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bangscore.errors import StoreMissing, StoreUnavailable, TooManyWatches, UnknownWatch
from bangscore.stores.sqlite_store import _faults, thread_connection
from bangscore.stores.watchstore import (
    MAX_WATCHES_PER_ADDRESS,
    Address,
    Condition,
    PendingConfirmation,
    PendingSignup,
    SentAlert,
    WatchRecord,
    new_confirm_id,
    retry_delay,
)

RATE_KEPT_SECONDS = 86_400  # past every window's end (an hour today)
PRUNE_EVERY_SECONDS = 3_600

SCHEMA = """
CREATE TABLE IF NOT EXISTS watches (
    watch_id TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    appid INTEGER NOT NULL,
    tier TEXT CHECK (tier IN ('worth_it', 'banger')),
    below_usd REAL,
    created_at INTEGER NOT NULL,
    fired INTEGER NOT NULL DEFAULT 0,
    last_alert_at INTEGER,
    event TEXT CHECK (event IN ('recent_low', 'next_sale')),
    CHECK ((tier IS NOT NULL) + (below_usd IS NOT NULL) + (event IS NOT NULL) = 1)
);
CREATE INDEX IF NOT EXISTS watches_email ON watches(email);
CREATE TABLE IF NOT EXISTS watch_addresses (
    email TEXT PRIMARY KEY,
    confirmed_at INTEGER,
    confirm_sent_at INTEGER
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS watch_alerts (
    watch_id TEXT NOT NULL,
    sent_at INTEGER NOT NULL,
    snapshot_id TEXT NOT NULL,
    price_usd REAL,
    tier TEXT,
    message_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS watch_alerts_watch ON watch_alerts(watch_id);
CREATE TABLE IF NOT EXISTS watch_confirmations (
    confirm_id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    queued_at INTEGER NOT NULL,
    sent_at INTEGER
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS account_signups (
    signup_id TEXT PRIMARY KEY,
    email TEXT NOT NULL,
    password_hash TEXT,
    queued_at INTEGER NOT NULL,
    sent_at INTEGER
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS watch_suppressed (
    email TEXT PRIMARY KEY,
    suppressed_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS watch_lease (
    name TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS watch_claims (
    watch_id TEXT PRIMARY KEY,
    holder TEXT,
    claimed_at INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_at INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS watch_rates (
    key TEXT PRIMARY KEY,
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL
) WITHOUT ROWID;
"""

_COLUMNS = "watch_id, email, appid, tier, below_usd, created_at, fired, last_alert_at, event"


def _migrate(conn: sqlite3.Connection) -> None:
    """Give a store made before the event conditions its ``event`` column: SQLite cannot
    change a CHECK, so the table is copied into the new one (one transaction; a store
    already migrated is left alone)."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'watches'").fetchone()
    if row is None or "event" in str(row[0]):
        return
    old = "watch_id, email, appid, tier, below_usd, created_at, fired, last_alert_at"
    table = SCHEMA.split(";")[0].replace("watches (", "watches_new (", 1)
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(table.replace("IF NOT EXISTS ", ""))
        conn.execute(f"INSERT INTO watches_new({old}) SELECT {old} FROM watches")
        conn.execute("DROP TABLE watches")
        conn.execute("ALTER TABLE watches_new RENAME TO watches")  # SCHEMA then adds the index
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _watch(row: Sequence[Any]) -> WatchRecord:
    watch_id, email, appid, tier, below, created, fired, last, event = row
    return WatchRecord(
        str(watch_id),
        str(email),
        int(appid),
        Condition(tier=tier, below_usd=None if below is None else float(below), event=event),
        int(created),
        bool(fired),
        None if last is None else int(last),
    )


class SQLiteWatchStore:
    """Watches, addresses and sent alerts in one SQLite file; one connection per thread."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        self._local = threading.local()
        self._pruned_at = 0  # when this process last deleted rate-limit rows gone by
        if not create and not self.path.is_file():
            raise StoreMissing(f"no store at {self.path}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnavailable(f"cannot create {self.path.parent}: {exc.strerror}") from exc
        with _faults():
            _migrate(self._conn())
            self._conn().executescript(SCHEMA)

    def _conn(self) -> sqlite3.Connection:
        return thread_connection(self._local, self.path)

    def add_watch(self, watch: WatchRecord) -> WatchRecord:
        cond = watch.condition
        with _faults():
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = conn.execute(
                    f"SELECT {_COLUMNS} FROM watches WHERE email = ? AND appid = ? "
                    "AND tier IS ? AND below_usd IS ? AND event IS ?",
                    (watch.email, watch.appid, cond.tier, cond.below_usd, cond.event),
                ).fetchone()
                if row is not None:
                    conn.execute("COMMIT")
                    return _watch(row)
                (count,) = conn.execute(
                    "SELECT COUNT(*) FROM watches WHERE email = ?", (watch.email,)
                ).fetchone()
                if count >= MAX_WATCHES_PER_ADDRESS:
                    raise TooManyWatches(f"at most {MAX_WATCHES_PER_ADDRESS} watches an address")
                conn.execute(
                    f"INSERT INTO watches({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        watch.watch_id,
                        watch.email,
                        watch.appid,
                        cond.tier,
                        cond.below_usd,
                        watch.created_at,
                        int(watch.fired),
                        watch.last_alert_at,
                        cond.event,
                    ),
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return watch

    def find_watch(self, watch_id: str) -> WatchRecord | None:
        with _faults():
            row = (
                self._conn()
                .execute(f"SELECT {_COLUMNS} FROM watches WHERE watch_id = ?", (watch_id,))
                .fetchone()
            )
        return _watch(row) if row else None

    def list_watches(self, email: str | None = None) -> list[WatchRecord]:
        where, args = ("WHERE email = ?", (email,)) if email is not None else ("", ())
        with _faults():
            rows = (
                self._conn()
                .execute(f"SELECT {_COLUMNS} FROM watches {where} ORDER BY created_at, rowid", args)
                .fetchall()
            )
        return [_watch(r) for r in rows]

    def remove_watch(self, watch_id: str) -> WatchRecord:
        with _faults():
            row = (
                self._conn()
                .execute(
                    f"DELETE FROM watches WHERE watch_id = ? RETURNING {_COLUMNS}", (watch_id,)
                )
                .fetchone()
            )
        if row is None:
            raise UnknownWatch(watch_id)
        return _watch(row)

    def address(self, email: str) -> Address:
        with _faults():
            row = (
                self._conn()
                .execute(
                    "SELECT a.confirmed_at, a.confirm_sent_at, "
                    "(SELECT suppressed_at FROM watch_suppressed s WHERE s.email = ?1) "
                    "FROM (SELECT ?1 AS email) q LEFT JOIN watch_addresses a ON a.email = q.email",
                    (email,),
                )
                .fetchone()
            )
        return Address(email, row[0], row[1], row[2])

    def confirm_address(self, email: str, now: int) -> None:
        with _faults():
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                "INSERT INTO watch_addresses(email, confirmed_at) VALUES (?, ?) "
                "ON CONFLICT(email) DO UPDATE SET "
                "confirmed_at = COALESCE(confirmed_at, excluded.confirmed_at)",
                (email, now),
            )
            conn.execute("DELETE FROM watch_confirmations WHERE email = ?", (email,))
            conn.execute("COMMIT")

    def confirmation_sent(self, email: str, now: int) -> None:
        with _faults():
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                "INSERT INTO watch_addresses(email, confirm_sent_at) VALUES (?, ?) "
                "ON CONFLICT(email) DO UPDATE SET confirm_sent_at = excluded.confirm_sent_at",
                (email, now),
            )
            conn.execute("UPDATE watch_confirmations SET sent_at = ? WHERE email = ?", (now, email))
            conn.execute("COMMIT")

    def queue_confirmation(self, email: str, now: int) -> PendingConfirmation | None:
        pending = PendingConfirmation(new_confirm_id(), email, now)
        with _faults():
            cur = self._conn().execute(
                "INSERT INTO watch_confirmations(confirm_id, email, queued_at) "
                "SELECT ?1, ?2, ?3 WHERE NOT EXISTS "
                "(SELECT 1 FROM watch_addresses WHERE email = ?2 AND confirmed_at IS NOT NULL) "
                "AND NOT EXISTS (SELECT 1 FROM watch_suppressed WHERE email = ?2) "
                "ON CONFLICT(email) DO NOTHING",
                (pending.confirm_id, email, now),
            )
        return pending if cur.rowcount == 1 else None

    def pending_confirmations(self) -> list[PendingConfirmation]:
        with _faults():
            rows = (
                self._conn()
                .execute(
                    "SELECT confirm_id, email, queued_at FROM watch_confirmations "
                    "WHERE sent_at IS NULL ORDER BY queued_at, confirm_id"
                )
                .fetchall()
            )
        return [PendingConfirmation(str(c), str(e), int(q)) for c, e, q in rows]

    def confirmation_email(self, confirm_id: str) -> str | None:
        with _faults():
            row = (
                self._conn()
                .execute(
                    "SELECT email FROM watch_confirmations WHERE confirm_id = ?", (confirm_id,)
                )
                .fetchone()
            )
        return str(row[0]) if row else None

    def suppress(self, email: str, now: int) -> None:
        with _faults():
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                "INSERT INTO watch_suppressed(email, suppressed_at) VALUES (?, ?) "
                "ON CONFLICT(email) DO NOTHING",
                (email, now),
            )
            conn.execute("DELETE FROM watch_confirmations WHERE email = ?", (email,))
            conn.execute("COMMIT")

    def queue_signup(self, signup: PendingSignup, keep_seconds: int) -> None:
        with _faults():
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                "DELETE FROM account_signups WHERE queued_at < ?",
                (signup.queued_at - keep_seconds,),
            )
            conn.execute(
                "INSERT INTO account_signups(signup_id, email, password_hash, queued_at) "
                "VALUES (?, ?, ?, ?)",
                (signup.signup_id, signup.email, signup.password_hash, signup.queued_at),
            )
            conn.execute("COMMIT")

    def pending_signups(self) -> list[PendingSignup]:
        with _faults():
            rows = (
                self._conn()
                .execute(
                    "SELECT signup_id, email, password_hash, queued_at FROM account_signups "
                    "WHERE sent_at IS NULL ORDER BY queued_at, signup_id"
                )
                .fetchall()
            )
        return [PendingSignup(str(i), str(e), h, int(q)) for i, e, h, q in rows]

    def signup_sent(self, signup_id: str, now: int) -> None:
        with _faults():
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                "DELETE FROM account_signups WHERE signup_id = ? AND password_hash IS NULL",
                (signup_id,),
            )
            conn.execute(
                "UPDATE account_signups SET sent_at = ? WHERE signup_id = ?", (now, signup_id)
            )
            conn.execute("COMMIT")

    def take_signup(self, signup_id: str) -> PendingSignup | None:
        with _faults():
            row = (
                self._conn()
                .execute(
                    "DELETE FROM account_signups WHERE signup_id = ? AND password_hash IS NOT "
                    "NULL RETURNING signup_id, email, password_hash, queued_at",
                    (signup_id,),
                )
                .fetchone()
            )
        return PendingSignup(str(row[0]), str(row[1]), row[2], int(row[3])) if row else None

    def acquire_lease(self, holder: str, now: int, seconds: int) -> bool:
        with _faults():
            cur = self._conn().execute(
                "INSERT INTO watch_lease(name, holder, expires_at) VALUES ('alerts', ?1, ?2) "
                "ON CONFLICT(name) DO UPDATE SET holder = ?1, expires_at = ?2 "
                "WHERE watch_lease.holder = ?1 OR watch_lease.expires_at <= ?3",
                (holder, now + seconds, now),
            )
        return cur.rowcount == 1

    def release_lease(self, holder: str) -> None:
        with _faults():
            self._conn().execute(
                "DELETE FROM watch_lease WHERE name = 'alerts' AND holder = ?", (holder,)
            )

    def claim(self, watch_id: str, holder: str, now: int, seconds: int) -> bool:
        with _faults():
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                fired = conn.execute(
                    "SELECT fired FROM watches WHERE watch_id = ?", (watch_id,)
                ).fetchone()
                cur = conn.execute(
                    "INSERT INTO watch_claims(watch_id, holder, claimed_at) VALUES (?1, ?2, ?3) "
                    "ON CONFLICT(watch_id) DO UPDATE SET holder = ?2, claimed_at = ?3 "
                    "WHERE watch_claims.next_at <= ?3 AND (watch_claims.holder IS NULL "
                    "OR watch_claims.holder = ?2 OR watch_claims.claimed_at <= ?3 - ?4)",
                    (watch_id, holder, now, seconds),
                )
                won = fired is not None and not fired[0] and cur.rowcount == 1
                conn.execute("COMMIT" if won else "ROLLBACK")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return won

    def defer(self, watch_id: str, now: int) -> int:
        with _faults():
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            row = conn.execute(
                "SELECT attempts FROM watch_claims WHERE watch_id = ?", (watch_id,)
            ).fetchone()
            attempts = (int(row[0]) if row else 0) + 1
            next_at = now + retry_delay(attempts)
            conn.execute(
                "INSERT INTO watch_claims(watch_id, holder, claimed_at, attempts, next_at) "
                "VALUES (?1, NULL, 0, ?2, ?3) ON CONFLICT(watch_id) DO UPDATE SET "
                "holder = NULL, claimed_at = 0, attempts = ?2, next_at = ?3",
                (watch_id, attempts, next_at),
            )
            conn.execute("COMMIT")
        return next_at

    def hit(self, key: str, now: int, window: int) -> int:
        start = now - now % window
        with _faults():
            if now - self._pruned_at >= PRUNE_EVERY_SECONDS:
                self._conn().execute(
                    "DELETE FROM watch_rates WHERE window_start < ?", (now - RATE_KEPT_SECONDS,)
                )
                self._pruned_at = now
            row = (
                self._conn()
                .execute(
                    "INSERT INTO watch_rates(key, window_start, count) VALUES (?1, ?2, 1) "
                    "ON CONFLICT(key) DO UPDATE SET count = CASE WHEN window_start = ?2 "
                    "THEN count + 1 ELSE 1 END, window_start = ?2 RETURNING count",
                    (key, start),
                )
                .fetchone()
            )
        return int(row[0])

    def record_alert(self, alert: SentAlert) -> None:
        with _faults():
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute(
                    "UPDATE watches SET fired = 1, last_alert_at = ? WHERE watch_id = ?",
                    (alert.sent_at, alert.watch_id),
                )
                conn.execute("DELETE FROM watch_claims WHERE watch_id = ?", (alert.watch_id,))
                conn.execute(
                    "INSERT INTO watch_alerts(watch_id, sent_at, snapshot_id, price_usd, tier, "
                    "message_id) VALUES (?, ?, ?, ?, ?, ?)",
                    (
                        alert.watch_id,
                        alert.sent_at,
                        alert.snapshot_id,
                        alert.price_usd,
                        alert.tier,
                        alert.message_id,
                    ),
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def rearm(self, watch_ids: list[str]) -> None:
        if not watch_ids:
            return
        with _faults():
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany(
                "UPDATE watches SET fired = 0 WHERE watch_id = ?", [(w,) for w in watch_ids]
            )
            conn.execute("COMMIT")

    def sent_alerts(self, watch_id: str | None = None) -> list[SentAlert]:
        where, args = ("WHERE watch_id = ?", (watch_id,)) if watch_id else ("", ())
        with _faults():
            rows = (
                self._conn()
                .execute(
                    "SELECT watch_id, sent_at, snapshot_id, price_usd, tier, message_id "
                    f"FROM watch_alerts {where} ORDER BY sent_at, rowid",
                    args,
                )
                .fetchall()
            )
        return [SentAlert(str(w), int(s), str(snap), p, t, str(m)) for w, s, snap, p, t, m in rows]

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
