"""The structured access log (docs/API.md#access-log): one JSON object a line per request,
written off the hot path, and never able to hurt the server.

A line holds ``time`` (RFC 3339, UTC, milliseconds, when the request arrived), ``request_id``,
``method``, ``path`` (with its query string, every ``api_key`` parameter removed, any key
elsewhere replaced by its key id, and the value of every token parameter: watch confirmation
and unsubscribe ``t``, export link ``signature``, presigned ``X-Amz-*`` credentials,
replaced by ``[redacted]``), ``status``, ``bytes`` (of the body sent: 0 for a HEAD), ``us``
(microseconds from the request's arrival to its last byte handed to the server), ``key_id``
(the key that authenticated the request, or null) and ``client`` (the client's address as the
server saw it, after any trusted proxy's ``X-Forwarded-For``).

What it guarantees, and why (issue 36):

- **Bounded memory.** Lines wait for the writer in a queue of at most :data:`QUEUE_BYTES`;
  past it (a stalled reader of standard output: journald, ``docker logs``) a line is
  dropped and counted (:attr:`AccessLog.dropped`, ``bangscore_access_log_dropped_total`` on
  ``/metrics``), and the writer names the count on standard error at most once a minute.
  Lines the writer could not write (a full disk, a closed pipe) are counted the same way.
- **Shutdown never waits on the reader.** The writer waits for the descriptor to be
  writable with ``poll`` and a timeout instead of blocking in ``write``; :meth:`close` waits
  at most ``close_seconds`` and counts what is left as dropped.
- **Atomic lines.** A line is at most :data:`LINE_BYTES` (``PIPE_BUF``, 4,096 bytes on Linux)
  with its newline: a longer path or method is cut and ends with the marker ``...[cut N]``
  (N characters removed). Lines are written in chunks of whole lines of at most ``PIPE_BUF``
  bytes, each one ``write``, which pipe(7) makes atomic: several workers sharing one pipe
  never interleave.
- **One line a line.** Besides JSON's own escapes, U+0085, U+2028 and U+2029 (which
  ``str.splitlines`` and JavaScript take for line ends) are written as ``\\u`` escapes.
- **A client's share.** A client may write at most :data:`CLIENT_LONG_BYTES` a second of
  path characters past :data:`SHORT_PATH_CHARS`; past it, its paths are cut there, so one
  client sending 15,000-character URLs writes lines as short as everyone else's.

Why it is cheap: a request formats its line on the event loop (a few microseconds, spread
evenly) and appends it to a list; once a second the ticker hands the list to a writer thread
(:meth:`AccessLog.flush`) that only joins and writes bytes, releasing the GIL in ``poll`` and
``write``. Formatting a second's batch in the writer (round 4) held the GIL in bursts of
milliseconds and tripled the p99 with the log on. The pattern is the standard library's
``QueueHandler``/``QueueListener`` (docs.python.org, logging-cookbook "Dealing with handlers
that block"), batched per second, bounded, and with a deadline.
"""

from __future__ import annotations

import collections
import datetime as dt
import functools
import math
import os
import select
import threading
import time
from collections.abc import Callable
from urllib.parse import unquote_plus

import orjson

from bangscore.stores.keys import redact

