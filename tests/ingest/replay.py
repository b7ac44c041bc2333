"""Recorded responses replayed to the ingest, in process or over a real socket.

Routes map (method, path) to a handler that receives the parsed query and the request body and
returns (status, headers, body). Every request is logged in ``hits`` so tests can assert what
went over the wire (retries, resumes, cache hits that never reached the server).

:func:`mock_replay` answers through an ``httpx.MockTransport`` handed to the client
(:func:`quiet_client`): no thread, no port, so the adapters' tests run in ``make check``.
:func:`start_replay` serves the same routes from a real HTTP server on 127.0.0.1, for the few
end-to-end runs that build their own client (a whole refresh, the HTTP client's own faults).
"""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, parse_qsl, urlsplit

import httpx

from bangscore.ingest.live.http import ClientSettings, PoliteClient, RateLimit, ResponseCache

DAY = dt.date(2025, 3, 1)
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

Reply = tuple[int, Mapping[str, str], bytes]
Handler = Callable[[dict[str, str], bytes], Reply]


def fixture_bytes(relative: str) -> bytes:
    """Given a path under tests/fixtures, return the file's bytes."""
    return (FIXTURES / relative).read_bytes()


def fixture_json(relative: str) -> Any:
    """Given a path under tests/fixtures, return the decoded JSON."""
    return json.loads(fixture_bytes(relative))


def ok(body: bytes | Any) -> Reply:
    """Given raw bytes or a JSON-able value, return a 200 JSON reply."""
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return 200, {"Content-Type": "application/json"}, raw


@dataclass
class Hit:
    method: str
    path: str
    query: dict[str, str]
    body: bytes


# The base URL of an in-process replay: a name no resolver knows, so nothing leaves the process.
MOCK_BASE = "http://replay.invalid"


@dataclass
class Replay:
    """A replay: its ``routes``, the ``hits`` it received and its ``base_url``; ``server`` is
    the real HTTP server serving it, None for an in-process one (use ``transport``)."""

    routes: dict[tuple[str, str], Handler]
    server: ThreadingHTTPServer | None = None
    hits: list[Hit] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        if self.server is None:
            return MOCK_BASE
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}"

    def answer(self, method: str, path: str, query: dict[str, str], body: bytes) -> Reply:
        """Given a request's method, path, query and body, log it and return its route's reply
        (404 for a route not recorded)."""
        self.hits.append(Hit(method, path, query, body))
        handler = self.routes.get((method, path))
        return handler(query, body) if handler else (404, {}, b'{"error": "no route"}')

    @property
    def transport(self) -> httpx.MockTransport:
        """Return an ``httpx`` transport answering every request from the routes, in process."""

        def handle(request: httpx.Request) -> httpx.Response:
            query = dict(parse_qsl(request.url.query.decode(), keep_blank_values=True))
            status, headers, payload = self.answer(
                request.method, request.url.path, query, request.read()
            )
            return httpx.Response(status, headers=dict(headers), content=payload)

        return httpx.MockTransport(handle)

    def paths(self) -> list[str]:
        return [hit.path for hit in self.hits]


ReplayFactory = Callable[[dict[tuple[str, str], Handler]], Replay]
"""The ``replay`` fixture: given routes, a started replay server (stopped at teardown)."""


def mock_replay(routes: dict[tuple[str, str], Handler]) -> Replay:
    """Given routes, return an in-process replay: hand its ``transport`` to the client."""
    return Replay(routes)


def start_replay(routes: dict[tuple[str, str], Handler]) -> Replay:
    """Given routes, start a replay server in a daemon thread and return it (stop with close)."""
    replay: Replay

    class _Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            parts = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            status, headers, payload = replay.answer(self.command, parts.path, query, body)
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = _serve  # noqa: N815
        do_POST = _serve  # noqa: N815

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    replay = Replay(routes, server)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return replay


def quiet_client(cache_dir: Path | None, replay: Replay | None = None) -> PoliteClient:
    """Given a cache folder (or None) and an in-process replay (or None: the network), return a
    client with no rate-limit or retry waiting."""
    settings = ClientSettings(attempts=2, default_rate_limit=RateLimit(1000, 1.0))
    cache = ResponseCache(cache_dir, DAY) if cache_dir is not None else None
    transport = replay.transport if replay is not None and replay.server is None else None
    return PoliteClient(settings, cache, sleep=lambda seconds: None, transport=transport)


def stop_replay(replay: Replay) -> None:
    """Given a replay, stop its server (if it has one) and release its socket."""
    if replay.server is not None:
        replay.server.shutdown()
        replay.server.server_close()
