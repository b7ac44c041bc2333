"""Batched storefront adapter: many apps' prices, review summaries, tags, release and content
descriptors from one ``IStoreBrowseService/GetItems`` call.

Endpoint (Steam Web API, no key needed): ``GET api.steampowered.com/IStoreBrowseService/
GetItems/v1/?input_json=<CStoreBrowse_GetItems_Request as JSON>``. The request is ``{"ids":
[{"appid": N}, ...], "context": {"language", "country_code"}, "data_request": {...}}``; the
answer is ``{"response": {"store_items": [StoreItem, ...]}}``, one item per id that the store
knows (an unknown or removed app is left out or answers ``success`` other than 1).

Shapes, from public records only:
- ``StoreBrowseItemDataRequest``'s flags (``include_all_purchase_options``,
  ``include_release``, ``include_reviews``, ``include_ratings``, ``include_basic_info``,
  ``include_tag_count``...): the store's own web client, as recorded in SteamDatabase's
  SteamTracking (the destructured ``data_request`` of its GetItems hook), and
  ``SteamDatabase/Protobufs`` ``webui/service_storebrowse.proto`` for the service itself.
- ``StoreItem``: the recorded GetItems answer for Portal 2 in ``AuthFailed/steamy-py``
  ``tests/fixtures/store_get_items.json`` (tests/fixtures/storefront/get_items_620.json):
  ``appid``, ``type`` (0 = game), ``success``, ``visible``, ``is_free``, ``tags`` (tagid,
  weight), ``reviews.summary_filtered`` (``review_count``, ``percent_positive``),
  ``release.steam_release_date`` (Unix seconds) and ``is_coming_soon``, and
  ``best_purchase_option`` with prices in cents as strings (``final_price_in_cents``,
  ``original_price_in_cents``), ``discount_pct`` and ``active_discounts[].discount_end_date``
  (Unix seconds). ``content_descriptorids`` (3 = adult-only sexual content, 4 = frequent nudity
  or sexual content) is read as the store's own client reads it.

The answer carries no currency field: prices are in the currency of ``context.country_code``,
so the request always asks for ``US`` and the values are US cents. A review summary's
``percent_positive`` is a whole percent, so ``review_score`` from it is rounded to 0.01.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from bangscore.ingest.live.http import PoliteClient
from bangscore.ingest.live.storefront import fetch_tag_names
from bangscore.ingest.resolve.names import display_name
from bangscore.ingest.resolve.prices import Price, Seen
from bangscore.scoring.records import GameRecord, SourceName

__all__ = [
    "ADULT_DESCRIPTORS",
    "BATCH_SIZE",
    "DATA_REQUEST",
    "BatchAnswer",
    "StoreItem",
    "StoreItemsAdapter",
    "batches",
    "items_request",
    "parse_store_item",
    "parse_store_items",
]

# Apps per GetItems call: 100 ids keep the GET's ``input_json`` far below the ~8 KB URL that
# public batch clients report the host accepts.
BATCH_SIZE: Final = 100
# Plausibility of one batch's answer (issue 36): every price within 0-1,000 USD (the store's
# dearest game is far below), and no more than a few games' prices moving tenfold at once.
MAX_PRICE_USD: Final = 1000.0
PRICE_JUMP: Final = 10.0
MASS_CHANGE_GAMES: Final = 5
DATA_REQUEST: Final[Mapping[str, object]] = {
    "include_all_purchase_options": True,
    "include_release": True,
    "include_reviews": True,
    "include_ratings": True,
    "include_basic_info": True,
    "include_tag_count": 20,
}
ADULT_DESCRIPTORS: Final = frozenset({3, 4})
# StoreItem.type: the store's EStoreAppType, 0 = game (the recorded Portal 2 item).
GAME_TYPE: Final = 0


@dataclass
class BatchAnswer:
    """What one batched call settled: fresh values by appid (the observation fields of
    :mod:`ingest.live.layers`; None: the source does not know the app) and the apps that need a
    per-game call instead."""

    patches: dict[int, dict[str, object] | None] = field(default_factory=dict)
    changed: set[int] = field(default_factory=set)
    refused: dict[int, str] = field(default_factory=dict)  # appid: why its answer was refused


@dataclass(frozen=True)
class StoreItem:
    """What GetItems says about one app. Prices in USD (None when the store sells it at no
    price: coming soon, not for sale); ``discount_end`` in UTC when the sale names its end."""

    appid: int
    name: str
    item_type: int
    is_free: bool
    price: Price | None
    discount_end: dt.datetime | None
    review_count: int | None
    percent_positive: int | None
    tag_weights: tuple[tuple[int, int], ...]
    release_date: dt.date | None
    coming_soon: bool
    early_access: bool
    content_descriptors: tuple[int, ...]

    @property
    def adult(self) -> bool:
        """Given the item, return True when its content descriptors mark sexual content."""
        return bool(ADULT_DESCRIPTORS.intersection(self.content_descriptors))


def items_request(appids: Sequence[int]) -> dict[str, str]:
    """Given appids, return the query of one GetItems call asking for every field a nightly
    refresh reads (US prices, review summary, tags, release, ratings), in English."""
    request = {
        "ids": [{"appid": appid} for appid in appids],
        "context": {"language": "english", "country_code": "US"},
        "data_request": dict(DATA_REQUEST),
    }
    return {"input_json": json.dumps(request, separators=(",", ":"))}


def _utc(seconds: Any) -> dt.datetime | None:
    return dt.datetime.fromtimestamp(int(seconds), dt.UTC) if seconds else None


def _price(option: Mapping[str, Any]) -> tuple[Price | None, dt.datetime | None]:
    """Given a ``best_purchase_option``, return its price and the end of its discount."""
    if "final_price_in_cents" not in option:
        return None, None
    final = int(option["final_price_in_cents"]) / 100
    original = int(option.get("original_price_in_cents") or option["final_price_in_cents"]) / 100
    discount = int(option.get("discount_pct") or 0)
    ends = [_utc(d.get("discount_end_date")) for d in option.get("active_discounts") or ()]
    known = [end for end in ends if end is not None]
    return Price(round(final, 2), round(original, 2), discount), (min(known) if known else None)


def parse_store_item(item: Mapping[str, Any]) -> StoreItem | None:
    """Given one ``store_items`` entry, return it parsed, or None when the store does not
    answer for it (``success`` other than 1, or no name). Raises ValueError/KeyError/TypeError
    on a malformed entry."""
    if not isinstance(item, Mapping):
        raise TypeError(f"a store item is a JSON object, not {type(item).__name__}")
    if int(item.get("success", 0)) != 1 or not item.get("name"):
        return None
    price, ends = _price(item.get("best_purchase_option") or {})
    summary = (item.get("reviews") or {}).get("summary_filtered") or {}
    release = item.get("release") or {}
    released = _utc(release.get("steam_release_date"))
    tags = sorted(
        ((int(t["tagid"]), int(t.get("weight", 0))) for t in item.get("tags") or ()),
        key=lambda pair: (-pair[1], pair[0]),
    )
    return StoreItem(
        appid=int(item.get("appid", item.get("id", 0))),
        name=display_name(str(item["name"])),
        item_type=int(item.get("type", GAME_TYPE)),
        is_free=bool(item.get("is_free")),
        price=price,
        discount_end=ends,
        review_count=int(summary["review_count"]) if "review_count" in summary else None,
        percent_positive=(
            int(summary["percent_positive"]) if "percent_positive" in summary else None
        ),
        tag_weights=tuple(tags),
        release_date=released.date() if released else None,
        coming_soon=bool(release.get("is_coming_soon")),
        early_access=bool(release.get("is_early_access") or item.get("is_early_access")),
        content_descriptors=tuple(int(i) for i in item.get("content_descriptorids") or ()),
    )


def parse_store_items(payload: Mapping[str, Any]) -> dict[int, StoreItem]:
    """Given a GetItems answer, return the items the store answered for, by appid (an app left
    out or answered without success is absent). Raises ValueError/KeyError/TypeError on a
    malformed answer."""
    response = payload.get("response") or {}
    if not isinstance(response, Mapping):
        raise TypeError(f"GetItems' response is a JSON object, not {type(response).__name__}")
    items = response.get("store_items") or []
    if not items:
        # The store answers every appid asked, if only with success 0: an empty answer is an
        # outage or a block, never news that every game left the store.
        raise ValueError("GetItems answered no item")
    parsed = [item for item in (parse_store_item(item) for item in items) if item is not None]
    by_appid = {item.appid: item for item in parsed}
    if len(by_appid) != len(parsed):
        seen = Counter(item.appid for item in parsed)
        twice = sorted(appid for appid, n in seen.items() if n > 1)
        raise ValueError(f"GetItems answered appids more than once: {twice[:10]}")
    return by_appid


def implausible_price(item: StoreItem) -> str | None:
    """Given a store item, return why its price cannot be right (outside 0-MAX_PRICE_USD,
    the paid or the list price), or None."""
    if item.price is None:
        return None
    for what, usd in (("price", item.price.price_usd), ("list price", item.price.list_price_usd)):
        if not 0 <= usd <= MAX_PRICE_USD:
            return f"{what} {usd} USD outside 0-{MAX_PRICE_USD:g}"
    return None


def implausible_prices(records: Sequence[GameRecord], items: Mapping[int, StoreItem]) -> list[int]:
    """Given a batch's records and the store's items, return the appids whose price moved
    past :data:`PRICE_JUMP` (up or down) from the record's, among games priced on both sides."""
    jumped = []
    for record in records:
        item = items.get(record.appid)
        if item is None or item.price is None or record.price_usd <= 0 or item.price.price_usd <= 0:
            continue
        ratio = item.price.price_usd / record.price_usd
        if ratio > PRICE_JUMP or ratio < 1 / PRICE_JUMP:
            jumped.append(record.appid)
    return jumped


