"""The calibration report's pure steps: scoring records, order, summary, rendering, plot."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from pathlib import Path

import pytest

from scoring import calibrate
from scoring.records import GameRecord
from scoring.tiers import TIERS


@pytest.fixture
def make_record() -> Callable[..., GameRecord]:
    """Return a factory of rated-catalog GameRecords: a 20-hour $10 game, fields overridable."""

    def make(appid: int, **overrides: object) -> GameRecord:
        fields: dict[str, object] = {
            "appid": appid,
            "name": f"Game {appid}",
            "price_usd": 10.0,
            "list_price_usd": 10.0,
            "discount_percent": 0,
            "review_positive": 900,
            "review_negative": 100,
            "release_year": 2015,
            "storefront_genres": ("Action",),
            "tags": ("Action",),
            "main_story_hours": 20.0,
        }
        fields.update(overrides)
        return GameRecord.model_validate(fields)

    return make


def test_score_record_carries_inputs_and_derived_fields(
    make_record: Callable[..., GameRecord],
) -> None:
    game = calibrate.score_record(make_record(7, tags=("FPS",), finish_rate=0.4))
    assert (game.appid, game.price_usd, game.review_count) == (7, 10.0, 1000)
    assert game.review_score == pytest.approx(0.9)
    assert game.genre == "shooter"
    assert game.bang_score == math.floor(game.score + 0.5)
    assert game.tier in TIERS


def test_score_record_refuses_a_record_without_length(
    make_record: Callable[..., GameRecord],
) -> None:
    with pytest.raises(ValueError, match="appid 3"):
        calibrate.score_record(make_record(3, main_story_hours=None))


def test_catalog_is_in_api_order(make_record: Callable[..., GameRecord]) -> None:
    records = [
        make_record(30, price_usd=60.0),  # dearest: lowest score
        make_record(20),
        make_record(10),  # same inputs as 20: the lower appid goes first
        make_record(40, price_usd=2.0),  # cheapest: highest score
    ]
    assert [g.appid for g in calibrate.score_catalog(records)] == [40, 10, 20, 30]


@pytest.mark.parametrize(
    ("xs", "ys", "expected"),
    [
        pytest.param([1, 2, 3, 4], [10, 20, 30, 40], 1.0, id="same-order"),
        pytest.param([1, 2, 3, 4], [4, 3, 2, 1], -1.0, id="reversed"),
        pytest.param([1, 2, 3, 4], [1, 100, 1000, 10_000], 1.0, id="monotone-not-linear"),
        pytest.param([1, 1, 2, 2], [1, 1, 2, 2], 1.0, id="ties"),
    ],
)
def test_spearman(xs: list[float], ys: list[float], expected: float) -> None:
    assert calibrate.spearman(xs, ys) == pytest.approx(expected)


def test_summary_report_and_histogram(
    make_record: Callable[..., GameRecord], tmp_path: Path
) -> None:
    records = [
        make_record(620, price_usd=1.99, main_story_hours=8.9, metacritic=95),
        make_record(2, price_usd=59.99, main_story_hours=3.0, review_positive=300, metacritic=60),
        make_record(3, price_usd=0.0, review_positive=10, finish_rate=0.2, metacritic=40),
        make_record(4, price_usd=5.0, main_story_hours=60.0, finish_rate=0.5),
        make_record(5, price_usd=14.99, tags=("Visual Novel",)),
    ]
    scored = calibrate.score_catalog(records)
    summary = calibrate.summarize(scored)
    assert summary.games == 5
    assert sum(summary.tier_counts.values()) == 5
    assert sum(summary.genre_counts.values()) == 5
    assert summary.genre_counts["narrative"] == 1
    assert summary.finish_rate_known == 2
    assert summary.free_games == 1
    assert summary.spearman_metacritic[0] == 3
    portal = next(lm for lm in summary.landmarks if lm[0] == "Portal 2")
    assert portal[2] is not None and portal[1] == [g.appid for g in scored].index(620) + 1

    text = calibrate.render_report(
        scored,
        summary,
        origin="test records",
        generated=dt.date(2025, 1, 2),
        price_date=dt.date(2025, 1, 1),
    )
    assert "**5 games**" in text
    assert "| Portal 2 |" in text
    assert "| Terraria | not in the rated catalog |" in text
    assert f"![Histogram of bang_score]({calibrate.HISTOGRAM_NAME})" in text
    assert "(2025-01-01)" in text

    png = tmp_path / "hist.png"
    calibrate.plot_histogram(scored, png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
