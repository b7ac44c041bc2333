"""The sale forecast: the next seasonal sale that ends on or after the snapshot's day and the
price a game is expected to sell at in it (docs/API.md#next-sale, docs/FORECAST.md).

The rule is learnt from the prices the catalogue saw in the storefront's seasonal sales
(:mod:`scoring.sales`), and is small enough to say in a sentence:

* **Whether it is discounted**: a game's own record in the seasonal sales it was seen in (``m``
  discounted of ``n`` seen), with one more sale counted as its peers behave: its publisher's
  share of games discounted in the latest sale the catalogue saw (publishers with at least
  :data:`MIN_PUBLISHER_GAMES` games seen in it), else the share of games of its age. The raw
  ``(m + peers) / (n + 1)`` is calibrated (:func:`calibrated`, the backtest's reliability
  table :data:`CALIBRATION`) into ``discounted_likelihood``; "discounted" from 0.5. Steamworks
  allows no seasonal discount within 28 days after a release or a price rise
  (:func:`steamworks_block`): such a game is expected at its list price.
* **At what price**, one the storefront shows: the seen sale price when the list price and the
  depth are unchanged; else the depth of its newest discounted sale off its newest list price,
  cut to the cent (:func:`storefront_cents`); a game under a year old at that sale deepens as
  games of its age do. Never a depth on a list price lower than the one it was seen on, never
  under the lowest price seen unless its last two discounted sales deepened.
* **How sure**: ``confidence`` from the measured accuracy of the forecast's stratum
  (:data:`STRATUM_ACCURACY`: how its price was found, how deep the sale it reads).
* **Too thin** (no forecast, ``next_sale`` null): a free game, a game seen in no seasonal sale
  of the evidence window (the 730 days before ``prices_as_of``), a game with no list price.

Pure functions of plain values: :func:`fit` learns a :class:`ForecastModel` from every game's
sightings (the builder's catalogue, or the backtest's catalogue as of the held-out sale's eve);
:func:`forecast` applies it to one game. Depths are whole percents; prices US dollars.
"""

from __future__ import annotations

import datetime as dt
import itertools
import math
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal, NamedTuple

