"""A buyer's verdict in one sentence that quotes well (``verdict_text``, docs/API.md#verdict):
the seen price, its date and the seasonal sale it fell in (:mod:`scoring.sales`), what the
evidence window holds (how many prices were seen and from when), a stale price (seen more than
180 days before ``prices_as_of``) with its date, never a lowest price over a period its
observations do not cover, and, for a game no price makes worth it, what holds it down (its
``drivers`` that lower the score). The verdict itself is :func:`scoring.verdict.verdict`.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from bangscore.scoring.review_words import Reviews, share_words
from bangscore.scoring.sales import sale_on
from bangscore.scoring.verdict import (
    EVIDENCE_DAYS,
    MIN_SAVING_CENTS,
    TIER_WORDS,
    BuyerVerdict,
    DatedPrice,
    Sighting,
    Verdict,
    cents,
    day,
    evidence,
    is_stale,
    saves_enough,
    usd,
)


def _saving(price_usd: float, seen_usd: float) -> str:
    saved = cents(price_usd) - cents(seen_usd)
    share = math.floor(100 * saved / cents(price_usd))  # floored: never claim more than saved
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
    reviews: Reviews | None = None,
    next_sale: tuple[str, dt.date, float] | None = None,
    lowers: Sequence[str] = (),
) -> str:
    """Given the game's name, its tier at the current price, that price (USD) and the date it
    was observed (or None), the two thresholds, its :class:`BuyerVerdict`, the sale that ended
    before today (:func:`ended_sale`, or None), its sightings and the as-of day (None: the
    price's date), whether it is free and its review shares (:class:`Reviews`, or None), return
    one sentence a buyer can quote, e.g. "Stardew Valley is a banger at $14.99 on 24 Jul 2026;
    it sold at $8.99 in the Summer Sale (30 Jun 2026), a price that keeps it a banger: wait for
    $8.99 or less ($6.00, 40% less)." The sentence names the decision once, in its own words
    (:data:`SENTENCES`), never opening with the verdict's heading.

    A stale price carries its date ("$24.99, last seen 1 Jan 2025"); a price quoted after an
    ended sale names it, and the seasonal sale it fell in ("list price $59.99; $23.99 in the
    Summer Sale seen 3 Jul 2026, since ended"); a wait names the seen price, its date, its sale
    and the saving; a buy says what the evidence window holds; a skip says why no sale helps.
    A free game: "get it" or "skip it", with the review share its score read (dated), and no
    price threshold. A wait names the
    sale forecast when there is one (``next_sale``: the sale's name, first day and expected
    price, :mod:`scoring.forecast`): "...; likely $8.99 in the Autumn Sale from 1 Oct 2026."
    A skip no price helps says what holds the game down: ``lowers``, the names of its
    ``drivers`` that lower its score (:data:`HELD_DOWN`), "...: only 36% of its 77 reviews
    (lifetime, to 24 Jul 2026) are positive".
    """
    as_of = as_of or price_date
    if free:
        key = "free_buy" if decided.verdict == "buy_now" else "free_skip"
        return SENTENCES[key].format(
            name=name,
            when=f" (as of {day(price_date)})" if price_date else "",
            rated=TIER_WORDS.get(tier, tier),
            share=share_words(reviews) if reviews is not None else "no review share known",
        )
    facts = _Facts(
        tier,
        price_usd,
        worth_it_at_usd,
        becomes_banger_at_usd,
        decided,
        ended,
        held=window_words(history, as_of) if as_of is not None else "the prices seen",
        estimated=frozenset((s.date, cents(s.price_usd)) for s in history if s.estimated),
        next_sale=next_sale,
        held_down=held_down(lowers, reviews),
    )
    head = f"{name} is {TIER_WORDS.get(tier, tier)} at {_quoted(facts, price_date, as_of)}"
    key, words = _CASES[decided.verdict](facts)
    return SENTENCES[key].format(head=head, **words)


# The sentences, by case: verdict_text picks one (_CASES) and fills in its words.
SENTENCES: Final = {
    "free_buy": "{name} costs nothing{when} and is {rated}: get it; {share}.",
    "free_skip": "{name} is free{when}, but only {rated}: skip it; {share}.",
    "buy": "{head}{up_to}: buy it now{why}.",
    "wait": "{head}; {where}: wait for {seen} or less ({saving}){coming}.",
    "skip_never": "{head}: skip it; no price makes it worth it{why}.",
    "skip_close": (
        "{head}: skip it; it becomes worth it at {worth} or less, "
        "too close to this price to wait for a sale."
    ),
    # A price of $2 or less: no sale saves the $2 a wait must save, whatever sales it has seen
    # (a $1.99 game seen at $0.99 in a sale: "too close to wait" read backwards beside it).
    "skip_cheap": (
        "{head}: skip it; it becomes worth it at {worth} or less, but on a price of {price} no "
        "sale can save the $2 that makes a wait worth it."
    ),
    "skip_unreached": (
        "{head}: skip it; it becomes worth it only at {worth} or less, and {held} did not reach it."
    ),
}
# The verdict's heading, as a surface shows it above or before the sentence (the game page, the
# alert mail): the sentence never repeats it (issue 56).
HEADINGS: Final[dict[str, str]] = {
    "buy_now": "Buy at this price",
    "wait_for_sale": "Wait for a sale",
    "skip": "Skip",
}
FREE_BUY_HEADING: Final = "Free: get it"


def heading(verdict: str, *, free: bool = False) -> str:
    """Given a wire ``verdict`` and whether the game is free, return the heading a surface
    shows for it ("Wait for a sale"; a free game's buy: "Free: get it"); "" for no verdict."""
    if free and verdict == "buy_now":
        return FREE_BUY_HEADING
    return HEADINGS.get(verdict, "")


# The sentences name the decision once, in their own words ("buy it now", "wait for $8.99 or
# less", "skip it", "get it"), and never open with the verdict's heading: every surface that
# shows the sentence under a heading ("Wait for a sale" on the game page, "Verdict:" in a mail)
# would say it twice (issue 56).
# What holds a game down, by the driver that lowers its score (scoring/drivers.py), in the
# vocabulary's order; "price" is left out: a game no price helps is not held down by its price.
HELD_DOWN: Final = {
    "reviews": "only {share}",
    "length": "it is short for its genre",
    "estimated_length": (
        "its length is estimated from how long reviewers play, so it counts for less"
    ),
    "unattended_time": "its hours are idle or tool time, which does not count as play",
    "recent_reviews": "its recent reviews are worse than its lifetime ones: {share}",
}


def held_down(lowers: Sequence[str], reviews: Reviews | None) -> str:
    """Given the names of a game's drivers that lower its score and its review shares (or
    None), return what holds it down in words, quoting the share the score read with its period
    and date (:func:`scoring.review_words.share_words`): "only 36% of its 77 reviews (lifetime,
    to 24 Jul 2026) are positive, and it is short for its genre"; "" when none of
    :data:`HELD_DOWN` does. The shares are said once: where both ``reviews`` and
    ``recent_reviews`` lower it, the recent words (which quote both shares) go."""
    share = share_words(reviews) if reviews is not None else ""
    # Without the shares, neither review driver can be said with its figure.
    quotable = set(HELD_DOWN) if share else set(HELD_DOWN) - {"reviews", "recent_reviews"}
    names = [name for name in HELD_DOWN if name in lowers and name in quotable]
    if "reviews" in names and "recent_reviews" in names:
        names.remove("recent_reviews")
    return ", and ".join(HELD_DOWN[name].format(share=share) for name in names)


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
    # A price tracker's estimate is no sale: the sentence says whose figure it is.
    "estimated": "a price tracker's deepest discount puts it at {sold}, a price that {keeps} it "
    "{becomes}",
    "seen_dearer": (
        "it also sold at {sold}, a price that {keeps} it {becomes} and that seasonal sales "
        "return to"
    ),
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
    held_down: str


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
    elif cents(low[1]) >= cents(facts.price_usd):
        reason = "only_price" if facts.held.startswith("the only ") else "none_lower"
    else:
        estimated = (low[0], cents(low[1])) in facts.estimated
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
        "a banger" if banger_at is not None and cents(seen) <= cents(banger_at) else "worth it"
    )
    same = TIER_WORDS.get(facts.tier) == becomes  # a banger waiting for a deep sale stays one
    ended = facts.ended
    in_ended = ended is not None and ended[0] == reached_at and cents(ended[1]) == cents(seen)
    # A cheaper sale just ended, in no seasonal sale: the wait is for the seasonal sale's price
    # (the sale cycle returns to it), and the sentence says so rather than quote a dearer price
    # after a cheaper one as if it were the better deal.
    cheaper_ended = (
        not in_ended
        and ended is not None
        and cents(ended[1]) < cents(seen)
        and sale_on(reached_at) is not None
    )
    estimated = (reached_at, cents(seen)) in facts.estimated
    sighting = (
        "ended_sale"
        if in_ended
        else "seen_dearer"
        if cheaper_ended
        else "estimated"
        if estimated
        else "seen"
    )
    where = WAIT_SIGHTINGS[sighting].format(
        keeps="keeps" if same else "makes",
        becomes=becomes,
        sold=(
            ""
            if in_ended
            else f"an estimated {usd(seen)} (by {day(reached_at)})"
            if estimated
            else seen_at(reached_at, seen)
        ),
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
    if worth is None or cents(facts.price_usd) == 0:
        return "skip_never", {"why": f", as {facts.held_down}" if facts.held_down else ""}
    price = cents(facts.price_usd)
    if saves_enough(price, cents(worth)):
        key = "skip_unreached"
    else:
        key = "skip_cheap" if price <= MIN_SAVING_CENTS else "skip_close"
    return key, {"worth": usd(worth), "held": facts.held, "price": usd(facts.price_usd)}


_CASES: Final[dict[Verdict, Callable[[_Facts], tuple[str, dict[str, str]]]]] = {
    "buy_now": _buy,
    "wait_for_sale": _wait,
    "skip": _skip,
}
