"""Watching a whole list (docs/API.md#watches): the "rate a list" page offers "watch all at
their verdict price"; ``GET /account/watch-list?appids=`` shows the games and their prices
to a signed-in account with one button, whose ``POST /account/watches/list`` adds a watch
per rated game in one action (one of the hourly adds, at most 100 games), each at or below
the game's verdict price: the price to wait for (``verdict_price_usd``) of a
``wait_for_sale`` game, else today's price. An unconfirmed address gets one confirmation
mail for the whole list (the store keeps one pending confirmation an address).

The list may instead be watched for an event (``condition=recent_low``: each game at or below
its recent low; ``condition=next_sale``: when each game's next sale starts); the default,
``condition=verdict_price``, is the verdict price above.
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from bangscore.contract.limits import MAX_APPID_DIGITS, MAX_LOOKUP_APPIDS
from bangscore.errors import StoreUnavailable
from bangscore.shim.account.watches import WatchSite
from bangscore.stores.watchstore import EVENT_WORDS, EVENTS, Condition

_CSRF = "Your session expired or the form was stale. Go back, reload the page and try again."
_CONDITION = "Watch a list at its verdict price, at its recent lows or for its next sales."
_DOWN = "The account store is unreachable right now; please try again in a minute."


def appids_of(raw: str) -> list[int] | None:
    """Given ``appids`` (a comma list), return them each once in order; None when it is empty,
    malformed or longer than 100."""
    parts = [p.strip() for p in raw.split(",") if p.strip()]
    ok = all(p.isdigit() and p.isascii() and len(p) <= MAX_APPID_DIGITS for p in parts)
    if not parts or not ok or len(parts) > MAX_LOOKUP_APPIDS:
        return None
    return list(dict.fromkeys(int(p) for p in parts))


def verdict_price(item: dict[str, Any]) -> float:
    """Given a list item, return the price its list watch waits for: ``verdict_price_usd``
    where the verdict names one, else ``price_usd``."""
    wanted = item.get("verdict_price_usd")
    return float(wanted if wanted is not None else item["price_usd"])


def list_condition(raw: str) -> str | None:
    """Given the list form's ``condition`` (empty: ``verdict_price``), return it, or None
    when it is none of ``verdict_price``, ``recent_low`` and ``next_sale``."""
    choice = raw or "verdict_price"
    return choice if choice == "verdict_price" or choice in EVENTS else None


def _list_watch(choice: str, game: dict[str, Any]) -> Condition:
    """Given the list's condition and a game's list item, return that game's watch condition."""
    if choice in EVENTS:
        return Condition(event=choice)
    return Condition(below_usd=verdict_price(game))


class ListWatches:
    """The list-watch pages over the watch pages' services."""

    def __init__(self, watches: WatchSite) -> None:
        self.watches = watches

    def games(self, appids: list[int]) -> list[dict[str, Any]]:
        """Given appids, return the rated ones' list items from the current snapshot, in
        order."""
        snap = self.watches.source.current
        if snap is None:
            return []
        body, _ = snap.index.lookup(tuple(appids), snap.not_rated)
        games: list[dict[str, Any]] = orjson.loads(body)["games"]
        return games

    async def start(self, request: Request) -> Response:
        """GET /account/watch-list?appids=: the list and its one button (signed in), counted
        against the page allowance (it shows prices)."""
        site = self.watches
        appids = appids_of(request.query_params.get("appids", ""))
        if appids is None:
            return site._message(request, 400, "No list", "The link names no list of games.")
        choice = list_condition(request.query_params.get("condition", ""))
        if choice is None:
            return site._message(request, 400, "No such watch", _CONDITION)
        rate, refused = await site.admit_page(request)
        if refused is not None:
            return refused
        try:
            email = site.accounts.account(request)
        except StoreUnavailable:
            return site._message(request, 503, "Try again", _DOWN)
        games = self.games(appids)
        if email is None:
            response = site.accounts.page(
                request,
                "account_signin.html",
                error="Sign in or create an account, then watch the list from its page again.",
                typed="",
            )
        else:
            rows = [{"game": g, "price": verdict_price(g)} for g in games]
            response = site.accounts.page(
                request,
                "account_watch_list.html",
                rows=rows,
                condition=choice,
                event_words=EVENT_WORDS.get(choice),
            )
        response.headers.update(rate)
        return response

    async def add(self, request: Request) -> Response:
        """POST /account/watches/list: a watch per rated game of the list at its verdict
        price, one action; the first watch of an unconfirmed address queues its one
        confirmation."""
        site = self.watches
        email = site.accounts._signed_in_email(request)
        fields = await site.accounts.form(request)
        if email is None or fields is None:
            return site._message(request, 403, "Expired", _CSRF)
        choice = list_condition(fields.get("condition", ""))
        if choice is None:
            return site._message(request, 400, "Not watched", _CONDITION)
        appids = appids_of(fields.get("appids", ""))
        games = self.games(appids) if appids is not None else []
        if not games:
            return site._message(request, 400, "Not watched", "The list holds no rated game.")
        watches = [(int(game["appid"]), _list_watch(choice, game)) for game in games]
        slow = "Too many adds; try in an hour."
        return site.store_watches(request, email, watches, remove="some", slow=slow)


def list_routes(watches: WatchSite, session: Any) -> list[BaseRoute]:
    """Given the watch pages and the session middleware, return the list-watch routes."""
    pages = ListWatches(watches)
    return [
        Route("/account/watch-list", pages.start, methods=["GET"], middleware=session),
        Route("/account/watches/list", pages.add, methods=["POST"], middleware=session),
    ]
