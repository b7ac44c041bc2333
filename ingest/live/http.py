"""A polite, robust HTTP client shared by every live-source adapter.

Politeness: one token bucket per host caps the request rate (the storefront's appdetails
tolerates about 200 requests per 5 minutes). Robustness: timeouts on every request, and retries
with exponential backoff on 429, 5xx and read errors, honouring ``Retry-After``. Failing fast: a
host whose name does not resolve or that refuses the connection is not retried (a retry cannot
cure it, and four backoffs cost 30 s per source offline); it is marked down for the rest of the
run, so every later request to it fails at once without touching the network. Resumability:
every successful response body is kept on disk under the run date, keyed by method, URL and body,
so a rerun on the same day never refetches what it already has.

Hostile or broken upstreams (issue 36): an answer is read as a stream and refused past
``max_body_bytes`` decoded or ``max_wire_bytes`` on the wire (a 0.5 MB gzip answer can decode
to 512 MiB); a request, its retries' waits aside, ends after ``deadline_seconds`` however slowly
the bytes of its head or body come (the read timeout alone lets a byte every 29 s hold it for
ever). httpx has no total timeout and a blocking read cannot be cancelled, so the exchanges run
on an asyncio loop of the client's own (a daemon thread), each hop inside one
``asyncio.timeout`` that cancels it wherever it waits, as httpx's authors advise; a redirect is
followed only to the same scheme, host and port (through the same rate limit), any other is
refused and logged; and a body is cached only once it parsed as the caller expects (an HTML
"Access Denied" page with status 200 is never replayed from the cache; a cached body that no
longer parses is dropped and fetched again).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import email.utils
import hashlib
import json
import logging
import os
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    retry_if_exception_type,
    stop_after_attempt,
)

from bangscore.errors import AnswerRefused, SourceError, SourceUnreachableError
from bangscore.loop_thread import LoopThread

log = logging.getLogger("bangscore.ingest.live.http")
MAX_REDIRECTS = 5
USER_AGENT = "bangscore-ingest/0.1 (+https://github.com/bangscore; polite nightly refresh)"
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})

Params = Mapping[str, str | int]
T = TypeVar("T")


class _RetryableStatusError(Exception):
    def __init__(self, url: str, status: int, retry_after: float | None) -> None:
        super().__init__(f"{url} answered HTTP {status}")
        self.url = url
        self.status = status
        self.retry_after = retry_after


def _redirected(status: int, headers: httpx.Headers) -> bool:
    """Given an answer's status and headers, return whether it is a redirect to follow."""
    return status in REDIRECT_STATUSES and "location" in headers


def _shown(url: httpx.URL) -> str:
    """Given a request URL, return it as errors and reports may show it: without its API key
    (the ``key`` query parameter of the Steam Web API and of IsThereAnyDeal)."""
    return str(url.copy_remove_param("key"))


def _transient_transport_error(error: BaseException) -> bool:
    """Given an exception, return True for a transport error worth retrying: one after the
    connection was made (a read or write that broke, a read timeout). A name that does not
    resolve, a refused connection or a connect timeout is a host that is down: False.

    httpx raises ``ConnectError`` for both DNS failures and refused connections and
    ``ConnectTimeout`` when connecting takes too long (httpx docs, "Exceptions")."""
    if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout):
        return False
    return isinstance(error, httpx.TransportError)


@dataclass(frozen=True)
class RateLimit:
    """At most ``requests`` requests per ``per_seconds`` seconds to one host (burst = requests)."""

    requests: int
    per_seconds: float

    @property
    def rate(self) -> float:
        """Given the limit, return the steady refill rate in requests per second."""
        return self.requests / self.per_seconds


@dataclass
class TokenBucket:
    """A token bucket: ``acquire()`` blocks (via ``sleep``) until a request may be sent.

    ``clock`` and ``sleep`` are injected so tests can drive time without waiting.
    """

    limit: RateLimit
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    _tokens: float = field(init=False)
    _stamp: float = field(init=False)

    def __post_init__(self) -> None:
        self._tokens = float(self.limit.requests)
        self._stamp = self.clock()

    def acquire(self) -> float:
        """Given the bucket, take a token (sleeping first if none is left); return seconds slept."""
        now = self.clock()
        self._tokens = min(
            float(self.limit.requests), self._tokens + (now - self._stamp) * self.limit.rate
        )
        self._stamp = now
        waited = 0.0
        if self._tokens < 1.0:
            waited = (1.0 - self._tokens) / self.limit.rate
            self.sleep(waited)
            self._tokens = 1.0
            self._stamp = self.clock()
        self._tokens -= 1.0
        return waited


