"""The sale forecast's backtest: a build as of 24 Jun 2026 forecasts the 2026 Summer Sale, and
the raw 2026 price dumps say what happened; writes docs/FORECAST.md.

Usage: ``.venv/bin/python -m bench.forecast_backtest [--data-dir data] [--out docs/FORECAST.md]``
(``make forecast-backtest``; it runs outside ``make build``).

* **What we knew**: the bundled catalogue as of 24 Jun 2026 (``load_bundled_catalog(as_of=)``,
  what ``bangscore build --as-of 2026-06-24`` builds from): its price points are the SteamSpy,
  2024 catalogue and price-tracker dumps (the Winter Sale 2024 is the one seasonal sale seen).
* **Observed**: the raw dumps of ``data/raw/steam_prices_usd_2026-07_history`` read here, not
  the catalogue: each rated paid game's first observation scraped inside the sale (from
  10:00 Pacific, 17:00 UTC, of 25 Jun to the same hour of 9 Jul 2026).
* **Baselines**: "always discounted" (a call only), "the last sale price repeats", "the last
  depth off today's list price".
* **The split**: games whose appid has an even tens digit choose the deepening variant, fit
  the likelihood's reliability table (:data:`scoring.forecast.CALIBRATION`) and measure each
  stratum's accuracy (:data:`scoring.forecast.STRATUM_ACCURACY`); every figure reported is on
  the others.
* **The decision backtest** (:mod:`bench.decision_backtest`): the build's verdicts against the
  raw prices of 25 Jun-24 Jul 2026, in dollars.

Pure steps (:func:`observed_in_sale`, :func:`evaluate`, :func:`fit_calibration`,
:func:`render`) return values; :func:`main` does the I/O.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

from bangscore.scoring import forecast as fc
from bangscore.scoring.genres import genre_for
from bangscore.scoring.pipeline import is_free
from bangscore.scoring.records import GameRecord
from bangscore.scoring.sales import SALES, Sale
from bench import decision_backtest as db

REPO_DIR = Path(__file__).resolve().parent.parent
DEFAULT_DATA_DIR = REPO_DIR / "data"
DEFAULT_OUT = REPO_DIR / "docs" / "FORECAST.md"
DUMPS = Path("raw/steam_prices_usd_2026-07_history/raw")
HELD_OUT: Sale = next(s for s in SALES if s.title == "Summer Sale 2026")
EVE = HELD_OUT.start - dt.timedelta(days=1)
# Valve's seasonal sales start and end at 10:00 Pacific time: 17:00 UTC in June and July.
SALE_HOUR_UTC = 17
WITHIN = 0.10
BINS = 10  # the reliability table's likelihood bins, each a tenth wide

Observed = dict[int, tuple[float, float, int]]


def observed_in_sale(dump_dir: Path, sale: Sale, appids: set[int]) -> Observed:
    """Given the folder of the raw 2026 price dumps, the sale and the appids wanted, return per
    appid its first observation scraped inside the sale, ``(price_usd, list_price_usd,
    discount_percent)``; apps the dumps store without a price are left out."""
    start = dt.datetime.combine(sale.start, dt.time(SALE_HOUR_UTC), tzinfo=dt.UTC).timestamp()
    end = dt.datetime.combine(sale.end, dt.time(SALE_HOUR_UTC), tzinfo=dt.UTC).timestamp()
    first: dict[int, tuple[float, tuple[float, float, int]]] = {}
    for path in sorted(dump_dir.glob("prices.json@*.json.gz")):
        for key, row in orjson.loads(gzip.decompress(path.read_bytes()))["prices"].items():
            appid = int(key)
            at = row.get("scraped_at")
            final, initial = row.get("price_final"), row.get("price_initial")
            if appid not in appids or at is None or final is None or not initial:
                continue
            if not (start <= at < end):
                continue
            if appid not in first or at < first[appid][0]:
                first[appid] = (
                    at,
                    (float(final), float(initial), int(row.get("discount_pct") or 0)),
                )
    return {appid: seen for appid, (_, seen) in first.items()}


def facts(record: GameRecord) -> fc.GameFacts:
    """Given a catalogue record, return what the forecast reads of it."""
    return fc.GameFacts(
        record.publisher,
        record.release_date,
        [
            fc.Observed(p.date, p.price_usd, p.list_price_usd, p.discount_percent, p.estimated)
            for p in record.price_history
        ],
    )


Call = tuple[float, bool]  # a forecaster's (price USD, discounted or not)


def last_sale(game: fc.GameFacts, as_of: dt.date) -> Call | None:
    """The baseline "the last sale price repeats": the last seasonal-sale price seen,
    discounted when it was; None when no seasonal sale was seen."""
    seen = fc.sales_seen(game.history, as_of)
    return (seen[-1].price_usd, seen[-1].discount_percent > 0) if seen else None


def last_depth(game: fc.GameFacts, as_of: dt.date) -> Call | None:
    """The baseline "the last depth off today's list price": the last seasonal sale's depth
    applied to the newest list price, cut to the cent; None when no seasonal sale was seen."""
    seen = fc.sales_seen(game.history, as_of)
    priced = sorted((o for o in game.history if not o.estimated), key=lambda o: o.date)
    if not seen or not priced:
        return None
    depth = seen[-1].discount_percent
    cents = fc.storefront_cents(round(priced[-1].list_price_usd * 100), depth)
    return cents / 100, depth > 0


@dataclass(frozen=True, slots=True)
class Row:
    """One game of the backtest: appid, genre, what the raw dumps saw in the sale (price,
    discounted or not), the rule's forecast (price, call; None: none) with its raw and
    calibrated likelihoods and stratum, and the two price baselines' calls."""

    appid: int
    genre: str
    observed: float
    observed_discounted: bool
    rule: Call | None
    raw: float | None
    likelihood: float | None
    stratum: str | None
    last_sale: Call | None
    last_depth: Call | None

    @property
    def always(self) -> Call | None:
        """The baseline "always discounted" (a call only: its price is the observed one)."""
        return (self.observed, True) if self.rule is not None else None


