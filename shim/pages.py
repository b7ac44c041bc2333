"""The website's pages as the shim serves them (docs/API.md#website): the website's service
(:class:`Pages`: its allowance, its HTML voice, its memo) and the stored pages of the
snapshot (home, docs, the static pages of :data:`bangscore.site.static_pages.STATIC_PAGES`);
the game pages (:mod:`bangscore.shim.game_page`) and browse and search
(:mod:`bangscore.shim.browse`) are rendered per request from the same snapshot, the same
filter and search code and the same templates as the build.

Pages have their own per-IP allowance (``Quota.page_limit``, subject ``page:<ip>``), apart
from the API's anonymous allowance and from API keys: a key sent to a page is ignored. A
refused, missing or failed page answers HTML, never JSON; a 304 to an ``If-None-Match`` naming
the page's ETag is free (the answer policy, :func:`bangscore.shim.answer.answer`).

Rendered pages are kept in the snapshot's page memo (bounded), never in its API memo, which
the edge's fast path serves to API keys.

Each route is a module-level ``async def`` handler (:func:`bangscore.shim.website.routes`)
reading the website's service, :class:`Pages`, from ``request.app.state.pages``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Awaitable, Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any
from urllib.parse import urlencode, urlsplit

import anyio.to_thread
import orjson
from starlette.requests import Request
from starlette.responses import Response

from bangscore.contract.not_rated import REASON_LABEL, NotRatedIndex
from bangscore.contract.objects import (
    DATES_KEY,
    DOCS_KEY,
    HOME_ADULT_KEY,
    HOME_KEY,
)
from bangscore.contract.search import SearchIndex
from bangscore.errors import (
    BadRequest,
    ObjectPending,
    ParamError,
    ProblemRefusal,
    ResourceNotFound,
)
from bangscore.manifest import etag_for
from bangscore.shim.answer import HTML, Allowance, Fault, Resolved, Stored, answer, stored
from bangscore.shim.clients import client_subject
from bangscore.shim.lists import ListPages
from bangscore.shim.lru import ENTRY_BYTES
from bangscore.shim.quota import Quota, Window, rate_headers
from bangscore.shim.source import LoadedSnapshot, SnapshotSource
from bangscore.site.adult import keep_adult
from bangscore.site.render import SiteRenderer
from bangscore.site.static_pages import StaticPage
from bangscore.stores.keystore import Hit

log = logging.getLogger("bangscore.pages")
# A broad query matches thousands of unrated apps: the page names the best few.
MAX_UNRATED_SHOWN = 10
MIN_UNRATED_WORD = 3
# Searches run on worker threads, at most this many at once, so a client sending costly
# queries back to back neither blocks the event loop nor takes every worker thread.
SEARCH_THREADS = anyio.CapacityLimiter(2)
SVG_TYPE = "image/svg+xml"
# A game page not written yet: `make run` writes them all within about a minute of serving.
PENDING_RETRY_AFTER = "10"
CSS_TYPE = "text/css; charset=utf-8"
# A versioned stylesheet URL (``?v=`` its digest) names one body for good.
CACHE_VERSIONED = "public, max-age=31536000, immutable"
ADULT_ACCEPTS = "true to show adult games (absent: hidden)"
Rate = list[tuple[str, str]]


@dataclass(frozen=True)
class PageAnswer:
    """A rendered page that is not a 200 (a 400 with the form and its errors): status, body."""

    status: int
    body: bytes

    @property
    def nbytes(self) -> int:
        """Return the bytes the page holds when remembered (estimated)."""
        return ENTRY_BYTES + len(self.body)


@dataclass(frozen=True)
class UnratedNames:
    """A snapshot's known-but-unrated apps as the website's search reads them: the snapshot's
    not-rated index and a name search index over it (None when no app has a name)."""

    apps: NotRatedIndex
    index: SearchIndex | None

    def search(self, q: str, limit: int = MAX_UNRATED_SHOWN) -> list[dict[str, Any]]:
        """Given a query, return up to ``limit`` matching unrated apps (appid, name, reason,
        reason_text) in ranked order, matched by the same search code as rated games, without
        its typo-tolerant pass, and only for a query with a word of at least
        :data:`MIN_UNRATED_WORD` letters (150,000 names: a courtesy list, not worth the work of
        a one- or two-letter query matching tens of thousands)."""
        if self.index is None or max(map(len, q.split()), default=0) < MIN_UNRATED_WORD:
            return []
        out = []
        for appid in self.index.search(q, typos=False, limit=limit):
            known = self.apps.lookup(appid)
            if known is None:
                continue
            name, reason = known
            text = REASON_LABEL.get(reason, reason.replace("_", " "))
            out.append({"appid": appid, "name": name, "reason": reason, "reason_text": text})
        return out


def adult_shown(items: Sequence[tuple[str, str]]) -> tuple[bool, list[tuple[str, str]]]:
    """Given a page's query items, return whether the visitor turned adult games on
    (``adult=true``, once, in any case) and the items without ``adult``, which is the
    website's own parameter: the API never sees it. BadRequest for any other value or a
    repeat."""
    values = [v for k, v in items if k == "adult"]
    rest = [(k, v) for k, v in items if k != "adult"]
    if not values:
        return False, rest
    if len(values) > 1 or values[0].strip().lower() != "true":
        raise BadRequest([ParamError("adult", ADULT_ACCEPTS)])
    return True, rest


def here(path: str, query: Mapping[str, str]) -> str:
    """Given a page's path and canonical query (without ``adult``), return its root-relative
    URL, as the adult toggle links it."""
    return path + (f"?{urlencode(query, safe=',')}" if query else "")


class Pages:
    """The website's service on ``app.state.pages``: the page allowance and its HTML voice,
    rendered pages kept per snapshot, the not-rated names and the snapshot's dates, over the
    snapshot source, the quota and the list pages, rendered on the site's and API's base URLs
    (a 503 says Retry-After ``retry_after`` seconds). The handlers below read it."""

    def __init__(
        self,
        source: SnapshotSource,
        quota: Quota,
        lists: ListPages,
        *,
        site_url: str,
        base_url: str,
        retry_after: int,
    ) -> None:
        self.source = source
        self.quota = quota
        self.lists = lists
        self.base_url = base_url
        self.retry_after = str(retry_after)
        self.site = SiteRenderer(site_url=site_url, base_url=base_url)
        self.root = self.site.root
        origin = urlsplit(site_url)
        self.origin = f"{origin.scheme}://{origin.netloc}"  # redirects' scheme, host and port
        self._not_rated: tuple[str, UnratedNames] | None = None
        self._not_rated_lock = asyncio.Lock()

    # -- allowance and answers ---------------------------------------------------------------

    def subject(self, request: Request) -> str:
        """Given a request, return the subject its page views count against (an IPv6
        client's by its /64)."""
        return client_subject("page", request)

    def allowance(self, request: Request, *, counted: bool = True) -> Allowance:
        """Given a page request, return its client IP's page allowance, in the website's voice."""
        return Allowance(self.subject(request), self.quota.page_limit, self, counted)

    def html(
        self,
        request: Request,
        status: int,
        title: str,
        message: str,
        rate: Rate,
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        """Given a status and words, return the HTML error page (no-store) with the headers."""
        body = self.site.error_page(status, title, message, request_id=request.state.request_id)
        out = {**dict(rate), "Cache-Control": "no-store", **(headers or {})}
        return Response(body, status, headers=out, media_type=HTML)

    def refused(self, request: Request, hit: Hit, window: Window, rate: Rate) -> Response:
        """Return the HTML 429 of a client past its daily page allowance."""
        seconds = window.seconds_to_reset
        hours, minutes = divmod(-(-seconds // 60), 60)
        return self.html(
            request,
            429,
            "Too many page views today",
            f"This address has viewed {self.quota.page_limit:,} pages today, its daily "
            f"allowance. It starts again at 00:00 UTC, in {hours} h {minutes} min. "
            "Programs should use the API with a key instead.",
            rate,
            {"Retry-After": str(seconds)},
        )

    def missing(self, request: Request, rate: Rate, detail: str | None = None) -> Response:
        """Return the HTML 404 page."""
        message = detail or f"There is no page at {request.url.path}."
        return self.html(request, 404, "Page not found", message, rate)

    def failed(self, request: Request, error: BadRequest | ProblemRefusal, rate: Rate) -> Response:
        """Return a page resolver's 404 as the HTML not-found page."""
        return self.missing(request, rate, str(error))

    def unavailable(self, request: Request, rate: Rate, fault: Fault | None = None) -> Response:
        """Return the HTML 503 page (snapshot store unreachable, nothing published, or a game's
        page not written yet: ``make run`` writes them after its first answer)."""
        if isinstance(fault, ObjectPending):
            return self.html(
                request,
                503,
                "This page is still being written",
                "The ratings are published and the API answers; the games' pages follow within "
                "about a minute of the server starting. Try again in a few seconds.",
                rate,
                {"Retry-After": PENDING_RETRY_AFTER},
            )
        if fault is not None:
            log.error("request %s: %s", request.state.request_id, fault)
        return self.html(
            request,
            503,
            "BangScore is briefly unavailable",
            "The ratings could not be loaded just now; try again in a few seconds.",
            rate,
            {"Retry-After": self.retry_after},
        )

    async def http_error(self, request: Request, status: int) -> Response:
        """Given a page request that routing refused (404, 405), count it and answer HTML."""
        allowance = self.allowance(request)
        hit, window = await self.quota.admit(allowance.subject, allowance.limit)
        rate = rate_headers(hit.limit, hit.used, window)
        if not hit.admitted:
            return self.refused(request, hit, window, rate)
        if status == 405:
            return self.html(
                request,
                405,
                "Method not allowed",
                f"{request.method} is not allowed here: pages answer GET.",
                rate,
                {"Allow": "GET, HEAD"},
            )
        return self.missing(request, rate)

    async def serve(
        self,
        request: Request,
        resolve: Callable[[LoadedSnapshot], Awaitable[Resolved | Stored | PageAnswer | Response]],
    ) -> Response:
        """Serve a page by the answer policy against the client IP's page allowance: a
        rendered 400 (:class:`PageAnswer`) is counted and answered as HTML."""

        async def resolved(snap: LoadedSnapshot) -> Resolved | Stored | Response:
            found = await resolve(snap)
            if isinstance(found, PageAnswer):
                headers = {"Cache-Control": "no-store"}
                return Response(found.body, found.status, headers=headers, media_type=HTML)
            return found

        return await self.answer(request, resolved, self.allowance(request))

    async def answer(
        self,
        request: Request,
        resolve: Callable[[LoadedSnapshot], Awaitable[Resolved | Stored | Response]],
        allowance: Allowance,
    ) -> Response:
        """Given a page request, its resolver and an allowance, return the answer policy's
        response (:func:`bangscore.shim.answer.answer`) over this snapshot source and quota."""
        return await answer(request, resolve, allowance, source=self.source, quota=self.quota)

    def remembered(
        self,
        request: Request,
        read: Callable[[], Hashable],
        render: Callable[[LoadedSnapshot, Any], Awaitable[Resolved | PageAnswer]],
        refuse: Callable[[BadRequest], Awaitable[PageAnswer]] | None = None,
    ) -> Callable[[LoadedSnapshot], Awaitable[Resolved | PageAnswer]]:
        """Given a page request, its reading (``read``: the query parsed, BadRequest for one
        the page refuses), the renderer of its page from what was read and the renderer of its
        400 (default: the HTML 400 naming the parameters), return a resolver that reads the
        request once and renders its page once per snapshot, path and reading (a snapshot
        never changes), from the snapshot's page memo (:class:`bangscore.shim.memo.Memo`,
        bounded by bytes: 4,096 pages by count let one address add 327 MB, issue 45)."""
        path = request.scope["path"]
        spelling = (path, request.scope["query_string"])

        async def refused(error: BadRequest) -> PageAnswer:
            return PageAnswer(400, self.site.error_page(400, "Bad parameter", _listed(error)))

        async def resolve(snap: LoadedSnapshot) -> Resolved | PageAnswer:
            return await snap.pages.answer(  # type: ignore[no-any-return]
                spelling,
                lambda: (path, read()),
                lambda reading: render(snap, reading[1]),
                refuse or refused,
            )

        return resolve

    def bad_parameter(self, error: BadRequest) -> Callable[[LoadedSnapshot], Awaitable[PageAnswer]]:
        """Given a page query's parameter errors, return a resolver of the HTML 400 naming
        them."""
        message = _listed(error)

        async def resolve(_: LoadedSnapshot) -> PageAnswer:
            body = self.site.error_page(400, "Bad parameter", message)
            return PageAnswer(400, body)

        return resolve

    # -- the not-rated apps ------------------------------------------------------------------

    async def not_rated(self, snap: LoadedSnapshot) -> UnratedNames:
        """Given a snapshot, return its known-but-unrated apps with a name index, made once
        per snapshot, off the event loop: the snapshot's stored index read, or the names
        indexed when it has none or a malformed one (logged)."""
        if self._not_rated is not None and self._not_rated[0] == snap.id:
            return self._not_rated[1]
        async with self._not_rated_lock:  # one build per snapshot, however many searches wait
            if self._not_rated is not None and self._not_rated[0] == snap.id:
                return self._not_rated[1]
            try:
                index = await anyio.to_thread.run_sync(snap.not_rated.name_index)
            except ValueError as exc:  # the names answer still: indexed here instead
                log.warning("snapshot %s: %s; indexing the names instead", snap.id, exc)
                index = await anyio.to_thread.run_sync(
                    functools.partial(snap.not_rated.name_index, stored=False)
                )
            loaded = UnratedNames(snap.not_rated, index)
            self._not_rated = (snap.id, loaded)
            return loaded

    async def dates(self, snap: LoadedSnapshot) -> dict[str, str | None]:
        """Given a snapshot, return its dates (``snapshot_date``, ``prices_as_of``: ISO dates
        or None); none for a snapshot built before it recorded them."""
        if snap.entry(DATES_KEY) is None:
            return {}
        try:
            data = orjson.loads(await self.source.body(snap, DATES_KEY))
            return {k: (str(v) if v else None) for k, v in dict(data).items()}
        except (orjson.JSONDecodeError, TypeError, ValueError) as exc:
            log.error("snapshot %s: bad dates object: %s", snap.id, exc)
            return {}

    def is_page(self, path: str) -> bool:
        """Given a request path, return True if it belongs to the website (not the API)."""
        return not (path.startswith("/api/") or path in ("/api", "/metrics"))


def _listed(error: BadRequest) -> str:
    """Given a page query's parameter errors, return them as the HTML 400's sentence."""
    return "; ".join(f"{e.parameter}: {e.message}" for e in error.errors)


async def _stored_page(request: Request, key: str, adult_key: str | None = None) -> Response:
    """Given a page request, a snapshot key and the key of the same page precomputed with
    adult games shown (if any), return that stored HTML page; asked with ``adult=true``, the
    precomputed one, else the stored page with the toggle kept in its links
    (:func:`keep_adult`). A bad ``adult`` answers the HTML 400."""
    pages: Pages = request.app.state.pages
    try:
        adult, _ = adult_shown(request.query_params.multi_items())
    except BadRequest as exc:
        return await pages.serve(request, pages.bad_parameter(exc))

    async def resolve(snap: LoadedSnapshot) -> Resolved | Stored:
        if adult and adult_key is not None and snap.entry(adult_key) is not None:
            return stored(snap, adult_key, HTML)
        if not adult or adult_key is not None:
            return stored(snap, key, HTML)
        # Only adult=true shapes the page: every other parameter is ignored, so one reading.
        return await snap.pages.kept((request.scope["path"], "adult"), partial(render, snap))  # type: ignore[no-any-return]

    async def render(snap: LoadedSnapshot, _: object) -> Resolved:
        if snap.entry(key) is None:
            raise ResourceNotFound("not_found", f"There is no page at {request.url.path}.")
        body = keep_adult(await pages.source.body(snap, key), pages.root)
        return Resolved(body, etag_for(body), HTML)

    return await pages.serve(request, resolve)


async def home(request: Request) -> Response:
    """Given ``GET /``, return the home page (with adult games listed for ``adult=true``)."""
    return await _stored_page(request, HOME_KEY, HOME_ADULT_KEY)


async def docs(request: Request) -> Response:
    """Given ``GET /docs`` (or ``/docs/errors``), return the API's documentation page."""
    return await _stored_page(request, DOCS_KEY)


def static_page(page: StaticPage) -> Callable[[Request], Awaitable[Response]]:
    """Given a static page's row, return its handler: the stored page (with adult games'
    toggle kept in its links for ``adult=true``)."""

    async def serve(request: Request) -> Response:
        return await _stored_page(request, page.key)

    return serve
