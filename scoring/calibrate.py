"""Regenerate scoring/CALIBRATION.md and scoring/score_histogram.png from a real run.

Usage: ``.venv/bin/python -m bangscore.scoring.calibrate [--data-dir data] [--out-dir scoring]``.

Loads the catalog of the bundled dumps (:func:`ingest.catalog.load_bundled_catalog`), scores
it with the one pipeline (:func:`scoring.pipeline.score_catalog`) and writes the internal
calibration report: the catalog's drop counts and years, score histogram with the tier
boundaries, tiers, genres, landmarks before and after, top and bottom 25, each genre's top 10,
and the evidence for (and against) the ranking. The pure steps (:func:`summarize`,
:func:`render_report`) return values; :func:`main` does the I/O.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bangscore.scoring import tiers, value
from bangscore.scoring.genres import GENRES
from bangscore.scoring.pipeline import ScoredGame, score_catalog
from bangscore.scoring.records import NotRated
from bangscore.scoring.tiers import TIERS

if TYPE_CHECKING:
    from bangscore.ingest.catalog import IngestReport

PACKAGE_DIR = Path(__file__).resolve().parent
DEFAULT_DATA_DIR = PACKAGE_DIR.parent / "data"
REPORT_NAME = "CALIBRATION.md"
HISTOGRAM_NAME = "score_histogram.png"
LIST_LENGTH = 25
GENRE_LIST_LENGTH = 10

# Games a player knows, old and new, long and short, cheap and dear, to see where the ranking
# puts them. ``before`` is where score version 1 put them (the issue that led to version 2),
# or "" when it was not reported.
LANDMARKS: tuple[tuple[int, str, str], ...] = (
    (400, "Portal", "63 fair at $1.99"),
    (1055540, "A Short Hike", "55 fair"),
    (504230, "Celeste", ""),
    (638230, "Journey", "56 fair"),
    (501300, "What Remains of Edith Finch", "58 fair"),
    (1147690, "NGU IDLE", "#1 (free, 730 h)"),
    (1454400, "Cookie Clicker", "#2"),
    (1468260, "Leaf Blower Revolution - Idle Game", "top 10"),
    (1263850, "Football Manager 2021", "#3 (delisted, shown free)"),
    (1569040, "Football Manager 2022", "top 10 (delisted)"),
    (1086940, "Baldur's Gate 3", "fair, 23 h main story"),
    (2379780, "Balatro", "not in the catalog"),
    (1145350, "Hades II", "not in the catalog"),
    (553850, "HELLDIVERS 2", "not in the catalog"),
    (1623730, "Palworld", "not in the catalog"),
    (2358720, "Black Myth: Wukong", "not in the catalog"),
    (1363080, "Manor Lords", "not in the catalog"),
    (1145360, "Hades", ""),
    (105600, "Terraria", ""),
    (413150, "Stardew Valley", ""),
    (292030, "The Witcher 3: Wild Hunt", ""),
    (1245620, "ELDEN RING", ""),
    (367520, "Hollow Knight", ""),
    (646570, "Slay the Spire", ""),
    (620, "Portal 2", ""),
    (1091500, "Cyberpunk 2077", ""),
    (570, "Dota 2", ""),
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
class Landmark:
    """Where one landmark game landed: its rank (1-based) and scored game, or why it is not
    rated, or neither (unknown to every source)."""

    appid: int
    name: str
    before: str
    rank: int | None
    game: ScoredGame | None
    not_rated: str | None


@dataclass(frozen=True, slots=True)
class Summary:
    """Figures of one calibration run; counts are numbers of games."""

    games: int
    tier_counts: dict[str, int]
    genre_counts: dict[str, int]
    genre_median_hours: dict[str, float | None]
    finish_rate_known: int
    free_games: int
    zero_scores: int
    score_quartiles: tuple[float, float, float]
    median_by_price_band: dict[str, tuple[int, float | None]]
    spearman_review_score: float
    spearman_metacritic: tuple[int, float | None]
    spearman_hours_per_usd: float
    unattended_in_top_100: int
    free_in_top_30: int
    landmarks: list[Landmark]


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


def summarize(scored: Sequence[ScoredGame], not_rated: Sequence[NotRated] = ()) -> Summary:
    """Given the scored catalog in API order (at least 4 games) and the known apps that are
    not rated, return its :class:`Summary`."""
    scores = [g.score for g in scored]
    tier_counts = Counter(g.tier for g in scored)
    genre_counts = Counter(g.genre for g in scored)
    bands = {
        label: [g.score for g in scored if low <= g.record.price_usd <= high]
        for label, low, high in PRICE_BANDS
    }
    with_metacritic = [g for g in scored if g.record.metacritic is not None]
    rank_of = {g.record.appid: i + 1 for i, g in enumerate(scored)}
    by_appid = {g.record.appid: g for g in scored}
    refused = {a.appid: a.reason for a in not_rated}
    quartiles = statistics.quantiles(scores, n=4)
    return Summary(
        games=len(scored),
        tier_counts={t: tier_counts[t] for t in TIERS},
        genre_counts={g: genre_counts[g] for g in GENRES},
        genre_median_hours={
            genre: _median(
                [
                    g.inputs.length_hours
                    for g in scored
                    if g.genre == genre and g.record.length_source == "hltb"
                ]
            )
            for genre in GENRES
        },
        finish_rate_known=sum(1 for g in scored if g.record.finish_rate is not None),
        free_games=sum(1 for g in scored if g.record.price_usd == 0),
        zero_scores=sum(1 for g in scored if g.bang_score == 0),
        score_quartiles=(quartiles[0], quartiles[1], quartiles[2]),
        median_by_price_band={k: (len(v), _median(v)) for k, v in bands.items()},
        spearman_review_score=spearman(scores, [g.record.review_score for g in scored]),
        spearman_metacritic=(
            len(with_metacritic),
            spearman(
                [g.score for g in with_metacritic],
                [float(g.record.metacritic or 0) for g in with_metacritic],
            )
            if len(with_metacritic) > 2
            else None,
        ),
        spearman_hours_per_usd=spearman(
            scores,
            [g.inputs.length_hours / max(g.record.price_usd, 0.01) for g in scored],
        ),
        unattended_in_top_100=sum(1 for g in scored[:100] if g.inputs.unattended),
        free_in_top_30=sum(1 for g in scored[:30] if g.record.price_usd == 0),
        landmarks=[
            Landmark(
                appid, name, before, rank_of.get(appid), by_appid.get(appid), refused.get(appid)
            )
            for appid, name, before in LANDMARKS
        ],
    )


def _pct(count: int, total: int) -> str:
    return f"{100 * count / total:.1f}%" if total else "-"


def _num(x: float | None, fmt: str = ".1f") -> str:
    return "-" if x is None else format(x, fmt)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _game_table(games: Sequence[ScoredGame], first_rank: int) -> list[str]:
    lines = [
        "| # | name | appid | price | reviews (n) | hours (source) | finish rate | score "
        "| tier | genre |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for i, g in enumerate(games):
        r = g.record
        source = "est." if r.length_source == "playtime_estimate" else "HLTB"
        lines.append(
            f"| {first_rank + i} | {_cell(r.name)} | {r.appid} | ${r.price_usd:.2f} "
            f"| {r.review_score:.3f} ({r.review_count:,}) | {g.inputs.length_hours:.1f} "
            f"({source}) | {_num(r.finish_rate, '.2f')} | {g.score:.1f} | {g.tier} | {g.genre} |"
        )
    return lines


def _landmark_row(mark: Landmark, n: int) -> str:
    before = mark.before or "-"
    if mark.game is None or mark.rank is None:
        why = f"not rated: `{mark.not_rated}`" if mark.not_rated else "unknown to every source"
        return f"| {_cell(mark.name)} | {before} | {why} | - | - | - | - |"
    g, r = mark.game, mark.game.record
    return (
        f"| {_cell(mark.name)} | {before} | #{mark.rank:,} of {n:,} | {g.bang_score} {g.tier} "
        f"| ${r.price_usd:.2f} | {g.inputs.length_hours:.1f} h ({r.length_source}) "
        f"| {_num(g.worth_it_at_usd, '.2f')} |"
    )


def _report_lines(report: IngestReport | None) -> list[str]:
    if report is None:
        return []
    years = sorted(report.years.items(), key=lambda kv: kv[0] or 0)
    return [
        "## The catalog",
        "",
        f"{report.apps:,} known apps; {report.rated:,} rated. Not rated, per rule (the first "
        "rule that refuses an app; its detail answers 404 `game_not_rated` with this `reason`):",
        "",
        "| reason | apps |",
        "|---|---:|",
        *[f"| {k} | {v:,} |" for k, v in report.dropped.most_common()],
        "",
        "Length source of the rated games, and the length cross-check (`ingest/checks.py`):",
        "",
        "| | games |",
        "|---|---:|",
        *[f"| length_source {k} | {v:,} |" for k, v in report.length_sources.most_common()],
        *[f"| check {k} | {v:,} |" for k, v in report.checks.most_common()],
        f"| early-window reviews known | {report.early_window:,} |",
        "",
        "Rated games per release year:",
        "",
        "| year | games |",
        "|---|---:|",
        *[f"| {k or 'unknown'} | {v:,} |" for k, v in years],
        "",
    ]


def render_report(
    scored: Sequence[ScoredGame],
    summary: Summary,
    *,
    origin: str,
    generated: dt.date,
    report: IngestReport | None = None,
) -> str:
    """Given the scored catalog in API order, its summary, the catalog's origin, the date of
    the run and the ingest report (or None), return CALIBRATION.md as Markdown text."""
    n = summary.games
    tc, gc = summary.tier_counts, summary.genre_counts
    q1, q2, q3 = summary.score_quartiles
    meta_n, meta_rho = summary.spearman_metacritic
    lines = [
        "# Calibration of the bang_score (internal)",
        "",
        "Internal to the team: the formula and these constants are private "
        "(docs/API.md#the-score).",
        "Generated by `.venv/bin/python -m bangscore.scoring.calibrate` on "
        f"{generated.isoformat()} from the rated catalog of the {origin}: **{n:,} games**, "
        f"score version `{value.SCORE_VERSION}`. The formula and the meaning of every "
        "constant are in the docstring and comments of `scoring/value.py`.",
        "",
        *_report_lines(report),
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
        "## Genres",
        "",
        "The median HowLongToBeat main story per genre is what `GENRE_NORM_HOURS` judges length "
        "against (floored at `MIN_NORM_HOURS`).",
        "",
        "| genre | games | share | median main story |",
        "|---|---:|---:|---:|",
        *[
            f"| {g} | {gc[g]:,} | {_pct(gc[g], n)} | {_num(summary.genre_median_hours[g])} h |"
            for g in GENRES
        ],
        "",
        "## Landmarks: where known games landed, before (score version 1) and now",
        "",
        "| game | version 1 | rank now | score | price | length | worth it up to |",
        "|---|---|---|---|---:|---|---:|",
        *[_landmark_row(mark, n) for mark in summary.landmarks],
        "",
        f"Idle, clicker or incremental games in the top 100: {summary.unattended_in_top_100} "
        f"(version 1: the top 2). Free games in the top 30: {summary.free_in_top_30} "
        "(version 1: 10).",
        "",
        f"## Top {LIST_LENGTH}",
        "",
        *_game_table(scored[:LIST_LENGTH], 1),
        "",
        f"## Bottom {LIST_LENGTH}",
        "",
        *_game_table(scored[-LIST_LENGTH:], n - min(LIST_LENGTH, n) + 1),
        "",
        f"## Top {GENRE_LIST_LENGTH} per genre",
        "",
    ]
    for genre in GENRES:
        best = [g for g in scored if g.genre == genre][:GENRE_LIST_LENGTH]
        names = "; ".join(f"{_cell(g.record.name)} ({g.bang_score})" for g in best)
        lines.append(f"- **{genre}**: {names or '-'}")
    lines += [
        "",
        "## Why we believe the ranking",
        "",
        "- Reviews lead: the score never exceeds the review-quality ceiling, and price against "
        "length only moves a game down within it. The score never rises with price and never "
        "falls with review score, length, replay depth or finish rate: property tests in "
        "`tests/scoring/test_value.py` check this on arbitrary inputs, not only on the catalog.",
        f"- Rank correlation (Spearman) of the score with the review score: "
        f"{summary.spearman_review_score:.2f}; with main-story hours per dollar: "
        f"{summary.spearman_hours_per_usd:.2f}; with the critics' metacritic score "
        f"({meta_n:,} games have one): {_num(meta_rho, '.2f')}.",
        "- Median score by price band (every price up to the floor, "
        f"${value.PRICE_FLOOR_USD:.2f}, counts as the floor, so free games are not best by "
        "price alone):",
        "",
        "| price band | games | median score |",
        "|---|---:|---:|",
        *[
            f"| {band} | {count:,} | {_num(med)} |"
            for band, (count, med) in summary.median_by_price_band.items()
        ],
        "",
        f"- Finish rate known (estimated) for {summary.finish_rate_known:,} games "
        f"({_pct(summary.finish_rate_known, n)}); it is a bonus, never a requirement.",
        "",
        "## Known weaknesses",
        "",
        "- Finish rate is an estimate (share of players whose playtime reaches the main-story "
        "length under a log-normal fit of owners' or, failing that, reviewers' playtime), not "
        "an observed completion statistic. Reviewers play longer than owners, so the second "
        "source overstates it.",
        "- Lengths estimated from reviewers' playtime (`length_source` `playtime_estimate`) "
        "are 0.7 x the positive reviewers' median playtime, capped at 30 h and discounted in "
        "the score; for games played in long sessions of idle time they can still be high.",
        "- Prices: the July 2026 US price list covers appids up to ~1,019,000 only; newer "
        "games take SteamSpy's January 2025 or the October 2024 catalogue's price (a sale "
        "price that old is replaced by the list price). Games released in 2025-2026 with no "
        "US price in any dump are not rated (`no_usd_price`).",
        "- Review counts of games with no full total (released after January 2025) are the "
        "recent sample's count, a lower bound, listed in `estimated` as `review_count`.",
        f"- Genre: {gc['other']:,} games ({_pct(gc['other'], n)}) are `other`; the one-genre "
        "mapping walks rules in a fixed order, so a game's most-voted tag does not always "
        "decide (Undertale is filed under narrative for its 'Choices Matter' tag, not RPG).",
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
    from bangscore.ingest.catalog import load_bundled_catalog

    parser = argparse.ArgumentParser(
        prog="python -m bangscore.scoring.calibrate", description=__doc__
    )
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--out-dir", type=Path, default=PACKAGE_DIR)
    parser.add_argument("--progress", action="store_true", help="show progress bars")
    args = parser.parse_args(argv)
    catalog, report = load_bundled_catalog(args.data_dir, progress=args.progress)
    scored = score_catalog(catalog.games, progress=args.progress)
    summary = summarize(scored, catalog.not_rated)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    plot_histogram(scored, args.out_dir / HISTOGRAM_NAME)
    text = render_report(
        scored, summary, origin=catalog.origin, generated=catalog.created_at.date(), report=report
    )
    (args.out_dir / REPORT_NAME).write_text(text, encoding="utf-8")
    counts = ", ".join(f"{t} {c}" for t, c in summary.tier_counts.items())
    print(f"scored {summary.games} games: {counts}")
    print(f"wrote {args.out_dir / REPORT_NAME} and {args.out_dir / HISTOGRAM_NAME}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
