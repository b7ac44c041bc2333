"""The website's pages as the shim serves them (docs/API.md#website): the static pages of the
snapshot (home, docs, game pages, icon), and browse (``/games``) and search (``/search``)
rendered per request from the same snapshot, the same filter and search code and the same
templates as the build.

Pages have their own per-IP allowance (``Quota.page_limit``, subject ``page:<ip>``), apart
from the API's anonymous allowance and from API keys: a key sent to a page is ignored. A
refused, missing or failed page answers HTML, never JSON; 304s are free.

Rendered browse and search pages are kept per snapshot (bounded), never in the snapshot's
``answers``, which the edge's fast path serves to API keys.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

import anyio.to_thread
import orjson
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from bangscore.contract.filters import (
    ABOUT_SCORE_KEY,
    DATES_KEY,
    DOCS_KEY,
    FAVICON_KEY,
    HOME_KEY,
    NOT_RATED_KEY,
    Filters,
    badge_key,
    game_page_key,
)
from bangscore.contract.limits import MAX_APPID_DIGITS, MAX_QUERY_LENGTH
from bangscore.contract.paging import page_rels
from bangscore.contract.search import SearchIndex
from bangscore.manifest import etag_for
from bangscore.shim import params
from bangscore.shim.handlers import HTML, NotFound, Resolved, Shim, etag_matches
from bangscore.shim.problems import BadRequest, ParamError
from bangscore.shim.quota import rate_headers
from bangscore.shim.source import LoadedSnapshot
from bangscore.site.render import FormState, Listing, SiteRenderer
from bangscore.storage import ObjectStorageError

log = logging.getLogger("bangscore.pages")
MAX_RENDERED = 4096
# A broad query matches thousands of unrated apps: the page names the best few.
MAX_UNRATED_SHOWN = 10
MIN_UNRATED_WORD = 3
# Searches run on worker threads, at most this many at once, so a client sending costly
# queries back to back neither blocks the event loop nor takes every worker thread.
SEARCH_THREADS = anyio.CapacityLimiter(2)
SVG_TYPE = "image/svg+xml"
BROWSE_PARAMS = frozenset({"genre", "tag", "year_from", "year_to", "on_sale", "page"})
NOT_RATED_REASONS: Mapping[str, str] = {
    "delisted": "delisted from the storefront",
    "too_few_reviews": "too few reviews to rate it fairly",
    "no_usd_price": "no price in US dollars",
    "no_length": "no known length",
    "not_a_game": "not a game (software, a soundtrack or a video)",
}
Rate = list[tuple[str, str]]


@dataclass(frozen=True)
class PageAnswer:
    """A rendered page that is not a 200 (a 400 with the form and its errors): status, body."""

    status: int
    body: bytes


@dataclass(frozen=True)
class NotRated:
    """The snapshot's known-but-unrated apps: ``{appid: (name, reason)}`` and a name index."""

    apps: Mapping[int, tuple[str, str]]
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
            name, reason = self.apps[appid]
            text = NOT_RATED_REASONS.get(reason, reason.replace("_", " "))
            out.append({"appid": appid, "name": name, "reason": reason, "reason_text": text})
        return out


NO_UNRATED = NotRated({}, None)


def parse_not_rated(raw: bytes) -> NotRated:
    """Given the bytes of the snapshot's not-rated index (parallel arrays sorted by appid:
    ``appid``, ``reason`` as an index into ``reasons``, ``name``; see
    :func:`build.snapshot.not_rated_index`), return it loaded with a name index; ValueError if
    malformed."""
    try:
        data = orjson.loads(raw)
        reasons = [str(r) for r in data["reasons"]]
        apps = {
            int(a): (str(n), reasons[int(r)])
            for a, r, n in zip(data["appid"], data["reason"], data["name"], strict=True)
        }
    except (
        orjson.JSONDecodeError,
        AttributeError,
        KeyError,
        TypeError,
        ValueError,
        IndexError,
    ) as exc:
        raise ValueError(f"corrupt not-rated object: {exc}") from exc
    named = ((a, 0, name) for a, (name, _) in apps.items() if name)
    aliases = {str(k): int(v) for k, v in data.get("aliases", {}).items()}
    index = SearchIndex.build(named, aliases) if apps else None
    return NotRated(apps, index)


