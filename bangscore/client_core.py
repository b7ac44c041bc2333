"""The Python client's shared parts (:mod:`bangscore.client` re-exports its public
names): the client's family of exceptions and the problem document each is built from, the
Retry-After rule (RFC 9110), the requests' counters and ETag cache, the list and search
queries, lookups in chunks of 100 merged back in the order asked, and an answer's body read
as it comes (decoded and refused past a byte limit, so a gzip bomb costs no more than the cap).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import email.utils
import json
import time
import zlib
from collections import OrderedDict
from collections.abc import AsyncGenerator, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

import httpx
from pydantic import ValidationError

from bangscore.contract.filters import MAX_PRICE, list_filters
from bangscore.contract.limits import MAX_LOOKUP_APPIDS
from bangscore.contract.records import ListItem, Lookup, NotRatedApp, ParamProblem, Problem
from bangscore.errors import BangScoreError

# -- errors ------------------------------------------------------------------------------------


class ApiError(BangScoreError):
    """An answer that is not a success: the HTTP status and, when the server sent one, its
    problem document (``code``, ``detail``, ``request_id``). The client's own family of the one
    tree (:mod:`bangscore.errors`): a caller of the client imports these from here."""

    def __init__(
        self,
        status: int,
        problem: Problem | None,
        retry_after: float | None = None,
        *,
        detail: str | None = None,
    ):
        self.status = status
        self.problem = problem
        self.code = problem.code if problem else None
        self.detail = problem.detail if problem else detail or f"HTTP {status}"
        self.request_id = problem.request_id if problem else None
        self.retry_after = retry_after
        super().__init__(f"{status} {self.code or 'error'}: {self.detail}")


class InvalidParameter(ApiError):
    """400: a parameter was refused; :attr:`errors` names each once, with what it accepts."""

    @property
    def errors(self) -> list[ParamProblem]:
        """Return the bad parameters (``parameter``, ``message``)."""
        return list(self.problem.errors or []) if self.problem else []


class AuthenticationFailed(ApiError):
    """401: the key is missing, malformed, unknown or revoked (``code`` says which)."""


class PermissionDenied(ApiError):
    """403: the key's plan does not allow the endpoint (the export needs a bulk key)."""


class NotFound(ApiError):
    """404: no such game (``game_not_found``) or resource (``not_found``)."""


class GameNotRated(NotFound):
    """404 ``game_not_rated``: a known app that is not rated; :attr:`reason` says why, and
    :attr:`superseded_by` names the rated edition that replaces a superseded listing."""

    @property
    def reason(self) -> str | None:
        """Return why the app is not rated (``delisted``, ``too_few_reviews``, ...)."""
        return self.problem.reason if self.problem else None

    @property
    def appid(self) -> int | None:
        """Return the known app's appid."""
        return self.problem.appid if self.problem else None

    @property
    def name(self) -> str | None:
        """Return the known app's name (empty when unknown)."""
        return self.problem.name if self.problem else None

    @property
    def superseded_by(self) -> int | None:
        """Return the appid of the rated edition replacing the listing (reason
        ``superseded``), else None: ask for that appid instead."""
        return self.problem.superseded_by if self.problem else None


class HistoryExpired(ApiError):
    """410 ``history_expired``: the change feed's ``since`` is older than the kept history;
    :attr:`oldest` is the oldest snapshot id that may be asked for, :attr:`snapshot` the
    current one (read the games again, then follow the changes from it)."""

    oldest: str | None = None
    snapshot: str | None = None


class RateLimited(ApiError):
    """429: the key's daily quota is spent; :attr:`retry_after` is the seconds to the reset."""


class Unavailable(ApiError):
    """503: a backing store is unreachable; :attr:`retry_after` is the seconds to wait."""


class ServerError(ApiError):
    """500 or another 5xx: a fault on the server's side (quote :attr:`request_id`)."""


class ResponseTooLarge(ApiError):
    """An answer over the client's ``max_bytes`` decoded. It is read as it comes and inflated
    at most ``max_bytes`` + 1 bytes at a time, so a gzip bomb is refused, never decoded whole."""


class DeadlineExceeded(ApiError):
    """A call not done within the client's ``deadline`` seconds, its retries and their waits
    included: a server trickling its answer cannot hold a call longer. ``status`` is 0 (no
    whole answer came)."""


class ApiConnectionError(ApiError):
    """No answer: the server could not be reached, or the exchange broke before a whole answer
    came (refused, reset, cut short, a malformed or oversized head, a network timeout).
    ``status`` is 0; the transport's own exception is the ``__cause__``."""


