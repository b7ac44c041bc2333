"""A buyer's verdict on a scored game: buy now, wait for a price seen in the past year, or
skip (docs/API.md#verdict), and where the game stands in its genre.

Pure functions of plain values, so that they read any price history as a sequence of
:class:`Sighting` s (a day, the price paid that day, its discount):

* :func:`recent_low` gives the lowest price seen in the 365 days before the catalogue's
  ``prices_as_of`` (``recent_low_usd`` / ``recent_low_at``);
* :func:`ended_sale` names the sale a list price is quoted after (``ended_sale_usd`` /
  ``ended_sale_at``): the newest observation was a sale that is no longer current;
* :func:`verdict` follows the sale cycle: ``buy_now`` when the game is ``banger`` or
  ``worth_it`` at today's price and waiting would not pay, ``wait_for_sale`` naming a price
  actually seen in the past year that makes the game ``worth_it`` or better and saves at least
  10% and $2, else ``skip``; a ``banger`` or ``worth_it`` game is never told to skip;
* :func:`verdict_text` says it in one sentence that quotes well (never a weight);
* :func:`genre_percentiles` gives each game the share of its genre's games with a lower score.

Prices are compared in whole cents, as :mod:`scoring.tiers` compares them. The rule is
docs/API.md#verdict's; the sale cycle it reads (most games return to their deepest discounts
in the seasonal sales) is the one price trackers such as IsThereAnyDeal and SteamDB chart from
the same storefront prices.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal, NamedTuple, get_args

Verdict = Literal["buy_now", "wait_for_sale", "skip"]
VERDICTS: Final[tuple[Verdict, ...]] = get_args(Verdict)
BUY_NOW_TIERS: Final = frozenset({"banger", "worth_it"})
PricePoint = tuple[dt.date, float]

# The past year a verdict reads: the 365 days up to and including prices_as_of's day.
RECENT_DAYS: Final = 365
# Waiting pays only for a saving of at least 10% of today's price and at least $2 ...
MIN_SAVING_SHARE: Final = 0.10
MIN_SAVING_CENTS: Final = 200
# ... and only for a game whose sales reach deeper than 25% off within the past year.
DEEP_DISCOUNT_PERCENT: Final = 25
# How the sentences name a tier.
TIER_WORDS: Final = {
    "banger": "a banger",
    "worth_it": "worth it",
    "fair": "fair value",
    "skip": "poor value",
}


class Sighting(NamedTuple):
    """One dated price observation: the day, the price paid that day (USD) and its discount
    (percent 0-100 off the list price)."""

    date: dt.date
    price_usd: float
    discount_percent: int = 0


def _cents(usd: float) -> int:
    return round(usd * 100)


def usd(value: float) -> str:
    """Given a price in USD, return it as a sentence shows it: ``$12.99``, ``free`` for 0."""
    return "free" if _cents(value) == 0 else f"${value:,.2f}"


@functools.lru_cache(maxsize=8192)  # a catalogue holds a few thousand distinct days
def day(date: dt.date) -> str:
    """Given a date, return it as pages print it: ``24 Jul 2026`` (no leading zero)."""
    return f"{date.day} {date.strftime('%b %Y')}"


def past_year(history: Sequence[Sighting], as_of: dt.date) -> list[Sighting]:
    """Given sightings and the catalogue's as-of day, return those of the 365 days before it
    (as-of day included, later days left out), in the given order."""
    start = as_of - dt.timedelta(days=RECENT_DAYS)
    return [s for s in history if start < s.date <= as_of]


def recent_low(history: Sequence[Sighting], as_of: dt.date) -> PricePoint | None:
    """Given sightings and the as-of day, return ``(date, price_usd)`` of the lowest price seen
    in the 365 days before it (the most recent day among equal prices), or None when no
    price was seen in that year."""
    best: PricePoint | None = None
    for date, price, _ in past_year(history, as_of):
        if best is None or (_cents(price), -date.toordinal()) < (
            _cents(best[1]),
            -best[0].toordinal(),
        ):
            best = (date, price)
    return best


def ended_sale(
    history: Sequence[Sighting], price_usd: float, discount_percent: int
) -> PricePoint | None:
    """Given sightings oldest first and the price shown with its discount, return ``(date,
    price_usd)`` of the newest sighting when it was a sale that no longer counts (the price
    shown is undiscounted and dearer), else None: the list price quoted beside it must name
    it."""
    if not history or discount_percent > 0:
        return None
    newest = history[-1]
    if newest.discount_percent > 0 and _cents(newest.price_usd) < _cents(price_usd):
        return (newest.date, newest.price_usd)
    return None


@dataclass(frozen=True, slots=True)
class BuyerVerdict:
    """A verdict: its name, the price to wait for (USD, or None) and the sighting of that
    price in the past year (``(date, price_usd)``, or None), and the past year's low (or None),
    which the sentence quotes."""

    verdict: Verdict
    price_usd: float | None
    reached: PricePoint | None
    recent_low: PricePoint | None = None


def saves_enough(price_cents: int, seen_cents: int) -> bool:
    """Given today's price and a seen price (whole cents), return True when waiting for the
    seen price saves at least 10% of today's price and at least $2."""
    saved = price_cents - seen_cents
    return saved >= MIN_SAVING_CENTS and saved * 10 >= price_cents


