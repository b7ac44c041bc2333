"""Regenerate scoring/CALIBRATION.md and scoring/score_histogram.png from a real run.

Usage: ``.venv/bin/python -m scoring.calibrate [--data-dir data] [--out-dir scoring]``.

Loads the rated catalog of the bundled dumps (:func:`ingest.catalog.load_bundled_catalog`),
scores every game, and writes the internal calibration report: score histogram with the tier
boundaries, top and bottom 25, counts per tier and per genre, and the evidence for (and
against) the ranking. The pure steps (:func:`score_record`, :func:`score_catalog`,
:func:`summarize`, :func:`render_report`) return values; :func:`main` does the I/O.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from scoring import tiers, value
from scoring.genres import GENRES, genre_for
from scoring.records import GameRecord
from scoring.tiers import TIERS

PACKAGE_DIR = Path(__file__).resolve().parent
DEFAULT_DATA_DIR = PACKAGE_DIR.parent / "data"
REPORT_NAME = "CALIBRATION.md"
HISTOGRAM_NAME = "score_histogram.png"
LIST_LENGTH = 25

# Well-known games widely held to be good value, to see where the ranking puts them. Appids
# are the storefront's; a game missing from the rated catalog is reported as missing.
LANDMARKS: tuple[tuple[int, str], ...] = (
    (105600, "Terraria"),
    (292030, "The Witcher 3: Wild Hunt"),
    (413150, "Stardew Valley"),
    (1145360, "Hades"),
    (367520, "Hollow Knight"),
    (646570, "Slay the Spire"),
    (504230, "Celeste"),
    (620, "Portal 2"),
    (489830, "The Elder Scrolls V: Skyrim Special Edition"),
    (391540, "Undertale"),
)
PRICE_BANDS: tuple[tuple[str, float, float], ...] = (
    ("free", 0.0, 0.0),
    ("$0.01-4.99", 0.01, 4.99),
    ("$5-14.99", 5.0, 14.99),
    ("$15-29.99", 15.0, 29.99),
    ("$30+", 30.0, float("inf")),
)
TIER_COLOURS = {
    "banger": "#2e7d32",
    "worth_it": "#7cb342",
    "fair": "#fbc02d",
    "wait_for_sale": "#fb8c00",
    "skip": "#c62828",
}


@dataclass(frozen=True, slots=True)
class ScoredGame:
    """One rated game with its public inputs and everything scoring derives from them."""

    appid: int
    name: str
    price_usd: float
    review_score: float
    review_count: int
    main_story_hours: float
    finish_rate: float | None
    metacritic: int | None
    score: float
    bang_score: int
    tier: str
    genre: str
    worth_it_at_usd: float | None
    becomes_banger_at_usd: float | None


def score_record(record: GameRecord) -> ScoredGame:
    """Given a catalog record with a review score and a main-story length, return it scored.

    Raises ValueError when the record lacks either (the rated catalog never does).
    """
    review_score = record.review_score
    if review_score is None or record.main_story_hours is None:
        raise ValueError(f"appid {record.appid}: no review score or no main-story length")
    inputs = value.ValueInputs(
        price_usd=record.price_usd,
        review_score=review_score,
        review_count=record.review_count,
        length_hours=record.main_story_hours,
        finish_rate=record.finish_rate,
    )
    bang = value.bang_score(inputs)
    worth_it_at = tiers.threshold_usd(inputs, tiers.WORTH_IT_MIN)
    return ScoredGame(
        appid=record.appid,
        name=record.name,
        price_usd=record.price_usd,
        review_score=review_score,
        review_count=record.review_count,
        main_story_hours=record.main_story_hours,
        finish_rate=record.finish_rate,
        metacritic=record.metacritic,
        score=value.score(inputs),
        bang_score=bang,
        tier=tiers.tier(bang, record.price_usd, worth_it_at),
        genre=genre_for(
            record.storefront_genres,
            record.tags,
            record.main_story_hours,
            fallback_genres=record.play_length_genres,
        ),
        worth_it_at_usd=worth_it_at,
        becomes_banger_at_usd=tiers.threshold_usd(inputs, tiers.BANGER_MIN),
    )


def score_catalog(records: Iterable[GameRecord]) -> list[ScoredGame]:
    """Given catalog records, return them scored in the API's order: bang_score descending,
    then the unrounded score descending, then appid ascending (CONTRACT.md)."""
    scored = [score_record(r) for r in records]
    scored.sort(key=lambda g: (-g.bang_score, -g.score, g.appid))
    return scored


def _ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Given two equally long sequences (at least 2 items, neither constant), return their
    Spearman rank correlation in [-1, 1] (ties get their mean rank)."""
    return statistics.correlation(_ranks(xs), _ranks(ys))


