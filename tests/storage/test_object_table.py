"""The objects table (storage/object_table.py) across a fork: no connection crosses it, so a
forked writer (``make run``'s background writer of the games' pages) opens its own, and what
it commits is read at once by another process."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from bangscore.storage import LocalStorage, StoredObject
from bangscore.storage.object_table import FILENAME, ObjectTable

READ = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
print(db.execute("SELECT count(*) FROM objects WHERE key LIKE 'objects/child/%'").fetchone()[0])
"""


def test_the_forking_thread_closes_its_connection_and_the_child_opens_its_own(
    tmp_path: Path,
) -> None:
    table = ObjectTable(str(tmp_path))
    table.put_many([("objects/parent/1", b"p")])
    assert table.get("objects/parent/1") == b"p"  # this thread's connection is open
    opened = table._local.db[1]
    told, tell = os.pipe()  # child to parent
    go_on, release = os.pipe()  # parent to child
    pid = os.fork()
    if pid == 0:  # the child: report what it inherited, write, then wait to be read
        code = 1
        try:
            inherited = getattr(table._local, "db", None)
            table.put_many([(f"objects/child/{n}", b"c" * 100) for n in range(600)])
            os.write(tell, b"none" if inherited is None else b"open")
            os.read(go_on, 1)  # alive until the parent has counted
            code = 0
        finally:
            os._exit(code)
    said = os.read(told, 4)
    # Another process counts the child's rows while the child is still alive.
    counted = subprocess.run(
        [sys.executable, "-c", READ, str(tmp_path / FILENAME)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    os.write(release, b"x")
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert said == b"none" and counted.strip() == "600"
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):  # closed before the fork
        opened.execute("SELECT 1")
    assert table.get("objects/child/599") == b"c" * 100


def test_a_closed_table_reopens_on_the_next_call(tmp_path: Path) -> None:
    store = LocalStorage(tmp_path)
    store.put_many([StoredObject("objects/ab/1", b"body")])
    assert store.get("objects/ab/1") == b"body"
    store._table.close()
    store._table.close()  # twice: nothing left to close
    assert store.get("objects/ab/1") == b"body"
