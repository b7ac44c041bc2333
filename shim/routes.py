"""The route table: each endpoint of docs/API.md#endpoints as a resolver handed to
:class:`Shim`."""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable

import anyio.to_thread
import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bangscore.contract.filters import (
    OPENAPI_KEY,
    ROOT_KEY,
    detail_key,
)
from bangscore.contract.not_rated import REASON_DETAIL
from bangscore.contract.paging import page_count
from bangscore.manifest import etag_for
from bangscore.shim import params
from bangscore.shim.answer import JSON_TYPE, NotFound, Resolved, Stored
from bangscore.shim.handlers import Shim
from bangscore.shim.keystore import KeyRecord
from bangscore.shim.pages import SEARCH_THREADS
from bangscore.shim.source import LoadedSnapshot


def _total(body: bytes) -> int:
    # The envelope starts {"page":N,"pages":N,"total":N, ...: read total without parsing games.
    head = body[: body.index(b',"games"')]
    return int(head.rsplit(b":", 1)[1])


def build_routes(shim: Shim) -> list[Route]:
    """Given the shim, return the route table of the app."""

    async def games(request: Request) -> Response:
        async def resolve(snap: LoadedSnapshot, _: KeyRecord) -> Resolved:
            query = params.parse_list_query(request.query_params.multi_items())
            body, etag = await shim.list_page(snap, query.filters, query.page)
            link = shim.links(
                snap,
                "/api/v1/games",
                query.filters.to_query(),
                query.page,
                page_count(_total(body)),
            )
            return Resolved(body, etag, headers=(("Link", link),) if link else ())

        return await shim.keyed(request, shim.memo(request, resolve))

    async def game(request: Request) -> Response:
        async def resolve(snap: LoadedSnapshot, _: KeyRecord) -> Stored:
            appid = params.parse_appid(request.path_params["appid"])
            params.parse_plain_query(request.query_params.multi_items())
            if snap.entry(detail_key(appid)) is None:
                known = snap.not_rated.lookup(appid)
                if known is None:
                    raise NotFound("game_not_found", f"No known app has appid {appid}.")
                name, reason = known
                raise NotFound(
                    "game_not_rated",
                    f"{name or 'App ' + str(appid)} (appid {appid}) is not rated: "
                    f"{REASON_DETAIL[reason]}.",
                    extra={"appid": appid, "name": name, "reason": reason},
                )
            return shim.stored(snap, detail_key(appid), JSON_TYPE)

        return await shim.keyed(request, shim.memo(request, resolve))

    async def search(request: Request) -> Response:
        async def resolve(snap: LoadedSnapshot, _: KeyRecord) -> Resolved:
            query = params.parse_search_query(request.query_params.multi_items())
            # Off the event loop (CPU work), on the pages' bounded pool of search threads.
            body, etag = await anyio.to_thread.run_sync(
                snap.search_page, query.q, query.page, limiter=SEARCH_THREADS
            )
            link = shim.links(
                snap, "/api/v1/search", {"q": query.q}, query.page, page_count(_total(body))
            )
            return Resolved(body, etag, headers=(("Link", link),) if link else ())

        return await shim.keyed(request, shim.memo(request, resolve))

    async def usage(request: Request) -> Response:
        async def resolve(snap: LoadedSnapshot, record: KeyRecord) -> Resolved:
            params.parse_plain_query(request.query_params.multi_items())
            hit, window = shim.quota.peek(record.subject, record.daily_limit)
            days = [window.day - dt.timedelta(days=n) for n in range(29, -1, -1)]
            counts = shim.quota.store.history(record.subject, days)  # KeyStoreUnavailable: 503
            body = orjson.dumps(
                {
                    "key_id": record.key_id,
                    "plan": record.plan,
                    "limit": record.daily_limit,
                    "used": hit.used,
                    "remaining": hit.remaining,
                    "reset_at": dt.datetime.fromtimestamp(window.reset_at, dt.UTC).isoformat(),
                    "days": [{"date": d.isoformat(), "count": counts[d]} for d in days],
                }
            )
            return Resolved(body, etag_for(body))

        response = await shim.keyed(request, resolve, counted=False)
        if response.status_code == 200:
            response.headers["Cache-Control"] = "no-store"  # live counts, not a snapshot
        return response

    def document(key: str, content_type: str) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            async def resolve(snap: LoadedSnapshot) -> Stored:
                return shim.stored(snap, key, content_type)

            return await shim.anonymous(request, resolve)

        return endpoint

    async def metrics(request: Request) -> Response:
        m = shim.quota.metrics
        lines = [
            f"bangscore_store_errors_total {m.store_errors}",
            f"bangscore_fail_open_admits_total {m.fail_open_admits}",
            f"bangscore_key_cache_hits_total {m.key_cache_hits}",
            f"bangscore_key_lookups_total {m.key_lookups}",
            f"bangscore_snapshot_switches_total {shim.source.switches}",
            f"bangscore_body_cache_bytes {shim.source.cache.size}",
        ]
        lines += [f"bangscore_quota_{name}_total {n}" for name, n in sorted(m.extra.items())]
        stats = shim.quota.store.stats()
        lines += [f"bangscore_store_{name}_total {n}" for name, n in sorted(stats.items())]
        return Response(
            "\n".join(lines) + "\n",
            headers={"Cache-Control": "no-store"},
            media_type="text/plain; version=0.0.4",
        )

    return [
        Route("/api/v1", document(ROOT_KEY, JSON_TYPE)),
        Route("/api/v1/openapi.json", document(OPENAPI_KEY, JSON_TYPE)),
        Route("/api/v1/games", games),
        Route("/api/v1/games/{appid}", game),
        Route("/api/v1/search", search),
        Route("/api/v1/usage", usage),
        Route("/metrics", metrics),
    ]