FLUSH_SECONDS = 1.0
PIPE_BUF = getattr(select, "PIPE_BUF", 4096)  # a write this size to a pipe is atomic (pipe(7))
CHUNK_BYTES = PIPE_BUF
LINE_BYTES = PIPE_BUF  # a whole line, newline included, is never longer
PATH_CHARS = 2048  # a path's first cut; cut further if its escapes still overflow the line
METHOD_CHARS = 32
SHORT_PATH_CHARS = 256  # what a client past its share keeps of a path
CLIENT_LONG_BYTES = 64 * 1024  # per client per second: path characters past SHORT_PATH_CHARS
QUEUE_BYTES = 4 * 1024 * 1024  # lines waiting for the writer, per process
WRITE_WAIT_SECONDS = 0.25  # one poll for writability; the writer re-checks for shutdown after
CLOSE_SECONDS = 2.0  # what close() waits for the writer at shutdown
REPORT_SECONDS = 60.0  # at most one line about dropped lines on stderr per this
CUT_MARKER = "...[cut {}]"
REDACTED = "[redacted]"
# Query parameters whose value is a credential (compared lower-case, after percent-decoding):
# the watch links' `t` (bangscore.mail.links), the export links' `signature` (shim.downloads)
# and a presigned S3 URL's.
TOKEN_PARAMETERS = frozenset(
    {"t", "token", "signature", "x-amz-signature", "x-amz-credential", "x-amz-security-token"}
)
_SEPARATORS = (
    (b"\xc2\x85", b"\\u0085"),
    (b"\xe2\x80\xa8", b"\\u2028"),
    (b"\xe2\x80\xa9", b"\\u2029"),
)
# (time, request id, method, path, query string, status, bytes, microseconds, key id, client)
Entry = tuple[float, str, str, str, bytes, int, int, int, str | None, str | None]


def _parameter_name(part: str) -> str:
    return unquote_plus(unquote_plus(part.partition("=")[0])).strip().lower()


def clean_path(path: str, query: bytes) -> str:
    """Given a request's path and raw query string, return ``path?query`` for the log: every
    ``api_key`` parameter dropped and every token parameter's value (:data:`TOKEN_PARAMETERS`)
    replaced by ``[redacted]`` (names compared after percent-decoding), and any other API key
    (in the path, in another parameter) replaced by its key id."""
    if not query:
        return redact(path)
    lowered = query.lower()
    if (
        b"api_key" not in lowered
        and b"%" not in lowered
        and b"+" not in lowered
        and b"t=" not in lowered
        and b"signature" not in lowered
        and b"x-amz" not in lowered
    ):
        # nothing to decode and no token's name: the query stays whole
        return redact(f"{path}?{query.decode('latin-1')}")
    kept = []
    for part in query.decode("latin-1").split("&"):
        name = _parameter_name(part)
        if name == "api_key":
            continue
        if name in TOKEN_PARAMETERS and "=" in part:
            part = f"{part.partition('=')[0]}={REDACTED}"
        kept.append(part)
    return redact(f"{path}?{'&'.join(kept)}" if kept else path)


@functools.lru_cache(maxsize=4)
def _second(whole: int) -> str:
    """Given Unix seconds, return their RFC 3339 form (UTC) up to the seconds: a second's
    requests share it, so it is formatted once."""
    return dt.datetime.fromtimestamp(whole, dt.UTC).strftime("%Y-%m-%dT%H:%M:%S")


def rfc3339_ms(started: float) -> str:
    """Given Unix seconds, return ``YYYY-MM-DDTHH:MM:SS.mmm+00:00`` (UTC): the same text as
    ``datetime.fromtimestamp(started, UTC).isoformat(timespec="milliseconds")``, whose
    rounding it repeats (the fraction to whole microseconds, half to even, then truncated)."""
    fraction, whole = math.modf(started)
    micros = round(fraction * 1e6)
    if micros >= 1_000_000:
        whole, micros = whole + 1, micros - 1_000_000
    return f"{_second(int(whole))}.{micros // 1000:03d}+00:00"


def cut(text: str, chars: int) -> str:
    """Given a text and a character budget, return it whole if it fits, else its first
    characters followed by ``...[cut N]`` (N characters removed), the whole within budget."""
    if len(text) <= chars:
        return text
    keep = max(0, chars - len(CUT_MARKER.format(len(text))))
    return text[:keep] + CUT_MARKER.format(len(text) - keep)


