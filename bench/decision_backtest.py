"""The decision backtest: the verdicts of a build as of 24 Jun 2026, the eve of the Summer Sale
2026, followed by a buyer and scored against the raw prices of 25 Jun-24 Jul 2026, in dollars
(docs/FORECAST.md#the-decision-backtest).

A buyer on 24 Jun pays the list price the raw dumps give the game (no sale ran that day; the
dumps' ``price_initial``). Within the 30 days after it, the raw dumps are read, never the
catalogue:

* ``buy_now`` **regret**: a price 25% and $2 under what the buyer paid was seen in those days;
* ``wait_for_sale`` **hits**: the price to wait for (``verdict_price_usd``) was reached; the
  buyer then pays the first price seen at or under it, else the last price seen in the window
  (a wait that missed bought late and saved only what the storefront then gave);
* beside them the naive policies "always buy now" (everyone pays the list price on 24 Jun) and
  "always wait for the next sale" (everyone pays the first price seen inside the sale).

Only the rated paid games the dumps saw inside the sale count (17:00 UTC of 25 Jun to 17:00 UTC
of 9 Jul), so the sale price is known: the dumps reach appids above ~745,000 during it.
"""

from __future__ import annotations

import datetime as dt
import gzip
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

from bangscore.build.buyer import buyer_fields
from bangscore.scoring.pipeline import ScoredGame, is_free, score_catalog
from bangscore.scoring.records import Catalog

WINDOW_DAYS = 30
REGRET_SHARE = 0.25
REGRET_CENTS = 200
SALE_HOUR_UTC = 17

# (unix seconds, price cents, list price cents), oldest first
Seen = list[tuple[float, int, int]]


def raw_window(dump_dir: Path, start: dt.date, days: int, appids: set[int]) -> dict[int, Seen]:
    """Given the raw 2026 price dumps, the window's first day and length and the appids wanted,
    return each appid's observations scraped in the window (whole UTC days), oldest first."""
    low = dt.datetime.combine(start, dt.time(), tzinfo=dt.UTC).timestamp()
    high = low + days * 86_400
    out: dict[int, dict[float, tuple[int, int]]] = {}
    for path in sorted(dump_dir.glob("prices.json@*.json.gz")):
        for key, row in orjson.loads(gzip.decompress(path.read_bytes()))["prices"].items():
            appid = int(key)
            at, final, initial = (
                row.get("scraped_at"),
                row.get("price_final"),
                row.get("price_initial"),
            )
            if appid not in appids or at is None or final is None or not initial:
                continue
            if low <= at < high and 0 <= final <= initial:
                out.setdefault(appid, {})[float(at)] = (round(final * 100), round(initial * 100))
    return {a: [(t, *seen[t]) for t in sorted(seen)] for a, seen in out.items()}


@dataclass(frozen=True, slots=True)
class Outcome:
    """One game followed: its verdict, the price to wait for (cents or None), what a buyer on
    24 Jun pays (cents), the lowest price of the window, the first price inside the sale, and
    what following the verdict paid (cents; None for a skip: nothing bought)."""

    appid: int
    verdict: str
    target: int | None
    paid_eve: int
    low: int
    in_sale: int
    followed: int | None

    @property
    def hit(self) -> bool:
        """Whether a wait's target was reached in the window."""
        return self.target is not None and self.low <= self.target


@dataclass(frozen=True, slots=True)
class Decision:
    """The decision backtest's outcomes, the as-of day, how many paid games the build rated and
    the day of the newest price it held (None: unknown)."""

    outcomes: tuple[Outcome, ...]
    as_of: dt.date
    paid_rated: int
    prices_as_of: dt.date | None = None


