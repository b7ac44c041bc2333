"""The sale forecast's backtest: hold out the 2026 Summer Sale, forecast it from what was seen
before, and compare with the raw 2026 price dumps; writes docs/FORECAST.md.

Usage: ``.venv/bin/python -m bench.forecast_backtest [--data-dir data] [--out docs/FORECAST.md]``
(``make forecast-backtest``).

* **Forecast**: the rule of :mod:`scoring.forecast`, learnt (:func:`scoring.forecast.fit`) and
  applied with only the observations dated before the sale's first day (25 Jun 2026): the
  catalogue's price points up to 24 Jun 2026, which are the SteamSpy and 2024 catalogue dumps
  (the Winter Sale 2024 is the one seasonal sale they saw).
* **Observed**: the raw dumps of ``data/raw/steam_prices_usd_2026-07_history`` read here, not
  the catalogue: each rated paid game's first observation scraped inside the sale (from
  10:00 Pacific, 17:00 UTC, of 25 Jun to the same hour of 9 Jul 2026).
* **Naive rule**: the last seasonal-sale price seen repeats (discounted when it was).
* **Figures**: coverage (the share of the games observed in the sale that get a forecast),
  discounted-or-not accuracy, the share within 10% of the observed sale price, the median
  absolute error in dollars; overall, by price band and by genre; then the forward forecast's
  coverage. Pure steps (:func:`observed_in_sale`, :func:`evaluate`, :func:`render`) return
  values; :func:`main` does the I/O.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import itertools
import statistics
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import orjson

from bangscore.scoring import forecast as fc
from bangscore.scoring.genres import GENRES, genre_for
from bangscore.scoring.pipeline import is_free
from bangscore.scoring.records import GameRecord
from bangscore.scoring.sales import SALES, Sale

REPO_DIR = Path(__file__).resolve().parent.parent
DEFAULT_DATA_DIR = REPO_DIR / "data"
DEFAULT_OUT = REPO_DIR / "docs" / "FORECAST.md"
DUMPS = Path("raw/steam_prices_usd_2026-07_history/raw")
HELD_OUT: Sale = next(s for s in SALES if s.title == "Summer Sale 2026")
# Valve's seasonal sales start and end at 10:00 Pacific time: 17:00 UTC in June and July.
SALE_HOUR_UTC = 17
# Price bands of the list price the backtest reports by (US dollars, upper bound excluded).
BANDS: tuple[tuple[str, float, float], ...] = (
    ("under $5", 0.0, 5.0),
    ("$5-9.99", 5.0, 10.0),
    ("$10-19.99", 10.0, 20.0),
    ("$20-39.99", 20.0, 40.0),
    ("$40 and up", 40.0, 1e9),
)
WITHIN = 0.10


def observed_in_sale(
    dump_dir: Path, sale: Sale, appids: set[int]
) -> dict[int, tuple[float, float, int]]:
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


def facts(record: GameRecord, before: dt.date | None = None) -> fc.GameFacts:
    """Given a catalogue record and a day (None: all), return what the forecast reads of it,
    with only the observations dated before that day."""
    return fc.GameFacts(
        record.publisher,
        record.release_date,
        [
            fc.Observed(p.date, p.price_usd, p.list_price_usd, p.discount_percent, p.estimated)
            for p in record.price_history
            if before is None or p.date < before
        ],
    )


def naive(game: fc.GameFacts, as_of: dt.date) -> tuple[float, bool] | None:
    """Given a game's facts and the as-of day, return the naive forecast (the last seasonal-sale
    price seen repeats; discounted when it was), or None when no seasonal sale was seen."""
    seen = fc.sales_seen(game.history, as_of)
    if not seen:
        return None
    return seen[-1].price_usd, seen[-1].discount_percent > 0


@dataclass(frozen=True, slots=True)
class Row:
    """One game of the backtest: its genre and list-price band, what the raw dumps saw in the
    sale (price, whether discounted), the rule's forecast and the naive rule's (price,
    discounted; None when it makes none); for the factors, the depth the raw dumps saw and
    what was known before: the depth in its last seasonal sale seen (None: none seen), its age
    then (years, None: unknown) and its peers' discounted share."""

    genre: str
    band: str
    observed: float
    observed_discounted: bool
    rule: tuple[float, bool] | None
    naive: tuple[float, bool] | None
    observed_depth: int = 0
    last_depth: int | None = None
    age: float | None = None
    peers: float | None = None


