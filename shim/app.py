"""The Starlette app: the route table, the account website and export routes, the error
handlers, the lifespan (load the snapshot, follow the pointer, close the store) and the edge.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from bangscore.manifest import SnapshotError
from bangscore.shim.edge import EdgeMiddleware
from bangscore.shim.handlers import Shim
from bangscore.shim.pages import Pages
from bangscore.shim.quota import Quota
from bangscore.shim.routes import build_routes
from bangscore.shim.source import SnapshotSource
from bangscore.storage import ObjectStorageError

if TYPE_CHECKING:
    from bangscore.shim.downloads import ExportService

log = logging.getLogger("bangscore.shim")


GIL_SWITCH_SECONDS = 0.001


def create_app(
    source: SnapshotSource,
    quota: Quota,
    *,
    site_url: str,
    base_url: str,
    follow: bool = True,
    session_secret: str | None = None,
    export: ExportService | None = None,
    session_idle: int = 3600,
    session_max: int = 12 * 3600,
) -> Starlette:
    """Given a snapshot source and a quota, return the ASGI app.

    The current snapshot is loaded at start-up if one is published; with ``follow`` a
    background task re-reads the pointer every ``source.poll_seconds``. With a
    ``session_secret`` the account website (:mod:`shim.accounts`) is served under /account,
    its sessions ending ``session_idle`` seconds after the last request or ``session_max``
    seconds after sign-in.
    The key store is closed (buffered counts flushed) at shutdown. ``export`` serves the
    Bulk export (:mod:`shim.export`); without it ``/api/v1/export`` answers 403 or 404.
    """
    shim = Shim(source, quota, site_url=site_url, base_url=base_url)
    pages = Pages(shim)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if pages.is_page(request.url.path):
            return await pages.http_error(request, exc.status_code)
        hit, window, rate = shim.charge_anonymous(request)
        if not hit.admitted:
            return shim.over_limit(request, hit, window, rate)
        if exc.status_code == 405:
            return shim.problem(
                request,
                "method_not_allowed",
                f"{request.method} is not allowed; use GET.",
                rate,
                headers={"Allow": "GET, HEAD"},
            )
        return shim.problem(request, "not_found", f"No resource at {request.url.path}.", rate)

    async def warm_unrated() -> None:
        snap = source.current
        if snap is None:
            return
        try:
            await pages.not_rated(snap)
        except ObjectStorageError as exc:  # the first search will try again
            log.warning("could not index the unrated apps at start-up: %s", exc)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            source.refresh()
        except (SnapshotError, ObjectStorageError, ValueError) as exc:
            log.error("no snapshot loaded at start-up: %s", exc)
        # Searches run on worker threads (CPU work, off the event loop); a thread keeps the GIL
        # for up to the switch interval, so a shorter one hands it back to the loop sooner and
        # keeps other requests quick while someone sends costly queries.
        sys.setswitchinterval(GIL_SWITCH_SECONDS)
        task = None
        if follow:
            task = asyncio.create_task(source.follow())
        # Index the known-but-unrated names now rather than in the first search's request.
        warm = asyncio.create_task(warm_unrated()) if source.current else None
        yield
        if task is not None:
            task.cancel()
        if warm is not None:
            warm.cancel()
        quota.store.close()

    # -- account website (issue 5): its own routes, each with its session middleware --------
    routes: list[BaseRoute] = [*build_routes(shim), *pages.routes()]
    if session_secret is not None:
        from bangscore.shim.accounts import AccountSite, account_routes

        site = AccountSite(
            quota.store, site_url=site_url, session_idle=session_idle, session_max=session_max
        )
        https = site_url.startswith("https://")
        routes += account_routes(site, session_secret=session_secret, https_only=https)

    # -- Bulk export (issue 4): GET /api/v1/export and signed local download links -----------
    from bangscore.shim.downloads import (
        export_routes,  # no cycle: shim.export does not import this module
    )

    routes += export_routes(shim, export)

    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: http_error},
        lifespan=lifespan,
    )
    # A trailing slash is dropped by the edge before routing: no redirect, so none is built
    # from the request's Host header.
    app.router.redirect_slashes = False
    app.add_middleware(EdgeMiddleware, shim=shim)
    app.state.shim = shim
    return app