class InvalidResponse(ApiError):
    """An answer that is not what the API sends: not JSON (a proxy's HTML maintenance page),
    not the expected shape, corrupt gzip, an encoding not asked for, a 304 for a body never
    kept. ``status`` is the answer's HTTP status."""


_BY_STATUS: dict[int, type[ApiError]] = {
    400: InvalidParameter,
    401: AuthenticationFailed,
    403: PermissionDenied,
    404: NotFound,
    410: HistoryExpired,
    429: RateLimited,
    503: Unavailable,
}


def error_for(status: int, body: bytes, retry_after: float | None = None) -> ApiError:
    """Given a failed answer's status, body and ``Retry-After`` seconds (or None), return
    the exception for it, its problem document parsed when the body is one."""
    try:
        problem: Problem | None = Problem.model_validate_json(body)
    except ValidationError:
        problem = None
    if problem is not None and problem.code == "game_not_rated":
        return GameNotRated(status, problem, retry_after)
    kind = _BY_STATUS.get(status, ServerError if status >= 500 else ApiError)
    error = kind(status, problem, retry_after)
    if isinstance(error, HistoryExpired):
        # Members the Problem model does not carry: read from the document itself.
        extra = json.loads(body) if problem is not None else {}
        error.oldest, error.snapshot = extra.get("oldest"), extra.get("snapshot")
    return error


# -- the transport-free part -------------------------------------------------------------------


@dataclass
class Stats:
    """What a client sent: requests on the wire, 304s answered from its cache, retries."""

    requests: int = 0
    revalidated: int = 0
    retries: int = 0


# A body over this share of the cache's byte budget is not kept: one huge answer would
# otherwise evict every other body (and a hostile server could fill the budget in few pages).
LARGEST_SHARE = 8


@dataclass
class ETagCache:
    """Bodies kept by URL with their ETag, least recently used dropped first: at most ``size``
    bodies and ``max_bytes`` bytes of them (URLs, tags and bodies counted); a body over
    ``max_bytes // LARGEST_SHARE`` is not kept (a URL it replaces is dropped).

    An OrderedDict with a running total rather than cachetools' byte-bounded LRUCache: the
    client installs with httpx and pydantic alone (docs/API.md#python-client)."""

    size: int
    max_bytes: int = 64 * 1024 * 1024
    entries: OrderedDict[str, tuple[str, bytes]] = field(default_factory=OrderedDict)
    total: int = 0

    def get(self, url: str) -> tuple[str, bytes] | None:
        """Given a URL, return its kept (ETag, body), or None; it becomes the most recent."""
        found = self.entries.get(url)
        if found is not None:
            self.entries.move_to_end(url)
        return found

    def put(self, url: str, etag: str, body: bytes) -> None:
        """Given a URL, its answer's ETag and body, keep them, dropping the least recently
        used past the bounds; a body over the largest share is not kept."""
        self._drop(url)
        cost = _cost(url, etag, body)
        if cost > self.max_bytes // LARGEST_SHARE:
            return
        self.entries[url] = (etag, body)
        self.total += cost
        while len(self.entries) > self.size or self.total > self.max_bytes:
            oldest, (tag, kept) = self.entries.popitem(last=False)
            self.total -= _cost(oldest, tag, kept)

    def _drop(self, url: str) -> None:
        found = self.entries.pop(url, None)
        if found is not None:
            self.total -= _cost(url, *found)


def _cost(url: str, etag: str, body: bytes) -> int:
    """Given a cache entry, return the bytes it is counted as."""
    return len(url) + len(etag) + len(body)


def retry_after_seconds(value: str | None, now: float) -> float | None:
    """Given a ``Retry-After`` value (or None) and the time (Unix seconds), return the seconds
    it asks to wait, read as RFC 9110 section 10.2.3 says: delay-seconds (ASCII digits) or an
    HTTP-date (a date gone is 0); None for anything else (``²``, ``-5``, ``1.5``, garbage)."""
    if value is None:
        return None
    text = value.strip()
    if text.isascii() and text.isdigit():
        return float(min(int(text), 10**12))  # past a float's range is "not in our lifetime"
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000" (the obsolete formats): UTC, as every HTTP-date is
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, when.timestamp() - now)


def response_retry_after(response: httpx.Response) -> float | None:
    return retry_after_seconds(response.headers.get("retry-after"), time.time())


def list_query(filters: Mapping[str, Any], page: int) -> dict[str, str]:
    """Given the list filters as the client's keyword arguments (:class:`ClientFilters`) and a
    page, return the query: each filter set, as its declaration sends it
    (:data:`bangscore.contract.filters.LIST_FILTERS`, in that order), then ``page`` past the
    first. TypeError for a keyword no list filter has, as for any unexpected keyword."""
    table = list_filters()
    unknown = sorted(set(filters) - {f.name for f in table})
    if unknown:
        raise TypeError(f"games() got an unexpected keyword argument {unknown[0]!r}")
    query: dict[str, str] = {}
    for spec in table:
        text = spec.client(filters.get(spec.name))
        if text is not None:
            query[spec.name] = text
    if page != 1:
        query["page"] = str(page)
    return query


