"""The embedded server's HTTP/1.1 protocol: uvicorn's httptools protocol with a bounded,
timed request head (docs/API.md#network-edge), so ``bangscore serve`` is safe to expose
without nginx in front.

Why here: the head is parsed before any ASGI app runs, and httptools buffers a header that
has not ended yet, so only the protocol can bound that memory or time a connection that never
finishes its head. uvicorn has no setting for either (``h11_max_incomplete_event_size``
bounds h11 only, and no timer covers an unfinished head), so this subclass adds both and
leaves the parser and the request cycle to uvicorn:

- Size: the request line (URL) may hold :attr:`HeadLimits.max_line` bytes (else 414), one
  header field :attr:`HeadLimits.max_field` bytes (else 431), and the whole head
  :attr:`HeadLimits.max_head` bytes (else 431). Bytes are fed to the parser in slices while a
  head is being read, so at most ``max_head`` + 1 bytes of an unfinished head are buffered.
- Time: a request head must be complete within :attr:`HeadLimits.head_seconds` of the moment
  the server started waiting for it (the connection opened, or the previous response was
  sent); trickling bytes does not restart the clock. A connection that sent nothing of a new
  head is closed silently; one that sent part of it gets 408. Idle keep-alive connections are
  closed after uvicorn's ``timeout_keep_alive``.
- Body: a request's body must be complete within :attr:`HeadLimits.body_seconds` of the end
  of its head; the app reading it past that gets :class:`BodyRefused` (answered 408 by
  :mod:`shim.edge`, connection closed). A body the parser refuses (a bad chunk size) ends the
  request the same way, with 400: one answer per request, never a second one for the rest.
- Identity: HTTP/1.1 needs exactly one ``Host``; a second ``Host`` or ``Authorization``
  header, or a ``Transfer-Encoding`` other than ``chunked``, is refused with 400, and a head
  of more than :attr:`HeadLimits.max_headers` fields with 431.
- Connections: one client (an IPv4 address, an IPv6 /64: ``client_group``) may hold
  :attr:`HeadLimits.max_client_connections` open connections to this process, and all
  clients together :attr:`HeadLimits.max_connections` (below the descriptor limit); past
  either a new one is closed at once, so one client cannot take every file descriptor
  (trusted proxies, :attr:`HeadLimits.exempt`, are not capped).
- Errors: every protocol error (400 for a malformed request, 408, 414, 431) is answered by the
  ASGI app itself, through a synthetic request whose scope carries :data:`PROTOCOL_ERROR`, so
  the answer is the same ``application/problem+json`` with ``X-Request-Id`` and rate-limit
  headers as every other error (:mod:`bangscore.shim.edge`). The connection is then closed the way
  nginx's lingering close does it: our side is shut for writing and what the client still
  sends is read and dropped (never buffered) until it closes or :data:`LINGER_SECONDS` pass,
  so a client still sending its oversized head reads the answer instead of a reset.
"""

from __future__ import annotations

import asyncio
import resource
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
from uvicorn.protocols.utils import get_remote_addr
from uvicorn.server import ServerState

from bangscore.errors import BodyRefused
from bangscore.shim.clients import client_group

PROTOCOL_ERROR = "bangscore.protocol_error"  # scope["extensions"] key of a rejected request
# scope["extensions"] key of a callable that drops the connection at once, unsent bytes and
# all: a download whose reader stopped (shim.file_stream) cannot be closed politely.
ABORT = "bangscore.abort"
LINGER_SECONDS = 3.0  # after refusing a head: read and drop the rest this long at most
COMBINE_BYTES = 64 * 1024  # writes held for one send at most this many bytes
_OPEN: Counter[str] = Counter()  # open connections per client group, in this process


