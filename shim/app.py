"""The Starlette app: routes of CONTRACT.md over the snapshot, with keys, quota and headers.

Request flow for a keyed endpoint: authenticate the key (401 / 503), resolve the response
from the snapshot (400 / 404 / 503), answer 304 without counting if ``If-None-Match``
matches, else count the request (429 past the limit) and answer. Requests without a valid
key (the root listing, documents, pages, 401s, unknown paths) count against the client IP's
anonymous allowance. :class:`EdgeMiddleware` adds the request id, CORS and security headers
to every response and turns any unexpected exception into a 500 problem without a trace.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlencode

import orjson
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from build.filters import (
    DOCS_KEY,
    HOME_KEY,
    OPENAPI_KEY,
    ROOT_KEY,
    Filters,
    detail_key,
    game_page_key,
    list_key,
)
from build.listing import page_count
from build.publish import SnapshotError
from build.storage import StorageError
from build.wire import etag_for
from shim import params
from shim.problems import PROBLEM_TYPE, BadRequest, ParamError, problem_body
from shim.quota import AuthFailure, Quota, Window, rate_headers
from shim.snapshot import CorruptObject, LoadedSnapshot, SnapshotSource
from shim.store import Hit, KeyRecord, StoreUnavailable

if TYPE_CHECKING:
    from shim.export import ExportService

log = logging.getLogger("bangscore.shim")
JSON_TYPE = "application/json"
HTML = "text/html; charset=utf-8"
CACHE_OK = "private, max-age=300"
EXPOSED = (
    "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Used, X-RateLimit-Reset, "
    "RateLimit, RateLimit-Policy, Retry-After, ETag, Link, X-Snapshot, X-Request-Id"
)
EDGE_HEADERS = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-expose-headers", EXPOSED.encode()),
    (b"x-content-type-options", b"nosniff"),
]
RETRY_UNAVAILABLE = "5"


@dataclass(frozen=True)
class Resolved:
    """A resolved 200 answer: body, content type, ETag, and extra headers (Link)."""

    body: bytes
    etag: str
    content_type: str = JSON_TYPE
    headers: tuple[tuple[str, str], ...] = ()


class NotFound(Exception):
    """Raised by a resolver for an unknown resource; ``code`` is the problem code."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code


def _etag_matches(header: str | None, etag: str) -> bool:
    if not header:
        return False
    if header.strip() == "*":
        return True
    # If-None-Match uses weak comparison (RFC 9110 13.1.2): ignore a W/ prefix.
    return any(tag.strip().removeprefix("W/") == etag for tag in header.split(","))