def decide(
    catalog: Catalog,
    dump_dir: Path,
    as_of: dt.date,
    scored: Sequence[ScoredGame] | None = None,
) -> Decision:
    """Given the catalogue as of a day, the raw dumps, the day and the catalogue's games
    scored (``score_catalog``; scored here when not given), take the verdicts as the snapshot
    of that day publishes them, and follow them."""
    every = score_catalog(catalog.games) if scored is None else scored
    games = [g for g in every if not is_free(g.record)]
    assert catalog.prices_as_of is not None
    fields = buyer_fields(games, catalog.prices_as_of.date(), as_of)
    start = as_of + dt.timedelta(days=1)
    seen = raw_window(dump_dir, start, WINDOW_DAYS, {g.record.appid for g in games})
    sale_start = dt.datetime.combine(start, dt.time(SALE_HOUR_UTC), tzinfo=dt.UTC).timestamp()
    sale_end = sale_start + 14 * 86_400
    outcomes = []
    for game, field in zip(games, fields, strict=True):
        points = seen.get(game.record.appid)
        inside = [p for p in points or () if sale_start <= p[0] < sale_end]
        if not points or not inside:
            continue
        paid_eve = points[0][2]
        target = field["verdict_price_usd"]
        target_cents = round(target * 100) if target is not None else None
        followed: int | None = None
        if field["verdict"] == "buy_now":
            followed = paid_eve
        elif field["verdict"] == "wait_for_sale" and target_cents is not None:
            reached = [p[1] for p in points if p[1] <= target_cents]
            followed = reached[0] if reached else points[-1][1]
        outcomes.append(
            Outcome(
                game.record.appid,
                field["verdict"],
                target_cents,
                paid_eve,
                min(p[1] for p in points),
                inside[0][1],
                followed,
            )
        )
    return Decision(tuple(outcomes), as_of, len(games), catalog.prices_as_of.date())


@dataclass(frozen=True, slots=True)
class Policy:
    """A policy's figures: games it bought, share undercut within the window, median saving
    (share of the 24 Jun price, and USD) and total USD paid and saved against buying on 24 Jun."""

    games: int
    undercut: float | None
    median_saving: float | None
    median_saving_usd: float | None
    paid_usd: float
    saved_usd: float


def undercut_after(outcome: Outcome, paid: int) -> bool:
    """Whether a price 25% and $2 under what was paid (cents) was seen in the window."""
    saved = paid - outcome.low
    return saved >= REGRET_CENTS and saved >= REGRET_SHARE * paid


def policy(pairs: Sequence[tuple[Outcome, int]]) -> Policy:
    """Given (outcome, cents the policy paid) pairs, return the policy's figures."""
    if not pairs:
        return Policy(0, None, None, None, 0.0, 0.0)
    savings = [(o.paid_eve - paid) / o.paid_eve for o, paid in pairs]
    dollars = [(o.paid_eve - paid) / 100 for o, paid in pairs]
    undercut = sum(undercut_after(o, paid) for o, paid in pairs)
    return Policy(
        len(pairs),
        undercut / len(pairs),
        statistics.median(savings),
        statistics.median(dollars),
        sum(paid for _, paid in pairs) / 100,
        sum(dollars),
    )


def policies(decision: Decision) -> dict[str, Policy]:
    """Given the outcomes, return the figures of our buys, our waits (as followed), our waits
    that hit, both together, and the two naive policies over every game followed."""
    out = decision.outcomes
    buys = [(o, o.paid_eve) for o in out if o.verdict == "buy_now"]
    waits = [
        (o, o.followed) for o in out if o.verdict == "wait_for_sale" and o.followed is not None
    ]
    hits = [(o, p) for o, p in waits if o.hit]
    return {
        "our buy_now": policy(buys),
        "our wait_for_sale, as followed": policy(waits),
        "our wait_for_sale that hit": policy(hits),
        "our verdicts (buys and waits; skips buy nothing)": policy([*buys, *waits]),
        "always buy now": policy([(o, o.paid_eve) for o in out]),
        "always wait for the next sale": policy([(o, o.in_sale) for o in out]),
    }


def hit_rate(decision: Decision) -> float | None:
    """The share of waits whose target was reached in the window."""
    waits = [o for o in decision.outcomes if o.verdict == "wait_for_sale"]
    return sum(o.hit for o in waits) / len(waits) if waits else None


def headline(decision: Decision) -> str:
    """The sentence /about/score quotes."""
    figures = policies(decision)
    waits = figures["our wait_for_sale, as followed"].median_saving
    buys = figures["our buy_now"].undercut
    return (
        f"Followed in the 2026 Summer Sale, our waits saved a median "
        f"{100 * (waits or 0):.0f}%; {100 * (buys or 0):.0f}% of our buys were undercut "
        "within a month."
    )
