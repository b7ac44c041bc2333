"""Notice a key store that vanished while serving (docs/API.md#errors): a SQLite file that
was deleted or replaced keeps answering through its open descriptor, so counts would go to a
file nobody will read again. The edge asks :meth:`StoreWatch.vanished` before each request and
answers 503 ``unavailable`` while it is true; a Redis store has no file to watch.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

log = logging.getLogger("bangscore.shim")
CHECK_SECONDS = 1.0  # a stat at most this often per process


class StoreWatch:
    """Watches one key store file: the identity (device, inode) it had when serving began."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._identity = _identity(path) if path is not None else None
        self._checked = 0.0
        self._vanished = False

    def vanished(self) -> bool:
        """Return True if the watched file is gone or is another file now (checked at most
        every :data:`CHECK_SECONDS`); the first time, log it."""
        if self.path is None or self._identity is None:
            return False
        now = time.monotonic()
        if now - self._checked < CHECK_SECONDS:
            return self._vanished
        self._checked = now
        gone = _identity(self.path) != self._identity
        if gone and not self._vanished:
            log.error(
                "the key store %s was removed or replaced while serving: answering 503 until "
                "it is restored and the server restarted",
                self.path,
            )
        self._vanished = gone
        return gone


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_dev, stat.st_ino
