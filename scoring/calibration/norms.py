"""The figures the model reads from the catalogue (scoring/genre_norms.json): each genre's
normal length, fair price and price per hour over its established games, the review-score
percentiles, the catalogue's mean review score (:func:`derive_norms`), and their section of
scoring/CALIBRATION.md (:func:`norms_lines`, read back by :func:`read_norms_section`).

Written by ``make calibrate`` (:mod:`bangscore.scoring.calibration.run`); the model reads the
JSON file at import (:mod:`bangscore.scoring.value`)."""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from bangscore.scoring import value
from bangscore.scoring.genres import GENRES, genre_for
from bangscore.scoring.play import OPEN_ENDED_NAMES, is_open_ended, is_unattended
from bangscore.scoring.records import GameRecord

if TYPE_CHECKING:
    pass


# A tool of the source checkout: it reads data/ and writes beside the model in scoring/.
REPO_DIR = Path(__file__).resolve().parents[2]
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
    "1,000 reviews; the mean review score of every rated game "
    "(scoring/calibration/norms.py: derive_norms)"
)
# The review-score percentiles (how kindly a genre's players review) are taken over games with
# at least this many reviews: enough for the share itself to be firm.
CURVE_REVIEWS = 1000
NORMS_HEADING = "## Genre norms (read by the model)"


def median_or_none(values: Sequence[float]) -> float | None:
    """Given numbers, return their median, or None for none."""
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
    found, shares = _established_and_shares(records)
    every_share = [x for xs in shares.values() for x in xs] or [0.5, 1.0]
    hours, prices, per_hour = _genre_figures(found)
    return Norms(
        hours=hours,
        prices=prices,
        usd_per_hour=per_hour,
        games={g: len(found[g]) for g in GENRES},
        review_curves={
            "all": _percentiles(every_share),
            **{g: _percentiles(shares[g] if len(shares[g]) > 1 else every_share) for g in GENRES},
        },
        review_score_mean=round(statistics.fmean(r.review_score for r in records), 3),
    )


def _established_and_shares(
    records: Sequence[GameRecord],
) -> tuple[dict[str, list[GameRecord]], dict[str, list[float]]]:
    """Given the rated records, return per genre of :data:`GENRES` its established games'
    records and the review scores of its games with at least :data:`CURVE_REVIEWS` reviews."""
    found: dict[str, list[GameRecord]] = {g: [] for g in GENRES}
    shares: dict[str, list[float]] = {g: [] for g in GENRES}
    for r in records:
        on_curve, established = r.review_count >= CURVE_REVIEWS, _is_established(r)
        if on_curve or established:
            genre = _genre(r)
            if on_curve:
                shares[genre].append(r.review_score)
            if established:
                found[genre].append(r)
    return found, shares


def _genre_figures(
    found: dict[str, list[GameRecord]],
) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """Given each genre's established records, return per genre the median length (hours), the
    median list price and the median list price per hour (USD); a genre with none takes the
    figures of every genre's established games."""
    everything = [r for rs in found.values() for r in rs]
    hours: dict[str, float] = {}
    prices: dict[str, float] = {}
    per_hour: dict[str, float] = {}
    for g in GENRES:
        own = found[g] or everything
        hours[g] = round(statistics.median(r.main_story_hours or 0.0 for r in own), 1)
        prices[g] = round(statistics.median(r.list_price_usd for r in own), 2)
        per_hour[g] = round(
            statistics.median(r.list_price_usd / _content_hours(r, hours[g]) for r in own), 2
        )
    return hours, prices, per_hour


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
        "Derived from the bundled data by `make calibrate` "
        "(`scoring/calibration/norms.py`: `derive_norms`) and "
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
