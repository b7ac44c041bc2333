"""The account website's routes (docs/API.md#website): each ``/account`` route with its own
session middleware over an :class:`~bangscore.shim.account.accounts.AccountSite`, and the keys
page's script.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib import resources

from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from bangscore.errors import FormTooLarge
from bangscore.shim.account.accounts import SESSION_COOKIE, AccountSite, render

_TOO_LARGE = "The form sent was too large."


async def keys_script(request: Request) -> Response:
    """Serve the keys page's script (copy a new key, confirm a revocation)."""
    return Response(
        _KEYS_JS,
        headers={"Cache-Control": "public, max-age=3600"},
        media_type="text/javascript; charset=utf-8",
    )


_KEYS_JS = (resources.files("bangscore.site") / "templates" / "keys.js").read_bytes()


def session_middleware(
    site: AccountSite, *, session_secret: str, https_only: bool = False
) -> list[Middleware]:
    """Given the account site and the session secret, return the session middleware every
    account route carries (signed cookie ``bangscore_session`` living as long as the site's
    absolute session lifetime, SameSite=Lax, Secure when ``https_only``)."""
    return [
        Middleware(
            SessionMiddleware,
            secret_key=session_secret,
            session_cookie=SESSION_COOKIE,
            max_age=site.session_max,
            same_site="lax",
            https_only=https_only,
        )
    ]


def account_routes(
    site: AccountSite, *, session_secret: str, https_only: bool = False
) -> list[BaseRoute]:
    """Given the account site and the session secret, return the ``/account`` routes.

    Each route carries its own SessionMiddleware (signed cookie ``bangscore_session`` living
    as long as the site's absolute session lifetime, SameSite=Lax, Secure when
    ``https_only``), so API routes never parse a session.
    """
    session = session_middleware(site, session_secret=session_secret, https_only=https_only)

    def route(path: str, endpoint: Callable[[Request], Awaitable[Response]], method: str) -> Route:
        async def guarded(request: Request) -> Response:
            try:
                return await endpoint(request)
            except FormTooLarge:
                response = render(
                    "account_message.html",
                    413,
                    site_url=site.site_url,
                    email=None,
                    csrf="",
                    title="Too large",
                    message=_TOO_LARGE,
                )
                response.headers["Connection"] = "close"
                return response

        return Route(path, guarded, methods=[method], middleware=session)

    return [
        Route("/account/keys.js", keys_script, methods=["GET"]),
        route("/account", site.home, "GET"),
        route("/account/signup", site.signup, "POST"),
        route("/account/signin", site.signin, "POST"),
        route("/account/signout", site.signout, "POST"),
        route("/account/keys", site.create_key, "POST"),
        route("/account/keys/{key_id}/revoke", site.revoke, "POST"),
    ]
