"""Regenerate scoring/CALIBRATION.md and scoring/score_histogram.png from a real run.

Usage: ``.venv/bin/python -m bench.calibrate [--data-dir data] [--out-dir scoring]``.

Loads the catalog of the bundled dumps (:func:`ingest.catalog.load_bundled_catalog`), derives
the figures the model reads from it (:func:`derive_norms`: each genre's normal length and the
catalogue's mean review score) into ``scoring/genre_norms.json``, scores it with the one pipeline
(:func:`scoring.pipeline.score_catalog`) and writes the internal calibration report, which
repeats those figures (a test keeps them equal): the catalog's drop counts and years, score
histogram with the tier boundaries, tiers, genres, landmarks before and after, top and bottom
25, each genre's top 10, and the evidence for (and against) the ranking. The pure steps
(:func:`summarize`, :func:`render_report`) return values; :func:`main` does the I/O.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import importlib
import json
import os
import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bangscore.build.buyer import buyer_fields
from bangscore.scoring import tiers, value
from bangscore.scoring.genres import GENRES, genre_for
from bangscore.scoring.pipeline import ScoredGame, score_catalog
from bangscore.scoring.play import OPEN_ENDED_NAMES, is_open_ended, is_unattended
from bangscore.scoring.records import GameRecord, NotRated
from bangscore.scoring.tiers import TIERS
from bench.bands import BEFORE_BANDS, band_rows, check_lines
from bench.prior import weights
from bench.ranks import spearman
from bench.targets import read_anchors, target_lines

if TYPE_CHECKING:
    from bangscore.ingest.catalog import IngestReport

# A tool of the source checkout: it reads data/ and writes beside the model in scoring/.
REPO_DIR = Path(__file__).resolve().parent.parent
PACKAGE_DIR = REPO_DIR / "scoring"
DEFAULT_DATA_DIR = REPO_DIR / "data"
REPORT_NAME = "CALIBRATION.md"
NORMS_NAME = value.NORMS_FILE.name
# A genre's normal length and fair price are the medians over its established games: at least
# ESTABLISHED_REVIEWS reviews, WELL_REVIEWED_SHARE positive, a verified length. What players of
# the genre know and pay, not what its thousands of small releases are: the median narrative
# game of the whole catalogue lasts 3.2 h, the established one 4.8 h; the median rpg 11.3 h,
# the established one 19.2 h. Idle games and tools (unattended) are left out.
WELL_REVIEWED_SHARE = 0.80
ESTABLISHED_REVIEWS = 1000
NORMS_RULE = (
    "per genre, over its rated games with at least 1,000 reviews, 80% positive, a price and a "
    "verified length (HowLongToBeat main story, or how long players play a multiplayer-first "
    "game; idle games and tools left out): the median length, the median list price, and the "
    "median list price per hour of that length (an open-ended game's hours past 1.5 times the "
    "genre's median length counted as replay depth, as the model counts them); per genre and "
    "over all, the 1st to 99th percentiles of the review score of its rated games with at least "
    "1,000 reviews; the mean review score of every rated game (bench/calibrate.py: derive_norms)"
)
# The review-score percentiles (how kindly a genre's players review) are taken over games with
# at least this many reviews: enough for the share itself to be firm.
CURVE_REVIEWS = 1000
NORMS_HEADING = "## Genre norms (read by the model)"
# The same row under score version 3.0 (20 imaginary reviews at 0.70, hand-set genre hours),
# measured on the same bundled catalogue with the code of main at 626d466.
TOP_100_BEFORE = (
    "| score version 3.0 | 21 | 9,800 | rpg 1, shooter 7, strategy 9, narrative 30, roguelike 10, "
    "multiplayer 3, indie_short 0, action 21, other 19 |"
)
HISTOGRAM_NAME = "score_histogram.png"
LIST_LENGTH = 25
GENRE_LIST_LENGTH = 10

# Games a player knows, old and new, long and short, cheap and dear, to see where the ranking
# puts them, and the games the review of score version 2.0 found misplaced. ``v1`` is where
# score version 1 put them (the issue that led to version 2), ``v2_0`` where version 2.0 did on
# these dumps (rank among its 28,585 rated games, score, tier); "" when not reported.
LANDMARKS: tuple[tuple[int, str, str, str], ...] = (
    (400, "Portal", "63 fair at $1.99", "#1,616, 80 banger"),
    (1055540, "A Short Hike", "55 fair", "#1,219, 81 banger"),
    (504230, "Celeste", "", "#2,402, 78 worth_it"),
    (638230, "Journey", "56 fair", "#871, 83 banger"),
    (501300, "What Remains of Edith Finch", "58 fair", "#1,068, 82 banger"),
    (1147690, "NGU IDLE", "#1 (free, 730 h)", "#3,221, 76 worth_it"),
    (1454400, "Cookie Clicker", "#2", "#4,105, 74 worth_it"),
    (1468260, "Leaf Blower Revolution - Idle Game", "top 10", "#3,760, 74 worth_it"),
    (1263850, "Football Manager 2021", "#3 (delisted, shown free)", "not rated: `delisted`"),
    (1569040, "Football Manager 2022", "top 10 (delisted)", "not rated: `delisted`"),
    (1086940, "Baldur's Gate 3", "fair, 23 h main story", "#4,123, 73 worth_it"),
    (2379780, "Balatro", "not in the catalog", "#334, 86 banger"),
    (1145350, "Hades II", "not in the catalog", "#663, 84 banger"),
    (553850, "HELLDIVERS 2", "not in the catalog", "#16,204, 50 fair"),
    (1623730, "Palworld", "not in the catalog", "#1,678, 80 banger"),
    (2358720, "Black Myth: Wukong", "not in the catalog", "#7,017, 68 worth_it"),
    (1363080, "Manor Lords", "not in the catalog", "#13,441, 55 fair"),
    (1145360, "Hades", "", "#1,145, 82 banger"),
    (105600, "Terraria", "", "#10, 93 banger"),
    (413150, "Stardew Valley", "", "#79, 90 banger"),
    (292030, "The Witcher 3: Wild Hunt", "", "#2,766, 77 worth_it"),
    (1245620, "ELDEN RING", "", "#4,823, 72 worth_it"),
    (367520, "Hollow Knight", "", "#193, 88 banger"),
    (646570, "Slay the Spire", "", "#1,040, 82 banger"),
    (620, "Portal 2", "", "#297, 87 banger"),
    (1091500, "Cyberpunk 2077", "", "#14,759, 53 fair"),
    (570, "Dota 2", "", "#6,482, 69 worth_it"),
    (1794680, "Vampire Survivors", "", "#95, 89 banger"),
    (391540, "Undertale", "", "#122, 89 banger (narrative)"),
    (824270, "KovaaK's (aim trainer)", "", "#21, 92 banger"),
    (1369320, "Virtual Cottage (focus app)", "", "#6, 93 banger"),
    (22380, "Fallout: New Vegas", "", "#29, 91 banger"),
    (22490, "Fallout: New Vegas (regional copy)", "", "#8, 93 banger"),
    (1661690, "我没K (estimated length)", "", "#28, 91 banger"),
    (2631960, "14 Minesweeper Variants 2 (estimated length)", "", "#30, 91 banger"),
    (1706090, "Bean and Nothingness (estimated length)", "", "#44, 91 banger"),
    (1958340, "Cube Chaos (estimated length)", "", "#48, 90 banger"),
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
class Landmark:
    """Where one landmark game landed: its rank (1-based) and scored game, or why it is not
    rated, or neither (unknown to every source); ``v1`` and ``v2_0`` where earlier score
    versions put it."""

    appid: int
    name: str
    v1: str
    v2_0: str
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
    estimate_check: list[tuple[str, int, float, float]]
    estimated_in_top_50: int
    tags_reordered: int


# Bands of an estimate over the genre's normal length, for the check of estimated lengths.
ESTIMATE_BANDS: tuple[tuple[str, float, float], ...] = (
    ("under 0.5", 0.0, 0.5),
    ("0.5-1", 0.5, 1.0),
    ("1-2", 1.0, 2.0),
    ("2-4", 2.0, 4.0),
    ("4-8", 4.0, 8.0),
    ("8 or more", 8.0, float("inf")),
)
# What score version 2.0 counted an estimate for: 80% of it, whatever its size.
ESTIMATE_FACTOR_2_0 = 0.8


def estimate_check(scored: Sequence[ScoredGame]) -> list[tuple[str, int, float, float]]:
    """Given the scored catalog, return per band of :data:`ESTIMATE_BANDS` (the playtime
    estimate the games would have, over their genre's normal length): the band, the number of
    games with a HowLongToBeat length and enough positive reviewers' playtime (idle games and
    tools left out), and the share of them whose measured main story is shorter than what the
    estimate counts for, now and in score version 2.0. A share near 25% means the estimate
    counts as the lower quartile of measured stories, as :mod:`scoring.value` intends."""
    from bangscore.ingest.resolve.checks import PLAYTIME_TO_MAIN

    rows: list[tuple[float, bool, bool]] = []
    for g in scored:
        r = g.record
        if r.length_source != "hltb" or not r.positive_reviewer_hours or g.inputs.unattended:
            continue
        assert r.main_story_hours is not None
        estimate = PLAYTIME_TO_MAIN * r.positive_reviewer_hours
        rows.append(
            (
                estimate / value.norm_hours(g.genre),
                r.main_story_hours < value.estimated_hours(estimate, g.genre),
                r.main_story_hours < ESTIMATE_FACTOR_2_0 * estimate,
            )
        )
    out = []
    for label, low, high in ESTIMATE_BANDS:
        band = [(now, before) for x, now, before in rows if low <= x < high]
        if band:
            n = len(band)
            out.append((label, n, sum(now for now, _ in band) / n, sum(b for _, b in band) / n))
    return out


def _median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


@dataclass(frozen=True, slots=True)
class Norms:
    """What the model reads from the catalogue: per genre its normal length in hours, its median
    list price and its typical list price per verified hour in US dollars (1, 2 and 2 decimals)
    and how many games they are the medians of; per genre and over ``all`` the 99 percentiles
    of the review score (4 decimals); and the mean review score of the rated games (3
    decimals), the prior the review score is shrunk toward."""

    hours: dict[str, float]
    prices: dict[str, float]
    usd_per_hour: dict[str, float]
    games: dict[str, int]
    review_curves: dict[str, list[float]]
    review_score_mean: float
    thin_reviews: float = 0.0
    adult_reviews: float = 0.0

    def to_json(self) -> dict[str, object]:
        """Return the norms file's JSON object (``scoring/genre_norms.json``)."""
        return {
            "rule": NORMS_RULE,
            "genres": {
                g: {
                    "hours": self.hours[g],
                    "price_usd": self.prices[g],
                    "usd_per_hour": self.usd_per_hour[g],
                    "games": self.games[g],
                }
                for g in GENRES
            },
            "review_score_mean": self.review_score_mean,
            "thin_reviews": self.thin_reviews,
            "adult_reviews": self.adult_reviews,
            "review_share_quantiles": self.review_curves,
        }


