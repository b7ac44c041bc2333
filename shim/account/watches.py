"""The account site's watches (docs/API.md#watches): watch a game from its page, list and
remove watches, confirm an address, and the one-click unsubscribe of the alerts.

Game pages are static (built into the snapshot), so their "Watch this game" button is a GET
form to ``/account/watch?appid=N``, which a signed-in user answers with a CSRF-protected form
choosing the condition; that form shows the game's price and score, so it counts against the
page allowance like every page showing a game's data. A visitor not signed in is sent back to
that form after signing in or up.

No request ever waits on SMTP (docs/API.md#watches): an address's first watch *queues* one
confirmation (an opaque id in the store, one pending at a time per address) and
``bangscore alerts send`` sends it. Watch adds and queued confirmations are rate-limited per
account and per network (/24 for IPv4, /64 for IPv6).

The confirmation and unsubscribe links need no sign-in: their signature is the credential. A
GET shows a button (a mail scanner fetching links changes nothing); a POST (the button's, or
for unsubscribe the RFC 8058 one-click POST of a mail client) acts.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from bangscore.contract.objects import detail_key
from bangscore.errors import ObjectStorageError, StoreUnavailable, TooManyWatches, UnknownWatch
from bangscore.mail.links import WatchLinks
from bangscore.shim.account.accounts import PAGE_HEADERS, AccountSite
from bangscore.shim.clients import client_subject, network_of
from bangscore.shim.quota import Quota, rate_headers
from bangscore.shim.source import SnapshotSource
from bangscore.stores.watchstore import (
    EVENTS,
    Condition,
    WatchRecord,
    WatchStore,
    holds_today,
    new_watch_id,
)

log = logging.getLogger("bangscore.watches")
MAX_APPID = 2**31 - 1

_DOWN = "The account store is unreachable right now; please try again in a minute."
_NO_WATCH = "No such watch on this account."
_BAD_CONFIRM = "This confirmation link is not valid or has expired."
_BAD_UNSUBSCRIBE = "This unsubscribe link is not valid."
_CONFIRMED = "Your watches will now email you when they come true."
_CSRF = "Your session expired or the form was stale. Go back, reload the page and try again."
_SLOW = "Too many watches were added from this account or network just now; try again in an hour."


@dataclass(frozen=True)
class WatchLimits:
    """How many watch adds and queued confirmation emails an account and a network (/24 or
    /64) may make per hour."""

    adds_per_account: int = 30
    adds_per_network: int = 60
    confirmations_per_account: int = 3
    confirmations_per_network: int = 10


@dataclass(frozen=True)
class WatchOptions:
    """What the app needs for the watch pages: the watch store and its rate limits. (The
    serving processes never send mail: ``alerts send`` does.)"""

    store: WatchStore
    limits: WatchLimits = WatchLimits()
    # The store URL holding the webhooks (None: no webhook section).
    hooks: str | None = None


def watch_network(ip: str) -> str:
    """Given a client IP, return the network watch adds are limited by: its /24 (IPv4) or
    /64 (IPv6, one subscriber's usual LAN); the text as given if it is not an address."""
    return network_of(ip, 24, 64)


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
        if choice in EVENTS:
            return Condition(event=choice)
    except ValueError:
        return None
    return None


def _choices(record: dict[str, Any]) -> tuple[frozenset[str], str | None]:
    """Given a game's detail record, return the watch form's conditions already true for it
    (an alert on one would tell nothing new) and the one to preselect: the first that is not
    (worth it, banger, half today's price, then for a paid game the recent low and the next
    sale), or None when every one is."""
    price = record.get("price_usd")
    half = round(float(price) * 0.5, 2) if isinstance(price, int | float) else 0.0
    conditions: dict[str, Condition] = {
        "worth_it": Condition(tier="worth_it"),
        "banger": Condition(tier="banger"),
        "below": Condition(below_usd=half),
    }
    listed = record.get("list_price_usd")
    if isinstance(listed, int | float) and listed > 0:  # a free game has no sale or low to wait for
        conditions.update({event: Condition(event=event) for event in EVENTS})
    met = frozenset(name for name, condition in conditions.items() if condition.met(record))
    return met, next((name for name in conditions if name not in met), None)


def watch_state(watch: WatchRecord, record: dict[str, Any] | None) -> str:
    """Given a watch and its game's detail record in the current snapshot (None: not rated
    in it), return its state in words: ``alerted`` once its alert went out, ``come true``
    when its condition holds today (:func:`bangscore.stores.watchstore.holds_today`, the
    nightly alert's test), else ``waiting``."""
    if watch.fired:
        return "alerted"
    if holds_today(watch.condition, record):
        return "come true: alert on the next nightly run"
    return "waiting"


class WatchSite:
    """The watch pages over the account site, a watch store and the current snapshot."""

    def __init__(
        self,
        accounts: AccountSite,
        store: WatchStore,
        source: SnapshotSource,
        links: WatchLinks,
        quota: Quota,
        *,
        limits: WatchLimits = WatchLimits(),
    ) -> None:
        self.accounts = accounts
        self.store = store
        self.source = source
        self.links = links
        self.quota = quota
        self.limits = limits

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

    async def extras(self, email: str) -> dict[str, Any]:
        """Given a signed-in address, return the account page's watch context: ``watches``
        as rows (the watch, its game's detail record from the current snapshot or None, and
        its state: :func:`watch_state`), whether the address is ``confirmed``, and
        ``watches_down`` on a store fault. The detail record, not the list item, carries what
        an event's condition reads (``list_price_usd``, ``recent_low_usd``): a page of at most
        100 watches reads as many records, each from the bodies' cache once read."""
        try:
            watches = self.store.list_watches(email)
            confirmed = self.store.address(email).confirmed
        except StoreUnavailable:
            return {"watches": [], "watches_down": True, "confirmed": True}
        records: dict[int, dict[str, Any] | None] = {}
        rows = []
        for watch in watches:
            if watch.appid not in records:
                records[watch.appid] = await self.game(watch.appid)
            record = records[watch.appid]
            rows.append({"watch": watch, "game": record, "state": watch_state(watch, record)})
        return {"watches": rows, "watches_down": False, "confirmed": confirmed}

    async def admit_page(self, request: Request) -> tuple[dict[str, str], Response | None]:
        """Given a request for a page showing games' prices and scores, count it against the
        client's page allowance (signed in or not: docs/API.md#watches); return its rate
        headers and None, or with the 429 page (``Retry-After`` set) once the allowance is
        spent."""
        hit, window = await self.quota.admit(client_subject("page", request), self.quota.page_limit)
        rate = dict(rate_headers(hit.limit, hit.used, window))
        if hit.admitted:
            return rate, None
        response = self._message(
            request,
            429,
            "Too many page views today",
            f"This address has viewed {self.quota.page_limit:,} pages today, its daily "
            "allowance. It starts again at 00:00 UTC.",
        )
        response.headers.update({**rate, "Retry-After": str(window.seconds_to_reset)})
        return rate, response

    def _message(self, request: Request, status: int, title: str, message: str) -> Response:
        return self.accounts.page(
            request, "account_message.html", status, title=title, message=message
        )

    # -- handlers ----------------------------------------------------------------------------

    async def start(self, request: Request) -> Response:
        """GET /account/watch?appid=N: the form choosing the condition (signed in)."""
        appid = _appid(request.query_params.get("appid", ""))
        if appid is None:
            return self._message(request, 400, "No such game", "The link names no game.")
        # It shows a game's price and score: counted against the page allowance, signed in
        # or not (docs/API.md#watches).
        rate, refused = await self.admit_page(request)
        if refused is not None:
            return refused
        try:
            email = self.accounts.account(request)
        except StoreUnavailable:
            return self._message(request, 503, "Try again", _DOWN)
        record = await self.game(appid)
        if record is None:
            response = self._message(
                request, 404, "No such game", f"No rated game has appid {appid}."
            )
        elif email is None:
            # Signing in or up from here comes back to this form (AccountSite.signed_in).
            request.session["after"] = f"/account/watch?appid={appid}"
            response = self.accounts.page(
                request,
                "account_signin.html",
                error=f"Sign in or create an account to watch {record.get('name')}.",
                typed="",
            )
        else:
            met, preselect = _choices(record)
            response = self.accounts.page(
                request, "account_watch.html", game=record, met=met, preselect=preselect
            )
        response.headers.update(rate)
        return response

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
        return self.store_watches(request, email, [(appid, condition)], remove="one")

    def store_watches(
        self,
        request: Request,
        email: str,
        watches: Sequence[tuple[int, Condition]],
        *,
        remove: str,
        slow: str = _SLOW,
    ) -> Response:
        """Given a signed-in address and the (appid, condition) of each watch to add, add them
        as one add of the hourly limits (a game's form adds one, a list up to 100), queue the
        address's confirmation if it is unconfirmed, and return the redirect to the account
        page; else the page saying why not: 429 (``slow``) over the account's or network's
        adds this hour, 409 past the most watches an address holds (asking to remove
        ``remove`` first), 503 on a store fault."""
        now = int(self.accounts.clock())
        network = watch_network(self.accounts.client_ip(request))
        limits = self.limits
        try:
            if (
                self.store.hit(f"add:acct:{email}", now, 3600) > limits.adds_per_account
                or self.store.hit(f"add:net:{network}", now, 3600) > limits.adds_per_network
            ):
                return self._message(request, 429, "Slow down", slow)
            for appid, condition in watches:
                self.store.add_watch(WatchRecord(new_watch_id(), email, appid, condition, now))
            address = self.store.address(email)
            if not address.confirmed and not address.suppressed:
                self.queue_confirmation(email, network, now)
        except TooManyWatches as exc:
            return self._message(request, 409, "Too many watches", f"{exc}; remove {remove} first.")
        except StoreUnavailable:
            return self._message(request, 503, "Try again", _DOWN)
        return RedirectResponse(f"{self.accounts.root}/account#watches", 303, headers=PAGE_HEADERS)

    def queue_confirmation(self, email: str, network: str, now: int) -> None:
        """Queue the address's confirmation email for ``alerts send`` unless the account or
        network asked too often this hour (the store keeps one per address). Raises
        StoreUnavailable."""
        limits = self.limits
        if (
            self.store.hit(f"confirm:acct:{email}", now, 3600) > limits.confirmations_per_account
            or self.store.hit(f"confirm:net:{network}", now, 3600)
            > limits.confirmations_per_network
        ):
            log.warning("confirmation not queued: the account's or network's hourly limit")
            return
        self.store.queue_confirmation(email, now)

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
        except StoreUnavailable:
            return self._message(request, 503, "Try again", _DOWN)
        return RedirectResponse(f"{self.accounts.root}/account#watches", 303, headers=PAGE_HEADERS)

    async def confirm(self, request: Request) -> Response:
        """GET /account/watches/confirm?t= shows a button; its POST confirms the address of
        the pending confirmation the signed token names."""
        token = request.query_params.get("t", "")
        confirm_id = self.links.confirmation_id(token)
        if confirm_id is None:
            return self._message(request, 400, "Link not valid", _BAD_CONFIRM)
        try:
            email = self.store.confirmation_email(confirm_id)
            if email is None:
                return self._message(request, 400, "Link not valid", _BAD_CONFIRM)
            if request.method != "POST":
                return self.accounts.page(request, "account_confirm.html", token=token)
            self.store.confirm_address(email, int(self.accounts.clock()))
        except StoreUnavailable:
            return self._message(request, 503, "Try again", _DOWN)
        return self._message(request, 200, "Address confirmed", _CONFIRMED)

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
        except StoreUnavailable:
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
    The confirm and unsubscribe routes take POSTs without a session or CSRF token: the signed
    token is the credential (RFC 8058 for unsubscribe)."""

    def route(path: str, endpoint: Any, *methods: str) -> Route:
        return Route(path, endpoint, methods=list(methods), middleware=session)

    return [
        route("/account/watch", site.start, "GET"),
        route("/account/watches", site.add, "POST"),
        route("/account/watches/{watch_id}/remove", site.remove, "POST"),
        route("/account/watches/confirm", site.confirm, "GET", "POST"),
        route("/account/watches/unsubscribe", site.unsubscribe, "GET", "POST"),
    ]
