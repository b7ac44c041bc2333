"""The API's route table (docs/API.md#endpoints), read top-down: each endpoint is a
module-level ``async def`` handler that names what it serves (a resolver below it, such as
:func:`_games`) and calls the answer policy with it, through :func:`bangscore.shim.api.keyed`
(a key, its allowance) or :func:`bangscore.shim.api.anonymous` (the client IP's allowance).
A resolver reads its services from ``request.app.state`` and returns the answer from the
snapshot: a :class:`~bangscore.shim.answer.Resolved` body or a
:class:`~bangscore.shim.answer.Stored` object, or raises BadRequest / ResourceNotFound."""

from __future__ import annotations

import datetime as dt
import ipaddress
from typing import Any
from urllib.parse import urlencode

import anyio.to_thread
import orjson
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bangscore.contract.not_rated import REASON_DETAIL
from bangscore.contract.objects import OPENAPI_KEY, ROOT_KEY, detail_key
from bangscore.contract.paging import page_count, page_rels
from bangscore.contract.records import Usage
from bangscore.contract.wire_form import ordered
from bangscore.errors import ResourceNotFound
from bangscore.manifest import etag_for
from bangscore.settings import allowed_networks
from bangscore.shim import answer, api, log_handler, params
from bangscore.shim.answer import JSON_TYPE, Resolved, Stored, stored
from bangscore.shim.metrics import CONTENT_TYPE, Metrics
from bangscore.shim.pages import SEARCH_THREADS
from bangscore.shim.push import changes
from bangscore.shim.source import LoadedSnapshot
from bangscore.stores.keystore import KeyRecord


async def games(request: Request) -> Response:
    """Given ``GET /api/v1/games`` with a key, return the list page of its filters."""
    return await api.keyed(request, GAMES)


async def game(request: Request) -> Response:
    """Given ``GET /api/v1/games/<appid>`` with a key, return the game's detail (404
    ``game_not_found`` or ``game_not_rated`` otherwise)."""
    return await api.keyed(request, GAME)


async def search(request: Request) -> Response:
    """Given ``GET /api/v1/search?q=`` with a key, return the ranked page of matches."""
    return await api.keyed(request, SEARCH)


async def lookup(request: Request) -> Response:
    """Given ``GET /api/v1/lookup?appids=`` with a key, return the list items of up to 100
    games in the order asked, and the appids not rated or not found (one counted request).

    Composed on every request, never remembered: a lookup's body is up to 100 list items
    (60 KB), and distinct wishlists are many, so the snapshot's answer cache would fill with
    them (a rotation of 6,000 distinct lookups took a server to 850 MB); composing costs
    0.3 ms (3 us an appid, real catalogue), hashing the ETag included in the rest."""
    return await api.keyed(request, LOOKUP)


async def usage(request: Request) -> Response:
    """Given ``GET /api/v1/usage`` with a key, return its last 30 days' counts (not counted,
    no-store: live counts, not a snapshot)."""
    response = await api.keyed(request, USAGE)
    if response.status_code == 200:
        response.headers["Cache-Control"] = "no-store"
    return response


async def root(request: Request) -> Response:
    """Given ``GET /api/v1``, return the root listing (no key, the anonymous allowance)."""
    return await api.anonymous(request, _root_document)


async def openapi(request: Request) -> Response:
    """Given ``GET /api/v1/openapi.json``, return the OpenAPI document (no key)."""
    return await api.anonymous(request, _openapi_document)


async def metrics(request: Request) -> Response:
    """Given ``GET /metrics``, return the metrics in the Prometheus text format (no-store),
    summed over every worker (:mod:`bangscore.shim.metrics`).

    Raises HTTPException 404 for any other spelling of the path (``/%6Detrics``: the raw
    path must be ``/metrics`` itself) and for a client outside ``metrics_allow_ips`` when
    that setting names any address (docs/API.md#metrics)."""
    state = request.app.state
    if request.scope.get("raw_path", b"/metrics") != b"/metrics" or not _may_scrape(request):
        raise HTTPException(404)
    exported: Metrics = state.metrics
    exported.sync(counter_totals(state), state.source.cache.size)
    return Response(
        exported.exposition(),
        headers={"Cache-Control": "no-store"},
        media_type=CONTENT_TYPE,
    )


def _list_query(request: Request) -> params.ListQuery:
    return params.parse_list_query(request.query_params.multi_items())


def _appid(request: Request) -> int:
    appid = params.parse_appid(request.path_params["appid"])
    params.parse_plain_query(request.query_params.multi_items())
    return appid


def _search_query(request: Request) -> params.SearchQuery:
    return params.parse_search_query(request.query_params.multi_items())


def _lookup_query(request: Request) -> tuple[int, ...]:
    return params.parse_lookup_query(request.query_params.multi_items())


async def _games(
    request: Request, _: KeyRecord, snap: LoadedSnapshot, query: params.ListQuery
) -> Resolved:
    body, etag = await request.app.state.lists.page(snap, query.filters, query.page)
    pages = page_count(_total(body))
    base = request.app.state.settings.api_base_url
    link = links(snap, base, "/api/v1/games", query.filters.to_query(), query.page, pages)
    return Resolved(body, etag, headers=(("Link", link),) if link else ())


async def _game(_: Request, __: KeyRecord, snap: LoadedSnapshot, appid: int) -> Stored:
    if snap.entry(detail_key(appid)) is None:
        known = snap.not_rated.lookup(appid)
        if known is None:
            raise ResourceNotFound("game_not_found", f"No known app has appid {appid}.")
        name, reason = known
        extra: dict[str, object] = {"appid": appid, "name": name, "reason": reason}
        edition = snap.not_rated.superseded_by(appid)
        if edition is not None:
            extra["superseded_by"] = edition
        raise ResourceNotFound(
            "game_not_rated",
            f"{name or 'App ' + str(appid)} (appid {appid}) is not rated: {REASON_DETAIL[reason]}.",
            extra=extra,
        )
    return stored(snap, detail_key(appid), JSON_TYPE)


