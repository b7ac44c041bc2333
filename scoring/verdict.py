"""A buyer's verdict on a scored game: buy now, wait for a price seen in the past two years,
or skip (docs/API.md#verdict), and where the game stands in its genre.

Pure functions of plain values, so that they read any price history as a sequence of
:class:`Sighting` s (a day, the price paid that day, its discount, whether it is an estimate):

* :func:`evidence` gives the sightings of the evidence window, the 730 days before the
  catalogue's ``prices_as_of`` (one year of data is often one scrape; a buyer weighs the last
  two years' sales), and :func:`recent_low` the lowest price in it (``recent_low_usd`` /
  ``recent_low_at``; a dated low of the price-history source, an estimate included);
* :func:`ended_sale` names the sale a list price is quoted after (``ended_sale_usd`` /
  ``ended_sale_at``): the newest observation was a sale that is no longer current;
* :func:`verdict` follows the sale cycle: a free game is ``buy_now`` when its tier is ``fair``
  or better (a free game scores 79 at most), else ``skip`` (score version 6.0); a paid game
  ``buy_now`` when it is ``banger`` or ``worth_it`` at today's price and waiting would not pay
  (within 10% of the window's low, or under $2 to save), ``wait_for_sale`` naming a price
  actually seen in the window that makes it ``worth_it`` or better and saves at least 10% and
  $2, else ``skip``; a ``banger`` or ``worth_it`` game is never told to skip;
* :mod:`scoring.verdict_text` says it in one sentence that quotes well;
* :func:`genre_percentiles` gives each game the share of its genre's games with a lower score.

Prices are compared in whole cents, as :mod:`scoring.tiers` compares them. The rule is
docs/API.md#verdict's; the sale cycle it reads (most games return to their
deepest discounts in the seasonal sales) is the one price trackers such as IsThereAnyDeal and
SteamDB chart from the same storefront prices.
"""

from __future__ import annotations

import datetime as dt
import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal, NamedTuple, get_args

from bangscore.scoring.sales import sale_on

Verdict = Literal["buy_now", "wait_for_sale", "skip"]
VERDICTS: Final[tuple[Verdict, ...]] = get_args(Verdict)
BUY_NOW_TIERS: Final = frozenset({"banger", "worth_it"})
# A free game costs nothing to try: "Free: get it" from `fair` up (score version 6.0).
FREE_BUY_TIERS: Final = frozenset({"banger", "worth_it", "fair"})
# A dated price: (the day it was seen, the price paid that day in USD).
DatedPrice = tuple[dt.date, float]

# The evidence window a verdict reads: the 730 days up to and including prices_as_of's day.
EVIDENCE_DAYS: Final = 730
# A price seen more than this many days before prices_as_of is stale: named with its date.
STALE_DAYS: Final = 180
# Waiting pays only for a saving of at least 10% of today's price and at least $2.
MIN_SAVING_SHARE: Final = 0.10
MIN_SAVING_CENTS: Final = 200
# How the sentences name a tier.
TIER_WORDS: Final = {
    "banger": "a banger",
    "worth_it": "worth it",
    "fair": "fair value",
    "skip": "poor value",
}


class Sighting(NamedTuple):
    """One dated price observation: the day, the price paid that day (USD), its discount
    (percent 0-100 off the list price) and whether it is an estimate (a non-USD source's
    deepest discount applied to the US list price, dated by that source)."""

    date: dt.date
    price_usd: float
    discount_percent: int = 0
    estimated: bool = False


def cents(usd: float) -> int:
    """Given US dollars, return whole cents (rounded), as prices are compared."""
    return round(usd * 100)


def usd(value: float) -> str:
    """Given a price in USD, return it as a sentence shows it: ``$12.99``, ``free`` for 0."""
    return "free" if cents(value) == 0 else f"${value:,.2f}"


@functools.lru_cache(maxsize=8192)  # a catalogue holds a few thousand distinct days
def day(date: dt.date) -> str:
    """Given a date, return it as pages print it: ``24 Jul 2026`` (no leading zero)."""
    return f"{date.day} {date.strftime('%b %Y')}"


def evidence(history: Sequence[Sighting], as_of: dt.date) -> list[Sighting]:
    """Given sightings and the catalogue's as-of day, return those of the 730 days before it
    (as-of day included, later days left out), in the given order."""
    start = as_of - dt.timedelta(days=EVIDENCE_DAYS)
    return [s for s in history if start < s.date <= as_of]


# The round-4 name, still read by the ranking report and its tests.
past_year = evidence


def is_stale(seen: dt.date | None, as_of: dt.date) -> bool:
    """Given the day a price was seen (None: unknown) and the as-of day, return True when it
    was seen more than :data:`STALE_DAYS` (180) days before it."""
    return seen is not None and (as_of - seen).days > STALE_DAYS


def recent_low(history: Sequence[Sighting], as_of: dt.date) -> DatedPrice | None:
    """Given sightings and the as-of day, return ``(date, price_usd)`` of the lowest price seen
    in the evidence window (the first day among equal prices, as the historical low is dated),
    or None when no price was seen in it."""
    best: DatedPrice | None = None
    for s in evidence(history, as_of):
        if best is None or (cents(s.price_usd), s.date) < (cents(best[1]), best[0]):
            best = (s.date, s.price_usd)
    return best


