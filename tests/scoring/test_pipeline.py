"""The one scoring pipeline (scoring.pipeline): inputs from a record, score, tier, thresholds,
drivers and list order."""

from __future__ import annotations

import math

import pytest

from bangscore.errors import UnscorableGame
from bangscore.scoring import tiers, value
from bangscore.scoring.pipeline import score_catalog, score_game, value_inputs
from bangscore.scoring.records import GameRecord
from tests.support.factories import make_record


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        pytest.param(
            {}, {"replayable": False, "unattended": False, "estimated_length": False}, id="plain"
        ),
        pytest.param(
            {"tags": ("Roguelike", "Deckbuilding"), "positive_reviewer_hours": 26.0},
            {"replayable": True, "replay_hours": 26.0},
            id="replayable",
        ),
        pytest.param({"tags": ("Idler", "Clicker")}, {"unattended": True}, id="idle"),
        pytest.param(
            {"length_source": "playtime_estimate"}, {"estimated_length": True}, id="estimated"
        ),
    ],
)
def test_value_inputs_from_a_record(
    overrides: dict[str, object], expected: dict[str, object]
) -> None:
    inputs = value_inputs(make_record(**overrides), "rpg")
    assert inputs.genre == "rpg"
    assert (inputs.price_usd, inputs.review_score, inputs.review_count) == (19.99, 0.9, 1000)
    for name, wanted in expected.items():
        assert getattr(inputs, name) == wanted


def test_score_game_derives_everything_consistently() -> None:
    game = score_game(make_record(appid=7, tags=("FPS",), price_usd=29.99, list_price_usd=29.99))
    assert game.genre == "shooter"
    assert game.bang_score == math.floor(game.score + 0.5)
    assert game.score == pytest.approx(value.score(game.inputs))
    assert game.tier == tiers.tier(game.bang_score)
    assert game.worth_it_at_usd == tiers.threshold_usd(game.inputs, tiers.WORTH_IT_MIN)
    assert game.becomes_banger_at_usd == tiers.threshold_usd(game.inputs, tiers.BANGER_MIN)
    assert set(game.drivers) == {"raises", "lowers", "neutral"}
    assert game.score_at(game.record.price_usd) == game.score
    assert game.score_at(0.0) >= game.score >= game.score_at(200.0)


def test_unscorable_record_is_a_clear_error() -> None:
    with pytest.raises(UnscorableGame, match="main-story length"):
        score_game(make_record(main_story_hours=None))


def test_catalog_is_in_api_order() -> None:
    records = [
        make_record(appid=30, price_usd=60.0, list_price_usd=60.0),  # dearest: docked, lowest
        make_record(appid=20),
        make_record(appid=10),  # same inputs as 20: the lower appid goes first
        make_record(appid=40, price_usd=2.0),  # cheaper than its worth: the same as 10 and 20
        make_record(appid=50, review_score=0.97),  # better reviewed: highest score
    ]
    assert [g.record.appid for g in score_catalog(records)] == [50, 10, 20, 40, 30]


@pytest.mark.parametrize(
    ("record", "highest", "lowered"),
    [
        # 308 h on HowLongToBeat are drill, not a story: 91.8 (#21) in score version 2.0.
        pytest.param(
            make_record(
                name="KovaaK's",
                price_usd=9.99,
                list_price_usd=9.99,
                review_score=0.92,
                review_count=33_645,
                main_story_hours=308.2,
                finish_rate=0.02,
                positive_reviewer_hours=34.5,
                tags=(
                    "Action",
                    "Shooter",
                    "Simulation",
                    "FPS",
                    "Indie",
                    "First-Person",
                    "Software Training",
                    "Singleplayer",
                    "Controller",
                    "Multiplayer",
                    "eSports",
                ),
            ),
            79,
            True,
            id="kovaaks-aim-trainer",
        ),
        # A free focus app left open for 52.8 h: 93.4 (#6) in score version 2.0.
        pytest.param(
            make_record(
                name="Virtual Cottage",
                price_usd=0.0,
                list_price_usd=0.0,
                review_score=0.978,
                review_count=9_940,
                main_story_hours=52.8,
                finish_rate=None,
                tags=("Casual", "Idler", "Simulation", "Utilities", "Life Sim", "Cozy"),
            ),
            # Free, it stays at 79 with or without its idle hours: they lower nothing more.
            79,
            False,
            id="virtual-cottage-ambient-app",
        ),
    ],
)
def test_tools_and_ambient_apps_are_not_bangers(
    record: GameRecord, highest: int, lowered: bool
) -> None:
    game = score_game(record)
    assert game.inputs.unattended
    assert game.bang_score <= highest
    assert ("unattended_time" in game.drivers["lowers"]) == lowered


@pytest.mark.parametrize(
    ("recent", "count", "read"),
    [
        # GROUND BRANCH: 85% lifetime, about 35% of its last 1,000 reviews (score 57 in 5.0).
        pytest.param(0.35, 996, 0.35, id="collapsed-recent-share-is-read"),
        pytest.param(0.95, 300, 0.95, id="a-recovery-is-read-too"),
        pytest.param(0.75, 996, 0.75, id="exactly-10-points"),
        pytest.param(0.76, 996, 0.85, id="under-10-points-keeps-lifetime"),
        pytest.param(0.35, 199, 0.85, id="under-200-recent-keeps-lifetime"),
        pytest.param(None, None, 0.85, id="no-sample"),
    ],
)
def test_the_score_reads_the_recent_share_where_it_departs(
    recent: float | None, count: int | None, read: float
) -> None:
    record = make_record(review_score=0.85, recent_review_score=recent, recent_review_count=count)
    inputs = value_inputs(record, "shooter")
    assert inputs.review_score == read
    assert inputs.lifetime_review_score == (0.85 if read != 0.85 else None)
    game = score_game(record)
    if read < 0.85:
        assert "recent_reviews" in game.drivers["lowers"]
    elif read > 0.85:
        assert "recent_reviews" in game.drivers["raises"]
    else:
        assert all("recent_reviews" not in names for names in game.drivers.values())


def test_an_edition_reads_its_reviews_against_the_old_listing() -> None:
    own = score_game(make_record(review_score=0.80, review_count=2000))
    inherited = score_game(
        make_record(review_score=0.80, review_count=2000, review_prior_score=0.9)
    )
    assert inherited.inputs.prior_score == 0.9
    assert inherited.score > own.score


def test_a_recovery_never_lifts_a_mixed_game_to_worth_it() -> None:
    # Under 70% lifetime ("Mixed") is never worth it (round 7), however its recent reviews read.
    record = make_record(
        review_score=0.62, review_count=50_000, recent_review_score=0.95, recent_review_count=1000
    )
    game = score_game(record)
    assert game.inputs.review_score == 0.6999
    assert "recent_reviews" in game.drivers["raises"]
    assert game.tier in ("fair", "skip")
