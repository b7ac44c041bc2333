"""The website's game pages (docs/API.md#website): ``/game/<appid>/<slug>``, the stored page
of a rated game (a wrong or missing slug redirects to the canonical URL), recomposed with adult
games among its better-value candidates for ``adult=true``; a known app that is not rated
gets a page naming why.
"""

from __future__ import annotations

from functools import partial
from urllib.parse import urlsplit

import orjson
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from bangscore.contract.limits import MAX_APPID_DIGITS
from bangscore.contract.not_rated import REASON_LABEL
from bangscore.contract.objects import game_page_key
from bangscore.errors import BadRequest, ObjectPending, ResourceNotFound
from bangscore.manifest import etag_for
from bangscore.shim.answer import HTML, Resolved, Stored, stored
from bangscore.shim.pages import Pages, adult_shown
from bangscore.shim.source import LoadedSnapshot
from bangscore.site.adult import keep_adult, replace_better_box


async def game(request: Request) -> Response:
    """Serve ``/game/<appid>/<slug>``; a wrong or missing slug redirects (301) to the
    canonical URL."""
    pages: Pages = request.app.state.pages

    async def resolve(snap: LoadedSnapshot) -> Resolved | Stored | Response:
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
                raise ResourceNotFound("game_not_found", f"No rated game has appid {raw}.")
            name, reason = known
            body = pages.site.not_rated_page(
                appid=int(raw),
                name=name,
                reason=reason,
                reason_text=REASON_LABEL.get(reason, reason.replace("_", " ")),
                edition=snap.index.name_and_url(snap.not_rated.superseded_by(int(raw))),
            )
            return Resolved(body, etag_for(body), HTML)
        canonical = snap.index.url(pos)
        if not canonical.endswith(request.url.path):
            # The path from the snapshot, the origin this server answers for (docs/API.md,
            # network edge): a snapshot built for another host or port redirects here.
            path = urlsplit(canonical).path
            query = "?adult=true" if adult else ""
            return RedirectResponse(f"{pages.origin}{path}{query}", 301)
        if snap.pages_pending and snap.entry(game_page_key(int(raw))) is None:
            raise ObjectPending(f"the page of game {raw} is still being written")
        if adult:
            return await with_adult(snap, int(raw))
        return stored(snap, game_page_key(int(raw)), HTML)

    async def with_adult(snap: LoadedSnapshot, appid: int) -> Resolved:
        """The stored page with its better-value box recomposed with adult games among the
        candidates and the toggle kept in its links, kept per snapshot."""
        return await snap.pages.kept(("game-adult", appid), partial(adult_page, snap))  # type: ignore[no-any-return]

    async def adult_page(snap: LoadedSnapshot, reading: tuple[str, int]) -> Resolved:
        appid = reading[1]
        page = await pages.source.body(snap, game_page_key(appid))
        item = orjson.loads(snap.index.item(snap.index.position[appid]))
        box = pages.site.better_box(item, snap.index.better_value(appid), await pages.dates(snap))
        body = keep_adult(replace_better_box(page, box), pages.root)
        return Resolved(body, etag_for(body), HTML)

    try:
        adult, _ = adult_shown(request.query_params.multi_items())
    except BadRequest as exc:
        return await pages.serve(request, pages.bad_parameter(exc))
    return await pages.serve(request, resolve)