def _review_patch(item: StoreItem) -> dict[str, object]:
    if item.review_count is None:
        return {}
    patch: dict[str, object] = {"review_count": item.review_count}
    if item.review_count and item.percent_positive is not None:
        patch["review_score"] = item.percent_positive / 100
    return patch


@dataclass(frozen=True)
class StoreItemsAdapter:
    """Batched adapter: refresh every record's storefront price, review summary, tags and
    release date from GetItems, ``batch_size`` apps a call.

    It also says which apps need the per-game ``appdetails`` call (:meth:`changed`): an app
    the batch left out, one whose store type is no longer a game, one whose release state
    changed.
    """

    api_base: str
    batch_size: int = BATCH_SIZE
    name: str = "store_items"
    source: SourceName = "storefront"
    _tag_names: dict[int, str] = field(default_factory=dict, compare=False, repr=False)

    def answer_batch(
        self, client: PoliteClient, records: Sequence[GameRecord], seen_at: dt.datetime
    ) -> BatchAnswer:
        """Given a client, at most ``batch_size`` records and the fetch time, return fresh
        values for the apps the batch settles and the apps that need a per-game call
        (:meth:`changed`). Raises as :meth:`fetch_batch` does."""
        items = self.fetch_batch(client, [record.appid for record in records])
        jumped = implausible_prices(records, items)
        if len(jumped) >= max(MASS_CHANGE_GAMES, len(records) // 2):
            # One game's price can move tenfold (a 90% sale); many at once is a broken or
            # hostile answer: the batch is refused and its games keep their last good values.
            raise ValueError(
                f"GetItems moved {len(jumped)} of {len(records)} prices past {PRICE_JUMP:g}x "
                f"at once (appids {jumped[:5]}...)"
            )
        if items and not self._tag_names:
            self._tag_names.update(fetch_tag_names(client, self.api_base))
        answer = BatchAnswer()
        for record in records:
            item = items.get(record.appid)
            if item is not None and (why := implausible_price(item)) is not None:
                answer.refused[record.appid] = why  # the game keeps its last good price
            elif item is None or self.changed(record, item):
                answer.changed.add(record.appid)
            else:
                answer.patches[record.appid] = self.patch(item, seen_at)
        return answer

    def fetch_batch(self, client: PoliteClient, appids: Sequence[int]) -> dict[int, StoreItem]:
        """Given a client and at most ``batch_size`` appids, return the store's items by appid
        (absent: the store did not answer for it). Raises SourceUnreachableError/SourceError
        from the client, ValueError/KeyError/TypeError on a malformed answer."""
        url = f"{self.api_base.rstrip('/')}/IStoreBrowseService/GetItems/v1/"
        return client.get_json(url, items_request(appids), parse=parse_store_items)  # type: ignore[no-any-return]

    def patch(self, item: StoreItem, seen_at: dt.datetime) -> dict[str, object]:
        """Given an item and the time it was fetched, return the fresh values by observation
        field (:mod:`ingest.live.layers`). The price rides as one dated point (``price_points``), so
        a sale's known end reaches the history; a free app is $0; an app sold at no price
        keeps its previous price."""
        # Only a game reaches here (:meth:`changed` sends any other type to appdetails).
        patch: dict[str, object] = {"name": item.name, "app_type": "game"}
        price = Price(0.0, 0.0, 0) if item.is_free else item.price
        if price is not None:
            patch["price_usd"] = price.price_usd
            patch["list_price_usd"] = price.list_price_usd
            patch["discount_percent"] = price.discount_percent
            end = item.discount_end if price.discount_percent else None
            patch["price_points"] = (Seen(seen_at, price, f"live {self.name}", end),)
        patch.update(_review_patch(item))
        if item.release_date is not None:
            patch["release_date"] = item.release_date
        names = [self._tag_names[t] for t, _ in item.tag_weights if t in self._tag_names]
        if names:
            patch["tags"] = tuple(names)
        return patch

    def changed(self, record: GameRecord, item: StoreItem | None) -> bool:
        """Given a record and the batch's item for it (None: left out), return True when the
        app needs a per-game ``appdetails`` call: left out (delisted, or no longer an app the
        store shows), no longer a game, or back to "coming soon" although the catalogue rates
        it as released. A release date that merely differs is patched from the batch."""
        del record  # every rated record is a released game: the item alone says what changed
        return item is None or item.item_type != GAME_TYPE or item.coming_soon


def batches(appids: Iterable[int], size: int) -> list[list[int]]:
    """Given appids and a batch size, return them in order, cut into lists of at most
    ``size``. Raises ValueError for a size below 1."""
    if size < 1:
        raise ValueError(f"batch size must be at least 1, not {size}")
    ordered = list(appids)
    return [ordered[i : i + size] for i in range(0, len(ordered), size)]