class Shim:
    """The app's state and handlers: snapshot source, quota, URLs."""

    def __init__(
        self, source: SnapshotSource, quota: Quota, *, site_url: str, base_url: str
    ) -> None:
        self.source = source
        self.quota = quota
        self.site_url = site_url
        self.base_url = base_url

    # -- responses ---------------------------------------------------------------------------

    def problem(
        self,
        request: Request,
        code: str,
        detail: str,
        rate: list[tuple[str, str]],
        *,
        errors: list[ParamError] | None = None,
        headers: dict[str, str] | None = None,
        extra: dict[str, object] | None = None,
    ) -> Response:
        """Given a problem code and detail, return the problem+json response (no-store)."""
        status, body = problem_body(
            code,
            detail,
            site_url=self.site_url,
            request_id=request.state.request_id,
            errors=errors or (),
            extra=extra,
        )
        out = dict(rate)
        out["Cache-Control"] = "no-store"
        if headers:
            out.update(headers)
        return Response(body, status, headers=out, media_type=PROBLEM_TYPE)

    def ok(
        self, snap: LoadedSnapshot, resolved: Resolved, rate: list[tuple[str, str]], status: int
    ) -> Response:
        """Given a resolved answer, return it as 200 (or 304 without body) with cache headers."""
        headers = dict(rate)
        headers.update(resolved.headers)
        headers["Cache-Control"] = CACHE_OK
        headers["ETag"] = resolved.etag
        headers["X-Snapshot"] = snap.id
        if status == 304:
            return Response(None, 304, headers=headers)
        return Response(resolved.body, 200, headers=headers, media_type=resolved.content_type)

    def _over_limit(
        self, request: Request, hit: Hit, window: Window, rate: list[tuple[str, str]]
    ) -> Response:
        return self.problem(
            request,
            "quota_exceeded",
            f"The daily limit of {hit.limit} requests is used up; it resets at 00:00 UTC.",
            rate,
            headers={"Retry-After": str(window.seconds_to_reset)},
            extra={"violated-policies": ["daily"]},
        )

    # -- counting ----------------------------------------------------------------------------

    def charge_anonymous(self, request: Request) -> tuple[Hit, Window, list[tuple[str, str]]]:
        """Given a request without a valid key, count it against its client IP's allowance."""
        ip = request.client.host if request.client else "unknown"
        hit, window = self.quota.charge(f"ip:{ip}", self.quota.anonymous_limit)
        return hit, window, rate_headers(hit.limit, hit.used, window)

    async def anonymous(
        self, request: Request, resolve: Callable[[LoadedSnapshot], Awaitable[Resolved | Response]]
    ) -> Response:
        """Serve a no-key resource: resolve, 304 if the ETag matches (free), else count."""
        snap = self.source.current
        if snap is None:
            return self.unavailable(request, [])
        try:
            resolved = await resolve(snap)
        except NotFound as exc:
            hit, window, rate = self.charge_anonymous(request)
            return self.problem(request, exc.code, str(exc), rate)
        except StorageError as exc:
            return self.unavailable(request, [], exc)
        if isinstance(resolved, Response):
            return resolved
        ip = request.client.host if request.client else "unknown"
        if _etag_matches(request.headers.get("if-none-match"), resolved.etag):
            hit, window = self.quota.peek(f"ip:{ip}", self.quota.anonymous_limit)
            return self.ok(snap, resolved, rate_headers(hit.limit, hit.used, window), 304)
        hit, window, rate = self.charge_anonymous(request)
        if not hit.admitted:
            return self._over_limit(request, hit, window, rate)
        return self.ok(snap, resolved, rate, 200)

    def unavailable(
        self, request: Request, rate: list[tuple[str, str]], fault: StorageError | None = None
    ) -> Response:
        """Return the 503 problem for an unreachable, corrupt or unpublished snapshot store."""
        if self.source.current is None and self.source.load_error:
            detail = "The published snapshot could not be loaded; retry shortly."
        elif self.source.current is None:
            detail = "No snapshot is published yet; run `bangscore build`."
        elif isinstance(fault, CorruptObject):
            log.error("request %s: %s", request.state.request_id, fault)
            detail = "A stored object failed its integrity check; retry shortly."
        else:
            detail = "The object store is unreachable; retry shortly."
        return self.problem(
            request, "unavailable", detail, rate, headers={"Retry-After": RETRY_UNAVAILABLE}
        )

    async def keyed(
        self,
        request: Request,
        resolve: Callable[[LoadedSnapshot, KeyRecord], Awaitable[Resolved]],
        *,
        counted: bool = True,
    ) -> Response:
        """Serve a keyed resource: authenticate, resolve, 304 free, else count (429 past it)."""
        auth = request.headers.get("authorization")
        key = None
        if auth is not None:
            scheme, _, value = auth.partition(" ")
            key = value.strip() if scheme.lower() == "bearer" else ""
        else:
            key = request.query_params.get("api_key")
        if not key:
            return self._unauthorized(request, "missing_key", "Send an API key.", sent=False)
        try:
            record = self.quota.authenticate(key)
        except AuthFailure as exc:
            return self._unauthorized(request, exc.code, exc.detail, sent=True)
        except StoreUnavailable:
            return self.problem(
                request,
                "unavailable",
                "The key store is unreachable; retry shortly.",
                [],
                headers={"Retry-After": RETRY_UNAVAILABLE},
            )
        subject, limit = record.subject, record.daily_limit
        snap = self.source.current
        try:
            if snap is None:
                raise StorageError("no snapshot")
            resolved = await resolve(snap, record)
        except (BadRequest, NotFound, StorageError) as exc:
            if counted:
                hit, window = self.quota.charge(subject, limit)
            else:
                hit, window = self.quota.peek(subject, limit)
            rate = rate_headers(hit.limit, hit.used, window)
            if counted and not hit.admitted:
                return self._over_limit(request, hit, window, rate)
            if isinstance(exc, BadRequest):
                return self.problem(request, "invalid_parameter", str(exc), rate, errors=exc.errors)
            if isinstance(exc, NotFound):
                return self.problem(request, exc.code, str(exc), rate)
            return self.unavailable(request, rate, exc)
        if not counted:
            hit, window = self.quota.peek(subject, limit)
            return self.ok(snap, resolved, rate_headers(hit.limit, hit.used, window), 200)
        if _etag_matches(request.headers.get("if-none-match"), resolved.etag):
            hit, window = self.quota.peek(subject, limit)
            return self.ok(snap, resolved, rate_headers(hit.limit, hit.used, window), 304)
        hit, window = self.quota.charge(subject, limit)
        rate = rate_headers(hit.limit, hit.used, window)
        if not hit.admitted:
            return self._over_limit(request, hit, window, rate)
        return self.ok(snap, resolved, rate, 200)

    def _unauthorized(self, request: Request, code: str, detail: str, *, sent: bool) -> Response:
        hit, window, rate = self.charge_anonymous(request)
        if not hit.admitted:
            return self._over_limit(request, hit, window, rate)
        challenge = 'Bearer realm="bangscore"' + (', error="invalid_token"' if sent else "")
        return self.problem(request, code, detail, rate, headers={"WWW-Authenticate": challenge})

    # -- resolvers ---------------------------------------------------------------------------

    def memo(
        self, request: Request, resolve: Callable[[LoadedSnapshot, KeyRecord], Awaitable[Resolved]]
    ) -> Callable[[LoadedSnapshot, KeyRecord], Awaitable[Resolved]]:
        """Given a key-independent resolver, return it cached per snapshot, path and query.

        A snapshot never changes, so the same path and query string always resolve to the same
        answer (or the same 400): repeats skip parsing, lookups and the Link header.
        """

        async def cached(snap: LoadedSnapshot, record: KeyRecord) -> Resolved:
            key = (request.scope["path"], request.scope["query_string"])
            answer = snap.answers.get(key)
            if answer is None:
                try:
                    answer = await resolve(snap, record)
                except BadRequest as exc:
                    answer = exc
                snap.remember(key, answer)
            if isinstance(answer, BadRequest):
                raise answer
            return answer

        return cached

    async def stored(self, snap: LoadedSnapshot, key: str, content_type: str) -> Resolved:
        """Given a snapshot key, return its stored body as a Resolved answer."""
        etag = snap.etag(key)
        if etag is None:
            raise NotFound("not_found", "No resource at this path.")
        return Resolved(await self.source.body(snap, key), etag, content_type)

    def links(self, path: str, query: dict[str, str], page: int, pages: int) -> str:
        """Given a path, canonical query and paging, return the RFC 8288 Link header value."""
        rels: list[tuple[str, int]] = []
        if pages >= 1:
            rels.append(("first", 1))
            if page > 1:
                rels.append(("prev", min(page - 1, pages)))
            if page < pages:
                rels.append(("next", page + 1))
            rels.append(("last", pages))
        return ", ".join(
            f'<{self.base_url}{path}?{urlencode({**query, "page": str(n)})}>; rel="{rel}"'
            for rel, n in rels
        )


