"""The Python client's exchange with the API, what :class:`bangscore.client.Client` and
:class:`bangscore.client.AsyncClient` share: the key, the URLs, the ETag cache and the retry
policy (:class:`Core`), one GET with revalidation, short ``Retry-After`` waits retried and the
whole call ended at its deadline (:func:`fetch`), and an answer turned into a model or the
ApiError of a failure.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import (
    Awaitable,
    Callable,
    Mapping,
)
from typing import Any, TypeVar

import anyio
import httpx
from pydantic import BaseModel, ValidationError

from bangscore.client_core import (
    ApiConnectionError,
    DeadlineExceeded,
    ETagCache,
    InvalidResponse,
    Stats,
    error_for,
    read_body,
    response_retry_after,
)
from bangscore.contract.api import API_PREFIX

KEY_VARIABLE = "BANGSCORE_API_KEY"
DEFAULT_BASE_URL = "http://127.0.0.1:8000"
USER_AGENT = "bangscore-python-client/1"
DEFAULT_MAX_BYTES = 16 * 1024 * 1024  # decoded: far above any real answer
DEFAULT_DEADLINE = 120.0  # seconds a whole call may take, retries and their waits included
# Bytes of bodies the ETag cache keeps (its LRU drops the oldest past it; a body over an eighth
# is not kept): 24 hostile 16 MiB pages took a client from 46 to 453 MB by count alone.
DEFAULT_CACHE_BYTES = 32 * 1024 * 1024
ModelT = TypeVar("ModelT", bound=BaseModel)
Query = Mapping[str, str]


async def fetch(
    http: httpx.AsyncClient,
    core: Core,
    path: str,
    query: Query | None,
    sleep: Callable[[float], Awaitable[None]],
) -> bytes:
    """Given an HTTP client, the shared core, an API path and its query, return the answer's
    body: GET with revalidation, 429s and 503s retried after a short ``Retry-After``, the
    whole call (retries and waits included) cancelled at the core's deadline, wherever it
    waits (DeadlineExceeded). Raises the ApiError of a failure: ApiConnectionError when no
    whole answer came (refused, reset, cut short, a malformed head), InvalidResponse when
    httpx could not read the answer."""
    url = core.url(path, query)
    end = time.monotonic() + core.deadline
    attempt = 0
    try:
        with anyio.fail_after(core.deadline):
            while True:
                core.stats.requests += 1
                headers = {**core.headers(), **core.conditional(url)}
                async with http.stream("GET", url, headers=headers) as response:
                    body = await read_body(response, core.max_bytes)
                wait = core.wait_for(response, attempt, end - time.monotonic())
                if wait is None:
                    return core.body_of(url, response, body)
                core.stats.retries += 1
                attempt += 1
                await sleep(wait)
    except TimeoutError:
        detail = f"no whole answer within the {core.deadline:g} s deadline"
        raise DeadlineExceeded(0, None, detail=detail) from None
    except httpx.TransportError as exc:
        detail = f"no answer from {core.base_url}: {type(exc).__name__}: {exc}"
        raise ApiConnectionError(0, None, detail=detail[:500]) from exc
    except httpx.HTTPError as exc:  # DecodingError, TooManyRedirects: an answer, unreadable
        detail = f"an unreadable answer: {type(exc).__name__}: {exc}"
        raise InvalidResponse(0, None, detail=detail[:500]) from exc


class Core:
    """What both clients share: the key, the URLs, the ETag cache, the retry policy and turning
    an answer into a model or an exception."""

    def __init__(
        self,
        api_key: str | None,
        base_url: str | None,
        retries: int,
        max_wait: float,
        cache_size: int,
        max_bytes: int = DEFAULT_MAX_BYTES,
        deadline: float = DEFAULT_DEADLINE,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
    ) -> None:
        self.api_key = api_key if api_key is not None else os.environ.get(KEY_VARIABLE)
        self.base_url = (
            base_url or os.environ.get("BANGSCORE_BASE_URL") or DEFAULT_BASE_URL
        ).rstrip("/")
        self.retries = retries
        self.max_wait = max_wait
        self.cache = ETagCache(cache_size, cache_bytes)
        self.stats = Stats()
        self.max_bytes = max_bytes
        self.deadline = deadline

    def headers(self) -> dict[str, str]:
        """Return the headers every request carries: the key as a bearer token (when there is
        one) and the client's User-Agent."""
        # gzip only: the one encoding the client decodes itself, within its size cap.
        out = {"User-Agent": USER_AGENT, "Accept": "application/json", "Accept-Encoding": "gzip"}
        if self.api_key:
            out["Authorization"] = f"Bearer {self.api_key}"
        return out

    def url(self, path: str, query: Query | None) -> str:
        """Given an API path (under ``/api/v1``) and its query, return the absolute URL."""
        built = httpx.URL(f"{self.base_url}{API_PREFIX}{path}")
        return str(built.copy_with(params=dict(query)) if query else built)

    def conditional(self, url: str) -> dict[str, str]:
        """Given a URL, return the ``If-None-Match`` header of its kept body, if any."""
        kept = self.cache.get(url)
        return {"If-None-Match": kept[0]} if kept else {}

    def wait_for(
        self, response: httpx.Response, attempt: int, left: float = math.inf
    ) -> float | None:
        """Given a 429 or 503 answer, the attempt number (0 first) and the seconds left before
        the call's deadline, return the seconds to wait before retrying, or None when it is not
        to be retried (no usable ``Retry-After``, a wait over ``max_wait`` or past the
        deadline, the retries spent)."""
        if response.status_code not in (429, 503) or attempt >= self.retries:
            return None
        wait = response_retry_after(response)
        if wait is None or wait > self.max_wait or wait >= left:
            return None
        return wait

    def body_of(self, url: str, response: httpx.Response, content: bytes) -> bytes:
        """Given the final answer to a GET of ``url`` and its body as read, return the body
        (the kept one for a 304, kept anew for an ETag'd 200); raise the ApiError of a
        failure."""
        if response.status_code == 304:
            kept = self.cache.get(url)
            if kept is None:  # a 304 for a body we never kept: the server's mistake
                raise InvalidResponse(304, None, detail="a 304 for a body never kept")
            self.stats.revalidated += 1
            return kept[1]
        if response.status_code != 200:
            raise error_for(response.status_code, content, response_retry_after(response))
        etag = response.headers.get("etag")
        if etag and "no-store" not in response.headers.get("cache-control", ""):
            self.cache.put(url, etag, content)
        return content

    @staticmethod
    def parse(model: type[ModelT], body: bytes) -> ModelT:
        """Given a model and a 200's body, return the parsed answer; InvalidResponse when the
        body is not that model's JSON (a proxy's HTML page, a cut body)."""
        try:
            return model.model_validate_json(body)
        except ValidationError as exc:
            detail = f"not a {model.__name__} answer: {excerpt(body)} ({exc.error_count()} errors)"
            raise InvalidResponse(200, None, detail=detail) from exc

    @staticmethod
    def parse_object(body: bytes) -> dict[str, Any]:
        """Given a 200's body, return it as a JSON object; InvalidResponse otherwise."""
        try:
            data = json.loads(body)
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError both
            raise InvalidResponse(200, None, detail=f"not JSON: {excerpt(body)}") from exc
        if not isinstance(data, dict):
            raise InvalidResponse(200, None, detail=f"not a JSON object: {excerpt(body)}")
        return data


def excerpt(body: bytes) -> str:
    """Given a body, return its first bytes for an error message (a maintenance page's
    title shows what answered)."""
    return repr(body[:80].decode("utf-8", "replace"))
