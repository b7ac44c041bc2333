"""What the snapshot tells a buyer beyond the score: dated prices, the verdict, the genre
percentile and what is typical of a genre (docs/API.md#verdict).

Pure functions of scored games. Dated prices come from a record's ``price_history`` and
``price_observed_at`` when the catalogue has them; a record without them still has dated
prices: its current price on the date its source observed it, and its historical low on the
date of the price-history source that saw it (the low happened on or before that date).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bangscore.scoring import forecast as fc
from bangscore.scoring import value
from bangscore.scoring.pipeline import ScoredGame, is_free, reviews_read
from bangscore.scoring.records import GameRecord
from bangscore.scoring.review_words import Reviews
from bangscore.scoring.verdict import (
    Sighting,
    ended_sale,
    genre_percentiles,
    verdict,
)
from bangscore.scoring.verdict_text import verdict_text
from bangscore.site.history_chart import HistoryPoint


def price_date(record: GameRecord) -> dt.date | None:
    """Given a record, return the day its current price was observed: ``price_observed_at``
    when the catalogue has it, else the date of the price's source, else the storefront's."""
    observed = getattr(record, "price_observed_at", None)
    if isinstance(observed, dt.datetime):
        return observed.date()
    source = record.provenance.get("price_usd")
    return source.date if source is not None else record.sources.storefront


def _discount(price: float, list_price: float) -> int:
    if list_price <= 0 or price >= list_price:
        return 0
    return min(100, round((1 - price / list_price) * 100))


def price_points(record: GameRecord) -> list[HistoryPoint]:
    """Given a record, return its dated prices, oldest first (see the module's docstring)."""
    history = getattr(record, "price_history", ())
    if history:
        return sorted(
            (
                HistoryPoint(
                    p.date,
                    p.price_usd,
                    p.list_price_usd,
                    p.discount_percent,
                    str(p.source),
                    bool(getattr(p, "estimated", False)),
                )
                for p in history
            ),
            key=lambda p: p.date,
        )
    points = []
    low = record.historical_low_usd
    low_source = record.provenance.get("historical_low_usd")
    low_date = getattr(record, "historical_low_at", None) or (
        low_source.date if low_source is not None else record.sources.price_history
    )
    if low is not None and isinstance(low_date, dt.date):
        points.append(
            HistoryPoint(
                low_date,
                low,
                record.list_price_usd,
                _discount(low, record.list_price_usd),
                low_source.source if low_source is not None else "price_history",
                "historical_low_usd" in record.estimated,
            )
        )
    seen = price_date(record)
    if seen is not None:
        source = record.provenance.get("price_usd")
        points.append(
            HistoryPoint(
                seen,
                record.price_usd,
                record.list_price_usd,
                record.discount_percent,
                source.source if source is not None else "storefront",
            )
        )
    return sorted(points, key=lambda p: p.date)


def prices_as_of(games: Sequence[ScoredGame]) -> dt.date | None:
    """Given scored games, return the newest day a current price was observed (None if no
    price is dated)."""
    days = [d for d in (price_date(g.record) for g in games) if d is not None]
    return max(days) if days else None


@dataclass(frozen=True, slots=True)
class GenreTypical:
    """What is typical of a genre's established games, as the score judges a game against
    them: the list price per verified hour (USD) and the main-story length (hours) of its
    established, well-reviewed games (``make calibrate``: scoring/genre_norms.json)."""

    price_per_hour: float | None
    hours: float | None


def genre_typicals(games: Sequence[ScoredGame]) -> dict[str, GenreTypical]:
    """Given scored games, return each of their genres' :class:`GenreTypical`: the figures the
    score reads (:func:`scoring.value.usd_per_hour`, :data:`scoring.value.GENRE_NORM_HOURS`),
    so that a game page's words ("RPG games typically cost $1.17 an hour") say what its score
    was judged against, not the median of every small release."""
    return {
        genre: GenreTypical(
            value.usd_per_hour(genre),
            value.GENRE_NORM_HOURS.get(genre, value.GENRE_NORM_HOURS["other"]),
        )
        for genre in sorted({g.genre for g in games})
    }


def sightings(record: GameRecord) -> list[Sighting]:
    """Given a record, return its dated prices as the verdict reads them, oldest first."""
    return [
        Sighting(p.date, p.price_usd, p.discount_percent, p.estimated) for p in price_points(record)
    ]


def record_reviews(record: GameRecord) -> Reviews:
    """Given a record, return its review shares as sentences quote them
    (:class:`scoring.review_words.Reviews`): the lifetime share with its count ("1,000+" for a
    lower bound) and the day its source read it, and the recent sample with its size and day."""
    source = record.provenance.get("review_score")
    count = f"{record.review_count:,}" + ("+" if "review_count" in record.estimated else "")
    return Reviews(
        record.review_score,
        count,
        source.date if source is not None else record.sources.storefront,
        record.recent_review_score,
        record.recent_review_count,
        record.recent_reviews_at,
        reviews_read(record) != record.review_score,
    )


def _day(date: dt.date | None) -> str | None:
    return None if date is None else date.isoformat()


def forecast_facts(record: GameRecord) -> fc.GameFacts:
    """Given a record, return what the sale forecast reads of it (:mod:`scoring.forecast`):
    publisher, release date and dated prices with their list prices."""
    return fc.GameFacts(
        record.publisher,
        record.release_date,
        [
            fc.Observed(p.date, p.price_usd, p.list_price_usd, p.discount_percent, p.estimated)
            for p in price_points(record)
        ],
    )


def forecasts(
    games: Sequence[ScoredGame], as_of: dt.date, day: dt.date | None = None
) -> list[fc.Forecast | None]:
    """Given scored games, the catalogue's as-of day (``prices_as_of``'s) and the snapshot's
    day (None: the as-of day), return each game's forecast for the next seasonal sale that
    ends on or after the snapshot's day (None: a free game, or too little evidence), the rule
    learnt from these games' prices up to the as-of day (:func:`scoring.forecast.fit`)."""
    facts = [forecast_facts(g.record) for g in games]
    model = fc.fit(facts, as_of)
    sale = fc.next_sale(day or as_of)
    return [
        None if is_free(g.record) else fc.forecast(model, sale, f, day=day)
        for g, f in zip(games, facts, strict=True)
    ]


def buyer_fields(
    games: Sequence[ScoredGame], as_of: dt.date | None = None, day: dt.date | None = None
) -> list[dict[str, Any]]:
    """Given scored games in list order, the catalogue's as-of day (None: the newest day a
    price was observed) and the snapshot's day (None: the as-of day; the forecast's day),
    return for each its wire fields ``verdict``, ``verdict_price_usd``,
    ``verdict_price_seen_at``,
    ``verdict_text``, ``genre_percentile``, ``recent_low_usd``, ``recent_low_at``,
    ``ended_sale_usd``, ``ended_sale_at`` (docs/API.md#verdict) and ``next_sale``
    (docs/API.md#next-sale), in that order."""
    if as_of is None:
        as_of = prices_as_of(games)
    percentiles = genre_percentiles([(g.genre, g.bang_score) for g in games])
    coming = forecasts(games, as_of, day) if as_of is not None else [None] * len(games)
    out = []
    for game, percentile, ahead in zip(games, percentiles, coming, strict=True):
        rec = game.record
        seen = sightings(rec)
        free = is_free(rec)
        decided = verdict(
            game.tier,
            rec.price_usd,
            game.worth_it_at_usd,
            game.becomes_banger_at_usd,
            seen,
            as_of,
            free=free,
            review_score=rec.review_score,
        )
        ended = ended_sale(seen, rec.price_usd, rec.discount_percent)
        low = decided.recent_low
        out.append(
            {
                "verdict": decided.verdict,
                "verdict_price_usd": decided.price_usd,
                # The day that price was seen, so a list row can date it (issue 48).
                "verdict_price_seen_at": (
                    _day(decided.reached[0])
                    if decided.price_usd is not None and decided.reached is not None
                    else None
                ),
                "verdict_text": verdict_text(
                    rec.name,
                    game.tier,
                    rec.price_usd,
                    price_date(rec),
                    game.worth_it_at_usd,
                    game.becomes_banger_at_usd,
                    decided,
                    ended,
                    history=seen,
                    as_of=as_of,
                    free=free,
                    reviews=record_reviews(rec),
                    next_sale=(
                        (ahead.sale.name, ahead.sale.start, ahead.expected_price_usd)
                        if ahead is not None and ahead.discounted
                        else None
                    ),
                    lowers=game.drivers["lowers"],
                ),
                "genre_percentile": percentile,
                "recent_low_usd": round(low[1], 2) if low else None,
                "recent_low_at": _day(low[0]) if low else None,
                "ended_sale_usd": round(ended[1], 2) if ended else None,
                "ended_sale_at": _day(ended[0]) if ended else None,
                "next_sale": ahead.wire() if ahead is not None else None,
            }
        )
    return out
