"""A Python client for the BangScore API (docs/API.md#python-client), sync and async, on httpx.

::

    from bangscore.client import Client

    with Client(base_url="http://127.0.0.1:8000") as api:   # key: BANGSCORE_API_KEY
        rated = api.lookup(wishlist_appids)                  # 100 appids a request
        for game in rated.games:
            print(game.name, game.bang_score, game.verdict, game.verdict_price_usd)
        for game in api.iter_games(genre="rpg", max_price=10):  # every page, in order
            ...

Answers are the wire models of :mod:`bangscore.contract.records` (``GameList``,
``GameDetail``, ``Lookup``, ...), parsed by pydantic; a member a later ``/api/v1`` adds is
ignored, never an error.

What it does for the caller:

* **ETag revalidation**: each 200 that carries an ``ETag`` (and no ``no-store``) is kept per
  URL; asking again sends ``If-None-Match``, and a 304, which is not counted against the key's
  quota, is answered from the kept body. :attr:`Client.stats` counts both.
* **Retry-After**: a 429 or 503 whose ``Retry-After`` (delay-seconds or an HTTP-date, RFC
  9110; anything else is no wait) is at most ``max_wait`` seconds is retried after that wait,
  up to ``retries`` times; otherwise (a daily quota that resets at midnight, say) it raises
  :class:`RateLimited` or :class:`Unavailable` with ``retry_after``.
* **A hostile server** cannot hurt the caller: an answer is read as it comes and refused past
  ``max_bytes`` decoded (:class:`ResponseTooLarge`; a gzip bomb is never decoded whole), and a
  call, its retries and waits included, ends at ``deadline`` seconds however slowly the bytes
  come (:class:`DeadlineExceeded`).
* **Errors** are exceptions built from the RFC 9457 problem document: ``code``, ``detail``,
  ``request_id``, the bad parameters of a 400, the ``reason`` a game is not rated.
* **Paging** (:meth:`Client.iter_games`, :meth:`Client.iter_search`) and **lookup in chunks of
  100** (:meth:`Client.lookup`: 300 appids are 3 requests, merged in the order asked).

The key comes from the ``api_key`` argument or the ``BANGSCORE_API_KEY`` variable and goes in
the ``Authorization: Bearer`` header, never the URL.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
)
from typing import Any, Unpack

import httpx

from bangscore.client_core import (
    ApiConnectionError,
    ApiError,
    AuthenticationFailed,
    DeadlineExceeded,
    GameNotRated,
    HistoryExpired,
    InvalidParameter,
    InvalidResponse,
    NotFound,
    PermissionDenied,
    RateLimited,
    ResponseTooLarge,
    ServerError,
    Stats,
    Unavailable,
    list_query,
    lookup_chunks,
    merged,
    retry_after_seconds,
    search_query,
)
from bangscore.client_exchange import (
    DEFAULT_CACHE_BYTES,
    DEFAULT_DEADLINE,
    DEFAULT_MAX_BYTES,
    Core,
    Query,
    fetch,
)
from bangscore.contract.export import ExportAnswer
from bangscore.contract.filters import ClientFilters
from bangscore.contract.push import ChangeFeed, GameChange
from bangscore.contract.records import (
    GameDetail,
    GameList,
    ListItem,
    Lookup,
    SearchResult,
    Usage,
)
from bangscore.loop_thread import LoopThread

__all__ = [
    "ApiConnectionError",
    "ApiError",
    "AsyncClient",
    "AuthenticationFailed",
    "Client",
    "ClientFilters",
    "DeadlineExceeded",
    "GameNotRated",
    "HistoryExpired",
    "InvalidParameter",
    "InvalidResponse",
    "NotFound",
    "PermissionDenied",
    "RateLimited",
    "ResponseTooLarge",
    "ServerError",
    "Stats",
    "Unavailable",
    "lookup_chunks",
    "merged",
    "retry_after_seconds",
]

# -- the sync client ---------------------------------------------------------------------------


class Client:
    """A synchronous BangScore client (see the module's docstring).

    Given the key (None: ``BANGSCORE_API_KEY``), the base URL (None: ``BANGSCORE_BASE_URL``,
    else ``http://127.0.0.1:8000``), the retries of a 429 or 503 and the longest
    ``Retry-After`` waited (seconds), the number of bodies kept for revalidation and their
    bytes at most (a body over an eighth of that is not kept), the timeout of each network
    step (seconds), the most bytes an answer may decode to
    (ResponseTooLarge past it), the seconds a whole call may take (DeadlineExceeded past it),
    and optionally an httpx *async* transport and a sleep function (tests). Its exchanges run
    on an event loop of its own (a daemon thread), the one way to end a blocking exchange at
    a deadline wherever it waits. Use it as a context manager, or call :meth:`close`.
    """

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        retries: int = 3,
        max_wait: float = 60.0,
        cache_size: int = 4096,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        timeout: float = 30.0,
        max_bytes: int = DEFAULT_MAX_BYTES,
        deadline: float = DEFAULT_DEADLINE,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._core = Core(
            api_key, base_url, retries, max_wait, cache_size, max_bytes, deadline, cache_bytes
        )
        self._loop = LoopThread("bangscore-client")
        self._http = httpx.AsyncClient(timeout=timeout, transport=transport)
        self._sleep = sleep

    @property
    def stats(self) -> Stats:
        """Return the requests sent, 304s answered from the cache and retries so far."""
        return self._core.stats

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connections and stop the client's event loop."""
        if not self._loop.loop.is_closed():
            self._loop.run(self._http.aclose())
            self._loop.close()

    async def _wait(self, seconds: float) -> None:
        await asyncio.to_thread(self._sleep, seconds)  # off the loop other threads' calls use

    def _get(self, path: str, query: Query | None = None) -> bytes:
        return self._loop.run(fetch(self._http, self._core, path, query, self._wait))

    def root(self) -> dict[str, Any]:
        """Return the root listing (``GET /api/v1``, no key needed) as a dict."""
        return Core.parse_object(self._get(""))

    def games(self, *, page: int = 1, **filters: Unpack[ClientFilters]) -> GameList:
        """Given list filters as keyword arguments (the parameters of docs/API.md#list-games,
        same names, typed by :class:`ClientFilters`: ``genre="rpg"``, ``max_price=9.99``) and a
        page, return that page."""
        return Core.parse(GameList, self._get("/games", list_query(filters, page)))

    def iter_games(self, **filters: Unpack[ClientFilters]) -> Iterator[ListItem]:
        """Given the filters of :meth:`games`, yield every matching game, best first, page by
        page (one request a page of 10)."""
        page = 1
        while True:
            answer = self.games(**filters, page=page)
            yield from answer.games
            if page >= answer.pages:
                return
            page += 1

    def game(self, appid: int) -> GameDetail:
        """Given an appid, return its detail record; GameNotRated (with ``reason``) or
        NotFound otherwise."""
        return Core.parse(GameDetail, self._get(f"/games/{int(appid)}"))

    def search(self, q: str, *, max_price: float | None = None, page: int = 1) -> SearchResult:
        """Given a name (1-100 characters), a price cap and a page, return that page of
        matches."""
        return Core.parse(SearchResult, self._get("/search", search_query(q, max_price, page)))

    def iter_search(self, q: str, *, max_price: float | None = None) -> Iterator[ListItem]:
        """Given a name and a price cap, yield every match, best first, page by page."""
        page = 1
        while True:
            answer = self.search(q, max_price=max_price, page=page)
            yield from answer.games
            if page >= answer.pages:
                return
            page += 1

    def lookup(self, appids: Iterable[int]) -> Lookup:
        """Given appids (any number; repeats asked once), return their list items, the ones
        not rated and the ones not found, in the order asked: one request per 100."""
        answers = [
            Core.parse(Lookup, self._get("/lookup", {"appids": ",".join(map(str, chunk))}))
            for chunk in lookup_chunks(appids)
        ]
        return merged(answers)

    def changes(self, since: str, *, page: int = 1) -> ChangeFeed:
        """Given a snapshot id (an answer's ``X-Snapshot``, or a change feed's ``snapshot``)
        and a page, return that page of the changes since it (docs/API.md#changes);
        HistoryExpired (with ``oldest``) when ``since`` is older than the kept history."""
        return Core.parse(ChangeFeed, self._get("/changes", {"since": since, "page": str(page)}))

    def iter_changes(self, since: str) -> Iterator[GameChange]:
        """Given a snapshot id, yield every change since it, oldest snapshot first, page by
        page (one request a page of 100); the last page's ``snapshot`` is the next since."""
        page = 1
        while True:
            answer = self.changes(since, page=page)
            yield from answer.changes
            if page >= answer.pages:
                return
            page += 1

    def usage(self) -> Usage:
        """Return the key's plan, limit, today's count and the last 30 days (not counted)."""
        return Core.parse(Usage, self._get("/usage"))

    def export(self) -> ExportAnswer:
        """Return the latest Bulk export's manifest with download links (bulk keys)."""
        return Core.parse(ExportAnswer, self._get("/export"))


# -- the async client --------------------------------------------------------------------------


class AsyncClient:
    """The asynchronous twin of :class:`Client` on :class:`httpx.AsyncClient`: the same
    arguments (an async transport, an async sleep) and methods, awaited; the iterators are
    async iterators."""

    def __init__(
        self,
        api_key: str | None = None,
        *,
        base_url: str | None = None,
        retries: int = 3,
        max_wait: float = 60.0,
        cache_size: int = 4096,
        cache_bytes: int = DEFAULT_CACHE_BYTES,
        timeout: float = 30.0,
        max_bytes: int = DEFAULT_MAX_BYTES,
        deadline: float = DEFAULT_DEADLINE,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._core = Core(
            api_key, base_url, retries, max_wait, cache_size, max_bytes, deadline, cache_bytes
        )
        self._http = httpx.AsyncClient(timeout=timeout, transport=transport)
        self._sleep = sleep

    @property
    def stats(self) -> Stats:
        """Return the requests sent, 304s answered from the cache and retries so far."""
        return self._core.stats

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connections."""
        await self._http.aclose()

    async def _get(self, path: str, query: Query | None = None) -> bytes:
        return await fetch(self._http, self._core, path, query, self._sleep)

    async def root(self) -> dict[str, Any]:
        """Return the root listing (``GET /api/v1``, no key needed) as a dict."""
        return Core.parse_object(await self._get(""))

    async def games(self, *, page: int = 1, **filters: Unpack[ClientFilters]) -> GameList:
        """Given list filters as keyword arguments (as :meth:`Client.games`) and a page, return
        that page."""
        return Core.parse(GameList, await self._get("/games", list_query(filters, page)))

    async def iter_games(self, **filters: Unpack[ClientFilters]) -> AsyncIterator[ListItem]:
        """Given the filters of :meth:`games`, yield every matching game, page by page."""
        page = 1
        while True:
            answer = await self.games(**filters, page=page)
            for game in answer.games:
                yield game
            if page >= answer.pages:
                return
            page += 1

    async def game(self, appid: int) -> GameDetail:
        """Given an appid, return its detail record; GameNotRated or NotFound otherwise."""
        return Core.parse(GameDetail, await self._get(f"/games/{int(appid)}"))

    async def search(
        self, q: str, *, max_price: float | None = None, page: int = 1
    ) -> SearchResult:
        """Given a name, a price cap and a page, return that page of matches."""
        body = await self._get("/search", search_query(q, max_price, page))
        return Core.parse(SearchResult, body)

    async def iter_search(
        self, q: str, *, max_price: float | None = None
    ) -> AsyncIterator[ListItem]:
        """Given a name and a price cap, yield every match, page by page."""
        page = 1
        while True:
            answer = await self.search(q, max_price=max_price, page=page)
            for game in answer.games:
                yield game
            if page >= answer.pages:
                return
            page += 1

    async def lookup(self, appids: Iterable[int]) -> Lookup:
        """Given appids, return their lookup answer over chunks of 100, in the order asked
        (the chunks are asked one after another, so a 429 stops the rest)."""
        answers = []
        for chunk in lookup_chunks(appids):
            body = await self._get("/lookup", {"appids": ",".join(map(str, chunk))})
            answers.append(Core.parse(Lookup, body))
        return merged(answers)

    async def changes(self, since: str, *, page: int = 1) -> ChangeFeed:
        """Given a snapshot id and a page, return that page of the changes since it."""
        body = await self._get("/changes", {"since": since, "page": str(page)})
        return Core.parse(ChangeFeed, body)

    async def iter_changes(self, since: str) -> AsyncIterator[GameChange]:
        """Given a snapshot id, yield every change since it, page by page."""
        page = 1
        while True:
            answer = await self.changes(since, page=page)
            for change in answer.changes:
                yield change
            if page >= answer.pages:
                return
            page += 1

    async def usage(self) -> Usage:
        """Return the key's plan, limit, today's count and the last 30 days (not counted)."""
        return Core.parse(Usage, await self._get("/usage"))

    async def export(self) -> ExportAnswer:
        """Return the latest Bulk export's manifest with download links (bulk keys)."""
        return Core.parse(ExportAnswer, await self._get("/export"))
