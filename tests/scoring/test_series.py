"""Series detection (scoring.series): chapters, episodes, volumes and parts of one work."""

from __future__ import annotations

import pytest

from bangscore.scoring.series import Series, find_series, once_per_series, stem


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # Real names from the bundled catalogue.
        pytest.param(
            "Higurashi When They Cry Hou - Ch.3 Tatarigoroshi",
            "Higurashi When They Cry Hou",
            id="chapter-abbreviated",
        ),
        pytest.param(
            "Higurashi When They Cry Hou - Ch. 5 Meakashi",
            "Higurashi When They Cry Hou",
            id="chapter-spaced",
        ),
        pytest.param("Misericorde: Volume One", "Misericorde", id="volume-in-words"),
        pytest.param("Half-Life 2: Episode Two", "Half-Life 2", id="episode-in-words"),
        pytest.param("Life is Strange - Episode 1", "Life is Strange", id="episode-number"),
        pytest.param("Doki Part II", "Doki", id="part-roman"),
        pytest.param("Kentucky Route Zero Chapter 4", "Kentucky Route Zero", id="chapter-word"),
        # No marker, or nothing before it.
        pytest.param("Epic Battle Fantasy 5", None, id="epic-is-no-episode"),
        pytest.param("Party Hard 2", None, id="party-is-no-part"),
        pytest.param("Volcano Princess", None, id="volcano-is-no-volume"),
        pytest.param("Portal 2", None, id="a-sequel"),
        pytest.param("Chapter 2", None, id="nothing-before-the-marker"),
    ],
)
def test_stem(name: str, expected: str | None) -> None:
    assert stem(name) == expected


def test_parts_with_one_developer_are_one_series_named_as_the_best_part_spells_it() -> None:
    games = [
        (472870, "Higurashi When They Cry Hou - Ch.3 Tatarigoroshi", "07th Expansion"),
        (1, "Some Other Game", "07th Expansion"),
        (410890, "Higurashi When They Cry Hou - Ch.2 Watanagashi", "07th Expansion"),
        (1243670, "HIGURASHI WHEN THEY CRY HOU - Ch.8 Matsuribayashi", "07th Expansion"),
    ]
    found = find_series(games)
    series = Series("Higurashi When They Cry Hou", 3)
    assert found == {472870: series, 410890: series, 1243670: series}
    assert series.wire() == {"name": "Higurashi When They Cry Hou", "parts": 3}


@pytest.mark.parametrize(
    "games",
    [
        pytest.param(
            [(1, "Road Trip Part 1", "Studio A"), (2, "Road Trip Part 2", "Studio B")],
            id="two-developers",
        ),
        pytest.param([(1, "Road Trip Part 1", "Studio A")], id="one-part"),
        pytest.param(
            [(1, "Road Trip Part 1", None), (2, "Road Trip Part 2", None)], id="no-studio"
        ),
    ],
)
def test_not_a_series(games: list[tuple[int, str, str | None]]) -> None:
    assert find_series(games) == {}


def test_the_website_lists_a_series_once_at_its_best_part() -> None:
    part = {"name": "Higurashi When They Cry Hou", "parts": 3}
    items: list[dict[str, object]] = [
        {"appid": 1, "series": part},
        {"appid": 2, "series": None},
        {"appid": 3, "series": part},
        {"appid": 4, "series": {"name": "Misericorde", "parts": 2}},
        {"appid": 5, "series": part},
    ]
    assert [i["appid"] for i in once_per_series(items)] == [1, 2, 4]
