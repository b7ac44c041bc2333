"""The outermost layer: request id, CORS, security and rate-limit headers on every response,
a 500 problem without a trace for any unexpected fault, the answer to a request head the
server refused (:mod:`bangscore.shim.protocol`), one URL per resource (a trailing slash is dropped
before routing, so no redirect is built from the request's ``Host``), and a fast path for
repeated answers.

Rate-limit headers: a response that did not count against a key or the anonymous allowance
(``/metrics``, the account pages, export downloads, CORS preflights, a 500) carries the
client IP's anonymous allowance as it stands, without counting the request.

The fast path serves a request whose answer this snapshot already resolved (the same path
and query string) to a valid key, skipping routing: it reads the key as the routes do
(:func:`bangscore.shim.api.presented_key`) and answers by the same answer policy
(:func:`bangscore.shim.answer.answer`), so its bytes are the full route's. Anything else (a
first request, a missing or bad key, a key store fault) takes the full route.
"""

from __future__ import annotations

import logging
import os
import random
import time
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bangscore.errors import AuthFailure, BodyRefused, StoreUnavailable
from bangscore.shim.access_log import AccessLog
from bangscore.shim.answer import Resolved, answer
from bangscore.shim.api import (
    EDGE_HEADERS,
    ProblemVoice,
    charge_anonymous,
    key_allowance,
    presented_key,
)
from bangscore.shim.clients import UNKNOWN, client_group
from bangscore.shim.metrics import Metrics
from bangscore.shim.page_policy import HSTS, browser_headers
from bangscore.shim.problems import PROBLEM_TYPE, problem_body
from bangscore.shim.protocol import PROTOCOL_ERROR
from bangscore.shim.quota import Quota, rate_headers
from bangscore.shim.source import SnapshotSource
from bangscore.shim.store_watch import StoreWatch

log = logging.getLogger("bangscore.shim")


class Outcome:
    """What was sent for one request: its status (0 until the head is sent) and body bytes."""

    __slots__ = ("sent", "status")

    def __init__(self) -> None:
        self.status = 0
        self.sent = 0