async def _search(
    request: Request, _: KeyRecord, snap: LoadedSnapshot, query: params.SearchQuery
) -> Resolved:
    # Off the event loop (CPU work), on the pages' bounded pool of search threads.
    body, etag = await anyio.to_thread.run_sync(
        snap.search_page, query.q, query.page, True, query.max_price_cents, limiter=SEARCH_THREADS
    )
    base = request.app.state.settings.api_base_url
    pages = page_count(_total(body))
    link = links(snap, base, "/api/v1/search", query.to_query(), query.page, pages)
    return Resolved(body, etag, headers=(("Link", link),) if link else ())


async def _lookup(
    _: Request, __: KeyRecord, snap: LoadedSnapshot, appids: tuple[int, ...]
) -> Resolved:
    body, etag = snap.index.lookup(appids, snap.not_rated)
    return Resolved(body, etag)


async def _usage(request: Request, record: KeyRecord, _: LoadedSnapshot, __: None) -> Resolved:
    quota = request.app.state.quota
    hit, window = quota.peek(record.subject, record.daily_limit)
    days = [window.day - dt.timedelta(days=n) for n in range(29, -1, -1)]
    counts = quota.history(record.subject, days)  # StoreUnavailable: 503
    # In the model's field order, refused if the two ever differ (contract/records.Usage).
    body = orjson.dumps(
        ordered(
            Usage,
            {
                "key_id": record.key_id,
                "plan": record.plan,
                "limit": record.daily_limit,
                "used": hit.used,
                "remaining": hit.remaining,
                "reset_at": dt.datetime.fromtimestamp(window.reset_at, dt.UTC).isoformat(),
                "days": [{"date": d.isoformat(), "count": counts[d]} for d in days],
            },
        )
    )
    return Resolved(body, etag_for(body))


# Each keyed route: how it reads its request, and how it resolves an answer from what it read.
GAMES = api.KeyedRoute(_list_query, _games, remember=True)
GAME = api.KeyedRoute(_appid, _game, remember=True)
SEARCH = api.KeyedRoute(_search_query, _search, remember=True)
LOOKUP = api.KeyedRoute(_lookup_query, _lookup)
USAGE = api.KeyedRoute(api.no_query, _usage, counted=False)


async def _root_document(snap: LoadedSnapshot) -> Stored:
    return stored(snap, ROOT_KEY, JSON_TYPE)


async def _openapi_document(snap: LoadedSnapshot) -> Stored:
    return stored(snap, OPENAPI_KEY, JSON_TYPE)


def _total(body: bytes) -> int:
    # The envelope starts {"page":N,"pages":N,"total":N, ...: read total without parsing games.
    head = body[: body.index(b',"games"')]
    return int(head.rsplit(b":", 1)[1])


def links(
    snap: LoadedSnapshot, base_url: str, path: str, query: dict[str, str], page: int, pages: int
) -> str:
    """Given the snapshot, this server's API base URL, a path, canonical query and paging,
    return the RFC 8288 Link header value, on the base URL the snapshot's bodies were built
    with (so Link and body URLs agree), or this server's for a snapshot that did not record
    one."""
    base = snap.base_url or base_url
    return ", ".join(
        f'<{base}{path}?{urlencode({**query, "page": str(n)})}>; rel="{rel}"'
        for rel, n in page_rels(page, pages)
    )


def counter_totals(state: Any) -> dict[str, int]:
    """Given the app's state, return this process's counters by metric name (without
    ``bangscore_`` and ``_total``): the quota's, the key store's, the snapshot switches and
    refusals, the answers compressed on the fly and the access log's dropped and cut lines."""
    m = state.quota.metrics
    totals = {
        "store_errors": m.store_errors,
        "fail_open_admits": m.fail_open_admits,
        "key_cache_hits": m.key_cache_hits,
        "key_lookups": m.key_lookups,
        "snapshot_switches": state.source.switches,
        "snapshot_refusals": state.source.refusals,
    }
    totals.update({f"quota_{name}": n for name, n in m.extra.items()})
    totals.update({f"store_{name}": n for name, n in state.quota.stats().items()})
    totals["log_dropped"] = log_handler.DROPPED
    totals["compressions"] = answer.COMPRESSIONS
    access_log = getattr(state, "access_log", None)
    if access_log is not None:
        totals["access_log_dropped"] = access_log.dropped
        totals["access_log_cut"] = access_log.cut_lines
    return totals


def _may_scrape(request: Request) -> bool:
    """Given a ``/metrics`` request, return True if its client may read the metrics: any
    client when ``metrics_allow_ips`` is empty, else one inside a listed address or network."""
    allowed = request.app.state.settings.metrics_allow_ips.strip()
    if not allowed:
        return True
    client = request.client.host if request.client else ""
    try:
        address = ipaddress.ip_address(client)
    except ValueError:
        return False
    # Checked when the settings were read: the list holds addresses and networks only.
    return any(address in network for network in allowed_networks(allowed))


ROUTES = [
    Route("/api/v1", root),
    Route("/api/v1/openapi.json", openapi),
    Route("/api/v1/games", games),
    Route("/api/v1/games/{appid}", game),
    Route("/api/v1/search", search),
    Route("/api/v1/lookup", lookup),
    Route("/api/v1/changes", changes),
    Route("/api/v1/usage", usage),
    Route("/metrics", metrics),
]