def search_query(q: str, max_price: float | None, page: int) -> dict[str, str]:
    query = {"q": q}
    price = MAX_PRICE.client(max_price)
    if price is not None:
        query[MAX_PRICE.name] = price
    if page != 1:
        query["page"] = str(page)
    return query


def lookup_chunks(appids: Iterable[int]) -> list[list[int]]:
    """Given appids, return them each once (first asked first) in chunks of at most
    MAX_LOOKUP_APPIDS (100): one lookup request per chunk."""
    unique = list(dict.fromkeys(int(a) for a in appids))
    return [unique[i : i + MAX_LOOKUP_APPIDS] for i in range(0, len(unique), MAX_LOOKUP_APPIDS)]


def merged(answers: list[Lookup]) -> Lookup:
    """Given the lookup answers of consecutive chunks, return one answer over all of them:
    games, not_rated and not_found in the order asked, the newest ``prices_as_of``. (Built
    without validation: a merged answer may hold more than one request's 100 games.)"""
    games: list[ListItem] = [g for a in answers for g in a.games]
    unrated: list[NotRatedApp] = [n for a in answers for n in a.not_rated]
    missing: list[int] = [m for a in answers for m in a.not_found]
    dates = [a.prices_as_of for a in answers if a.prices_as_of is not None]
    return Lookup.model_construct(
        prices_as_of=max(dates) if dates else None,
        games=games,
        not_rated=unrated,
        not_found=missing,
    )


# -- reading an answer's body as it comes ----------------------------------------------------


class Body:
    """An answer's body read as it comes: decoded (gzip or none) and refused past ``limit``
    bytes decoded. zlib's ``max_length`` inflates at most ``limit`` + 1 bytes of a chunk, so a
    gzip bomb costs no more memory than the cap before it is refused."""

    def __init__(self, status: int, encoding: str, limit: int) -> None:
        self.status, self.limit = status, limit
        self.parts: list[bytes] = []
        self.size = 0
        coding = encoding.strip().lower()
        if coding in ("", "identity"):
            self.inflater = None
        elif coding in ("gzip", "x-gzip"):
            self.inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)
        else:  # the client asks for gzip only
            detail = f"an answer in {encoding[:40]!r}, not asked for"
            raise InvalidResponse(status, None, detail=detail)

    def feed(self, chunk: bytes) -> None:
        """Given the next bytes on the wire, decode and keep them; raise ResponseTooLarge
        past the limit, InvalidResponse for a corrupt gzip stream."""
        if self.inflater is None:
            self._keep(chunk)
            return
        data = chunk
        try:
            while data and not self.inflater.eof:
                self._keep(self.inflater.decompress(data, self.limit - self.size + 1))
                data = self.inflater.unconsumed_tail
        except zlib.error as exc:
            detail = f"a corrupt gzip answer: {exc}"
            raise InvalidResponse(self.status, None, detail=detail) from None

    def _keep(self, part: bytes) -> None:
        self.size += len(part)
        if self.size > self.limit:
            detail = f"the answer is over {self.limit:,} bytes decoded"
            raise ResponseTooLarge(self.status, None, detail=detail)
        self.parts.append(part)

    def done(self) -> bytes:
        """Return the whole decoded body."""
        if self.inflater is not None:
            self._keep(self.inflater.flush())
        return b"".join(self.parts)


async def read_body(response: httpx.Response, limit: int) -> bytes:
    """Given a streamed answer and the most bytes it may decode to, return its body; raise
    ResponseTooLarge past it (before reading, when an unencoded answer declares more)."""
    encoding = response.headers.get("content-encoding", "")
    declared = response.headers.get("content-length", "")
    if not encoding and declared.isascii() and declared.isdigit() and int(declared) > limit:
        detail = f"the answer declares {declared} bytes, over {limit:,}"
        raise ResponseTooLarge(response.status_code, None, detail=detail)
    body = Body(response.status_code, encoding, limit)
    # Closed here, not by the garbage collector on a loop that may be gone ("Task was
    # destroyed but it is pending") when a refusal leaves the stream half read.
    raw = cast(AsyncGenerator[bytes, None], response.aiter_raw())  # an async generator
    async with contextlib.aclosing(raw) as chunks:
        async for chunk in chunks:
            body.feed(chunk)
    return body.done()
