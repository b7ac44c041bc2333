"""Watches in the embedded store: tables of their own in the accounts' SQLite file (WAL mode).

Recording an alert is one transaction (the watch's fired flag and the record of what was
sent), so a crash leaves either both or neither.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bangscore.stores.keystore import KeyStoreMissing, KeyStoreUnavailable
from bangscore.stores.sqlite_store import _faults, thread_connection
from bangscore.stores.watchstore import (
    MAX_WATCHES_PER_ADDRESS,
    Address,
    Condition,
    SentAlert,
    TooManyWatches,
    UnknownWatch,
    WatchRecord,
)

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
    CHECK ((tier IS NULL) <> (below_usd IS NULL))
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
"""

_COLUMNS = "watch_id, email, appid, tier, below_usd, created_at, fired, last_alert_at"


def _watch(row: Sequence[Any]) -> WatchRecord:
    watch_id, email, appid, tier, below, created, fired, last = row
    return WatchRecord(
        str(watch_id),
        str(email),
        int(appid),
        Condition(tier=tier, below_usd=None if below is None else float(below)),
        int(created),
        bool(fired),
        None if last is None else int(last),
    )


class SQLiteWatchStore:
    """Watches, addresses and sent alerts in one SQLite file; one connection per thread."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        self._local = threading.local()
        if not create and not self.path.is_file():
            raise KeyStoreMissing(f"no store at {self.path}")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise KeyStoreUnavailable(f"cannot create {self.path.parent}: {exc.strerror}") from exc
        with _faults():
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
                    "AND tier IS ? AND below_usd IS ?",
                    (watch.email, watch.appid, cond.tier, cond.below_usd),
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
                    f"INSERT INTO watches({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        watch.watch_id,
                        watch.email,
                        watch.appid,
                        cond.tier,
                        cond.below_usd,
                        watch.created_at,
                        int(watch.fired),
                        watch.last_alert_at,
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
                    "SELECT confirmed_at, confirm_sent_at FROM watch_addresses WHERE email = ?",
                    (email,),
                )
                .fetchone()
            )
        return Address(email, row[0], row[1]) if row else Address(email, None, None)

    def confirm_address(self, email: str, now: int) -> None:
        with _faults():
            self._conn().execute(
                "INSERT INTO watch_addresses(email, confirmed_at) VALUES (?, ?) "
                "ON CONFLICT(email) DO UPDATE SET "
                "confirmed_at = COALESCE(confirmed_at, excluded.confirmed_at)",
                (email, now),
            )

    def confirmation_sent(self, email: str, now: int) -> None:
        with _faults():
            self._conn().execute(
                "INSERT INTO watch_addresses(email, confirm_sent_at) VALUES (?, ?) "
                "ON CONFLICT(email) DO UPDATE SET confirm_sent_at = excluded.confirm_sent_at",
                (email, now),
            )

    def record_alert(self, alert: SentAlert) -> None:
        with _faults():
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                conn.execute(
                    "UPDATE watches SET fired = 1, last_alert_at = ? WHERE watch_id = ?",
                    (alert.sent_at, alert.watch_id),
                )
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
