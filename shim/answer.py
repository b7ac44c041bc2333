"""The one answer policy (docs/API.md#caching, docs/API.md#plans-and-quota): every request that
counts against an allowance, from the API, the website or the edge's fast path, is answered by
:func:`answer`.

Order, the same for an API key, a client IP's anonymous allowance and a client IP's page
allowance:

1. no snapshot published or loadable: 503, not counted;
2. an allowance this process has already seen used up today: 429 at once, before any work;
3. resolve the answer from the snapshot; an object store or key store fault is a 503, not
   counted (the headers show the count as it stands);
4. ``If-None-Match`` naming the answer's ETag: 304, not counted, since the client proves it
   holds the body (no body is read for it); past the limit it is a 429 like any request.
   ``If-None-Match: *`` proves nothing: it is counted, then answered 304;
5. otherwise read the body, count the request (429 past the limit) and answer: 200, or the
   resolver's 400/404 (counted too).

The refusal and error shapes belong to the allowance's :class:`Voice`: problem+json for the
API, an HTML page for the website.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from starlette.requests import Request
from starlette.responses import Response

from bangscore.errors import Forbidden as Forbidden
from bangscore.errors import NotFound as NotFound
from bangscore.errors import Refusal as Refusal
from bangscore.shim.problems import BadRequest
from bangscore.shim.quota import Quota, Window, rate_headers
from bangscore.shim.source import LoadedSnapshot, SnapshotSource
from bangscore.storage import ObjectStorageError
from bangscore.stores.keystore import Hit, KeyStoreUnavailable

JSON_TYPE = "application/json"
HTML = "text/html; charset=utf-8"
CACHE_OK = "private, max-age=300"
Rate = list[tuple[str, str]]


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


@dataclass(frozen=True)
class Stored:
    """A stored snapshot object named but not read yet: its key, ETag and content type. The
    body is read only when a 200 is sent, so a 304 or a refusal reads nothing."""

    key: str
    etag: str
    content_type: str


Resolution = Resolved | Stored | Response
Resolver = Callable[[LoadedSnapshot], Awaitable[Resolution]]
Fault = ObjectStorageError | KeyStoreUnavailable


class Voice(Protocol):
    """How one kind of allowance words its refusals and errors (problem+json or HTML)."""

    def refused(self, request: Request, hit: Hit, window: Window, rate: Rate) -> Response:
        """Given a request past its daily limit, return the 429 with ``Retry-After``."""
        ...

    def failed(self, request: Request, error: BadRequest | Refusal, rate: Rate) -> Response:
        """Given a resolver's 400 or 404, return its answer."""
        ...

    def unavailable(self, request: Request, rate: Rate, fault: Fault | None) -> Response:
        """Given what failed (None: no snapshot), return the 503 with ``Retry-After``."""
        ...


@dataclass(frozen=True, slots=True)
class Allowance:
    """What a request counts against: a subject (``key:<id>``, ``ip:<addr>``, ``page:<addr>``),
    its daily limit, whether this route counts at all (``/api/v1/usage`` does not), and the
    voice its refusals speak in."""

    subject: str
    limit: int
    voice: Voice
    counted: bool = True


def if_none_match(header: str | None) -> tuple[bool, frozenset[str]]:
    """Given an ``If-None-Match`` value, return (``*`` was sent, the entity tags named).

    Tags are compared weakly (RFC 9110 13.1.2): a ``W/`` prefix is dropped.
    """
    if not header:
        return False, frozenset()
    tags = [tag.strip() for tag in header.split(",")]
    star = "*" in tags
    return star, frozenset(tag.removeprefix("W/") for tag in tags if tag and tag != "*")


def ok(snap: LoadedSnapshot, resolved: Resolved, rate: Rate, status: int) -> Response:
    """Given a resolved answer and its rate headers, return it as a 200, or a 304 without a
    body, with its caching headers; the headers are built raw (the hot path's cost)."""
    headers = [(name.lower().encode(), value.encode()) for name, value in rate]
    headers += resolved.raw_headers
    headers.append((b"x-snapshot", snap.id.encode()))
    response = Response.__new__(Response)
    response.status_code = status
    response.background = None
    if status == 304:
        response.body = b""
    else:
        response.body = resolved.body
        headers.append((b"content-length", str(len(resolved.body)).encode()))
        headers.append((b"content-type", resolved.content_type.encode()))
    response.raw_headers = headers
    return response