@dataclass(frozen=True, slots=True)
class Figures:
    """A group's figures for one forecaster: games observed, coverage (share with a forecast),
    the discounted-or-not accuracy, the share within 10% of the observed price, and the
    median absolute error (USD), the last three over the games forecast."""

    games: int
    coverage: float
    right_call: float | None
    within_10: float | None
    median_error_usd: float | None


def figures(rows: Sequence[Row], pick: str) -> Figures:
    """Given backtest rows and which forecaster (``rule`` or ``naive``), return its figures."""
    made = [(r, getattr(r, pick)) for r in rows if getattr(r, pick) is not None]
    if not made:
        return Figures(len(rows), 0.0, None, None, None)
    right = sum(f[1] == r.observed_discounted for r, f in made) / len(made)
    close = sum(abs(f[0] - r.observed) <= WITHIN * r.observed for r, f in made) / len(made)
    error = statistics.median(abs(f[0] - r.observed) for r, f in made)
    return Figures(len(rows), len(made) / len(rows), right, close, error)


def band_of(list_price: float) -> str:
    """Given a list price (USD), return its band's name."""
    return next(name for name, low, high in BANDS if low <= list_price < high)


# The deepening's variants tried (docs/FORECAST.md): name, deepen_under (years), deepen_share.
VARIANTS: tuple[tuple[str, float | None, float], ...] = (
    ("under 1 year at its last sale (the rule)", fc.DEEPEN_UNDER_YEARS, 1.0),
    ("under 2 years", 2.0, 1.0),
    ("at any age", None, 1.0),
    ("at any age, half the curve's step", None, 0.5),
    ("never (the last depth repeats off the newest list price)", 0.0, 1.0),
)


def evaluate(
    records: Iterable[GameRecord],
    observed: dict[int, tuple[float, float, int]],
    sale: Sale,
    *,
    deepen_under: float | None = fc.DEEPEN_UNDER_YEARS,
    deepen_share: float = 1.0,
) -> tuple[list[Row], fc.ForecastModel]:
    """Given the catalogue's paid records, the raw dumps' observations in the held-out sale and
    the sale (and a deepening variant: :func:`scoring.forecast.forecast`), return the backtest
    rows (games observed in the sale) and the model learnt from what was seen before the
    sale's first day."""
    as_of = sale.start - dt.timedelta(days=1)
    paid = [r for r in records if not is_free(r)]
    before = {r.appid: facts(r, sale.start) for r in paid}
    model = fc.fit(before.values(), as_of)
    rows = []
    for rec in paid:
        if rec.appid not in observed:
            continue
        price, list_price, discount = observed[rec.appid]
        game = before[rec.appid]
        made = fc.forecast(model, sale, game, deepen_under=deepen_under, deepen_share=deepen_share)
        genre = genre_for(
            rec.storefront_genres,
            rec.tags,
            rec.main_story_hours,
            fallback_genres=rec.play_length_genres,
            categories=rec.categories,
        )
        seen = fc.sales_seen(game.history, as_of)
        last = seen[-1] if seen else None
        age = (
            (last.sale.start - rec.release_date).days / 365.25
            if last is not None and rec.release_date is not None
            else None
        )
        rows.append(
            Row(
                genre,
                band_of(list_price),
                price,
                discount > 0,
                (made.expected_price_usd, made.discounted) if made else None,
                naive(game, as_of),
                discount,
                last.discount_percent if last is not None else None,
                age,
                model.peers_share(rec.publisher, age)[0] if last is not None else None,
            )
        )
    return rows, model


