"""The price fields of a record, resolved from observations: every dated US price an app was
seen at, the price to rate it at (a $0 before release is no price; the storefront's free flag
and its "Free to Play" genre price an app no source prices), when it was seen, the catalogue's
``prices_as_of``, the history's points and the historical low. The pure rules on plain values
are :mod:`ingest.resolve.prices`; :mod:`ingest.resolve.resolution` calls these per app.
"""

from __future__ import annotations

import dataclasses
import datetime as dt

from bangscore.ingest.resolve.checks import zero_is_no_price
from bangscore.ingest.resolve.observations import Layer, Observations, Resolved
from bangscore.ingest.resolve.prices import Low, Price, Seen, at_midnight, historical_low

# Fields whose observation is a US price triple (a Price): today's (``price``) or one a dump
# saw then (``price_seen``), each observed at its layer's date.
PRICE_FIELDS = ("price", "price_seen")


def price_observations(known: Observations, appid: int) -> list[Seen]:
    """Return every dated US price observation of an appid: a layer's own dated points
    (``price_points``), else its price triple at midnight UTC of its date."""
    out: list[Seen] = []
    dated: set[str] = set()
    for found in known.candidates(appid, "price_points"):
        dated.add(found.layer.name)
        out.extend(found.value)
    for name in PRICE_FIELDS:
        for found in known.candidates(appid, name):
            if found.layer.name not in dated:
                dated.add(found.layer.name)
                out.append(
                    Seen(at_midnight(found.layer.date), Price(*found.value), found.layer.name)
                )
    return out


def layer_named(known: Observations, name: str, day: dt.date) -> Layer:
    """Return the layer called ``name`` dated ``day`` (the day of one of its observations): a
    price point names its source, which a record read back may hold under no layer of its
    own (then a storefront layer of that name)."""
    found = next((layer for layer in known.layers if layer.name == name), None)
    return dataclasses.replace(found or Layer(name, "storefront", day), date=day)


def zero_before_release(known: Observations, appid: int, price: Resolved) -> bool:
    """Return True when an appid's only price is a $0 seen before its release date: the app
    was not on sale yet (the 2024 catalogue lists unreleased apps at $0), so it is no price."""
    released = known.value(appid, "release_date")
    seen = Price(*price.value)
    return (
        seen.price_usd == 0
        and released is not None
        and priced_at(known, appid, price).at.date() < released
    )


def free_price(known: Observations, appid: int) -> Resolved | None:
    """Return $0 (list $0, no discount) as observed by the storefront record that says an app
    is free (Steam's own ``is_free`` flag: the 2024 catalogue's), for an app no source prices
    in US dollars; None when no record says free, the newest says not free, or the flag was
    seen before the release date (an unreleased app's flag, like its $0, is no price).

    Free is $0 in every currency, so this converts nothing. The SteamSpy and US price dumps
    leave out most free apps released after 2020 (SteamSpy's pages list older ones at $0,
    which already price them), so without the flag every one of those would answer
    ``no_usd_price``. Any source that prices the app wins over this: it is only a fallback."""
    free = known.get(appid, "free")
    if free is None or free.value is not True:
        return None
    released = known.value(appid, "release_date")
    if released is not None and free.layer.date < released:
        return None
    return Resolved(Price(0.0, 0.0, 0), free.layer)


FREE_TO_PLAY_GENRE = "Free to Play"