def _is_established(record: GameRecord) -> bool:
    """Whether a record is one of the games a genre's norms are the medians of: a verified
    length (HowLongToBeat, or how long players play a multiplayer-first game), at least
    :data:`ESTABLISHED_REVIEWS` reviews with :data:`WELL_REVIEWED_SHARE` positive, a price, and
    not an idle game or a tool."""
    return (
        record.length_source in ("hltb", "playtime")
        and record.main_story_hours is not None
        and record.review_count >= ESTABLISHED_REVIEWS
        and record.review_score >= WELL_REVIEWED_SHARE
        and record.list_price_usd > 0
        and not is_unattended(record.tags)
    )


def _genre(record: GameRecord) -> str:
    return genre_for(
        record.storefront_genres,
        record.tags,
        record.main_story_hours,
        fallback_genres=record.play_length_genres,
        categories=record.categories,
    )


def _content_hours(record: GameRecord, norm: float) -> float:
    """Given an established record and its genre's median length, return the hours its price
    is set against: how long players play (at most the model's cap) for a multiplayer-first
    game, an open-ended game's hours past ``OPEN_ENDED_NORMS`` x the norm counted as replay
    depth, else the main story."""
    assert record.main_story_hours is not None
    hours = record.main_story_hours
    if record.length_source == "playtime":
        return min(hours, value.PLAYED_CAP_HOURS)
    if is_open_ended(record.tags):
        return value.open_ended_hours(hours, max(norm, value.MIN_NORM_HOURS))
    return hours