@dataclass(frozen=True, slots=True)
class Figures:
    """A forecaster's figures over a group: games observed, coverage (share with a forecast),
    the discounted-or-not accuracy, the share within 10% of the observed price, and the
    median absolute error (USD), the last three over the games forecast."""

    games: int
    coverage: float
    right_call: float | None
    within_10: float | None
    median_error_usd: float | None


PICKS: dict[str, Callable[[Row], Call | None]] = {
    "forecast": lambda r: r.rule,
    "always discounted": lambda r: r.always,
    "last sale price repeats": lambda r: r.last_sale,
    "last depth off today's list": lambda r: r.last_depth,
}


def close(call: Call, observed: float) -> bool:
    """Whether a forecast price is within 10% of the observed price."""
    return abs(call[0] - observed) <= WITHIN * observed + 1e-9


def figures(rows: Sequence[Row], pick: str) -> Figures:
    """Given backtest rows and a forecaster (a key of :data:`PICKS`), return its figures."""
    get = PICKS[pick]
    made = [(r, c) for r in rows if (c := get(r)) is not None]
    if not made:
        return Figures(len(rows), 0.0, None, None, None)
    right = sum(c[1] == r.observed_discounted for r, c in made) / len(made)
    if pick == "always discounted":
        return Figures(len(rows), len(made) / len(rows), right, None, None)
    within = sum(close(c, r.observed) for r, c in made) / len(made)
    error = statistics.median(abs(c[0] - r.observed) for r, c in made)
    return Figures(len(rows), len(made) / len(rows), right, within, error)


# The deepening's variants tried: name, deepen_under (years), deepen_share.
VARIANTS: tuple[tuple[str, float | None, float], ...] = (
    ("under 1 year at its last sale", 1.0, 1.0),
    ("under 2 years", 2.0, 1.0),
    ("at any age", None, 1.0),
    ("at any age, half the curve's step", None, 0.5),
    ("never (the last depth repeats)", 0.0, 1.0),
)