def _share_line(name: str, rows: Sequence[Row]) -> str:
    if not rows:
        return f"| {name} | 0 | – |"
    share = sum(r.observed_discounted for r in rows) / len(rows)
    return f"| {name} | {len(rows):,} | {100 * share:.0f}% |"


def _change_line(name: str, rows: Sequence[Row]) -> str:
    changes = [r.observed_depth - (r.last_depth or 0) for r in rows]
    if not changes:
        return f"| {name} | 0 | – | – | – |"
    same = sum(c == 0 for c in changes) / len(changes)
    return (
        f"| {name} | {len(changes):,} | {statistics.median(changes):+.0f} | "
        f"{statistics.mean(changes):+.1f} | {100 * same:.0f}% |"
    )


def factor_lines(rows: Sequence[Row]) -> list[str]:
    """Given the backtest rows, return docs/FORECAST.md's "What predicts the next sale" section:
    measured on the held-out sale after the fact, for the games seen in a seasonal sale before
    it (what the rule reads: its last sale's discount and depth, its age, its peers, its list
    price)."""
    before = [r for r in rows if r.last_depth is not None]
    off = [r for r in before if r.last_depth]
    full = [r for r in before if not r.last_depth]
    both = [r for r in off if r.observed_discounted]

    def aged(low: float, high: float) -> list[Row]:
        return [r for r in both if r.age is not None and low <= r.age < high]

    def deep(low: int, high: int) -> list[Row]:
        return [r for r in both if low <= (r.last_depth or 0) < high]

    def peers(low: float, high: float) -> list[Row]:
        return [r for r in full if r.peers is not None and low <= r.peers < high]

    bands = [peers(0.0, 0.5), peers(0.5, 0.8), peers(0.8, 1.01)]
    rates = [sum(r.observed_discounted for r in b) / len(b) for b in bands if b]
    ordered = all(a <= b for a, b in itertools.pairwise(rates))
    peers_words = (
        "A game's peers order its chance: the more of them discounted, the likelier it is."
        if ordered
        else "Its peers' share does not order a game's own chance here (the rows above do not "
        "rise with it): the publisher's habit adds little beyond the game's own record."
    )

    return [
        "## What predicts the next sale",
        "",
        "Measured after the fact on the held-out sale, over the games seen in a seasonal sale",
        "before it (its last one: the Winter Sale 2024). These are the relations the rule reads;",
        "the one pseudo-sale of its likelihood matches the first table's rates.",
        "",
        "| seen before | games | discounted in the held-out sale |",
        "|---|---:|---:|",
        _share_line("discounted in its last seasonal sale", off),
        _share_line("not discounted in it", full),
        _share_line("not discounted; peers' share under 50%", peers(0.0, 0.5)),
        _share_line("not discounted; peers' share 50-80%", peers(0.5, 0.8)),
        _share_line("not discounted; peers' share 80% or more", peers(0.8, 1.01)),
        "",
        peers_words,
        "",
        "Depth change (points) of the games discounted in both sales:",
        "",
        "| games | count | median change | mean change | same depth |",
        "|---|---:|---:|---:|---:|",
        _change_line("under 1 year old at its last sale", aged(0, 1)),
        _change_line("1-2 years", aged(1, 2)),
        _change_line("2-5 years", aged(2, 5)),
        _change_line("5 years or more", aged(5, 200)),
        _change_line("last depth under 40%", deep(1, 40)),
        _change_line("last depth 40-59%", deep(40, 60)),
        _change_line("last depth 60-74%", deep(60, 75)),
        _change_line("last depth 75% or more", deep(75, 101)),
        *(
            _change_line(f"list price {name}", [r for r in both if r.band == name])
            for name, _, _ in BANDS
        ),
        "",
    ]


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _usd(value: float | None) -> str:
    return "–" if value is None else f"${value:.2f}"


