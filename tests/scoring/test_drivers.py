"""The drivers of a score (scoring.drivers): directions from a small vocabulary, no weights."""

from __future__ import annotations

import pytest
from hypothesis import given

from bangscore.scoring.drivers import DRIVERS, drivers
from bangscore.scoring.value import ValueInputs
from tests.scoring.test_value import value_inputs


@pytest.mark.parametrize(
    ("inputs", "raises", "lowers"),
    [
        pytest.param(
            ValueInputs(14.99, 0.97, 107_575, 7.4, 0.89, "roguelike", 26.0, True),
            # Price only docks (round 6): it never raises. 7.4 h is a little short of what a
            # roguelike at $14.99 must hold to escape the dock, so length lowers.
            ["reviews", "replayability", "finish_rate"],
            ["length"],
            id="balatro",
        ),
        pytest.param(
            ValueInputs(0.0, 0.95, 11_658, 1591.6, None, "other", unattended=True),
            # Free counts as the price floor, about what 2 h of play are worth: price is neutral.
            ["reviews", "length"],
            ["unattended_time"],
            id="ngu-idle",
        ),
        pytest.param(
            ValueInputs(59.99, 0.75, 20_000, 4.0, None, "shooter"),
            [],
            # 4 h is about half a shooter's normal length (genre norms from the catalogue).
            ["reviews", "price", "length"],
            id="dear-mixed-shooter",
        ),
        pytest.param(
            ValueInputs(9.99, 0.9, 400, 20.0, None, "rpg", estimated_length=True),
            # An estimate of 20 h counts as 14 h, under an rpg's normal length: neutral; $9.99 is
            # under what those hours are worth, which earns nothing.
            ["reviews"],
            ["estimated_length"],
            id="estimated-length",
        ),
        pytest.param(
            ValueInputs(7.99, 0.99, 17_877, 1.5, 0.77, "indie_short"),
            # $7.99 is more than 1.5 h of a short indie game are worth: price and length lower.
            ["reviews", "finish_rate"],
            ["price", "length"],
            id="a-short-hike",
        ),
    ],
)
def test_drivers_of_known_games(inputs: ValueInputs, raises: list[str], lowers: list[str]) -> None:
    found = drivers(inputs)
    assert (found["raises"], found["lowers"]) == (raises, lowers)


@given(value_inputs())
def test_drivers_use_the_vocabulary_once_each(inputs: ValueInputs) -> None:
    found = drivers(inputs)
    names = found["raises"] + found["lowers"] + found["neutral"]
    assert set(found) == {"raises", "lowers", "neutral"}
    assert len(names) == len(set(names))
    assert set(names) <= set(DRIVERS)
    assert {"reviews", "price", "length"} <= set(names)
    assert ("finish_rate" in names) == (inputs.finish_rate is not None)
    assert ("estimated_length" in names) == inputs.estimated_length
