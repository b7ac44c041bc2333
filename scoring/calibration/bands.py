"""Score version 6.0's checks (issue 53, docs/API.md#the-score), measured on a scored catalogue:
tiers and verdicts by review band and by review count, and the round-7 targets. What ``make
calibrate`` writes into CALIBRATION.md beside score version 5.0's figures
(:data:`BEFORE_BANDS`, measured on the same dumps on 2 Dec 2026 before the change).

Pure functions of the scored games in list order and their buyer fields
(:func:`build.buyer.buyer_fields`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Final

from bangscore.scoring import flags
from bangscore.scoring.pipeline import ScoredGame, is_free

Row = tuple[ScoredGame, dict[str, Any]]
REVIEW_BANDS: Final = ((0.95, "95%+"), (0.90, "90-95%"), (0.80, "80-90%"), (0.70, "70-80%"))
COUNT_BANDS: Final = ((100_000, "100,000+"), (10_000, "10,000+"), (1_000, "1,000+"), (200, "200+"))
TIER_NAMES: Final = ("banger", "worth_it", "fair", "skip")
VERDICTS: Final = ("buy_now", "wait_for_sale", "skip")
# Score version 5.0 on the same dumps (40,792 rated games; var/measure run of 2 Dec 2026,
# 00:59 UTC, load 7.0): games | banger worth_it fair skip | buy_now wait_for_sale skip.
BEFORE_BANDS: Final = (
    "| 95%+ | 4,312 | 17.8% | 30.1% | 39.2% | 12.8% | 18.6% | 34.0% | 47.3% |",
    "| 90-95% | 6,882 | 8.3% | 29.7% | 48.5% | 13.5% | 9.6% | 35.1% | 55.3% |",
    "| 80-90% | 11,751 | 0.0% | 10.3% | 57.6% | 32.0% | 1.6% | 10.7% | 87.7% |",
    "| 70-80% | 8,362 | 0.0% | 0.0% | 10.9% | 89.1% | 0.0% | 0.0% | 100.0% |",
    "| 50-70% | 7,436 | 0.0% | 0.0% | 0.0% | 100.0% | 0.0% | 0.0% | 100.0% |",
    "| under 50% | 2,049 | 0.0% | 0.0% | 0.0% | 100.0% | 0.0% | 0.0% | 100.0% |",
    "| 100,000+ | 211 | 41.7% | 22.3% | 19.9% | 16.1% | 10.4% | 56.4% | 33.2% |",
    "| 10,000+ | 1,359 | 24.9% | 25.8% | 28.3% | 21.0% | 9.0% | 46.8% | 44.2% |",
    "| 1,000+ | 6,955 | 9.2% | 25.8% | 31.3% | 33.7% | 9.5% | 30.2% | 60.3% |",
    "| 200+ | 12,325 | 2.1% | 15.5% | 32.3% | 50.0% | 5.7% | 15.2% | 79.1% |",
    "| under 200 | 19,942 | 0.0% | 2.3% | 30.8% | 66.9% | 0.7% | 2.1% | 97.2% |",
    "| all | 40,792 | 3.3% | 11.2% | 31.2% | 54.4% | 4.0% | 12.6% | 83.3% |",
)


def review_band(share: float) -> str:
    """Given a positive share (0..1), return its band's name (``95%+`` ... ``under 50%``)."""
    for low, name in REVIEW_BANDS:
        if share >= low:
            return name
    return "50-70%" if share >= 0.5 else "under 50%"


def count_band(count: int) -> str:
    """Given a review count, return its band's name (``100,000+`` ... ``under 200``)."""
    return next((name for low, name in COUNT_BANDS if count >= low), "under 200")


def _row(name: str, rows: Sequence[Row]) -> str:
    n = len(rows) or 1
    tiers = Counter(g.tier for g, _ in rows)
    verdicts = Counter(f["verdict"] for _, f in rows)
    cells = [f"{100 * tiers[t] / n:.1f}%" for t in TIER_NAMES]
    cells += [f"{100 * verdicts[v] / n:.1f}%" for v in VERDICTS]
    return f"| {name} | {len(rows):,} | " + " | ".join(cells) + " |"


