"""The tests' real-catalogue cache says what it waits on (issue 56: a cold ``make test`` sat
silent for minutes while another process built the catalogue)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.support import real_catalogue

HOLD = """
import fcntl, sys
with open(sys.argv[1], "a") as handle:
    fcntl.flock(handle, fcntl.LOCK_EX)
    print("held", flush=True)
    sys.stdin.read()  # until the test closes it
"""


def test_a_process_waiting_for_the_lock_says_what_it_waits_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    heard: list[str] = []
    monkeypatch.setattr(real_catalogue, "VOICE", heard.append)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(tmp_path / ".lock-catalogue")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdin is not None
    assert holder.stdout.readline() == "held\n"
    entered = threading.Event()

    def wait_for_it() -> None:
        with real_catalogue.locked(tmp_path, "catalogue"):
            entered.set()

    waiter = threading.Thread(target=wait_for_it)
    waiter.start()
    try:
        # The waiting is told before the lock is free, and the block has not run.
        for _ in range(200):
            if heard:
                break
            entered.wait(0.05)
        assert heard and "waiting for another process" in heard[0] and "catalogue" in heard[0]
        assert not entered.is_set()
    finally:
        holder.stdin.close()
        holder.wait(30)
        holder.stdout.close()
        waiter.join(30)
    assert entered.is_set()
    assert heard[-1].startswith("the catalogue is ready after ")


def test_a_free_lock_is_taken_without_a_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    heard: list[str] = []
    monkeypatch.setattr(real_catalogue, "VOICE", heard.append)
    with real_catalogue.locked(tmp_path, "snapshot"):
        pass
    assert heard == []
