"""The score's round-6 targets (issue 49, docs/API.md#the-score), measured on a scored
catalogue: what ``make calibrate`` writes into CALIBRATION.md, ``make ranking`` prints and
tests/scoring/test_targets.py asserts.

Pure functions of the scored games in list order; :func:`read_anchors` reads SteamBangers'
published scores (``data/anchors/steambangers_scores.csv``, copied from the shared anchors with
its README: their pages, read from stored public copies).
"""

from __future__ import annotations

import csv
import dataclasses
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bangscore.scoring import value
from bangscore.scoring.calibration.ranks import spearman
from bangscore.scoring.pipeline import ScoredGame

ANCHORS_FILE = Path(__file__).resolve().parents[2] / "data" / "anchors" / "steambangers_scores.csv"
# SteamBangers' own tier bands: Banger 73-100, Worth it 52-72, Fair 36-51, Skip 0-35.
ANCHOR_BANDS: tuple[int, ...] = (73, 52, 36)
# Acclaimed full-price games: list price, positive share, review count, verified hours.
ACCLAIMED = (40.0, 0.90, 10_000, 20.0)
# The games the issue names as bangers at their price (appid: name).
NAMED_BANGERS: dict[int, str] = {
    1086940: "Baldur's Gate 3",
    1245620: "ELDEN RING",
    292030: "The Witcher 3: Wild Hunt",
    1174180: "Red Dead Redemption 2",
    1687950: "Persona 5 Royal",
    435150: "Divinity: Original Sin 2",
    814380: "Sekiro: Shadows Die Twice",
}


@dataclass(frozen=True, slots=True)
class Anchor:
    """One SteamBangers page: appid, name and its published BANG Score (0-100)."""

    appid: int
    name: str
    score: int


def read_anchors(path: Path = ANCHORS_FILE) -> list[Anchor]:
    """Given the anchors CSV (columns appid, name, bang_score, ...), return its rows."""
    with path.open(encoding="utf-8", newline="") as handle:
        return [
            Anchor(int(row["appid"]), row["name"], int(row["bang_score"]))
            for row in csv.DictReader(handle)
        ]


def score_at_list_price(game: ScoredGame) -> int:
    """Given a scored game, return its bang_score at its list price (0..100)."""
    return value.bang_score(dataclasses.replace(game.inputs, price_usd=game.record.list_price_usd))


def acclaimed_full_price(games: Sequence[ScoredGame]) -> list[ScoredGame]:
    """Given scored games, return the acclaimed full-price ones (:data:`ACCLAIMED`): list price
    $40+, 90%+ of 10,000+ reviews, a verified (HowLongToBeat) main story of 20+ hours."""
    price, share, reviews, hours = ACCLAIMED
    return [
        g
        for g in games
        if g.record.list_price_usd >= price
        and g.record.review_score >= share
        and g.record.review_count >= reviews
        and g.record.length_source == "hltb"
        and (g.record.main_story_hours or 0.0) >= hours
    ]


def band(score: int) -> int:
    """Given a score (0..100), return SteamBangers' band index: 0 Banger .. 3 Skip."""
    return sum(score < edge for edge in ANCHOR_BANDS)


@dataclass(frozen=True, slots=True)
class AnchorComparison:
    """Our scores against SteamBangers' on the games both rate: the pairs (name, theirs,
    ours), Spearman's rho, the median of ours minus theirs and how many land in the same band
    of SteamBangers' (73/52/36)."""

    pairs: tuple[tuple[str, int, int], ...]
    spearman: float
    median_difference: float
    same_band: int


