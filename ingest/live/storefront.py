"""Storefront adapter: app details (US prices), review totals and user tags.

Endpoints (Steam storefront and Web API, no key needed):
- ``store.steampowered.com/api/appdetails?appids=<id>&cc=us&l=english``: name, ``price_overview``
  (US cents with ``cc=us``), ``is_free``, genres, ``release_date``, ``metacritic``, developers,
  publishers.
- ``store.steampowered.com/appreviews/<id>?json=1&purchase_type=all&num_per_page=0``: the
  ``query_summary`` totals that give ``review_count`` and ``review_score`` (all purchase types).
- ``api.steampowered.com/IStoreBrowseService/GetItems/v1?input_json=...``: user tag ids with
  their vote weights; ``IStoreService/GetTagList/v1?language=english`` names the ids.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bangscore.ingest.live.http import PoliteClient
from bangscore.ingest.resolve.names import display_cell, display_name
from bangscore.scoring.records import GameRecord, SourceName

_FULL_DATE_FORMATS = ("%d %b, %Y", "%b %d, %Y", "%d %B, %Y", "%B %d, %Y", "%d %b %Y", "%Y-%m-%d")
_MONTH_FORMATS = ("%b %Y", "%B %Y", "%b, %Y", "%B, %Y")


@dataclass(frozen=True)
class AppDetails:
    """What ``appdetails`` says about one app. Prices in USD; None where absent or not in USD."""

    appid: int
    name: str
    app_type: str
    price_usd: float | None
    list_price_usd: float | None
    discount_percent: int | None
    developer: str | None
    publisher: str | None
    genres: tuple[str, ...]
    release_date: dt.date | None
    release_year: int | None
    metacritic: int | None
    categories: tuple[str, ...] = ()


def parse_release_date(text: str | None) -> tuple[dt.date | None, int | None]:
    """Given the storefront's ``release_date.date`` text, return (date, year).

    Full dates ("18 Apr, 2011", "Apr 18, 2011") give both; a month or a bare year ("Q1 2020",
    "2021") gives only the year; "Coming soon"/"TBA"/empty give (None, None).
    """
    if not text:
        return None, None
    cleaned = text.strip()
    for fmt in _FULL_DATE_FORMATS:
        try:
            day = dt.datetime.strptime(cleaned, fmt).date()
        except ValueError:
            continue
        return day, day.year
    for fmt in _MONTH_FORMATS:
        try:
            return None, dt.datetime.strptime(cleaned, fmt).year
        except ValueError:
            continue
    tail = cleaned.split()[-1]
    if len(tail) == 4 and tail.isdigit() and 1970 <= int(tail) <= 2100:
        return None, int(tail)
    return None, None


def parse_appdetails(payload: Mapping[str, Any], appid: int) -> AppDetails | None:
    """Given an ``appdetails`` response (``{"<id>": {...}}`` or the bare ``data``), parse it.

    Returns None when the storefront answers ``success: false`` (delisted or region-locked app).
    A price in any currency other than USD is refused (price fields None): mixing currencies
    would corrupt the score. Free apps get price 0.
    """
    data: Mapping[str, Any]
    wrapper = payload.get(str(appid))
    if isinstance(wrapper, Mapping):
        if not wrapper.get("success"):
            return None
        data = wrapper.get("data") or {}
    else:
        data = payload
    if "name" not in data:
        return None
    price = list_price = None
    discount = None
    overview = data.get("price_overview")
    if data.get("is_free"):
        price, list_price, discount = 0.0, 0.0, 0
    elif isinstance(overview, Mapping) and overview.get("currency") == "USD":
        price = round(int(overview["final"]) / 100, 2)
        list_price = round(int(overview["initial"]) / 100, 2)
        discount = int(overview.get("discount_percent", 0))
    release = data.get("release_date") or {}
    release_date, release_year = parse_release_date(release.get("date"))
    metacritic = (data.get("metacritic") or {}).get("score")
    developers = data.get("developers") or []
    publishers = data.get("publishers") or []
    return AppDetails(
        appid=int(data.get("steam_appid", appid)),
        name=display_name(str(data["name"])),
        app_type=str(data.get("type", "")),
        price_usd=price,
        list_price_usd=list_price,
        discount_percent=discount,
        developer=display_cell(str(developers[0])) if developers else None,
        publisher=display_cell(str(publishers[0])) if publishers else None,
        genres=tuple(str(g["description"]) for g in data.get("genres") or []),
        release_date=release_date,
        release_year=release_year,
        metacritic=int(metacritic) if metacritic is not None else None,
        categories=tuple(str(c["description"]) for c in data.get("categories") or []),
    )


def parse_tag_list(payload: Mapping[str, Any]) -> dict[int, str]:
    """Given an ``IStoreService/GetTagList`` response, return tag id -> English tag name."""
    tags = (payload.get("response") or {}).get("tags") or []
    return {int(t["tagid"]): str(t["name"]) for t in tags}


def parse_item_tags(payload: Mapping[str, Any], appid: int) -> list[tuple[int, int]]:
    """Given an ``IStoreBrowseService/GetItems`` response, return the app's (tagid, weight) pairs.

    Most-voted first (weight descending, then tag id for a stable order); [] if the app is absent.
    """
    for item in (payload.get("response") or {}).get("store_items") or []:
        if int(item.get("appid", item.get("id", -1))) == appid:
            pairs = [(int(t["tagid"]), int(t.get("weight", 0))) for t in item.get("tags") or []]
            return sorted(pairs, key=lambda p: (-p[1], p[0]))
    return []


def review_totals(summary: Mapping[str, Any]) -> tuple[int, int]:
    """Given an ``appreviews`` ``query_summary``, return (positive reviews, all reviews)."""
    positive = int(summary["total_positive"])
    return positive, positive + int(summary["total_negative"])


def items_request(appid: int) -> dict[str, str]:
    """Given an appid, return the query of a GetItems call asking for its tags (US, English)."""
    request = {
        "ids": [{"appid": appid}],
        "context": {"language": "english", "country_code": "US"},
        "data_request": {"include_tag_count": 20},
    }
    return {"input_json": json.dumps(request, separators=(",", ":"))}


def fetch_tag_names(client: PoliteClient, api_base: str) -> dict[int, str]:
    """Given a client and the Web API's base URL, return tag id -> English name from
    ``IStoreService/GetTagList/v1``. Raises as :meth:`PoliteClient.get_json` does."""
    url = f"{api_base.rstrip('/')}/IStoreService/GetTagList/v1/"
    return parse_tag_list(client.get_json(url, {"language": "english"}))


@dataclass(frozen=True)
class StorefrontAdapter:
    """Adapter: refresh a record's storefront fields (details, review totals, user tags)."""

    store_base: str
    api_base: str
    name: str = "storefront"
    source: SourceName = "storefront"
    _tag_names: dict[int, str] = field(default_factory=dict, compare=False, repr=False)

    def tag_names(self, client: PoliteClient) -> dict[int, str]:
        """Given a client, return the tag-name map, fetched once per adapter."""
        if not self._tag_names:
            self._tag_names.update(fetch_tag_names(client, self.api_base))
        return self._tag_names

    def fetch(self, client: PoliteClient, record: GameRecord) -> dict[str, object] | None:
        """Given a client and a record, return the fresh storefront values by observation field
        (:mod:`ingest.live.layers`), or None if delisted.

        Price fields are left out of the result when the storefront gives no USD price, so the
        previous price is kept rather than replaced by a guess. ``review_count`` is the
        storefront's total of reviews and ``review_score`` their positive share (left out with
        no reviews); ``app_type`` feeds the not-a-game check.
        """
        store = self.store_base.rstrip("/")
        params: dict[str, str | int] = {"appids": record.appid, "cc": "us", "l": "english"}
        details = client.get_json(
            f"{store}/api/appdetails", params, parse=lambda p: parse_appdetails(p, record.appid)
        )
        if details is None:
            return None
        patch: dict[str, object] = {
            "name": details.name or record.name,
            "storefront_genres": details.genres,
        }
        if details.categories:
            patch["categories"] = details.categories
        # An absent credit, date or score is more likely a storefront gap than a change: keep ours.
        optional = {
            "app_type": details.app_type or None,
            "metacritic": details.metacritic,
            "developer": details.developer,
            "publisher": details.publisher,
            "release_date": details.release_date,
            "release_year": details.release_year,
        }
        patch.update({key: value for key, value in optional.items() if value is not None})
        if details.price_usd is not None and details.list_price_usd is not None:
            patch["price_usd"] = details.price_usd
            patch["list_price_usd"] = details.list_price_usd
            patch["discount_percent"] = details.discount_percent or 0
        summary_params: dict[str, str | int] = {
            "json": 1,
            "purchase_type": "all",
            "language": "all",
            "filter": "all",
            "num_per_page": 0,
        }
        summary = client.get_json(f"{store}/appreviews/{record.appid}", summary_params)
        totals = summary.get("query_summary") or {}
        if "total_positive" in totals and "total_negative" in totals:
            positive, total = review_totals(totals)
            patch["review_count"] = total
            if total:
                patch["review_score"] = positive / total
        items_url = f"{self.api_base.rstrip('/')}/IStoreBrowseService/GetItems/v1/"
        items = client.get_json(items_url, items_request(record.appid))
        pairs = parse_item_tags(items, record.appid)
        if pairs:
            names = self.tag_names(client)
            patch["tags"] = tuple(names[tagid] for tagid, _ in pairs if tagid in names)
        return patch
