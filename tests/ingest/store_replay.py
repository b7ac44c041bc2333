"""A storefront, a Steam Web API and an IsThereAnyDeal that answer in batches, for a whole
catalogue: three real replay servers on loopback (one per host, so requests count per host).

Every answer is built in the recorded or documented shape of its endpoint (see
``bangscore.ingest.live.store_items`` and ``bangscore.ingest.live.itad`` for the sources): GetItems
items cut from the recorded Portal 2 item (tests/fixtures/storefront/get_items_620.json), prices in
US cents as strings; appdetails from the recorded Portal 2 wrapper; ITAD's lookup and lows as
its API documentation shows them. What each app does is an :class:`App`; what each host does
wrong is a :class:`Faults`.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from tests.ingest.replay import Handler, Replay, Reply, fixture_json, ok, start_replay, stop_replay

_ITEM = fixture_json("storefront/get_items_620.json")["response"]["store_items"][0]
_DETAILS = fixture_json("storefront/appdetails_620_usd.json")["620"]


@dataclass
class App:
    """One app as the live sources see it. Cents as the store writes them; ``listed`` False:
    GetItems leaves it out and appdetails answers ``success: false``; ``partial``: GetItems
    answers for it without a purchase option or review summary; ``item_type`` 4 (DLC) with
    ``details_type`` "dlc": an app that changed type."""

    appid: int
    final_cents: int = 1999
    original_cents: int = 1999
    discount_end: int | None = None
    review_count: int = 5000
    percent_positive: int = 90
    is_free: bool = False
    listed: bool = True
    partial: bool = False
    item_type: int = 0
    details_type: str = "game"
    itad_low_cents: int | None = None

    def store_item(self) -> dict[str, Any]:
        """Return the app's GetItems item, in the recorded item's shape."""
        item = {k: copy.deepcopy(_ITEM[k]) for k in ("item_type", "success", "visible", "tags")}
        item |= {"id": self.appid, "appid": self.appid, "type": self.item_type}
        item |= {"name": f"Game {self.appid}", "release": {"steam_release_date": 1303171200}}
        if self.partial:
            return item
        item["reviews"] = {
            "summary_filtered": {
                "review_count": self.review_count,
                "percent_positive": self.percent_positive,
            }
        }
        if self.is_free:
            item["is_free"] = True
            return item
        option = copy.deepcopy(_ITEM["best_purchase_option"])
        option |= {
            "final_price_in_cents": str(self.final_cents),
            "original_price_in_cents": str(self.original_cents),
            "discount_pct": round(100 * (1 - self.final_cents / self.original_cents)),
        }
        option.pop("active_discounts", None)
        if self.final_cents < self.original_cents:
            option["active_discounts"] = [
                {
                    "discount_amount": str(self.original_cents - self.final_cents),
                    "discount_end_date": self.discount_end,
                }
            ]
        item["best_purchase_option"] = option
        return item

    def appdetails(self) -> dict[str, Any]:
        """Return the app's appdetails answer, in the recorded wrapper's shape."""
        if not self.listed:
            return {str(self.appid): {"success": False}}
        data = copy.deepcopy(_DETAILS["data"])
        data |= {"steam_appid": self.appid, "name": f"Game {self.appid}", "type": self.details_type}
        return {str(self.appid): {"success": True, "data": data}}


@dataclass
class Faults:
    """What goes wrong: GetItems batches (by first appid) answering 429 with ``Retry-After``
    once, and batches answering 503 until :attr:`healed`."""

    throttle_once: set[int] = field(default_factory=set)
    unavailable: set[int] = field(default_factory=set)
    healed: bool = False


@dataclass
class Hosts:
    """The three running servers and the apps they answer for."""

    api: Replay
    store: Replay
    itad: Replay
    apps: dict[int, App]
    faults: Faults

    def counts(self) -> dict[str, int]:
        """Return requests received so far, per host."""
        return {
            "api": len(self.api.hits),
            "store": len(self.store.hits),
            "itad": len(self.itad.hits),
        }


def _get_items(apps: Mapping[int, App], faults: Faults) -> Handler:
    def answer(query: dict[str, str], _: bytes) -> Reply:
        ids = [int(i["appid"]) for i in json.loads(query["input_json"])["ids"]]
        if ids[0] in faults.throttle_once:
            faults.throttle_once.discard(ids[0])
            return 429, {"Retry-After": "1"}, b"{}"
        if ids[0] in faults.unavailable and not faults.healed:
            return 503, {}, b"<html>Service Unavailable</html>"
        items = [apps[i].store_item() for i in ids if i in apps and apps[i].listed]
        return ok({"response": {"store_items": items}})

    return answer


def _itad_routes(apps: Mapping[int, App]) -> dict[tuple[str, str], Handler]:
    def lookup(_: dict[str, str], body: bytes) -> Reply:
        keys = json.loads(body)
        found = {key: f"itad-{key[4:]}" if int(key[4:]) in apps else None for key in keys}
        return ok(found)

    def lows(_: dict[str, str], body: bytes) -> Reply:
        out = []
        for game_id in json.loads(body):
            cents = apps[int(game_id[5:])].itad_low_cents
            if cents is not None:
                price = {"amount": cents / 100, "amountInt": cents, "currency": "USD"}
                low = {"shop": {"id": 61, "name": "Steam"}, "price": price, "cut": 50}
                out.append({"id": game_id, "low": low | {"timestamp": "2026-07-02T18:00:00+02:00"}})
        return ok(out)

    return {("POST", "/lookup/id/shop/61/v1"): lookup, ("POST", "/games/historylow/v1"): lows}


def start_hosts(apps: Mapping[int, App], faults: Faults) -> Hosts:
    """Given the apps and the faults, start the three servers; stop them with :func:`stop_hosts`."""
    by_id = dict(apps)
    summary = {"success": 1, "query_summary": {"total_positive": 900, "total_negative": 100}}
    api = start_replay(
        {
            ("GET", "/IStoreBrowseService/GetItems/v1/"): _get_items(by_id, faults),
            ("GET", "/IStoreService/GetTagList/v1/"): lambda q, b: ok(
                fixture_json("storefront/handbuilt_tag_list.json")
            ),
        }
    )
    store_routes: dict[tuple[str, str], Handler] = {
        ("GET", "/api/appdetails"): lambda q, b: ok(by_id[int(q["appids"])].appdetails()),
    }
    store_routes |= {("GET", f"/appreviews/{a}"): lambda q, b: ok(summary) for a in by_id}
    return Hosts(api, start_replay(store_routes), start_replay(_itad_routes(by_id)), by_id, faults)


def stop_hosts(hosts: Hosts) -> None:
    """Stop the three servers and release their sockets."""
    for server in (hosts.api, hosts.store, hosts.itad):
        stop_replay(server)