def browse_redirect(items: Sequence[tuple[str, str]]) -> str | None:
    """Given a ``/games`` query's items, return the query string without the empty values an
    HTML form sends for unused fields (``year_from=&tag=``), or None when there are none."""
    kept = [(k, v) for k, v in items if not (k in BROWSE_PARAMS and not v.strip())]
    return urlencode(kept) if len(kept) != len(items) else None


def form_from_items(items: Sequence[tuple[str, str]]) -> FormState:
    """Given raw ``/games`` query items (possibly invalid), return what the form shows."""
    values: dict[str, list[str]] = {}
    for name, value in items:
        values.setdefault(name, []).append(value)
    genres = {p.strip().lower() for v in values.get("genre", []) for p in v.split(",")}
    return FormState(
        genres=frozenset(genres),
        tag=", ".join(values.get("tag", [])),
        year_from=values.get("year_from", [""])[0],
        year_to=values.get("year_to", [""])[0],
        on_sale=values.get("on_sale", [""])[0].lower() == "true",
    )


def form_from_filters(filters: Filters) -> FormState:
    """Given valid filters, return what the form shows."""
    return FormState(
        genres=filters.genres,
        tag=", ".join(sorted(filters.tags)),
        year_from="" if filters.year_from is None else str(filters.year_from),
        year_to="" if filters.year_to is None else str(filters.year_to),
        on_sale=filters.on_sale,
    )


def listing_of(envelope: bytes, path: str, query: Mapping[str, str]) -> Listing:
    """Given a list envelope's bytes and the page's path and canonical query, return the
    Listing with root-relative paging links."""
    data = orjson.loads(envelope)
    links = {
        rel: f"{path}?{urlencode({**query, 'page': str(n)}, safe=',')}"
        for rel, n in page_rels(data["page"], data["pages"])
    }
    return Listing(data["games"], data["page"], data["pages"], data["total"], links)