@dataclass(frozen=True, slots=True)
class HeadLimits:
    """Bounds of one request: bytes of the request line, of one header field (name and
    value), of the whole head, header fields in it, seconds to receive the head and then the
    body, and open connections per client address (per process; ``exempt`` addresses, the
    trusted proxies, are not capped)."""

    max_line: int = 16 * 1024
    max_field: int = 16 * 1024
    max_head: int = 64 * 1024
    head_seconds: float = 10.0
    max_headers: int = 100
    body_seconds: float = 10.0
    max_client_connections: int = 64
    exempt: frozenset[str] = frozenset()
    # Open connections of this process, all clients together (0: no cap): kept below the
    # descriptor limit (:func:`connection_cap`), so many client networks at once still leave
    # descriptors for the stores, the snapshot and the log (issue 55).
    max_connections: int = 0


# Descriptors a serving process keeps for what is not a client connection: the SQLite and
# object stores, Redis, the snapshot's files, the access log, the event loop's own.
RESERVED_DESCRIPTORS = 128


def connection_cap(configured: int) -> int:
    """Given the configured cap on a process's open connections, return it lowered to this
    process's descriptor limit (``RLIMIT_NOFILE``, soft) less :data:`RESERVED_DESCRIPTORS`."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return configured
    return max(1, min(configured, soft - RESERVED_DESCRIPTORS))


class _Rejected(Exception):
    """Raised inside a parser callback to stop parsing a head that broke a limit."""


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with the head bounded in size and time (see the module)."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
        *,
        limits: HeadLimits,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.limits = limits
        self._reading_head = True  # between the end of a message and the end of the next head
        self._head_bytes = 0
        self._head_timer: asyncio.TimerHandle | None = None
        self._rejection: tuple[int, str, str] | None = None
        self._rejected = False  # from then on, whatever arrives is dropped
        self._linger_timer: asyncio.TimerHandle | None = None
        self._peer: str | None = None  # counted in _OPEN while this connection is open
        self._fields = 0
        self._seen: set[bytes] = set()  # of the names that may appear once
        self._has_body = False  # the head announced a body (Content-Length or chunked)
        self._body_error: BodyRefused | None = None

    # -- connection --------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(cast(asyncio.Transport, _WriteCombining(transport, self.loop)))
        peer = get_remote_addr(transport)
        host = peer[0] if peer else "unknown"
        if host not in self.limits.exempt and "*" not in self.limits.exempt:
            # Counted by client_group, as every per-client bound: an IPv6 client by its /64
            # (one /64 is one subscriber's, with 2^64 addresses to spread a flood over).
            group = client_group(host)
            cap = self.limits.max_connections
            if _OPEN[group] >= self.limits.max_client_connections or (cap and _OPEN.total() >= cap):
                self._rejected = True
                transport.abort()  # no answer: answering is what the flood wants to cost us
                return
            _OPEN[group] += 1
            self._peer = group
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._peer is not None:
            _OPEN[self._peer] -= 1
            if _OPEN[self._peer] <= 0:
                del _OPEN[self._peer]
            self._peer = None
        self._cancel_head_timer()
        if self._linger_timer is not None:
            self._linger_timer.cancel()
            self._linger_timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        """Feed ``data`` to the parser; while a head is read, in slices that stop one byte
        past the head limit, so an endless head is refused before it is buffered."""
        if self._rejected:
            return
        while data:
            if self._reading_head:
                room = self.limits.max_head - self._head_bytes + 1
                piece, data = (data, b"") if len(data) <= room else (data[:room], data[room:])
                self._head_bytes += len(piece)
            else:
                piece, data = data, b""
            super().data_received(piece)
            if self._rejected or self.transport.is_closing():
                return
            if self._reading_head and self._head_bytes > self.limits.max_head:
                self._reject(
                    431,
                    "header_too_large",
                    f"The request head is larger than {self.limits.max_head} bytes.",
                )
                return

    # -- parser callbacks --------------------------------------------------------------------

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        if len(self.url) > self.limits.max_line:
            self._rejection = (
                414,
                "uri_too_long",
                f"The request target is longer than {self.limits.max_line} bytes.",
            )
            raise _Rejected

    def on_header(self, name: bytes, value: bytes) -> None:
        if len(name) + len(value) > self.limits.max_field:
            self._rejection = (
                431,
                "header_too_large",
                f"A header field is larger than {self.limits.max_field} bytes.",
            )
            raise _Rejected
        self._fields += 1
        if self._fields > self.limits.max_headers:
            self._rejection = (
                431,
                "header_too_large",
                f"The request head has more than {self.limits.max_headers} header fields.",
            )
            raise _Rejected
        lower = name.lower()
        if lower in (b"host", b"authorization"):
            if lower in self._seen:
                self._rejection = (
                    400,
                    "bad_request",
                    f"The request has more than one {lower.decode().title()} header.",
                )
                raise _Rejected
            self._seen.add(lower)
        elif lower == b"transfer-encoding":
            if value.strip().lower() != b"chunked":
                self._rejection = (
                    400,
                    "bad_request",
                    "The only Transfer-Encoding accepted is chunked.",
                )
                raise _Rejected
            self._has_body = True
        elif lower == b"content-length" and value.strip() != b"0":
            self._has_body = True
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        if b"host" not in self._seen and self.parser.get_http_version() == "1.1":
            self._rejection = (400, "bad_request", "An HTTP/1.1 request needs a Host header.")
            raise _Rejected
        self._cancel_head_timer()
        self._reading_head = False
        self._fields = 0
        self._seen = set()
        super().on_headers_complete()
        extensions = cast(dict[str, Any], self.scope.setdefault("extensions", {}))
        extensions[ABORT] = self.transport.abort
        if self._has_body:  # a request without a body has nothing to time (most GETs)
            self._has_body = False
            self._time_body(self.cycle)

    def on_message_complete(self) -> None:
        self._reading_head = True
        self._head_bytes = 0
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self._reading_head and not self.pipeline:
            self._arm_head_timer()

    def send_400_response(self, msg: str) -> None:
        """Answer a request the parser refused: the limit it broke, else a malformed request.

        A fault in the body of a request the app already has ends that request instead: the
        app reading on gets :class:`BodyRefused`, and nothing more is answered."""
        status, code, detail = self._rejection or (
            400,
            "bad_request",
            "The request is not valid HTTP/1.1.",
        )
        if not self._reading_head and self.cycle is not None:
            self._end_body(self.cycle, BodyRefused(status, code, detail))
            return
        self._reject(status, code, detail)

    # -- body ----------------------------------------------------------------------------------

    def _time_body(self, cycle: RequestResponseCycle | None) -> None:
        """Give ``cycle`` a ``receive`` that raises BodyRefused once the body is refused or
        has not arrived within ``body_seconds``."""
        if cycle is None:
            return
        original = cycle.receive
        deadline = self.loop.time() + self.limits.body_seconds
        seconds = self.limits.body_seconds

        async def receive() -> Any:
            if self._body_error is not None:
                raise self._body_error
            if not cycle.more_body:  # the body is in: waiting now is for a disconnect
                return await original()
            try:
                message = await asyncio.wait_for(original(), max(0.0, deadline - self.loop.time()))
            except TimeoutError:
                refused = BodyRefused(
                    408, "request_timeout", f"The request body did not arrive within {seconds:g} s."
                )
                self._end_body(cycle, refused)
                raise refused from None
            if self._body_error is not None:
                raise self._body_error
            return message

        cycle.receive = receive  # type: ignore[method-assign]

    def _end_body(self, cycle: RequestResponseCycle, refused: BodyRefused) -> None:
        """Stop reading this connection: the request in flight is answered once (by the app,
        if it has not answered yet), then the connection closes."""
        self._rejected = True
        self._body_error = refused
        self._cancel_head_timer()
        cycle.keep_alive = False
        self.pipeline.clear()
        if cycle.response_complete:
            self.transport.close()
        else:
            cycle.message_event.set()  # wakes a receive() waiting for the body

    # -- head timer --------------------------------------------------------------------------

    def _arm_head_timer(self) -> None:
        self._cancel_head_timer()
        self._head_timer = self.loop.call_later(self.limits.head_seconds, self._head_timeout)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timeout(self) -> None:
        self._head_timer = None
        if self.transport.is_closing() or not self._reading_head or self._rejected:
            return
        if self._head_bytes == 0:
            self.transport.close()  # nothing of a request arrived: nothing to answer
            return
        self._reject(
            408,
            "request_timeout",
            f"The request head did not arrive within {self.limits.head_seconds:g} s.",
        )

    # -- answering a refused head ------------------------------------------------------------

    def _reject(self, status: int, code: str, detail: str) -> None:
        """Stop reading, and let the app answer the problem on a closing connection."""
        if self._rejected:
            return
        self._rejected = True
        self._cancel_head_timer()
        self._unset_keepalive_if_required()
        scope: Any = {  # the refused head is not parsed: its method and path are logged as "-"
            "type": "http",
            "asgi": {"version": self.asgi_version, "spec_version": "2.3"},
            "http_version": "1.1",
            "server": self.server,
            "client": self.client,
            "scheme": self.scheme,
            "root_path": self.root_path,
            "method": "-",
            "path": "-",
            "raw_path": b"-",
            "query_string": b"",
            "headers": [],
            "state": self.app_state.copy(),
            "extensions": {PROTOCOL_ERROR: {"status": status, "code": code, "detail": detail}},
        }
        cycle = RequestResponseCycle(
            scope=scope,
            transport=cast(asyncio.Transport, _LingeringClose(self.transport, self._linger)),
            flow=self.flow,
            logger=self.logger,
            access_logger=self.access_logger,
            access_log=self.access_log,
            default_headers=self.server_state.default_headers,
            message_event=asyncio.Event(),
            expect_100_continue=False,
            keep_alive=False,
            on_response=lambda: None,
        )
        cycle.more_body = False
        busy = self.cycle is not None and not self.cycle.response_complete
        if busy:
            self.pipeline.appendleft((cycle, self.app))  # after the response in flight
        else:
            self.cycle = cycle
            self._start_asgi_task(cycle, self.app)

    def _linger(self) -> None:
        """After the refusal is written: shut our side for writing, keep reading (and
        dropping) until the client closes, and close for good after LINGER_SECONDS."""
        transport = self.transport
        if transport.is_closing():
            return
        if transport.can_write_eof():
            transport.write_eof()
        self.flow.resume_reading()
        self._linger_timer = self.loop.call_later(LINGER_SECONDS, transport.close)


class _LingeringClose:
    """The transport as a refusal's response cycle sees it: ``close()`` lingers instead."""

    def __init__(self, transport: asyncio.Transport, linger: Callable[[], None]) -> None:
        self._transport = transport
        self.close = linger

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


