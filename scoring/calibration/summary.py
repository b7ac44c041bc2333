"""One calibration run's figures over the scored catalogue (:func:`summarize`): tiers,
genres, price bands, rank correlations, the landmark games and the check of estimated lengths
(:func:`estimate_check`)."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bangscore.scoring import value
from bangscore.scoring.calibration.norms import median_or_none
from bangscore.scoring.calibration.ranks import spearman
from bangscore.scoring.genres import GENRES
from bangscore.scoring.pipeline import ScoredGame
from bangscore.scoring.records import NotRated
from bangscore.scoring.tiers import TIERS

if TYPE_CHECKING:
    pass


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


def estimate_check(
    scored: Sequence[ScoredGame], playtime_to_main: float
) -> list[tuple[str, int, float, float]]:
    """Given the scored catalog and the ingest's factor from positive reviewers' median
    playtime to a main story (``PLAYTIME_TO_MAIN``), return per band of
    :data:`ESTIMATE_BANDS` (the playtime estimate the games would have, over their genre's
    normal length): the band, the number of
    games with a HowLongToBeat length and enough positive reviewers' playtime (idle games and
    tools left out), and the share of them whose measured main story is shorter than what the
    estimate counts for, now and in score version 2.0. A share near 25% means the estimate
    counts as the lower quartile of measured stories, as :mod:`scoring.value` intends."""
    rows: list[tuple[float, bool, bool]] = []
    for g in scored:
        r = g.record
        if r.length_source != "hltb" or not r.positive_reviewer_hours or g.inputs.unattended:
            continue
        assert r.main_story_hours is not None
        estimate = playtime_to_main * r.positive_reviewer_hours
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


def summarize(
    scored: Sequence[ScoredGame], not_rated: Sequence[NotRated] = (), *, playtime_to_main: float
) -> Summary:
    """Given the scored catalog in API order (at least 4 games), the known apps that are not
    rated and the ingest's playtime-to-main-story factor (``PLAYTIME_TO_MAIN``), return its
    :class:`Summary`."""
    scores = [g.score for g in scored]
    tier_counts = Counter(g.tier for g in scored)
    genre_counts = Counter(g.genre for g in scored)
    bands = {
        label: [g.score for g in scored if low <= g.record.price_usd <= high]
        for label, low, high in PRICE_BANDS
    }
    quartiles = statistics.quantiles(scores, n=4)
    return Summary(
        games=len(scored),
        tier_counts={t: tier_counts[t] for t in TIERS},
        genre_counts={g: genre_counts[g] for g in GENRES},
        genre_median_hours=_genre_median_hours(scored),
        finish_rate_known=_count(scored, lambda g: g.record.finish_rate is not None),
        free_games=_count(scored, lambda g: g.record.price_usd == 0),
        zero_scores=_count(scored, lambda g: g.bang_score == 0),
        score_quartiles=(quartiles[0], quartiles[1], quartiles[2]),
        median_by_price_band={k: (len(v), median_or_none(v)) for k, v in bands.items()},
        spearman_review_score=spearman(scores, [g.record.review_score for g in scored]),
        spearman_metacritic=_metacritic_rank(scored),
        spearman_hours_per_usd=spearman(
            scores,
            [g.inputs.length_hours / max(g.record.price_usd, 0.01) for g in scored],
        ),
        unattended_in_top_100=_count(scored[:100], lambda g: g.inputs.unattended),
        free_in_top_30=_count(scored[:30], lambda g: g.record.price_usd == 0),
        landmarks=_landmarks(scored, not_rated),
        estimate_check=estimate_check(scored, playtime_to_main),
        estimated_in_top_50=_count(
            scored[:50], lambda g: g.record.length_source == "playtime_estimate"
        ),
        tags_reordered=_count(scored, lambda g: "tags" in g.record.estimated),
    )


def _count(games: Sequence[ScoredGame], holds: Callable[[ScoredGame], bool]) -> int:
    """Given scored games and a test of one, return how many pass it."""
    return sum(1 for g in games if holds(g))


def _genre_median_hours(scored: Sequence[ScoredGame]) -> dict[str, float | None]:
    """Given the scored catalog, return per genre the median length (hours) of its games with
    a HowLongToBeat length (None: none)."""
    measured: dict[str, list[float]] = {genre: [] for genre in GENRES}
    for g in scored:
        if g.record.length_source == "hltb" and g.genre in measured:
            measured[g.genre].append(g.inputs.length_hours)
    return {genre: median_or_none(hours) for genre, hours in measured.items()}


def _metacritic_rank(scored: Sequence[ScoredGame]) -> tuple[int, float | None]:
    """Given the scored catalog, return how many games have a critics' metacritic score and
    Spearman's correlation of their score with it (None under 3 such games)."""
    rated = [g for g in scored if g.record.metacritic is not None]
    if len(rated) <= 2:
        return len(rated), None
    return len(rated), spearman(
        [g.score for g in rated], [float(g.record.metacritic or 0) for g in rated]
    )


def _landmarks(scored: Sequence[ScoredGame], not_rated: Sequence[NotRated]) -> list[Landmark]:
    """Given the scored catalog in API order and the apps not rated, return where each of
    :data:`LANDMARKS` landed."""
    rank_of = {g.record.appid: i + 1 for i, g in enumerate(scored)}
    by_appid = {g.record.appid: g for g in scored}
    refused = {a.appid: a.reason for a in not_rated}
    return [
        Landmark(appid, name, v1, v2_0, rank_of.get(appid), by_appid.get(appid), refused.get(appid))
        for appid, name, v1, v2_0 in LANDMARKS
    ]
