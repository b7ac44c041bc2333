"""The content-addressed bodies of a local snapshot store, packed in one SQLite file.

Why: the real catalogue's snapshot is about 127,000 bodies, most of them one to five KB once
compressed. As one file each, a 4 KB file-system block apiece more than doubled the bytes on
disk (692 MB allocated for 305 MB of bodies) and the build spent its time creating and renaming
files. In SQLite with 64 KB pages, rows append in rowid order and fill their pages, so the store
takes about what its bodies weigh, and a build writes a few large transactions instead of
127,000 files (SQLite, "Internal Versus External BLOBs": small blobs read faster from a database
than from files; "35% Faster Than The Filesystem").

The table is written by one writer at a time (a build; WAL mode lets every shim process read
meanwhile) and read by many threads and processes, each with its own connection.

No connection crosses a fork (SQLite, "How To Corrupt An SQLite Database File", 2.6): a
thread about to fork closes its own first (:func:`_close_before_fork`). Without it, ``make
run``'s background writer of the games' pages (forked from the build, which had one open;
issue 56) committed rows that a server in another process did not see until the writer exited
(2 Dec 2026, the real catalogue: 45 s of 503s for pages already written); with it, the server
read them at its next poll. A smaller reproduction was not found, so the test checks the rule.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterable, Iterator

PAGE_SIZE = 65536  # bodies up to ~64 KB stay in their page, beside their neighbours
FILENAME = "objects.sqlite3"
BATCH = 512  # rows per write transaction
_SCHEMA = """
CREATE TABLE IF NOT EXISTS objects (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    body BLOB NOT NULL,
    modified REAL NOT NULL
)
"""


class ObjectTable:
    """Bodies by key in ``<folder>/objects.sqlite3``: get, put in batches, list, delete.

    Raises sqlite3.Error on a database fault (the caller maps it to its storage errors).
    """

    def __init__(self, folder: str) -> None:
        self.path = os.path.join(folder, FILENAME)
        self._local = threading.local()
        _TABLES.add(self)

    def close(self) -> None:
        """Close the calling thread's connection, if it opened one in this process (the next
        call opens another)."""
        found: tuple[int, sqlite3.Connection] | None = getattr(self._local, "db", None)
        if found is not None:
            del self._local.db
            if found[0] == os.getpid():
                found[1].close()

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        """Return this thread's connection (a new one after a fork), or None when the file
        does not exist and ``create`` is false."""
        pid = os.getpid()
        found: tuple[int, sqlite3.Connection] | None = getattr(self._local, "db", None)
        if found is not None and found[0] == pid:
            return found[1]
        if not create and not os.path.exists(self.path):
            return None
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # only takes effect in a new file
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute(_SCHEMA)
        self._local.db = (pid, db)
        return db

    def get(self, key: str) -> bytes | None:
        """Given a key, return its body, or None if there is none."""
        db = self._connect(create=False)
        if db is None:
            return None
        row = db.execute("SELECT body FROM objects WHERE key = ?", (key,)).fetchone()
        return bytes(row[0]) if row else None

    def put_many(self, items: Iterable[tuple[str, bytes]]) -> int:
        """Given (key, body) pairs, write them in transactions of :data:`BATCH`; return how
        many were written. A key written before is replaced."""
        db = self._connect(create=True)
        assert db is not None
        count = 0
        batch: list[tuple[str, bytes, float]] = []
        for key, body in items:
            batch.append((key, body, time.time()))
            if len(batch) >= BATCH:
                count += self._write(db, batch)
                batch = []
        if batch:
            count += self._write(db, batch)
        return count

    @staticmethod
    def _write(db: sqlite3.Connection, batch: list[tuple[str, bytes, float]]) -> int:
        with _transaction(db):
            db.executemany(
                "INSERT OR REPLACE INTO objects (key, body, modified) VALUES (?, ?, ?)", batch
            )
        return len(batch)

    def list(self, prefix: str) -> Iterator[tuple[str, int, float]]:
        """Given a key prefix, yield (key, size, last write) of every body under it, in key
        order."""
        db = self._connect(create=False)
        if db is None:
            return
        rows = db.execute(
            "SELECT key, length(body), modified FROM objects"
            " WHERE key >= ? AND key < ? ORDER BY key",
            (prefix, prefix + "\U0010ffff"),
        ).fetchall()
        yield from ((str(k), int(n), float(t)) for k, n, t in rows)

    def delete_many(self, keys: Iterable[str]) -> int:
        """Given keys, delete those present; return how many were deleted."""
        db = self._connect(create=False)
        if db is None:
            return 0
        count = 0
        with _transaction(db):
            for key in keys:
                count += db.execute("DELETE FROM objects WHERE key = ?", (key,)).rowcount
        return count


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


_TABLES: weakref.WeakSet[ObjectTable] = weakref.WeakSet()


def _close_before_fork() -> None:
    """Close the forking thread's connection of every table (the module docstring says why);
    other threads' stay open in the parent, and a forked child never uses them."""
    for table in list(_TABLES):
        table.close()


os.register_at_fork(before=_close_before_fork)
