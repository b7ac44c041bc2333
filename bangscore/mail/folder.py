"""Local development's mail (``make run``): kept as ``.eml`` files instead of sent over SMTP.

In the manner of Django's file email backend: :class:`MailFolder` is a sender for
:func:`bangscore.mail.alerts.send_alerts` that writes each message, as the bytes SMTP would carry
(:func:`bangscore.mail.render`), to ``<folder>/<UTC time>-<n>.eml`` and prints the file and
the links of its text part, so a developer opens the sign-up link from the terminal or the
file from a mail client. :class:`MailLoop` runs one ``alerts send`` pass into the folder
every few seconds beside ``serve --mail-dir``, so the quick start's sign-up mail, watch
confirmations and alerts arrive while the developer waits. Nothing here talks to a network.
Addresses are not printed: a message is named by its subject and file.
"""

from __future__ import annotations

import datetime as dt
import itertools
import logging
import os
import re
import threading
import time
from collections.abc import Callable
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from types import TracebackType

from bangscore.errors import ObjectStorageError, SnapshotError, StoreUnavailable
from bangscore.mail.alerts import AlertRun, SnapshotDetails, send_alerts
from bangscore.mail.links import WatchLinks
from bangscore.mail.smtp import mailbox, render
from bangscore.storage import open_object_storage
from bangscore.stores import open_watch_store

log = logging.getLogger("bangscore.mail.folder")
EVERY_SECONDS = 2.0
_URL = re.compile(r"https?://[^\s<>\"')]+")
_SERIAL = itertools.count(1)


def message_links(raw: bytes) -> list[str]:
    """Given a message's bytes, return the http(s) links of its plain-text part, each once,
    in order, without a trailing full stop or comma (the HTML part carries the same ones)."""
    message = message_from_bytes(raw, policy=policy.default)
    part = message.get_body(preferencelist=("plain",)) if message.is_multipart() else message
    text = part.get_content() if part is not None else ""
    # A sentence's full stop after a link is not part of it.
    return list(dict.fromkeys(url.rstrip(".,;:!?") for url in _URL.findall(str(text))))


class MailFolder:
    """A sender that keeps each message as an ``.eml`` file in a folder (created on entry) and
    reports, through ``say``, one line with its subject and file and one per link. Used as
    ``with MailFolder(folder) as m: m.send(message)``, like :class:`bangscore.mail.Mailer`."""

    def __init__(self, folder: Path, say: Callable[[str], None]) -> None:
        self.folder = folder
        self.say = say
        self.kept: list[Path] = []

    def __enter__(self) -> MailFolder:
        self.folder.mkdir(parents=True, exist_ok=True)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        _traceback: TracebackType | None,
    ) -> None:
        return None

    def send(self, message: EmailMessage) -> None:
        """Given a complete message, write it to a new file of the folder (written under a
        temporary name and renamed, so a reader never sees half a message). Raises
        UnsafeMessage as the SMTP sender does, OSError if the folder cannot be written."""
        recipient = str(message.get("To", ""))
        utf8 = not recipient.isascii()
        mailbox(recipient, utf8=True)
        raw = render(message, utf8=utf8)
        stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
        path = self.folder / f"{stamp}-{os.getpid()}-{next(_SERIAL)}.eml"
        partial = path.with_suffix(".part")
        partial.write_bytes(raw)
        partial.replace(path)
        self.kept.append(path)
        self.say(f"mail kept: {message.get('Subject', '')} -> {path}")
        for link in message_links(raw):
            self.say(f"  {link}")


class MailLoop:
    """Every ``every`` seconds, one ``alerts send`` pass into a :class:`MailFolder`: sign-up
    emails, confirmations and the alerts of watches that came true in the current snapshot.

    The snapshot's details are read again only when its pointer moves. A pass that fails (no
    snapshot yet, the store down) is logged and the next one tries again; nothing raises out
    of the thread. ``stop()`` ends it within one wait.
    """

    def __init__(
        self,
        *,
        folder: Path,
        snapshot: str,
        store_url: str,
        links: WatchLinks,
        from_address: str,
        say: Callable[[str], None],
        every: float = EVERY_SECONDS,
    ) -> None:
        self.folder = folder
        self.snapshot = snapshot
        self.store_url = store_url
        self.links = links
        self.from_address = from_address
        self.say = say
        self.every = every
        self._details: SnapshotDetails | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="bangscore-mail", daemon=True)

    def start(self) -> None:
        """Start the passes in a daemon thread."""
        self._thread.start()

    def stop(self) -> None:
        """Ask the thread to end and wait for it."""
        self._stop.set()
        self._thread.join()

    def deliver(self) -> AlertRun | None:
        """Run one pass; return what it did, or None when there was no snapshot to read."""
        storage = open_object_storage(self.snapshot)
        pointer = storage.read_pointer()
        if pointer is None:
            return None
        if self._details is None or self._details.snapshot_id != pointer:
            self._details = SnapshotDetails(storage)
        store = open_watch_store(self.store_url, create=False)
        try:
            return send_alerts(
                store,
                self._details,
                lambda: MailFolder(self.folder, self.say),
                links=self.links,
                from_address=self.from_address,
                now=time.time,
            )
        finally:
            store.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.deliver()
            except (SnapshotError, ObjectStorageError, StoreUnavailable, OSError) as exc:
                log.warning("local mail: this pass failed, trying again: %s", exc)
            self._stop.wait(self.every)
