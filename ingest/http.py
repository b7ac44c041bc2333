"""A polite, robust HTTP client shared by every live-source adapter.

Politeness: one token bucket per host caps the request rate (the storefront's appdetails
tolerates about 200 requests per 5 minutes). Robustness: timeouts on every request, and retries
with exponential backoff on 429, 5xx and read errors, honouring ``Retry-After``. Failing fast: a
host whose name does not resolve or that refuses the connection is not retried (a retry cannot
cure it, and four backoffs cost 30 s per source offline); it is marked down for the rest of the
run, so every later request to it fails at once without touching the network. Resumability:
every successful response body is kept on disk under the run date, keyed by method, URL and body,
so a rerun on the same day never refetches what it already has.
"""

from __future__ import annotations

import datetime as dt
import email.utils
import hashlib
import json
import os
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    retry_if_exception_type,
    stop_after_attempt,
)

from bangscore.errors import SourceError as SourceError
from bangscore.errors import SourceUnreachableError as SourceUnreachableError

USER_AGENT = "bangscore-ingest/0.1 (+https://github.com/bangscore; polite nightly refresh)"
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})

Params = Mapping[str, str | int]


class _RetryableStatusError(Exception):
    def __init__(self, url: str, status: int, retry_after: float | None) -> None:
        super().__init__(f"{url} answered HTTP {status}")
        self.url = url
        self.status = status
        self.retry_after = retry_after


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


class PoliteClient:
    """Given settings and a cache, fetch JSON politely: rate-limited, retried, cached.

    ``transport`` lets tests substitute an ``httpx.MockTransport``; ``sleep`` and ``clock`` let
    them skip real waiting. Counters ``network_requests`` and ``cache_hits`` record what happened.
    """

    def __init__(
        self,
        settings: ClientSettings,
        cache: ResponseCache | None,
        *,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.cache = cache
        self._sleep = sleep
        self._clock = clock
        self._buckets: dict[str, TokenBucket] = {}
        self._http = httpx.Client(
            timeout=httpx.Timeout(
                settings.timeout_seconds, connect=settings.connect_timeout_seconds
            ),
            headers={"User-Agent": settings.user_agent, "Accept": "application/json"},
            follow_redirects=True,
            transport=transport,
        )
        self.network_requests = 0
        self.requests_by_host: Counter[str] = Counter()
        self.cache_hits = 0
        self.slept: list[float] = []
        # Hosts that could not be connected to this run, with the reason: never tried again.
        self.down: dict[str, str] = {}

    def close(self) -> None:
        """Given the client, release its connections."""
        self._http.close()

    def __enter__(self) -> PoliteClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get_json(self, url: str, params: Params | None = None) -> Any:
        """Given a URL and query, return the decoded JSON body.

        Raises SourceUnreachableError, SourceError (non-retryable status or retries exhausted) or
        ValueError (body is not JSON).
        """
        return json.loads(self.fetch("GET", url, params=params))

    def post_json(
        self,
        url: str,
        payload: Any,
        params: Params | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        """Given a URL, a JSON-serialisable payload and a query, POST it and return decoded JSON."""
        body = json.dumps(payload, separators=(",", ":"), sort_keys=True).encode()
        return json.loads(self.fetch("POST", url, params=params, body=body, headers=headers))

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
        request_url = httpx.URL(url, params=dict(params or {}))
        if self.cache is not None:
            cached = self.cache.get(method, request_url, body)
            if cached is not None:
                self.cache_hits += 1
                return cached
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
        if self.cache is not None:
            self.cache.put(method, request_url, body, content)
        return content

    def _send_once(
        self, method: str, url: httpx.URL, body: bytes, extra_headers: Mapping[str, str]
    ) -> bytes:
        host = url.host or "local"
        bucket = self._buckets.get(host)
        if bucket is None:
            limit = self.settings.rate_limits.get(host, self.settings.default_rate_limit)
            bucket = TokenBucket(limit, clock=self._clock, sleep=self._record_sleep)
            self._buckets[host] = bucket
        bucket.acquire()
        self.network_requests += 1
        self.requests_by_host[url.netloc.decode("ascii") or host] += 1
        headers = {"Content-Type": "application/json"} if body else {}
        headers.update(extra_headers)
        response = self._http.request(method, url, content=body or None, headers=headers)
        if response.status_code in RETRY_STATUSES:
            retry_after = parse_retry_after(response.headers.get("Retry-After"))
            raise _RetryableStatusError(_shown(url), response.status_code, retry_after)
        if response.status_code >= 400:
            raise SourceError(_shown(url), response.status_code)
        return response.content

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
