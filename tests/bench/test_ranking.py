"""The ranking report (bench/ranking.py) on the small test catalogue."""

from __future__ import annotations

import datetime as dt

from bangscore.build.buyer import buyer_fields
from bangscore.scoring.genres import GENRES
from bangscore.scoring.pipeline import score_catalog
from bench.ranking import sections
from tests.support import factories


def test_the_report_lists_the_top_genres_and_the_verdict_counts() -> None:
    games = score_catalog(factories.small_catalog())
    as_of = dt.date(2026, 7, 24)
    rows = list(zip(games, buyer_fields(games, as_of), strict=True))
    text = list(sections(rows, as_of))
    assert (
        text[0]
        == f"Ranking as a player reads it: {len(games)} rated games, prices as of 2026-07-24"
    )
    top = text[text.index("\n== Top 50") + 1]
    assert top.startswith(
        f"{games[0].bang_score:3d} {games[0].tier:8s} {games[0].record.name[:44]}"
    )
    last = games[-1]  # the bottom 50 ends with the last game of the list
    assert text[text.index(f"\n== Top 10 {GENRES[0]}") - 1].startswith(
        f"{last.bang_score:3d} {last.tier:8s} {last.record.name[:44]}"
    )
    counts = text[text.index("\n== Verdicts") + 1]
    assert sum(int(part.split()[1]) for part in counts.split(", ")) == len(games)
    assert text[-2].startswith("paid buy_now at >= 2x a price seen in the past year: ")