def _rate(hit: Hit, window: Window) -> Rate:
    return rate_headers(hit.limit, hit.used, window)


async def answer(
    request: Request,
    resolve: Resolver,
    allowance: Allowance,
    *,
    source: SnapshotSource,
    quota: Quota,
) -> Response:
    """Given a request, a resolver of its answer from the snapshot and the allowance it counts
    against, return the response (the order is in this module's docstring)."""
    voice, subject, limit = allowance.voice, allowance.subject, allowance.limit
    snap = source.current
    if snap is None:
        return voice.unavailable(request, _peek(quota, subject, limit), None)
    refusal = quota.refusal(subject, limit) if allowance.counted else None
    if refusal is not None:
        hit, window = refusal
        return voice.refused(request, hit, window, _rate(hit, window))
    try:
        resolved: Resolution | BadRequest | Refusal = await resolve(snap)
    except (BadRequest, Refusal) as exc:
        resolved = exc
    except (ObjectStorageError, KeyStoreUnavailable) as exc:
        return voice.unavailable(request, _peek(quota, subject, limit), exc)
    star, tags = if_none_match(request.headers.get("if-none-match"))
    matched = isinstance(resolved, Resolved | Stored) and resolved.etag in tags
    if matched or not allowance.counted:
        hit, window = quota.peek(subject, limit)
        if matched:
            if allowance.counted and not hit.admitted:
                return voice.refused(request, hit, window, _rate(hit, window))
            assert isinstance(resolved, Resolved | Stored)
            return ok(snap, _entity(resolved), _rate(hit, window), 304)
    else:
        if isinstance(resolved, Stored) and not star:
            try:
                resolved = Resolved(
                    await source.body(snap, resolved.key), resolved.etag, resolved.content_type
                )
            except ObjectStorageError as exc:
                return voice.unavailable(request, _peek(quota, subject, limit), exc)
        hit, window = quota.charge(subject, limit)
        if not hit.admitted:
            return voice.refused(request, hit, window, _rate(hit, window))
    rate = _rate(hit, window)
    if isinstance(resolved, BadRequest | Refusal):
        return voice.failed(request, resolved, rate)
    if isinstance(resolved, Response):
        resolved.headers.update(dict(rate))
        return resolved
    if star and allowance.counted:
        return ok(snap, _entity(resolved), rate, 304)
    if isinstance(resolved, Stored):  # not counted: read now
        try:
            body = await source.body(snap, resolved.key)
        except ObjectStorageError as exc:
            return voice.unavailable(request, rate, exc)
        resolved = Resolved(body, resolved.etag, resolved.content_type)
    return ok(snap, resolved, rate, 200)


def stored(snap: LoadedSnapshot, key: str, content_type: str) -> Stored:
    """Given a snapshot, one of its object keys and the content type, return the object as a
    Stored answer (its body not read yet); raise NotFound if the snapshot has no such object."""
    etag = snap.etag(key)
    if etag is None:
        raise NotFound("not_found", "No resource at this path.")
    return Stored(key, etag, content_type)


async def read(source: SnapshotSource, snap: LoadedSnapshot, found: Resolved | Stored) -> Resolved:
    """Given the snapshot source, a snapshot and an answer, return the answer with its body
    read (ObjectStorageError if it cannot be)."""
    if isinstance(found, Resolved):
        return found
    return Resolved(await source.body(snap, found.key), found.etag, found.content_type)


def _entity(resolved: Resolved | Stored) -> Resolved:
    """Given an answer whose body is not sent (a 304), return it as headers-only Resolved."""
    if isinstance(resolved, Resolved):
        return resolved
    return Resolved(b"", resolved.etag, resolved.content_type)


def _peek(quota: Quota, subject: str, limit: int) -> Rate:
    hit, window = quota.peek(subject, limit)
    return _rate(hit, window)