def compare_anchors(
    games: Sequence[ScoredGame], anchors: Sequence[Anchor]
) -> AnchorComparison | None:
    """Given scored games and SteamBangers' published scores, return the comparison on the
    games both rate; None when fewer than three are (too few to rank)."""
    ours = {g.record.appid: g.bang_score for g in games}
    pairs = tuple((a.name, a.score, ours[a.appid]) for a in anchors if a.appid in ours)
    if len(pairs) < 3:
        return None
    return AnchorComparison(
        pairs=pairs,
        spearman=spearman([t for _, t, _ in pairs], [o for _, _, o in pairs]),
        median_difference=statistics.median(o - t for _, t, o in pairs),
        same_band=sum(band(t) == band(o) for _, t, o in pairs),
    )


def target_lines(games: Sequence[ScoredGame], anchors: Sequence[Anchor]) -> list[str]:
    """Given the scored catalogue in list order and the anchors, return the round-6 targets as
    Markdown lines, each with what was measured."""
    acclaimed = acclaimed_full_price(games)
    bangers = [g for g in acclaimed if score_at_list_price(g) >= 80]
    rank = {g.record.appid: i + 1 for i, g in enumerate(games)}
    top = games[:100]
    farming = [rank[g.record.appid] for g in games if "Farming Simulator" in g.record.name]
    compared = compare_anchors(games, anchors)
    lines = [
        "## Round-6 targets (issue 49)",
        "",
        f"- Acclaimed full-price games (list $40+, 90%+ of 10,000+ reviews, 20+ verified hours): "
        f"{len(bangers)} of {len(acclaimed)} are bangers at list price "
        f"({len(bangers) / max(len(acclaimed), 1):.0%}); not: "
        + _missed_line(acclaimed, bangers)
        + ".",
        "- Named: " + _named_line(games) + ".",
        f"- Top 100: {sum(g.record.list_price_usd >= 30 for g in top)} at a list price of $30+, "
        f"{sum(g.inputs.open_ended and g.inputs.length_hours > 100 for g in top)} open-ended "
        f"over 100 h, {sum(g.genre == 'narrative' for g in top)} narrative, "
        f"{sum(g.genre == 'rpg' for g in top)} rpg, "
        f"{sum(g.record.review_count < 500 for g in top)} with fewer than 500 reviews.",
        f"- Portal 2 #{rank.get(620, 0):,}, Half-Life 2 #{rank.get(220, 0):,}; the best "
        f"Farming Simulator #{min(farming, default=0):,}.",
        f"- Bangers on an estimated length: "
        f"{sum(g.tier == 'banger' and g.inputs.estimated_length for g in games)}.",
    ]
    if compared is not None:
        lines.append(_anchor_line(compared))
    return [*lines, ""]


def _missed_line(acclaimed: Sequence[ScoredGame], bangers: Sequence[ScoredGame]) -> str:
    """Given the acclaimed full-price games and those of them that are bangers at list price,
    return the others with their score at list price ("none" when there is none)."""
    missed = [g for g in acclaimed if g not in bangers]
    return "; ".join(f"{g.record.name} {score_at_list_price(g)}" for g in missed) or "none"


def _named_line(games: Sequence[ScoredGame]) -> str:
    """Given the scored catalogue in list order, return each of :data:`NAMED_BANGERS` with its
    rank, score and tier, or "not rated"."""
    rank = {g.record.appid: i + 1 for i, g in enumerate(games)}
    by_appid = {g.record.appid: g for g in games}
    return "; ".join(
        f"{name} #{rank[a]:,} {by_appid[a].bang_score} {by_appid[a].tier}"
        if a in by_appid
        else f"{name} not rated"
        for a, name in NAMED_BANGERS.items()
    )


def _anchor_line(compared: AnchorComparison) -> str:
    """Given our scores compared with SteamBangers' published ones, return its target line."""
    return (
        f"- SteamBangers' published scores (theirs/ours), {len(compared.pairs)} games both "
        f"rate: Spearman {compared.spearman:.3f}, median difference (ours - theirs) "
        f"{compared.median_difference:+g}, same band (73/52/36) {compared.same_band} of "
        f"{len(compared.pairs)}: "
        + "; ".join(f"{name} {theirs}/{ours}" for name, theirs, ours in compared.pairs)
        + "."
    )