def free_to_play_price(known: Observations, appid: int) -> Resolved | None:
    """Return $0 (list $0, no discount) as observed by the newest storefront record of an app's
    genres when that record files it under "Free to Play" (docs/API.md#prices-and-dates), for
    an app no source prices in US dollars and the 2024 catalogue's ``is_free`` flag does not
    price; None when the genre is absent, the app was not released by that record's date, or an
    ``is_free`` flag seen after its release says it is not free (Marvel Rivals' 2024 flag,
    seen before its December 2024 release, says nothing).

    The 2025-26 free-to-play releases (Marvel Rivals, Wuthering Waves, Delta Force, Where Winds
    Meet, FragPunk) are in no US price dump: the 2026 dumps' scraper walked priced apps and
    skipped them although it priced their neighbours' appids, and they came after the 2024
    catalogue and SteamSpy's 2025 pages. Their storefront record of 2026-07-24 says Free to
    Play, so they are free at its date (source ``steam_pics_2026``). A paid game that also
    carries the genre is priced by the dumps, which win: this is only a fallback."""
    genres = known.get(appid, "storefront_genres")
    if genres is None or FREE_TO_PLAY_GENRE not in genres.value:
        return None
    released = known.value(appid, "release_date")
    if released is None or released > genres.layer.date:
        return None
    free = known.get(appid, "free")
    if free is not None and free.value is False and free.layer.date >= released:
        return None  # sold for money once it was out (a flag seen before release says nothing)
    return Resolved(Price(0.0, 0.0, 0), genres.layer)


def priced_at(known: Observations, appid: int, price: Resolved) -> Seen:
    """Given an appid's winning price, return it as observed: the newest dated point of its
    layer, or the triple at midnight UTC of the layer's date."""
    for found in known.candidates(appid, "price_points"):
        if found.layer == price.layer and found.value:
            newest: Seen = found.value[-1]
            return newest
    return Seen(at_midnight(price.layer.date), Price(*price.value), price.layer.name)


def prices_as_of(known: Observations) -> dt.datetime | None:
    """Given every observation, return the newest US price observation's time (UTC): the
    catalog's ``prices_as_of``, or None when nothing is priced."""
    newest: dt.datetime | None = None
    for layer, table in known.tables("price_points"):
        del layer
        for points in table.values():
            if points and (newest is None or points[-1].at > newest):
                newest = points[-1].at
    for name in PRICE_FIELDS:
        for layer, table in known.tables(name):
            if table and (newest is None or at_midnight(layer.date) > newest):
                newest = at_midnight(layer.date)
    return newest


def historical_low_of(
    known: Observations, appid: int, seen: list[Seen], list_price: float
) -> Low | None:
    """Return the lowest price of an appid's whole history
    (:func:`ingest.resolve.prices.historical_low`)."""
    others = [
        (float(found.value), found.layer.date, found.layer.name)
        for found in known.candidates(appid, "usd_price_seen")
    ]
    deepest = known.get(appid, "deepest_discount_percent")
    depth = (int(deepest.value), deepest.layer.date, deepest.layer.name) if deepest else None
    return historical_low(seen, others, list_price, depth)


def usable_price(
    known: Observations, appid: int, price: Resolved | None, regional_copy: bool
) -> tuple[Resolved | None, bool, bool]:
    """Given an app's resolved price (or None), return (the price to rate it at or None,
    whether a $0 was refused as no price, whether only the free flag priced it)."""
    if regional_copy:
        return None, False, False  # a regional copy's only price repeats its twin's
    if price and (
        zero_is_no_price(
            Price(*price.value).price_usd,
            Price(*price.value).list_price_usd,
            known.value(appid, "free"),
        )
        or zero_before_release(known, appid, price)
    ):
        return None, True, False
    if price is None:
        price = free_price(known, appid) or free_to_play_price(known, appid)
        return price, False, price is not None
    return price, False, False


def history_points(known: Observations, appid: int, seen: Seen, list_price: float) -> list[Seen]:
    """Given an app, the observation it is priced at and its list price, return its price
    history's points. A $0 next to a paid list price today was "not sold then" (unreleased, or
    no US price found), not "free": no point of the history."""
    observed = [
        point
        for point in price_observations(known, appid)
        if point.price.price_usd > 0 or list_price == 0
    ]
    if not any(point.source == seen.source for point in observed):
        observed.append(seen)  # a price from the free flag alone (free_price) is its only point
    return observed