class Pages:
    """Serves the website's pages over the shim's snapshot source and quota."""

    def __init__(self, shim: Shim) -> None:
        self.shim = shim
        self.site = SiteRenderer(site_url=shim.site_url, base_url=shim.base_url)
        self.root = self.site.env.globals["root"]
        self._rendered: dict[tuple[str, str, bytes], Resolved | PageAnswer] = {}
        self._rendered_for = ""
        self._not_rated: tuple[str, NotRated] | None = None
        self._not_rated_lock = asyncio.Lock()

    # -- allowance and answers ---------------------------------------------------------------

    def subject(self, request: Request) -> str:
        """Given a request, return the subject its page views count against."""
        return f"page:{request.client.host if request.client else 'unknown'}"

    def charge(self, request: Request) -> tuple[bool, Rate, int]:
        """Given a page request, count it; return (admitted, rate headers, seconds to reset)."""
        hit, window = self.shim.quota.charge(self.subject(request), self.shim.quota.page_limit)
        return hit.admitted, rate_headers(hit.limit, hit.used, window), window.seconds_to_reset

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

    def refused(self, request: Request, rate: Rate, seconds: int) -> Response:
        """Return the HTML 429 of a client past its daily page allowance."""
        hours, minutes = divmod(-(-seconds // 60), 60)
        return self.html(
            request,
            429,
            "Too many page views today",
            f"This address has viewed {self.shim.quota.page_limit:,} pages today, its daily "
            f"allowance. It starts again at 00:00 UTC, in {hours} h {minutes} min. "
            "Programs should use the API with a key instead.",
            rate,
            {"Retry-After": str(seconds)},
        )

    def missing(self, request: Request, rate: Rate, detail: str | None = None) -> Response:
        """Return the HTML 404 page."""
        message = detail or f"There is no page at {request.url.path}."
        return self.html(request, 404, "Page not found", message, rate)

    def unavailable(self, request: Request) -> Response:
        """Return the HTML 503 page (snapshot store unreachable or nothing published)."""
        return self.html(
            request,
            503,
            "BangScore is briefly unavailable",
            "The ratings could not be loaded just now; try again in a few seconds.",
            [],
            {"Retry-After": "5"},
        )

    async def http_error(self, request: Request, status: int) -> Response:
        """Given a page request that routing refused (404, 405), count it and answer HTML."""
        admitted, rate, seconds = self.charge(request)
        if not admitted:
            return self.refused(request, rate, seconds)
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
        resolve: Callable[[LoadedSnapshot], Awaitable[Resolved | PageAnswer | Response]],
    ) -> Response:
        """Serve a page: resolve it, answer 304 free if the ETag matches, else count the view
        against the page allowance (an HTML 429 past it) and answer."""
        snap = self.shim.source.current
        if snap is None:
            return self.unavailable(request)
        try:
            resolved = await resolve(snap)
        except ObjectStorageError:
            return self.unavailable(request)
        except NotFound as exc:
            resolved = PageAnswer(404, str(exc).encode())
        if isinstance(resolved, Resolved) and etag_matches(
            request.headers.get("if-none-match"), resolved.etag
        ):
            hit, window = self.shim.quota.peek(self.subject(request), self.shim.quota.page_limit)
            return self.shim.ok(snap, resolved, rate_headers(hit.limit, hit.used, window), 304)
        admitted, rate, seconds = self.charge(request)
        if not admitted:
            return self.refused(request, rate, seconds)
        if isinstance(resolved, Resolved):
            return self.shim.ok(snap, resolved, rate, 200)
        if isinstance(resolved, PageAnswer):
            if resolved.status == 404:
                return self.missing(request, rate, resolved.body.decode())
            headers = {**dict(rate), "Cache-Control": "no-store"}
            return Response(resolved.body, resolved.status, headers=headers, media_type=HTML)
        resolved.headers.update(dict(rate))
        return resolved

    def remembered(
        self, request: Request, render: Callable[[LoadedSnapshot], Awaitable[Resolved | PageAnswer]]
    ) -> Callable[[LoadedSnapshot], Awaitable[Resolved | PageAnswer]]:
        """Given a renderer of a request's page, return a resolver that renders it once per
        snapshot, path and query string (a snapshot never changes), bounded."""

        async def resolve(snap: LoadedSnapshot) -> Resolved | PageAnswer:
            if self._rendered_for != snap.id or len(self._rendered) >= MAX_RENDERED:
                self._rendered, self._rendered_for = {}, snap.id
            key = (snap.id, request.scope["path"], request.scope["query_string"])
            answer = self._rendered.get(key)
            if answer is None:
                answer = await render(snap)
                self._rendered[key] = answer
            return answer

        return resolve

    # -- the not-rated apps ------------------------------------------------------------------

    async def not_rated(self, snap: LoadedSnapshot) -> NotRated:
        """Given a snapshot, return its known-but-unrated apps (none when the snapshot has no
        such object, or a malformed one, which is logged)."""
        if self._not_rated is not None and self._not_rated[0] == snap.id:
            return self._not_rated[1]
        async with self._not_rated_lock:  # one build per snapshot, however many searches wait
            if self._not_rated is not None and self._not_rated[0] == snap.id:
                return self._not_rated[1]
            loaded = NO_UNRATED
            if snap.entry(NOT_RATED_KEY) is not None:
                raw = await self.shim.source.body(snap, NOT_RATED_KEY)
                try:
                    # Indexing 150k names takes seconds: off the event loop, once per snapshot.
                    loaded = await anyio.to_thread.run_sync(parse_not_rated, raw)
                except ValueError as exc:
                    log.error("snapshot %s: %s", snap.id, exc)
            self._not_rated = (snap.id, loaded)
            return loaded

    async def dates(self, snap: LoadedSnapshot) -> dict[str, str | None]:
        """Given a snapshot, return its dates (``snapshot_date``, ``prices_as_of``: ISO dates
        or None); none for a snapshot built before it recorded them."""
        if snap.entry(DATES_KEY) is None:
            return {}
        try:
            data = orjson.loads(await self.shim.source.body(snap, DATES_KEY))
            return {k: (str(v) if v else None) for k, v in dict(data).items()}
        except (orjson.JSONDecodeError, TypeError, ValueError) as exc:
            log.error("snapshot %s: bad dates object: %s", snap.id, exc)
            return {}

    # -- pages -------------------------------------------------------------------------------

    def stored(self, key: str) -> Callable[[Request], Awaitable[Response]]:
        """Given a snapshot key, return the endpoint serving that stored HTML page."""

        async def endpoint(request: Request) -> Response:
            async def resolve(snap: LoadedSnapshot) -> Resolved:
                return await self.shim.stored(snap, key, HTML)

            return await self.serve(request, resolve)

        return endpoint

    async def favicon(self, request: Request) -> Response:
        """Serve the site icon, not counted (a browser asks for it with every first page)."""
        snap = self.shim.source.current
        if snap is None or snap.entry(FAVICON_KEY) is None:
            return Response(status_code=404, headers={"Cache-Control": "no-store"})
        try:
            resolved = await self.shim.stored(snap, FAVICON_KEY, SVG_TYPE)
        except ObjectStorageError:
            return Response(status_code=503, headers={"Retry-After": "5"})
        hit, window = self.shim.quota.peek(self.subject(request), self.shim.quota.page_limit)
        rate = rate_headers(hit.limit, hit.used, window)
        matched = etag_matches(request.headers.get("if-none-match"), resolved.etag)
        return self.shim.ok(snap, resolved, rate, 304 if matched else 200)

    async def badge(self, request: Request) -> Response:
        """Serve ``/badge/<appid>.svg``: the game's precomputed badge, no key, not counted
        (other sites embed it), cacheable by anyone for a day; 404 without a body else."""
        raw = request.path_params["appid"]
        snap = self.shim.source.current
        if snap is None:
            return Response(status_code=503, headers={"Retry-After": "5"})
        key = (
            badge_key(int(raw))
            if raw.isascii() and raw.isdigit() and len(raw) <= MAX_APPID_DIGITS
            else None
        )
        if key is None or snap.entry(key) is None:
            return Response(status_code=404, headers={"Cache-Control": "no-store"})
        try:
            resolved = await self.shim.stored(snap, key, SVG_TYPE)
        except ObjectStorageError:
            return Response(status_code=503, headers={"Retry-After": "5"})
        hit, window = self.shim.quota.peek(self.subject(request), self.shim.quota.page_limit)
        rate = rate_headers(hit.limit, hit.used, window)
        matched = etag_matches(request.headers.get("if-none-match"), resolved.etag)
        response = self.shim.ok(snap, resolved, rate, 304 if matched else 200)
        response.headers["Cache-Control"] = "public, max-age=86400"
        response.headers["Access-Control-Allow-Origin"] = "*"
        return response

    async def game(self, request: Request) -> Response:
        """Serve ``/game/<appid>/<slug>``; a wrong or missing slug redirects (301) to the
        canonical URL."""

        async def resolve(snap: LoadedSnapshot) -> Resolved | Response:
            raw = request.path_params["appid"]
            pos = (
                snap.index.position.get(int(raw))
                if raw.isascii() and raw.isdigit() and len(raw) <= MAX_APPID_DIGITS
                else None
            )
            if pos is None:
                known = (
                    snap.not_rated.lookup(int(raw))
                    if raw.isascii() and raw.isdigit() and len(raw) <= MAX_APPID_DIGITS
                    else None
                )
                if known is None:
                    raise NotFound("game_not_found", f"No rated game has appid {raw}.")
                name, reason = known
                body = self.site.not_rated_page(
                    appid=int(raw),
                    name=name,
                    reason=reason,
                    reason_text=NOT_RATED_REASONS.get(reason, reason.replace("_", " ")),
                )
                return Resolved(body, etag_for(body), HTML)
            canonical = snap.index.urls[pos]
            if not canonical.endswith(request.url.path):
                return RedirectResponse(canonical, 301)
            return await self.shim.stored(snap, game_page_key(int(raw)), HTML)

        return await self.serve(request, resolve)

    async def browse(self, request: Request) -> Response:
        """Serve ``/games``: the API's list filters as a form, over the same selection code."""
        items = request.query_params.multi_items()
        cleaned = browse_redirect(items)
        if cleaned is not None:
            target = f"{self.root}/games" + (f"?{cleaned}" if cleaned else "")

            async def redirect(_: LoadedSnapshot) -> Response:
                return RedirectResponse(target, 302)

            return await self.serve(request, redirect)

        async def render(snap: LoadedSnapshot) -> Resolved | PageAnswer:
            try:
                query = params.parse_list_query(items)
            except BadRequest as exc:
                listing = Listing([], 1, 0, 0)
                body = self.site.browse_page(
                    listing,
                    form=form_from_items(items),
                    api_url=f"{self.shim.base_url}/api/v1/games",
                    errors=exc.errors,
                )
                return PageAnswer(400, body)
            canonical = query.filters.to_query()
            envelope, _ = await self.shim.list_page(snap, query.filters, query.page)
            listing = listing_of(envelope, f"{self.root}/games", canonical)
            api_query = {**canonical, **({"page": str(query.page)} if query.page > 1 else {})}
            api_url = f"{self.shim.base_url}/api/v1/games"
            body = self.site.browse_page(
                listing,
                form=form_from_filters(query.filters),
                api_url=api_url + (f"?{urlencode(api_query, safe=',')}" if api_query else ""),
                dates=await self.dates(snap),
            )
            return Resolved(body, etag_for(body), HTML)

        return await self.serve(request, self.remembered(request, render))

    async def search(self, request: Request) -> Response:
        """Serve ``/search?q=``: the API's search, plus the known games that are not rated."""
        items = request.query_params.multi_items()

        async def render(snap: LoadedSnapshot) -> Resolved | PageAnswer:
            empty = Listing([], 1, 0, 0)
            if not any(k == "q" and v.strip() for k, v in items):
                body = self.site.search_page("", empty)
                return Resolved(body, etag_for(body), HTML)
            try:
                query = params.parse_search_query(items)
            except BadRequest as exc:
                typed = next((v for k, v in items if k == "q"), "").strip()[:MAX_QUERY_LENGTH]
                errors: list[ParamError] = exc.errors
                return PageAnswer(400, self.site.search_page(typed, empty, errors=errors))
            envelope, _ = await anyio.to_thread.run_sync(
                snap.search_page, query.q, query.page, limiter=SEARCH_THREADS
            )
            listing = listing_of(envelope, f"{self.root}/search", {"q": query.q})
            unrated = (
                await anyio.to_thread.run_sync(
                    (await self.not_rated(snap)).search, query.q, limiter=SEARCH_THREADS
                )
                if query.page == 1
                else []
            )
            api_query = {"q": query.q, **({"page": str(query.page)} if query.page > 1 else {})}
            body = self.site.search_page(
                query.q,
                listing,
                not_rated=unrated,
                api_url=f"{self.shim.base_url}/api/v1/search?{urlencode(api_query)}",
                dates=await self.dates(snap),
            )
            return Resolved(body, etag_for(body), HTML)

        return await self.serve(request, self.remembered(request, render))

    def is_page(self, path: str) -> bool:
        """Given a request path, return True if it belongs to the website (not the API)."""
        return not (path.startswith("/api/") or path in ("/api", "/metrics"))

    def routes(self) -> list[Route]:
        """Return the website's routes."""
        return [
            Route("/", self.stored(HOME_KEY)),
            Route("/docs", self.stored(DOCS_KEY)),
            Route("/about/score", self.stored(ABOUT_SCORE_KEY)),
            Route("/badge/{appid}.svg", self.badge),
            Route("/docs/errors", self.stored(DOCS_KEY)),
            Route("/games", self.browse),
            Route("/search", self.search),
            Route("/game/{appid}", self.game),
            Route("/game/{appid}/{slug}", self.game),
            Route("/favicon.svg", self.favicon),
            Route("/favicon.ico", self.favicon),
        ]
