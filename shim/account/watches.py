"""The account site's watches (docs/API.md#watches): watch a game from its page, list and
remove watches, confirm an address, and the one-click unsubscribe of the alerts.

Game pages are static (built into the snapshot), so their "Watch this game" button is a GET
form to ``/account/watch?appid=N``, which a signed-in user answers with a CSRF-protected form
choosing the condition. An address's first watch sends one confirmation email with a signed
link; until it is followed nothing else is sent there. If the SMTP server cannot take it now,
``bangscore alerts send`` sends it on its next run.

The unsubscribe link needs no sign-in: its signature is the credential. A GET shows a button
(a mail scanner fetching links removes nothing); a POST, the button's or the RFC 8058
one-click POST of a mail client, removes the watch.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

import anyio.to_thread
import orjson
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from bangscore.contract.filters import detail_key
from bangscore.shim.account.accounts import PAGE_HEADERS, AccountSite
from bangscore.shim.source import SnapshotSource
from bangscore.storage import ObjectStorageError
from bangscore.stores.keystore import KeyStoreUnavailable
from bangscore.stores.watchstore import (
    Condition,
    TooManyWatches,
    UnknownWatch,
    WatchRecord,
    WatchStore,
    new_watch_id,
)
from bangscore.watch_mail import WatchLinks, confirmation_message

log = logging.getLogger("bangscore.watches")
MAX_APPID = 2**31 - 1
SendMail = Callable[[EmailMessage], None]

_DOWN = "The account store is unreachable right now; please try again in a minute."
_NO_WATCH = "No such watch on this account."
_BAD_CONFIRM = "This confirmation link is not valid or has expired."
_BAD_UNSUBSCRIBE = "This unsubscribe link is not valid."
_CONFIRMED = "Your watches will now email you when they come true."
_CSRF = "Your session expired or the form was stale. Go back, reload the page and try again."


@dataclass(frozen=True)
class WatchOptions:
    """What the app needs for the watch pages: the watch store, how to send an email now
    (None: confirmations wait for ``alerts send``) and the From address."""

    store: WatchStore
    send_mail: SendMail | None
    mail_from: str


def _appid(raw: str) -> int | None:
    text = raw.strip()
    if not (text.isascii() and text.isdigit()) or len(text) > 10:
        return None
    value = int(text)
    return value if 1 <= value <= MAX_APPID else None


def _condition(fields: dict[str, str]) -> Condition | None:
    """Given the watch form's fields, return the chosen condition, or None if invalid."""
    choice = fields.get("condition", "")
    try:
        if choice in ("worth_it", "banger"):
            return Condition(tier=choice)  # type: ignore[arg-type]
        if choice == "below":
            return Condition(below_usd=round(float(fields.get("below_usd", "")), 2))
    except ValueError:
        return None
    return None