def _percentiles(shares: Sequence[float]) -> list[float]:
    return [round(x, 4) for x in statistics.quantiles(shares, n=100, method="inclusive")]


def derive_norms(records: Sequence[GameRecord]) -> Norms:
    """Given the rated catalog's records (at least two), return its :class:`Norms`: for each
    genre of :data:`GENRES` (by :func:`scoring.genres.genre_for`) the median length, the median
    list price and the median list price per hour of its established games
    (:func:`_is_established`), the review-score percentiles of each genre's games with at least
    :data:`CURVE_REVIEWS` reviews (and of all of them), and the mean review score of all. A
    genre with no such game gets the figures of all genres' games. Reads only the records,
    never a score: the norms do not depend on themselves."""
    found: dict[str, list[GameRecord]] = {g: [] for g in GENRES}
    shares: dict[str, list[float]] = {g: [] for g in GENRES}
    for r in records:
        if r.review_count >= CURVE_REVIEWS or _is_established(r):
            genre = _genre(r)
            if r.review_count >= CURVE_REVIEWS:
                shares[genre].append(r.review_score)
            if _is_established(r):
                found[genre].append(r)
    everything = [r for rs in found.values() for r in rs]
    every_share = [x for xs in shares.values() for x in xs] or [0.5, 1.0]
    hours: dict[str, float] = {}
    per_hour: dict[str, float] = {}
    for g in GENRES:
        own = found[g] or everything
        hours[g] = round(statistics.median(r.main_story_hours or 0.0 for r in own), 1)
        per_hour[g] = round(
            statistics.median(r.list_price_usd / _content_hours(r, hours[g]) for r in own), 2
        )
    return Norms(
        hours=hours,
        prices={
            g: round(statistics.median(r.list_price_usd for r in found[g] or everything), 2)
            for g in GENRES
        },
        usd_per_hour=per_hour,
        games={g: len(found[g]) for g in GENRES},
        review_curves={
            "all": _percentiles(every_share),
            **{g: _percentiles(shares[g] if len(shares[g]) > 1 else every_share) for g in GENRES},
        },
        review_score_mean=round(statistics.fmean(r.review_score for r in records), 3),
    )


