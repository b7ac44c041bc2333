"""finish_rate derivation on the recorded GetGameAchievements response and hand-built ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from bangscore.ingest.live.achievements import (
    Achievement,
    AchievementsAdapter,
    FinishRate,
    derive_finish_rate,
    parse_achievements,
)
from bangscore.scoring.records import GameRecord
from tests.ingest.replay import fixture_json, mock_replay, ok, quiet_client, stop_replay


def test_parse_recorded_response() -> None:
    achievements = parse_achievements(fixture_json("achievements/get_game_achievements_tf2.json"))
    assert [a.display_name for a in achievements] == ["Head of the Class", "Team Doctor"]
    assert [a.unlocked for a in achievements] == pytest.approx([0.719, 0.234])


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        # TF2 has no story: "Play a complete round with every class" is not finishing.
        ("get_game_achievements_tf2.json", FinishRate(None, "none", None)),
        # Two endings (38.5%, 12%): the commoner is the lower bound on finishers; the Hard run and
        # "Complete all chapters without dying" are challenges, "Complete Chapter 2" is partial.
        ("handbuilt_get_game_achievements_story.json", FinishRate(0.385, "named", "Lunacy")),
        # No name says "finished": the highest numbered chapter (X = 10) stands in, Hard excluded.
        (
            "handbuilt_get_game_achievements_chapters.json",
            FinishRate(0.2225, "last_chapter", "Chapter X"),
        ),
        # Old shape: internal names only; ACH_GAME_ENDING reads as "ending".
        ("handbuilt_global_percentages.json", FinishRate(0.333, "named", "ACH GAME ENDING")),
    ],
    ids=["recorded-tf2", "story-endings", "chapters", "global-percentages"],
)
def test_derive_finish_rate(fixture: str, expected: FinishRate) -> None:
    result = derive_finish_rate(parse_achievements(fixture_json(f"achievements/{fixture}")))
    assert (result.rule, result.achievement) == (expected.rule, expected.achievement)
    assert result.rate == (None if expected.rate is None else pytest.approx(expected.rate))


@pytest.mark.parametrize(
    ("name", "desc", "named"),
    [
        ("Credits", "Watch the credits roll", True),
        ("Slayer", "Beat the final boss", True),
        ("Done", "Complete the main story", True),
        ("Normal", "Finish the game on Normal", True),
        ("Speedy", "Finish the game in under 2 hours", False),
        ("NG+", "Complete the story in New Game+", False),
        ("Level 3", "Complete level 3", False),
    ],
    ids=[
        "credits",
        "final-boss",
        "main-story",
        "normal-difficulty",
        "speedrun",
        "ng-plus",
        "level",
    ],
)
def test_named_rule_table(name: str, desc: str, named: bool) -> None:
    result = derive_finish_rate([Achievement("X", name, desc, 0.4)])
    assert (result.rule == "named") is named


def test_adapter_returns_the_last_chapter_rate(tmp_path: Path) -> None:
    story = fixture_json("achievements/handbuilt_get_game_achievements_chapters.json")
    server = mock_replay(
        {("GET", "/IPlayerService/GetGameAchievements/v1/"): lambda q, b: ok(story)}
    )
    record = GameRecord(
        appid=9,
        name="Chaptered",
        price_usd=5,
        list_price_usd=5,
        discount_percent=0,
        review_score=1.0,
        review_count=100,
    )
    try:
        with quiet_client(tmp_path, server) as client:
            patch = AchievementsAdapter(server.base_url).fetch(client, record)
    finally:
        stop_replay(server)
    # The last chapter's 22.25% stands in; the resolver lists every finish_rate as estimated.
    assert patch == {"finish_rate": 0.2225}
    assert server.hits[0].query == {"appid": "9", "language": "english"}
