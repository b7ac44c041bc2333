"""The account page's webhook section (docs/API.md#webhooks): a signed-in account adds an
endpoint (its secret shown once, on the page that answers the form), removes one, and reads
each endpoint's last 100 deliveries. Delivery itself is ``bangscore alerts send``'s: the
server never posts anywhere.

The server does not resolve the URL (no outside call on a serving thread): it refuses what
the URL alone shows (a scheme other than https, an IP literal of a refused kind), and the
delivery checks every resolved address again before each post.
"""

from __future__ import annotations

import contextlib
import contextvars
import ipaddress
from typing import Any
from urllib.parse import urlsplit

from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from bangscore.errors import WatchStoreError
from bangscore.shim.account.accounts import PAGE_HEADERS, AccountSite
from bangscore.stores.webhooks import WebhookStore

EVENTS = ("verdict.changed", "price.dropped", "tier.changed")
MAX_ENDPOINTS = 10  # per account
MAX_URL = 2000
_CSRF = "Your session expired or the form was stale. Go back, reload the page and try again."
# The secret of an endpoint added by this request, shown once on the page it answers with.
_NEW_SECRET: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar(
    "new_webhook_secret", default=None
)


def url_problem(url: str) -> str | None:
    """Given an endpoint URL from the form, return why it is refused (None: accepted here;
    its resolved addresses are checked before every post)."""
    if len(url) > MAX_URL:
        return f"at most {MAX_URL} characters"
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.hostname:
        return "an https:// URL with a host"
    try:
        address = ipaddress.ip_address(parts.hostname)
    except ValueError:
        return None
    mapped = getattr(address, "ipv4_mapped", None) or address
    if not mapped.is_global:
        return f"{parts.hostname} is a private, loopback or link-local address"
    return None


class HookSite:
    """The webhook section over the account site and the webhook store."""

    def __init__(self, accounts: AccountSite, store: WebhookStore) -> None:
        self.accounts = accounts
        self.store = store

    def extras(self, email: str) -> dict[str, Any]:
        """Given a signed-in address, return the page's webhook context: ``hooks`` (each
        endpoint with its last 100 deliveries, newest first), the ``events`` offered and the
        secret of an endpoint this request added (``new_hook``: (id, secret) or None)."""
        hooks = [
            {"endpoint": e, "deliveries": self.store.deliveries(e.id)}
            for e in self.store.endpoints(email)
        ]
        return {"hooks": hooks, "hook_events": EVENTS, "new_hook": _NEW_SECRET.get()}

    async def add(self, request: Request) -> Response:
        """POST /account/webhooks: add an endpoint; answer the account page with its secret
        shown once."""
        email = self.accounts._signed_in_email(request)
        fields = await self.accounts.form(request)
        if email is None or fields is None:
            return self._message(request, 403, "Expired", _CSRF)
        url = fields.get("url", "").strip()
        events = tuple(e for e in EVENTS if fields.get(f"event_{e}") == "on")
        problem = url_problem(url) or ("" if events else "choose at least one event")
        raw = fields.get("appids", "").replace(" ", "")
        appids = tuple(int(a) for a in raw.split(",") if a.isdigit() and len(a) <= 12)
        if raw and len(appids) != len(raw.strip(",").split(",")):
            problem = problem or "appids: comma-separated numbers"
        if not problem and len(self.store.endpoints(email)) >= MAX_ENDPOINTS:
            problem = f"at most {MAX_ENDPOINTS} endpoints an account; remove one first"
        if problem:
            return self._message(request, 400, "Not added", f"Webhook not added: {problem}.")
        endpoint = self.store.add_endpoint(email, url, events, appids, int(self.accounts.clock()))
        token = _NEW_SECRET.set((endpoint.id, endpoint.secret))
        try:
            return await self.accounts.keys_page(request, email)
        finally:
            _NEW_SECRET.reset(token)

    async def remove(self, request: Request) -> Response:
        """POST /account/webhooks/{hook_id}/remove: remove one of the account's endpoints."""
        email = self.accounts._signed_in_email(request)
        fields = await self.accounts.form(request)
        if email is None or fields is None:
            return self._message(request, 403, "Expired", _CSRF)
        endpoint = self.store.endpoint(request.path_params["hook_id"])
        if endpoint is None or endpoint.account != email:
            return self._message(request, 404, "No such webhook", "No such webhook here.")
        with contextlib.suppress(WatchStoreError):  # removed meanwhile: the same outcome
            self.store.remove_endpoint(endpoint.id)
        return RedirectResponse(f"{self.accounts.root}/account#webhooks", 303, headers=PAGE_HEADERS)

    def _message(self, request: Request, status: int, title: str, message: str) -> Response:
        return self.accounts.page(
            request, "account_message.html", status, title=title, message=message
        )


def hook_routes(site: HookSite, session: list[Middleware]) -> list[BaseRoute]:
    """Given the webhook section and the account routes' session middleware, return its
    routes (POSTs with the session's CSRF token)."""
    return [
        Route("/account/webhooks", site.add, methods=["POST"], middleware=session),
        Route(
            "/account/webhooks/{hook_id}/remove", site.remove, methods=["POST"], middleware=session
        ),
    ]
