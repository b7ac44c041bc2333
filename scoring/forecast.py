"""The sale forecast: the next seasonal sale after the catalogue's ``prices_as_of`` and the price a
game is expected to sell at in it (docs/API.md#next-sale, docs/FORECAST.md).

The rule is learnt from the prices the catalogue saw in the storefront's seasonal sales
(:mod:`scoring.sales`), and is small enough to say in a sentence:

* **Whether it is discounted**: a game's own record in the seasonal sales it was seen in (``m``
  discounted of ``n`` seen), with one more sale counted as its peers behave: its publisher's
  share of games discounted in the latest sale the catalogue saw (publishers with at least
  :data:`MIN_PUBLISHER_GAMES` games seen in it), else the share of games of its age.
  ``discounted_likelihood = (m + peers) / (n + 1)``; the forecast says "discounted" from 0.5.
  The one pseudo-sale is what the data give: of the games seen in both the Winter Sale 2024 and
  the Summer Sale 2026, 90% of those discounted in the first were discounted in the second and
  30% of those not discounted (peer shares run 0.6-0.9, so (1 + 0.8) / 2 and (0 + 0.6) / 2).
* **At what price**: the depth of its newest discounted sale off its newest list price; a game
  under a year old at that sale deepens as games of its age do (the latest sale's median depth
  by years since release, made non-decreasing, read at the game's age then and at the
  forecast sale's start: launch discounts deepen, older games' hold). Its list price when the
  forecast says it is not discounted.
* **Too thin** (no forecast, ``next_sale`` null): a free game, a game seen in no seasonal sale
  of the evidence window (the 730 days before ``prices_as_of``), a game with no list price.

Pure functions of plain values: :func:`fit` learns a :class:`ForecastModel` from every game's
sightings (the builder's catalogue, or the backtest's history cut before the held-out sale);
:func:`forecast` applies it to one game. Depths are whole percents; prices US dollars.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

from bangscore.scoring.sales import SALES, Sale, sale_on, upcoming

__all__ = [
    "EVIDENCE_DAYS",
    "MIN_PUBLISHER_GAMES",
    "Forecast",
    "ForecastModel",
    "GameFacts",
    "Observed",
    "SaleSeen",
    "fit",
    "forecast",
    "next_sale",
    "sales_seen",
]

# The forecast reads the seasonal sales of the 730 days before prices_as_of, as the verdict does.
EVIDENCE_DAYS: Final = 730
# A publisher's habit stands for a game's peers when it has at least this many games seen in
# the latest sale; below it, games of the same age do (a share of 5 is 20 points per game).
MIN_PUBLISHER_GAMES: Final = 5
# Ages are counted in whole years since release, the last bucket holding everything older.
MAX_AGE_YEARS: Final = 15
# The forecast says "discounted" from this likelihood on.
DISCOUNTED_FROM: Final = 0.5
# A sale is a whole number of percents off; no storefront sale goes past 95%.
MAX_DEPTH: Final = 95
# Only a game under this age (years) at its newest discounted sale deepens along the age curve:
# the curve's largest step is the first year's (the launch discount), and past it the depth of
# one game holds (the median change between the Winter Sale 2024 and the Summer Sale 2026 is 0
# for games released before 2022). Chosen on the backtest among 1 year, 2 years, always and
# half the curve (docs/FORECAST.md lists each variant's figures).
DEEPEN_UNDER_YEARS: Final = 1.0


class Observed(NamedTuple):
    """One dated US price observation: the day, the price paid (USD), the list price (USD),
    the discount (percent 0-100) and whether it is an estimate (never read as a sale seen)."""

    date: dt.date
    price_usd: float
    list_price_usd: float
    discount_percent: int
    estimated: bool = False


class SaleSeen(NamedTuple):
    """A game in one seasonal sale: the sale and the first observation inside it."""

    sale: Sale
    price_usd: float
    list_price_usd: float
    discount_percent: int


class GameFacts(NamedTuple):
    """What the model reads of one game: its publisher (or None), its release date (or None)
    and its dated observations (any order)."""

    publisher: str | None
    release_date: dt.date | None
    history: Sequence[Observed]


@dataclass(frozen=True, slots=True)
class ForecastModel:
    """What :func:`fit` learnt: the sale it learnt from (the seasonal sale the most games were
    seen in), the catalogue's as-of day, per whole year of age (0 .. 15+) the share of the
    games seen in that sale that were discounted and the median depth of those discounted
    (non-decreasing with age), and per publisher (lowercased) ``(games seen, share
    discounted)``."""

    sale: Sale | None
    as_of: dt.date
    age_share: tuple[float | None, ...]
    age_depth: tuple[float | None, ...]
    publishers: dict[str, tuple[int, float]]
    overall_share: float

    def peers_share(self, publisher: str | None, age_years: float | None) -> tuple[float, str]:
        """Given a publisher and an age (years at the forecast sale, or None), return the
        share of the game's peers discounted in the learnt sale and who the peers are
        ("its publisher's games", "games of its age", "games seen")."""
        habit = self.publishers.get((publisher or "").strip().lower())
        if habit is not None and habit[0] >= MIN_PUBLISHER_GAMES:
            return habit[1], "its publisher's games"
        if age_years is not None:
            share = self.age_share[_bucket(age_years)]
            if share is not None:
                return share, "games of its age"
        return self.overall_share, "games seen"

    def deepening(self, age_then: float | None, age_at_sale: float | None) -> float:
        """Given a game's age (years) at its newest discounted sale and at the forecast sale,
        return how many points deeper games of the second age are discounted than games of
        the first (>= 0; 0 when an age is unknown)."""
        if age_then is None or age_at_sale is None:
            return 0.0
        return max(
            0.0, _depth_at(self.age_depth, age_at_sale) - _depth_at(self.age_depth, age_then)
        )


@dataclass(frozen=True, slots=True)
class Forecast:
    """A game's forecast for one sale: the sale, the price expected in it (USD), the
    likelihood (0-1) that it is discounted in it, the basis in words ("sold at $8.99 in the
    last 2 of 2 seasonal sales seen") and whether it calls the game discounted (a likelihood
    of at least 0.5 and a discounted price to expect: a game never seen discounted is not)."""

    sale: Sale
    expected_price_usd: float
    discounted_likelihood: float
    basis: str
    discounted: bool

    def wire(self) -> dict[str, object]:
        """Return the ``next_sale`` wire value (docs/API.md#next-sale)."""
        return {
            "name": self.sale.name,
            "starts": self.sale.start.isoformat(),
            "ends": self.sale.end.isoformat(),
            "expected": self.sale.expected,
            "expected_price_usd": round(self.expected_price_usd, 2),
            "discounted_likelihood": round(self.discounted_likelihood, 3),
            "basis": self.basis,
        }


def _bucket(age_years: float) -> int:
    return min(MAX_AGE_YEARS, max(0, math.floor(age_years)))


def _depth_at(depths: Sequence[float | None], age_years: float) -> float:
    """Return the age curve's depth at an age: linear between the middles of whole years."""
    known = [(k + 0.5, d) for k, d in enumerate(depths) if d is not None]
    if not known:
        return 0.0
    if age_years <= known[0][0]:
        return known[0][1]
    for (x0, d0), (x1, d1) in itertools.pairwise(known):
        if age_years <= x1:
            return d0 + (d1 - d0) * (age_years - x0) / (x1 - x0)
    return known[-1][1]


def _age(release: dt.date | None, day: dt.date) -> float | None:
    if release is None or release > day:
        return None if release is None else 0.0
    return (day - release).days / 365.25


def sales_seen(
    history: Iterable[Observed], as_of: dt.date, table: Sequence[Sale] = SALES
) -> list[SaleSeen]:
    """Given observations and the as-of day, return the seasonal sales (of ``table``) the game
    was seen in during the 730 days up to the as-of day, oldest first, each with the first
    observation inside it (estimates left out: they are no observation of the storefront)."""
    start = as_of - dt.timedelta(days=EVIDENCE_DAYS)
    first: dict[Sale, Observed] = {}
    for obs in sorted(history):
        if obs.estimated or not (start < obs.date <= as_of) or obs.list_price_usd <= 0:
            continue
        sale = sale_on(obs.date) if table is SALES else _sale_in(table, obs.date)
        if sale is not None and sale not in first:
            first[sale] = obs
    return [
        SaleSeen(sale, obs.price_usd, obs.list_price_usd, obs.discount_percent)
        for sale, obs in sorted(first.items(), key=lambda item: item[0].start)
    ]


def _sale_in(table: Sequence[Sale], day: dt.date) -> Sale | None:
    return next((s for s in table if s.start <= day <= s.end), None)


def fit(games: Iterable[GameFacts], as_of: dt.date) -> ForecastModel:
    """Given every game's facts and the as-of day (only observations up to it are read),
    return the :class:`ForecastModel` learnt from the seasonal sale the most games were seen
    in (its cross-section: share discounted and median depth by age, publishers' shares)."""
    seen_by_sale: dict[Sale, list[tuple[GameFacts, SaleSeen]]] = {}
    for game in games:
        for seen in sales_seen(game.history, as_of):
            seen_by_sale.setdefault(seen.sale, []).append((game, seen))
    if not seen_by_sale:
        empty: tuple[float | None, ...] = (None,) * (MAX_AGE_YEARS + 1)
        return ForecastModel(None, as_of, empty, empty, {}, 0.0)
    sale = max(seen_by_sale, key=lambda s: (len(seen_by_sale[s]), s.start))
    rows = seen_by_sale[sale]
    by_age: list[list[int]] = [[] for _ in range(MAX_AGE_YEARS + 1)]
    by_publisher: dict[str, list[int]] = {}
    for game, seen in rows:
        age = _age(game.release_date, sale.start)
        if age is not None:
            by_age[_bucket(age)].append(seen.discount_percent)
        if game.publisher:
            by_publisher.setdefault(game.publisher.strip().lower(), []).append(
                seen.discount_percent
            )
    shares = tuple((sum(d > 0 for d in ds) / len(ds)) if ds else None for ds in by_age)
    depths: list[float | None] = []
    running = 0.0
    for ds in by_age:
        cut = [d for d in ds if d > 0]
        if not cut:
            depths.append(None)
            continue
        # Non-decreasing: a game's discount rarely gets shallower as it ages (between the two
        # sales the bundled prices saw, the median change of a discounted game's depth is 0,
        # the mean +5 points), so a dip of one year's median is noise, not a habit.
        running = max(running, float(statistics.median(cut)))
        depths.append(running)
    publishers = {
        name: (len(ds), sum(d > 0 for d in ds) / len(ds)) for name, ds in by_publisher.items()
    }
    overall = sum(seen.discount_percent > 0 for _, seen in rows) / len(rows)
    return ForecastModel(sale, as_of, shares, tuple(depths), publishers, overall)


def _percent(discount: int) -> str:
    return f"{discount}% off"


def _usd(value: float) -> str:
    return f"${value:,.2f}"


def forecast(
    model: ForecastModel,
    target: Sale,
    game: GameFacts,
    *,
    deepen_under: float | None = DEEPEN_UNDER_YEARS,
    deepen_share: float = 1.0,
) -> Forecast | None:
    """Given the learnt model, the sale to forecast and one game's facts, return its
    :class:`Forecast`, or None where the evidence is too thin: no seasonal sale seen in the
    evidence window, no list price, or a free game (list price 0).

    ``deepen_under`` (years; None: any age) and ``deepen_share`` (0-1) are the deepening's
    variants the backtest compares; the defaults are the published rule."""
    seen = sales_seen(game.history, model.as_of)
    if not seen:
        return None
    priced = sorted(
        (o for o in game.history if not o.estimated and o.date <= model.as_of),
        key=lambda o: o.date,
    )
    list_price = priced[-1].list_price_usd if priced else 0.0
    if list_price <= 0:
        return None
    discounted = [s for s in seen if s.discount_percent > 0]
    age_at_sale = _age(game.release_date, target.start)
    peers, who = model.peers_share(game.publisher, age_at_sale)
    likelihood = (len(discounted) + peers) / (len(seen) + 1)
    if likelihood < DISCOUNTED_FROM or not discounted:
        basis = _basis_undiscounted(seen, discounted, peers, who)
        return Forecast(target, list_price, likelihood, basis, discounted=False)
    newest = discounted[-1]
    age_then = _age(game.release_date, newest.sale.start)
    young = deepen_under is None or (age_then is not None and age_then < deepen_under)
    deeper = deepen_share * model.deepening(age_then, age_at_sale) if young else 0.0
    depth = min(MAX_DEPTH, round(newest.discount_percent + deeper))
    price = round(list_price * (100 - depth) / 100, 2)
    basis = _basis_discounted(seen, newest, depth, list_price, price)
    return Forecast(target, price, likelihood, basis, discounted=True)


def _basis_discounted(
    seen: Sequence[SaleSeen], newest: SaleSeen, depth: int, list_price: float, price: float
) -> str:
    """Say why a discounted price is expected: the sales it repeats, else what changed."""
    cents = round(price * 100)
    run = 0
    for s in reversed(seen):
        if s.discount_percent == 0 or round(s.price_usd * 100) != cents:
            break
        run += 1
    if run:
        return f"sold at {_usd(price)} in the last {run} of {len(seen)} seasonal sales seen"
    count = sum(s.discount_percent > 0 for s in seen)
    why = [
        f"{_usd(newest.price_usd)} ({_percent(newest.discount_percent)}) in the "
        f"{newest.sale.title}, discounted in {count} of {len(seen)} seasonal sales seen"
    ]
    if depth > newest.discount_percent:
        why.append(f"games of its age go {depth - newest.discount_percent} points deeper")
    if round(list_price * 100) != round(newest.list_price_usd * 100):
        why.append(f"{_percent(depth)} of its list price, now {_usd(list_price)}")
    return "; ".join(why)


def _basis_undiscounted(
    seen: Sequence[SaleSeen], discounted: Sequence[SaleSeen], peers: float, who: str
) -> str:
    """Say why no discount is expected: the sales it was seen at full price in."""
    head = (
        f"not discounted in the {len(seen)} seasonal sale{'s' if len(seen) > 1 else ''} seen"
        if not discounted
        else f"discounted in {len(discounted)} of {len(seen)} seasonal sales seen, "
        f"not in the {seen[-1].sale.title}"
    )
    return f"{head}; {round(100 * peers)}% of {who} were"


# No seasonal sale runs longer than this (the Winter and Summer Sales: 15 days).
LONGEST_SALE: Final = dt.timedelta(days=21)


def next_sale(day: dt.date) -> Sale:
    """Given the snapshot's day, return the next seasonal sale that ends on or after it: the
    sale running that day, else the next one to start."""
    running = [s for s in upcoming(day - LONGEST_SALE) if s.end >= day]
    return min(running, key=lambda s: s.start)