def _canonical(filters: Filters) -> dict[str, str]:
    query: dict[str, str] = {}
    if filters.genres:
        query["genre"] = ",".join(sorted(filters.genres))
    if filters.tags:
        query["tag"] = ",".join(sorted(filters.tags))
    if filters.year_from is not None:
        query["year_from"] = str(filters.year_from)
    if filters.year_to is not None:
        query["year_to"] = str(filters.year_to)
    if filters.on_sale:
        query["on_sale"] = "true"
    return query


def _total(body: bytes) -> int:
    # The envelope starts {"page":N,"pages":N,"total":N, ...: read total without parsing games.
    head = body[: body.index(b',"games"')]
    return int(head.rsplit(b":", 1)[1])


def build_routes(shim: Shim) -> list[Route]:
    """Given the shim, return the route table of the app."""

    async def games(request: Request) -> Response:
        async def resolve(snap: LoadedSnapshot, _: KeyRecord) -> Resolved:
            query = params.parse_list_query(request.query_params.multi_items())
            combo = query.filters.combo_key
            key = list_key(combo, query.page) if combo else None
            if key is not None and snap.entry(key) is not None:
                stored = await shim.stored(snap, key, JSON_TYPE)
                body, etag = stored.body, stored.etag
            else:
                body, etag = snap.index.page(query.filters, query.page)
            link = shim.links(
                "/api/v1/games", _canonical(query.filters), query.page, page_count(_total(body))
            )
            return Resolved(body, etag, headers=(("Link", link),) if link else ())

        return await shim.keyed(request, shim.memo(request, resolve))

    async def game(request: Request) -> Response:
        async def resolve(snap: LoadedSnapshot, _: KeyRecord) -> Resolved:
            appid = params.parse_appid(request.path_params["appid"])
            params.parse_plain_query(request.query_params.multi_items())
            if snap.entry(detail_key(appid)) is None:
                raise NotFound("game_not_found", f"No rated game has appid {appid}.")
            return await shim.stored(snap, detail_key(appid), JSON_TYPE)

        return await shim.keyed(request, shim.memo(request, resolve))

    async def search(request: Request) -> Response:
        async def resolve(snap: LoadedSnapshot, _: KeyRecord) -> Resolved:
            query = params.parse_search_query(request.query_params.multi_items())
            body, etag = snap.search_page(query.q, query.page)
            link = shim.links(
                "/api/v1/search", {"q": query.q}, query.page, page_count(_total(body))
            )
            return Resolved(body, etag, headers=(("Link", link),) if link else ())

        return await shim.keyed(request, shim.memo(request, resolve))

    async def usage(request: Request) -> Response:
        async def resolve(snap: LoadedSnapshot, record: KeyRecord) -> Resolved:
            params.parse_plain_query(request.query_params.multi_items())
            hit, window = shim.quota.peek(record.subject, record.daily_limit)
            days = [window.day - dt.timedelta(days=n) for n in range(29, -1, -1)]
            try:
                counts = shim.quota.store.history(record.subject, days)
            except StoreUnavailable as exc:
                raise StorageError("key store unreachable") from exc
            body = orjson.dumps(
                {
                    "key_id": record.key_id,
                    "plan": record.plan,
                    "limit": record.daily_limit,
                    "used": hit.used,
                    "remaining": hit.remaining,
                    "reset_at": dt.datetime.fromtimestamp(window.reset_at, dt.UTC).isoformat(),
                    "days": [{"date": d.isoformat(), "count": counts[d]} for d in days],
                }
            )
            return Resolved(body, etag_for(body))

        response = await shim.keyed(request, resolve, counted=False)
        if response.status_code == 200:
            response.headers["Cache-Control"] = "no-store"  # live counts, not a snapshot
        return response

    def document(key: str, content_type: str) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            async def resolve(snap: LoadedSnapshot) -> Resolved:
                return await shim.stored(snap, key, content_type)

            return await shim.anonymous(request, resolve)

        return endpoint

    async def game_page(request: Request) -> Response:
        async def resolve(snap: LoadedSnapshot) -> Resolved | Response:
            raw = request.path_params["appid"]
            pos = snap.index.position.get(int(raw)) if raw.isdigit() and len(raw) < 13 else None
            if pos is None:
                raise NotFound("game_not_found", f"No rated game has appid {raw}.")
            canonical = snap.index.urls[pos]
            if not canonical.endswith(request.url.path):
                _, _, rate = shim.charge_anonymous(request)
                return RedirectResponse(canonical, 301, headers=dict(rate))
            return await shim.stored(snap, game_page_key(int(raw)), HTML)

        return await shim.anonymous(request, resolve)

    async def metrics(request: Request) -> Response:
        m = shim.quota.metrics
        lines = [
            f"bangscore_store_errors_total {m.store_errors}",
            f"bangscore_fail_open_admits_total {m.fail_open_admits}",
            f"bangscore_key_cache_hits_total {m.key_cache_hits}",
            f"bangscore_key_lookups_total {m.key_lookups}",
            f"bangscore_snapshot_switches_total {shim.source.switches}",
            f"bangscore_body_cache_bytes {shim.source.cache.size}",
        ]
        lines += [f"bangscore_quota_{name}_total {n}" for name, n in sorted(m.extra.items())]
        stats = shim.quota.store.stats()
        lines += [f"bangscore_store_{name}_total {n}" for name, n in sorted(stats.items())]
        return Response(
            "\n".join(lines) + "\n",
            headers={"Cache-Control": "no-store"},
            media_type="text/plain; version=0.0.4",
        )

    return [
        Route("/api/v1", document(ROOT_KEY, JSON_TYPE)),
        Route("/api/v1/", document(ROOT_KEY, JSON_TYPE)),
        Route("/api/v1/openapi.json", document(OPENAPI_KEY, JSON_TYPE)),
        Route("/api/v1/games", games),
        Route("/api/v1/games/{appid}", game),
        Route("/api/v1/search", search),
        Route("/api/v1/usage", usage),
        Route("/", document(HOME_KEY, HTML)),
        Route("/docs", document(DOCS_KEY, HTML)),
        Route("/docs/errors", document(DOCS_KEY, HTML)),
        Route("/game/{appid}", game_page),
        Route("/game/{appid}/{slug}", game_page),
        Route("/metrics", metrics),
    ]


