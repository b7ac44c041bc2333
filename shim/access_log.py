"""The structured access log (docs/API.md#access-log): one JSON object a line per request,
written off the hot path.

A line holds ``time`` (RFC 3339, UTC, milliseconds, when the request arrived), ``request_id``,
``method``, ``path`` (with its query string, every ``api_key`` parameter removed and any key
elsewhere replaced by its key id), ``status``, ``bytes`` (of the body sent), ``us`` (microseconds
from the request's arrival to its last byte handed to the server), ``key_id`` (the key that
authenticated the request, or null) and ``client`` (the client's address as the server saw it,
after any trusted proxy's ``X-Forwarded-For``).

Why it is cheap: a request only appends a tuple to a list (:meth:`AccessLog.record`); once a
second the event loop hands the list to a writer thread (:meth:`AccessLog.flush`), which
formats the lines and writes them in chunks of whole lines of at most ``PIPE_BUF`` bytes, so
the lines of several worker processes sharing one pipe never interleave. uvicorn's own access
log formats a line with :mod:`logging` inside the request (about 65 microseconds a request,
half the shim's throughput: issue 29). The pattern is the standard library's
``QueueHandler``/``QueueListener`` (docs.python.org, logging-cookbook "Dealing with handlers
that block"), batched per second instead of per record.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
import os
import queue
import threading
from urllib.parse import unquote_plus

import orjson

from bangscore.stores.keys import redact

FLUSH_SECONDS = 1.0
CHUNK_BYTES = 4096  # PIPE_BUF on Linux: a write this size to a pipe is atomic (pipe(7))
# (time, request id, method, path, query string, status, bytes, microseconds, key id, client)
Entry = tuple[float, str, str, str, bytes, int, int, int, str | None, str | None]


def clean_path(path: str, query: bytes) -> str:
    """Given a request's path and raw query string, return ``path?query`` for the log: every
    ``api_key`` parameter dropped (its name compared after percent-decoding), and any other
    API key (in the path, in another parameter) replaced by its key id."""
    if not query:
        return redact(path)
    lowered = query.lower()
    if b"api_key" not in lowered and b"%" not in lowered and b"+" not in lowered:
        # nothing to decode, so no parameter can be named api_key: the query stays whole
        return redact(f"{path}?{query.decode('latin-1')}")
    kept = [
        part
        for part in query.decode("latin-1").split("&")
        if unquote_plus(unquote_plus(part.partition("=")[0])).strip().lower() != "api_key"
    ]
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


def format_line(entry: Entry) -> bytes:
    """Given a recorded request (:data:`Entry`), return its log line (JSON, newline-ended)."""
    started, request_id, method, path, query, status, size, micros, key_id, client = entry
    return orjson.dumps(
        {
            "time": rfc3339_ms(started),
            "request_id": request_id,
            "method": method,
            "path": clean_path(path, query),
            "status": status,
            "bytes": size,
            "us": micros,
            "key_id": key_id,
            "client": client,
        },
        option=orjson.OPT_APPEND_NEWLINE,
    )


class AccessLog:
    """A buffered access log writing to a file descriptor (standard output by default).

    :meth:`record` is called on the event loop for every request; :meth:`flush` (from the
    app's lifespan, every :data:`FLUSH_SECONDS`) hands the batch to the writer thread;
    :meth:`close` flushes and waits for the writer (at shutdown).
    """

    def __init__(self, fd: int = 1) -> None:
        self.fd = fd
        self.pending: list[Entry] = []
        self.written = 0  # lines written, for tests and /metrics
        self._batches: queue.SimpleQueue[list[Entry] | None] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        self._lock = threading.Lock()

    def record(self, entry: Entry) -> None:
        """Given one answered request, keep it for the next flush."""
        self.pending.append(entry)

    def flush(self) -> None:
        """Hand what was recorded since the last flush to the writer thread (started on the
        first use)."""
        if not self.pending:
            return
        batch, self.pending = self.pending, []
        with self._lock:
            if self._writer is None:
                self._writer = threading.Thread(
                    target=self._write_batches, name="access-log", daemon=True
                )
                self._writer.start()
        self._batches.put(batch)

    def close(self) -> None:
        """Flush, and wait until every recorded line is written."""
        self.flush()
        with self._lock:
            writer, self._writer = self._writer, None
        if writer is not None:
            self._batches.put(None)
            writer.join()

    def _write_batches(self) -> None:
        while (batch := self._batches.get()) is not None:
            chunk = bytearray()
            for entry in batch:
                line = format_line(entry)
                if chunk and len(chunk) + len(line) > CHUNK_BYTES:
                    self._write(bytes(chunk))
                    chunk.clear()
                chunk += line
            if chunk:
                self._write(bytes(chunk))
            self.written += len(batch)

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.fd, view)
            except OSError:
                return  # a closed or full log must not stop the server; the lines are lost
            view = view[n:]