def _check_price(name: str, value: float | None) -> None:
    if value is not None and not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0 or None, got {value!r}")


def _best_wait(
    year: Sequence[Sighting],
    price_cents: int,
    worth_it_at_usd: float | None,
    becomes_banger_at_usd: float | None,
) -> PricePoint | None:
    """Return the sighting to wait for: among the past year's prices that save enough, those
    reaching the best tier any of them reaches (banger, else worth it), the highest price
    (its most recent day); None when no seen price saves enough and makes the game worth it."""
    for limit in (becomes_banger_at_usd, worth_it_at_usd):
        if limit is None:
            continue
        ceiling = _cents(limit)
        best: PricePoint | None = None
        for date, price, _ in year:
            cents = _cents(price)
            if cents > ceiling or not saves_enough(price_cents, cents):
                continue
            if best is None or (cents, date) > (_cents(best[1]), best[0]):
                best = (date, price)
        if best is not None:
            return best
    return None


def verdict(
    tier: str,
    price_usd: float,
    worth_it_at_usd: float | None,
    becomes_banger_at_usd: float | None,
    history: Sequence[Sighting],
    as_of: dt.date | None = None,
) -> BuyerVerdict:
    """Given a game's tier at its current price, the price (USD), the two thresholds (USD, or
    None when no price reaches them), its sightings and the catalogue's as-of day (None: the
    newest sighting's), return the verdict:

    * ``buy_now`` when the tier is ``banger`` or ``worth_it`` and waiting would not pay: the
      price is within 10% of the past year's low, no sale in that year went deeper than 25%
      off, or the low would save less than $2 (or no price was seen in that year);
    * ``wait_for_sale`` when a price seen in that year makes the game ``worth_it`` or better
      and saves at least 10% and $2: ``price_usd`` is that seen price (the highest one reaching
      the best tier reachable) and ``reached`` its sighting;
    * ``skip`` otherwise, never for a ``banger`` or ``worth_it`` game (it is ``buy_now`` when
      no seen price qualifies).

    Raises ValueError for a negative or non-finite price or threshold.
    """
    for name, value in (
        ("price_usd", price_usd),
        ("worth_it_at_usd", worth_it_at_usd),
        ("becomes_banger_at_usd", becomes_banger_at_usd),
    ):
        _check_price(name, value)
    if as_of is None:
        as_of = max((s.date for s in history), default=dt.date.min)
    year = past_year(history, as_of)
    low = recent_low(year, as_of)
    price_cents = _cents(price_usd)
    if tier in BUY_NOW_TIERS:
        waiting_pays = (
            low is not None
            and 10 * price_cents > 11 * _cents(low[1])
            and price_cents - _cents(low[1]) >= MIN_SAVING_CENTS
            and any(s.discount_percent > DEEP_DISCOUNT_PERCENT for s in year)
        )
        if waiting_pays:
            wait = _best_wait(year, price_cents, worth_it_at_usd, becomes_banger_at_usd)
            if wait is not None:
                return BuyerVerdict("wait_for_sale", wait[1], wait, low)
        return BuyerVerdict("buy_now", None, None, low)
    wait = _best_wait(year, price_cents, worth_it_at_usd, becomes_banger_at_usd)
    if wait is not None:
        return BuyerVerdict("wait_for_sale", wait[1], wait, low)
    return BuyerVerdict("skip", None, None, low)


