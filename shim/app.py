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

What runs at start-up, while serving and at shutdown is :mod:`bangscore.shim.lifecycle`.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from bangscore.settings import Settings
from bangscore.shim import downloads, routes, website
from bangscore.shim.access_log import AccessLog
from bangscore.shim.api import ProblemVoice, charge_anonymous
from bangscore.shim.edge import EdgeMiddleware
from bangscore.shim.lifecycle import Serving, lifespan
from bangscore.shim.lists import ListPages
from bangscore.shim.metrics import Metrics
from bangscore.shim.pages import Pages
from bangscore.shim.quota import Quota
from bangscore.shim.source import SnapshotSource

if TYPE_CHECKING:
    from bangscore.shim.account.accounts import AccountSite
    from bangscore.shim.account.watches import WatchOptions
    from bangscore.shim.downloads import ExportService
    from bangscore.stores.keystore import AccountStore


def create_app(
    settings: Settings,
    source: SnapshotSource,
    quota: Quota,
    *,
    follow: bool = True,
    session_secret: str | None = None,
    accounts: AccountStore | None = None,
    export: ExportService | None = None,
    watches: WatchOptions | None = None,
    freeze_heap: bool = False,
    access_log: AccessLog | None = None,
) -> Starlette:
    """Given the settings, a snapshot source and a quota, return the ASGI app.

    The settings give the site and API base URLs, the account sessions' lifetimes and the
    Retry-After of a 503; the source and the quota are built by the caller (the command line
    from the same settings, tests with their own clocks). The app's life (load the snapshot
    at start-up, warm it, follow the pointer with ``follow``, close the stores at shutdown)
    is :mod:`bangscore.shim.lifecycle`'s. With a ``session_secret`` the account website
    (:mod:`bangscore.shim.account`) is served under /account over ``accounts`` (required then,
    ValueError without it; its keys and counter are the quota's), with the watch pages when
    ``watches`` is given. ``export`` serves the Bulk export (:mod:`bangscore.shim.downloads`);
    without it ``/api/v1/export`` answers 403 or 404. With ``freeze_heap`` (a serving
    process, not a test's) each loaded snapshot and its indexes are frozen out of the cyclic
    collector (:mod:`bangscore.shim.heap`). With an ``access_log`` every request is logged
    (:mod:`bangscore.shim.access_log`). The services are put on ``app.state`` (named in this
    module's docstring).
    """
    # Bodies carry the addresses served, whatever the snapshot was built for (issue 56).
    source.serve_at(settings.site_url, settings.api_base_url)
    problems = ProblemVoice(
        source, site_url=settings.site_url, retry_after=settings.retry_after_seconds
    )
    lists = ListPages(source)
    pages = Pages(
        source,
        quota,
        lists,
        site_url=settings.site_url,
        base_url=settings.api_base_url,
        retry_after=settings.retry_after_seconds,
    )
    serving = Serving(
        source,
        quota,
        pages,
        Metrics(),
        access_log=access_log,
        watch_store=watches.store if watches is not None else None,
        follow=follow,
        freeze_heap=freeze_heap,
    )
    app = Starlette(
        routes=route_table(settings, source, quota, session_secret, watches, accounts),
        exception_handlers={HTTPException: http_error},
        lifespan=partial(lifespan, serving),
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
        metrics=serving.metrics,
    )
    state = app.state
    state.settings, state.source, state.quota, state.problems = settings, source, quota, problems
    state.lists, state.pages, state.export = lists, pages, export
    state.metrics, state.access_log = serving.metrics, access_log
    state.serving = serving
    return app


def route_table(
    settings: Settings,
    source: SnapshotSource,
    quota: Quota,
    session_secret: str | None,
    watches: WatchOptions | None,
    accounts: AccountStore | None = None,
) -> list[BaseRoute]:
    """Given the settings, the snapshot source, the quota, the session secret (None: no
    account website), the watch options (None: no watch pages) and the accounts store (needed
    with a session secret), return the app's routes:
    the API's, the Bulk export's, the website's, then the account website's."""
    table: list[BaseRoute] = [*routes.ROUTES, *downloads.ROUTES, *website.routes()]
    if session_secret is None:
        return table
    from bangscore.shim.account.accounts import AccountSite
    from bangscore.shim.account.routing import account_routes

    if accounts is None:
        raise ValueError("the account website needs the accounts store (open_stores)")
    site = AccountSite(
        accounts,
        quota.keys.store,
        quota.counter,
        site_url=settings.site_url,
        session_idle=settings.session_idle_seconds,
        session_max=settings.session_max_seconds,
        smtputf8=settings.smtp_utf8,
    )
    https = settings.site_url.startswith("https://")
    if watches is not None:
        table += _watch_routes(site, source, quota, watches, session_secret, https)
        if watches.hooks is not None:
            table += _hook_routes(site, watches.hooks, session_secret, https)
    return table + account_routes(site, session_secret=session_secret, https_only=https)


def _watch_routes(
    site: AccountSite,
    source: SnapshotSource,
    quota: Quota,
    options: WatchOptions,
    secret: str,
    https: bool,
) -> list[BaseRoute]:
    from bangscore.mail.links import WatchLinks
    from bangscore.shim.account.routing import session_middleware
    from bangscore.shim.account.signups import SignupMail, signup_routes
    from bangscore.shim.account.watch_list import list_routes
    from bangscore.shim.account.watches import WatchSite, watch_routes

    links = WatchLinks(secret, site.site_url)
    watch_site = WatchSite(site, options.store, source, links, quota, limits=options.limits)
    site.page_extras = watch_site.extras
    # The watch store is the mail queue: sign-ups then go by email (never telling whether
    # an address has an account).
    signups = SignupMail(site, options.store, links, options.limits)
    site.signup_mail = signups.queue
    session = session_middleware(site, session_secret=secret, https_only=https)
    lists = list_routes(watch_site, session)
    return watch_routes(watch_site, session) + lists + signup_routes(signups, session)


def _hook_routes(site: AccountSite, store_url: str, secret: str, https: bool) -> list[BaseRoute]:
    """The account page's webhook section over the store's webhooks (SQLite or Redis), its
    page context added to the watches'."""
    from bangscore.shim.account.hooks import HookSite, hook_routes
    from bangscore.shim.account.routing import session_middleware
    from bangscore.stores import open_webhook_store

    hooks = HookSite(site, open_webhook_store(store_url))
    watch_extras = site.page_extras

    async def extras(email: str) -> dict[str, Any]:
        return {**(await watch_extras(email) if watch_extras else {}), **hooks.extras(email)}

    site.page_extras = extras
    return hook_routes(hooks, session_middleware(site, session_secret=secret, https_only=https))


async def http_error(request: Request, exc: Exception) -> Response:
    """Given a request Starlette could not route (404, 405) and its HTTPException, return the
    website's error page for a page path, else the API's problem+json counted against the
    client IP's anonymous allowance (a 429 past it)."""
    assert isinstance(exc, HTTPException)
    state = request.app.state
    pages: Pages = state.pages
    problems: ProblemVoice = state.problems
    if pages.is_page(request.url.path):
        return await pages.http_error(request, exc.status_code)
    hit, window, rate = await charge_anonymous(request, state.quota)
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
