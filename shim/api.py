"""The API's side of request handling: reading and authenticating a key, the API's voice of
the answer policy (problem+json refusals and errors) and the two ways an API route is served.

A keyed route (:func:`keyed`) authenticates the key (401 / 503, against the client IP's
anonymous allowance), then answers by the one answer policy
(:func:`bangscore.shim.answer.answer`) against the key's allowance, reading the request once
by its route (:class:`KeyedRoute`). Requests without a valid
key (the root listing, documents, 401s, unknown paths) count against the client IP's
anonymous allowance (:func:`anonymous`). Both read their services from ``app.state``
(:func:`bangscore.shim.app.create_app` puts them there).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Generic, TypeVar

from starlette.requests import Request
from starlette.responses import Response

from bangscore.errors import (
    AuthFailure,
    BadRequest,
    CorruptObject,
    ObjectNotFound,
    ObjectStorageError,
    ParamError,
    ProblemRefusal,
    StoreUnavailable,
)
from bangscore.shim.answer import Allowance, Resolution, Resolved, Resolver, Stored, answer, read
from bangscore.shim.clients import client_subject
from bangscore.shim.params import parse_plain_query
from bangscore.shim.problems import PROBLEM_TYPE, problem_body
from bangscore.shim.quota import Quota, Window, rate_headers
from bangscore.shim.source import LoadedSnapshot, SnapshotSource
from bangscore.stores.keystore import Hit, KeyRecord

log = logging.getLogger("bangscore.shim")
EXPOSED = (
    "X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Used, X-RateLimit-Reset, "
    "RateLimit, RateLimit-Policy, Retry-After, ETag, Link, X-Snapshot, X-Request-Id, "
    "Content-Range"  # a web page resuming an export download reads it (issue 55)
)
EDGE_HEADERS = [
    (b"access-control-allow-origin", b"*"),
    (b"access-control-expose-headers", EXPOSED.encode()),
    (b"x-content-type-options", b"nosniff"),
]
Rate = list[tuple[str, str]]
Q = TypeVar("Q")


class ProblemVoice:
    """The API's voice: builds problem+json answers (refusals, resolver errors, 503s) on the
    site's URL, naming what failed from the snapshot source's state."""

    def __init__(self, source: SnapshotSource, *, site_url: str, retry_after: int) -> None:
        self.source = source
        self.site_url = site_url
        self.retry_after = str(retry_after)  # seconds, the Retry-After of every 503

    def problem(
        self,
        request: Request,
        code: str,
        detail: str,
        rate: Rate,
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

    def refused(self, request: Request, hit: Hit, window: Window, rate: Rate) -> Response:
        """Return the problem+json 429 of a key or client IP past its daily limit."""
        return self.problem(
            request,
            "quota_exceeded",
            f"The daily limit of {hit.limit} requests is used up; it resets at 00:00 UTC.",
            rate,
            headers={"Retry-After": str(window.seconds_to_reset)},
            extra={"violated-policies": ["daily"]},
        )

    def failed(self, request: Request, error: BadRequest | ProblemRefusal, rate: Rate) -> Response:
        """Return a resolver's 400 ``invalid_parameter``, 403 or 404 as problem+json."""
        if isinstance(error, BadRequest):
            return self.problem(request, "invalid_parameter", str(error), rate, errors=error.errors)
        return self.problem(request, error.code, str(error), rate, extra=error.extra)

    def unavailable(
        self,
        request: Request,
        rate: Rate,
        fault: ObjectStorageError | StoreUnavailable | None = None,
    ) -> Response:
        """Return the 503 problem naming what failed: the snapshot (unpublished or unloadable),
        one stored object (missing or corrupt), the object store, or the key store."""
        request_id = request.state.request_id
        if isinstance(fault, StoreUnavailable):
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


async def charge_anonymous(request: Request, quota: Quota) -> tuple[Hit, Window, Rate]:
    """Given a request without a valid key and the quota, count it against its client IP's
    anonymous allowance (an IPv6 client's by its /64); return (hit, window, rate headers)."""
    hit, window = await quota.admit(client_subject("ip", request), quota.anonymous_limit)
    return hit, window, rate_headers(hit.limit, hit.used, window)


def presented_key(request: Request) -> str | None:
    """Given a request, return the key it presents: the Bearer token of ``Authorization``
    (``""`` for another scheme or an empty token), else the ``api_key`` query parameter,
    else None. The one reading of a key, for the routes and the edge's fast path."""
    auth = request.headers.get("authorization")
    if auth is not None:
        scheme, _, value = auth.partition(" ")
        return value.strip() if scheme.lower() == "bearer" else ""
    return request.query_params.get("api_key")