def evaluate(
    records: Iterable[GameRecord],
    observed: Observed,
    sale: Sale = HELD_OUT,
    *,
    variant: tuple[float | None, float] = (fc.DEEPEN_UNDER_YEARS, 1.0),
    table: Sequence[tuple[float, float]] = (),
) -> tuple[list[Row], fc.ForecastModel]:
    """Given the as-of catalogue's records, the raw dumps' observations in the held-out sale,
    the sale, a deepening variant and a reliability table (``()``: the raw likelihood),
    return the rows of the paid games observed in the sale and the model learnt before it."""
    as_of = sale.start - dt.timedelta(days=1)
    paid = [r for r in records if not is_free(r)]
    games = {r.appid: facts(r) for r in paid}
    model = fc.fit(games.values(), as_of)
    rows = []
    for rec in paid:
        if rec.appid not in observed:
            continue
        price, _, discount = observed[rec.appid]
        game = games[rec.appid]
        made = fc.forecast(
            model,
            sale,
            game,
            deepen_under=variant[0],
            deepen_share=variant[1],
            day=as_of,
            table=table,
        )
        genre = genre_for(
            rec.storefront_genres,
            rec.tags,
            rec.main_story_hours,
            fallback_genres=rec.play_length_genres,
            categories=rec.categories,
        )
        rows.append(
            Row(
                rec.appid,
                genre,
                price,
                discount > 0,
                (made.expected_price_usd, made.discounted) if made else None,
                made.raw_likelihood if made else None,
                made.discounted_likelihood if made else None,
                made.stratum if made else None,
                last_sale(game, as_of),
                last_depth(game, as_of),
            )
        )
    return rows, model


def fitting(appid: int) -> bool:
    """Whether an appid is in the fitting half: its tens digit is even (Steam's appids are
    mostly multiples of 10, so the last digit would put nearly all in one half)."""
    return appid // 10 % 2 == 0


def halves(rows: Sequence[Row]) -> tuple[list[Row], list[Row]]:
    """Split rows by appid: (the fitting half, even tens digits; the reported half, odd)."""
    return [r for r in rows if fitting(r.appid)], [r for r in rows if not fitting(r.appid)]


def fit_calibration(rows: Sequence[Row]) -> tuple[tuple[float, float], ...]:
    """Given rows with raw likelihoods, return the reliability table: per tenth of the raw
    likelihood with games in it, (their mean raw likelihood, their share observed discounted),
    made non-decreasing by pooling adjacent bins that fall (pool adjacent violators)."""
    bins: list[list[Row]] = [[] for _ in range(BINS)]
    for r in rows:
        if r.raw is not None:
            bins[min(BINS - 1, int(r.raw * BINS))].append(r)
    pools: list[tuple[float, float, int]] = []  # (sum raw, sum discounted, count)
    for b in bins:
        if not b:
            continue
        pools.append((sum(r.raw or 0.0 for r in b), sum(r.observed_discounted for r in b), len(b)))
        while len(pools) > 1 and pools[-2][1] / pools[-2][2] > pools[-1][1] / pools[-1][2]:
            a, c = pools[-2], pools.pop()
            pools[-1] = (a[0] + c[0], a[1] + c[1], a[2] + c[2])
    return tuple((round(x / n, 3), round(y / n, 3)) for x, y, n in pools)


def stratum_accuracy(rows: Sequence[Row]) -> dict[str, float]:
    """Given rows, return each stratum's share of forecasts within 10% of the observed price."""
    by: dict[str, list[bool]] = {}
    for r in rows:
        if r.rule is not None and r.stratum is not None:
            by.setdefault(r.stratum, []).append(close(r.rule, r.observed))
    return {k: round(sum(v) / len(v), 3) for k, v in sorted(by.items())}


@dataclass(frozen=True, slots=True)
class Reliability:
    """The likelihood's reliability on a group: per bin (low, high, games, mean likelihood,
    share observed discounted), the Brier scores of the calibrated and raw likelihoods and of
    the base rate (the fitting half's share discounted, said of every game)."""

    bins: tuple[tuple[float, float, int, float, float], ...]
    brier: float
    brier_raw: float
    brier_base: float
    base_rate: float


