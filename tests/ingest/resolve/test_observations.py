"""Precedence of layered observations (ingest.resolve.observations): trust, then freshness, then
order."""

from __future__ import annotations

import datetime as dt

import pytest

from bangscore.ingest.resolve.observations import (
    TRUST_KEYED,
    TRUST_MATCHED,
    Layer,
    Observation,
    Observations,
)

OLD_KEYED = Layer("old keyed", "storefront", dt.date(2023, 1, 1), TRUST_KEYED)
NEW_KEYED = Layer("new keyed", "storefront", dt.date(2026, 7, 1), TRUST_KEYED)
NEWER_MATCHED = Layer("newer matched", "play_length", dt.date(2026, 8, 1), TRUST_MATCHED)
SAME_DAY = Layer("same day, later", "storefront", dt.date(2026, 7, 1), TRUST_KEYED)


def collect(*layers: tuple[Layer, list[Observation]]) -> Observations:
    known = Observations()
    for layer, observed in layers:
        known.add(layer, observed)
    return known


@pytest.mark.parametrize(
    ("layers", "winner"),
    [
        pytest.param([OLD_KEYED, NEW_KEYED], "new keyed", id="freshest-keyed-wins"),
        pytest.param([NEW_KEYED, OLD_KEYED], "new keyed", id="order-of-adding-does-not-matter"),
        pytest.param([OLD_KEYED, NEWER_MATCHED], "old keyed", id="keyed-beats-fresher-matched"),
        pytest.param([NEWER_MATCHED], "newer matched", id="matched-when-alone"),
        pytest.param([NEW_KEYED, SAME_DAY], "new keyed", id="same-date-first-registered"),
        pytest.param([SAME_DAY, NEW_KEYED], "same day, later", id="same-date-first-registered-2"),
    ],
)
def test_precedence(layers: list[Layer], winner: str) -> None:
    known = collect(
        *[(layer, [Observation(1, "main_story_hours", layer.name)]) for layer in layers]
    )

    found = known.get(1, "main_story_hours")

    assert found is not None
    assert (found.value, found.layer.name) == (winner, winner)
    assert known.value(1, "main_story_hours") == winner
    assert next(c.layer.name for c in known.candidates(1, "main_story_hours")) == winner


def test_fields_resolve_independently_and_unknowns_are_none() -> None:
    known = collect(
        (OLD_KEYED, [Observation(7, "name", "Old"), Observation(7, "tags", ("A", "B"))]),
        (NEW_KEYED, [Observation(7, "name", "New")]),
    )

    resolved = known.resolve(7)

    assert {k: (v.value, v.layer.name) for k, v in resolved.items()} == {
        "name": ("New", "new keyed"),
        "tags": (("A", "B"), "old keyed"),
    }
    assert known.get(8, "name") is None
    assert known.value(7, "price", "default") == "default"
    assert known.appids == {7}
    assert known.fields() == ("name", "tags")


def test_candidates_list_every_layer_best_first() -> None:
    known = collect(
        (NEWER_MATCHED, [Observation(3, "main_story_hours", 9.0)]),
        (OLD_KEYED, [Observation(3, "main_story_hours", 23.0)]),
        (NEW_KEYED, [Observation(3, "main_story_hours", 72.2)]),
    )

    assert [(c.value, c.layer.name) for c in known.candidates(3, "main_story_hours")] == [
        (72.2, "new keyed"),
        (23.0, "old keyed"),
        (9.0, "newer matched"),
    ]


def test_a_layer_added_later_replaces_the_cached_winner() -> None:
    known = collect((OLD_KEYED, [Observation(5, "name", "Old")]))
    assert known.value(5, "name") == "Old"

    known.add(NEW_KEYED, [Observation(5, "name", "New")])

    assert known.value(5, "name") == "New"


def test_adding_a_layer_twice_is_refused() -> None:
    known = collect((OLD_KEYED, []))
    with pytest.raises(ValueError, match="added twice"):
        known.add(OLD_KEYED, [])


def test_add_counts_observations_and_last_one_wins_within_a_layer() -> None:
    known = Observations()
    count = known.add(OLD_KEYED, [Observation(1, "name", "a"), Observation(1, "name", "b")])
    assert count == 2
    assert known.value(1, "name") == "b"