def key_allowance(record: KeyRecord, voice: ProblemVoice, *, counted: bool = True) -> Allowance:
    """Given an active key and the API's voice, return the key's allowance
    (``counted=False``: a free route)."""
    return Allowance(record.subject, record.daily_limit, voice, counted)


async def anonymous(request: Request, resolve: Resolver) -> Response:
    """Given a no-key request and its resolver, return the answer policy's response against
    the client IP's anonymous allowance."""
    state = request.app.state
    quota: Quota = state.quota
    allowance = Allowance(client_subject("ip", request), quota.anonymous_limit, state.problems)
    return await answer(request, resolve, allowance, source=state.source, quota=quota)


@dataclass(frozen=True, slots=True)
class KeyedRoute(Generic[Q]):
    """How a keyed route answers: how it reads its request (``read``: the path and query
    parsed, or BadRequest) and how it resolves an answer from what was read (``resolve``:
    given the request, the authenticated key, the snapshot and the reading). With
    ``remember`` the answer is the same for every key and kept in the snapshot's memo
    (:class:`bangscore.shim.memo.Memo`), so a repeat neither reads nor resolves.
    ``counted=False``: not counted, as ``/api/v1/usage``. ``missing``: the 401's detail when
    no key was sent (what this route needs)."""

    read: Callable[[Request], Q]
    resolve: Callable[[Request, KeyRecord, LoadedSnapshot, Q], Awaitable[Resolved | Stored]]
    remember: bool = False
    counted: bool = True
    missing: str = "Send an API key."


def no_query(request: Request) -> None:
    """Given a request of a route taking only ``api_key``, return None; BadRequest naming any
    other parameter."""
    parse_plain_query(request.query_params.multi_items())


async def keyed(request: Request, route: KeyedRoute[Any]) -> Response:
    """Given a keyed request and its route, return the answer.

    In order: authenticate the key (a 401 or 503 counts against the client IP's anonymous
    allowance), then answer by the one answer policy (:func:`bangscore.shim.answer.answer`)
    against the key's allowance: the request read once by the route, and resolved from what
    was read, through the snapshot's memo for a remembered route (:func:`remembered`).
    """
    state = request.app.state
    voice: ProblemVoice = state.problems
    key = presented_key(request)
    if not key:
        return await _unauthorized(request, "missing_key", route.missing, sent=False)
    try:
        record = state.quota.keys.authenticate(key)
    except AuthFailure as exc:
        return await _unauthorized(request, exc.code, exc.detail, sent=True)
    except StoreUnavailable as exc:
        return voice.unavailable(request, [], exc)
    request.scope.setdefault("state", {})["key_id"] = record.key_id  # for the access log

    # A partial, not a closure: the answer policy calls the resolver itself, no frame between.
    resolve: Resolver = partial(remembered if route.remember else _direct, route, request, record)
    allowance = key_allowance(record, voice, counted=route.counted)
    return await answer(request, resolve, allowance, source=state.source, quota=state.quota)


async def _direct(
    route: KeyedRoute[Any], request: Request, record: KeyRecord, snap: LoadedSnapshot
) -> Resolution:
    """Given a route that keeps no answers, a request, its key and the snapshot, return the
    route's answer to what it reads of the request (BadRequest if it reads nothing valid)."""
    return await route.resolve(request, record, snap, route.read(request))


async def remembered(
    route: KeyedRoute[Any], request: Request, record: KeyRecord, snap: LoadedSnapshot
) -> Resolved:
    """Given a remembered route, a request, its key and the snapshot, return the answer with
    its body read, from the snapshot's memo (or raise the remembered 400).

    A snapshot never changes, so one reading always resolves to the same answer (or the same
    400) whatever the key: the memo keeps answers by (route, reading), so every spelling of a
    query (parameters reordered, ``page=02``, a tag's case) shares one body, and each path and
    query string seen, naming it (or holding its 400's errors only), so a repeat reads
    nothing and the edge's fast path (:mod:`bangscore.shim.edge`) serves it. Raises
    ObjectStorageError if a stored body cannot be read."""

    async def resolve(reading: tuple[KeyedRoute[Any], Any]) -> Resolved:
        found = await route.resolve(request, record, snap, reading[1])
        return await read(request.app.state.source, snap, found)

    spelling = (request.scope["path"], request.scope["query_string"])
    return await snap.memo.answer(  # type: ignore[no-any-return]
        spelling, lambda: (route, route.read(request)), resolve
    )


async def _unauthorized(request: Request, code: str, detail: str, *, sent: bool) -> Response:
    voice: ProblemVoice = request.app.state.problems
    hit, window, rate = await charge_anonymous(request, request.app.state.quota)
    if not hit.admitted:
        return voice.refused(request, hit, window, rate)
    challenge = 'Bearer realm="bangscore"' + (', error="invalid_token"' if sent else "")
    return voice.problem(request, code, detail, rate, headers={"WWW-Authenticate": challenge})
