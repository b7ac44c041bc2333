"""The website's lists of games (docs/API.md#website): browse (``/games``, the API's list
filters as a form, over the same selection code) and search (``/search?q=``, the API's search
and the known games that are not rated), each read once and rendered once per snapshot and
reading (:meth:`bangscore.shim.pages.Pages.remembered`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from urllib.parse import urlencode

import anyio.to_thread
import orjson
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from bangscore.contract.filters import list_filters, raw_form
from bangscore.contract.limits import MAX_QUERY_LENGTH
from bangscore.contract.paging import page_rels
from bangscore.errors import BadRequest
from bangscore.manifest import etag_for
from bangscore.shim import params
from bangscore.shim.answer import HTML, Resolved
from bangscore.shim.pages import SEARCH_THREADS, PageAnswer, Pages, adult_shown, here
from bangscore.shim.source import LoadedSnapshot
from bangscore.site.adult import keep_adult
from bangscore.site.render import Listing


def browse_redirect(items: Sequence[tuple[str, str]]) -> str | None:
    """Given a ``/games`` query's items, return the query string without the empty values an
    HTML form sends for unused fields (``year_from=&tag=``), or None when there are none."""
    fields = {*(f.name for f in list_filters()), "page", "adult"}
    kept = [(k, v) for k, v in items if not (k in fields and not v.strip())]
    return urlencode(kept) if len(kept) != len(items) else None


def _values(items: Sequence[tuple[str, str]]) -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    for name, value in items:
        values.setdefault(name, []).append(value)
    return values


def listing_of(envelope: bytes, path: str, query: Mapping[str, str]) -> Listing:
    """Given a list envelope's bytes and the page's path and canonical query, return the
    Listing with root-relative paging links."""
    data = orjson.loads(envelope)
    links = {
        rel: f"{path}?{urlencode({**query, 'page': str(n)}, safe=',')}"
        for rel, n in page_rels(data["page"], data["pages"])
    }
    return Listing(data["games"], data["page"], data["pages"], data["total"], links)


async def browse(request: Request) -> Response:
    """Serve ``/games``: the API's list filters as a form, over the same selection code."""
    pages: Pages = request.app.state.pages
    items = request.query_params.multi_items()
    cleaned = browse_redirect(items)
    if cleaned is not None:
        target = f"{pages.root}/games" + (f"?{cleaned}" if cleaned else "")

        async def redirect(_: LoadedSnapshot) -> Response:
            return RedirectResponse(target, 302)

        return await pages.serve(request, redirect)

    def read() -> tuple[bool, params.ListQuery]:
        adult, rest = adult_shown(items)
        return adult, params.parse_list_query(rest)

    async def refuse(error: BadRequest) -> PageAnswer:
        listing = Listing([], 1, 0, 0)
        body = pages.site.browse_page(
            listing,
            form=raw_form(_values(items)),
            api_url=f"{pages.base_url}/api/v1/games",
            errors=error.errors,
        )
        return PageAnswer(400, body)

    async def render(snap: LoadedSnapshot, reading: tuple[bool, params.ListQuery]) -> Resolved:
        adult, query = reading
        filters = dataclasses.replace(query.filters, adult=adult)
        canonical = query.filters.to_query()
        envelope, _ = await pages.lists.page(snap, filters, query.page, once=True)
        listing = listing_of(envelope, f"{pages.root}/games", canonical)
        api_query = {**canonical, **({"page": str(query.page)} if query.page > 1 else {})}
        api_url = f"{pages.base_url}/api/v1/games"
        body = pages.site.browse_page(
            listing,
            form=query.filters.form(),
            api_url=api_url + (f"?{urlencode(api_query, safe=',')}" if api_query else ""),
            dates=await pages.dates(snap),
            here=here(f"{pages.root}/games", api_query),
            audio=snap.index.with_audio(filters, [int(g["appid"]) for g in listing.games]),
        )
        body = keep_adult(body, pages.root) if adult else body
        return Resolved(body, etag_for(body), HTML)

    return await pages.serve(request, pages.remembered(request, read, render, refuse))


async def search(request: Request) -> Response:
    """Serve ``/search?q=``: the API's search, plus the known games that are not rated."""
    pages: Pages = request.app.state.pages
    items = request.query_params.multi_items()

    empty = Listing([], 1, 0, 0)

    def read() -> tuple[bool, params.SearchQuery] | None:
        if not any(k == "q" and v.strip() for k, v in items):
            return None  # no query: the empty search page, whatever else was sent
        adult, rest = adult_shown(items)
        return adult, params.parse_search_query(rest)

    async def refuse(error: BadRequest) -> PageAnswer:
        typed = next((v for k, v in items if k == "q"), "").strip()[:MAX_QUERY_LENGTH]
        return PageAnswer(400, pages.site.search_page(typed, empty, errors=error.errors))

    async def render(
        snap: LoadedSnapshot, reading: tuple[bool, params.SearchQuery] | None
    ) -> Resolved:
        if reading is None:
            body = pages.site.search_page("", empty)
            return Resolved(body, etag_for(body), HTML)
        adult, query = reading
        envelope, _ = await anyio.to_thread.run_sync(
            snap.search_page,
            query.q,
            query.page,
            adult,
            query.max_price_cents,
            limiter=SEARCH_THREADS,
        )
        canonical = query.to_query()
        listing = listing_of(envelope, f"{pages.root}/search", canonical)
        unrated = (
            await anyio.to_thread.run_sync(
                (await pages.not_rated(snap)).search, query.q, limiter=SEARCH_THREADS
            )
            if query.page == 1
            else []
        )
        api_query = {**canonical, **({"page": str(query.page)} if query.page > 1 else {})}
        body = pages.site.search_page(
            query.q,
            listing,
            not_rated=unrated,
            api_url=f"{pages.base_url}/api/v1/search?{urlencode(api_query)}",
            dates=await pages.dates(snap),
            here=here(f"{pages.root}/search", api_query),
        )
        body = keep_adult(body, pages.root) if adult else body
        return Resolved(body, etag_for(body), HTML)

    return await pages.serve(request, pages.remembered(request, read, render, refuse))