from bangscore.scoring.sales import SALES, Sale, next_sale, sale_on
from bangscore.scoring.verdict import cents as to_cents

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
# Steamworks' discount rules: no seasonal discount within 28 days after a release or a price rise.
STEAMWORKS_DAYS: Final = 28
# The basis says how old the prices are when the newest is older than this at the snapshot's day.
STALE_PRICES_DAYS: Final = 30
# A discounted forecast's stratum is "deep" when the sale it reads went this deep or deeper
# (repeats of 75%+ sales are within 10% about half the time, shallower ones about 40%).
DEEP_FROM: Final = 75
# Confidence from the stratum's measured share of prices within 10% of the sale's.
HIGH_FROM: Final = 0.70
MEDIUM_FROM: Final = 0.45
Confidence = Literal["high", "medium", "low"]
# The reliability table of the raw likelihood: (raw likelihood, share of games observed
# discounted), measured by `make forecast-backtest` on the fitting half of the games (appid's
# tens digit even) in the Summer Sale 2026, made non-decreasing (docs/FORECAST.md#calibration).
CALIBRATION: Final[tuple[tuple[float, float], ...]] = (
    (0.304, 0.313),
    (0.427, 0.367),
    (0.706, 0.812),
    (0.891, 0.828),
    (0.965, 0.934),
)
# Each stratum's share of prices within 10% of the observed sale price, measured by `make
# forecast-backtest` on the fitting half (docs/FORECAST.md#confidence). A stratum it never saw
# (``cut_list/...``, ``steamworks``) is ``low``.
STRATUM_ACCURACY: Final[dict[str, float]] = {
    "depth/shallow": 0.0,
    "floored": 0.153,
    "full": 0.636,
    "repeat/deep": 0.536,
    "repeat/shallow": 0.381,
}


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
    """A game's forecast for one sale: the sale, the price expected in it (USD), the calibrated
    likelihood (0-1) that it is discounted in it, the basis in words ("sold at $8.99 in the
    last 2 of 2 seasonal sales seen"), whether it calls the game discounted (a likelihood of
    at least 0.5 and a discounted price to expect: a game never seen discounted is not), the
    rule's raw likelihood before calibration and the forecast's stratum (how its price was
    found and, for a discounted one, whether the sale it reads was 75% off or deeper:
    ``repeat/deep``, ``depth/shallow``, ``cut_list/deep``, ``floored``, ``full``,
    ``steamworks``), which sets its confidence."""

    sale: Sale
    expected_price_usd: float
    discounted_likelihood: float
    basis: str
    discounted: bool
    raw_likelihood: float = 0.0
    stratum: str = "full"

    @property
    def confidence(self) -> Confidence:
        """Return the forecast's confidence (:func:`confidence_of` its stratum)."""
        return confidence_of(self.stratum)

    def wire(self) -> dict[str, object]:
        """Return the ``next_sale`` wire value (docs/API.md#next-sale)."""
        return {
            "name": self.sale.name,
            "starts": self.sale.start.isoformat(),
            "ends": self.sale.end.isoformat(),
            "expected": self.sale.expected,
            "expected_price_usd": round(self.expected_price_usd, 2),
            "discounted_likelihood": round(self.discounted_likelihood, 3),
            "confidence": self.confidence,
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


def calibrated(raw: float, table: Sequence[tuple[float, float]] | None = None) -> float:
    """Given the rule's raw likelihood (0-1) and a reliability table (None:
    :data:`CALIBRATION`: ``(raw, share observed discounted)`` points, ascending), return the
    calibrated likelihood: read off the table, linear between its points, its ends beyond."""
    points = CALIBRATION if table is None else table
    if not points:
        return raw
    if raw <= points[0][0]:
        return points[0][1]
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        if raw <= x1:
            return y0 + (y1 - y0) * (raw - x0) / (x1 - x0) if x1 > x0 else y1
    return points[-1][1]


def confidence_of(stratum: str) -> Confidence:
    """Given a forecast's stratum, return its confidence from the stratum's measured share of
    prices within 10% (:data:`STRATUM_ACCURACY`): ``high`` from 70%, ``medium`` from 45%."""
    share = STRATUM_ACCURACY.get(stratum)
    if share is None or share < MEDIUM_FROM:
        return "low"
    return "high" if share >= HIGH_FROM else "medium"


def storefront_cents(list_cents: int, depth: int) -> int:
    """Given a list price (whole cents) and a whole-percent depth, return the price the
    storefront shows: the list price times (100 - depth) / 100, cut to the cent (the rule 95%
    of the 2026 dumps' discounted rows follow: $19.99 at 75% off is $4.99, not $5.00)."""
    return list_cents * (100 - depth) // 100


def steamworks_block(game: GameFacts, priced: Sequence[Observed], target: Sale) -> str | None:
    """Given a game's facts, its dated observations (oldest first, up to the as-of day) and
    the sale forecast, return why Steamworks' rules forbid it a seasonal discount in that sale
    ("released 20 Jun 2026", "its list price rose by 3 Jun 2026"), or None: no seasonal
    discount within 28 days after a release or a price rise. A rise is known to fall in that
    span when the last observation at the lower list price is itself within it."""
    since = target.start - dt.timedelta(days=STEAMWORKS_DAYS)
    if game.release_date is not None and since < game.release_date <= target.start:
        return f"released {game.release_date.day} {game.release_date:%b %Y}"
    current = to_cents(priced[-1].list_price_usd) if priced else 0
    lower = [o for o in priced if 0 < to_cents(o.list_price_usd) < current]
    if lower and lower[-1].date > since:
        last = lower[-1].date
        return f"its list price rose to {_usd(current / 100)} after {last.day} {last:%b %Y}"
    return None


def forecast(
    model: ForecastModel,
    target: Sale,
    game: GameFacts,
    *,
    deepen_under: float | None = DEEPEN_UNDER_YEARS,
    deepen_share: float = 1.0,
    day: dt.date | None = None,
    table: Sequence[tuple[float, float]] | None = None,
) -> Forecast | None:
    """Given the learnt model, the sale to forecast, one game's facts and the snapshot's day
    (None: the model's as-of day), return its :class:`Forecast`, or None where the evidence is
    too thin: no seasonal sale seen in the evidence window, no list price, or a free game.

    The price is one the storefront shows (:func:`storefront_cents`): the seen sale price when
    the list price and depth are unchanged; a depth is never applied to a list price lower
    than the one it was seen on (the seen sale price, at most the list price, stands); never
    under the lowest price ever seen unless the game's last two discounted seasonal sales
    deepened; the list price where Steamworks forbids a discount (:func:`steamworks_block`).
    ``deepen_under`` (years; None: any age) and ``deepen_share`` (0-1) are the deepening's
    variants the backtest compares; ``table`` a reliability table (None: :data:`CALIBRATION`,
    ``()``: the raw likelihood)."""
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
    dated = _dated((day or model.as_of), priced[-1].date)
    discounted = [s for s in seen if s.discount_percent > 0]
    age_at_sale = _age(game.release_date, target.start)
    peers, who = model.peers_share(game.publisher, age_at_sale)
    raw = (len(discounted) + peers) / (len(seen) + 1)
    likelihood = calibrated(raw, table)
    blocked = steamworks_block(game, priced, target)
    if blocked is not None:
        basis = f"{blocked}: Steam allows no seasonal discount within 28 days{dated}"
        return Forecast(target, list_price, 0.0, basis, False, raw, "steamworks")
    if likelihood < DISCOUNTED_FROM or not discounted:
        basis = _basis_undiscounted(seen, discounted, peers, who) + dated
        return Forecast(target, list_price, likelihood, basis, False, raw, "full")
    newest = discounted[-1]
    cents, depth, kind = _expected_cents(
        model, target, game, newest, list_price, deepen_under, deepen_share
    )
    lowest = min(to_cents(o.price_usd) for o in priced)
    deepened = len(discounted) > 1 and newest.discount_percent > discounted[-2].discount_percent
    if cents < lowest and not deepened:
        cents, kind = lowest, "floored"
    list_cents = to_cents(list_price)
    if cents >= list_cents:
        basis = _basis_undiscounted(seen, discounted, peers, who) + dated
        return Forecast(target, list_price, likelihood, basis, False, raw, "full")
    basis = _basis_discounted(seen, newest, depth, list_price, cents / 100, kind) + dated
    deep = newest.discount_percent >= DEEP_FROM
    stratum = kind if kind == "floored" else f"{kind}/{'deep' if deep else 'shallow'}"
    return Forecast(target, cents / 100, likelihood, basis, True, raw, stratum)


def _expected_cents(
    model: ForecastModel,
    target: Sale,
    game: GameFacts,
    newest: SaleSeen,
    list_price: float,
    deepen_under: float | None,
    deepen_share: float,
) -> tuple[int, int, str]:
    """Return (the expected price in cents, its depth, how it was found: ``repeat`` the seen
    sale price, ``cut_list`` the seen sale price on a cut list price, ``depth`` a depth off
    a changed list price or deepened)."""
    list_cents, seen_list = to_cents(list_price), to_cents(newest.list_price_usd)
    if list_cents < seen_list:
        return min(list_cents, to_cents(newest.price_usd)), newest.discount_percent, "cut_list"
    age_then = _age(game.release_date, newest.sale.start)
    age_at_sale = _age(game.release_date, target.start)
    young = deepen_under is None or (age_then is not None and age_then < deepen_under)
    deeper = deepen_share * model.deepening(age_then, age_at_sale) if young else 0.0
    depth = min(MAX_DEPTH, round(newest.discount_percent + deeper))
    if list_cents == seen_list and depth == newest.discount_percent:
        return to_cents(newest.price_usd), depth, "repeat"
    return storefront_cents(list_cents, depth), depth, "depth"


def _dated(day: dt.date, newest: dt.date) -> str:
    """Return the basis's note on prices older than 30 days at the snapshot's day."""
    if (day - newest).days <= STALE_PRICES_DAYS:
        return ""
    return f"; prices last seen {newest.day} {newest:%b %Y}"


def _basis_discounted(
    seen: Sequence[SaleSeen],
    newest: SaleSeen,
    depth: int,
    list_price: float,
    price: float,
    kind: str = "depth",
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
    if kind == "floored":
        why.append(f"no lower than the lowest price seen, {_usd(price)}")
    elif kind == "cut_list":
        why.append(f"its list price is now {_usd(list_price)}")
    elif depth > newest.discount_percent:
        why.append(f"games of its age go {depth - newest.discount_percent} points deeper")
    if kind == "depth" and round(list_price * 100) != round(newest.list_price_usd * 100):
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
