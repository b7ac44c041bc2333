"""Search matching and ranking rules of docs/API.md#matching-and-ranking."""

from __future__ import annotations

from typing import Any

import pytest

from bangscore.contract.search import SearchIndex, fold, name_words

GAMES = [
    (220, 90, "Half-Life 2"),
    (620, 95, "Portal 2"),
    (400, 88, "Portal"),
    (1145360, 97, "Hades"),
    (271590, 80, "Grand Theft Auto V"),
    (1, 50, "Pokémon™ Adventure"),
    (2, 60, "Portal Knights"),
    (3, 60, "The Portal Story"),
    (4, 70, "Final Fantasy XIV Online"),
    (5, 40, "Baldur's Gate"),
]


@pytest.fixture(scope="module")
def index() -> SearchIndex:
    return SearchIndex.from_json(SearchIndex.build(GAMES).to_json())  # round-trips as stored


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("Pokémon™", "pokemon"),
        ("Half-Life 2", "half life 2"),
        ("Baldur's Gate", "baldurs gate"),
        ("Grand Theft Auto V", "grand theft auto 5"),
        ("FINAL FANTASY XIV", "final fantasy 14"),
        ("Café®  Racer", "cafe racer"),
    ],
    ids=["accent-tm", "hyphen", "apostrophe", "roman-v", "roman-xiv", "spaces"],
)
def test_fold(text: str, folded: str) -> None:
    assert fold(text) == folded


def test_hyphenated_words_also_match_joined() -> None:
    assert name_words("Half-Life 2") == ["half", "life", "2", "halflife"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("portal", [400, 620, 2, 3]),  # exact, then starting with, then others by score
        ("PORTAL 2", [620]),
        ("portal ii", [620]),
        ("por", [620, 400, 2, 3]),  # names starting with "por" by score, then The Portal Story
        ("halflife", [220]),
        ("half life", [220]),
        ("pokemon", [1]),
        ("pokémon adv", [1]),
        ("gta", []),
        ("grand theft auto 5", [271590]),
        ("final fantasy 14", [4]),
        ("baldurs", [5]),
        ("baldur's", [5]),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_matching_and_ranking(index: SearchIndex, query: str, expected: list[int]) -> None:
    assert index.search(query) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("protal", [620, 400, 2, 3]),  # 6 letters: 1 edit (a swap counts as one)
        ("hadse", [1145360]),
        ("portel knights", [2]),
        ("fnal fantsy", [4]),  # 8+ letters would allow 2; here 4-7 letters, 1 edit each
        ("hdes", [1145360]),  # 4 letters: one insertion is one edit
        ("xyz", []),  # under 4 letters: no typo tolerance
    ],
    ids=["swap", "swap2", "typo-two-words", "typo-each-word", "insertion", "short"],
)
def test_typo_pass_only_when_nothing_matches(
    index: SearchIndex, query: str, expected: list[int]
) -> None:
    assert index.search(query) == expected


def test_all_digit_appid_comes_first(index: SearchIndex) -> None:
    assert index.search("620") == [620]
    assert index.search("2")[0] == 2  # appid 2 first, then names with the word 2
    assert set(index.search("2")) == {2, 220, 620}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "appid"),
    [
        pytest.param("balatro", 2379780, id="balatro"),
        pytest.param("hades ii", 1145350, id="hades-ii"),
        pytest.param("hades 2", 1145350, id="hades-2-as-digits"),
        pytest.param("helldivers 2", 553850, id="helldivers-2"),
        pytest.param("baldur's gate 3", 1086940, id="baldurs-gate-3"),
    ],
)
def test_real_catalog_finds_the_2024_2026_games(real_snapshot: Any, query: str, appid: int) -> None:
    games = real_snapshot[1]
    index = SearchIndex.build((g.record.appid, g.bang_score, g.record.name) for g in games)
    assert index.search(query)[0] == appid