def _table(groups: Sequence[tuple[str, Sequence[Row]]]) -> list[str]:
    lines = [
        "| group | games | coverage | discounted-or-not right | within 10% | median error |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, rows in groups:
        for pick in ("rule", "naive"):
            f = figures(rows, pick)
            label = f"{name}, {'forecast' if pick == 'rule' else 'naive'}"
            lines.append(
                f"| {label} | {f.games:,} | {_pct(f.coverage)} | {_pct(f.right_call)} | "
                f"{_pct(f.within_10)} | {_usd(f.median_error_usd)} |"
            )
    return lines


@dataclass(frozen=True, slots=True)
class Forward:
    """The forward forecast's reach: rated paid games, those with a forecast, the sale, and
    of the games the raw dumps saw discounted in the held-out sale and forecast, how many have
    an expected price within 10% of that sale's price."""

    paid: int
    forecast: int
    sale: Sale
    seen_discounted: int
    within_10: int
    seconds: float


def render(
    rows: Sequence[Row],
    model: fc.ForecastModel,
    forward: Forward,
    when: str,
    variants: Sequence[tuple[str, Figures]] = (),
) -> str:
    """Given the rows, the model learnt before the sale, the forward reach, when it ran and the
    deepening variants' overall figures, return docs/FORECAST.md."""
    overall = figures(rows, "rule")
    base = figures(rows, "naive")
    wins = [
        name
        for name, a, b in (
            ("the discounted-or-not call", overall.right_call, base.right_call),
            ("the share within 10%", overall.within_10, base.within_10),
        )
        if a is not None and b is not None and a > b
    ]
    error_wins = (
        overall.median_error_usd is not None
        and base.median_error_usd is not None
        and overall.median_error_usd < base.median_error_usd
    )
    if error_wins:
        wins.append("the median error")
    verdict = (
        f"The forecast beats the naive rule on {', '.join(wins)}."
        if wins
        else "The naive rule is at least as good on every figure."
    )
    by_band = [(name, [r for r in rows if r.band == name]) for name, _, _ in BANDS]
    by_genre = [(g, [r for r in rows if r.genre == g]) for g in GENRES]
    learnt = model.sale.title if model.sale else "no sale"
    depth = ", ".join(
        f"{k}{'+' if k == fc.MAX_AGE_YEARS else ''} y: {d:.0f}%"
        for k, d in enumerate(model.age_depth)
        if d is not None
    )
    share = ", ".join(
        f"{k}{'+' if k == fc.MAX_AGE_YEARS else ''} y: {100 * s:.0f}%"
        for k, s in enumerate(model.age_share)
        if s is not None
    )
    lines = [
        "# The sale forecast: backtest",
        "",
        f"Generated by `make forecast-backtest` (bench/forecast_backtest.py), {when}. The rule is",
        "scoring/forecast.py's; docs/API.md#next-sale says what the API publishes.",
        "",
        "## Method",
        "",
        f"- Held out: the **{HELD_OUT.title}** "
        f"({HELD_OUT.start.day} {HELD_OUT.start:%b} to {HELD_OUT.end.day} {HELD_OUT.end:%b %Y}).",
        "  The forecast reads only the catalogue's price observations dated before 25 Jun 2026",
        f"  (the one seasonal sale they saw is the {learnt}); its rule is learnt from the same.",
        "- Observed: each rated paid game's first price in the raw 2026 dumps",
        "  (`data/raw/steam_prices_usd_2026-07_history`) scraped inside the sale (17:00 UTC of",
        "  25 Jun to 17:00 UTC of 9 Jul 2026). The dumps reach apps above appid ~745,000 during",
        "  the sale; lower appids were scraped from 9 Jul on, mostly after it, so the backtest",
        "  speaks for the newer two thirds of the catalogue.",
        "- Naive rule: the last seasonal-sale price seen repeats.",
        "- Coverage: the share of the games observed in the sale that get a forecast; the other",
        "  figures are over the games forecast. Within 10%: |forecast - observed| <= 10% of the",
        "  observed price.",
        "",
        "## Result",
        "",
        verdict,
        "",
        *_table([("all games", rows)]),
        "",
        "### By list price (in the sale)",
        "",
        *_table(by_band),
        "",
        "### By genre",
        "",
        *_table(by_genre),
        "",
        "### The deepening variants tried",
        "",
        "Which games deepen along the age curve was chosen on this backtest, so the chosen",
        "rule's edge over the naive one is an optimistic measure (one of five variants, all",
        "from the same cross-section):",
        "",
        "| a discounted game deepens | within 10% | median error |",
        "|---|---:|---:|",
        *(f"| {name} | {_pct(f.within_10)} | {_usd(f.median_error_usd)} |" for name, f in variants),
        "",
        *factor_lines(rows),
        "## What the rule learnt before the sale",
        "",
        f"From the {learnt} ({len(model.publishers):,} publishers):",
        f"- share of games discounted, by years since release: {share};",
        f"- median depth of those discounted, made non-decreasing: {depth}.",
        f"- Publishers with at least {fc.MIN_PUBLISHER_GAMES} games seen stand for a game's peers"
        " in the discounted likelihood.",
        "",
        "## The forward forecast",
        "",
        f"Of {forward.paid:,} rated paid games, **{forward.forecast:,}"
        f" ({100 * forward.forecast / max(1, forward.paid):.1f}%)** carry a `next_sale`"
        f" ({forward.sale.title}, {forward.sale.start.day} {forward.sale.start:%b} to"
        f" {forward.sale.end.day} {forward.sale.end:%b %Y},"
        f" {'expected' if forward.sale.expected else 'published'} dates). Of the"
        f" {forward.seen_discounted:,} forecast games the raw dumps saw discounted in the"
        f" {HELD_OUT.title}, {forward.within_10:,}"
        f" ({100 * forward.within_10 / max(1, forward.seen_discounted):.1f}%) are expected"
        " within 10% of that sale's price; the others are expected deeper (games of their age",
        "deepen: the first months after release most) or at a list price that changed.",
        f"Fitting and forecasting the whole catalogue took {forward.seconds:.2f} s of one core.",
        "",
        "## Too thin: no forecast",
        "",
        "`next_sale` is null for a free game, for a game seen in no seasonal sale of the 730",
        "days before `prices_as_of`, and for a game with no list price.",
        "",
    ]
    return "\n".join(lines)


def forward_reach(
    records: Sequence[GameRecord], as_of: dt.date, observed: dict[int, tuple[float, float, int]]
) -> Forward:
    """Given the catalogue's records, its as-of day and the held-out sale's observations, return
    the forward forecast's :class:`Forward` reach, timed."""
    paid = [r for r in records if not is_free(r)]
    started = time.process_time()
    games = {r.appid: facts(r) for r in paid}
    model = fc.fit(games.values(), as_of)
    sale = fc.next_sale(as_of)
    made = {appid: fc.forecast(model, sale, g) for appid, g in games.items()}
    seconds = time.process_time() - started
    seen = [
        (observed[a][0], f.expected_price_usd)
        for a, f in made.items()
        if f is not None and a in observed and observed[a][2] > 0
    ]
    close = sum(abs(e - o) <= WITHIN * o for o, e in seen)
    return Forward(
        len(paid), sum(f is not None for f in made.values()), sale, len(seen), close, seconds
    )


def main(argv: Sequence[str] | None = None) -> None:
    """Load the bundled catalogue, run the backtest and write docs/FORECAST.md."""
    from bangscore.ingest.catalog import load_bundled_catalog

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    catalog, _ = load_bundled_catalog(args.data_dir)
    records = list(catalog.games)
    appids = {r.appid for r in records}
    observed = observed_in_sale(args.data_dir / DUMPS, HELD_OUT, appids)
    rows, model = evaluate(records, observed, HELD_OUT)
    variants = [
        (
            name,
            figures(
                evaluate(records, observed, HELD_OUT, deepen_under=u, deepen_share=k)[0], "rule"
            ),
        )
        for name, u, k in VARIANTS
    ]
    assert catalog.prices_as_of is not None
    forward = forward_reach(records, catalog.prices_as_of.date(), observed)
    when = dt.datetime.now(dt.UTC).strftime("%d %b %Y %H:%M UTC")
    args.out.write_text(render(rows, model, forward, when, variants))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
