"""Prices as a dated series: which observation is today's price, whether its sale still counts,
the price history a record carries and the historical low (docs/API.md#prices-and-dates).

Every source that prices an app in US dollars observes it at a time: the history layer of
2026 at each app's own ``scraped_at``, a dump with one date (SteamSpy, the 2024 catalogue) at
midnight UTC of that date. The catalog's ``prices_as_of`` is the newest such observation (a
live ingest: the ingest time). A discount counts only while it is current
(:func:`is_current`): observed within :data:`CURRENT_WITHIN` of ``prices_as_of``, or with a
known end after it. Otherwise the app is priced at its list price with no discount, and the
sale stays in its history, where it still counts toward the historical low.

Pure logic on plain values; :mod:`ingest.resolve.resolution` applies it to the resolved
observations.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import Final, NamedTuple

from bangscore.scoring.records import MAX_PRICE_HISTORY, PriceObservation

__all__ = [
    "CURRENT_WITHIN",
    "RUN_GAP",
    "Low",
    "Price",
    "Seen",
    "at_midnight",
    "current_price",
    "historical_low",
    "is_current",
    "price_history",
    "with_low",
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


# A run of observations ends at a gap longer than this without one: the first observation
# after the gap is a point of the history even when its price equals the last point's, so a
# sale seen again a year later at the same price as an older sale is not merged into it
# (docs/API.md#prices-and-dates).
RUN_GAP: Final = dt.timedelta(days=14)


def price_history(observations: Iterable[Seen]) -> tuple[PriceObservation, ...]:
    """Given every observation of one game (any order), return its price history, oldest first.

    Observations are read in time order and collapsed only inside one continuous run: an
    observation is a point when it is the first, when its price, list price or discount differs
    from the observation before it, or when more than :data:`RUN_GAP` (14 days) passed since
    the observation before it; the newest observation is always a point (the day the price was
    last seen). So every run of one price keeps its first day, each point with the layer that
    saw it (``source``). Two observations of one moment keep the later-read one, and of one
    day's points the lowest price (a point is dated by its day). At most
    :data:`MAX_PRICE_HISTORY` points: the newest, plus the lowest price's first point when it
    would fall off (so the historical low stays a point of the history)."""
    by_moment: dict[dt.datetime, Seen] = {}
    for seen in observations:
        by_moment[seen.at] = seen
    ordered = [by_moment[at] for at in sorted(by_moment)]
    kept: list[Seen] = []
    for i, seen in enumerate(ordered):
        before = ordered[i - 1] if i else None
        starts_run = before is None or before.price != seen.price or seen.at - before.at > RUN_GAP
        if starts_run or i == len(ordered) - 1:
            kept.append(seen)
    # One point a day (a point is dated by its day): of a day's points, the lowest price, the
    # first of equals, so a sale seen that day is never dropped for its day's other price.
    by_day: dict[dt.date, Seen] = {}
    for seen in kept:
        day = seen.at.date()
        if day not in by_day or seen.price.price_usd < by_day[day].price.price_usd:
            by_day[day] = seen
    kept = [by_day[day] for day in sorted(by_day)]
    if len(kept) > MAX_PRICE_HISTORY:
        lowest = min(kept, key=lambda s: (s.price.price_usd, s.at))
        newest = kept[-MAX_PRICE_HISTORY:]
        kept = newest if lowest in newest else [lowest, *newest[1:]]
    return tuple(_point(seen) for seen in kept)


def _point(seen: Seen, *, estimated: bool = False) -> PriceObservation:
    return PriceObservation.model_construct(
        date=seen.at.date(),
        price_usd=round(seen.price.price_usd, 2),
        list_price_usd=round(seen.price.list_price_usd, 2),
        discount_percent=int(seen.price.discount_percent),
        source=seen.source,
        discount_end=seen.discount_end,
        estimated=estimated,
    )


def with_low(
    history: tuple[PriceObservation, ...], low: Low | None, list_price: float
) -> tuple[PriceObservation, ...]:
    """Given a price history (:func:`price_history`), the historical low (:func:`historical_low`,
    or None) and the current list price (USD), return the history with the low as one of its
    points: unchanged when a point of that day and price exists, else with a point for it
    (list price ``list_price``, its discount from it; ``estimated`` when the low is an estimate
    from a non-USD source), in date order. A low dated only by its source (a price-history
    dump's window end) is a point on that date, so every page names one low, the history's."""
    if low is None:
        return history
    cents = round(low.price_usd * 100)
    if any(p.date == low.at and round(p.price_usd * 100) == cents for p in history):
        return history
    discount = (
        min(100, round((1 - low.price_usd / list_price) * 100))
        if list_price > 0 and low.price_usd < list_price
        else 0
    )
    paid = Price(low.price_usd, max(list_price, low.price_usd), discount)
    seen = Seen(at_midnight(low.at), paid, low.source)
    point = _point(seen, estimated=low.estimated)
    # Before the observations of its day: the newest observation stays the last point.
    merged = sorted((*history, point), key=lambda p: (p.date, p is not point))
    if len(merged) > MAX_PRICE_HISTORY:
        merged.remove(min((p for p in merged if p is not point), key=lambda p: p.date))
    return tuple(merged)


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
