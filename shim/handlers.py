"""The API's side of request handling: reading and authenticating a key, the API's voice of
the answer policy (problem+json refusals and errors), resolvers' helpers and Link headers.

A keyed endpoint (:meth:`Shim.keyed`) authenticates the key (401 / 503, against the client
IP's anonymous allowance), then answers by the one answer policy
(:func:`bangscore.shim.answer.answer`) against the key's allowance. Requests without a valid
key (the root listing, documents, 401s, unknown paths) count against the client IP's
anonymous allowance (:meth:`Shim.anonymous`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from bangscore.contract.filters import Filters, list_key
from bangscore.contract.paging import page_rels
from bangscore.shim.answer import (
    JSON_TYPE,
    Allowance,
    NotFound,
    Refusal,
    Resolved,
    Resolver,
    Stored,
    answer,
    ok,
)
from bangscore.shim.keystore import Hit, KeyRecord, KeyStoreUnavailable
from bangscore.shim.problems import PROBLEM_TYPE, BadRequest, ParamError, problem_body
from bangscore.shim.quota import AuthFailure, Quota, Window, rate_headers
from bangscore.shim.source import CorruptObject, LoadedSnapshot, SnapshotSource
from bangscore.storage import ObjectNotFound, ObjectStorageError

log = logging.getLogger("bangscore.shim")
EXPOSED = (
    "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Used, X-RateLimit-Reset, "
    "RateLimit, RateLimit-Policy, Retry-After, ETag, Link, X-Snapshot, X-Request-Id"
)
EDGE_HEADERS = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-expose-headers", EXPOSED.encode()),
    (b"x-content-type-options", b"nosniff"),
]


class Shim:
    """The app's state and handlers: snapshot source, quota, URLs."""

    def __init__(
        self,
        source: SnapshotSource,
        quota: Quota,
        *,
        site_url: str,
        base_url: str,
        retry_after: int,
    ) -> None:
        self.source = source
        self.quota = quota
        self.site_url = site_url
        self.base_url = base_url
        self.retry_after = str(retry_after)  # seconds, the Retry-After of every 503

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
        return ok(snap, resolved, rate, status)

    def refused(
        self, request: Request, hit: Hit, window: Window, rate: list[tuple[str, str]]
    ) -> Response:
        """Return the problem+json 429 of a key or client IP past its daily limit."""
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

    def anonymous_allowance(self, request: Request) -> Allowance:
        """Given a request without a valid key, return its client IP's anonymous allowance."""
        ip = request.client.host if request.client else "unknown"
        return Allowance(f"ip:{ip}", self.quota.anonymous_limit, self)

    def key_allowance(self, record: KeyRecord, *, counted: bool = True) -> Allowance:
        """Given an active key, return its allowance (``counted=False``: a free route)."""
        return Allowance(record.subject, record.daily_limit, self, counted)

    async def anonymous(self, request: Request, resolve: Resolver) -> Response:
        """Serve a no-key resource by the answer policy, against the client IP's allowance."""
        return await self.answer(request, resolve, self.anonymous_allowance(request))

    async def answer(self, request: Request, resolve: Resolver, allowance: Allowance) -> Response:
        """Given a request, a resolver and an allowance, return the answer policy's response
        (:func:`bangscore.shim.answer.answer`)."""
        return await answer(request, resolve, allowance, source=self.source, quota=self.quota)

    def failed(
        self, request: Request, error: BadRequest | Refusal, rate: list[tuple[str, str]]
    ) -> Response:
        """Return a resolver's 400 ``invalid_parameter``, 403 or 404 as problem+json."""
        if isinstance(error, BadRequest):
            return self.problem(request, "invalid_parameter", str(error), rate, errors=error.errors)
        return self.problem(request, error.code, str(error), rate, extra=error.extra)

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
            request, "unavailable", detail, rate, headers={"Retry-After": self.retry_after}
        )

    def presented_key(self, request: Request) -> str | None:
        """Given a request, return the key it presents: the Bearer token of ``Authorization``
        (``""`` for another scheme or an empty token), else the ``api_key`` query parameter,
        else None. The one reading of a key, for the routes and the edge's fast path."""
        auth = request.headers.get("authorization")
        if auth is not None:
            scheme, _, value = auth.partition(" ")
            return value.strip() if scheme.lower() == "bearer" else ""
        return request.query_params.get("api_key")

    async def keyed(
        self,
        request: Request,
        resolve: Callable[[LoadedSnapshot, KeyRecord], Awaitable[Resolved | Stored]],
        *,
        counted: bool = True,
    ) -> Response:
        """Serve a keyed resource: authenticate the key (401 / 503 against the client IP's
        anonymous allowance), then the answer policy against the key's allowance."""
        key = self.presented_key(request)
        if not key:
            return self._unauthorized(request, "missing_key", "Send an API key.", sent=False)
        try:
            record = self.quota.authenticate(key)
        except AuthFailure as exc:
            return self._unauthorized(request, exc.code, exc.detail, sent=True)
        except KeyStoreUnavailable as exc:
            return self.unavailable(request, [], exc)

        async def resolved(snap: LoadedSnapshot) -> Resolved | Stored:
            return await resolve(snap, record)

        return await self.answer(request, resolved, self.key_allowance(record, counted=counted))

    def _unauthorized(self, request: Request, code: str, detail: str, *, sent: bool) -> Response:
        hit, window, rate = self.charge_anonymous(request)
        if not hit.admitted:
            return self.refused(request, hit, window, rate)
        challenge = 'Bearer realm="bangscore"' + (', error="invalid_token"' if sent else "")
        return self.problem(request, code, detail, rate, headers={"WWW-Authenticate": challenge})

    # -- resolvers ---------------------------------------------------------------------------

    def memo(
        self,
        request: Request,
        resolve: Callable[[LoadedSnapshot, KeyRecord], Awaitable[Resolved | Stored]],
    ) -> Callable[[LoadedSnapshot, KeyRecord], Awaitable[Resolved]]:
        """Given a key-independent resolver, return it cached per snapshot, path and query.

        A snapshot never changes, so the same path and query string always resolve to the same
        answer (or the same 400): repeats skip parsing, lookups and the Link header.
        """

        async def cached(snap: LoadedSnapshot, record: KeyRecord) -> Resolved:
            key = (request.scope["path"], request.scope["query_string"])
            answer = snap.answers.find(key)
            if answer is None:
                try:
                    found = await resolve(snap, record)
                    answer = await self.read(snap, found)
                except BadRequest as exc:
                    answer = exc
                snap.remember(key, answer)
            if isinstance(answer, BadRequest):
                raise answer
            return answer

        return cached

    def stored(self, snap: LoadedSnapshot, key: str, content_type: str) -> Stored:
        """Given a snapshot key, return it as a Stored answer (its body not read yet); raise
        NotFound if the snapshot has no such object."""
        etag = snap.etag(key)
        if etag is None:
            raise NotFound("not_found", "No resource at this path.")
        return Stored(key, etag, content_type)

    async def read(self, snap: LoadedSnapshot, found: Resolved | Stored) -> Resolved:
        """Given an answer, return it with its body read (ObjectStorageError if it cannot be)."""
        if isinstance(found, Resolved):
            return found
        return Resolved(await self.source.body(snap, found.key), found.etag, found.content_type)

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
            stored = await self.read(snap, self.stored(snap, key, JSON_TYPE))
            return stored.body, stored.etag
        return snap.index.page(filters, page)
