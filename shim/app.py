"""The Starlette app: its services on ``app.state``, the route table, the account website and
export routes, the error handlers, the lifespan (load the snapshot, follow the pointer, close
the store) and the edge.

The services every handler reads from ``request.app.state``: ``settings``, ``source`` (the
:class:`~bangscore.shim.source.SnapshotSource`), ``quota`` (the
:class:`~bangscore.shim.quota.Quota`), ``problems`` (the API's problem+json voice,
:class:`~bangscore.shim.api.ProblemVoice`), ``lists`` (precomputed or composed list pages,
:class:`~bangscore.shim.lists.ListPages`), ``pages`` (the website,
:class:`~bangscore.shim.pages.Pages`), ``export`` (the Bulk export, or None) and ``metrics``
(:class:`~bangscore.shim.metrics.Metrics`).

A ticker runs once a second while the app serves: it hands the access log's lines to its
writer thread and copies this process's counters into the exported metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import anyio.to_thread
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from bangscore.errors import ObjectStorageError, SnapshotError
from bangscore.settings import Settings
from bangscore.shim import downloads, heap, routes
from bangscore.shim.access_log import FLUSH_SECONDS, AccessLog
from bangscore.shim.api import ProblemVoice, charge_anonymous
from bangscore.shim.edge import EdgeMiddleware
from bangscore.shim.lists import ListPages
from bangscore.shim.metrics import Metrics
from bangscore.shim.pages import Pages
from bangscore.shim.quota import Quota
from bangscore.shim.source import SnapshotSource
from bangscore.shim.website import ROUTES as PAGE_ROUTES

if TYPE_CHECKING:
    from bangscore.shim.account.accounts import AccountSite
    from bangscore.shim.account.watches import WatchOptions
    from bangscore.shim.downloads import ExportService

log = logging.getLogger("bangscore.shim")
# A replica starting answers its first requests (precomputed pages, detail records) from the
# lazy manifest; its indexes are built this long after the start (issue 36).
WARM_AFTER_SECONDS = 2.0


def _watch_routes(
    site: AccountSite,
    source: SnapshotSource,
    quota: Quota,
    options: WatchOptions,
    secret: str,
    https: bool,
) -> list[BaseRoute]:
    from bangscore.shim.account.accounts import session_middleware
    from bangscore.shim.account.signups import SignupMail, signup_routes
    from bangscore.shim.account.watches import WatchSite, watch_routes
    from bangscore.watch_links import WatchLinks

    links = WatchLinks(secret, site.site_url)
    watch_site = WatchSite(site, options.store, source, links, quota, limits=options.limits)
    site.page_extras = watch_site.extras
    # The watch store is the mail queue: sign-ups then go by email (never telling whether
    # an address has an account).
    signups = SignupMail(site, options.store, links, options.limits)
    site.signup_mail = signups.queue
    session = session_middleware(site, session_secret=secret, https_only=https)
    return watch_routes(watch_site, session) + signup_routes(signups, session)


def create_app(
    settings: Settings,
    source: SnapshotSource,
    quota: Quota,
    *,
    follow: bool = True,
    session_secret: str | None = None,
    export: ExportService | None = None,
    watches: WatchOptions | None = None,
    freeze_heap: bool = False,
    access_log: AccessLog | None = None,
) -> Starlette:
    """Given the settings, a snapshot source and a quota, return the ASGI app.

    The settings give the site and API base URLs, the account sessions' lifetimes and the
    Retry-After of a 503; the source and the quota are built by the caller (the command line
    from the same settings, tests with their own clocks). The current snapshot is loaded and
    warmed (its unrated-name index built) at start-up, before the first request, if one is
    published; with ``follow`` a background task re-reads the pointer every
    ``source.poll_seconds``. With a ``session_secret`` the account website
    (:mod:`bangscore.shim.account`) is served under /account. The key store is closed
    (leased and buffered counts settled) at shutdown. ``export`` serves the Bulk export
    (:mod:`bangscore.shim.downloads`); without it ``/api/v1/export`` answers 403 or 404. The
    services are put on ``app.state`` (named in this module's docstring).
    ``watches`` adds the watch pages to the account website (:mod:`bangscore.shim.account.watches`).
    With ``freeze_heap`` (a serving process, not a test's) each loaded snapshot and its indexes
    are frozen out of the cyclic collector (:mod:`bangscore.shim.heap`). With an
    ``access_log`` every request is logged (:mod:`bangscore.shim.access_log`), and the log is
    flushed at shutdown.
    """
    site_url, base_url = settings.site_url, settings.api_base_url
    problems = ProblemVoice(source, site_url=site_url, retry_after=settings.retry_after_seconds)
    metrics = Metrics()
    lists = ListPages(source)
    pages = Pages(
        source,
        quota,
        lists,
        site_url=site_url,
        base_url=base_url,
        retry_after=settings.retry_after_seconds,
    )

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if pages.is_page(request.url.path):
            return await pages.http_error(request, exc.status_code)
        hit, window, rate = charge_anonymous(request, quota)
        if not hit.admitted:
            return problems.refused(request, hit, window, rate)
        if exc.status_code == 405:
            return problems.problem(
                request,
                "method_not_allowed",
                f"{request.method} is not allowed; use GET.",
                rate,
                headers={"Allow": "GET, HEAD"},
            )
        return problems.problem(request, "not_found", f"No resource at {request.url.path}.", rate)

    async def warm(after: float = 0.0) -> None:
        """After ``after`` seconds, build the current snapshot's indexes (compact, search:
        deferred for the first snapshot) and its known-but-unrated names now rather than in
        the first search's request, then settle the heap."""
        await asyncio.sleep(after)
        snap = source.current
        if snap is None:
            return
        try:
            await anyio.to_thread.run_sync(snap.deferred_index.get)
            await anyio.to_thread.run_sync(snap.deferred_search.get)
        except ValueError as exc:  # logged by the thread that built it; requests will 500
            log.error("snapshot %s has a broken index: %s", snap.id, exc)
            return
        try:
            await pages.not_rated(snap)
        except ObjectStorageError as exc:  # the first search will try again
            log.warning("could not index the unrated apps of %s: %s", snap.id, exc)
        if freeze_heap:
            heap.settle()
        metrics.warm.set(1)

    async def tick(app: Starlette) -> None:
        """Once a second: flush the access log, sync the counters into the metrics."""
        while True:
            await asyncio.sleep(FLUSH_SECONDS)
            if access_log is not None:
                access_log.flush()
            metrics.sync(routes.counter_totals(app.state), source.cache.size)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            # The manifest is read lazily and the indexes built in the background: a replica
            # answers precomputed pages and detail records within a second or two of starting,
            # instead of after the 134,364-entry manifest and the indexes (6-30 s; issue 36).
            source.refresh(defer=True)
        except (SnapshotError, ObjectStorageError, ValueError) as exc:
            log.error("no snapshot loaded at start-up: %s", exc)
        # Warmed once the first connections had their answers: a search or a composed page
        # that comes first builds its index itself, and the heap settles once all is built.
        warming = asyncio.create_task(warm(after=WARM_AFTER_SECONDS))
        task = None
        if follow:
            task = asyncio.create_task(source.follow(on_switch=warm))
        ticker = asyncio.create_task(tick(app))
        yield
        warming.cancel()
        ticker.cancel()
        if access_log is not None:
            access_log.close()
        if task is not None:
            task.cancel()
        if freeze_heap:
            heap.release()
        quota.store.close()
        if watches is not None:
            watches.store.close()

    # -- account website: its own routes, each with its session middleware ---------------------
    table: list[BaseRoute] = [*routes.ROUTES, *downloads.ROUTES, *PAGE_ROUTES]
    if session_secret is not None:
        from bangscore.shim.account.accounts import AccountSite, account_routes

        site = AccountSite(
            quota.store,
            site_url=site_url,
            session_idle=settings.session_idle_seconds,
            session_max=settings.session_max_seconds,
            smtputf8=settings.smtp_utf8,
        )
        https = site_url.startswith("https://")
        if watches is not None:
            table += _watch_routes(site, source, quota, watches, session_secret, https)
        table += account_routes(site, session_secret=session_secret, https_only=https)

    app = Starlette(
        routes=table,
        exception_handlers={HTTPException: http_error},
        lifespan=lifespan,
    )
    # A trailing slash is dropped by the edge before routing: no redirect, so none is built
    # from the request's Host header.
    app.router.redirect_slashes = False
    app.add_middleware(
        EdgeMiddleware,
        source=source,
        quota=quota,
        problems=problems,
        access_log=access_log,
        metrics=metrics,
    )
    app.state.settings = settings
    app.state.source = source
    app.state.quota = quota
    app.state.problems = problems
    app.state.lists = lists
    app.state.pages = pages
    app.state.export = export
    app.state.metrics = metrics
    app.state.access_log = access_log
    return app