class WatchSite:
    """The watch pages over the account site, a watch store and the current snapshot."""

    def __init__(
        self,
        accounts: AccountSite,
        store: WatchStore,
        source: SnapshotSource,
        links: WatchLinks,
        *,
        send_mail: SendMail | None,
        mail_from: str,
    ) -> None:
        self.accounts = accounts
        self.store = store
        self.source = source
        self.links = links
        self.send_mail = send_mail
        self.mail_from = mail_from

    async def game(self, appid: int) -> dict[str, Any] | None:
        """Given an appid, return its detail record in the current snapshot, or None."""
        snap = self.source.current
        if snap is None or snap.entry(detail_key(appid)) is None:
            return None
        try:
            record = orjson.loads(await self.source.body(snap, detail_key(appid)))
        except (ObjectStorageError, orjson.JSONDecodeError):
            return None
        return record if isinstance(record, dict) else None

    def extras(self, email: str) -> dict[str, Any]:
        """Given a signed-in address, return the account page's watch context: ``watches``
        as rows (the watch, its game's list item from the current snapshot or None, and its
        state), whether the address is ``confirmed``, and ``watches_down`` on a store fault."""
        try:
            watches = self.store.list_watches(email)
            confirmed = self.store.address(email).confirmed
        except KeyStoreUnavailable:
            return {"watches": [], "watches_down": True, "confirmed": True}
        snap = self.source.current
        rows = []
        for watch in watches:
            item = None
            if snap is not None and watch.appid in snap.index.position:
                item = orjson.loads(snap.index.items_for([watch.appid])[0])
            if watch.fired:
                state = "alerted"
            elif item is not None and watch.condition.met(item):
                state = "come true: alert on the next nightly run"
            else:
                state = "waiting"
            rows.append({"watch": watch, "game": item, "state": state})
        return {"watches": rows, "watches_down": False, "confirmed": confirmed}

    def _message(self, request: Request, status: int, title: str, message: str) -> Response:
        return self.accounts.page(
            request, "account_message.html", status, title=title, message=message
        )

    def _to_account(self) -> Response:
        url = f"{self.accounts.site_url}/account#watches"
        return RedirectResponse(url, 303, headers=PAGE_HEADERS)

    # -- handlers ----------------------------------------------------------------------------

    async def start(self, request: Request) -> Response:
        """GET /account/watch?appid=N: the form choosing the condition (signed in)."""
        appid = _appid(request.query_params.get("appid", ""))
        if appid is None:
            return self._message(request, 400, "No such game", "The link names no game.")
        try:
            email = self.accounts.account(request)
        except KeyStoreUnavailable:
            return self._message(request, 503, "Try again", _DOWN)
        record = await self.game(appid)
        if record is None:
            return self._message(request, 404, "No such game", f"No rated game has appid {appid}.")
        if email is None:
            return self.accounts.page(
                request,
                "account_signin.html",
                error=f"Sign in or create an account to watch {record.get('name')}. "
                "Then use the game page's button again.",
                typed="",
            )
        return self.accounts.page(request, "account_watch.html", game=record)

    async def add(self, request: Request) -> Response:
        """POST /account/watches: store the watch; the address's first one sends the
        confirmation email."""
        email = self.accounts._signed_in_email(request)
        fields = await self.accounts.form(request)
        if email is None or fields is None:
            return self._message(request, 403, "Expired", _CSRF)
        appid = _appid(fields.get("appid", ""))
        condition = _condition(fields)
        record = await self.game(appid) if appid is not None else None
        if appid is None or record is None or condition is None:
            return self._message(request, 400, "Not watched", "Choose a game and a condition.")
        now = int(self.accounts.clock())
        try:
            self.store.add_watch(WatchRecord(new_watch_id(), email, appid, condition, now))
            address = self.store.address(email)
        except TooManyWatches as exc:
            return self._message(request, 409, "Too many watches", f"{exc}; remove one first.")
        except KeyStoreUnavailable:
            return self._message(request, 503, "Try again", _DOWN)
        if not address.confirmed and address.confirm_sent_at is None:
            await self.confirm_email(email, now)
        return RedirectResponse(
            f"{self.accounts.site_url}/account#watches", 303, headers=PAGE_HEADERS
        )

    async def confirm_email(self, email: str, now: int) -> None:
        """Send the confirmation email now if a mailer is configured; on failure (or without
        one) it stays unsent and ``alerts send`` sends it."""
        if self.send_mail is None:
            return
        message = confirmation_message(email, self.mail_from, self.links)
        try:
            await anyio.to_thread.run_sync(self.send_mail, message)
        except Exception as exc:  # any mail fault: the next `alerts send` retries it
            log.warning("confirmation email not sent, left for alerts send: %s", type(exc).__name__)
            return
        with contextlib.suppress(KeyStoreUnavailable):
            self.store.confirmation_sent(email, now)

    async def remove(self, request: Request) -> Response:
        """POST /account/watches/{watch_id}/remove: remove one of the account's watches."""
        email = self.accounts._signed_in_email(request)
        fields = await self.accounts.form(request)
        if email is None or fields is None:
            return self._message(request, 403, "Expired", _CSRF)
        watch_id = request.path_params["watch_id"]
        try:
            watch = self.store.find_watch(watch_id)
            if watch is None or watch.email != email:
                return self._message(
                    request, 404, "No such watch", "No such watch on this account."
                )
            self.store.remove_watch(watch_id)
        except UnknownWatch:
            pass  # removed meanwhile (by its unsubscribe link): the same outcome
        except KeyStoreUnavailable:
            return self._message(request, 503, "Try again", _DOWN)
        return RedirectResponse(
            f"{self.accounts.site_url}/account#watches", 303, headers=PAGE_HEADERS
        )

    async def confirm(self, request: Request) -> Response:
        """GET /account/watches/confirm?t=: confirm the address the signed token names."""
        email = self.links.confirmed_email(request.query_params.get("t", ""))
        if email is None:
            return self._message(
                request,
                400,
                "Link not valid",
                "This confirmation link is not valid or has expired.",
            )
        try:
            self.store.confirm_address(email, int(self.accounts.clock()))
        except KeyStoreUnavailable:
            return self._message(request, 503, "Try again", _DOWN)
        return self._message(
            request,
            200,
            "Address confirmed",
            "Your watches will now email you when they come true.",
        )

    async def unsubscribe(self, request: Request) -> Response:
        """GET shows a button; POST (the button, or RFC 8058 one-click) removes the watch."""
        token = request.query_params.get("t", "")
        watch_id = self.links.unsubscribed_watch(token)
        if watch_id is None:
            return self._message(
                request, 400, "Link not valid", "This unsubscribe link is not valid."
            )
        try:
            watch = self.store.find_watch(watch_id)
            if request.method == "POST" and watch is not None:
                self.store.remove_watch(watch_id)
        except UnknownWatch:
            watch = None
        except KeyStoreUnavailable:
            return self._message(request, 503, "Try again", _DOWN)
        if watch is None:
            return self._message(request, 200, "Not watching", "This watch is already removed.")
        if request.method == "POST":
            return self._message(
                request, 200, "Watch removed", "You will get no more alerts for this watch."
            )
        record = await self.game(watch.appid)
        name = str(record.get("name")) if record else f"App {watch.appid}"
        return self.accounts.page(
            request, "account_unsubscribe.html", game_name=name, watch=watch, token=token
        )


def watch_routes(site: WatchSite, session: list[Middleware]) -> list[BaseRoute]:
    """Given the watch site and the account routes' session middleware, return the routes.
    The unsubscribe route takes POSTs without a session or CSRF token (RFC 8058)."""

    def route(path: str, endpoint: Any, *methods: str) -> Route:
        return Route(path, endpoint, methods=list(methods), middleware=session)

    return [
        route("/account/watch", site.start, "GET"),
        route("/account/watches", site.add, "POST"),
        route("/account/watches/{watch_id}/remove", site.remove, "POST"),
        route("/account/watches/confirm", site.confirm, "GET"),
        route("/account/watches/unsubscribe", site.unsubscribe, "GET", "POST"),
    ]