@dataclass(frozen=True, slots=True)
class Summary:
    """Figures of one calibration run; counts are numbers of games."""

    games: int
    tier_counts: dict[str, int]
    genre_counts: dict[str, int]
    finish_rate_known: int
    finish_rate_median: float | None
    free_games: int
    zero_scores: int
    score_quartiles: tuple[float, float, float]
    median_by_price_band: dict[str, tuple[int, float | None]]
    median_by_finish_rate: dict[str, tuple[float | None, float | None]]
    neutral_shift: tuple[float, float, float] | None
    spearman_review_score: float
    spearman_metacritic: tuple[int, float | None]
    spearman_hours_per_usd: float
    landmarks: list[tuple[str, int | None, ScoredGame | None]]


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def _neutral_shift(scored: Sequence[ScoredGame]) -> tuple[float, float, float] | None:
    # For games with a known finish rate: how far would the score move if it were unknown?
    # Centred on 0 means the neutral value is the typical one.
    shifts = [
        value.score(
            value.ValueInputs(g.price_usd, g.review_score, g.review_count, g.main_story_hours, None)
        )
        - g.score
        for g in scored
        if g.finish_rate is not None
    ]
    if len(shifts) < 2:
        return None
    deciles = statistics.quantiles(shifts, n=10)
    return (deciles[0], statistics.median(shifts), deciles[-1])


def summarize(scored: Sequence[ScoredGame]) -> Summary:
    """Given the scored catalog in API order (at least 4 games), return its :class:`Summary`."""
    scores = [g.score for g in scored]
    tier_counts = Counter(g.tier for g in scored)
    genre_counts = Counter(g.genre for g in scored)
    known = [g.finish_rate for g in scored if g.finish_rate is not None]
    bands = {
        label: [g.score for g in scored if low <= g.price_usd <= high]
        for label, low, high in PRICE_BANDS
    }
    with_metacritic = [g for g in scored if g.metacritic is not None]
    rank_of = {g.appid: i + 1 for i, g in enumerate(scored)}
    by_appid = {g.appid: g for g in scored}
    quartiles = statistics.quantiles(scores, n=4)
    return Summary(
        games=len(scored),
        tier_counts={t: tier_counts[t] for t in TIERS},
        genre_counts={g: genre_counts[g] for g in GENRES},
        finish_rate_known=len(known),
        finish_rate_median=_median(known),
        free_games=sum(1 for g in scored if g.price_usd == 0),
        zero_scores=sum(1 for g in scored if g.bang_score == 0),
        score_quartiles=(quartiles[0], quartiles[1], quartiles[2]),
        median_by_price_band={k: (len(v), _median(v)) for k, v in bands.items()},
        median_by_finish_rate={
            label: (
                _median([g.score for g in group]),
                _median([g.main_story_hours for g in group]),
            )
            for label, group in (
                ("known", [g for g in scored if g.finish_rate is not None]),
                ("unknown", [g for g in scored if g.finish_rate is None]),
            )
        },
        neutral_shift=_neutral_shift(scored),
        spearman_review_score=spearman(scores, [g.review_score for g in scored]),
        spearman_metacritic=(
            len(with_metacritic),
            spearman(
                [g.score for g in with_metacritic],
                [float(g.metacritic or 0) for g in with_metacritic],
            )
            if len(with_metacritic) > 2
            else None,
        ),
        spearman_hours_per_usd=spearman(
            scores, [g.main_story_hours / max(g.price_usd, 0.01) for g in scored]
        ),
        landmarks=[(name, rank_of.get(appid), by_appid.get(appid)) for appid, name in LANDMARKS],
    )


def _pct(count: int, total: int) -> str:
    return f"{100 * count / total:.1f}%" if total else "-"


def _num(x: float | None, fmt: str = ".1f") -> str:
    return "-" if x is None else format(x, fmt)


def _shift(shift: tuple[float, float, float] | None) -> str:
    if shift is None:
        return "-"
    low, mid, high = shift
    return f"{mid:+.1f} points at the median ({low:+.1f} to {high:+.1f} from 1st to 9th decile)"


def _num_date(day: dt.date | None) -> str:
    return "-" if day is None else day.isoformat()