def write_norms(norms: Norms, path: Path) -> bool:
    """Given the norms and the model's norms file, write them there (JSON, sorted as
    :data:`GENRES`); return True when the file's content changed."""
    text = json.dumps(norms.to_json(), indent=2, ensure_ascii=False) + "\n"
    old = path.read_text(encoding="utf-8") if path.exists() else None
    if old == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def model_lines() -> list[str]:
    """Return CALIBRATION.md's account of score version 5.0's rules and constants, from the
    model's own values (so the text cannot drift from the code)."""
    knots = ", ".join(f"{x:.0%} -> {y:.2f}" for x, y in value.QUALITY_KNOTS)
    open_tags = ", ".join(sorted(OPEN_ENDED_NAMES))
    return [
        "## The model (score version 5.0)",
        "",
        "Reviews set the ceiling and price only docks (SteamBangers' published rule). "
        "`score = min(cap, ceiling * dock)`:",
        "",
        f"- **ceiling** = 100 x quality x min(depth, limit). Quality: the review share, read "
        f"above {value.CALIBRATED_FROM:.0%} at its percentile within its genre (the genres' "
        "review-score percentiles below are derived here), shrunk toward the catalogue's mean "
        f"with {value.PRIOR_REVIEWS:g} imaginary reviews (times sqrt({value.FIRM_REVIEWS:,.0f} "
        f"/ n) below {value.FIRM_REVIEWS:,.0f} reviews), then stretched through the knots "
        f"{knots}. The lower knots are set so that SteamBangers' published scores of free and "
        "cheap games (a free 93% game is 66 there, a free 70% one 24) sit within a few points "
        "of ours; the upper ones so that a 90% game with a full ceiling is a banger (80).",
        f"- depth = {value.LIMITED_SHARE} + {1 - value.LIMITED_SHARE:.2f} x min(1, h / "
        f"({value.DEPTH_NORMS:g} x N))^{value.DEPTH_EXPONENT:g} for real hours h and the "
        f"genre's normal length N; {value.LIMITED_SHARE} for a game under "
        f"{value.SHORT_HOURS:g} h. limit = {value.LIMITED_SHARE} for a free or unattended "
        "game, else 1.",
        "- **dock** = 1 at or below the game's worth (the genre's USD per hour below x real "
        f"hours), (worth / price)^{value.DOCK_EXPONENT:g} above it.",
        f"- **cap** = {value.ESTIMATED_MAX_SCORE:g} for a length estimated from reviewers' "
        "playtime, else 100.",
        f"- Open-ended games (one of these among the first five tags: {open_tags}): hours "
        f"past {value.OPEN_ENDED_NORMS:g} x N count {value.REPLAY_SHARE:.0%}, at most "
        f"{value.REPLAY_SHARE * value.REPLAY_CAP_HOURS:g} h (Farming Simulator 22's 177 h "
        "count as about 40).",
        "",
    ]