def reliability(rows: Sequence[Row], base_rate: float) -> Reliability:
    """Given the reported half's rows and the fitting half's base rate, return the table."""
    made = [r for r in rows if r.likelihood is not None and r.raw is not None]
    out = []
    for k in range(BINS):
        low, high = k / BINS, (k + 1) / BINS
        b = [
            r
            for r in made
            if low <= (r.likelihood or 0) < high or (k == BINS - 1 and r.likelihood == 1)
        ]
        if b:
            mean = statistics.fmean(r.likelihood or 0.0 for r in b)
            share = sum(r.observed_discounted for r in b) / len(b)
            out.append((low, high, len(b), mean, share))

    def brier(get: Callable[[Row], float]) -> float:
        return statistics.fmean((get(r) - r.observed_discounted) ** 2 for r in made)

    return Reliability(
        tuple(out),
        brier(lambda r: r.likelihood or 0.0),
        brier(lambda r: r.raw or 0.0),
        brier(lambda _: base_rate),
        base_rate,
    )


@dataclass(frozen=True, slots=True)
class Backtest:
    """Everything docs/FORECAST.md reports: the model, the chosen variant and every variant's
    figures on both halves, the reported half's rows, the fitted reliability table and strata
    accuracies, the reliability on the reported half and the decision backtest."""

    model: fc.ForecastModel
    chosen: str
    variants: tuple[tuple[str, Figures, Figures], ...]
    rows: tuple[Row, ...]
    calibration: tuple[tuple[float, float], ...]
    accuracy: dict[str, float]
    reliability: Reliability
    decision: db.Decision


def run_backtest(
    records: Sequence[GameRecord], observed: Observed, decision: db.Decision
) -> Backtest:
    """Given the as-of catalogue's records, the held-out sale's observations and the decision
    backtest, choose the variant and fit the tables on the even appids; report on the odd."""
    tried = []
    for name, under, share in VARIANTS:
        rows, _ = evaluate(records, observed, variant=(under, share))
        fit, report = halves(rows)
        tried.append(
            (name, (under, share), figures(fit, "forecast"), figures(report, "forecast"), rows)
        )
    best = max(tried, key=lambda t: (t[2].within_10 or 0.0, -(t[2].median_error_usd or 0.0)))
    fit_rows, _ = halves(best[4])
    table = fit_calibration(fit_rows)
    rows, model = evaluate(records, observed, variant=best[1], table=table)
    fit, report = halves(rows)
    base = sum(r.observed_discounted for r in fit if r.rule) / max(1, sum(1 for r in fit if r.rule))
    return Backtest(
        model,
        best[0],
        tuple((n, f, r) for n, _, f, r, _ in tried),
        tuple(report),
        table,
        stratum_accuracy(fit),
        reliability(report, base),
        decision,
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Load the bundled catalogue as of 24 Jun 2026, run both backtests, write docs/FORECAST.md."""
    from bangscore.ingest.catalog import load_bundled_catalog, read_catalog
    from bench.forecast_report import render

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument(
        "--catalog", type=Path, help="a catalogue file already joined as of 24 Jun 2026"
    )
    args = parser.parse_args(argv)
    if args.catalog is not None:
        catalog = read_catalog(args.catalog)
    else:
        catalog, _ = load_bundled_catalog(args.data_dir, as_of=EVE)
    records = list(catalog.games)
    observed = observed_in_sale(args.data_dir / DUMPS, HELD_OUT, {r.appid for r in records})
    decision = db.decide(catalog, args.data_dir / DUMPS, EVE)
    backtest = run_backtest(records, observed, decision)
    when = dt.datetime.now(dt.UTC).strftime("%d %b %Y %H:%M UTC")
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    args.out.write_text(render(backtest, when, " ".join(load)))
    print(f"wrote {args.out}")
    print(f"CALIBRATION = {backtest.calibration!r}")
    print(f"STRATUM_ACCURACY = {backtest.accuracy!r}")
    print(db.headline(decision))


if __name__ == "__main__":
    main()