def band_rows(rows: Sequence[Row]) -> list[str]:
    """Given the scored games with their buyer fields, return the Markdown rows of tiers and
    verdicts by review band, by review count and over all (in :data:`BEFORE_BANDS`' order)."""
    out: list[str] = []
    keys: tuple[tuple[Callable[[ScoredGame], str], tuple[str, ...]], ...] = (
        (
            lambda g: review_band(g.record.review_score),
            (*(n for _, n in REVIEW_BANDS), "50-70%", "under 50%"),
        ),
        (
            lambda g: count_band(g.record.review_count),
            (*(n for _, n in COUNT_BANDS), "under 200"),
        ),
    )
    for key, names in keys:
        for name in names:
            out.append(_row(name, [r for r in rows if key(r[0]) == name]))
    out.append(_row("all", rows))
    return out


def very_positive(game: ScoredGame) -> bool:
    """Whether a game is paid, 80-94% positive of 1,000+ reviews with a measured length of 4 h
    or more (the storefront's "Very Positive" with real evidence)."""
    rec = game.record
    return (
        not is_free(rec)
        and 0.80 <= rec.review_score < 0.95
        and rec.review_count >= 1_000
        and rec.length_source != "playtime_estimate"
        and (rec.main_story_hours or 0.0) >= 4.0
    )


def sale_target(game: ScoredGame) -> float:
    """Given a game, return the price (US dollars, cents) it must be worth it at: the lower of
    its historical low and a quarter of its list price."""
    quarter = game.record.list_price_usd / 4
    low = game.record.historical_low_usd
    return round(min(quarter, low) if low is not None else quarter, 2)


def worth_it_at_sale(game: ScoredGame) -> bool:
    """Whether the game's ``worth_it_at_usd`` is at or above :func:`sale_target`."""
    return game.worth_it_at_usd is not None and game.worth_it_at_usd >= sale_target(game)


def check_lines(rows: Sequence[Row]) -> list[str]:
    """Given the scored games in list order with their buyer fields, return issue 53's checks
    as Markdown bullets, each with what was measured."""
    games = [g for g, _ in rows]
    vp = [g for g in games if very_positive(g)]
    vp_ok = sum(worth_it_at_sale(g) for g in vp)
    free = [(g, f) for g, f in rows if is_free(g.record)]
    liked = [f for g, f in free if g.record.review_score >= 0.85 and g.record.review_count >= 1000]
    top = games[:100]
    recent = sum(g.inputs.lifetime_review_score is not None for g in games)
    free_under = sum(g.record.review_score < 0.70 and f["verdict"] == "buy_now" for g, f in free)
    return [
        f'- Paid "Very Positive" games (80-94% of 1,000+ reviews, measured length 4 h+): '
        f"{vp_ok:,} of {len(vp):,} ({100 * vp_ok / max(len(vp), 1):.1f}%) are worth it at the "
        f"lower of their historical low and a quarter of list; "
        f"{sum(g.worth_it_at_usd is None for g in vp):,} have no `worth_it_at_usd`.",
        f"- Under 70% positive and `worth_it` or `banger`: "
        f"{sum(g.record.review_score < 0.70 and g.tier in ('banger', 'worth_it') for g in games)}.",
        f'- Free games at 85%+ of 1,000+ reviews told "Free: get it": '
        f"{sum(f['verdict'] == 'buy_now' for f in liked):,} of {len(liked):,}; free games under "
        f"70% told so: {free_under}.",
        f"- Top 100: {sum(g.record.review_count < 1000 for g in top)} with fewer than 1,000 "
        f"reviews, {sum(flags.adult(g.record) for g in top)} adult, "
        f"{recent:,} games in the catalogue scored on their recent share.",
    ]
