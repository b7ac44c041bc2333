"""An export file sent as it is read (:class:`FileBody`), and the bound on downloads under way
per client address (:class:`DownloadGate`), for :mod:`bangscore.shim.downloads`.

A body is read from the export store (:class:`~bangscore.storage.objects.RangeReader`) a chunk
at a time on a few worker threads, and each chunk is sent before the next is read: the
server's transport pauses a send while the client has not taken the previous bytes, so a
connection that reads slowly or not at all holds one chunk and its send buffer, never the
file (issue 45: 48 such connections took a worker from 680 to 1,245 MB when the file was read
whole for each).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable

import anyio
import anyio.to_thread
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from bangscore.errors import ObjectStorageError
from bangscore.shim.answer import RawHeaders
from bangscore.shim.protocol import ABORT
from bangscore.storage.objects import RangeReader

log = logging.getLogger("bangscore.export")
# Chunks are read on at most this many worker threads at once: many downloads then neither
# take every thread the other routes use nor a thread (and its stack) each.
READ_THREADS = anyio.CapacityLimiter(4)


class DownloadGate:
    """How many downloads each client address has under way in this process, at most
    ``per_client`` at once: a download holds its slot until its last byte is handed to the
    connection, or the connection goes away. One event loop per process: no lock."""

    def __init__(self, per_client: int) -> None:
        self.per_client = per_client
        self._open: Counter[str] = Counter()

    def enter(self, client: str) -> bool:
        """Given a client address, take a slot and return True, or return False if the
        address already holds ``per_client``."""
        if self._open[client] >= self.per_client:
            return False
        self._open[client] += 1
        return True

    def leave(self, client: str) -> None:
        """Given a client address that took a slot, give it back."""
        self._open[client] -= 1
        if self._open[client] <= 0:
            del self._open[client]

    def held(self, client: str) -> int:
        """Given a client address, return how many slots it holds."""
        return self._open.get(client, 0)


class FileBody(Response):
    """A download's answer: its head, then its bytes read from the export store a chunk
    (``READ_CHUNK``, 64 KiB) at a time, each sent before the next is read, so a connection that
    reads slowly or not at all holds one chunk and the transport's buffer, never the file.

    ``reader`` is None for a HEAD (nothing is read) and for a 304. The client's slot is
    given back (``release``) when the body ends, fails or the client goes away.
    """

    def __init__(
        self,
        status_code: int,
        headers: RawHeaders,
        reader: RangeReader | None,
        release: Callable[[], None],
        *,
        send_timeout: float = 60.0,
    ) -> None:
        self.status_code = status_code
        self._send_timeout = send_timeout
        self.raw_headers = headers
        self.background = None
        self.body = b""
        self._reader = reader
        self._release = release

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Send the head, then the body a chunk at a time until its end or a disconnect."""
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": self.status_code,
                    "headers": self.raw_headers,
                }
            )
            if self._reader is None:
                await send({"type": "http.response.body", "body": b""})
                return
            stalled = False
            async with anyio.create_task_group() as group:

                async def watch() -> None:  # a disconnect ends the download
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    group.cancel_scope.cancel()

                group.start_soon(watch)
                stalled = not await self._stream(self._reader, send, self._send_timeout)
                group.cancel_scope.cancel()
            abort = scope.get("extensions", {}).get(ABORT)
            if stalled and abort is not None:
                abort()  # a close would wait for the stalled reader to take the buffer
        finally:
            if self._reader is not None:
                self._reader.close()
            self._release()

    @staticmethod
    async def _stream(reader: RangeReader, send: Send, send_timeout: float) -> bool:
        """Send the reader's chunks; return False if a chunk the connection had not taken
        within ``send_timeout`` seconds (a reader that stopped reading) ended the download,
        to be dropped with its slot freed, as nginx's ``send_timeout`` does (issue 55)."""
        while True:
            try:
                chunk = await anyio.to_thread.run_sync(reader.read, limiter=READ_THREADS)
            except ObjectStorageError as exc:
                # The head is sent: the connection closes short of Content-Length, which
                # every client reads as a failed download.
                log.error("export download %s cut short: %s", reader.key, exc)
                return True
            last = reader.left <= 0
            with anyio.move_on_after(send_timeout) as waited:
                await send({"type": "http.response.body", "body": chunk, "more_body": not last})
            if waited.cancelled_caught:
                log.warning(
                    "export download %s dropped: its reader took nothing for %ss",
                    reader.key,
                    send_timeout,
                )
                return False
            if last:
                return True


def once(action: Callable[[], None]) -> Callable[[], None]:
    """Given an action, return a function doing it on its first call only."""
    done = False

    def run() -> None:
        nonlocal done
        if not done:
            done = True
            action()

    return run
