"""The server's own log (uvicorn's messages, the shim's warnings and errors) on standard error,
written so that a stalled reader can never stop the server (issue 36).

``logging.StreamHandler`` writes to standard error with a blocking ``write``: when its reader
stalls (journald, ``docker logs``, a pipe nobody reads), the pipe's 64 KiB fill and the next
message blocks the process's event loop, so one client sending malformed requests (each logs
"Invalid HTTP request received.") could freeze the server and hold its shutdown.
:class:`NonBlockingHandler` writes a message only when the descriptor can take it now
(``poll`` with no wait), in one ``write`` of at most ``PIPE_BUF`` bytes (whole, never
interleaved with another worker's, pipe(7)); otherwise the message is dropped and counted
(:data:`DROPPED`, ``bangscore_log_dropped_total`` on ``/metrics``).

Why not the standard library's ``QueueHandler``/``QueueListener``: its listener thread would
block in ``write`` instead of the loop, but ``logging.shutdown`` at exit flushes and joins it,
so shutdown would still wait on the reader; the access log (:mod:`bangscore.shim.access_log`)
bounds its writer with a deadline, and these messages, a few a minute in normal running, need
no thread at all.
"""

from __future__ import annotations

import logging
import os
import select

PIPE_BUF = getattr(select, "PIPE_BUF", 4096)  # a write this size to a pipe is atomic
CUT_MARKER = b"...[cut]\n"
# Messages dropped by this process because standard error could not take them at once.
DROPPED = 0


def encoded_line(text: str) -> bytes:
    """Given a formatted message, return it as one UTF-8 line (newline included) of at most
    :data:`PIPE_BUF` bytes: a longer one is cut on a character boundary and ends with
    ``...[cut]``; line breaks inside it are written as ``\\n`` so a reader sees one line."""
    data = text.replace("\r", "\\r").replace("\n", "\\n").encode("utf-8", "backslashreplace")
    if len(data) + 1 <= PIPE_BUF:
        return data + b"\n"
    keep = data[: PIPE_BUF - len(CUT_MARKER)].decode("utf-8", "ignore").encode()
    return keep + CUT_MARKER


class NonBlockingHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A ``logging.StreamHandler`` (the same ``stream`` argument: ``ext://sys.stderr`` in a
    dictConfig) that writes each message as one line straight to the stream's descriptor
    when it is writable now, and drops and counts it (:data:`DROPPED`) otherwise."""

    def emit(self, record: logging.LogRecord) -> None:
        """Given a record, write its formatted line if the descriptor takes it at once."""
        global DROPPED
        try:
            line = encoded_line(self.format(record))
            fd = self.stream.fileno()
        except Exception:  # logging's contract: a bad record never raises
            self.handleError(record)
            return
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        try:
            ready = poller.poll(0)
            # Writable: room for at least PIPE_BUF bytes in a pipe, so one write is whole.
            writable = ready and not ready[0][1] & (select.POLLERR | select.POLLNVAL)
            if writable and os.write(fd, line) == len(line):
                return
        except OSError:
            pass  # the descriptor is gone or full (a full disk): counted below
        DROPPED += 1