class _WriteCombining:
    """The connection's transport as uvicorn sees it: what is written in one turn of the event
    loop goes out in one send.

    uvicorn writes a response's head and its body separately: two system calls and two TCP
    segments for every small answer, which on a busy server cost more than the rest of the
    shim's work on a list page (a third of its CPU time under ``make bench``). Writes are
    held until the end of the loop turn (``call_soon``), or until :data:`COMBINE_BYTES` are
    held, so a streamed body never piles up; ``close``, ``write_eof`` and ``abort`` act on
    what is held first.
    """

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._held: list[bytes] = []
        self._held_bytes = 0

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._held:
            self._loop.call_soon(self.flush)
        self._held.append(bytes(data))
        self._held_bytes += len(data)
        if self._held_bytes >= COMBINE_BYTES:
            self.flush()

    def flush(self) -> None:
        """Send what is held, in one write (nothing if the connection is closing)."""
        if not self._held:
            return
        data = self._held[0] if len(self._held) == 1 else b"".join(self._held)
        self._held = []
        self._held_bytes = 0
        if not self._transport.is_closing():
            self._transport.write(data)

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + self._held_bytes

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._held = []
        self._held_bytes = 0
        self._transport.abort()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)


@dataclass(frozen=True, slots=True)
class BoundedProtocols:
    """The protocol factory handed to uvicorn (``http=``): picklable, so every worker process
    gets the same limits."""

    limits: HeadLimits

    def __call__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> BoundedHttpToolsProtocol:
        """Given what uvicorn passes a protocol class, return a bounded protocol."""
        return BoundedHttpToolsProtocol(config, server_state, app_state, _loop, limits=self.limits)