def _saving(price_usd: float, seen_usd: float) -> str:
    saved = _cents(price_usd) - _cents(seen_usd)
    share = math.floor(100 * saved / _cents(price_usd))  # floored: never claim more than saved
    return f"{usd(saved / 100)}, {share}% less"


def verdict_text(
    name: str,
    tier: str,
    price_usd: float,
    price_date: dt.date | None,
    worth_it_at_usd: float | None,
    becomes_banger_at_usd: float | None,
    decided: BuyerVerdict,
    ended: PricePoint | None = None,
) -> str:
    """Given the game's name, its tier at the current price, that price (USD) and the date it
    was observed (or None), the two thresholds, its :class:`BuyerVerdict` and the sale that
    ended before today (:func:`ended_sale`, or None), return one sentence a buyer can quote,
    e.g. "Hades is a banger at $24.99 on 20 Jul 2026, and stays a banger up to $40.10: buy it
    now; no sale in the past year cut it more than 25%."

    A price quoted after an ended sale names it ("list price $59.99; $23.99 in the sale seen
    3 Jul 2026, since ended"); a wait names the seen price, its date and the saving; a buy
    says why waiting would not pay; a skip says why no sale helps.
    """
    if ended is not None:
        at = (
            f"list price {usd(price_usd)}; {usd(ended[1])} in the sale seen {day(ended[0])}, "
            "since ended"
        )
    else:
        at = usd(price_usd) + (f" on {day(price_date)}" if price_date else "")
    words = TIER_WORDS.get(tier, tier)
    low = decided.recent_low
    if _cents(price_usd) == 0:
        # Nothing to buy, nothing to wait for: a free game is worth playing, or not.
        when = f" (as of {day(price_date)})" if price_date else ""
        if decided.verdict == "buy_now":
            return f"{name} is free and {words}{when}: get it now."
        return f"Skip: {name} is free{when}, but {words}."
    head = f"{name} is {words} at {at}"
    if decided.verdict == "buy_now":
        up_to = (
            f", and stays a banger up to {usd(becomes_banger_at_usd)}"
            if tier == "banger"
            and becomes_banger_at_usd is not None
            and becomes_banger_at_usd > price_usd
            else ""
        )
        if low is None or _cents(low[1]) >= _cents(price_usd):
            why = "" if low is None else f"; {usd(price_usd)} is its lowest price of the past year"
        elif 10 * _cents(price_usd) <= 11 * _cents(low[1]) or not saves_enough(
            _cents(price_usd), _cents(low[1])
        ):
            why = (
                f"; the past year's low, {usd(low[1])} on {day(low[0])}, "
                f"is only {_saving(price_usd, low[1])}"
            )
        else:
            why = f"; no sale in the past year cut it more than {DEEP_DISCOUNT_PERCENT}%"
        return f"{head}{up_to}: buy it now{why}."
    if decided.verdict == "wait_for_sale":
        assert decided.price_usd is not None and decided.reached is not None
        seen_at, seen = decided.reached
        becomes = (
            "a banger"
            if becomes_banger_at_usd is not None and _cents(seen) <= _cents(becomes_banger_at_usd)
            else "worth it"
        )
        same = TIER_WORDS.get(tier) == becomes  # a banger waiting for a deep sale stays one
        where = (
            f"that sale {'keeps' if same else 'makes'} it"
            if ended is not None and ended[0] == seen_at and _cents(ended[1]) == _cents(seen)
            else f"at {usd(seen)}, a price seen on {day(seen_at)}, it is{' still' if same else ''}"
        )
        return (
            f"Wait for a sale: {head}; {where} {becomes}: wait for {usd(seen)} or less "
            f"({_saving(price_usd, seen)})."
        )
    if worth_it_at_usd is None or _cents(price_usd) == 0:
        return f"Skip: {head}, and no price makes it worth it."
    if not saves_enough(_cents(price_usd), _cents(worth_it_at_usd)):
        return (
            f"Skip: {head}; it becomes worth it at {usd(worth_it_at_usd)} or less, "
            f"too close to today's price to wait for a sale."
        )
    return (
        f"Skip: {head}; it becomes worth it only at {usd(worth_it_at_usd)} or less, "
        "a price not seen in the past year."
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
