"""The words and figures the website's pages print, as the templates' filters: prices,
percentages, hours, days, a row's verdict and its sale forecast, a tag's link query
(:class:`bangscore.site.render.SiteRenderer` registers each)."""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Mapping
from typing import Any

from jinja2.filters import do_urlencode

from bangscore.scoring.verdict import is_stale
from bangscore.site.chart import usd


def fmt_usd(value: float | None) -> str:
    """Given dollars (or None), return ``$8.99`` ("—" if none)."""
    return "—" if value is None else usd(value)


def fmt_pct(value: float | None) -> str:
    """Given a share from 0 to 1 (or None), return ``42%`` ("—" if none)."""
    return "—" if value is None else f"{value * 100:.0f}%"


def fmt_hours(value: float | None) -> str:
    """Given hours (or None), return ``12.5 h`` ("—" if none)."""
    return "—" if value is None else f"{value:.1f} h"


def format_day(value: str | None) -> str:
    """Given an ISO date (``2026-07-24``, or a date-time), return ``24 Jul 2026`` ("—" if
    none)."""
    if not value:
        return "—"
    return iso_day(str(value)[:10])


def price_seen(observed_at: str | None, prices_as_of: str | None, *, free: bool = False) -> str:
    """Given a list item's ``price_observed_at``, the catalogue's ``prices_as_of`` (ISO dates
    or date-times, either None) and whether the game is free, return the date a row gives its
    price: ``24 Jul 2026``, or ``last seen 1 Jan 2025`` for a stale paid price
    (:func:`bangscore.scoring.verdict.is_stale`, the rule the verdict and the flags use: a
    free game's $0 is never stale, as its free marker does not age) ("—" without a date)."""
    if not observed_at:
        return "—"
    shown = format_day(observed_at)
    if prices_as_of and not free:
        seen = dt.date.fromisoformat(str(observed_at)[:10])
        if is_stale(seen, dt.date.fromisoformat(str(prices_as_of)[:10])):
            return f"last seen {shown}"
    return shown


def verdict_words(item: Mapping[str, Any]) -> str:
    """Given a list item, return its verdict as a row says it: ``Buy at this price``, ``Wait for
    $23.99 (seen 30 Jun 2026)`` (the seen price to wait for and its day, when the item has it)
    or ``Skip``; "" for an item without a verdict."""
    verdict = item.get("verdict")
    if verdict == "buy_now":
        return "Buy at this price"
    if verdict == "wait_for_sale":
        price = item.get("verdict_price_usd")
        if price is None:
            return "Wait for a sale"
        seen = item.get("verdict_price_seen_at")
        dated = f" (seen {format_day(str(seen))})" if seen else ""
        return f"Wait for {fmt_usd(price)}{dated}"
    return "Skip" if verdict == "skip" else ""


def next_sale_line(detail: Mapping[str, Any]) -> str:
    """Given a detail record, return its sale forecast as the game page says it: "Expected in
    the Autumn Sale from 1 Oct 2026: about $8.99, sold at $8.99 in the last 2 of 2 seasonal
    sales seen (discounted: 90% likely)", or for a discount judged unlikely "In the Autumn Sale
    from 1 Oct 2026: likely its list price, $19.99 (...)"; "" without a forecast. The
    parentheses add the forecast's confidence ("discounted: 90% likely; high confidence"). Where
    the record's ``verdict_text`` names the forecast already, only why: "Why we expect $8.99:
    sold at $8.99 in the last 2 of 2 seasonal sales seen (...)"."""
    sale = detail.get("next_sale")
    if not sale:
        return ""
    when = f"the {sale['name']} from {iso_day(str(sale['starts']))}"
    if sale["expected"]:
        when = f"{when} (dates expected from past years)"
    likely = f"discounted: {round(100 * sale['discounted_likelihood'])}% likely"
    if sale.get("confidence"):
        likely = f"{likely}; {sale['confidence']} confidence"
    price = fmt_usd(sale["expected_price_usd"])
    # The verdict's sentence above it names the sale, its day and price already ("likely $8.99
    # in the Winter Sale from 17 Dec 2026"): the line gives only why (issue 56: said twice).
    if f"likely {price} in the {sale['name']} from " in str(detail.get("verdict_text") or ""):
        return f"Why we expect {price}: {sale['basis']} ({likely})."
    if sale["discounted_likelihood"] >= 0.5:
        return f"Expected in {when}: about {price}, {sale['basis']} ({likely})."
    return f"In {when}: likely its list price, {price}; {sale['basis']} ({likely})."


def next_sale_words(item: Mapping[str, Any]) -> str:
    """Given a list item, return its forecast as a row's verdict cell adds it: "likely $8.99
    from 1 Oct (high confidence)"; "" when there is none or it is no cheaper than today's
    price."""
    price = item.get("next_sale_price_usd")
    starts = item.get("next_sale_starts")
    if price is None or not starts or price >= item.get("price_usd", 0):
        return ""
    sure = item.get("next_sale_confidence")
    said = f" ({sure} confidence)" if sure else ""
    return f"likely {fmt_usd(price)} from {day_month(str(starts))}{said}"


def day_month(value: str | None) -> str:
    """Given an ISO date, return ``24 Jul`` ("—" if none): a date a heading gives in full."""
    if not value:
        return "—"
    day = dt.date.fromisoformat(str(value)[:10])
    return f"{day.day} {day.strftime('%b')}"


@functools.lru_cache(maxsize=8192)  # pages print a few thousand distinct days
def iso_day(iso: str) -> str:
    """Given an ISO date, return ``24 Jul 2026``."""
    day = dt.date.fromisoformat(iso)
    return f"{day.day} {day.strftime('%b %Y')}"


@functools.lru_cache(maxsize=4096)  # about 450 distinct tags, 16 links on each game page
def tag_query(tag: str) -> str:
    """Given a tag, return it quoted for a ``/games?tag=`` link: jinja2's ``urlencode``."""
    return do_urlencode(tag)
