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

Representations (RFC 9110 12.5.3, 8.8.3): a JSON or HTML answer above 1 KB is sent
gzip-compressed to a client whose ``Accept-Encoding`` takes gzip, as it is to any other, with
``Vary: Accept-Encoding`` on both and an ETag of its own for each, so a cache never hands one
client's bytes to the other and ``If-None-Match`` names one representation. A body the builder
stored compressed is sent as stored; one resolved here (a list page composed per request) is
compressed once and kept with the remembered answer.

Answers are sent as raw ASGI messages (:class:`RawResponse`): the hot path builds its head as
header pairs and skips Starlette's header initialisation.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from bangscore.errors import (
    BadRequest,
    ObjectStorageError,
    ProblemRefusal,
    ResourceNotFound,
    StoreUnavailable,
)
from bangscore.manifest import GZIP, compressible, etag_from_digest, gzip_body
from bangscore.shim.lru import ENTRY_BYTES
from bangscore.shim.quota import Quota, Window, rate_headers
from bangscore.shim.source import LoadedSnapshot, SnapshotSource
from bangscore.stores.keystore import Hit

JSON_TYPE = "application/json"
HTML = "text/html; charset=utf-8"
CACHE_OK = "private, max-age=300"
Rate = list[tuple[str, str]]
RawHeaders = list[tuple[bytes, bytes]]
VARY = (b"vary", b"Accept-Encoding")
GZIP_HEADER = (b"content-encoding", GZIP.encode())
# Answers this process compressed on the fly (``bangscore_compressions_total`` on /metrics):
# a composed answer's first gzip client costs one; a revalidation never should.
COMPRESSIONS = 0
_ACCEPTS: dict[str, bool] = {}  # Accept-Encoding value -> takes gzip (clients send a few values)