def _dumps(entry: Entry, path: str, method: str) -> bytes:
    started, request_id, _, _, _, status, size, micros, key_id, client = entry
    line = orjson.dumps(
        {
            "time": rfc3339_ms(started),
            "request_id": request_id,
            "method": method,
            "path": path,
            "status": status,
            "bytes": size,
            "us": micros,
            "key_id": key_id,
            "client": client,
        },
        option=orjson.OPT_APPEND_NEWLINE,
    )
    if not line.isascii():
        for raw, escaped in _SEPARATORS:
            line = line.replace(raw, escaped)
    return line


def format_line(entry: Entry, path_chars: int = PATH_CHARS) -> bytes:
    """Given a recorded request (:data:`Entry`) and the characters its path may keep, return
    its log line: JSON, newline-ended, at most :data:`LINE_BYTES` bytes (the path cut with a
    marker until it fits), line separators escaped."""
    method = cut(entry[2], METHOD_CHARS)
    path = clean_path(entry[3], entry[4])
    line = _dumps(entry, cut(path, path_chars), method)
    while len(line) > LINE_BYTES:
        # Escapes and multi-byte characters made it longer than its characters: cut in
        # proportion, with room for the marker, until the line fits.
        path_chars = max(0, path_chars * LINE_BYTES // len(line) - 32)
        line = _dumps(entry, cut(path, path_chars), method)
    return line


class AccessLog:
    """A bounded, buffered access log writing to a file descriptor (standard output by default).

    :meth:`record` is called on the event loop for every request; :meth:`flush` (from the
    app's ticker, every :data:`FLUSH_SECONDS`) hands the batch to the writer thread;
    :meth:`close` flushes and waits for the writer at most ``close_seconds`` (at shutdown).
    ``queue_bytes`` bounds the lines waiting; ``client_long_bytes`` is a client's share of
    long paths a second; ``report_fd`` gets the once-a-minute line about dropped lines.
    """

    def __init__(
        self,
        fd: int = 1,
        *,
        queue_bytes: int = QUEUE_BYTES,
        client_long_bytes: int = CLIENT_LONG_BYTES,
        close_seconds: float = CLOSE_SECONDS,
        report_fd: int = 2,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.fd = fd
        self.report_fd = report_fd
        self.queue_bytes = queue_bytes
        self.client_long_bytes = client_long_bytes
        self.close_seconds = close_seconds
        self.clock = clock
        self.pending: list[bytes] = []
        self._pending_bytes = 0
        self.written = 0  # lines written, for tests and /metrics (the writer's count)
        self.dropped_full = 0  # lines dropped because the queue was full (the loop's count)
        self.dropped_unwritten = 0  # lines the writer could not write (the writer's count)
        self.cut_lines = 0  # lines whose path was cut to the client's share
        self._long: dict[str | None, int] = {}  # this second's long-path bytes per client
        self._queue: collections.deque[list[bytes]] = collections.deque()
        self._queued_bytes = 0  # bytes in _queue; changed under _lock
        self._wake = threading.Condition(threading.Lock())
        self._closing = False
        self._deadline = math.inf  # when closing: the moment the writer gives up
        self._writer: threading.Thread | None = None
        self._reported = 0
        self._last_report = clock()

    @property
    def dropped(self) -> int:
        """Lines recorded but never written: the queue full, or the write failed."""
        return self.dropped_full + self.dropped_unwritten

    def record(self, entry: Entry) -> None:
        """Given one answered request, format its line and keep it for the next flush; drop
        and count it when the queue is full."""
        path_chars = PATH_CHARS
        long = len(entry[3]) + len(entry[4]) - SHORT_PATH_CHARS
        if long > 0:
            client = entry[9]
            spent = self._long.get(client, 0) + long
            self._long[client] = spent
            if spent > self.client_long_bytes:
                path_chars = SHORT_PATH_CHARS
                self.cut_lines += 1
        line = format_line(entry, path_chars)
        if self._pending_bytes + self._queued_bytes + len(line) > self.queue_bytes:
            self.dropped_full += 1
            return
        self.pending.append(line)
        self._pending_bytes += len(line)

    def flush(self) -> None:
        """Hand what was recorded since the last flush to the writer thread (started on the
        first use), and start a new second of client shares."""
        self._long.clear()
        if not self.pending:
            return
        batch, self.pending = self.pending, []
        with self._wake:
            self._queue.append(batch)
            self._queued_bytes += self._pending_bytes
            self._pending_bytes = 0
            if self._writer is None and not self._closing:
                self._writer = threading.Thread(
                    target=self._write_batches, name="access-log", daemon=True
                )
                self._writer.start()
            self._wake.notify()

    def close(self) -> None:
        """Flush, and wait until every recorded line is written or ``close_seconds`` pass
        (the writer then counts what is left as dropped); closing twice is harmless."""
        self.flush()
        with self._wake:
            self._closing = True
            self._deadline = time.monotonic() + self.close_seconds
            writer = self._writer
            self._wake.notify()
        if writer is not None:
            # The writer gives up at the deadline; a little more for it to count what it lost.
            writer.join(self.close_seconds + WRITE_WAIT_SECONDS)
        self._report(force=True)

    def _write_batches(self) -> None:
        while True:
            with self._wake:
                while not self._queue and not self._closing:
                    self._wake.wait(REPORT_SECONDS)
                    self._report()
                if not self._queue:
                    return
                batch = self._queue[0]
            written = self._write_batch(batch)
            with self._wake:
                if self._queue and self._queue[0] is batch:
                    self._queue.popleft()
                    self._queued_bytes -= sum(len(line) for line in batch)
            self.written += written
            self.dropped_unwritten += len(batch) - written
            self._report()

    def _write_batch(self, batch: list[bytes]) -> int:
        """Given lines, write them in chunks of whole lines of at most PIPE_BUF bytes; return
        how many were written (the rest are lost: the descriptor failed or shutdown came)."""
        written = 0
        chunk = bytearray()
        lines = 0
        for line in batch:
            if chunk and len(chunk) + len(line) > CHUNK_BYTES:
                if not self._write(bytes(chunk)):
                    return written
                written += lines
                chunk.clear()
                lines = 0
            chunk += line
            lines += 1
        if chunk and self._write(bytes(chunk)):
            written += lines
        return written

    def _write(self, data: bytes) -> bool:
        """Given at most PIPE_BUF bytes of whole lines, write them in one ``write`` once the
        descriptor is writable; return False if it failed or shutdown came first."""
        poller = select.poll()
        poller.register(self.fd, select.POLLOUT)
        while True:
            wait = WRITE_WAIT_SECONDS
            if self._closing:  # read without the lock: a stale False costs one more wait
                wait = min(wait, self._deadline - time.monotonic())
                if wait <= 0:
                    return False  # the reader is stalled and the server is stopping
            try:
                ready = poller.poll(wait * 1000)
            except OSError:
                return False
            if ready:
                if ready[0][1] & (select.POLLERR | select.POLLNVAL):
                    return False
                break
        try:
            # One write of at most PIPE_BUF bytes to a writable pipe is whole (pipe(7)); a
            # regular file takes it whole too unless the disk is full, which raises.
            n = os.write(self.fd, data)
        except OSError:
            return False
        return n == len(data)

    def _report(self, *, force: bool = False) -> None:
        """At most once every REPORT_SECONDS (or now, with ``force``), name on standard error
        how many lines were dropped since the last report, if any were."""
        dropped = self.dropped
        now = self.clock()
        if dropped == self._reported or (not force and now - self._last_report < REPORT_SECONDS):
            return
        since = dropped - self._reported
        self._reported, self._last_report = dropped, now
        line = (
            f"bangscore: access log: {since} lines dropped since the last report "
            f"({dropped} since start): its reader is too slow, or its disk full\n"
        ).encode()
        poller = select.poll()
        poller.register(self.report_fd, select.POLLOUT)
        try:
            if poller.poll(0):
                os.write(self.report_fd, line)
        except OSError:
            pass  # standard error is gone too: the metric still counts
