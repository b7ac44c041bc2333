"""A buyer's verdict on a scored game: buy now, wait for a price, or skip
(docs/API.md#verdict), and where the game stands in its genre.

Pure functions of plain values, so that they read any price history as a sequence of
``(date, price_usd)`` observations:

* :func:`verdict` gives ``buy_now`` (tier ``banger`` or ``worth_it`` at the current price),
  ``wait_for_sale`` (not buy_now, and the history shows the game has sold at or below
  ``worth_it_at_usd``) or ``skip``, with the price to wait for and the observation proving a
  sale reached it;
* :func:`verdict_text` says it in one sentence that quotes well (never a weight);
* :func:`genre_percentiles` gives each game the share of its genre's games with a lower score.

Prices are compared in whole cents, as :mod:`scoring.tiers` compares them.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

Verdict = Literal["buy_now", "wait_for_sale", "skip"]
BUY_NOW_TIERS: Final = frozenset({"banger", "worth_it"})
PricePoint = tuple[dt.date, float]


def _cents(usd: float) -> int:
    return round(usd * 100)


def usd(value: float) -> str:
    """Given a price in USD, return it as a sentence shows it: ``$12.99``, ``free`` for 0."""
    return "free" if _cents(value) == 0 else f"${value:,.2f}"


@functools.lru_cache(maxsize=8192)  # a catalogue holds a few thousand distinct days
def day(date: dt.date) -> str:
    """Given a date, return it as pages print it: ``24 Jul 2026`` (no leading zero)."""
    return f"{date.day} {date.strftime('%b %Y')}"


@dataclass(frozen=True, slots=True)
class BuyerVerdict:
    """A verdict: its name, the price to wait for (USD, or None) and the lowest dated
    observation at or below that price (or None), which shows such a sale happens."""

    verdict: Verdict
    price_usd: float | None
    reached: PricePoint | None


def lowest_at_or_below(history: Iterable[PricePoint], price_usd: float) -> PricePoint | None:
    """Given dated prices and a price in USD, return the lowest observation at or below that
    price (the most recent one among equals), or None when no observation reaches it."""
    limit = _cents(price_usd)
    best: PricePoint | None = None
    for date, price in history:
        cents = _cents(price)
        if cents > limit:
            continue
        if best is None or cents < _cents(best[1]) or (cents == _cents(best[1]) and date > best[0]):
            best = (date, price)
    return best


def _check_price(name: str, value: float | None) -> None:
    if value is not None and not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0 or None, got {value!r}")


def verdict(
    tier: str,
    price_usd: float,
    worth_it_at_usd: float | None,
    becomes_banger_at_usd: float | None,
    history: Sequence[PricePoint],
) -> BuyerVerdict:
    """Given a game's tier at its current price, the price (USD), the two thresholds (USD, or
    None when no price reaches them) and its dated price observations, return the verdict.

    * ``buy_now`` when the tier is ``banger`` or ``worth_it``: ``price_usd`` is None, and
      ``reached`` the lowest observation at or below ``becomes_banger_at_usd`` for a game
      worth it (None if none);
    * ``wait_for_sale`` when a dated observation is at or below ``worth_it_at_usd``: the price
      to wait for is ``becomes_banger_at_usd`` if the history also reached that, else
      ``worth_it_at_usd``; ``reached`` is the lowest observation at or below it;
    * ``skip`` otherwise (no threshold, a free game, or a price never seen).

    Raises ValueError for a negative or non-finite price or threshold.
    """
    for name, value in (
        ("price_usd", price_usd),
        ("worth_it_at_usd", worth_it_at_usd),
        ("becomes_banger_at_usd", becomes_banger_at_usd),
    ):
        _check_price(name, value)
    if tier in BUY_NOW_TIERS:
        # A game worth it now may also have sold at its banger price: worth saying when.
        banger_seen = (
            lowest_at_or_below(history, becomes_banger_at_usd)
            if tier == "worth_it" and becomes_banger_at_usd is not None
            else None
        )
        return BuyerVerdict("buy_now", None, banger_seen)
    if worth_it_at_usd is None or _cents(price_usd) == 0:
        return BuyerVerdict("skip", None, None)
    if becomes_banger_at_usd is not None:
        banger_seen = lowest_at_or_below(history, becomes_banger_at_usd)
        if banger_seen is not None:
            return BuyerVerdict("wait_for_sale", becomes_banger_at_usd, banger_seen)
    seen = lowest_at_or_below(history, worth_it_at_usd)
    if seen is not None:
        return BuyerVerdict("wait_for_sale", worth_it_at_usd, seen)
    return BuyerVerdict("skip", None, None)


def verdict_text(
    name: str,
    tier: str,
    price_usd: float,
    price_date: dt.date | None,
    worth_it_at_usd: float | None,
    becomes_banger_at_usd: float | None,
    decided: BuyerVerdict,
) -> str:
    """Given the game's name, its tier at the current price, that price (USD) and the date it
    was observed (or None), the two thresholds and its :class:`BuyerVerdict`, return one
    sentence a buyer can quote, e.g. "Baldur's Gate 3 is a banger at $59.99 on 24 Jul 2026,
    and stays a banger up to $72.10."

    A game already a banger "stays a banger up to" its threshold; a game worth it names the
    price at which it becomes a banger; a wait names the price and the dated sale that reached
    it; a skip says why no sale helps.
    """
    at = usd(price_usd) + (f" on {day(price_date)}" if price_date else "")
    if decided.verdict == "buy_now":
        if tier == "banger":
            up_to = (
                f", and stays a banger up to {usd(becomes_banger_at_usd)}"
                if becomes_banger_at_usd is not None and becomes_banger_at_usd > price_usd
                else ""
            )
            return f"{name} is a banger at {at}{up_to}: buy it now."
        banger = (
            f"; it becomes a banger at {usd(becomes_banger_at_usd)} or less"
            if becomes_banger_at_usd is not None
            else ""
        )
        if banger and decided.reached is not None:
            banger += f", a price it reached on {day(decided.reached[0])}"
        return f"{name} is worth it at {at}{banger}: buy it now."
    if decided.verdict == "wait_for_sale":
        assert decided.price_usd is not None and decided.reached is not None
        becomes = (
            "a banger"
            if becomes_banger_at_usd is not None and decided.price_usd == becomes_banger_at_usd
            else "worth it"
        )
        low_date, low_price = decided.reached
        return (
            f"Wait for a sale: {name} becomes {becomes} at {usd(decided.price_usd)} or less "
            f"(it is {at}), a price it reached on {day(low_date)} at {usd(low_price)}."
        )
    if worth_it_at_usd is None or _cents(price_usd) == 0:
        return f"Skip: no price makes {name} worth it (it is {at})."
    return (
        f"Skip: {name} becomes worth it only at {usd(worth_it_at_usd)} or less "
        f"(it is {at}), a price it has never been seen at."
    )


def genre_percentiles(games: Sequence[tuple[str, int]]) -> list[float]:
    """Given (genre, bang_score) of every rated game, return for each the share (0-1, 3
    decimals) of the rated games of its genre, itself included, that have a lower bang_score.

    The top score of a genre gets close to 1 and the lowest 0.0; a genre of one game, 0.0.
    """
    by_genre: dict[str, list[int]] = {}
    for genre, score in games:
        by_genre.setdefault(genre, []).append(score)
    # For each genre: the count of games below each score, by a running sum over 0..100.
    below: dict[str, list[int]] = {}
    for genre, scores in by_genre.items():
        counts = [0] * 102
        for s in scores:
            counts[s + 1] += 1
        for i in range(1, 102):
            counts[i] += counts[i - 1]
        below[genre] = counts
    return [round(below[genre][score] / len(by_genre[genre]), 3) for genre, score in games]
