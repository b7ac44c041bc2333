"""Prices as a dated series: which observation is today's price, whether its sale still counts,
the price history a record carries and the historical low (docs/API.md#prices-and-dates).

Every source that prices an app in US dollars observes it at a time: the history layer of
2026 at each app's own ``scraped_at``, a dump with one date (SteamSpy, the 2024 catalogue) at
midnight UTC of that date. The catalog's ``prices_as_of`` is the newest such observation (a
live ingest: the ingest time). A discount counts only while it is current
(:func:`is_current`): observed within :data:`CURRENT_WITHIN` of ``prices_as_of``, or with a
known end after it. Otherwise the app is priced at its list price with no discount, and the
sale stays in its history, where it still counts toward the historical low.

Pure logic on plain values; :mod:`ingest.resolution` applies it to the resolved observations.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Final, NamedTuple

from bangscore.scoring.records import MAX_PRICE_HISTORY, PricePoint

__all__ = [
    "CURRENT_WITHIN",
    "Low",
    "Price",
    "Seen",
    "at_midnight",
    "current_price",
    "historical_low",
    "is_current",
    "price_history",
]

CURRENT_WITHIN: Final = dt.timedelta(days=2)


class Price(NamedTuple):
    """One US storefront price: what a buyer pays, the list price, the discount in percent."""

    price_usd: float
    list_price_usd: float
    discount_percent: int


class Seen(NamedTuple):
    """A :class:`Price` observed at time ``at`` (UTC) by the layer named ``source``, with the
    discount's end when the storefront gave one."""

    at: dt.datetime
    price: Price
    source: str
    discount_end: dt.datetime | None = None


class Low(NamedTuple):
    """The lowest US price in a game's history: dollars, the day it was seen, the layer that
    saw it, and whether it is an estimate (a discount depth from a non-USD source applied to
    the US list price)."""

    price_usd: float
    at: dt.date
    source: str
    estimated: bool = False


def at_midnight(day: dt.date) -> dt.datetime:
    """Given a date, return midnight UTC of it: the observation time of a one-date source."""
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC)


def is_current(seen: Seen, as_of: dt.datetime) -> bool:
    """Given an observation and the catalog's ``prices_as_of``, return True when its discount
    still counts: it was observed within :data:`CURRENT_WITHIN` of ``as_of``, or its known end
    is later than ``as_of``. An undiscounted price is always current."""
    if not seen.price.discount_percent and seen.price.price_usd >= seen.price.list_price_usd:
        return True
    if as_of - seen.at <= CURRENT_WITHIN:
        return True
    return seen.discount_end is not None and seen.discount_end > as_of


def current_price(seen: Seen, as_of: dt.datetime) -> Price:
    """Given the observation a game is priced at and ``prices_as_of``, return the price to
    publish: the observation, or its list price with discount 0 when the sale is not current."""
    if is_current(seen, as_of):
        return seen.price
    list_price = seen.price.list_price_usd
    return Price(list_price, list_price, 0)


def price_history(observations: Iterable[Seen]) -> tuple[PricePoint, ...]:
    """Given every observation of one game (any order), return its price history, oldest first:
    one point per day (the day's last observation), a point only where the price, list price
    or discount changed from the previous point, plus the newest observation; at most
    :data:`MAX_PRICE_HISTORY` points (the newest kept)."""
    by_day: dict[dt.date, Seen] = {}
    for seen in sorted(observations, key=lambda s: s.at):
        by_day[seen.at.date()] = seen
    days = sorted(by_day)
    kept: list[Seen] = []
    for i, day in enumerate(days):
        seen = by_day[day]
        if kept and kept[-1].price == seen.price and i < len(days) - 1:
            continue
        kept.append(seen)
    return tuple(
        PricePoint.model_construct(
            date=seen.at.date(),
            price_usd=round(seen.price.price_usd, 2),
            list_price_usd=round(seen.price.list_price_usd, 2),
            discount_percent=int(seen.price.discount_percent),
            source=seen.source,
            discount_end=seen.discount_end,
        )
        for seen in kept[-MAX_PRICE_HISTORY:]
    )


def historical_low(
    observations: Iterable[Seen],
    other_lows: Iterable[tuple[float, dt.date, str]],
    list_price: float,
    deepest_discount: tuple[int, dt.date, str] | None,
) -> Low | None:
    """Given every dated observation of a game, lows seen without a full price
    ((dollars, date, layer), e.g. a live price-history adapter's), the current list price and
    the deepest discount a non-USD source saw ((percent, date, layer) or None), return the
    lowest price over the whole history (its first day on a tie), or None when nothing
    priced it.

    A $0 while today's list price is paid means "not sold then", not "free", and is skipped. The
    deepest discount gives ``list_price`` at that discount, rounded down to the cent as Steam's
    sale prices are (19.99 at -75% sells at 4.99), marked estimated."""
    low: Low | None = None
    for seen in observations:
        paid = seen.price.price_usd
        if paid > 0 or list_price == 0:
            day = seen.at.date()
            # On a tie the first day wins: the day the price first reached its low, which the
            # history keeps (it keeps the first point of every run of equal prices).
            if low is None or paid < low.price_usd or (paid == low.price_usd and day < low.at):
                low = Low(paid, day, seen.source)
    for paid, day, source in other_lows:
        if (paid > 0 or list_price == 0) and (low is None or paid < low.price_usd):
            low = Low(paid, day, source)
    if deepest_discount is not None and list_price > 0:
        percent, day, source = deepest_discount
        estimate = int(round(list_price * 100) * (100 - percent) // 100) / 100
        if low is None or estimate < low.price_usd:
            low = Low(estimate, day, source, estimated=True)
    return low
