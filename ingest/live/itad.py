"""IsThereAnyDeal (API v2) adapter: the historical low price in US dollars.

Endpoints (key from configuration, sent as the ``key`` query parameter):
- ``GET api.isthereanydeal.com/games/lookup/v1?appid=<steam appid>`` -> ``{"found": bool,
  "game": {"id": "<uuid>", "slug", "title", "type", "mature"}}``.
- ``POST api.isthereanydeal.com/games/historylow/v1?country=US`` with a JSON list of game ids ->
  ``[{"id": "<uuid>", "low": {"shop": {"id", "name"}, "price": {"amount", "amountInt",
  "currency"}, "regular": {...}, "cut", "timestamp"}}]``.
- ``POST api.isthereanydeal.com/lookup/id/shop/61/v1`` with a JSON list of Steam ids
  (``"app/<appid>"``; shop 61 is Steam) -> ``{"app/<appid>": "<uuid>" | null, ...}``.
The low is over every shop ITAD tracks in the US region, which is what "lowest price seen by the
price-history source" (``historical_low_usd``, docs/API.md#detail-record) asks for.

Shapes from ITAD's own API documentation, ``IsThereAnyDeal/API`` (``docs/routes/lookup/
gid-by-shopid.v1.yaml`` and its example, ``docs/routes/games/historylow.v1.yaml``: a body of at
most 200 game ids, ``requestBodies/gids-200``). The nightly refresh uses the two batched calls
(:meth:`ItadAdapter.answer_batch`), 200 games a pair; :meth:`ItadAdapter.fetch` is the per-game
form.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from bangscore.ingest.live.http import PoliteClient
from bangscore.ingest.live.store_items import BatchAnswer
from bangscore.scoring.records import GameRecord, SourceName

# Steam's shop id at IsThereAnyDeal (the ``shop`` of a Steam low, ``{"id": 61, "name": "Steam"}``).
STEAM_SHOP: Final = 61
# ITAD's documented most game ids per request body (``gids-200``).
ITAD_BATCH: Final = 200


def parse_shop_lookup(payload: Mapping[str, Any], appids: Sequence[int]) -> dict[int, str]:
    """Given a ``lookup/id/shop/61/v1`` answer and the appids asked for, return appid -> ITAD
    game id for those ITAD knows (a null or missing entry is left out)."""
    found: dict[int, str] = {}
    for appid in appids:
        game_id = payload.get(f"app/{appid}")
        if game_id:
            found[appid] = str(game_id)
    return found


def parse_lookup(payload: Mapping[str, Any]) -> str | None:
    """Given a ``games/lookup/v1`` response, return the ITAD game id, or None if not found."""
    if not payload.get("found"):
        return None
    game = payload.get("game") or {}
    game_id = game.get("id")
    return str(game_id) if game_id else None


def parse_history_low(payload: Sequence[Mapping[str, Any]], game_id: str) -> float | None:
    """Given a ``games/historylow/v1`` response, return the game's low in USD, or None.

    A low in another currency is refused (None): the catalog holds US dollars only.
    """
    for item in payload:
        if item.get("id") != game_id:
            continue
        price = (item.get("low") or {}).get("price") or {}
        if price.get("currency") != "USD":
            return None
        if "amountInt" in price:
            return round(int(price["amountInt"]) / 100, 2)
        if "amount" in price:
            return round(float(price["amount"]), 2)
    return None


@dataclass(frozen=True)
class ItadAdapter:
    """Adapter: refresh ``historical_low_usd`` from IsThereAnyDeal v2.

    ``api_key`` comes from configuration; with no key the adapter cannot run (ValueError).
    """

    base: str
    api_key: str = field(repr=False)
    country: str = "US"
    name: str = "itad"
    source: SourceName = "price_history"
    batch_size: int = ITAD_BATCH

    def answer_batch(
        self, client: PoliteClient, records: Sequence[GameRecord], seen_at: dt.datetime
    ) -> BatchAnswer:
        """Given a client and at most 200 records, return ``{"historical_low_usd": x}`` by
        appid from two calls (Steam ids to ITAD ids, then their lows); None for an app ITAD
        does not know or prices in no US dollars. Raises as the client does."""
        del seen_at  # a low carries its own day in ITAD's answer; the layer dates the fetch
        base = self.base.rstrip("/")
        appids = [record.appid for record in records]
        lookup = client.post_json(
            f"{base}/lookup/id/shop/{STEAM_SHOP}/v1",
            [f"app/{appid}" for appid in appids],
            {"key": self.api_key},
        )
        ids = parse_shop_lookup(lookup, appids)
        lows = (
            client.post_json(
                f"{base}/games/historylow/v1",
                sorted(set(ids.values())),
                {"key": self.api_key, "country": self.country},
            )
            if ids
            else []
        )
        answer = BatchAnswer()
        for appid in appids:
            low = parse_history_low(lows, ids[appid]) if appid in ids else None
            answer.patches[appid] = None if low is None else {"historical_low_usd": low}
        return answer

    def fetch(self, client: PoliteClient, record: GameRecord) -> dict[str, object] | None:
        """Given a client and a record, return ``{"historical_low_usd": x}`` (a US price seen,
        ``usd_price_seen`` once observed), or None if unknown."""
        if not self.api_key:
            raise ValueError("IsThereAnyDeal needs an API key (configuration itad_api_key)")
        base = self.base.rstrip("/")
        lookup = client.get_json(
            f"{base}/games/lookup/v1", {"key": self.api_key, "appid": record.appid}
        )
        game_id = parse_lookup(lookup)
        if game_id is None:
            return None
        lows = client.post_json(
            f"{base}/games/historylow/v1", [game_id], {"key": self.api_key, "country": self.country}
        )
        low = parse_history_low(lows, game_id)
        return None if low is None else {"historical_low_usd": low}
