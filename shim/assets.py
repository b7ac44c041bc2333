"""The website's small files (docs/API.md#website), none of them counted: the site icon, the
Open Graph card, the stylesheet and each game's embeddable badge. Each is a module-level
``async def`` handler reading the website's service (:class:`bangscore.shim.pages.Pages`) from
``request.app.state.pages``; :mod:`bangscore.shim.website` routes them.
"""

from __future__ import annotations

import hashlib
from importlib.resources import files
from typing import TYPE_CHECKING

from starlette.requests import Request
from starlette.responses import Response

from bangscore.contract.limits import MAX_APPID_DIGITS
from bangscore.contract.objects import FAVICON_KEY, STYLE_KEY, badge_key
from bangscore.errors import ObjectPending
from bangscore.manifest import etag_for
from bangscore.shim.answer import Resolved, Stored, stored
from bangscore.shim.pages import CACHE_VERSIONED, CSS_TYPE, SVG_TYPE
from bangscore.shim.source import LoadedSnapshot

if TYPE_CHECKING:
    from bangscore.shim.pages import Pages


async def favicon(request: Request) -> Response:
    """Serve the site icon, not counted (a browser asks for it with every first page)."""
    pages: Pages = request.app.state.pages

    async def resolve(snap: LoadedSnapshot) -> Stored | Response:
        if snap.entry(FAVICON_KEY) is None:
            return Response(status_code=404, headers={"Cache-Control": "no-store"})
        return stored(snap, FAVICON_KEY, SVG_TYPE)

    return await pages.answer(request, resolve, pages.allowance(request, counted=False))


OG_CARD = (files("bangscore.site.cards") / "og-card.png").read_bytes()
OG_CARD_ETAG = f'"{hashlib.sha256(OG_CARD).hexdigest()[:32]}"'


async def og_card(request: Request) -> Response:
    """Serve ``/og-card.png``, the site's one raster Open Graph card (1200x630; social sites
    render no SVG), not counted, cacheable by anyone for a day. It is a package file, not a
    snapshot object: it names no game (see bangscore/site/cards/make_card.py)."""
    headers = {"Cache-Control": "public, max-age=86400", "ETag": OG_CARD_ETAG}
    if request.headers.get("if-none-match") == OG_CARD_ETAG:
        return Response(status_code=304, headers=headers)
    return Response(OG_CARD, media_type="image/png", headers=headers)


async def stylesheet(request: Request) -> Response:
    """Serve ``/style.css``, the site's stylesheet every page links, not counted: the
    snapshot's object, or this shim's own when the snapshot has none (or none is loaded, so
    that even the 503 page keeps its looks). Asked as ``?v=<its version>`` it may be cached
    for good (``immutable``); any other ``v`` gets the usual short cache and its ETag."""
    pages: Pages = request.app.state.pages
    site = pages.site
    own = Resolved(site.stylesheet, etag_for(site.stylesheet), CSS_TYPE)

    async def resolve(snap: LoadedSnapshot) -> Stored | Resolved:
        if snap.entry(STYLE_KEY) is None:
            return own
        return stored(snap, STYLE_KEY, CSS_TYPE)

    if pages.source.current is None:
        response = Response(own.body, headers={"ETag": own.etag}, media_type=CSS_TYPE)
    else:
        response = await pages.answer(request, resolve, pages.allowance(request, counted=False))
    if response.status_code in (200, 304):
        etag = response.headers.get("etag", "").strip('"')
        versioned = request.query_params.get("v")
        fresh = versioned is not None and len(versioned) == 16 and etag.startswith(versioned)
        response.headers["Cache-Control"] = CACHE_VERSIONED if fresh else "no-cache"
    return response


async def badge(request: Request) -> Response:
    """Serve ``/badge/<appid>.svg``: the game's precomputed badge, no key, not counted
    (other sites embed it), cacheable by anyone for a day; 404 without a body else."""
    pages: Pages = request.app.state.pages
    raw = request.path_params["appid"]
    key = (
        badge_key(int(raw))
        if raw.isascii() and raw.isdigit() and len(raw) <= MAX_APPID_DIGITS
        else None
    )

    async def resolve(snap: LoadedSnapshot) -> Stored | Response:
        if key is not None and snap.pages_pending and snap.entry(key) is None:
            pending = snap.index.position.get(int(raw)) is not None  # a rated game's, to come
            if pending:
                raise ObjectPending(f"the badge of game {raw} is still being written")
        if key is None or snap.entry(key) is None:
            return Response(status_code=404, headers={"Cache-Control": "no-store"})
        return stored(snap, key, SVG_TYPE)

    response = await pages.answer(request, resolve, pages.allowance(request, counted=False))
    if response.status_code in (200, 304):
        # Access-Control-Allow-Origin: * comes from the edge (EDGE_HEADERS) on every answer:
        # a second copy here made browsers refuse a cross-origin fetch().
        response.headers["Cache-Control"] = "public, max-age=86400"
    return response