def norms_lines(norms: Norms) -> list[str]:
    """Given the norms, return CALIBRATION.md's section of them: a table a test reads back and
    compares with what the model reads (``scoring/genre_norms.json``)."""
    return [
        NORMS_HEADING,
        "",
        "Derived from the bundled data by `make calibrate` (`bench.calibrate.derive_norms`) and "
        f"written to `scoring/{NORMS_NAME}`, which `scoring/value.py` reads: no genre's hours "
        f"or price are set by hand. Rule: {NORMS_RULE}. The model floors the length at "
        f"{value.MIN_NORM_HOURS:g} h (`MIN_NORM_HOURS`).",
        "",
        "| genre | normal length (h) | median price (USD) | USD per hour | games |",
        "|---|---:|---:|---:|---:|",
        *[
            f"| {g} | {norms.hours[g]:.1f} | {norms.prices[g]:.2f} | "
            f"{norms.usd_per_hour[g]:.2f} | {norms.games[g]:,} |"
            for g in GENRES
        ],
        "",
        f"Mean review score of the rated games (the prior's mean): {norms.review_score_mean:.3f}",
        "",
    ]


def read_norms_section(text: str) -> tuple[dict[str, tuple[float, float, float]], float]:
    """Given CALIBRATION.md's text, return the genre norms its table gives ({genre: (hours,
    median price, USD per hour)}) and the prior's mean; ValueError when the section is
    missing."""
    if NORMS_HEADING not in text:
        raise ValueError("no genre norms section")
    section = text.split(NORMS_HEADING, 1)[1].split("\n## ", 1)[0]
    hours: dict[str, tuple[float, float, float]] = {}
    mean: float | None = None
    for row in section.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] in GENRES:
            hours[cells[0]] = (float(cells[1]), float(cells[2]), float(cells[3]))
        if row.startswith("Mean review score"):
            mean = float(row.rsplit(" ", 1)[1])
    if mean is None:
        raise ValueError("no prior mean in the genre norms section")
    return hours, mean


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
                appid, name, v1, v2_0, rank_of.get(appid), by_appid.get(appid), refused.get(appid)
            )
            for appid, name, v1, v2_0 in LANDMARKS
        ],
        estimate_check=estimate_check(scored),
        estimated_in_top_50=sum(
            1 for g in scored[:50] if g.record.length_source == "playtime_estimate"
        ),
        tags_reordered=sum(1 for g in scored if "tags" in g.record.estimated),
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
    before = f"{mark.v1 or '-'} | {mark.v2_0 or '-'}"
    if mark.game is None or mark.rank is None:
        why = f"not rated: `{mark.not_rated}`" if mark.not_rated else "unknown to every source"
        return f"| {_cell(mark.name)} | {before} | {why} | - | - | - | - |"
    g, r = mark.game, mark.game.record
    return (
        f"| {_cell(mark.name)} | {before} | #{mark.rank:,} of {n:,} | {g.bang_score} {g.tier} "
        f"({g.genre}) | ${r.price_usd:.2f} | {g.inputs.length_hours:.1f} h ({r.length_source}) "
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
        "Length source of the rated games, and the length cross-check "
        "(`ingest/resolve/checks.py`):",
        "",
        "| | games |",
        "|---|---:|",
        *[f"| length_source {k} | {v:,} |" for k, v in report.length_sources.most_common()],
        *[f"| check {k} | {v:,} |" for k, v in report.checks.most_common()],
        f"| early-window reviews known | {report.early_window:,} |",
        "",
        f"Of the `no_usd_price` apps, {report.regional_copies:,} are regional copies of another "
        "listing (`ingest.resolve.checks.regional_copies`: Fallout: New Vegas 22490, Call of Duty: "
        "Modern Warfare 3's 115300), so each game is ranked once; "
        f"{report.zero_not_free:,} are priced $0 only by SteamSpy while the 2024 catalogue says "
        "they are not free to play (`ingest.resolve.checks.zero_is_no_price`: replaced by a later "
        "edition, withdrawn or unreleased), "
        f"{report.zero_not_free_reviewed:,} of them with enough reviews to be rated, which "
        "were shown as free before this check (the original Sleeping Dogs 202170 and Ori and the "
        "Blind Forest 261570).",
        "",
        f"{report.free_flag:,} rated games are priced $0 by a free marker alone (no US price "
        "dump lists them): Steam's own `is_free` flag (the 2024 catalogue, seen on or after "
        "their release: `ingest.resolve.priced.free_price`, dated 2024-10-31), or the "
        "storefront "
        "genre Free to Play of the 2026 record (`free_to_play_price`, dated 2026-07-24).",
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
    norms: Norms | None = None,
    buyer: Sequence[dict[str, Any]] | None = None,
) -> str:
    """Given the scored catalog in API order, its summary, the catalog's origin, the date of
    the run, the ingest report (or None) and the norms derived from it (or None), return
    CALIBRATION.md as Markdown text."""
    n = summary.games
    tc, gc = summary.tier_counts, summary.genre_counts
    q1, q2, q3 = summary.score_quartiles
    meta_n, meta_rho = summary.spearman_metacritic
    lines = [
        "# Calibration of the bang_score (internal)",
        "",
        "Internal to the team: the formula and these constants are private "
        "(docs/API.md#the-score).",
        "Generated by `.venv/bin/python -m bench.calibrate` on "
        f"{generated.isoformat()} from the rated catalog of the {origin}: **{n:,} games**, "
        f"score version `{value.SCORE_VERSION}`. The formula and the meaning of every "
        "constant are in the docstring and comments of `scoring/value.py`.",
        "",
        *_report_lines(report),
        *model_lines(),
        *(norms_lines(norms) if norms is not None else []),
        *target_lines(scored, read_anchors()),
        *(
            curve_lines(
                list(zip(scored, buyer, strict=True)),
                report.older_share_offset if report is not None else 0.0,
            )
            if buyer is not None
            else []
        ),
        *_prior_lines(scored),
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
        "The median HowLongToBeat main story per genre is what `GENRE_NORM_HOURS` judges depth "
        "and open-ended hours against (floored at `MIN_NORM_HOURS`).",
        "",
        "| genre | games | share | median main story |",
        "|---|---:|---:|---:|",
        *[
            f"| {g} | {gc[g]:,} | {_pct(gc[g], n)} | {_num(summary.genre_median_hours[g])} h |"
            for g in GENRES
        ],
        "",
        f"Tags: {summary.tags_reordered:,} rated games have only the 2024 catalogue's "
        "alphabetical tag set; it is put in the order its tags typically hold in ranked lists "
        "of games of the same storefront genres (`ingest/resolve/tags.py`), which recovers the "
        "genre "
        "of 76% of ranked games from their alphabetised tags (70% alphabetical).",
        "",
        "## Landmarks: where known games landed in score versions 1, 2.0 and now",
        "",
        f"Now is score version {value.SCORE_VERSION}.",
        "",
        "| game | version 1 | version 2.0 | rank now | score (genre) | price | length "
        "| worth it up to |",
        "|---|---|---|---|---|---:|---|---:|",
        *[_landmark_row(mark, n) for mark in summary.landmarks],
        "",
        f"Idle or clicker games, tools and ambient apps (unattended) in the top 100: "
        f"{summary.unattended_in_top_100} (version 1: the top 2; version 2.0: KovaaK's and "
        f"Virtual Cottage in the top 25). Games with an estimated length in the top 50: "
        f"{summary.estimated_in_top_50} (version 2.0: 4). Free games in the top 30: "
        f"{summary.free_in_top_30} (version 1: 10).",
        "",
        "## Estimated lengths",
        "",
        "A game without a HowLongToBeat time gets 0.7 x its positive reviewers' median "
        "playtime (at most 30 h, `ingest/resolve/checks.py`), and the score counts that estimate "
        "as "
        "what a measured main story is likely to be at least (`scoring.value.estimated_hours`). "
        "The check, on the rated games that have both a measured length and the playtime the "
        "estimate is made from: the share whose measured main story is *shorter* than what "
        "their estimate would count for. 25% means the estimate counts as the lower quartile "
        "of measured stories; version 2.0 counted 80% of any estimate, which overshot more and "
        "more as the estimate grew past the genre's normal length (reviewers who idle, replay "
        "or leave a game running).",
        "",
        "| estimate / genre's normal length | games | shorter now | shorter in 2.0 |",
        "|---|---:|---:|---:|",
        *[
            f"| {band} | {count:,} | {now:.0%} | {before:.0%} |"
            for band, count, now, before in summary.estimate_check
        ],
        "",
        "(Only lengths that passed the length check are here; the constants were fitted by "
        "quantile regression on every keyed HowLongToBeat time, refused ones included: "
        "`scoring/value.py`.)",
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
        "- Reviews set the ceiling and price only docks: a game priced at or below what its real "
        "hours are worth in its genre scores its ceiling; above it the score falls with the "
        "excess. The score never rises with price and never "
        "falls with review score, length, replay depth or finish rate: property tests in "
        "`tests/scoring/test_value.py` check this on arbitrary inputs, not only on the catalog.",
        f"- Rank correlation (Spearman) of the score with the review score: "
        f"{summary.spearman_review_score:.2f}; with main-story hours per dollar: "
        f"{summary.spearman_hours_per_usd:.2f}; with the critics' metacritic score "
        f"({meta_n:,} games have one): {_num(meta_rho, '.2f')}.",
        "- Median score by price band (being cheaper than a game's worth earns nothing, and a "
        f"free game keeps {value.LIMITED_SHARE:.0%} of its ceiling, so free games are not best "
        "by price alone):",
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
        "count as the lower quartile of measured stories, but a replayable game still gets "
        "its replay depth from the same playtime, as a measured one does: 14 Minesweeper "
        "Variants 2 (81 h median, procedural puzzles) stays near the top 50 on its replay "
        "depth, not on its estimated story.",
        "- Reconstructed tag order (the 2024 catalogue's alphabetical sets) gets about one "
        "genre in four wrong, and can lift a low tag into the play rules' top 10: WEBFISHING "
        "(a social fishing game) counts as idle for its 'Idler' tag.",
        "- Prices: the June-July 2026 US price history prices 82% of the 2019-2026 "
        "catalogue; a release with no US price in any dump is not rated (`no_usd_price`), "
        "unless the storefront's record of 2026-07-24 files it under Free to Play ("
        "priced $0 at that date, source `steam_pics_2026`; Marvel Rivals, Wuthering "
        "Waves, Delta Force, Where Winds Meet, FragPunk) or the 2024 catalogue flags it "
        "`is_free` ($0 as of 2024-10-31). Deltarune, Pipistrello and the Cursed Yoyo and Dead "
        "as Disco stay `no_usd_price`: no dump prices them, the first two are known only as "
        "unreleased 2024 listings with no reviews, and Dead as Disco is a paid Early Access "
        "game the 2026 price scraper skipped. Apps above appid ~745,000 were "
        "last seen in the Summer Sale 2026 (June 26 - July 3): that sale is over at the "
        "catalogue's as-of time (2026-07-24), so they are scored at their list price.",
        "- Review counts: the largest no-older lower bound wins (the 2026 sample of at most "
        "1,000-3,000 recent reviews of any purchase type, or the least count Steam's review "
        "summary implies), listed in `estimated` as `review_count`; for many small games the "
        "2026 sample outnumbers SteamSpy's January 2025 total.",
        f"- Genre: {gc['other']:,} games ({_pct(gc['other'], n)}) are `other` (simulation, "
        "sandbox, survival crafting, racing, sports, puzzle, management). The one-genre rule "
        "(`scoring/genres.py`) is checked against 200 games labelled by hand and 12 cited cases "
        "(`tests/scoring/genre_labels.csv`); what it misses sits between two genres: co-op "
        "shooters, puzzle adventures with a story, short indie games tagged Action; Slime "
        "Rancher and Aground stay `action` (nothing in their first five tags says life sim or "
        "survival crafting). A genre sets the normal length and price a game is judged "
        "against, and `other` mixes 5-hour puzzles with 100-hour farming sims, so long sims "
        "(Farming Simulator) do well against its norm.",
        "- A full-price acclaimed long game is worth it, rarely a banger: Baldur's Gate 3 and "
        "Elden Ring at $59.99 rank in the top few thousand, not the top 100, which cheaper "
        "well-loved games hold; their genre percentile is about 0.9.",
        "- Tools are found by their players' tags ('Software Training', 'Utilities' in the "
        "top 10); an aim trainer or desktop app without them counts its hours like a game.",
        "",
    ]
    return "\n".join(lines)