def parse_retry_after(value: str | None, now: dt.datetime | None = None) -> float | None:
    """Given a ``Retry-After`` header value, return the delay in seconds, or None if absent/bad.

    Accepts delay-seconds (``"7"``) and HTTP-dates (RFC 9110); a date in the past gives 0.
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    current = now or dt.datetime.now(dt.UTC)
    return max(0.0, (when - current).total_seconds())


@dataclass(frozen=True)
class ResponseCache:
    """Raw response bodies on disk under ``root/<date>/<host>/<sha256>.body``.

    The key is the method, the full URL with its sorted query, and the request body; the date is
    the run date, so a rerun the same day resumes and the next night fetches fresh data.
    """

    root: Path
    day: dt.date

    def path_for(self, method: str, url: httpx.URL, body: bytes) -> Path:
        """Given a request, return the file its response body is cached in."""
        sorted_url = url.copy_with(params=sorted(url.params.multi_items()))
        digest = hashlib.sha256(f"{method} {sorted_url}\n".encode() + body).hexdigest()
        host = url.host or "local"
        if url.port:
            host = f"{host}_{url.port}"
        return self.root / self.day.isoformat() / host / f"{digest}.body"

    def drop(self, method: str, url: httpx.URL, body: bytes) -> None:
        """Given a request, forget its cached body (it no longer parses)."""
        self.path_for(method, url, body).unlink(missing_ok=True)

    def get(self, method: str, url: httpx.URL, body: bytes) -> bytes | None:
        """Given a request, return its cached body, or None if it was never fetched today."""
        path = self.path_for(method, url, body)
        return path.read_bytes() if path.is_file() else None

    def put(self, method: str, url: httpx.URL, body: bytes, content: bytes) -> None:
        """Given a request and its response body, store the body atomically (write, then rename)."""
        path = self.path_for(method, url, body)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_bytes(content)
        os.replace(tmp, path)


@dataclass(frozen=True)
class ClientSettings:
    """Knobs of :class:`PoliteClient`: timeouts (s), retry attempts and backoff (s), rate limits."""

    timeout_seconds: float = 30.0
    # A live host accepts a connection in well under a second; a dead one should cost little.
    connect_timeout_seconds: float = 5.0
    attempts: int = 5
    backoff_base_seconds: float = 2.0
    backoff_max_seconds: float = 120.0
    rate_limits: Mapping[str, RateLimit] = field(default_factory=dict)
    default_rate_limit: RateLimit = RateLimit(60, 60.0)
    user_agent: str = USER_AGENT
    # The largest real answers (a GetAppList page, a reviews page) are a few MB.
    max_body_bytes: int = 64 * 1024 * 1024
    max_wire_bytes: int = 64 * 1024 * 1024
    deadline_seconds: float = 120.0


class PoliteClient:
    """Given settings and a cache, fetch JSON politely: rate-limited, retried, cached.

    ``transport`` lets tests substitute an ``httpx.MockTransport``; ``sleep`` and ``clock`` let
    them skip real waiting (a hop's share of the deadline is measured by ``clock``, then kept
    by the event loop's own monotonic clock). Counters ``network_requests`` and ``cache_hits``
    record what happened.
    """

    def __init__(
        self,
        settings: ClientSettings,
        cache: ResponseCache | None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.cache = cache
        self._sleep = sleep
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}
        self._loop = LoopThread("bangscore-ingest-http")
        self._http = httpx.AsyncClient(
            timeout=httpx.Timeout(
                settings.timeout_seconds, connect=settings.connect_timeout_seconds
            ),
            headers={"User-Agent": settings.user_agent, "Accept": "application/json"},
            follow_redirects=False,  # followed by hand: same host only, rate-limited
            transport=transport,
        )
        self.network_requests = 0
        self.requests_by_host: Counter[str] = Counter()
        self.cache_hits = 0
        self.slept: list[float] = []
        # Hosts that could not be connected to this run, with the reason: never tried again.
        self.down: dict[str, str] = {}

    def close(self) -> None:
        """Given the client, release its connections and stop its event loop (once: a
        second call does nothing)."""
        if not self._loop.loop.is_closed():
            self._loop.run(self._http.aclose())
            self._loop.close()

    def __enter__(self) -> PoliteClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get_json(
        self, url: str, params: Params | None = None, parse: Callable[[Any], Any] | None = None
    ) -> Any:
        """Given a URL, a query and optionally the adapter's parser of the decoded JSON, return
        the decoded JSON (or what ``parse`` made of it). The body is cached only once both
        succeeded.

        Raises SourceUnreachableError, SourceError (non-retryable status, retries exhausted,
        :class:`AnswerRefused`), ValueError (the body is not JSON) or what ``parse`` raises.
        """
        return self._fetch("GET", url, params, b"", None, _json_reader(parse))

    def post_json(
        self,
        url: str,
        payload: Any,
        params: Params | None = None,
        headers: Mapping[str, str] | None = None,
        parse: Callable[[Any], Any] | None = None,
    ) -> Any:
        """Given a URL, a JSON-serialisable payload, a query and optionally the adapter's
        parser, POST it and return the decoded JSON (or what ``parse`` made of it), as
        :meth:`get_json`."""
        body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
        return self._fetch("POST", url, params, body, headers, _json_reader(parse))

    def fetch(
        self,
        method: str,
        url: str,
        *,
        params: Params | None = None,
        body: bytes = b"",
        headers: Mapping[str, str] | None = None,
    ) -> bytes:
        """Given a request, return the raw body of its 2xx response, from cache when possible.

        ``headers`` are sent but are not part of the cache key.
        """
        content: bytes = self._fetch(method, url, params, body, headers, bytes)
        return content

    def _fetch(
        self,
        method: str,
        url: str,
        params: Params | None,
        body: bytes,
        headers: Mapping[str, str] | None,
        read: Callable[[bytes], Any],
    ) -> Any:
        """Given a request and a reader of its body (raising ValueError for a body it refuses),
        return what the reader made of the body: the cached one when it still reads, else a
        fetched one, cached only once it read."""
        request_url = httpx.URL(url, params=dict(params or {}))
        if self.cache is not None:
            cached = self.cache.get(method, request_url, body)
            if cached is not None:
                try:
                    result = read(cached)
                except (ValueError, KeyError, TypeError, AttributeError):
                    # A body cached by an older run that no longer reads: fetch it again.
                    self.cache.drop(method, request_url, body)
                else:
                    self.cache_hits += 1
                    return result
        # host:port, so a dead port does not condemn another service on the same machine.
        host = request_url.netloc.decode("ascii") or "local"
        if host in self.down:
            raise SourceUnreachableError(self.down[host])
        retrying = Retrying(
            stop=stop_after_attempt(self.settings.attempts),
            wait=self._wait,
            retry=retry_if_exception_type(_RetryableStatusError)
            | retry_if_exception(_transient_transport_error),
            sleep=self._record_sleep,
            reraise=True,
        )
        try:
            content = retrying(self._send_once, method, request_url, body, headers or {})
        except _RetryableStatusError as exc:
            raise SourceError(_shown(request_url), exc.status) from exc
        except httpx.TransportError as exc:
            reason = f"{request_url.host}: {type(exc).__name__}: {exc}"
            if not _transient_transport_error(exc):
                self.down[host] = reason
            raise SourceUnreachableError(reason) from exc
        result = read(content)  # raises for a body it refuses: not cached, a rerun asks again
        if self.cache is not None:
            self.cache.put(method, request_url, body, content)
        return result

    def _send_once(
        self, method: str, url: httpx.URL, body: bytes, extra_headers: Mapping[str, str]
    ) -> bytes:
        """Given a request, return its 2xx body, following same-host redirects; every hop and
        its rate-limit wait within one deadline. Raises _RetryableStatusError, SourceError,
        AnswerRefused (caps, deadline, redirects) or httpx.TransportError."""
        headers = {"Content-Type": "application/json"} if body else {}
        headers.update(extra_headers)
        deadline = self._clock() + self.settings.deadline_seconds
        target = url
        for _ in range(MAX_REDIRECTS + 1):
            self._take_token(target)
            remaining = deadline - self._clock()
            status, answer, content = self._loop.run(
                self._exchange(method, url, target, body, headers, remaining)
            )
            if _redirected(status, answer):
                target = self._redirect(url, target, answer["location"])
                if status == 303:
                    method, body = "GET", b""
                continue
            if status in RETRY_STATUSES:
                retry_after = parse_retry_after(answer.get("Retry-After"))
                raise _RetryableStatusError(_shown(url), status, retry_after)
            if status >= 400:
                raise SourceError(_shown(url), status)
            return content
        raise AnswerRefused(_shown(url), f"more than {MAX_REDIRECTS} redirects")

    async def _exchange(
        self,
        method: str,
        url: httpx.URL,
        target: httpx.URL,
        body: bytes,
        headers: Mapping[str, str],
        seconds: float,
    ) -> tuple[int, httpx.Headers, bytes]:
        """Given a request to ``target`` (first asked as ``url``) and the seconds left before its
        deadline, return (status, headers, body: read only for a 2xx). The whole exchange, the
        head's bytes as the body's, is cancelled at the deadline: AnswerRefused."""
        try:
            async with asyncio.timeout(max(seconds, 0.0)):
                async with self._http.stream(
                    method, target, content=body or None, headers=headers
                ) as response:
                    status = response.status_code
                    answered = status < 400 and not _redirected(status, response.headers)
                    content = await self._read_body(url, response) if answered else b""
                    return status, response.headers, content
        except TimeoutError:
            raise AnswerRefused(
                _shown(url), f"not answered within {self.settings.deadline_seconds:g} s"
            ) from None

    def _take_token(self, url: httpx.URL) -> None:
        """Given the URL about to be requested, wait for its host's token and count it."""
        host = url.host or "local"
        bucket = self._buckets.get(host)
        if bucket is None:
            limit = self.settings.rate_limits.get(host, self.settings.default_rate_limit)
            bucket = TokenBucket(limit, clock=self._clock, sleep=self._record_sleep)
            self._buckets[host] = bucket
        bucket.acquire()
        self.network_requests += 1
        self.requests_by_host[url.netloc.decode("ascii") or host] += 1

    def _redirect(self, first: httpx.URL, current: httpx.URL, location: str) -> httpx.URL:
        """Given the first URL, the one redirecting and its ``Location``, return the URL to
        follow; raise AnswerRefused (and log it) for another scheme, host or port."""
        target = current.join(location)
        if (target.scheme, target.host, target.port) != (first.scheme, first.host, first.port):
            shown = str(target.copy_with(query=None, fragment=None))
            log.warning("%s redirected to %s: refused (another host)", _shown(first), shown)
            raise AnswerRefused(_shown(first), f"redirected to another host ({shown})")
        return target

    async def _read_body(self, url: httpx.URL, response: httpx.Response) -> bytes:
        """Given a streamed 2xx response, return its decoded body; raise AnswerRefused past the
        size caps (decoded or on the wire)."""
        limit, wire_limit = self.settings.max_body_bytes, self.settings.max_wire_bytes
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > wire_limit:
            raise AnswerRefused(_shown(url), f"declares {declared} bytes, over {wire_limit}")
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > limit:
                raise AnswerRefused(_shown(url), f"over {limit} bytes decoded")
            if response.num_bytes_downloaded > wire_limit:
                raise AnswerRefused(_shown(url), f"over {wire_limit} bytes on the wire")
            chunks.append(chunk)
        return b"".join(chunks)

    def _wait(self, state: RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        if isinstance(error, _RetryableStatusError) and error.retry_after is not None:
            # The host told us when to come back; never come back sooner, but do not hang forever.
            return min(error.retry_after, self.settings.backoff_max_seconds)
        backoff = self.settings.backoff_base_seconds * 2 ** (state.attempt_number - 1)
        return float(min(backoff, self.settings.backoff_max_seconds))

    def _record_sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        if seconds > 0:
            self._sleep(seconds)


def _json_reader(parse: Callable[[Any], Any] | None) -> Callable[[bytes], Any]:
    """Given an adapter's parser of decoded JSON (or None), return a reader of raw bodies:
    JSON-decoded, then parsed. It raises ValueError for a body that is not JSON, and whatever
    the parser raises for one of the wrong shape (ValueError, KeyError, TypeError)."""

    def read(raw: bytes) -> Any:
        decoded = json.loads(raw)
        return decoded if parse is None else parse(decoded)

    return read
