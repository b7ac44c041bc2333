"""The report's curves and pictures: the review-score curve per genre (:func:`curve_lines`),
the top 100's shares against score version 3.0 and the histogram of bang_score
(:func:`plot_histogram`, matplotlib: a development dependency, imported when drawing)."""

from __future__ import annotations

import os
import statistics
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bangscore.scoring import tiers, value
from bangscore.scoring.calibration.bands import BEFORE_BANDS, band_rows, check_lines
from bangscore.scoring.genres import GENRES
from bangscore.scoring.pipeline import ScoredGame
from bangscore.scoring.tiers import TIERS

if TYPE_CHECKING:
    pass


# The same row under score version 3.0 (20 imaginary reviews at 0.70, hand-set genre hours),
# measured on the same bundled catalogue with the code of main at 626d466.
TOP_100_BEFORE = (
    "| score version 3.0 | 21 | 9,800 | rpg 1, shooter 7, strategy 9, narrative 30, roguelike 10, "
    "multiplayer 3, indie_short 0, action 21, other 19 |"
)
TIER_COLOURS = {
    "banger": "#2e7d32",
    "worth_it": "#7cb342",
    "fair": "#fbc02d",
    "wait_for_sale": "#fb8c00",
    "skip": "#c62828",
}


def curve_lines(
    rows: Sequence[tuple[ScoredGame, dict[str, Any]]], offset: float = 0.0
) -> list[str]:
    """Given the scored games in list order with their buyer fields, return the section on how
    the quality curve is set (score version 6.0) with tiers and verdicts by review band and
    count, before (:data:`.bands.BEFORE_BANDS`) and now, and issue 53's checks."""
    knots = ", ".join(f"{x:.0%} -> {y:.3f}" for x, y in value.QUALITY_KNOTS)
    head = (
        "| | games | banger | worth_it | fair | skip | buy_now | wait_for_sale | skip |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    )
    return [
        "## The quality curve (score version 6.0, issue 53)",
        "",
        f"Knots (shrunk share -> quality): {knots}. Round 6 fitted the lower knots to "
        "SteamBangers' 13 published scores, 12 of them free or $1-3 games, which pulled every "
        "80-90% game down (80% -> 0.54 of the ceiling). The levels now follow the storefront's "
        'labels over the whole catalogue: under 70% ("Mixed" and below) the quality stays '
        "under 0.645, so no depth or price makes a game worth it; at 80% of a firm count "
        '("Very Positive", shrunk to 79.9%) it is set at the least that makes 95% of the '
        "paid Very Positive games with a measured 4 h+ worth it at the lower of their "
        "historical low and a quarter of list (the 95th percentile of the quality they need "
        "at their depth and that price is 0.72, measured on these dumps); 90% and up keep "
        "round 6's knots, so its top (acclaimed full-price bangers) stays. SteamBangers' scores "
        "are now only a check of order and band (above).",
        "",
        f"A thin sample (under {value.FIRM_REVIEWS:,.0f} reviews) weighs "
        f"{value.THIN_REVIEWS:g} more imaginary reviews at the catalogue's mean: the least "
        "weight, in steps of 10, under which no such game scores at or above the 100th game "
        "with a firm count (scoring/calibration/prior.py). An adult game's reviewers opted in "
        "to see it "
        "(the storefront hides adult games by default): its prior weighs "
        f"{value.ADULT_REVIEWS:g} more imaginary reviews, the least weight, in steps of 10, "
        "that leaves at most 5 adult games in the top 100 (5.0: 11; reading their shares at "
        "their percentile among adult games was tried and moved none: at the top, adult games' "
        "players review no more kindly than their genre's). A share known only from "
        "SteamSpy's January 2025 dump is lowered by the median difference to the 2026 "
        "storefront share on the games both hold with 1,000+ reviews "
        f"({100 * offset:.2f} points on these dumps; "
        f"{sum('review_score' in g.record.estimated for g, _ in rows):,} rated games; "
        "ingest/resolve/reviews.py). Where the recent sample (up to 1,000 reviews) and the "
        "lifetime share differ by 10 points or more on 200+ recent reviews, the score reads "
        "the recent share (a game under 70% lifetime at most as 69.99%).",
        "",
        "Tiers and verdicts by review band and by review count, score version 5.0 (before; "
        "measured 2 Dec 2026 00:59 UTC on the same dumps, load average 7.0, 2 cores shared):",
        "",
        *head,
        *BEFORE_BANDS,
        "",
        f"Score version {value.SCORE_VERSION} (now; this run, load average "
        f"{os.getloadavg()[0]:.1f}):",
        "",
        *head,
        *band_rows(rows),
        "",
        *check_lines(rows),
        "",
    ]


def _share_line(games: Sequence[ScoredGame]) -> str:
    counts = Counter(g.genre for g in games)
    return ", ".join(f"{genre} {counts[genre]}" for genre in GENRES)


def prior_lines(scored: Sequence[ScoredGame]) -> list[str]:
    """The review prior, its effect on review counts in the top 100, and each genre's share of
    the top 100 now and under score version 3.0 (:data:`TOP_100_BEFORE`)."""
    top = scored[:100]
    lines = [
        "## Review evidence",
        "",
        f"The review score is shrunk toward the catalogue's mean ({value.PRIOR_REVIEW_SCORE:.3f}) "
        f"with {value.PRIOR_REVIEWS:g} imaginary reviews (`PRIOR_REVIEWS`), more below "
        f"{value.FIRM_REVIEWS:,.0f} reviews (`FIRM_REVIEWS`): 97% of 300 reviews "
        f"counts as {value.shrunk_review_score(0.97, 300):.1%}, 95% of 30,000 as "
        f"{value.shrunk_review_score(0.95, 30_000):.1%}. A count known only as a lower bound "
        '(a capped sample, "1,000+") counts as that bound.',
        "",
        "| top 100 | games under 1,000 reviews | median reviews | genres |",
        "|---|---:|---:|---|",
        f"| now | {sum(g.record.review_count < 1000 for g in top)} "
        f"| {statistics.median([g.record.review_count for g in top]) if top else 0:,.0f} "
        f"| {_share_line(top)} |",
    ]
    return [*lines, TOP_100_BEFORE, ""]


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