def curve_lines(
    rows: Sequence[tuple[ScoredGame, dict[str, Any]]], offset: float = 0.0
) -> list[str]:
    """Given the scored games in list order with their buyer fields, return the section on how
    the quality curve is set (score version 6.0) with tiers and verdicts by review band and
    count, before (:data:`bench.bands.BEFORE_BANDS`) and now, and issue 53's checks."""
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
        "with a firm count (bench/prior.py). An adult game's reviewers opted in to see it "
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


def _prior_lines(scored: Sequence[ScoredGame]) -> list[str]:
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


def main(argv: Sequence[str] | None = None) -> int:
    """Given command-line arguments, load the bundled catalog, score it and write the report
    and histogram; return the exit status (0)."""
    from bangscore.ingest.catalog import load_bundled_catalog

    parser = argparse.ArgumentParser(prog="python -m bench.calibrate", description=__doc__)
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--out-dir", type=Path, default=PACKAGE_DIR)
    parser.add_argument("--progress", action="store_true", help="show progress bars")
    args = parser.parse_args(argv)
    catalog, report = load_bundled_catalog(args.data_dir, progress=args.progress)
    norms = dataclasses.replace(
        derive_norms(catalog.games),
        thin_reviews=value.THIN_REVIEWS,
        adult_reviews=value.ADULT_REVIEWS,
    )
    if write_norms(norms, value.NORMS_FILE):
        # The model read the old figures at import: read the new ones before scoring.
        importlib.reload(value)
    scored = score_catalog(catalog.games, progress=args.progress)
    thin, adult = weights(scored)
    if (thin, adult) != (value.THIN_REVIEWS, value.ADULT_REVIEWS):
        # Only games under 1,000 reviews and adult games move: score again with the weights.
        norms = dataclasses.replace(norms, thin_reviews=thin, adult_reviews=adult)
        write_norms(norms, value.NORMS_FILE)
        importlib.reload(value)
        scored = score_catalog(catalog.games, progress=args.progress)
    summary = summarize(scored, catalog.not_rated)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    plot_histogram(scored, args.out_dir / HISTOGRAM_NAME)
    text = render_report(
        scored,
        summary,
        origin=catalog.origin,
        generated=catalog.created_at.date(),
        report=report,
        norms=norms,
        buyer=buyer_fields(scored, catalog.prices_as_of.date() if catalog.prices_as_of else None),
    )
    (args.out_dir / REPORT_NAME).write_text(text, encoding="utf-8")
    counts = ", ".join(f"{t} {c}" for t, c in summary.tier_counts.items())
    print(f"scored {summary.games} games: {counts}")
    print(f"wrote {args.out_dir / REPORT_NAME} and {args.out_dir / HISTOGRAM_NAME}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