def _game_table(games: Sequence[ScoredGame], first_rank: int) -> list[str]:
    lines = [
        "| # | name | appid | price | reviews (n) | hours | finish rate | score | tier | genre |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for i, g in enumerate(games):
        name = g.name.replace("|", "\\|")
        lines.append(
            f"| {first_rank + i} | {name} | {g.appid} | ${g.price_usd:.2f} "
            f"| {g.review_score:.3f} ({g.review_count:,}) | {g.main_story_hours:.1f} "
            f"| {_num(g.finish_rate, '.2f')} | {g.score:.1f} | {g.tier} | {g.genre} |"
        )
    return lines


def render_report(
    scored: Sequence[ScoredGame],
    summary: Summary,
    *,
    origin: str,
    generated: dt.date,
    price_date: dt.date | None,
) -> str:
    """Given the scored catalog in API order, its summary, the catalog's origin, the date of
    the run and the date of the storefront prices (or None), return CALIBRATION.md as
    Markdown text."""
    n = summary.games
    tc, gc = summary.tier_counts, summary.genre_counts
    q1, q2, q3 = summary.score_quartiles
    meta_n, meta_rho = summary.spearman_metacritic
    known_score, known_hours = summary.median_by_finish_rate["known"]
    unknown_score, unknown_hours = summary.median_by_finish_rate["unknown"]
    lines = [
        "# Calibration of the bang_score (internal)",
        "",
        "Internal to the team: the formula and these constants are private (CONTRACT.md).",
        f"Generated by `.venv/bin/python -m scoring.calibrate` on {generated.isoformat()} from "
        f"the rated catalog of the {origin}: **{n:,} games**. The formula and the meaning of "
        "every constant are in the docstring and comments of `scoring/value.py`.",
        "",
        "## Score distribution",
        "",
        f"![Histogram of bang_score]({HISTOGRAM_NAME})",
        "",
        f"Quartiles of the unrounded score: {q1:.1f} / {q2:.1f} / {q3:.1f}. "
        f"{summary.zero_scores:,} games score 0 (reviews too poor for any price).",
        "",
        "| tier | games | share |",
        "|---|---:|---:|",
        *[f"| {t} | {tc[t]:,} | {_pct(tc[t], n)} |" for t in TIERS],
        "",
        "Target when calibrating: banger ~5-12%, worth_it ~15-25%, fair ~30%, the rest below.",
        f"`wait_for_sale` is rare ({tc['wait_for_sale']:,} games): below 45 a game is mostly "
        "either poorly reviewed or short, and neither is fixed by a sale, since the price term "
        f"stops at its floor (${value.PRICE_FLOOR_USD:.2f}); the prices are also sale-day prices "
        "already.",
        "",
        "## Genres",
        "",
        "| genre | games | share |",
        "|---|---:|---:|",
        *[f"| {g} | {gc[g]:,} | {_pct(gc[g], n)} |" for g in GENRES],
        "",
        f"## Top {LIST_LENGTH}",
        "",
        *_game_table(scored[:LIST_LENGTH], 1),
        "",
        f"## Bottom {LIST_LENGTH}",
        "",
        *_game_table(scored[-LIST_LENGTH:], n - min(LIST_LENGTH, n) + 1),
        "",
        "## Why we believe the ranking",
        "",
        "Landmarks: games widely held to be good value, at the catalog's price of the day "
        "(the storefront snapshot was taken during the winter sale):",
        "",
        "| game | rank | price | score | tier |",
        "|---|---:|---:|---:|---|",
    ]
    for name, rank, game in summary.landmarks:
        if game is None or rank is None:
            lines.append(f"| {name} | not in the rated catalog | - | - | - |")
        else:
            lines.append(
                f"| {name} | {rank:,} of {n:,} (top {_pct(rank, n)}) | ${game.price_usd:.2f} "
                f"| {game.score:.1f} | {game.tier} |"
            )
    lines += [
        "",
        "- The score never rises with price and never falls with review score, length or "
        "finish rate: property tests in `tests/scoring/test_value.py` check this on "
        "arbitrary inputs, not only on the catalog.",
        f"- Rank correlation (Spearman) of the score with the review score: "
        f"{summary.spearman_review_score:.2f}; with main-story hours per dollar: "
        f"{summary.spearman_hours_per_usd:.2f}; with the critics' metacritic score "
        f"({meta_n:,} games have one): {_num(meta_rho, '.2f')}. Both inputs pull the ranking, "
        "and critics agree only loosely, as expected of a value (not quality) score.",
        "- Median score by price band. Free games are not automatically best (the price term "
        "stops at its floor); beyond that, a band's median mixes price with what games at that "
        "price are like (many cheap games are short), so the property tests, not this table, "
        "are the check that price alone never raises a score:",
        "",
        "| price band | games | median score |",
        "|---|---:|---:|",
        *[
            f"| {band} | {count:,} | {_num(med)} |"
            for band, (count, med) in summary.median_by_price_band.items()
        ],
        "",
        f"- Finish rate known for {summary.finish_rate_known:,} games "
        f"({_pct(summary.finish_rate_known, n)}); their median estimated finish rate is "
        f"{_num(summary.finish_rate_median, '.3f')}, which `NEUTRAL_FINISH_RATE` "
        f"({value.NEUTRAL_FINISH_RATE}) stands in for when unknown. Were their rate unknown, "
        f"their scores would move by {_shift(summary.neutral_shift)}: centred on 0, so an "
        "unknown rate neither rewards nor punishes on average. The median score of games with "
        f"a known rate is {_num(known_score)} against {_num(unknown_score)} for the others; "
        "the gap comes from their other inputs, chiefly length (median main story "
        f"{_num(known_hours)} h against {_num(unknown_hours)} h).",
        "",
        "## Known weaknesses",
        "",
        "- Finish rate is an estimate (share of players whose playtime reaches the main-story "
        "length under a log-normal fit of SteamSpy median/mean playtime), not an observed "
        "completion statistic; unknown for the rest.",
        "- Length is HowLongToBeat's main story (2023) and only games with one are rated. For "
        "idle, sandbox and management games HLTB's 'main story' is hundreds of hours of "
        "largely unattended play, so they crowd the top of the list.",
        f"- Prices are one day's storefront prices ({_num_date(price_date)}), in the winter "
        "sale. "
        f"{summary.free_games:,} games are at $0. A game at $0 that an earlier dump shows sold "
        "for money (SteamSpy 2023 or the 2019 store dump) is not rated: the storefront dump "
        "lists delisted titles at 0 (`ingest.join.price_error`). Delisted games missing from "
        "both earlier dumps cannot be seen that way and still rank as free, e.g. Football "
        "Manager 2021 and 2022; the rule also drops the few paid games that really went free "
        "to play (Crusader Kings II, Kingdom: Classic).",
        f"- Genre: {gc['other']:,} games ({_pct(gc['other'], n)}) are `other`. Where storefront "
        "genres and tags match no rule (chiefly games released after the 2019 store dump and "
        "not in ITAD, which have neither), HowLongToBeat's genres decide; `other` is left "
        "with genres the API has no bucket for (sports, racing, simulation, puzzle, hidden "
        "object, survival) and games no dump gives a genre. HLTB's genres are coarser than "
        "tags and sometimes wrong (World of Tanks is filed under Role-Playing).",
        "- Reviews count every purchase type and language the storefront summary counts; the "
        "shrinkage toward the prior matters little here because the rated catalog needs 50 "
        "reviews.",
        "",
    ]
    return "\n".join(lines)


def plot_histogram(scored: Sequence[ScoredGame], path: Path) -> None:
    """Given the scored catalog and a PNG path, draw the bang_score histogram (one bar per
    integer score, stacked by tier, tier boundaries marked) and save it there."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bins = list(range(102))
    fig, ax = plt.subplots(figsize=(10, 5), dpi=100)
    ax.hist(
        [[g.bang_score for g in scored if g.tier == t] for t in TIERS],
        bins=bins,
        stacked=True,
        color=[TIER_COLOURS[t] for t in TIERS],
        label=[f"{t} ({sum(1 for g in scored if g.tier == t):,})" for t in TIERS],
        align="left",
    )
    for boundary, label in ((tiers.FAIR_MIN, "45"), (tiers.WORTH_IT_MIN, "65")):
        ax.axvline(boundary - 0.5, color="black", linestyle="--", linewidth=1)
        ax.text(boundary - 0.3, ax.get_ylim()[1] * 0.95, label, fontsize=9)
    ax.axvline(tiers.BANGER_MIN - 0.5, color="black", linestyle="--", linewidth=1)
    ax.text(tiers.BANGER_MIN - 0.3, ax.get_ylim()[1] * 0.95, "80", fontsize=9)
    ax.set_xlim(-1, 101)
    ax.set_xlabel("bang_score")
    ax.set_ylabel("games")
    ax.set_title(f"bang_score of the rated catalog ({len(scored):,} games)")
    ax.legend(loc="upper left", fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    """Given command-line arguments, load the bundled catalog, score it and write the report
    and histogram; return the exit status (0)."""
    from ingest.catalog import load_bundled_catalog

    parser = argparse.ArgumentParser(prog="python -m scoring.calibrate", description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--out-dir", type=Path, default=PACKAGE_DIR)
    parser.add_argument("--progress", action="store_true", help="show progress bars")
    args = parser.parse_args(argv)
    catalog, _report = load_bundled_catalog(args.data_dir, progress=args.progress)
    scored = score_catalog(catalog.games)
    summary = summarize(scored)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    plot_histogram(scored, args.out_dir / HISTOGRAM_NAME)
    price_dates = Counter(g.sources.storefront for g in catalog.games if g.sources.storefront)
    text = render_report(
        scored,
        summary,
        origin=catalog.origin,
        generated=catalog.created_at.date(),
        price_date=price_dates.most_common(1)[0][0] if price_dates else None,
    )
    (args.out_dir / REPORT_NAME).write_text(text, encoding="utf-8")
    counts = ", ".join(f"{t} {c}" for t, c in summary.tier_counts.items())
    print(f"scored {summary.games} games: {counts}")
    print(f"wrote {args.out_dir / REPORT_NAME} and {args.out_dir / HISTOGRAM_NAME}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
