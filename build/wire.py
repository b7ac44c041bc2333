"""Wire records: a scored game as the list item (docs/API.md#list-item) and the detail record
(docs/API.md#detail-record).

Pure functions from :class:`ScoredGame` to plain dicts in the field order of their models
(:class:`bangscore.contract.records.ListItem`, :class:`~bangscore.contract.records.GameDetail`:
:func:`~bangscore.contract.wire_form.ordered` refuses a field the model lacks or misses); the
builder checks each against its model (:func:`check`) and turns it into bytes with
:func:`dumps`, orjson writing what pydantic would, several times faster. Rounding follows
docs/API.md#numbers: prices 2 decimals, fractions 3 decimals, hours 1 decimal, ``bang_score``
an integer.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Sequence
from typing import Any

import orjson
from unidecode import unidecode

from bangscore.build.buyer import buyer_fields
from bangscore.contract.records import GameDetail, ListItem
from bangscore.contract.search_words import DROPPED_CHARS
from bangscore.contract.wire_form import ordered
from bangscore.scoring import flags
from bangscore.scoring.pipeline import ScoredGame
from bangscore.scoring.records import EarlyWindow
from bangscore.scoring.value import SCORE_VERSION

JSON = dict[str, Any]
_WORD = re.compile(r"[a-z0-9]+")


def dumps(value: Any) -> bytes:
    """Given a JSON-able value, return its compact UTF-8 JSON bytes (the one serializer we use)."""
    return orjson.dumps(value)


def slugify(name: str) -> str:
    """Given a game name, return its slug: lowercase ASCII words joined by ``-`` ("game" if none).

    Accented letters are transliterated (``Pokémon`` -> ``pokemon``); marks like ™ and
    apostrophes are dropped (``Let's`` -> ``lets``), as search folding drops them.
    """
    words = _WORD.findall(unidecode(name.translate(DROPPED_CHARS)).lower())
    return "-".join(words) or "game"


def game_url(site_url: str, appid: int, name: str) -> str:
    """Given the site's base URL, an appid and a name, return ``{site}/game/<appid>/<slug>``."""
    return f"{site_url.rstrip('/')}/game/{appid}/{slugify(name)}"


@functools.lru_cache(maxsize=1024)  # the real catalogue's 40,757 prices were seen at 29 moments
def rfc3339(moment: dt.datetime | None) -> str | None:
    """Given a time (aware) or None, return it as an RFC 3339 UTC string to the second
    (``2026-07-24T14:13:40Z``), or None."""
    return None if moment is None else moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _r(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def _day(day: dt.date | None) -> str | None:
    return None if day is None else day.isoformat()


def _buyer_of(game: ScoredGame) -> JSON:
    # A game on its own (tests, a single record): its buyer fields against its own prices. The
    # builder always passes the catalogue's (build.buyer.buyer_fields over every game).
    return buyer_fields([game])[0]


def list_item(
    game: ScoredGame,
    site_url: str,
    buyer: JSON | None = None,
    prices_as_of: dt.datetime | None = None,
) -> JSON:
    """Given a scored game, the site URL, its buyer fields (:func:`build.buyer.buyer_fields`;
    None computes them from this game alone) and the catalogue's ``prices_as_of`` (UTC; None:
    no price is judged stale), return the list item dict in :class:`ListItem` order
    (docs/API.md#list-item). ValueError or KeyError if the fields written and the model's
    differ."""
    rec = game.record
    as_of = prices_as_of.date() if prices_as_of is not None else None
    sample = rec.reviews
    ranks = game.refund_ranks
    if buyer is None:
        buyer = _buyer_of(game)
    next_sale = buyer.get("next_sale")
    # {"name", "parts"} of the work the game is a chapter, episode or volume of, else None.
    series = game.series.wire() if game.series is not None else None
    return ordered(
        ListItem,
        {
            "appid": rec.appid,
            "name": rec.name,
            "bang_score": game.bang_score,
            "tier": game.tier,
            "verdict": buyer["verdict"],
            "verdict_price_usd": buyer["verdict_price_usd"],
            "verdict_price_seen_at": buyer["verdict_price_seen_at"],
            "next_sale_price_usd": next_sale["expected_price_usd"] if next_sale else None,
            "next_sale_starts": next_sale["starts"] if next_sale else None,
            "next_sale_confidence": next_sale["confidence"] if next_sale else None,
            "series": series,
            "genre": game.genre,
            "price_usd": round(rec.price_usd, 2),
            "discount_percent": rec.discount_percent,
            "price_observed_at": rfc3339(rec.price_observed_at),
            "review_score": round(rec.review_score, 3),
            "length_hours": _r(rec.main_story_hours, 1),
            "finish_rate": _r(rec.finish_rate, 3),
            "release_year": rec.release_year,
            "early_access": flags.early_access(rec),
            "provisional": bool(flags.provisional_reasons(rec, as_of)),
            "adult": flags.adult(rec),
            "steam_deck": rec.steam_deck,
            "controller_support": rec.controller_support,
            "url": game_url(site_url, rec.appid, rec.name),
            "refunded_review_share": _r(sample.share, 3) if sample else None,
            "refunded_review_sample": sample.sample if sample else None,
            "refunded_review_flagged": sample.flagged if sample else None,
            "refunded_review_percentile": _r(ranks.percentile, 3) if ranks else None,
            "refunded_review_genre_percentile": _r(ranks.genre_percentile, 3) if ranks else None,
            "refunded_review_genre_pool": ranks.genre_pool if ranks else None,
        },
    )


def check(model: type[ListItem], body: bytes) -> None:
    """Given a record model and the JSON bytes of a record the builder wrote, raise
    pydantic.ValidationError naming each field that breaks the model (a type, a bound, a
    vocabulary word).

    The bytes are what clients parse, so the wire itself is checked, and pydantic's core
    parses them: a quarter less time than validating the dict (54 against 74 us a detail
    record, 40,000 a build)."""
    model.model_validate_json(body)


def _early_window(game: ScoredGame) -> EarlyWindow | None:
    """Return the game's early-window signals: the live sampler's when it has them (it is
    newer than any dump), else the review dumps'."""
    sample = game.record.reviews
    if sample is not None and sample.early_window_reviews is not None and sample.window:
        return EarlyWindow(
            reviews=sample.early_window_reviews,
            positive_share=sample.early_window_positive_share,
            review_share=sample.early_window_review_share,
            sample=sample.sample,
            window=sample.window,
            source="live review sampler",
        )
    return game.record.early_window


def detail_record(
    game: ScoredGame,
    site_url: str,
    prices_as_of: dt.datetime | None = None,
    buyer: JSON | None = None,
    item: JSON | None = None,
    score_history: Sequence[JSON] = (),
) -> JSON:
    """Given a scored game, the site URL, the catalog's ``prices_as_of`` (UTC, None when
    the catalog predates it), its buyer fields (``verdict``, ``verdict_price_usd``,
    ``verdict_text``, ``genre_percentile``, ...: :func:`build.buyer.buyer_fields`; None
    computes them from this game alone), its list item when the caller has made it already
    (:func:`list_item` for the same game, site URL and buyer fields, copied, not changed; None
    makes it) and its ``score_history`` wire value (:func:`build.score_history.wire`), return
    the detail record in :class:`GameDetail` order (docs/API.md#detail-record). ValueError or
    KeyError if the fields written and the model's differ.

    Holds every list field, every refund-signal field (null until sampled), then the detail
    fields in the order that section lists them (``developer`` ... ``estimated``).
    ``estimated`` names the inputs that are documented estimates rather than observations.
    """
    rec = game.record
    sample = rec.reviews
    early = _early_window(game)
    first = sample.first_30_days if sample else None
    window = sample.window if sample else None
    if buyer is None:
        buyer = _buyer_of(game)
    out = dict(item) if item is not None else list_item(game, site_url, buyer, prices_as_of)
    out.update(
        {
            "developer": rec.developer,
            "publisher": rec.publisher,
            "metacritic": rec.metacritic,
            "completionist_hours": _r(rec.completionist_hours, 1),
            "becomes_banger_at_usd": game.becomes_banger_at_usd,
            "worth_it_at_usd": game.worth_it_at_usd,
            **buyer,
            "list_price_usd": round(rec.list_price_usd, 2),
            "historical_low_usd": _r(rec.historical_low_usd, 2),
            "historical_low_at": _day(rec.historical_low_at),
            "prices_as_of": rfc3339(prices_as_of),
            "price_history": [
                {
                    "date": point.date.isoformat(),
                    "price_usd": round(point.price_usd, 2),
                    "list_price_usd": round(point.list_price_usd, 2),
                    "discount_percent": point.discount_percent,
                    "source": point.source,
                    "estimated": point.estimated,
                }
                for point in rec.price_history
            ],
            "score_history": list(score_history),
            "review_count": rec.review_count,
            "recent_review_score": _r(rec.recent_review_score, 3),
            "recent_review_count": rec.recent_review_count,
            "recent_reviews_at": _day(rec.recent_reviews_at),
            "tags": list(rec.tags),
            "steam_deck_tested_at": _day(rec.steam_deck_tested_at),
            "languages": [language.model_dump() for language in rec.languages],
            "ai_content": rec.ai_content,
            "refunded_review_over_2h": _r(sample.over_2h, 3) if sample else None,
            "refunded_review_window": (
                {"from": window.from_.isoformat(), "to": window.to.isoformat()} if window else None
            ),
            "refunded_review_first_30_days": (
                {"sample": first.sample, "flagged": first.flagged, "share": _r(first.share, 3)}
                if first
                else None
            ),
            "early_window_reviews": early.reviews if early else None,
            "early_window_positive_share": _r(early.positive_share, 3) if early else None,
            "early_window_review_share": _r(early.review_share, 3) if early else None,
            "early_window_sample": (
                {
                    "sample": early.sample,
                    "from": early.window.from_.isoformat(),
                    "to": early.window.to.isoformat(),
                    "source": early.source,
                }
                if early
                else None
            ),
            "provisional_reasons": flags.provisional_reasons(
                rec, prices_as_of.date() if prices_as_of is not None else None
            ),
            "length_source": rec.length_source,
            "drivers": game.drivers,
            "score_version": SCORE_VERSION,
            "sources": {
                name: (day.isoformat() if day else None)
                for name, day in rec.sources.model_dump().items()
            },
            "provenance": {
                name: {"source": p.source, "kind": p.kind, "date": p.date.isoformat()}
                for name, p in rec.provenance.items()
            },
            "checks": list(rec.checks),
            "estimated": list(rec.estimated),
        }
    )
    return ordered(GameDetail, out)