class RawResponse(Response):
    """A response given as its status, raw header pairs (lower-case names) and body, and sent
    as the two ASGI messages ``http.response.start`` and ``http.response.body``.

    It keeps Starlette's public response attributes (``status_code``, ``body``, ``headers``,
    ``background``), so a handler may read or add headers as on any Response, but skips
    ``Response.__init__``'s header building: on the hot path the head is built once, raw.
    """

    def __init__(self, status_code: int, raw_headers: RawHeaders, body: bytes = b"") -> None:
        self.status_code = status_code
        self.body = body
        self.background: BackgroundTask | None = None
        self.raw_headers = raw_headers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Send the head and the body (one ASGI message each)."""
        await send(
            {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
        )
        await send({"type": "http.response.body", "body": self.body})
        if self.background is not None:
            await self.background()


def gzip_etag_of(etag: str) -> str:
    """Given the strong ETag of an answer composed per request (its identity body's), return
    the strong ETag of its gzip representation: the first 128 bits of the SHA-256 of that ETag
    and ``+gzip``. Derived, not the digest of the compressed bytes, so a 304 costs no
    compression (issue 45: a lookup's 304 cost as much CPU as its 200), and replicas whose
    zlib builds compress differently still agree."""
    return etag_from_digest(hashlib.sha256(f"{etag}+gzip".encode()).hexdigest())


@dataclass(frozen=True)
class Resolved:
    """A resolved 200 answer: body (the identity), content type, ETag, extra headers (Link)
    and, when the builder stored one, its gzip representation as (bytes, ETag)."""

    body: bytes
    etag: str
    content_type: str = JSON_TYPE
    headers: tuple[tuple[str, str], ...] = ()
    stored_gzip: tuple[bytes, str] | None = None

    @cached_property
    def raw_headers(self) -> RawHeaders:
        """Return the answer's own headers as the server sends them (Link, caching)."""
        own = [(name.lower().encode(), value.encode()) for name, value in self.headers]
        return [*own, (b"cache-control", CACHE_OK.encode())]

    @cached_property
    def gzip_etag(self) -> str | None:
        """Return the strong ETag of the gzip representation, or None for a body that is not
        worth compressing: the stored one's, else one derived from the identity's ETag
        (:func:`gzip_etag_of`), so revalidating compresses nothing."""
        if self.stored_gzip is not None:
            return self.stored_gzip[1]
        if not compressible(self.content_type, len(self.body)):
            return None
        return gzip_etag_of(self.etag)

    @cached_property
    def gzipped(self) -> tuple[bytes, str] | None:
        """Return the gzip representation as (bytes, strong ETag), compressed on first use
        (and kept with the answer), or None for a body that is not worth compressing."""
        global COMPRESSIONS
        if self.stored_gzip is not None:
            return self.stored_gzip
        tag = self.gzip_etag
        if tag is None:
            return None
        COMPRESSIONS += 1
        return gzip_body(self.body), tag

    @property
    def nbytes(self) -> int:
        """Return the bytes the answer holds when remembered, its gzip representation
        included (compressed now if it was not yet): the weight of its cache entry."""
        packed = self.gzipped
        own = sum(len(name) + len(value) for name, value in self.headers)
        return ENTRY_BYTES + len(self.body) + (len(packed[0]) if packed else 0) + own

    def entity_tag(self, gzip_ok: bool) -> str:
        """Given whether the client takes gzip, return the ETag of the representation sent
        (nothing is compressed to learn it)."""
        if gzip_ok and self.gzip_etag is not None:
            return self.gzip_etag
        return self.etag


@dataclass(frozen=True)
class Stored:
    """A stored snapshot object named but not read yet: its key, ETag, content type and the
    ETag of its gzip representation when it is stored compressed. The body is read only when
    a 200 is sent, so a 304 or a refusal reads nothing."""

    key: str
    etag: str
    content_type: str
    gzip_etag: str | None = None

    def entity_tag(self, gzip_ok: bool) -> str:
        """Given whether the client takes gzip, return the ETag of the representation sent."""
        if gzip_ok and self.gzip_etag is not None:
            return self.gzip_etag
        return self.etag


Resolution = Resolved | Stored | Response
Resolver = Callable[[LoadedSnapshot], Awaitable[Resolution]]
Fault = ObjectStorageError | StoreUnavailable


class Voice(Protocol):
    """How one kind of allowance words its refusals and errors (problem+json or HTML)."""

    def refused(self, request: Request, hit: Hit, window: Window, rate: Rate) -> Response:
        """Given a request past its daily limit, return the 429 with ``Retry-After``."""
        ...

    def failed(self, request: Request, error: BadRequest | ProblemRefusal, rate: Rate) -> Response:
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


def accepts_gzip(header: str | None) -> bool:
    """Given an ``Accept-Encoding`` value (RFC 9110 12.5.3), return True if it takes gzip:
    ``gzip`` or ``x-gzip`` with a non-zero weight, or ``*`` with one when gzip is not named.
    No header, an empty one or ``identity`` takes no encoding."""
    if not header:
        return False
    found = _ACCEPTS.get(header)
    if found is not None:
        return found
    weights: dict[str, float] = {}
    for item in header.split(","):
        name, _, params = item.partition(";")
        weight = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip().lower() == "q":
                try:
                    weight = float(value.strip())
                except ValueError:
                    weight = 0.0
        weights[name.strip().lower()] = weight
    named = weights.get("gzip", weights.get("x-gzip"))
    found = (named if named is not None else weights.get("*", 0.0)) > 0
    if len(_ACCEPTS) < 256:  # bounded: a client sending odd values only costs a parse
        _ACCEPTS[header] = found
    return found


def ok(
    snap: LoadedSnapshot,
    resolved: Resolved | Stored,
    rate: Rate,
    status: int,
    *,
    gzip_ok: bool = False,
    body: bytes | None = None,
) -> Response:
    """Given a resolved answer, its rate headers and whether the client takes gzip, return it
    as a 200 (or a 304 without a body) in the representation the client takes, with its
    caching headers. A Stored answer's 200 needs that representation's ``body``."""
    headers = [(name.lower().encode(), value.encode()) for name, value in rate]
    if isinstance(resolved, Resolved):
        headers += resolved.raw_headers
        vary = resolved.gzip_etag is not None
    else:
        headers.append((b"cache-control", CACHE_OK.encode()))
        vary = resolved.gzip_etag is not None
    encoded = vary and gzip_ok
    headers.append((b"etag", resolved.entity_tag(gzip_ok).encode()))
    headers.append((b"x-snapshot", snap.id.encode()))
    if vary:
        headers.append(VARY)
    if status == 304:
        return RawResponse(304, headers)
    if body is None:
        assert isinstance(resolved, Resolved), "a stored answer's body must be read"
        # Compressed only for a client that takes gzip: an unremembered answer (a lookup)
        # sent as identity once paid half its CPU for a gzip body it never sent.
        gzipped = resolved.gzipped if encoded else None
        body = gzipped[0] if gzipped is not None else resolved.body
    if encoded:
        headers.append(GZIP_HEADER)
    headers.append((b"content-length", str(len(body)).encode()))
    headers.append((b"content-type", resolved.content_type.encode()))
    return RawResponse(status, headers, body)


def _rate(hit: Hit, window: Window) -> Rate:
    return rate_headers(hit.limit, hit.used, window)


async def _representation(
    source: SnapshotSource, snap: LoadedSnapshot, found: Stored, gzip_ok: bool
) -> bytes:
    """Given a stored answer, return the bytes of the representation the client takes."""
    coding = GZIP if gzip_ok and found.gzip_etag is not None else None
    return await source.body(snap, found.key, coding)


def _preconditions(request: Request, resolved: object) -> tuple[bool, bool, bool]:
    """Given a request and its resolved answer, return (whether the client takes gzip,
    whether If-None-Match is ``*``, whether it names the answer's entity tag)."""
    headers = request.headers
    gzip_ok = accepts_gzip(headers.get("accept-encoding"))
    star, tags = if_none_match(headers.get("if-none-match"))
    matched = isinstance(resolved, Resolved | Stored) and resolved.entity_tag(gzip_ok) in tags
    return gzip_ok, star, matched


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
    # A refusal the resolver raises (a bad request, a refused one) is spoken after counting;
    # resolved here, not in a helper, so a request's walk stays one call shorter.
    resolved: Resolution | BadRequest | ProblemRefusal
    try:
        resolved = await resolve(snap)
    except (BadRequest, ProblemRefusal) as exc:
        resolved = exc
    except (ObjectStorageError, StoreUnavailable) as exc:
        return voice.unavailable(request, _peek(quota, subject, limit), exc)
    gzip_ok, star, matched = _preconditions(request, resolved)
    body: bytes | None = None
    if matched or not allowance.counted:
        hit, window = quota.peek(subject, limit)
        if matched:
            if allowance.counted and not hit.admitted:
                return voice.refused(request, hit, window, _rate(hit, window))
            assert isinstance(resolved, Resolved | Stored)
            return ok(snap, resolved, _rate(hit, window), 304, gzip_ok=gzip_ok)
    else:
        if isinstance(resolved, Stored) and not star:
            try:
                body = await _representation(source, snap, resolved, gzip_ok)
            except ObjectStorageError as exc:
                return voice.unavailable(request, _peek(quota, subject, limit), exc)
        hit, window = await quota.admit(subject, limit)
        if not hit.admitted:
            return voice.refused(request, hit, window, _rate(hit, window))
    rate = _rate(hit, window)
    if isinstance(resolved, BadRequest | ProblemRefusal):
        return voice.failed(request, resolved, rate)
    if isinstance(resolved, Response):
        resolved.headers.update(dict(rate))
        return resolved
    if star and allowance.counted:
        return ok(snap, resolved, rate, 304, gzip_ok=gzip_ok)
    return await _served(request, voice, source, snap, resolved, rate, gzip_ok, body)


async def _served(
    request: Request,
    voice: Voice,
    source: SnapshotSource,
    snap: LoadedSnapshot,
    resolved: Resolved | Stored,
    rate: Rate,
    gzip_ok: bool,
    body: bytes | None,
) -> Response:
    """Given an admitted request's answer and its rate headers, return the 200: a stored
    answer's body read now when the request was not counted (a counted one read it first)."""
    if isinstance(resolved, Stored) and body is None:  # not counted: read now
        try:
            body = await _representation(source, snap, resolved, gzip_ok)
        except ObjectStorageError as exc:
            return voice.unavailable(request, rate, exc)
    return ok(snap, resolved, rate, 200, gzip_ok=gzip_ok, body=body)


def stored(snap: LoadedSnapshot, key: str, content_type: str) -> Stored:
    """Given a snapshot, one of its object keys and the content type, return the object as a
    Stored answer (its body not read yet); raise ResourceNotFound if the snapshot has no such
    object."""
    etag = snap.etag(key)
    if etag is None:
        raise ResourceNotFound("not_found", "No resource at this path.")
    return Stored(key, etag, content_type, snap.gzip_etag(key))


async def read(source: SnapshotSource, snap: LoadedSnapshot, found: Resolved | Stored) -> Resolved:
    """Given the snapshot source, a snapshot and an answer, return the answer with its body
    read (the identity, and the stored gzip representation when there is one), raising
    ObjectStorageError if it cannot be."""
    if isinstance(found, Resolved):
        return found
    body = await source.body(snap, found.key)
    packed = None
    if found.gzip_etag is not None:
        packed = (await source.body(snap, found.key, GZIP), found.gzip_etag)
    return Resolved(body, found.etag, found.content_type, stored_gzip=packed)


def _peek(quota: Quota, subject: str, limit: int) -> Rate:
    hit, window = quota.peek(subject, limit)
    return _rate(hit, window)
