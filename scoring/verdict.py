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
* :func:`verdict_text` says it in one sentence that quotes well: the seen price, its date and
  the seasonal sale it fell in (:mod:`scoring.sales`), what the window holds (how many prices
  were seen and from when), a stale price (seen more than 180 days before ``prices_as_of``)
  with its date, and never a lowest price over a period its observations do not cover;
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
from collections.abc import Callable, Sequence
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


def _cents(usd: float) -> int:
    return round(usd * 100)


def usd(value: float) -> str:
    """Given a price in USD, return it as a sentence shows it: ``$12.99``, ``free`` for 0."""
    return "free" if _cents(value) == 0 else f"${value:,.2f}"


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
        if best is None or (_cents(s.price_usd), s.date) < (_cents(best[1]), best[0]):
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
    if newest.discount_percent > 0 and _cents(newest.price_usd) < _cents(price_usd):
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
        ceiling = _cents(limit)
        fit = [
            s
            for s in window
            if _cents(s.price_usd) <= ceiling and saves_enough(price_cents, _cents(s.price_usd))
        ]
        if not fit:
            continue
        newest = max(fit, key=lambda s: (s.date, -_cents(s.price_usd)))
        in_sales = [s for s in fit if not s.estimated and sale_on(s.date) is not None]
        pick = max(in_sales, key=lambda s: (s.date, -_cents(s.price_usd)), default=newest)
        undercut = any(
            s.date > pick.date and _undercuts(_cents(s.price_usd), _cents(pick.price_usd))
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
    price_cents = _cents(price_usd)
    if tier in BUY_NOW_TIERS:
        # Waiting pays when the window's low saves at least 10% of today's price and $2:
        # nobody is told to wait for less than 10% (round 4), so "within 10% of the low" is
        # measured as the saving a buyer sees, against today's price.
        if low is not None and saves_enough(price_cents, _cents(low[1])):
            # The low itself saves enough and, cheaper than today's price, keeps the game at
            # least as good: there is always a price to wait for.
            good = _best_wait(window, price_cents, worth_it_at_usd, becomes_banger_at_usd) or low
            return BuyerVerdict("wait_for_sale", good[1], good, low)
        return BuyerVerdict("buy_now", None, None, low)
    wait = _best_wait(window, price_cents, worth_it_at_usd, becomes_banger_at_usd)
    if wait is not None:
        return BuyerVerdict("wait_for_sale", wait[1], wait, low)
    return BuyerVerdict("skip", None, None, low)


def _saving(price_usd: float, seen_usd: float) -> str:
    saved = _cents(price_usd) - _cents(seen_usd)
    share = math.floor(100 * saved / _cents(price_usd))  # floored: never claim more than saved
    return f"{usd(saved / 100)}, {share}% less"


def seen_at(date: dt.date, price_usd: float, *, estimated: bool = False) -> str:
    """Given a seen price's day and amount (USD) and whether it is an estimate, return how a
    sentence names it: "$8.99 in the Summer Sale (30 Jun 2026)" when a seasonal sale of
    :mod:`scoring.sales` ran that day, else "$8.99 on 3 Mar 2026"; an estimate, "an estimated
    $6.24 (the deepest discount a price tracker saw by 16 Oct 2025)"."""
    if estimated:
        return (
            f"an estimated {usd(price_usd)} (the deepest discount a price tracker saw "
            f"by {day(date)})"
        )
    sale = sale_on(date)
    if sale is not None:
        return f"{usd(price_usd)} in the {sale.name} ({day(date)})"
    return f"{usd(price_usd)} on {day(date)}"


def window_words(history: Sequence[Sighting], as_of: dt.date) -> str:
    """Given sightings and the as-of day, return what the evidence window holds, in words that
    claim nothing beyond the observations: "the 9 prices seen from 1 Jan 2025 to 24 Jul 2026",
    "the only price seen since 25 Jul 2024", or "no price seen since 25 Jul 2024" (estimates,
    which are no observation, left out)."""
    window = [s for s in evidence(history, as_of) if not s.estimated]
    if not window:
        start = as_of - dt.timedelta(days=EVIDENCE_DAYS - 1)
        return f"no price seen since {day(start)}"
    first = min(s.date for s in window)
    last = max(s.date for s in window)
    if len(window) == 1:
        start = as_of - dt.timedelta(days=EVIDENCE_DAYS - 1)
        return f"the only price seen since {day(start)}"
    return f"the {len(window)} prices seen from {day(first)} to {day(last)}"


def price_words(price_usd: float, price_date: dt.date | None, as_of: dt.date | None) -> str:
    """Given a price (USD), the day it was seen (or None) and the as-of day (or None), return
    how a sentence quotes it: "$14.99 on 24 Jul 2026", or for a stale price (seen more than 180
    days before the as-of day) "$24.99, last seen 1 Jan 2025"."""
    if price_date is None:
        return usd(price_usd)
    if as_of is not None and is_stale(price_date, as_of):
        return f"{usd(price_usd)}, last seen {day(price_date)}"
    return f"{usd(price_usd)} on {day(price_date)}"


def verdict_text(
    name: str,
    tier: str,
    price_usd: float,
    price_date: dt.date | None,
    worth_it_at_usd: float | None,
    becomes_banger_at_usd: float | None,
    decided: BuyerVerdict,
    ended: DatedPrice | None = None,
    *,
    history: Sequence[Sighting] = (),
    as_of: dt.date | None = None,
    free: bool = False,
    review_score: float | None = None,
    next_sale: tuple[str, dt.date, float] | None = None,
) -> str:
    """Given the game's name, its tier at the current price, that price (USD) and the date it
    was observed (or None), the two thresholds, its :class:`BuyerVerdict`, the sale that ended
    before today (:func:`ended_sale`, or None), its sightings and the as-of day (None: the
    price's date), whether it is free and its positive review share (0-1), return one sentence
    a buyer can quote, e.g. "Wait for a sale: Stardew Valley is a banger at $14.99 on 24 Jul
    2026; it sold at $8.99 in the Summer Sale (30 Jun 2026), a price that keeps it a banger:
    wait for $8.99 or less ($6.00, 40% less)."

    A stale price carries its date ("$24.99, last seen 1 Jan 2025"); a price quoted after an
    ended sale names it, and the seasonal sale it fell in ("list price $59.99; $23.99 in the
    Summer Sale seen 3 Jul 2026, since ended"); a wait names the seen price, its date, its sale
    and the saving; a buy says what the evidence window holds; a skip says why no sale helps.
    A free game: "Free: get it" or why to skip it, with no price threshold. A wait names the
    sale forecast when there is one (``next_sale``: the sale's name, first day and expected
    price, :mod:`scoring.forecast`): "...; likely $8.99 in the Autumn Sale from 1 Oct 2026."
    """
    as_of = as_of or price_date
    if free:
        key = "free_buy" if decided.verdict == "buy_now" else "free_skip"
        return SENTENCES[key].format(
            name=name,
            when=f" (as of {day(price_date)})" if price_date else "",
            rated=TIER_WORDS.get(tier, tier),
            share=f"{math.floor(100 * (review_score or 0))}% of its reviews are positive",
        )
    facts = _Facts(
        tier,
        price_usd,
        worth_it_at_usd,
        becomes_banger_at_usd,
        decided,
        ended,
        held=window_words(history, as_of) if as_of is not None else "the prices seen",
        estimated=frozenset((s.date, _cents(s.price_usd)) for s in history if s.estimated),
        next_sale=next_sale,
    )
    head = f"{name} is {TIER_WORDS.get(tier, tier)} at {_quoted(facts, price_date, as_of)}"
    key, words = _CASES[decided.verdict](facts)
    return SENTENCES[key].format(head=head, **words)


# The sentences, by case: verdict_text picks one (_CASES) and fills in its words.
SENTENCES: Final = {
    "free_buy": "Free: get it. {name} costs nothing{when} and is {rated}: {share}.",
    "free_skip": "Skip: {name} is free{when}, but only {rated}: {share}.",
    "buy": "{head}{up_to}: buy it now{why}.",
    "wait": "Wait for a sale: {head}; {where}: wait for {seen} or less ({saving}){coming}.",
    "skip_never": "Skip: {head}, and no price makes it worth it.",
    "skip_close": (
        "Skip: {head}; it becomes worth it at {worth} or less, "
        "too close to this price to wait for a sale."
    ),
    "skip_unreached": (
        "Skip: {head}; it becomes worth it only at {worth} or less, and {held} did not reach it."
    ),
}
# Why a buy need not wait, by what the evidence window's low is.
BUY_REASONS: Final = {
    "no_low": "; {held}",  # no price seen in the window
    "only_price": "; it is {held}",  # one price seen, not below today's
    "none_lower": "; no lower price is among {held}",
    "estimated_low": "; {lowest} is only {saving}",  # a price tracker's estimate, undated
    "seen_low": "; the lowest of {held}, {lowest}, is only {saving}",
}
# Where a wait's price was seen: in the sale that just ended, or in the window.
WAIT_SIGHTINGS: Final = {
    "ended_sale": "that sale {keeps} it {becomes}",
    "seen": "it sold at {sold}, a price that {keeps} it {becomes}",
}


@dataclass(frozen=True, slots=True)
class _Facts:
    """What a paid game's sentence reads: verdict_text's arguments and the words of its
    evidence window (``held``), with the estimated sightings as ``(date, cents)``."""

    tier: str
    price_usd: float
    worth_it_at_usd: float | None
    becomes_banger_at_usd: float | None
    decided: BuyerVerdict
    ended: DatedPrice | None
    held: str
    estimated: frozenset[tuple[dt.date, int]]
    next_sale: tuple[str, dt.date, float] | None


def _quoted(facts: _Facts, price_date: dt.date | None, as_of: dt.date | None) -> str:
    """Given a paid game's facts, the day its price was seen and the as-of day, return how the
    sentence quotes its price: with its date, or after the sale that ended before it."""
    ended = facts.ended
    if ended is None:
        return price_words(facts.price_usd, price_date, as_of)
    stale = as_of is not None and price_date is not None and is_stale(price_date, as_of)
    sale = sale_on(ended[0])
    which = f"the {sale.name}" if sale is not None else "the sale"
    at = (
        f"list price {usd(facts.price_usd)}; {usd(ended[1])} in {which} "
        f"{'last seen' if stale else 'seen'} {day(ended[0])}, since ended"
    )
    if stale and price_date is not None and price_date != ended[0]:
        return f"{at} (price last seen {day(price_date)})"
    return at


def _buy(facts: _Facts) -> tuple[str, dict[str, str]]:
    """Given a buy's facts, return its sentence's key and words: how long it stays a banger
    and why waiting would not pay."""
    banger_at = facts.becomes_banger_at_usd
    up_to = (
        f", and stays a banger up to {usd(banger_at)}"
        if facts.tier == "banger" and banger_at is not None and banger_at > facts.price_usd
        else ""
    )
    low = facts.decided.recent_low
    if low is None:
        reason = "no_low"
    elif _cents(low[1]) >= _cents(facts.price_usd):
        reason = "only_price" if facts.held.startswith("the only ") else "none_lower"
    else:
        estimated = (low[0], _cents(low[1])) in facts.estimated
        reason = "estimated_low" if estimated else "seen_low"
    words = {"held": facts.held}
    if reason in {"estimated_low", "seen_low"} and low is not None:
        words["lowest"] = seen_at(low[0], low[1], estimated=reason == "estimated_low")
        words["saving"] = _saving(facts.price_usd, low[1])
    return "buy", {"up_to": up_to, "why": BUY_REASONS[reason].format(**words)}


def _wait(facts: _Facts) -> tuple[str, dict[str, str]]:
    """Given a wait's facts, return its sentence's key and words: the seen price to wait for,
    where it was seen, the tier it reaches, the saving and the sale forecast."""
    assert facts.decided.price_usd is not None and facts.decided.reached is not None
    reached_at, seen = facts.decided.reached
    banger_at = facts.becomes_banger_at_usd
    becomes = (
        "a banger" if banger_at is not None and _cents(seen) <= _cents(banger_at) else "worth it"
    )
    same = TIER_WORDS.get(facts.tier) == becomes  # a banger waiting for a deep sale stays one
    ended = facts.ended
    in_ended = ended is not None and ended[0] == reached_at and _cents(ended[1]) == _cents(seen)
    sighting = "ended_sale" if in_ended else "seen"
    estimated = (reached_at, _cents(seen)) in facts.estimated
    where = WAIT_SIGHTINGS[sighting].format(
        keeps="keeps" if same else "makes",
        becomes=becomes,
        sold="" if in_ended else seen_at(reached_at, seen, estimated=estimated),
    )
    coming = facts.next_sale
    return "wait", {
        "where": where,
        "seen": usd(seen),
        "saving": _saving(facts.price_usd, seen),
        "coming": (
            f"; likely {usd(coming[2])} in the {coming[0]} from {day(coming[1])}" if coming else ""
        ),
    }


def _skip(facts: _Facts) -> tuple[str, dict[str, str]]:
    """Given a skip's facts, return its sentence's key and words: whether any price makes the
    game worth it, and whether a sale could reach that price."""
    worth = facts.worth_it_at_usd
    if worth is None or _cents(facts.price_usd) == 0:
        return "skip_never", {}
    key = "skip_unreached" if saves_enough(_cents(facts.price_usd), _cents(worth)) else "skip_close"
    return key, {"worth": usd(worth), "held": facts.held}


_CASES: Final[dict[Verdict, Callable[[_Facts], tuple[str, dict[str, str]]]]] = {
    "buy_now": _buy,
    "wait_for_sale": _wait,
    "skip": _skip,
}


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