def ended_sale(
    history: Sequence[Sighting], price_usd: float, discount_percent: int
) -> DatedPrice | None:
    """Given sightings oldest first and the price shown with its discount, return ``(date,
    price_usd)`` of the newest sighting when it was a sale that no longer counts (the price
    shown is undiscounted and dearer), else None: the list price quoted beside it must name
    it. Estimated sightings are no observation of the storefront and are passed over."""
    observed = [s for s in history if not s.estimated]
    if not observed or discount_percent > 0:
        return None
    newest = observed[-1]
    if newest.discount_percent > 0 and cents(newest.price_usd) < cents(price_usd):
        return (newest.date, newest.price_usd)
    return None


@dataclass(frozen=True, slots=True)
class BuyerVerdict:
    """A verdict: its name, the price to wait for (USD, or None) and the sighting of that
    price in the evidence window (``(date, price_usd)``, or None), and the window's low (or
    None), which the sentence quotes."""

    verdict: Verdict
    price_usd: float | None
    reached: DatedPrice | None
    recent_low: DatedPrice | None = None


def saves_enough(price_cents: int, seen_cents: int) -> bool:
    """Given today's price and a seen price (whole cents), return True when waiting for the
    seen price saves at least 10% of today's price and at least $2."""
    saved = price_cents - seen_cents
    return saved >= MIN_SAVING_CENTS and saved * 10 >= price_cents


def _check_price(name: str, value: float | None) -> None:
    if value is not None and not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0 or None, got {value!r}")


def _best_wait(
    window: Sequence[Sighting],
    price_cents: int,
    worth_it_at_usd: float | None,
    becomes_banger_at_usd: float | None,
) -> DatedPrice | None:
    """Return the sighting to wait for: among the window's prices that save enough, those
    reaching the best tier any of them reaches (banger, else worth it), the newest sale's: the
    most recent one seen in a seasonal sale (:mod:`scoring.sales`), unless a newer one is 25%
    and $2 cheaper, else the most recent one (the lowest of a day's); None when no seen price
    saves enough and makes the game worth it. Round 7: the newest sale is the one to wait for,
    not the dearest (round 4's rule named $34.99 from 2024 for a game sold at $14.99 in July
    2026), and a discount seen after the sale (Grim Dawn at $4.99 on 13 Jul 2026, $2.49 in the
    Summer Sale) is not the sale the forecast expects again."""
    for limit in (becomes_banger_at_usd, worth_it_at_usd):
        if limit is None:
            continue
        ceiling = cents(limit)
        fit = [
            s
            for s in window
            if cents(s.price_usd) <= ceiling and saves_enough(price_cents, cents(s.price_usd))
        ]
        if not fit:
            continue
        newest = max(fit, key=lambda s: (s.date, -cents(s.price_usd)))
        in_sales = [s for s in fit if not s.estimated and sale_on(s.date) is not None]
        pick = max(in_sales, key=lambda s: (s.date, -cents(s.price_usd)), default=newest)
        undercut = any(
            s.date > pick.date and _undercuts(cents(s.price_usd), cents(pick.price_usd))
            for s in fit
        )
        chosen = newest if undercut else pick
        return (chosen.date, chosen.price_usd)
    return None


def _undercuts(cents: int, than_cents: int) -> bool:
    """Whether a price is 25% and $2 under another (whole cents)."""
    return 4 * than_cents >= 5 * cents and than_cents - cents >= MIN_SAVING_CENTS


def verdict(
    tier: str,
    price_usd: float,
    worth_it_at_usd: float | None,
    becomes_banger_at_usd: float | None,
    history: Sequence[Sighting],
    as_of: dt.date | None = None,
    *,
    free: bool = False,
    review_score: float | None = None,
) -> BuyerVerdict:
    """Given a game's tier at its current price, the price (USD), the two thresholds (USD, or
    None when no price reaches them), its sightings, the catalogue's as-of day (None: the
    newest sighting's), whether the game is free (nothing to buy: price and list price $0) and
    its positive review share (0-1; unused since round 6, kept for callers), return the
    verdict:

    * a free game: ``buy_now`` when its tier is ``fair`` or better (score version 6.0), else
      ``skip``; no price to wait for;
    * ``buy_now`` when the tier is ``banger`` or ``worth_it`` and waiting would not pay: the
      evidence window's low saves less than 10% of the price, or less than $2 (or no price
      was seen in the window);
    * ``wait_for_sale`` when a price seen in the window makes the game ``worth_it`` or better
      and saves at least 10% and $2: ``price_usd`` is that seen price (the newest sale's
      reaching the best tier reachable, :func:`_best_wait`) and ``reached`` its sighting; a
      good game for which waiting pays waits at least for the window's low;
    * ``skip`` otherwise, never for a ``banger`` or ``worth_it`` game.

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
    window = evidence(history, as_of)
    low = recent_low(window, as_of)
    if free:
        return BuyerVerdict("buy_now" if tier in FREE_BUY_TIERS else "skip", None, None, low)
    price_cents = cents(price_usd)
    if tier in BUY_NOW_TIERS:
        # Waiting pays when the window's low saves at least 10% of today's price and $2:
        # nobody is told to wait for less than 10% (round 4), so "within 10% of the low" is
        # measured as the saving a buyer sees, against today's price.
        if low is not None and saves_enough(price_cents, cents(low[1])):
            # The low itself saves enough and, cheaper than today's price, keeps the game at
            # least as good: there is always a price to wait for.
            good = _best_wait(window, price_cents, worth_it_at_usd, becomes_banger_at_usd) or low
            return BuyerVerdict("wait_for_sale", good[1], good, low)
        return BuyerVerdict("buy_now", None, None, low)
    wait = _best_wait(window, price_cents, worth_it_at_usd, becomes_banger_at_usd)
    if wait is not None:
        return BuyerVerdict("wait_for_sale", wait[1], wait, low)
    return BuyerVerdict("skip", None, None, low)


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
