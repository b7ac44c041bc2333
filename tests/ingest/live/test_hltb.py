"""HowLongToBeat adapter on the recorded search response (Half-Life: Alyx)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bangscore.ingest.live.hltb import HltbAdapter, match_appid, search_words
from bangscore.scoring.records import GameRecord
from tests.ingest.replay import fixture_json, mock_replay, ok, quiet_client, stop_replay


def test_match_recorded_response_by_steam_profile() -> None:
    times = match_appid(fixture_json("hltb/search_half_life_alyx.json"), 546560)
    assert times is not None
    # comp_main 43464 s = 12.07 h; comp_100 66013 s = 18.34 h.
    assert (times.game_id, times.main_story_hours, times.completionist_hours) == (72067, 12.1, 18.3)


def test_same_name_other_appid_does_not_match() -> None:
    assert match_appid(fixture_json("hltb/search_half_life_alyx.json"), 620) is None


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("Half-Life: Alyx", ["half", "life", "alyx"]),
        ("DOOM® Eternal™", ["doom", "eternal"]),
        ("Pokémon", ["pokemon"]),
    ],
    ids=["punctuation", "marks", "accents"],
)
def test_search_words(name: str, words: list[str]) -> None:
    assert search_words(name) == words


def test_adapter_posts_search_and_fills_hours(tmp_path: Path) -> None:
    body = fixture_json("hltb/search_half_life_alyx.json")
    server = mock_replay({("POST", "/api/search"): lambda q, b: ok(body)})
    record = GameRecord(
        appid=546560,
        name="Half-Life: Alyx",
        price_usd=59.99,
        list_price_usd=59.99,
        discount_percent=0,
        review_score=1.0,
        review_count=100,
    )
    try:
        with quiet_client(tmp_path, server) as client:
            patch = HltbAdapter(server.base_url).fetch(client, record)
    finally:
        stop_replay(server)
    assert patch == {"main_story_hours": 12.1, "completionist_hours": 18.3}
    sent = json.loads(server.hits[0].body)
    assert (sent["searchType"], sent["searchTerms"]) == ("games", ["half", "life", "alyx"])
