"""Review shares beyond the lifetime summary (ingest/resolve/reviews.py): the recent sample of
a game, and the offset that corrects a share known only from SteamSpy's January 2025 dump."""

from __future__ import annotations

import datetime as dt

import pytest

from bangscore.ingest.resolve import reviews
from bangscore.ingest.resolve.observations import (
    TRUST_MATCHED,
    Layer,
    Observation,
    Observations,
    Resolved,
)
from bangscore.scoring.records import Provenance
from tests.support.factories import make_record

PICS = Layer("steam_pics_2026", "storefront", dt.date(2026, 7, 24))
SPY = Layer("steamspy_2025-01-01", "player_stats", dt.date(2025, 1, 1))
SAMPLE = Layer("steam_review_playtime_2026", "player_stats", dt.date(2026, 7, 24), TRUST_MATCHED)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # GROUND BRANCH's last 1,000 reviews: 35% positive.
        pytest.param((2.0, 1.0, 349, 647), reviews.Recent(349 / 996, 996, SAMPLE.date), id="ok"),
        pytest.param((None, None, 0, 0), None, id="empty-sample"),
    ],
)
def test_recent_reviews(value: tuple[object, ...], expected: reviews.Recent | None) -> None:
    assert reviews.recent_reviews(Resolved(value, SAMPLE)) == expected


def test_no_sample_no_recent_reviews() -> None:
    assert reviews.recent_reviews(None) is None


def known(shares: dict[Layer, dict[int, float]], counts: dict[int, int]) -> Observations:
    out = Observations()
    for layer, table in shares.items():
        observed = [Observation(a, "review_score", s) for a, s in table.items()]
        if layer is SPY:
            observed += [Observation(a, "review_count", n) for a, n in counts.items()]
        out.add(layer, observed)
    return out


def test_the_offset_is_the_median_difference_on_games_both_hold() -> None:
    spy = {1: 0.90, 2: 0.85, 3: 0.70, 4: 0.99, 5: 0.50}
    pics = {1: 0.89, 2: 0.84, 3: 0.68, 4: 0.90, 6: 0.10}
    # Game 4 has too few reviews in SteamSpy to measure by; 5 and 6 are in one source only.
    counts = {1: 5_000, 2: 1_000, 3: 20_000, 4: 999, 5: 50_000}
    offset = reviews.older_share_offset(known({PICS: pics, SPY: spy}, counts))
    assert offset == pytest.approx(0.01)


def test_no_common_game_no_offset() -> None:
    assert reviews.older_share_offset(known({PICS: {1: 0.9}, SPY: {2: 0.8}}, {2: 5_000})) == 0.0


def test_only_an_older_source_s_share_is_corrected() -> None:
    date = dt.date(2025, 1, 1)
    old = make_record(
        appid=1,
        review_score=0.9,
        provenance={"review_score": Provenance(source=SPY.name, kind="player_stats", date=date)},
    )
    new = make_record(
        appid=2,
        review_score=0.9,
        provenance={"review_score": Provenance(source=PICS.name, kind="storefront", date=date)},
    )
    fixed, kept = reviews.corrected([old, new], 0.0072)
    assert fixed.review_score == pytest.approx(0.8928)
    assert "review_score" in fixed.estimated
    assert kept is new
    assert reviews.corrected([old], 0.0)[0] is old
