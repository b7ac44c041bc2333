"""Push's routes (docs/API.md#push): the Atom feeds on the website (``/feeds/<name>.atom``,
counted against the page allowance like any page, since they show scores) and the change feed
``GET /api/v1/changes?since=`` (keyed, one counted request a page).

Both serve stored snapshot objects the builder wrote (:mod:`bangscore.build.feeds`,
:mod:`bangscore.build.changes`): nothing is composed on the hot path but the empty page past
the last and the refusals.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import orjson
from starlette.requests import Request
from starlette.responses import Response

from bangscore.contract.push import (
    CHANGES_INDEX_KEY,
    FEED_TYPE,
    changes_key,
    feed_key,
    feed_names,
)
from bangscore.errors import BadRequest, ParamError, ProblemRefusal, ResourceNotFound
from bangscore.manifest import etag_for
from bangscore.shim import api, params
from bangscore.shim.answer import JSON_TYPE, Resolved, Stored, stored
from bangscore.shim.source import LoadedSnapshot
from bangscore.stores.keystore import KeyRecord

if TYPE_CHECKING:
    from bangscore.shim.pages import Pages

FEEDS = frozenset(feed_names())
# A snapshot id as the builder makes them (bangscore.build.publish.new_snapshot_id).
SNAPSHOT_ID = re.compile(r"[0-9]{8}T[0-9]{6}Z-[0-9a-f]{4}")


async def feed(request: Request) -> Response:
    """Given ``GET /feeds/<name>.atom``, return that stored Atom feed (the HTML 404 page for
    a name that is no feed)."""
    pages: Pages = request.app.state.pages
    path = str(request.path_params["name"])
    name = path.removesuffix(".atom")

    async def resolve(snap: LoadedSnapshot) -> Stored:
        if not path.endswith(".atom") or name not in FEEDS:
            raise ResourceNotFound("not_found", f"There is no feed at {request.url.path}.")
        return stored(snap, feed_key(name), FEED_TYPE)

    return await pages.serve(request, resolve)


async def changes(request: Request) -> Response:
    """Given ``GET /api/v1/changes?since=<snapshot id>&page=N`` with a key, return that page
    of the changes since that snapshot (400 ``invalid_parameter`` for an unknown or malformed
    ``since``, 410 ``history_expired`` for one older than the kept history)."""
    return await api.keyed(request, CHANGES)


def _changes_query(request: Request) -> tuple[str, int]:
    return params.parse_changes_query(request.query_params.multi_items())


async def _changes(
    request: Request, _: KeyRecord, snap: LoadedSnapshot, query: tuple[str, int]
) -> Stored | Resolved:
    since, page = query
    if snap.entry(changes_key(since, page)) is not None:
        return stored(snap, changes_key(since, page), JSON_TYPE)
    source = request.app.state.source
    if snap.entry(changes_key(since, 1)) is not None:
        # A page past the last: the first page's envelope with no change, as lists answer.
        first = orjson.loads(await source.body(snap, changes_key(since, 1)))
        body = orjson.dumps({**first, "page": page, "changes": []})
        return Resolved(body, etag_for(body))
    if snap.entry(CHANGES_INDEX_KEY) is None:
        raise BadRequest([ParamError("since", "this snapshot keeps no change history")])
    kept: list[str] = orjson.loads(await source.body(snap, CHANGES_INDEX_KEY))["snapshots"]
    # Only an id of this service's form can be one it has dropped; any other is unknown.
    if kept and SNAPSHOT_ID.fullmatch(since) and since < kept[0]:
        raise ProblemRefusal(
            "history_expired",
            f"Snapshot {since} is older than the kept history, which starts at {kept[0]}: "
            "read the games again (or the Bulk export), then follow the changes from "
            f"{snap.id}.",
            extra={"oldest": kept[0], "snapshot": snap.id},
        )
    raise BadRequest([ParamError("since", f"no snapshot {since} is in the kept history")])


CHANGES = api.KeyedRoute(_changes_query, _changes)
