"""The better-value box (docs/API.md#website): the best-scoring games of the same genre priced
at most 30% above the game's, strictly higher scores, best first, hidden games never listed."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bangscore.contract.compact import cents
from bangscore.site.better_value import (
    Candidate,
    better_value,
    better_value_of,
    cap_usd,
    fits,
)


def rpg(score: int, price: float, hidden: bool = False) -> Candidate:
    return Candidate("rpg", score, cents(price), hidden)


@pytest.mark.parametrize(
    ("games", "expected"),
    [
        pytest.param(
            [rpg(95, 60), rpg(90, 20), rpg(80, 20), rpg(77, 20)],
            [[], [], [1], [1, 2]],
            id="best-first-not-nearest-and-dearer-games-left-out",
        ),
        pytest.param(
            [rpg(95, 25.98), rpg(94, 25.99), rpg(70, 19.99)],
            [[], [0], [0]],
            id="at-most-30-percent-above-in-whole-cents",
        ),
        pytest.param(
            [rpg(90, 0), rpg(89, 0.99), rpg(60, 0)],
            [[], [0], [0]],
            id="a-free-game-gets-free-games",
        ),
        pytest.param(
            [rpg(90, 10), Candidate("action", 90, 1000), rpg(80, 10)],
            [[], [], [0]],
            id="same-genre-only",
        ),
        pytest.param(
            [rpg(90, 10), rpg(80, 10), rpg(80, 10)],
            [[], [0], [0]],
            id="a-tie-is-not-better",
        ),
        pytest.param(
            [rpg(99, 10, hidden=True), rpg(90, 10), rpg(80, 10, hidden=True), rpg(70, 10)],
            [[], [], [1], [1]],
            id="hidden-games-are-never-listed-but-get-a-box",
        ),
        pytest.param(
            [rpg(99 - n, 10) for n in range(7)],
            [[], [0], [0, 1], [0, 1, 2], [0, 1, 2, 3], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4]],
            id="at-most-five",
        ),
    ],
)
def test_better_value(games: list[Candidate], expected: list[list[int]]) -> None:
    assert better_value(games) == expected
    assert [better_value_of(games, n) for n in range(len(games))] == expected


def test_better_value_needs_list_order() -> None:
    with pytest.raises(ValueError, match="list order"):
        better_value([rpg(10, 1), rpg(20, 1)])


@pytest.mark.parametrize(
    ("price", "cap"),
    [
        pytest.param(19.99, 25.98, id="rounded-down"),
        pytest.param(10.0, 13.0, id="exact"),
        pytest.param(0.0, 0.0, id="free"),
        pytest.param(59.99, 77.98, id="full-price"),
    ],
)
def test_cap_usd(price: float, cap: float) -> None:
    assert cap_usd(price) == cap
    assert fits(cents(cap), cents(price))
    assert not fits(cents(cap) + 1, cents(price))


GAMES = st.lists(
    st.tuples(
        st.sampled_from(["rpg", "action", "other"]),
        st.integers(0, 100),
        st.sampled_from([0, 99, 499, 999, 1299, 1999, 2499, 2999, 5999]),
        st.booleans(),
    ),
    max_size=60,
).map(
    lambda rows: [
        Candidate(genre, score, price, hidden)
        for genre, score, price, hidden in sorted(rows, key=lambda r: -r[1])
    ]
)


@given(GAMES)
def test_the_fast_box_is_the_reference_box(games: list[Candidate]) -> None:
    assert better_value(games) == [better_value_of(games, n) for n in range(len(games))]