class EdgeMiddleware:
    """Pure ASGI middleware: request id, CORS, nosniff and rate-limit headers on every
    response; 500 on faults; protocol errors as problems; trailing slashes dropped."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        source: SnapshotSource,
        quota: Quota,
        problems: ProblemVoice,
        access_log: AccessLog | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.app = app
        self.access_log = access_log
        self.metrics = metrics
        self.source = source
        self.quota = quota
        self.problems = problems
        self.https = problems.site_url.startswith("https://")
        path = getattr(quota.counter, "path", None)  # a SQLite counter's file
        self.watch = StoreWatch(path if isinstance(path, Path) else None)
        # Request ids only need to be distinct, not secret: a generator seeded from the OS per
        # process costs a fraction of os.urandom's system call on every request.
        self._ids = random.Random(os.urandom(16))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        arrived, clock = time.time(), time.perf_counter_ns()
        request_id = f"{self._ids.getrandbits(64):016x}"
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        outcome = Outcome()
        try:
            await self._answer(scope, receive, send, request_id, outcome)
        finally:
            if self.access_log is not None or self.metrics is not None:
                micros = (time.perf_counter_ns() - clock) // 1000
                self._account(scope, request_id, arrived, micros, outcome)

    def _account(
        self,
        scope: Scope,
        request_id: str,
        arrived: float,
        micros: int,
        outcome: Outcome,
    ) -> None:
        """Given an answered request, record it in the access log and the metrics."""
        status = outcome.status
        if self.metrics is not None:
            self.metrics.observe(status, micros / 1e6)
        if self.access_log is not None:
            client = scope.get("client")
            self.access_log.record(
                (
                    arrived,
                    request_id,
                    scope["method"],
                    scope["path"],
                    scope["query_string"],
                    status,
                    0 if scope["method"] == "HEAD" else outcome.sent,  # the server sends no body
                    micros,
                    scope["state"].get("key_id"),
                    client[0] if client else None,
                )
            )

    async def _answer(
        self, scope: Scope, receive: Receive, send: Send, request_id: str, outcome: Outcome
    ) -> None:
        """Given a request, answer it, noting in ``outcome`` the status and body bytes sent."""
        extra = [*EDGE_HEADERS, (b"x-request-id", request_id.encode())]
        if self.https:
            extra.append((b"strict-transport-security", HSTS))
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.body":
                outcome.sent += len(message.get("body", b""))
            elif message["type"] == "http.response.start":
                started = True
                outcome.status = message["status"]
                headers = list(message.get("headers", ()))
                # Counted answers put their rate-limit headers first (answer.ok).
                counted = bool(headers) and headers[0][0] == b"x-ratelimit-limit"
                if not counted and not any(name == b"x-ratelimit-limit" for name, _ in headers):
                    headers += self._uncounted_rate(scope)
                headers += extra
                message["headers"] = browser_headers(scope["path"], headers)
            await send(message)

        error = scope.get("extensions", {}).get(PROTOCOL_ERROR)
        if error is not None:
            await self._protocol_error(scope, receive, send_with_headers, error)
            return
        path = scope["path"]
        # /metrics answers at that exact spelling only: /metrics/, /metrics// and /metrics%2F
        # keep their slash and so find no route (an edge hiding the exact path must not
        # leak it under another; issue 36).
        if len(path) > 1 and path.endswith("/") and path.rstrip("/") != "/metrics":
            scope["path"] = path.rstrip("/") or "/"
            scope["raw_path"] = scope.get("raw_path", b"").rstrip(b"/") or b"/"
        if scope["path"] != "/metrics" and self.watch.vanished():
            self.quota.metrics.extra["store_vanished"] = 1
            # The API's one 503 voice (ProblemVoice.unavailable), as for any key store fault.
            fault = StoreUnavailable("the key store was removed or replaced while serving")
            response = self.problems.unavailable(Request(scope), [], fault)
            await response(scope, receive, send_with_headers)
            return
        if scope["method"] == "OPTIONS" and _is_preflight(scope):
            await _preflight(send_with_headers)
            return
        try:
            fast = await self._fast_path(scope) if scope["method"] in ("GET", "HEAD") else None
            if fast is not None:
                await fast(scope, receive, send_with_headers)
                return
            await self.app(scope, receive, send_with_headers)
        except BodyRefused as refused:
            if started:
                return  # answered already; the protocol closes the connection
            error = {"status": refused.status, "code": refused.code, "detail": refused.detail}
            await self._protocol_error(scope, receive, send_with_headers, error)
        except Exception:
            log.exception("unhandled error in request %s", request_id)
            if started:
                raise
            status, body = problem_body(
                "internal_error",
                f"An internal error occurred; quote request id {request_id}.",
                site_url=self.problems.site_url,
                request_id=request_id,
            )
            response = Response(
                body, status, headers={"Cache-Control": "no-store"}, media_type=PROBLEM_TYPE
            )
            await response(scope, receive, send_with_headers)

    def _uncounted_rate(self, scope: Scope) -> list[tuple[bytes, bytes]]:
        """Given a request's scope, return its client IP's anonymous rate-limit headers,
        without counting the request."""
        client = scope.get("client")
        ip = client[0] if client else UNKNOWN
        quota = self.quota
        hit, window = quota.peek(f"ip:{client_group(ip)}", quota.anonymous_limit)
        rate = rate_headers(hit.limit, hit.used, window)
        return [(k.lower().encode(), v.encode()) for k, v in rate]

    async def _protocol_error(
        self, scope: Scope, receive: Receive, send: Send, error: dict[str, object]
    ) -> None:
        """Answer a request head the server refused (:mod:`bangscore.shim.protocol`) as a problem,
        counted against the client IP's anonymous allowance; the connection then closes."""
        request = Request(scope)
        _, _, rate = await charge_anonymous(request, self.quota)
        response = self.problems.problem(
            request, str(error["code"]), str(error["detail"]), rate, headers={"Connection": "close"}
        )
        await response(scope, receive, send)

    async def _fast_path(self, scope: Scope) -> Response | None:
        """Given a request, answer it from this snapshot's resolved answers if it can (a keyed
        request whose answer is remembered, with a valid key); return None to take the full route.
        It counts nothing it does not answer."""
        snap = self.source.current
        if snap is None:
            return None
        remembered = snap.remembered((scope["path"], scope["query_string"]))
        if not isinstance(remembered, Resolved):
            return None
        request = Request(scope)
        key = presented_key(request)
        if not key:
            return None
        try:
            record = self.quota.keys.authenticate(key)
        except (AuthFailure, StoreUnavailable):
            return None
        scope["state"]["key_id"] = record.key_id

        async def resolve(_: object) -> Resolved:
            return remembered

        allowance = key_allowance(record, self.problems)
        return await answer(request, resolve, allowance, source=self.source, quota=self.quota)


def _is_preflight(scope: Scope) -> bool:
    names = {name for name, _ in scope["headers"]}
    return b"origin" in names and b"access-control-request-method" in names


async def _preflight(send: Send) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 204,
            "headers": [
                (b"access-control-allow-methods", b"GET, HEAD"),
                (
                    b"access-control-allow-headers",
                    b"Authorization, If-None-Match, If-Match, Range, If-Range",
                ),
                (b"access-control-max-age", b"86400"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b""})
