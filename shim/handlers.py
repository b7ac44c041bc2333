"""Request handling over the snapshot: keys, quota, conditional requests and problems.

Flow for a keyed endpoint (:meth:`Shim.keyed`): authenticate the key (401 / 503), resolve the
answer from the snapshot (400 / 404 / 503), answer 304 without counting if ``If-None-Match``
matches, else count the request (429 past the limit) and answer. Requests without a valid
key (the root listing, documents, pages, 401s, unknown paths) count against the client IP's
anonymous allowance (:meth:`Shim.anonymous`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cached_property
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from bangscore.contract.filters import Filters, list_key
from bangscore.contract.paging import page_rels
from bangscore.shim.keystore import Hit, KeyRecord, KeyStoreUnavailable
from bangscore.shim.problems import PROBLEM_TYPE, BadRequest, ParamError, problem_body
from bangscore.shim.quota import AuthFailure, Quota, Window, rate_headers
from bangscore.shim.source import CorruptObject, LoadedSnapshot, SnapshotSource
from bangscore.storage import ObjectNotFound, ObjectStorageError

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

    @cached_property
    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        """Return the answer's own headers as the server sends them (Link, caching, ETag)."""
        own = [(name.lower().encode(), value.encode()) for name, value in self.headers]
        return [*own, (b"cache-control", CACHE_OK.encode()), (b"etag", self.etag.encode())]


class NotFound(Exception):
    """Raised by a resolver for an unknown resource; ``code`` is the problem code and
    ``extra`` any members the problem document carries besides the standard ones."""

    def __init__(self, code: str, detail: str, extra: dict[str, object] | None = None) -> None:
        super().__init__(detail)
        self.code = code
        self.extra = extra


def etag_matches(header: str | None, etag: str) -> bool:
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

    def over_limit(
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
            return self.problem(request, exc.code, str(exc), rate, extra=exc.extra)
        except ObjectStorageError as exc:
            return self.unavailable(request, [], exc)
        if isinstance(resolved, Response):
            return resolved
        ip = request.client.host if request.client else "unknown"
        if etag_matches(request.headers.get("if-none-match"), resolved.etag):
            hit, window = self.quota.peek(f"ip:{ip}", self.quota.anonymous_limit)
            return self.ok(snap, resolved, rate_headers(hit.limit, hit.used, window), 304)
        hit, window, rate = self.charge_anonymous(request)
        if not hit.admitted:
            return self.over_limit(request, hit, window, rate)
        return self.ok(snap, resolved, rate, 200)

    def unavailable(
        self,
        request: Request,
        rate: list[tuple[str, str]],
        fault: ObjectStorageError | KeyStoreUnavailable | None = None,
    ) -> Response:
        """Return the 503 problem naming what failed: the snapshot (unpublished or unloadable),
        one stored object (missing or corrupt), the object store, or the key store."""
        request_id = request.state.request_id
        if isinstance(fault, KeyStoreUnavailable):
            log.error("request %s: key store: %s", request_id, fault)
            detail = "The key store is unreachable; retry shortly."
        elif self.source.current is None and self.source.load_error:
            detail = "The published snapshot could not be loaded; retry shortly."
        elif self.source.current is None:
            detail = "No snapshot is published yet; run `bangscore build`."
        elif isinstance(fault, CorruptObject):
            log.error("request %s: %s", request_id, fault)
            detail = "A stored object failed its integrity check; retry shortly."
        elif isinstance(fault, ObjectNotFound):
            log.error("request %s: object missing from the object store: %s", request_id, fault)
            detail = "A stored object of this snapshot is missing from the object store."
        else:
            log.error("request %s: object store: %s", request_id, fault)
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
        except KeyStoreUnavailable as exc:
            return self.unavailable(request, [], exc)
        subject, limit = record.subject, record.daily_limit
        snap = self.source.current
        try:
            if snap is None:
                raise ObjectStorageError("no snapshot")
            resolved = await resolve(snap, record)
        except (BadRequest, NotFound, ObjectStorageError, KeyStoreUnavailable) as exc:
            if counted:
                hit, window = self.quota.charge(subject, limit)
            else:
                hit, window = self.quota.peek(subject, limit)
            rate = rate_headers(hit.limit, hit.used, window)
            if counted and not hit.admitted:
                return self.over_limit(request, hit, window, rate)
            if isinstance(exc, BadRequest):
                return self.problem(request, "invalid_parameter", str(exc), rate, errors=exc.errors)
            if isinstance(exc, NotFound):
                return self.problem(request, exc.code, str(exc), rate, extra=exc.extra)
            return self.unavailable(request, rate, exc)
        if not counted:
            hit, window = self.quota.peek(subject, limit)
            return self.ok(snap, resolved, rate_headers(hit.limit, hit.used, window), 200)
        if etag_matches(request.headers.get("if-none-match"), resolved.etag):
            hit, window = self.quota.peek(subject, limit)
            return self.ok(snap, resolved, rate_headers(hit.limit, hit.used, window), 304)
        hit, window = self.quota.charge(subject, limit)
        rate = rate_headers(hit.limit, hit.used, window)
        if not hit.admitted:
            return self.over_limit(request, hit, window, rate)
        return self.ok(snap, resolved, rate, 200)

    def _unauthorized(self, request: Request, code: str, detail: str, *, sent: bool) -> Response:
        hit, window, rate = self.charge_anonymous(request)
        if not hit.admitted:
            return self.over_limit(request, hit, window, rate)
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

    def links(
        self, snap: LoadedSnapshot, path: str, query: dict[str, str], page: int, pages: int
    ) -> str:
        """Given the snapshot, a path, canonical query and paging, return the RFC 8288 Link
        header value, on the base URL the snapshot's bodies were built with (so Link and body
        URLs agree), or this server's for a snapshot that did not record one."""
        base = snap.base_url or self.base_url
        return ", ".join(
            f'<{base}{path}?{urlencode({**query, "page": str(n)})}>; rel="{rel}"'
            for rel, n in page_rels(page, pages)
        )

    async def list_page(
        self, snap: LoadedSnapshot, filters: Filters, page: int
    ) -> tuple[bytes, str]:
        """Given filters and a 1-based page, return (list envelope bytes, strong ETag): the
        precomputed page if the builder wrote one, else composed from the compact index. The
        one path by which the API's list and the website's browse page select games."""
        combo = filters.combo_key
        key = list_key(combo, page) if combo else None
        if key is not None and snap.entry(key) is not None:
            stored = await self.stored(snap, key, JSON_TYPE)
            return stored.body, stored.etag
        return snap.index.page(filters, page)