class EdgeMiddleware:
    """Pure ASGI middleware: request id, CORS and nosniff on every response; 500 on faults."""

    def __init__(self, app: ASGIApp, shim: Shim) -> None:
        self.app = app
        self.shim = shim

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = secrets.token_hex(8)
        scope.setdefault("state", {})["request_id"] = request_id
        extra = [*EDGE_HEADERS, (b"x-request-id", request_id.encode())]
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        if scope["method"] == "OPTIONS" and _is_preflight(scope):
            await _preflight(send_with_headers)
            return
        try:
            await self.app(scope, receive, send_with_headers)
        except Exception:
            log.exception("unhandled error in request %s", request_id)
            if started:
                raise
            status, body = problem_body(
                "internal_error",
                f"An internal error occurred; quote request id {request_id}.",
                site_url=self.shim.site_url,
                request_id=request_id,
            )
            response = Response(
                body, status, headers={"Cache-Control": "no-store"}, media_type=PROBLEM_TYPE
            )
            await response(scope, receive, send_with_headers)


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
                (b"access-control-allow-headers", b"Authorization, If-None-Match"),
                (b"access-control-max-age", b"86400"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": b""})


def create_app(
    source: SnapshotSource,
    quota: Quota,
    *,
    site_url: str,
    base_url: str,
    follow: bool = True,
    session_secret: str | None = None,
    export: ExportService | None = None,
) -> Starlette:
    """Given a snapshot source and a quota, return the ASGI app.

    The current snapshot is loaded at start-up if one is published; with ``follow`` a
    background task re-reads the pointer every ``source.poll_seconds``. With a
    ``session_secret`` the account website (:mod:`shim.accounts`) is served under /account.
    The key store is closed (buffered counts flushed) at shutdown. ``export`` serves the
    Bulk export (:mod:`shim.export`); without it ``/api/v1/export`` answers 403 or 404.
    """
    shim = Shim(source, quota, site_url=site_url, base_url=base_url)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        hit, window, rate = shim.charge_anonymous(request)
        if not hit.admitted:
            return shim._over_limit(request, hit, window, rate)
        if exc.status_code == 405:
            return shim.problem(
                request,
                "method_not_allowed",
                f"{request.method} is not allowed; use GET.",
                rate,
                headers={"Allow": "GET, HEAD"},
            )
        return shim.problem(request, "not_found", f"No resource at {request.url.path}.", rate)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            source.refresh()
        except (SnapshotError, StorageError, ValueError) as exc:
            log.error("no snapshot loaded at start-up: %s", exc)
        task = None
        if follow:
            task = asyncio.create_task(source.follow())
        yield
        if task is not None:
            task.cancel()
        quota.store.close()

    # -- account website (issue 5): its own routes, each with its session middleware --------
    routes: list[BaseRoute] = [*build_routes(shim)]
    if session_secret is not None:
        from shim.accounts import AccountSite, account_routes

        site = AccountSite(quota.store, site_url=site_url)
        https = site_url.startswith("https://")
        routes += account_routes(site, session_secret=session_secret, https_only=https)

    # -- Bulk export (issue 4): GET /api/v1/export and signed local download links -----------
    from shim.export import export_routes  # imported here: shim.export builds on this module

    routes += export_routes(shim, export)

    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: http_error},
        lifespan=lifespan,
    )
    app.add_middleware(EdgeMiddleware, shim=shim)
    app.state.shim = shim
    return app
